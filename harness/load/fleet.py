"""Many simulated stations in one process: started at a ramp, held, stopped; measured all along.

``Fleet.run`` is the whole single-process run (``python -m harness.load run``): station i connects
``i / ramp`` seconds after the start, every station keeps to its plan until ``hold`` seconds after
the last one started, then all close. A Locust worker instead starts and stops stations one by one
(``start`` / ``stop``) as the master ramps users. Either way a sampler records, once a second, the
connections held and this process's CPU and memory (and those of a watched process: the CSMS when it
runs on this machine), and a progress line shows them.
"""

from __future__ import annotations

import asyncio
import functools
import resource
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any, TextIO

from harness.ocpp.versions import OcppVersion
from harness.load.gauges import Gauges, usage
from harness.load.mix import Mix, ramp_start
from harness.load.recorder import Recorder
from harness.load.roster import Roster
from harness.load.station import StationRunner, load_profile, share_connection_keys
from harness.load.timers import Wheel
from harness.load.wire import WireMeter

STOP_TIMEOUT = 30.0     # seconds the stations get to close their connections at the end


@dataclass(frozen=True)
class LoadSettings:
    url: str                     # one CSMS endpoint, or several separated by commas (station i takes the i-th mod n)
    stations: int
    version: OcppVersion = OcppVersion.V201
    mix: Mix = field(default_factory=Mix)
    ramp: float = 100.0          # stations started per second
    hold: float = 60.0           # seconds every station keeps going after the last one started
    seed: int = 1
    call_timeout: float = 30.0
    interval: float = 5.0        # the report's time resolution, seconds

    def __post_init__(self) -> None:
        if self.stations < 1 or self.ramp <= 0 or self.hold < 0:
            raise ValueError("give at least 1 station, a ramp above 0 per second and a hold of 0 s or more")
        for url in self.urls:
            if not url.startswith(("ws://", "wss://")):
                raise ValueError(f"{url!r} is no WebSocket URL: give the CSMS endpoint, ws://host:port/path "
                                 "(several: separated by commas)")

    @functools.cached_property
    def urls(self) -> list[str]:
        """The endpoints the stations share out: a CSMS of several processes listens on several ports, and
        one client process holds ~28k connections at most to one address and port (the ephemeral ports)."""
        return [url.strip() for url in self.url.split(",")]

    @property
    def seconds(self) -> float:
        """How long the run takes when the ramp keeps its rate: the ramp, then the hold."""
        return ramp_start(self.stations - 1, self.ramp) + self.hold

    def describe(self) -> dict[str, Any]:
        return {"url": self.url, "protocol": self.version.value, "stations": self.stations,
                "ramp_per_second": self.ramp, "hold_seconds": self.hold, "seed": self.seed,
                "call_timeout_seconds": self.call_timeout,
                "mix": asdict(self.mix)}


def raise_file_limit(wanted: int) -> int:
    """Raise this process's soft limit of open files towards ``wanted`` (one per connection, plus some);
    return the limit in force. The hard limit is the system's: ``ulimit -Hn`` shows it."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < wanted:
        soft = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    return soft


class Fleet:
    def __init__(self, settings: LoadSettings, recorder: Recorder, *, roster: Roster | None = None,
                 source: str = "local", watch: dict[str, int] | None = None):
        self.settings = settings
        self.recorder = recorder
        self.roster = roster or Roster(settings.seed, settings.stations)
        self.source = source
        self.gauges = Gauges(recorder, source, watch, lambda: {"connected": self.connected, "stations": self.started})
        self.profile = load_profile(settings.call_timeout)
        self.connected = 0
        self.started = 0
        self.rss_mb_at_start: float | None = None
        self._stations: dict[int, asyncio.Task] = {}
        self._clock: Callable[[], float] | None = None
        self._meter: WireMeter | None = None
        self.wheel = Wheel()   # the stations' waits between steps: one loop timer for all

    def clock(self) -> float:
        """Wall-clock seconds read through the event loop's clock: monotonic, and alike in every process."""
        if self._clock is None:
            loop = asyncio.get_running_loop()
            offset = time.time() - loop.time()
            self._clock = lambda: offset + loop.time()
        return self._clock()

    # ---------------------------------------------------------------- one station at a time (Locust)
    def start(self, index: int) -> None:
        """Start the roster's station ``index`` (an index beyond the roster is an error of the caller)."""
        if index in self._stations:
            return
        if not self._stations and not self.started:
            share_connection_keys()
        urls = self.settings.urls
        runner = StationRunner(self.roster[index], url=urls[index % len(urls)], version=self.settings.version,
                               mix=self.settings.mix, profile=self.profile, meter=self.meter,
                               recorder=self.recorder, clock=self.clock, seed=self.settings.seed, wheel=self.wheel)
        self._stations[index] = asyncio.get_running_loop().create_task(runner.run(self._changed))
        self.started += 1

    async def stop(self, index: int) -> None:
        task = self._stations.pop(index)
        task.cancel()
        await asyncio.wait([task], timeout=STOP_TIMEOUT)
        self.started -= 1

    async def stop_all(self) -> None:
        tasks = list(self._stations.values())
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.wait(tasks, timeout=STOP_TIMEOUT)
        self._stations.clear()
        self.started = 0

    # ---------------------------------------------------------------- the whole run in this process
    async def run(self, progress: TextIO | None = sys.stderr) -> None:
        """Ramp up, hold, stop; the gauges sampled and the progress shown every second."""
        raise_file_limit(self.settings.stations + 256)
        self.rss_mb_at_start = usage(self.gauges.process)["rss_mb"]   # before the first station: what the client starts at
        begin = self.clock()
        sampler = asyncio.create_task(self.sample(progress, begin))
        try:
            for index in range(self.settings.stations):
                await asyncio.sleep(max(0.0, begin + ramp_start(index, self.settings.ramp) - self.clock()))
                self.start(index)
            await asyncio.sleep(self.settings.hold)     # from the last start, however late the ramp ran
        finally:
            sampler.cancel()      # its last sample stands for the end of the hold
            await self.stop_all()
            if progress is not None:
                progress.write("\n")

    async def sample(self, progress: TextIO | None, begin: float) -> None:
        """Gauges every second, and the progress line."""
        def line(now: float, rate: float, own: dict[str, float]) -> str:
            return (f"{now - begin:6.0f} s  stations {self.started}/{self.settings.stations}  connected "
                    f"{self.connected}  calls {rate:,.0f}/s  errors {self.recorder.error_count}  "
                    f"cpu {own['cpu_percent']:.0f} %  rss {own['rss_mb']:,.0f} MB")
        await self.gauges.every_second(self.clock, progress, line)

    def sample_once(self, now: float) -> dict[str, float]:
        return self.gauges.once(now)

    def _changed(self, delta: int) -> None:
        """A station connected (+1) or lost its connection (-1); the first moment every station of the run
        is connected starts the steady state the report measures apart ("while all held")."""
        self.connected += delta
        if self.connected == self.settings.stations and self.recorder.held_from is None:
            self.recorder.held_from = self.clock()

    @property
    def meter(self) -> WireMeter:
        if self._meter is None:
            self._meter = WireMeter(self.recorder, self.clock)
        return self._meter
