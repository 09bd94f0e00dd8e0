"""Does a faulty SUT ever make the harness blame itself, or a legal one get failed? (the rules "blame only what
the SUT sent" and "legal is not a violation")

The fault catalogs play each fault on the one or two tests named to catch it, and each legal variant on the tests
named for it. Here each record plays the whole suite folder of its tests, in its role and version (and profile),
embedded as the SUT: every test a fault leaves *broken*, and every test a legal variant leaves *failed* or
*broken*, is listed, grouped by its reason with message ids, ports and numbers blanked. A broken verdict says the
harness could not tell, or its own side failed: honest when the fault makes a later step impossible and the reason
names the SUT's part, a self-blame when it blames the harness's own side for what the SUT did or failed to do. The
control plays the same folders against the plain references: a broken there is a harness bug whatever the SUT.

    PYTHONPATH=$PWD python bench/broken_sweep.py --catalog 2x|16|ocpi|legal|legal-ocpi [--step 4 --offset 1]
                                                 [--names a,b] [--control] [--variance SEED] [--wide]

``--wide`` plays every suite of the record's role and version instead of its folder: a fault of one block meets the
tests of the others that pass through it on their way (a CSMS that refuses TransactionEvents, met by a smart
charging test that starts a transaction).

Each run's findings go to ``--out`` (JSON lines, one a run) as they end, so a sweep played in slices adds up;
``--summary`` reads that file back and prints the groups.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO), str(REPO / "tests" / "faults")]

import suite_runner  # noqa: E402  (tests/faults: the warm runs of the fault catalogs)

TIMEOUT = 900   # seconds for one folder's run
# what differs from run to run in a reason: message ids, ports, numbers, quoted ids
NOISE = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|:\d{4,5}\b|\d+(\.\d+)?")


# a catalog: its module and records (tests/faults), and the verdicts it must never get: a fault may fail tests but
# never break them; a legal variant must pass everywhere (or be not applicable)
CATALOGS = {"2x": ("catalog", "FAULTS", {"broken"}), "16": ("catalog16", "FAULTS", {"broken"}),
            "ocpi": ("catalog_ocpi", "FAULTS", {"broken"}),
            "legal": ("legal_variants", "VARIANTS", {"failed", "broken"}),
            "legal-ocpi": ("catalog_ocpi", "VARIANTS", {"failed", "broken"})}


def records(catalog: str) -> list:
    module, name, _ = CATALOGS[catalog]
    return list(getattr(__import__(module), name))


def selections(record, wide: bool = False) -> list[tuple[str, str]]:
    """The suite folders of a record's tests (``wide``: every suite), each with a role and version as ``-k``
    selects them (``csms-ocpp2.0.1``, ``cs-ocpp1.6``, ``cpo-ocpi2.2.1``: the first two parts of the node id's
    parameters)."""
    chosen = set()
    for nodeid in getattr(record, "catch", None) or getattr(record, "plays", None) or record.selection:
        path, _, test = nodeid.partition("::")
        folder = path if (REPO / path).is_dir() else str(Path(path).parent)
        if "[" in test:
            keyword = "-".join(test.partition("[")[2].rstrip("]").split("-")[:2])
        else:   # a folder or file of OCPI suites, every role of it
            keyword = "ocpi"
        chosen.add(("suites" if wide else folder, keyword))
    return sorted(chosen)


def options(fault) -> list[str]:
    profile = getattr(fault, "profile", None)
    return [f"--embedded-sut={fault.embedded_sut}", *([f"--sut-profile={REPO / profile}"] if profile else [])]


def play(folder: str, keyword: str, extra: list[str], wrong: set[str]) -> tuple[int, list[dict]]:
    """One run of ``folder`` restricted to ``keyword``: how many tests it played, and those whose verdict is
    in ``wrong``."""
    with tempfile.TemporaryDirectory() as directory:
        reports = Path(directory) / "reports"
        code, _ = suite_runner.start(Path(directory), [f"--reports-dir={reports}", *extra, "-k", keyword,
                                                       str(REPO / folder)], TIMEOUT, verdicts_only=True).result()
        conformance = reports / "conformance.json"
        if not conformance.exists():
            return 0, [{"nodeid": folder, "verdict": "broken",
                        "reason": f"the run wrote no conformance.json (exit {code})"}]
        results = json.loads(conformance.read_text(encoding="utf-8"))["results"]
    return len(results), [{"nodeid": r["nodeid"], "verdict": r["verdict"], "reason": r.get("reason") or ""}
                          for r in results if r["verdict"] in wrong]


def sweep(args: argparse.Namespace) -> None:
    chosen = records(args.catalog)
    if args.names:
        chosen = [r for r in chosen if r.name in args.names.split(",")]
    chosen = chosen[args.offset::args.step]
    wrong = CATALOGS[args.catalog][2]
    if args.control:
        runs = [("control", where, []) for where in sorted({w for r in chosen for w in selections(r, args.wide)})]
    else:
        runs = [(r.name, where, options(r)) for r in chosen for where in selections(r, args.wide)]
    with open(args.out, "a", encoding="utf-8") as out:
        for name, (folder, keyword), extra in runs:
            if args.variance is not None:   # the stand-in also takes its legal freedoms, as in the fault catalogs
                extra = [*extra, f"--variance={args.variance}", "--variance-skip=actuator.unsupported"]
            played, found = play(folder, keyword, extra, wrong)
            out.write(json.dumps({"record": name, "folder": folder, "keyword": keyword, "played": played,
                                  "found": found}) + "\n")
            out.flush()
            print(f"{name}: {folder} [{keyword}] {played} tests, {len(found)} {' or '.join(sorted(wrong))}",
                  flush=True)


def summary(path: str) -> None:
    """The verdicts of every run in ``path`` that its catalog must never get, grouped by reason."""
    groups: dict[str, list[str]] = defaultdict(list)
    runs = played = 0
    for line in Path(path).read_text(encoding="utf-8").splitlines():
        run = json.loads(line)
        runs, played = runs + 1, played + run["played"]
        for test in run["found"]:
            groups[f"{test['verdict']}: " + NOISE.sub("#", test["reason"])[:400]].append(
                f"{run['record']}: {test['nodeid']}")
    print(f"{runs} runs, {played} tests played, {sum(map(len, groups.values()))} found in {len(groups)} groups")
    for reason, tests in sorted(groups.items(), key=lambda group: -len(group[1])):
        print(f"\n{len(tests)} x {reason}")
        for test in tests[:6]:
            print(f"    {test}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--catalog", choices=tuple(CATALOGS), default="2x")
    parser.add_argument("--step", type=int, default=1)
    parser.add_argument("--offset", type=int, default=0)
    parser.add_argument("--names", default="", help="only these records (comma-separated names)")
    parser.add_argument("--control", action="store_true", help="the faults' folders against the plain references")
    parser.add_argument("--variance", type=int, help="the seed of legal variance the runs play under")
    parser.add_argument("--wide", action="store_true", help="every suite of the role and version, not the folder")
    parser.add_argument("--out", default="broken_sweep.jsonl")
    parser.add_argument("--summary", action="store_true", help="print the groups of --out and stop")
    args = parser.parse_args()
    if args.summary:
        summary(args.out)
    else:
        sweep(args)


if __name__ == "__main__":
    main()
