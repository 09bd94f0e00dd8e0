"""Python calls made in the tests of a run (issue #26), as a pytest plugin: cProfile enabled around each test's run
protocol (set-up, body, tear-down, reports), the total count printed at the end. A count of calls is not CPU time, but
the host's load does not move it: two checkouts compared this way differ only by what their code does.

    PYTHONPATH=$PWD:$PWD/bench python -m pytest suites/ocpp16 -q -p no:cacheprovider -p call_count
    CALL_COUNT_OUT=/tmp/calls.prof ...   # the profile too, for pstats
"""

from __future__ import annotations

import cProfile
import os
import pstats

import pytest

PROFILE = cProfile.Profile()


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None):
    PROFILE.enable()
    try:
        return (yield)
    finally:
        PROFILE.disable()


def pytest_terminal_summary(terminalreporter) -> None:
    stats = pstats.Stats(PROFILE)
    terminalreporter.write_line(f"Python calls in the tests' run protocols: {stats.total_calls:,}")
    if os.environ.get("CALL_COUNT_OUT"):
        stats.dump_stats(os.environ["CALL_COUNT_OUT"])
