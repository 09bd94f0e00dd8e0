"""What one simulated station of the load client holds, by where it was allocated (tracemalloc), with its tasks
and loop timers: the view behind bench/LEAN.md's "per station" figures.

    python bench/load_station_memory.py --stations 1000 [--top 25] [--frames 1]

Starts the reference CSMS for the roster in a process of its own, then in this process starts N stations of
the load client (``harness.load.fleet``: connect, BootNotification, StatusNotification, a Heartbeat every 10 s)
under tracemalloc, waits until all are connected and a few seconds more, and prints the traced bytes per
station (everything allocated since the first station, over N), the asyncio tasks and live loop timers per
station, the station's instance attributes, and the largest allocation sites. Traced bytes are what Python
allocated; the resident memory the bench (load_numbers.py client) reports is close to it.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import gc
import socket
import subprocess
import sys
import tracemalloc
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from harness.load.fleet import Fleet, LoadSettings  # noqa: E402
from harness.load.mix import Mix  # noqa: E402
from harness.load.recorder import Recorder  # noqa: E402
from harness.load.station import StationRunner  # noqa: E402
from harness.ocpp.versions import OcppVersion  # noqa: E402

CONNECT_WAIT = 120.0   # seconds the stations get to connect
SETTLE = 5.0           # seconds after the last connect: boots and StatusNotifications answered (--settle 25: and
                       # each station's first Heartbeats, what a held station keeps between its beats)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


async def measure(args, url: str) -> int:
    settings = LoadSettings(url=url, stations=args.stations, version=OcppVersion.parse(args.protocol),
                            mix=Mix(heartbeat=10), ramp=args.ramp, hold=0)
    fleet = Fleet(settings, Recorder(5))
    gc.collect()
    tracemalloc.start(args.frames)
    before = tracemalloc.take_snapshot()
    loop = asyncio.get_running_loop()
    for index in range(args.stations):
        fleet.start(index)
        if index % 50 == 49:
            await asyncio.sleep(50 / args.ramp)
    deadline = loop.time() + CONNECT_WAIT
    while fleet.connected < args.stations and loop.time() < deadline:
        await asyncio.sleep(0.2)
    await asyncio.sleep(args.settle)
    gc.collect()
    after = tracemalloc.take_snapshot()
    tracemalloc.stop()
    n = args.stations
    diff = after.compare_to(before, "traceback" if args.frames > 1 else "lineno")
    tasks = collections.Counter(t.get_coro().__qualname__ for t in asyncio.all_tasks())
    timers = collections.Counter(getattr(h._callback, "__qualname__", "?") for h in loop._scheduled
                                 if not h.cancelled())
    cancelled = sum(1 for h in loop._scheduled if h.cancelled())
    runner = next((o for o in gc.get_objects() if issubclass(type(o), StationRunner)), None)
    keys = sorted(vars(runner.station)) if runner is not None else []
    print(f"{fleet.connected:,} of {n:,} connected, {fleet.recorder.error_count} errors ({args.protocol})")
    print(f"traced per station: {sum(d.size_diff for d in diff) / n:,.0f} bytes")
    print(f"asyncio tasks: {len(asyncio.all_tasks()) - 1:,} ({dict(tasks.most_common(6))})")
    print(f"live loop timers: {sum(timers.values()):,} ({dict(timers.most_common(6))}); cancelled ones the loop "
          f"still holds: {cancelled:,} (asyncio drops them once they are half its timers)")
    print(f"a station's instance attributes: {len(keys)} ({', '.join(keys)})")
    for d in diff[:args.top]:
        where = d.traceback.format()[-2 * args.frames:] if args.frames > 1 else [str(d.traceback[0])]
        print(f"{d.size_diff / n:7.0f} B {d.count_diff / n:5.1f}×  " + "\n                   ".join(where))
    await fleet.stop_all()
    return 0 if fleet.connected == n else 1


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--stations", type=int, default=1000)
    parser.add_argument("--ramp", type=float, default=500.0, help="stations started per second")
    parser.add_argument("--protocol", default="ocpp2.0.1")
    parser.add_argument("--settle", type=float, default=SETTLE, help="seconds held after the last connect")
    parser.add_argument("--top", type=int, default=25, help="allocation sites listed")
    parser.add_argument("--frames", type=int, default=1, help="frames of each allocation's traceback")
    args = parser.parse_args()
    port = free_port()
    csms = subprocess.Popen([sys.executable, "-m", "harness.load", "csms", "--stations", str(args.stations),
                             "--port", str(port), "--seconds", "600", "--protocol", args.protocol],
                            cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        for line in csms.stdout:
            if "listening" in line:
                break
        return asyncio.run(measure(args, f"ws://127.0.0.1:{port}/ocpp"))
    finally:
        csms.terminate()
        csms.wait(timeout=30)


if __name__ == "__main__":
    sys.exit(main())
