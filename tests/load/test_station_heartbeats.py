"""A simulated 2.x station beats once per period: the plan's Heartbeats replace the reference station's own G02
timer (``heartbeats`` off), which a station of the suites keeps (on the virtual clock: no real waiting)."""

import asyncio

import pytest

from harness.clock import VirtualClockLoop
from harness.load.csms import roster_csms
from harness.load.roster import Roster
from harness.load.station import load_profile, station_class
from harness.ocpp.versions import OcppVersion

V201 = OcppVersion.V201


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

    loop = VirtualClockLoop()
    try:
        return loop.run_until_complete(run())
    finally:
        loop.close()


@pytest.mark.parametrize(("own", "expected"), [(True, 3), (False, 0)])
def test_the_station_beats_by_itself_only_when_its_own_heartbeats_are_on(own, expected):
    assert beats_in(35.0, own=own) == expected
