"""The project's own tests: the environment of the Python processes they start, and the fault
catalogs' detection rates, printed at the end of the run.

A fault test names its fault in a user property (``checks_fault``); whether it passed says whether
the fault was caught. The reports carry user properties to the process that prints the
summary (the same process, or pytest-xdist's controller), so the rates add up either way; the
lines show in CI output even when every test passes.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

import pytest

@pytest.fixture(scope="session")
def python_env() -> dict[str, str]:
    """The environment for the Python processes a test starts (suite runs, example SUTs, peers):
    byte code cached outside the repository, in one cache all of them share (and the next run too),
    rather than not written at all, which made every process compile the harness anew."""
    env = {name: value for name, value in os.environ.items() if name != "PYTHONDONTWRITEBYTECODE"}
    return env | {"PYTHONPYCACHEPREFIX": str(Path(tempfile.gettempdir()) / "evse-conformance-pycache")}


SELFCHECK_DIR = str(Path(__file__).resolve().parent / "selfcheck")
if SELFCHECK_DIR not in sys.path:   # its secret scanner serves the operator tests too (tests/ is no package)
    sys.path.insert(0, SELFCHECK_DIR)

FAULT = "fault"
_caught: dict[str, dict[str, tuple[bool, str | None]]] = {}   # catalog → fault → (caught, known miss)
_sizes: dict[str, int] = {}


@pytest.fixture
def checks_fault(record_property):
    """``checks_fault(catalog, faults, fault)``: this test checks that ``fault``, one of the ``faults`` of
    ``catalog``, is caught; it is caught when the test passes."""
    def checks(catalog: str, faults, fault) -> None:
        record_property(FAULT, {"catalog": catalog, "size": len(faults), "name": fault.name,
                                "known_miss": getattr(fault, "known_miss", None)})
    return checks


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    if report.when != "call":
        return
    for key, fault in report.user_properties:
        if key == FAULT:
            _sizes[fault["catalog"]] = fault["size"]
            caught = report.passed and not hasattr(report, "wasxfail")
            _caught.setdefault(fault["catalog"], {})[fault["name"]] = caught, fault["known_miss"]


def pytest_terminal_summary(terminalreporter) -> None:
    for catalog, faults in _caught.items():
        caught = sum(ok for ok, _ in faults.values())
        terminalreporter.write_sep("-", catalog)
        line = f"{catalog}: {caught}/{len(faults)} faults caught ({caught / len(faults):.0%})"
        if len(faults) < _sizes[catalog]:
            line += f"; {_sizes[catalog] - len(faults)} of the {_sizes[catalog]} faults not run"
        terminalreporter.write_line(line)
        for name, (ok, known_miss) in faults.items():
            if not ok:
                why = f" (known miss: {known_miss})" if known_miss else ""
                terminalreporter.write_line(f"  not caught: {name}{why}")
