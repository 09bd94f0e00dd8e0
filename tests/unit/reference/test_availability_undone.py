"""The undoing of an Inoperative ChangeAvailability at a station under test ends only once the station has reported
its connectors out of Unavailable: a test that ended on the CALLRESULT closed the connection while the reference
charge point was still reporting, and it kept Unavailable as the status last reported for the connector it had not
reached, so the next run's Inoperative of the whole charge point reported nothing there (AVAIL16 played in reverse
twice against one charge point, bench/PARALLEL.md "Running twice against one SUT")."""

import asyncio
from types import SimpleNamespace

import pytest

from harness.errors import HarnessError
from harness.ocpp.versions import OcppVersion
from harness.reference import ReferenceCsms, ReferenceCsms16
from harness.reference.blocks import availability
from harness.settings import reference_profile

PROFILE = reference_profile()


class Link:
    """A station's link as the undo sees it: its history, and a station that reports after it answered."""

    def __init__(self, reported: list[dict], *, answer: str = "Accepted", later: list[dict] | None = None):
        self.history = [self._incoming(p) for p in reported]
        self.answer, self.later, self.sent = answer, later or [], []
        self._changed = asyncio.Event()

    @staticmethod
    def _incoming(payload: dict) -> SimpleNamespace:
        return SimpleNamespace(incoming=True, action="StatusNotification", request=payload, answered=True)

    async def call_exchange(self, action: str, payload: dict) -> SimpleNamespace:
        self.sent.append((action, payload))
        asyncio.get_running_loop().call_soon(self._report)   # the reports follow the answer, as a station's do
        return SimpleNamespace(error=None, response={"status": self.answer})

    def _report(self) -> None:
        self.history += [self._incoming(p) for p in self.later]
        self._changed.set()

    async def wait_for(self, predicate, timeout: float, *, answered: bool = True, start: int = 0):
        try:
            async with asyncio.timeout(timeout):
                while True:
                    found = next((e for e in self.history[start:] if predicate(e)), None)
                    if found is not None:
                        return found
                    self._changed.clear()
                    await self._changed.wait()
        except TimeoutError:
            return None


def sn16(connector: int, status: str) -> dict:
    return {"connectorId": connector, "errorCode": "NoError", "status": status}


def sn2x(evse: int, connector: int, status: str) -> dict:
    return {"evseId": evse, "connectorId": connector, "connectorStatus": status, "timestamp": "2026-01-01T00:00:00Z"}


async def undone(csms, payload: dict, link: Link) -> None:
    undo = await csms.undo_at_sut("ChangeAvailability", payload, link)
    await undo.step(link)


def csms16():
    return ReferenceCsms16(PROFILE, [OcppVersion.V16])


def csms2x():
    return ReferenceCsms(PROFILE, [OcppVersion.V201])


async def test_the_whole_charge_point_made_operative_again_ends_once_each_connector_reported_it():
    link = Link([sn16(0, "Unavailable"), sn16(1, "Unavailable"), sn16(2, "Unavailable")],
                later=[sn16(0, "Available"), sn16(1, "Available"), sn16(2, "Available")])
    await undone(csms16(), {"connectorId": 0, "type": "Inoperative"}, link)
    assert link.sent == [("ChangeAvailability", {"connectorId": 0, "type": "Operative"})]
    assert [e.request["status"] for e in link.history[3:]] == ["Available"] * 3   # on the old code: []


async def test_a_connector_the_station_does_not_report_back_is_named(monkeypatch):
    monkeypatch.setattr(availability, "REPORTED_WITHIN", 0.05)
    link = Link([sn16(1, "Unavailable"), sn16(2, "Unavailable")], later=[sn16(1, "Available")])
    with pytest.raises(HarnessError, match=r"reported no other status than Unavailable within 0.05 s for 2\b"):
        await undone(csms16(), {"connectorId": 0, "type": "Inoperative"}, link)


@pytest.mark.parametrize("reported, answer", [
    ([sn16(1, "Unavailable"), sn16(1, "Available")], "Accepted"),   # reported back already
    ([sn16(2, "Unavailable")], "Accepted"),                         # another connector than the one undone
    ([sn16(1, "Unavailable")], "Rejected"),                         # nothing changed
    ([sn16(1, "Charging")], "Scheduled"),                           # it reports once its transaction ends
])
async def test_nothing_is_awaited_when_no_report_is_due(reported, answer):
    link = Link(reported, answer=answer)   # a station that reports nothing: the step ends on its answer
    await undone(csms16(), {"connectorId": 1, "type": "Inoperative"}, link)
    assert link.sent == [("ChangeAvailability", {"connectorId": 1, "type": "Operative"})]


@pytest.mark.parametrize("evse, awaited", [
    (None, [(1, 1), (2, 1)]), ({"id": 2}, [(2, 1)]), ({"id": 1, "connectorId": 1}, [(1, 1)])])
async def test_a_2x_station_evse_or_connector_made_operative_again_is_reported_back(monkeypatch, evse, awaited):
    monkeypatch.setattr(availability, "REPORTED_WITHIN", 0.05)
    payload = {"operationalStatus": "Inoperative"} | ({"evse": evse} if evse else {})
    reported = [sn2x(1, 1, "Unavailable"), sn2x(2, 1, "Unavailable")]
    await undone(csms2x(), payload, Link(reported, later=[sn2x(*key, "Available") for key in awaited]))
    if len(awaited) > 1:
        with pytest.raises(HarnessError, match=r"for \(2, 1\)"):   # the station's report of EVSE 2 missing
            await undone(csms2x(), payload, Link(reported, later=[sn2x(1, 1, "Available")]))
