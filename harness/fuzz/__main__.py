"""Fuzz the references, each started on its own as a SUT:

    python -m harness.fuzz --count 100000 --seed 1 [TARGET ...]

TARGET is csms-ocpp1.6, csms-ocpp2.0.1, csms-ocpp2.1, cs-ocpp1.6, cs-ocpp2.0.1, cs-ocpp2.1, ocpi-cpo or
ocpi-emsp (default: all of them, one after the other). Each prints what it sent, the wrong answers (the
first 20 spelled out), its memory before, after the warm-up and at the end, and its rate; ``--json``
writes the numbers to a file. Exit 1 when any answer was wrong or memory grew past ``--max-growth``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys

from harness.fuzz.run import TARGETS


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m harness.fuzz", description=__doc__.split("\n\n")[0])
    parser.add_argument("targets", nargs="*", metavar="TARGET", help=f"what to fuzz (default all): {', '.join(TARGETS)}")
    parser.add_argument("--count", type=int, default=100_000, help="frames or requests per target (default 100000)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the generator: the same seed, the same frames")
    parser.add_argument("--max-growth", type=float, default=0.10,
                        help="memory growth from the warm-up to the end that fails a run (default 0.10: 10 %%)")
    parser.add_argument("--json", help="write every target's numbers to this file")
    args = parser.parse_args(argv)
    unknown = [target for target in args.targets if target not in TARGETS]
    if unknown:
        parser.error(f"unknown target {', '.join(unknown)}: use {', '.join(TARGETS)}")
    failed, numbers = False, {}
    for target in args.targets or list(TARGETS):
        report = asyncio.run(TARGETS[target](args.count, args.seed))
        print(report.summary(), flush=True)
        failed |= report.tally.wrong > 0 or report.growth > args.max_growth
        numbers[target] = {"sent": report.tally.frames, "wrong": report.tally.wrong,
                           "examples": report.tally.examples, "by_kind": dict(report.tally.by_fault),
                           "seconds": round(report.tally.seconds, 1), "rss_kb": report.rss,
                           "growth": round(report.growth, 4), "reconnects": report.reconnects}
    if args.json:
        with open(args.json, "w", encoding="utf-8") as out:
            json.dump(numbers, out, indent=1)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
