"""What a load process samples once a second: its own CPU and memory, those of watched processes (the server
under load, when it runs on this machine), and the run's own gauges; and the progress line."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TextIO

import psutil

from harness.load.recorder import Recorder

SAMPLE_EVERY = 1.0      # seconds between gauge samples and progress lines
Line = Callable[[float, float, dict[str, float]], str]   # (now, requests a second, own usage) -> the progress line


class Gauges:
    def __init__(self, recorder: Recorder, source: str, watch: dict[str, int] | None,
                 run: Callable[[], dict[str, float]]):
        self.recorder, self.source, self.run = recorder, source, run
        self.process = psutil.Process()
        self.watched = {name: psutil.Process(pid) for name, pid in (watch or {}).items()}

    def once(self, now: float) -> dict[str, float]:
        """One sample of every gauge at ``now``; this process's usage."""
        own = usage(self.process)
        self.recorder.gauge(now, self.source, **self.run(), **own)
        for name, process in self.watched.items():
            try:
                self.recorder.gauge(now, name, **usage(process))
            except psutil.Error:
                pass     # the watched process ended: its line stops
        return own

    async def every_second(self, clock: Callable[[], float], progress: TextIO | None, line: Line) -> None:
        """Gauges every second, and the progress line (in place on a terminal, every 10 s otherwise)."""
        for process in [self.process, *self.watched.values()]:
            process.cpu_percent()   # the first reading only starts the measurement
        calls, tick = self.recorder.calls, 0
        while True:
            await asyncio.sleep(SAMPLE_EVERY)
            now, tick = clock(), tick + 1
            own = self.once(now)
            rate, calls = (self.recorder.calls - calls) / SAMPLE_EVERY, self.recorder.calls
            if progress is not None and (progress.isatty() or tick % 10 == 0):
                text = line(now, rate, own)
                progress.write(("\r" + text + "   ") if progress.isatty() else text + "\n")
                progress.flush()


def usage(process: psutil.Process) -> dict[str, float]:
    with process.oneshot():
        return {"cpu_percent": process.cpu_percent(), "rss_mb": round(process.memory_info().rss / 2**20, 1)}
