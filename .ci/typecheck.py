"""The type check of CI: mypy, strict, on the protocol cores and foundations ([tool.mypy] files in pyproject.toml).

Each core may have at most the errors CEILING allows it (0 for every core today); a core over its ceiling fails the check,
and so does one under it (lower the ceiling then: the count only falls). Run from the repository's root:
``python .ci/typecheck.py`` (exit 0: every core at its ceiling).
"""

import re
import subprocess
import sys
from collections import Counter

# errors each core may still have under mypy --strict: 0 for every core since issue #24 (see CONTRIBUTING.md), which
# began at 241 in all (ocpi 99, ocpp 70, smartcharging 32, verdict 14, clock 11, variance 8, wire 5, rules 1,
# cistring 1). A package brought in later starts at its count and falls to 0.
CEILING = {
    "harness/clock.py": 0,
    "harness/loopback.py": 0,
    "harness/cistring.py": 0,
    "harness/errors.py": 0,
    "harness/ocpi": 0,
    "harness/ocpp": 0,
    "harness/rules.py": 0,
    "harness/smartcharging": 0,
    "harness/variance.py": 0,
    "harness/verdict.py": 0,
    "harness/wire.py": 0,
}


def core_of(path: str) -> str:
    """The CEILING key a file of mypy's report belongs to."""
    return next(core for core in CEILING if path == core or path.startswith(core + "/"))


def main() -> int:
    report = subprocess.run([sys.executable, "-m", "mypy"], capture_output=True, text=True)
    errors = Counter(core_of(m.group(1)) for m in re.finditer(r"^(\S+\.py):\d+: error:", report.stdout, re.M))
    wrong = {core: errors[core] for core in CEILING if errors[core] != CEILING[core]}
    for core in CEILING:
        print(f"{core:28} {errors[core]:4} errors (ceiling {CEILING[core]})")
    if wrong:
        print(report.stdout if any(errors[c] > CEILING[c] for c in wrong) else "", end="")
        for core, count in wrong.items():
            verb = "rose above" if count > CEILING[core] else "fell below: lower"
            print(f"FAIL {core}: {count} errors {verb} its ceiling {CEILING[core]}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
