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

import hypothesis.internal.observability  # noqa: F401  (see below)
import pytest

# pytester's in-process runs (tests/plugin) forget every module imported during them, and each session
# imports hypothesis at its end (its pytest plugin's terminal summary does): a second of CPU per run, spent
# again in every run. Imported here, by the process that runs them, it stays.

# The modules that take longest, first (the rest keep their order), as measured (bench/PROJECT_TESTS.md, round 6).
# Under pytest-xdist (``-n``) each is one worker's unit (see pytest_cmdline_main): the interop waits on real clocks
# while the fault catalogs compute on every core (tests/faults/suite_runner.py), then the self-checks that replay
# whole suites or wait on processes of their own; the short modules fill in behind them, so the workers end together.
LONGEST_FIRST = ("interop/test_ledger.py", "interop/test_ocpp_lib.py", "faults/test_fault_catalog.py",
                 "faults/test_faults_ocpi.py", "selfcheck/test_variance_run.py", "selfcheck/test_embedded_run.py",
                 "selfcheck/test_ocpi_two_processes.py", "selfcheck/test_no_secret_leaks.py",
                 "selfcheck/test_flat_memory.py", "faults/test_hostile_gallery.py", "faults/test_faults16.py",
                 "plugin/test_real_system.py", "selfcheck/test_packaging.py", "plugin/test_parallel_identities.py",
                 "plugin/test_plan.py", "selfcheck/test_fuzz.py", "plugin/test_operator.py",
                 "selfcheck/test_standalone_references.py", "plugin/test_reports.py", "faults/test_verdict_classes.py",
                 "plugin/test_interrupted_runs.py", "plugin/test_captured_logs.py", "load/test_real_run.py")
TESTS = Path(__file__).resolve().parent


@pytest.hookimpl(tryfirst=True)
def pytest_cmdline_main(config: pytest.Config) -> None:
    """``-n`` without ``--dist``: the tests of a module go to one worker, in the order collected. Each of
    the slow modules starts its suite runs, subprocesses or real-clock peers up front in a module
    fixture, for all its tests: split over workers, each worker would start them all again."""
    if getattr(config.option, "numprocesses", None) and config.option.dist == "no" \
            and not hasattr(config, "workerinput"):
        config.option.dist = "loadscope"
        config.option.loadscopereorder = False


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    def rank(item: pytest.Item) -> int:
        module = item.path.relative_to(TESTS).as_posix() if item.path.is_relative_to(TESTS) else ""
        return LONGEST_FIRST.index(module) if module in LONGEST_FIRST else len(LONGEST_FIRST)
    items.sort(key=rank)


# Every Python process the tests start (suite runs, pytester's subprocesses, pytest-xdist's workers, pip, the
# example SUTs, references and peers) caches its byte code outside the repository, in one cache all of them
# share (and the next run too), rather than not writing it at all where PYTHONDONTWRITEBYTECODE is set (this
# machine, many CI images): each of them compiled every module it imported anew, ~3 s of CPU per pytest.
PYCACHE = Path(tempfile.gettempdir()) / "evse-conformance-pycache"
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
os.environ["PYTHONPYCACHEPREFIX"] = str(PYCACHE)


# tests/ is no package: these folders go on sys.path for the whole run (whatever the import mode). The secret
# scanner of selfcheck/ serves the operator tests too; faults/suite_runner.py's warm suite runs serve the
# self-checks and the interop; the catalogs are the top-level package ``catalog`` and modules ``catalog16``,
# ``catalog_ocpi`` everywhere, and so in the runs suite_runner.py forks, whose ``--embedded-sut
# catalog.<block>:<Class>`` resolves; plugin/demo.py writes the head of the plugin tests' demo suites.
for folder in ("selfcheck", "faults", "plugin"):
    if str(TESTS / folder) not in sys.path:
        sys.path.insert(0, str(TESTS / folder))

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
