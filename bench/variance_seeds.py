"""Every suite against stand-ins that take legal variance, over many seeds (issue 32).

    python bench/variance_seeds.py --seeds 1-50 --jobs 2 [--out /tmp/variance]

Each seed is one `pytest suites --variance SEED` session of its own. The script prints, per role and
protocol, the tests played over all seeds and their verdicts, how often each freedom of
harness/variance.py was taken, and every failed or broken test with its seed and reason: a correct
SUT that reads the texts differently must never be failed, so the expected figures are 0 and 0.
Replay one with `pytest suites --variance SEED -k <test>`.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from collections import Counter, defaultdict
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
VERDICTS = ("passed", "failed", "broken", "skipped")


def seeds(text: str) -> list[int]:
    first, _, last = text.partition("-")
    return list(range(int(first), int(last or first) + 1))


def play(seed: int, out: Path) -> dict:
    reports = out / str(seed)
    subprocess.run([sys.executable, "-m", "pytest", str(REPO / "suites"), "-q", "-p", "no:cacheprovider",
                    f"--variance={seed}", f"--reports-dir={reports}"], cwd=out, capture_output=True, timeout=1800)
    return json.loads((reports / "conformance.json").read_text(encoding="utf-8"))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", default="1-50", help="a seed or a range FIRST-LAST (default 1-50)")
    parser.add_argument("--jobs", type=int, default=2, help="sessions side by side (default 2)")
    parser.add_argument("--out", type=Path, default=None, help="where the runs' reports go (default: a temporary folder)")
    args = parser.parse_args()
    out = args.out or Path(tempfile.mkdtemp(prefix="variance-"))
    out.mkdir(parents=True, exist_ok=True)
    played = seeds(args.seeds)
    with ThreadPoolExecutor(args.jobs) as pool:
        summaries = dict(zip(played, pool.map(lambda seed: play(seed, out), played)))
    counts: dict[tuple, Counter] = defaultdict(Counter)
    taken: Counter[str] = Counter()
    blamed = []
    for seed, summary in summaries.items():
        taken.update(summary["variance"]["freedoms_taken"])
        for result in summary["results"]:
            counts[(result["role"] or "-", result["protocol"] or "-")][result["verdict"]] += 1
            if result["verdict"] in ("failed", "broken"):
                blamed.append(f"seed {seed} {result['nodeid']} {result['verdict']}: {result['reason'][:300]}")
    print(f"{len(played)} seeds ({args.seeds}), reports in {out}\n")
    print("| role | protocol | tests played | " + " | ".join(VERDICTS) + " |")
    print("|---|---|---|" + "---|" * len(VERDICTS))
    for (role, protocol), verdicts in sorted(counts.items()):
        print(f"| {role} | {protocol} | {sum(verdicts.values())} | " + " | ".join(str(verdicts[v]) for v in VERDICTS) + " |")
    print("\n| freedom | taken |\n|---|---|")
    for row, times in sorted(taken.items()):
        print(f"| {row} | {times} |")
    print(f"\nfailed or broken: {len(blamed)}")
    print("\n".join(blamed))
    return 1 if blamed else 0


if __name__ == "__main__":
    sys.exit(main())
