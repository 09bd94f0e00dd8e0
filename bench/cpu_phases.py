"""Where a test of the embedded run spends its CPU (issue #26), as a pytest plugin: CPU time (``process_time``, so the
shared machine's other work drops out) of each test's set-up, body and tear-down, of what pytest does around them
(its reports: ``protocol − phases``), and of the arena's steps inside them (opening, closing), summed and divided by
the tests run. Nested rows overlap their phase (an arena opens in the set-up), they do not add to it.

    PYTHONPATH=$PWD:$PWD/bench python -m pytest suites/ocpp2 -q -p no:cacheprovider -p cpu_phases

A profile says where inside each (cProfile weighs the many small calls of a test's loop: read it for the order of
the costs, these numbers for their size).
"""

from __future__ import annotations

import functools
import time
from collections import Counter

import pytest

OPEN_CSMS = "  OCPP arena open, a CSMS under test (server, connect, boot)"
OPEN_CS = "  OCPP arena open, a station under test (server, connect, boot)"
OPEN_OCPI = "  OCPI arena open"
CLOSE_OCPP = "  OCPP arena close (undo, both sides stopped)"
CLOSE_OCPI = "  OCPI arena close"
AROUND = "around the phases (reports, pytest)"
ORDER = ["test, all of it", "set-up", OPEN_CSMS, OPEN_CS, OPEN_OCPI, "body", "tear-down", CLOSE_OCPP, CLOSE_OCPI, AROUND]

SPENT: Counter[str] = Counter()
COUNT: Counter[str] = Counter()


def _timed_async(owner: type, name: str, label: str) -> None:
    original = getattr(owner, name)

    @functools.wraps(original)
    async def timed(*args, **kwargs):
        started = time.process_time()
        try:
            return await original(*args, **kwargs)
        finally:
            SPENT[label] += time.process_time() - started
            COUNT[label] += 1
    setattr(owner, name, timed)


def pytest_configure(config: pytest.Config) -> None:
    from harness.arena.ocpi import OcpiArena
    from harness.arena.ocpp import OcppArena
    _timed_async(OcppArena, "_open_csms_under_test", OPEN_CSMS)
    _timed_async(OcppArena, "_open_station_under_test", OPEN_CS)
    _timed_async(OcpiArena, "open", OPEN_OCPI)
    _timed_async(OcppArena, "close", CLOSE_OCPP)
    _timed_async(OcpiArena, "close", CLOSE_OCPI)


def _phase(label: str):
    @pytest.hookimpl(wrapper=True, tryfirst=True)
    def hook(*args, **kwargs):
        started = time.process_time()
        try:
            return (yield)
        finally:
            SPENT[label] += time.process_time() - started
            COUNT[label] += 1
    return hook


pytest_runtest_protocol = _phase("test, all of it")
pytest_runtest_setup = _phase("set-up")
pytest_runtest_call = _phase("body")
pytest_runtest_teardown = _phase("tear-down")


def pytest_terminal_summary(terminalreporter) -> None:
    tests = COUNT["test, all of it"]
    if not tests:
        return
    phases = SPENT["set-up"] + SPENT["body"] + SPENT["tear-down"]
    SPENT[AROUND], COUNT[AROUND] = SPENT["test, all of it"] - phases, tests
    terminalreporter.write_line(f"CPU per test over {tests} tests (ms; an indented row is part of the phase above it; "
                                f"in brackets how often it ran):")
    for label in ORDER:
        if COUNT[label]:
            terminalreporter.write_line(f"  {label:<64} {SPENT[label] / tests * 1000:6.2f}   ({COUNT[label]})")
