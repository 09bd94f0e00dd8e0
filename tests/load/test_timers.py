"""The fleet's one timer (harness.load.timers): each station's wait ends at its time or when its link ends, in
the order of their times, with one loop timer for every station; and a simulated station beats once per
period: the plan's Heartbeats replace the reference station's own timer (``heartbeats`` off; 2.x G02, 1.6 the
HeartbeatInterval), which a station of the suites keeps. On the virtual clock: no real waiting."""

import asyncio

import pytest

from harness.clock import VirtualClockLoop
from harness.load.csms import roster_csms
from harness.load.fleet import Fleet, LoadSettings
from harness.load.mix import Mix
from harness.load.recorder import Recorder
from harness.load.roster import Roster
from harness.load.station import load_profile, station_class
from harness.load.timers import Wheel
from harness.load.wire import WireMeter
from harness.ocpp.versions import OcppVersion

V201 = OcppVersion.V201


def play(coroutine_function):
    with asyncio.Runner(loop_factory=VirtualClockLoop) as runner:
        return runner.run(coroutine_function())


def live_timers(loop) -> int:
    return sum(1 for handle in loop._scheduled if not handle.cancelled())


def test_each_wait_ends_at_its_time_in_order_with_one_loop_timer_for_all():
    async def fleet():
        loop, wheel = asyncio.get_running_loop(), Wheel()
        links = [loop.create_future() for _ in range(5)]   # never ending: only the deadlines wake
        start, ended = loop.time(), []

        async def station(index: int, delay: float) -> None:
            await wheel.until(links[index], delay)
            ended.append((index, round(loop.time() - start, 6)))

        tasks = [loop.create_task(station(i, d)) for i, d in enumerate((30.0, 10.0, 20.0, 10.0, 0.0))]
        await asyncio.sleep(0)
        timers = live_timers(loop)
        await asyncio.gather(*tasks)
        return timers, ended, len(wheel)

    timers, ended, left = play(fleet)
    assert timers == 1, f"{timers} loop timers for 5 waiting stations: the wheel is to hold one for all"
    assert ended == [(4, 0.0), (1, 10.0), (3, 10.0), (2, 20.0), (0, 30.0)]
    assert left == 0


def test_a_link_that_ends_wakes_its_station_early_and_is_never_cancelled():
    async def fleet():
        loop, wheel = asyncio.get_running_loop(), Wheel()
        link = loop.create_future()
        start = loop.time()
        loop.call_later(5.0, link.set_result, None)
        await wheel.until(link, 3600.0)
        woke = loop.time() - start
        await wheel.until(link, 3600.0)   # already ended: at once
        await wheel.until(loop.create_future(), 1.0)   # a wait after it is not woken by the old deadline
        return woke, loop.time() - start, link.cancelled()

    woke, after, cancelled = play(fleet)
    assert woke == pytest.approx(5.0, abs=1e-6)
    assert after == pytest.approx(6.0, abs=1e-6)
    assert not cancelled


def test_a_cancelled_wait_leaves_the_others_on_time():
    async def fleet():
        loop, wheel = asyncio.get_running_loop(), Wheel()
        start = loop.time()
        early = loop.create_task(wheel.until(loop.create_future(), 1.0))
        late = loop.create_task(wheel.until(loop.create_future(), 2.0))
        await asyncio.sleep(0)
        early.cancel()
        await late
        return early.cancelled(), loop.time() - start

    cancelled, waited = play(fleet)
    assert cancelled and waited == pytest.approx(2.0, abs=1e-6)


def beats_in(seconds: float, *, own: bool) -> int:
    async def run() -> int:
        roster = Roster(1, 1)
        csms = await roster_csms(V201, roster, heartbeat_interval=10).start()
        card = roster[0]
        station = station_class(V201)(load_profile(30.0), V201, identity=card.identity, password=card.basic_auth(V201),
                                      serial=card.serial, meter_interval=0)
        station.configure(heartbeats=own, reconnects=False)
        try:
            await station.connect(csms.url)
            await asyncio.sleep(seconds)
            return sum(1 for e in station.connection.history if not e.incoming and e.call.action == "Heartbeat")
        finally:
            await station.stop()
            await csms.stop()

    return play(run)


@pytest.mark.parametrize(("own", "expected"), [(True, 3), (False, 0)])
def test_the_station_beats_by_itself_only_when_its_own_heartbeats_are_on(own, expected):
    assert beats_in(35.0, own=own) == expected


class BeatTimes(WireMeter):
    """The wire meter, noting when each Heartbeat left (on the loop's clock)."""

    def __init__(self, *args):
        super().__init__(*args)
        self.beats: list[float] = []

    def sent(self, channel: str, text: str) -> None:
        super().sent(channel, text)
        if '"Heartbeat"' in text:
            self.beats.append(asyncio.get_running_loop().time())


@pytest.mark.parametrize(("planned", "boot_interval", "period"), [(10, 300, 10.0), (None, 10, 10.0)])
def test_a_16_charge_point_beats_at_its_heartbeat_interval_on_the_fleets_timer_and_follows_a_change(
        planned, boot_interval, period):
    """A 1.6 charge point of the load beats at its HeartbeatInterval (set by the load as an operator would, from
    the plan's period; else the boot's interval), on the fleet's one timer: no loop timer or task of its own. A
    ChangeConfiguration of the central system is followed at once (the next beat within the new interval, not
    after the old one); 0 stops the beats."""
    version = OcppVersion.V16

    async def run():
        loop = asyncio.get_running_loop()
        csms = await roster_csms(version, Roster(1, 1), heartbeat_interval=boot_interval).start()
        settings = LoadSettings(url=csms.url, stations=1, version=version, mix=Mix(heartbeat=planned), hold=0,
                                call_timeout=5)
        fleet = Fleet(settings, Recorder(5))
        fleet._meter = meter = BeatTimes(fleet.recorder, fleet.clock)
        try:
            fleet.start(0)
            await asyncio.sleep(45.0)
            timers = [h for h in loop._scheduled if not h.cancelled() and "Wheel" not in repr(h)
                      and "heartbeat" in repr(h).lower()]
            tasks = sorted(t.get_coro().__qualname__ for t in asyncio.all_tasks()
                           if t is not asyncio.current_task() and "Station" in t.get_coro().__qualname__)
            before, changed_at = list(meter.beats), loop.time()
            link = csms.session(Roster(1, 1)[0].identity).connection
            await link.call("ChangeConfiguration", {"key": "HeartbeatInterval", "value": "3"})
            await asyncio.sleep(10.0)
            after = [t for t in meter.beats if t > changed_at]
            await link.call("ChangeConfiguration", {"key": "HeartbeatInterval", "value": "0"})
            stopped_at = loop.time()
            await asyncio.sleep(20.0)
            late = [t for t in meter.beats if t > stopped_at]
        finally:
            await fleet.stop_all()
            await csms.stop()
        return before, timers, tasks, changed_at, after, late

    before, timers, tasks, changed_at, after, late = play(run)
    gaps = [round(b - a, 3) for a, b in zip(before, before[1:])]
    assert len(before) >= 3 and set(gaps) == {period}, f"Heartbeats {before}: gaps {gaps}, not HeartbeatInterval"
    assert timers == [] and tasks == ["StationRunner.run"], f"timers {timers}, tasks {tasks} of the charge point"
    assert after and after[0] - changed_at <= 3.0, f"changed to 3 s at {changed_at}: beats {after}"
    assert {round(b - a, 3) for a, b in zip(after, after[1:])} == {3.0}
    assert late == [], f"HeartbeatInterval 0, and still beating: {late}"
