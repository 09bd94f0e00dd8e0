"""The project's own suite runs, each a pytest session in a process of its own, started warm: the fault
catalogs', and the self-checks' that need a session of their own but no interpreter of their own.

A fault's run plays a handful of suite tests, on virtual time since the embedded run does: a fresh
interpreter would spend longer importing the harness, pytest and their libraries than playing
them. So the runs are workers of a ``ProcessPoolExecutor`` on multiprocessing's *forkserver*: it
imports those modules once, and every run is a process forked from it that plays one session and
exits (``max_tasks_per_child=1``: no plugin state, registered use case, rule table or event loop
of one run reaches the next), as many at a time as the machine has cores (the runs compute, they
no longer wait).
"""

from __future__ import annotations

import gc
import multiprocessing
import multiprocessing.forkserver
# what a pool imports when it first starts a worker (concurrent.futures.process too, below), imported with this
# module: pytester forgets every module a test imported, and a pool made in one test would then meet classes of
# another import in the next
import multiprocessing.popen_forkserver
import multiprocessing.queues
import multiprocessing.synchronize
import os
import signal
import subprocess
import sys
import threading
import time
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path

import pytest

# what every run imports, once in the forkserver: pytest, its plugins and the report templates (see
# warm_start.py), and the SUTs the runs play (they import the harness and its libraries)
PRELOAD = ["warm_start", "catalog", "catalog16", "catalog_ocpi", "hostile", "verdict_variants"]
OPTIONS = ("-p", "no:cacheprovider", "-p", "no:randomly",
           "-W", "ignore::pytest.PytestAssertRewriteWarning",   # the harness is imported before pytest starts
           # a failure's traceback in one line, its reason (the plugin's words): the checks read verdicts and
           # reasons from conformance.json, and pytest's long tracebacks, with their source, were most of a run's CPU
           "--tb=line")
# A run that plays suite tests only for their verdicts (the fault catalogs, the hostile gallery, the verdict
# classes) goes without the plugins no suite test uses, and without assertion rewriting: no suite test
# asserts, each judges through its rule table's verifiers (tests/unit/test_rule_tables.py). A tenth of
# such a run's CPU. The self-checks' runs keep every plugin: they are the runs a user starts.
VERDICTS_ONLY = ("--assert=plain", *(f"-pno:{name}" for name in (
    "locust", "benchmark", "hypothesispytest", "xdist", "xdist.looponfail", "faker", "anyio")))
TIMED_OUT = 124   # the exit code of a run stopped at its time limit (as coreutils' timeout says it)
# A run that plays on virtual time (an embedded run): how long the kernel makes it wait changes nothing in
# it. The tests on the real clock beside it under pytest-xdist (the interop's example SUTs, two-process
# runs) are judged by their timeouts: the runs yield the cores to them (nice 5: a quarter of the weight of
# a process at 0). A run against a SUT of its own process is on the real clock itself: it keeps nice 0.
VIRTUAL_TIME, REAL_CLOCK = 5, 0

# Runs on the real clock at a time, in a pool of their own: each mostly waits on its SUT's process (the
# interop's 18 shards against the example SUTs go side by side, beside the OCPI two-process runs), while the runs
# on virtual time compute. A process is forked only when a run needs one.
REAL_CLOCK_RUNS = 24

_lock = threading.Lock()
_pools: dict[bool, ProcessPoolExecutor] = {}   # by "on the real clock"


def _workers(real_clock: bool) -> ProcessPoolExecutor:
    with _lock:
        if not _pools:
            multiprocessing.get_context("forkserver").set_forkserver_preload(PRELOAD)
            _start_forkserver()
        if real_clock not in _pools:
            _pools[real_clock] = ProcessPoolExecutor(REAL_CLOCK_RUNS if real_clock else _cores(),
                                                     mp_context=multiprocessing.get_context("forkserver"),
                                                     max_tasks_per_child=1)
        return _pools[real_clock]


def _start_forkserver() -> None:
    """The forkserver starts with this process's environment but not its ``sys.path`` (Python 3.11
    passes it and ignores it), and it skips a preload it cannot import without a word: this folder
    goes on its PYTHONPATH, for the moment it starts."""
    before = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, (str(Path(__file__).resolve().parent), before)))
    try:
        multiprocessing.forkserver.ensure_running()
    finally:
        if before is None:
            del os.environ["PYTHONPATH"]
        else:
            os.environ["PYTHONPATH"] = before


def _cores() -> int:
    """Every core, also under pytest-xdist: the other workers mostly wait (on the interop's real
    clock, on subprocesses), and when they compute too the kernel shares the cores out."""
    return os.cpu_count() or 2


def run(directory: Path, args: list[str], timeout: float, niceness: int = VIRTUAL_TIME, *,
        verdicts_only: bool = False) -> pytest.RunResult:
    """pytest ``args`` played in ``directory`` (its temporary files below it: sessions side by side must
    not prune each other's) in a worker; ``subprocess.TimeoutExpired`` when the session outlives
    ``timeout`` seconds (counted from its start, not from its place in the queue). Paths in ``args``
    are absolute (the session finds its rootdir and conftest files from them). ``verdicts_only``: see
    ``VERDICTS_ONLY``. The session's stdin is /dev/null, as in CI."""
    code, seconds = start(directory, args, timeout, niceness, verdicts_only=verdicts_only).result()
    if code == TIMED_OUT:
        raise subprocess.TimeoutExpired(["pytest", *args], timeout)
    return pytest.RunResult(code, _lines(directory / "stdout.txt"), _lines(directory / "stderr.txt"), seconds)


def start(directory: Path, args: list[str], timeout: float, niceness: int = VIRTUAL_TIME, *,
          verdicts_only: bool = False, terminal: str | None = None) -> Future[tuple[int, float]]:
    """``run`` without waiting for it: the session's exit code (``TIMED_OUT`` at ``timeout``) and its
    seconds, when it ends. ``terminal``: the path of a terminal (a pseudo-terminal's slave) that is the
    session's stdin, stdout and stderr, as an operator's would be; its output then goes there only."""
    directory.mkdir(parents=True, exist_ok=True)
    args = [*OPTIONS, *(VERDICTS_ONLY if verdicts_only else ()), f"--basetemp={directory / 'tmp'}", *args]
    play = (_play, str(directory), args, timeout, niceness, terminal)
    try:
        return _workers(niceness == REAL_CLOCK).submit(*play)
    except BrokenProcessPool:   # a run that died (a signal it failed to catch) takes its pool with it, not the next run
        with _lock:
            del _pools[niceness == REAL_CLOCK]
        return _workers(niceness == REAL_CLOCK).submit(*play)


def _lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8", errors="replace").splitlines()


def _play(directory: str, args: list[str], timeout: float, niceness: int, terminal: str | None) -> tuple[int, float]:
    """In the worker: one pytest session in ``directory``, its output in stdout.txt and stderr.txt there
    (or on ``terminal``, its input too). At ``timeout`` a KeyboardInterrupt stops the session (pytest
    ends it as interrupted)."""
    limit = {"reached": False}

    def stop(*_):
        limit["reached"] = True
        raise KeyboardInterrupt

    started = time.monotonic()
    os.nice(niceness)
    gc.freeze()   # what the forkserver imported is there to stay: pytest's collections at the end skip it
    os.chdir(directory)
    if terminal is None:
        streams = [os.open(os.devnull, os.O_RDONLY)] + [
            os.open(name, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644) for name in ("stdout.txt", "stderr.txt")]
    else:
        streams = [os.open(terminal, os.O_RDWR | os.O_NOCTTY)] * 3
    for fd, stream in enumerate(streams):
        os.dup2(stream, fd)
    for stream in set(streams):
        os.close(stream)
    signal.signal(signal.SIGALRM, stop)
    signal.setitimer(signal.ITIMER_REAL, timeout)
    try:
        code = int(pytest.main(args))
    except KeyboardInterrupt:   # a second signal while pytest ended the session for the first: the run's
        code = pytest.ExitCode.INTERRUPTED   # own business, never the caller's (it would get it raised)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        sys.stdout.flush()
        sys.stderr.flush()
    return (TIMED_OUT if limit["reached"] else code), time.monotonic() - started
