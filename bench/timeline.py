"""A pytest plugin that writes when each process of a run starts, collects, plays each test and exits: where a
parallel run's wall goes beyond the tests (bench/PARALLEL.md). ``TIMELINE=<dir> PYTEST_ADDOPTS="-p bench.timeline"``
(the repository on PYTHONPATH): each process (the controller, each xdist worker) writes ``<dir>/<name>.jsonl``, one
event a line, times in seconds since the epoch; ``python bench/timeline.py <dir>`` prints a table of them.
"""

from __future__ import annotations

import atexit
import json
import os
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

_STARTED, _STARTED_CPU = time.time(), time.process_time()
_events: list[dict[str, Any]] = []


def _process_start() -> float | None:
    """When the kernel started this process (before the interpreter's own start-up), seconds since the epoch."""
    try:
        ticks = int(Path("/proc/self/stat").read_text().rsplit(")", 1)[1].split()[19])
        uptime = float(Path("/proc/uptime").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return None
    return time.time() - uptime + ticks / os.sysconf("SC_CLK_TCK")


def _event(what: str, **fields: Any) -> None:
    _events.append({"event": what, "t": time.time(), "cpu": time.process_time(), **fields})


def _write(config: Any) -> None:
    folder = os.environ.get("TIMELINE")
    if not folder:
        return
    workerinput = getattr(config, "workerinput", None)
    name = workerinput["workerid"] if workerinput else "controller"
    _event("exit", threads=[f"{t.name} daemon={t.daemon}" for t in threading.enumerate()])
    Path(folder).mkdir(parents=True, exist_ok=True)
    with open(Path(folder) / f"{name}.jsonl", "w") as out:
        out.write(json.dumps({"event": "process", "t": _process_start(), "cpu": 0.0}) + "\n")
        out.write(json.dumps({"event": "plugin imported", "t": _STARTED, "cpu": _STARTED_CPU}) + "\n")
        out.writelines(json.dumps(event) + "\n" for event in _events)


def pytest_configure(config: Any) -> None:
    _event("configure", modules=len(sys.modules))
    atexit.register(_write, config)


def pytest_collection_finish(session: Any) -> None:
    _event("collected", items=len(session.items), modules=len(sys.modules))


def pytest_runtest_logstart(nodeid: str, location: Any) -> None:
    _event("test start", nodeid=nodeid)


def pytest_runtest_logfinish(nodeid: str, location: Any) -> None:
    _event("test end", nodeid=nodeid)


def _between(before: str, after: str) -> Any:
    """A hook wrapper's body: an event before every other implementation of the hook, another after."""
    _event(before)
    try:
        return (yield)
    finally:
        _event(after)


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_sessionfinish(session: Any) -> Any:
    return (yield from _between("session finish", "session finished"))


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_unconfigure(config: Any) -> Any:
    return (yield from _between("unconfigure", "unconfigured"))


def pytest_fixture_post_finalizer(fixturedef: Any, request: Any) -> None:
    if fixturedef.scope != "function":
        _event("fixture finalized", fixture=fixturedef.argname, scope=fixturedef.scope)


def summary(folder: Path) -> str:
    """Per process: start, collected, first test, last test end, exit, relative to the controller's start; and
    the time its tests took between them."""
    runs = {path.stem: [json.loads(line) for line in path.read_text().splitlines()]
            for path in sorted(Path(folder).glob("*.jsonl"))}
    zero = min(e["t"] for events in runs.values() for e in events if e["event"] == "process" and e["t"])
    lines = [f"{'process':<11} {'start':>6} {'plugin':>6} {'config':>6} {'collect':>7} {'1st':>6} {'last':>6} "
             f"{'exit':>6} {'tests':>6} {'n':>4} {'cpu':>6}"]
    for name, events in runs.items():
        first = {}
        for e in events:
            first.setdefault(e["event"], e)
        starts = [e for e in events if e["event"] == "test start"]
        ends = [e for e in events if e["event"] == "test end"]
        busy = sum(b["t"] - a["t"] for a, b in zip(starts, ends))

        def at(event: dict | None) -> str:
            return f"{event['t'] - zero:6.1f}" if event and event["t"] else "     -"
        lines.append(f"{name:<11} {at(first.get('process'))} {at(first.get('plugin imported'))} "
                     f"{at(first.get('configure'))}  {at(first.get('collected'))} "
                     f"{at(starts[0] if starts else None)} {at(ends[-1] if ends else None)} {at(first.get('exit'))} "
                     f"{busy:6.1f} {len(starts):4d} {events[-1]['cpu']:6.1f}")
    return "\n".join(lines)


if __name__ == "__main__":
    print(summary(Path(sys.argv[1])))
