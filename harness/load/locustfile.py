"""Locust: the simulated stations ramped by Locust's master over its workers (``python -m harness.load locust``).

A Locust user is one simulated station: the same ``StationRunner`` as the single-process run, in an
asyncio event loop that each worker runs in a greenlet (Locust patches the standard library for gevent,
so the loop's selector yields to Locust's own greenlets). Users are stations of one roster: worker w of
W (``--expect-workers``) takes the roster's stations w, w + W, w + 2W, ...; ``--stations`` is the
roster's size, the CSMS must know it (``python -m harness.load csms --stations N``), and ``--users``
stays within it.

Every round trip is a Locust request (type OCPP, name the action), so Locust's console, CSV and HTML
show it; and each worker ships its HDR histograms, errors and gauges to the master every second, which
writes the same report as a single-process run (``--load-report``, default reports/load).
"""

from __future__ import annotations

import asyncio
import functools
import itertools
import sys

import gevent
import locust.argument_parser
import locust.runners
from locust import User, constant, events, task
from locust.env import Environment
from locust.runners import MasterRunner, WorkerRunner

from harness.ocpp.versions import OcppVersion
from harness.load import report
from harness.load.fleet import Fleet, LoadSettings, raise_file_limit
from harness.load.options import add_shared_arguments, mix_of
from harness.load.recorder import Recorder

MESSAGE = "evse-load"     # a worker's measurements, shipped to the master
SHIP_EVERY = 1.0          # seconds
YIELD_EVERY = 0.2         # seconds between the event loop's turns to Locust's greenlets (its heartbeat among them)
# Locust's master takes a worker silent for 3 heartbeats (3 s) for lost, stops the test when all are, and hands a
# lost worker's users to the others. A worker holding ten thousand stations on a loaded machine is silent longer
# than that now and then (seen: 30 s, two workers of 8,000 stations on 2 shared cores), and a second worker given
# its stations runs past its open-file limit; the master waits five minutes instead.
locust.runners.HEARTBEAT_LIVENESS = 300
# Locust 2.47's worker builds its whole argument parser again for each option of every spawn message
# (WorkerRunner.handle_message calls argument_parser.default_args_dict() inside a comprehension): at a spawn rate of
# hundreds a second that was most of a worker's CPU, and starved its heartbeat. The defaults are the same every
# time in a process, so they are computed once.
locust.argument_parser.default_args_dict = functools.cache(locust.argument_parser.default_args_dict)
WAIT = 60.0               # seconds a greenlet waits for the event loop to start or stop a station


@events.init_command_line_parser.add_listener
def _arguments(parser) -> None:
    add_shared_arguments(parser)
    parser.add_argument("--stations", type=int, default=1000, help="the roster's size: the stations the CSMS knows")
    parser.add_argument("--load-report", default="reports/load", help="where the master writes load.json and load.png")
    parser.add_argument("--hold", type=float, default=None,
                        help="stop this many seconds after the last station was started (default: --run-time "
                             "alone decides)")


class Process:
    """This Locust process's part of the run: the measurements, and (unless it is the master) the stations."""

    def __init__(self, environment: Environment):
        self.environment = environment
        self.fleet: Fleet | None = None
        self.loop: asyncio.AbstractEventLoop | None = None
        self._next = itertools.count()

    @property
    def options(self):
        return self.environment.parsed_options   # a worker's are the master's once it is told to spawn

    @functools.cached_property
    def recorder(self) -> Recorder:
        return Recorder(self.options.interval, listener=self._request)

    # ---------------------------------------------------------------- stations (workers, a local runner)
    def start_station(self) -> int:
        if self.fleet is None:
            self._open()
        runner = self.environment.runner
        workers = self.options.expect_workers if isinstance(runner, WorkerRunner) else 1
        index = max(runner.worker_index, 0) + workers * next(self._next)
        if index >= self.options.stations:
            raise ValueError(f"user {index + 1} has no station: the roster has {self.options.stations}; "
                             f"give --stations at least --users (and the CSMS the same roster)")
        self.loop.call_soon_threadsafe(self.fleet.start, index)   # not awaited: a busy loop must not hold Locust up
        return index

    def stop_station(self, index: int) -> None:
        self._in_loop(self.fleet.stop(index))

    def close(self) -> None:
        if self.fleet is not None:
            self._in_loop(self._end())

    def settings(self) -> LoadSettings:
        options = self.options
        return LoadSettings(url=self.environment.host, stations=options.stations,
                            version=OcppVersion.parse(options.protocol), mix=mix_of(options), seed=options.seed,
                            call_timeout=options.call_timeout, interval=options.interval)

    def _open(self) -> None:
        settings = self.settings()
        raise_file_limit(settings.stations + 256)
        runner = self.environment.runner
        source = f"worker-{runner.worker_index}" if isinstance(runner, WorkerRunner) else "local"
        self.fleet = Fleet(settings, self.recorder, source=source)
        self.loop = asyncio.new_event_loop()
        gevent.spawn(self.loop.run_forever)
        self._in_loop(self._begin())
        if isinstance(runner, WorkerRunner):
            gevent.spawn(self._ship)

    async def _begin(self) -> None:
        loop = asyncio.get_running_loop()
        self._sampler = loop.create_task(self.fleet.sample(None, self.fleet.clock()))
        self._yielder = loop.create_task(self._yield_to_locust())

    @staticmethod
    async def _yield_to_locust() -> None:
        """A busy event loop never blocks in its selector, so it never hands the greenlet back: Locust's own
        greenlets starve, the worker's heartbeats stop, and the master takes it for lost and hands its stations
        to the others. A turn to them every YIELD_EVERY seconds, whatever the load."""
        while True:
            await asyncio.sleep(YIELD_EVERY)
            gevent.sleep(0)

    async def _end(self) -> None:
        self._yielder.cancel()
        self._sampler.cancel()      # its last sample stands for the end of the run
        await self.fleet.stop_all()

    def _in_loop(self, coroutine) -> None:
        asyncio.run_coroutine_threadsafe(coroutine, self.loop).result(WAIT)

    def _ship(self) -> None:
        while True:
            gevent.sleep(SHIP_EVERY)
            self.environment.runner.send_message(MESSAGE, self.recorder.drain())

    def ship_last(self) -> None:
        if self.fleet is not None:
            self.environment.runner.send_message(MESSAGE, self.recorder.drain())

    def _request(self, action: str, seconds: float, error: str | None) -> None:
        self.environment.events.request.fire(
            request_type="OCPP", name=action, response_time=seconds * 1000, response_length=0,
            exception=RuntimeError(error) if error else None, context={})

    # ---------------------------------------------------------------- the report (the master, a local runner)
    def received(self, msg, **_) -> None:
        self.recorder.merge(msg.data)

    def write_report(self) -> None:
        options = self.options
        distributed = isinstance(self.environment.runner, MasterRunner)
        run = self.settings().describe() | {
            "engine": "locust", "users": options.num_users, "spawn_rate": options.spawn_rate,
            "workers": options.expect_workers if distributed else 0}
        for planned_by_locust in ("ramp_per_second", "hold_seconds"):
            del run[planned_by_locust]
        written = self.recorder.report(run, stations=options.num_users)
        report.publish(written, options.load_report, sys.stdout)


PROCESS: Process | None = None


@events.init.add_listener
def _init(environment: Environment, **_) -> None:
    global PROCESS
    PROCESS = Process(environment)
    if isinstance(environment.runner, MasterRunner):
        environment.runner.register_message(MESSAGE, PROCESS.received)


@events.spawning_complete.add_listener
def _spawned(**_) -> None:
    """With --hold, the run ends that long after the last start, however long the ramp took on a busy machine."""
    environment = PROCESS.environment
    hold = environment.parsed_options.hold
    if hold is not None and not isinstance(environment.runner, WorkerRunner):
        gevent.spawn_later(hold, environment.runner.quit)


@events.test_stop.add_listener
def _stopped(environment: Environment, **_) -> None:
    if not isinstance(environment.runner, MasterRunner):
        PROCESS.close()
    if isinstance(environment.runner, WorkerRunner):
        PROCESS.ship_last()


@events.quitting.add_listener
def _quitting(environment: Environment, **_) -> None:
    if not isinstance(environment.runner, WorkerRunner):
        PROCESS.write_report()


class SimulatedStation(User):
    """One roster station; it lives in the event loop, the user only holds its place in Locust's count."""

    wait_time = constant(1)

    def on_start(self) -> None:
        self.index = PROCESS.start_station()

    @task
    def hold(self) -> None:
        """The station keeps to its own plan; nothing to do here."""

    def on_stop(self) -> None:
        PROCESS.stop_station(self.index)
