"""CPU per test of the embedded run, two checkouts side by side (issue #26): ``pytest suites`` and ``pytest suites --co``
in each checkout in turn (A B A B ...), each a child process whose user + system time getrusage reports; per test
= (CPU of the run − CPU of the collection) / tests. CPU time, not wall time: the shared machine's noise drops out.

    python bench/cpu_per_test.py /work/wt-lean /tmp/wt-base --rounds 2
    python bench/cpu_per_test.py /work/wt-cpu /tmp/wt-base --rounds 6 --suites suites/ocpp2/provisioning

On a busy host (load average past the cores) the other processes' work inflates a run's CPU time too (caches, shared
cores), by 10-30 % from one run to the next: the lowest of several rounds is printed beside the median, as contention
only ever adds to it. A checkout of another commit: ``git worktree add --detach /tmp/wt-base <commit>`` (and
``git worktree remove`` after).
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile


def cpu_of(checkout: str, args: list[str], suites: str = "suites") -> tuple[float, str]:
    """CPU seconds of one pytest run in ``checkout`` (its code first on the path), and its last summary line."""
    env = {**os.environ, "PYTHONPATH": checkout}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    with tempfile.TemporaryDirectory() as reports:
        done = subprocess.run([sys.executable, "-m", "pytest", suites, *args, "-q", "-p", "no:cacheprovider",
                               "--reports-dir", reports], cwd=checkout, env=env, capture_output=True, text=True,
                              timeout=1800)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    lines = [line for line in done.stdout.splitlines() if re.search(r"\d+ passed|collected", line)]
    return after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime, lines[-1] if lines else done.stdout[-300:]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("checkouts", nargs="+")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--suites", default="suites", help="the path pytest runs in each checkout (default: suites)")
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.1f}", flush=True)
    runs: dict[str, list[float]] = {c: [] for c in args.checkouts}
    tests: dict[str, int] = {}
    for _ in range(args.rounds):
        for checkout in args.checkouts:
            seconds, line = cpu_of(checkout, [], args.suites)
            runs[checkout].append(seconds)
            tests[checkout] = int(re.search(r"(\d+) passed", line).group(1)) if " passed" in line else 0
            print(f"{checkout}: suites {seconds:.1f} s CPU ({line})", flush=True)
    for checkout in args.checkouts:
        collect = min(cpu_of(checkout, ["--co"], args.suites)[0] for _ in range(2 if args.rounds > 2 else 1))
        run, lowest = statistics.median(runs[checkout]), min(runs[checkout])
        per_test = [(r - collect) / tests[checkout] * 1000 if tests[checkout] else float("nan") for r in (run, lowest)]
        print(f"{checkout}: run {run:.1f} s (median of {args.rounds}; lowest {lowest:.1f} s), collection {collect:.1f} s, "
              f"{tests[checkout]} tests: {per_test[0]:.2f} ms CPU per test (lowest round: {per_test[1]:.2f} ms)")
    print(f"load average {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
