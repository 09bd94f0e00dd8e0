"""What virtual time buys: the embedded ``pytest suites`` on the virtual clock and on the real one,
the project's own ``pytest tests``, and why the harness has its own fast-forward loop.

Run: ``python bench/bench_virtual_time.py [suites] [real] [tests] [in-flight]`` (default: suites,
real, in-flight). Each run is a fresh pytest process, timed from outside: wall time, CPU time
(user + system of the process and its children), CPU busy (CPU / wall; on a machine shared with
other work this is capped by what the machine gives), and how often the clock jumped and how much
waiting the jumps skipped. A first run warms the byte-code cache (kept outside the repository) so
the numbers are not the compiler's. ``in-flight`` plays request/answer rounds over the loopback link
of ``tests/transport/test_virtual_clock.py`` whose server writes each answer in two pieces with
Nagle's algorithm on (as uvicorn's accepted sockets did until HttpServer made them with
``IPPROTO_TCP``): the second piece waits in the kernel for an ACK, ~40 ms of real time; a loop
that fast-forwards past it sees a timeout that never happened. ``looptime`` (PyPI) is played too when it is installed.

This file is also the pytest plugin it runs with (``-p bench_virtual_time``): it picks the clock
(``BENCH_CLOCK``: virtual or real) and sums the virtual clock's jumps.
"""

from __future__ import annotations

import asyncio
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from harness.clock import VirtualClockLoop

REPO = Path(__file__).resolve().parents[1]
CACHE = Path(tempfile.gettempdir()) / "evse-conformance-bench-pycache"
JUMPS = os.environ.get("BENCH_JUMPS")   # where the plugin writes the jumps of the run it is loaded in
_loops: list[VirtualClockLoop] = []


# ------------------------------------------------------------------------------ the plugin side
@pytest.hookimpl(tryfirst=True)
def pytest_asyncio_loop_factories(config, item):
    if os.environ.get("BENCH_CLOCK") == "real":
        return {"real_clock": asyncio.new_event_loop}
    if item.get_closest_marker("real_clock") is None:
        return {"virtual_clock": _counted_loop}
    return None


def _counted_loop() -> VirtualClockLoop:
    loop = VirtualClockLoop()
    _loops.append(loop)
    return loop


def pytest_unconfigure(config):
    if JUMPS:
        Path(JUMPS).write_text(json.dumps({"jumps": sum(loop.jumps for loop in _loops),
                                           "skipped_s": sum(loop.skipped for loop in _loops)}))


# ------------------------------------------------------------------------------ the bench side
def timed_pytest(args: list[str], clock: str) -> dict:
    """One pytest run in a fresh process, timed from outside."""
    with tempfile.TemporaryDirectory() as tmp:
        jumps = Path(tmp) / "jumps.json"
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env |= {"PYTHONPYCACHEPREFIX": str(CACHE), "BENCH_CLOCK": clock, "BENCH_JUMPS": str(jumps),
                "PYTHONPATH": os.pathsep.join([str(REPO / "bench"), env.get("PYTHONPATH", "")])}
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.monotonic()
        completed = subprocess.run([sys.executable, "-m", "pytest", *args, "-q", "-p", "no:cacheprovider",
                                    "-p", "bench_virtual_time", "--reports-dir", str(Path(tmp) / "reports")],
                                   cwd=REPO, env=env, capture_output=True, text=True)
        wall = time.monotonic() - started
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        summary = completed.stdout.strip().splitlines()[-1] if completed.stdout.strip() else completed.stderr[-300:]
        jumped = json.loads(jumps.read_text()) if jumps.exists() else {}
    return {"wall_s": round(wall, 2), "cpu_s": round(cpu, 2), "cpu_busy": f"{cpu / wall:.0%}",
            "exit": completed.returncode, "result": summary, **jumped}


def bench_suites(clock: str) -> None:
    timed_pytest(["suites", "-x"], clock)   # warms the byte-code cache
    result = timed_pytest(["suites"], clock)
    tests = int(result["result"].split(" passed")[0].split()[-1]) if " passed" in result["result"] else 0
    if tests:
        result["wall_ms_per_test"] = round(1000 * result["wall_s"] / tests, 1)
    print(f"pytest suites on the {clock} clock: {json.dumps(result)}")


def bench_tests() -> None:
    parallel = ["-n", "2"] if _has("xdist") else []
    result = timed_pytest(["tests", *parallel], "virtual")
    print(f"pytest tests {' '.join(parallel)}: {json.dumps(result)}")


def _has(module: str) -> bool:
    try:
        __import__(module)
    except ImportError:
        return False
    return True


# ---- in-flight bytes
async def _nagle_round_trips(rounds: int = 5) -> list[str]:
    sys.path.insert(0, str(REPO / "tests" / "transport"))
    from test_virtual_clock import nagle_link

    loop, seen = asyncio.get_running_loop(), []
    async with nagle_link() as (reader, writer):
        for _ in range(rounds):
            on_loop, real = loop.time(), time.monotonic()
            writer.write(b"ping\n")
            try:
                async with asyncio.timeout(5):
                    await reader.readline()
            except TimeoutError:
                seen.append(f"TIMED OUT: loop clock {loop.time() - on_loop:.3f} s, "
                            f"real {time.monotonic() - real:.3f} s")
                break
            seen.append(f"loop clock {loop.time() - on_loop:.3f} s, real {time.monotonic() - real:.3f} s")
    return seen


def bench_in_flight() -> None:
    loops = {"asyncio (real clock)": asyncio.new_event_loop, "VirtualClockLoop": VirtualClockLoop}
    if _has("looptime"):
        import looptime
        loops["looptime 0.x"] = lambda: looptime.new_event_loop(start=0)
    else:
        print("looptime is not installed (pip install looptime) and is left out")
    for name, factory in loops.items():
        loop = factory()
        try:
            print(f"in-flight bytes, {name}: {loop.run_until_complete(_nagle_round_trips())}")
        finally:
            loop.close()


if __name__ == "__main__":
    wanted = sys.argv[1:] or ["suites", "real", "in-flight"]
    if "suites" in wanted:
        bench_suites("virtual")
    if "real" in wanted:
        bench_suites("real")
    if "tests" in wanted:
        bench_tests()
    if "in-flight" in wanted:
        bench_in_flight()
