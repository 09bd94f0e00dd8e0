"""The fleet's one timer (harness.load.timers): each station's wait ends at its time or when its link ends, in
the order of their times, with one loop timer for every station; and a simulated 2.x station beats once per
period: the plan's Heartbeats replace the reference station's own G02 timer (``heartbeats`` off), which a
station of the suites keeps. On the virtual clock: no real waiting."""

import asyncio

import pytest

from harness.clock import VirtualClockLoop
from harness.load.csms import roster_csms
from harness.load.roster import Roster
from harness.load.station import load_profile, station_class
from harness.load.timers import Wheel
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


def test_a_16_charge_point_beats_on_a_loop_timer_with_no_task_of_its_own():
    """The 1.6 charge point beats by itself (the load sets its HeartbeatInterval as an operator would), every
    interval, on one loop timer; its only task is its link's reader, and stopping it leaves no timer behind."""
    version = OcppVersion.V16

    async def run():
        loop, roster = asyncio.get_running_loop(), Roster(1, 1)
        csms = await roster_csms(version, roster, heartbeat_interval=10).start()
        card = roster[0]
        station = station_class(version)(load_profile(30.0), version, identity=card.identity,
                                         password=card.basic_auth(version), serial=card.serial, meter_interval=0)
        try:
            await station.connect(csms.url)
            await asyncio.sleep(35.0)
            beats = sum(1 for e in station.connection.history if not e.incoming and e.call.action == "Heartbeat")
            tasks = sorted(t.get_coro().__qualname__ for t in asyncio.all_tasks()
                           if t is not asyncio.current_task() and "Station" in t.get_coro().__qualname__)
            timers = [h for h in loop._scheduled if not h.cancelled() and "heartbeat" in repr(h)]
        finally:
            await station.stop()
            left = [h for h in loop._scheduled if not h.cancelled() and "heartbeat" in repr(h)]
            await csms.stop()
        return beats, tasks, len(timers), left

    beats, tasks, timers, left = play(run)
    assert beats == 3
    assert tasks == [], f"tasks a held 1.6 charge point keeps: {tasks}"
    assert timers == 1 and left == []
