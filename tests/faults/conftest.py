"""The fault catalog's glue: ``catalog`` importable, and the detection rate at the end of the run.

``catalog.py`` is imported as the top-level module ``catalog`` everywhere: this conftest puts its
folder on ``sys.path`` for this run (whatever the import mode), and so for the suite runs
``suite_runner.py`` forks from it, whose ``--embedded-sut catalog:<Class>`` then resolves without
making ``tests/`` a package.

The detection rate is written by ``pytest_terminal_summary``, so it shows in CI output even when
every test passes (a passing test's prints are captured).
"""

import sys
from pathlib import Path

import pytest

FAULTS_DIR = Path(__file__).resolve().parent
if str(FAULTS_DIR) not in sys.path:
    sys.path.insert(0, str(FAULTS_DIR))

DETECTED = pytest.StashKey[dict[str, bool]]()


@pytest.fixture
def detected(pytestconfig: pytest.Config) -> dict[str, bool]:
    """Fault name → caught; a fault test sets False first and True once every check held."""
    return pytestconfig.stash.setdefault(DETECTED, {})


def pytest_terminal_summary(terminalreporter, exitstatus: int, config: pytest.Config) -> None:
    detected = config.stash.get(DETECTED, {})
    if not detected:
        return
    from catalog import FAULTS

    caught = sum(detected.values())
    terminalreporter.write_sep("-", "fault catalog")
    line = f"fault catalog: {caught}/{len(detected)} faults caught ({caught / len(detected):.0%})"
    if len(detected) < len(FAULTS):
        line += f"; {len(FAULTS) - len(detected)} of the {len(FAULTS)} faults not run"
    terminalreporter.write_line(line)
    known_misses = {f.name: f.known_miss for f in FAULTS}
    for name, ok in detected.items():
        if not ok:
            why = known_misses.get(name)
            terminalreporter.write_line(f"  not caught: {name}" + (f" (known miss: {why})" if why else ""))
