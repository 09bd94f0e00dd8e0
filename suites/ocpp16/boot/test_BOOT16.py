"""BOOT16 — registration of a 1.6 charge point: BootNotification Accepted, Pending (configured before
it is Accepted), Rejected (retried after the interval); the connectors it reports.

Rules (spec 002 BootNotification.conf and the Registration move; 1.6 section 4.2; connector rules of
"What the service does" 8 and the ChargePointStatus table):
- B1  an Accepted BootNotification.conf carries the heartbeat interval and the current time;
- B2  not Accepted: the interval is the least wait before the next BootNotification (a SHOULD after
      Pending); after Rejected the charge point SHALL NOT send any message before it expires;
- B3  while Pending the central system may query and configure the charge point, which answers;
- B4  after Accepted the charge point reports connector 0 (the main controller: Available,
      Unavailable or Faulted only) and its connectors, numbered from 1 without gaps.
"""

import asyncio
import time

from harness.arena import CSMS
from harness.reference.v16.station import interval_of
from harness.suite import OCPP16, case, certified
from harness.usecases.core16 import collect, connectors
from harness.verdict import check_equal, check_in, fail, finding, require

pytestmark = case("BOOT16", block="Core (1.6)", roles=("csms", "cs"), protocols=OCPP16)

MAIN_CONTROLLER_STATUSES = {"Available", "Unavailable", "Faulted"}
TOLERANCE = 0.25   # seconds of scheduling slack when an interval is measured


async def _harness_boots(arena):
    """The harness's charge point connects without booting; the test sends the BootNotifications."""
    await arena.harness.connect(arena.sut_url, boot=False)
    require(arena.harness.connection is not None, "Authentication 3", "the central system refused the configured "
            "charge point", expected="an upgraded connection", actual="refused")
    arena.link = arena.harness.connection
    return arena.harness


async def _registered_as(arena, status, rule):
    """The central system under test is set to answer ``status``; the harness's charge point boots."""
    await arena.act("set_registration", status=status)
    station = await _harness_boots(arena)
    response = await station.boot_once()
    check_equal(rule, "BootNotification.conf status", status, response["status"])
    return station, response


async def _accepted_after(arena, station, response, rule):
    """Set to Accepted, the central system accepts the next boot, sent after the interval (cut short at
    the connect timeout: booting early is then the harness's own deviation from a SHOULD, not the SUT's)."""
    await arena.act("set_registration", status="Accepted")
    await asyncio.sleep(min(interval_of(response), arena.timeouts.connect))
    check_equal(rule, "BootNotification.conf status", "Accepted", (await station.boot_once())["status"])


async def _reports_connectors(arena, boot):
    await arena.expect("StatusNotification", after=arena.link.history.index(boot),
                       rule="B4: after Accepted the charge point reports its connectors")


@certified(pytestmark, csms="TC_001_CSMS")
async def test_boot_is_accepted(ocpp_unlinked, profile):
    """B1/B4: the configured charge point is Accepted; connector 0 and every connector are reported."""
    arena = ocpp_unlinked
    if arena.is_sut(CSMS):
        station = await _harness_boots(arena)
        response = await station.boot_once()
        check_equal("B1: a configured charge point is accepted", "BootNotification.conf status", "Accepted",
                    response["status"])
        require(interval_of(response) > 0, "B1: the heartbeat interval is positive",
                "BootNotification.conf interval is not positive", expected="> 0", actual=interval_of(response))
        for connector in [0, *connectors(profile)]:
            status = await arena.link.call_exchange("StatusNotification", station.connector_status(connector, "Available"))
            require(status.error is None, "B4: StatusNotification is answered", "the central system refused a "
                    "StatusNotification", expected="StatusNotification.conf", actual=status.error)
        heartbeat = await arena.link.call("Heartbeat", {})
        require("currentTime" in heartbeat, "1.6 Heartbeat.conf", "Heartbeat.conf lacks currentTime",
                expected="currentTime", actual=heartbeat)
        return
    arena.harness.heartbeat_interval = 2
    await arena.connect_station_under_test()
    boot = await arena.station_boot()
    expected = connectors(profile)
    reports = await collect(arena, "StatusNotification", after=arena.link.history.index(boot), count=len(expected) + 1)
    reported = {e.request["connectorId"]: e.request["status"] for e in reports}
    numbered = sorted(n for n in reported if n > 0)
    require(numbered == list(range(1, len(numbered) + 1)), "B4 / spec 002 What the service does 8: connectors "
            "are numbered from 1 without gaps", "the connector ids have a gap or do not start at 1",
            expected=list(range(1, len(numbered) + 1)), actual=numbered)
    require(set(reported) == {0, *expected}, "B4 (TC_001_CS): a StatusNotification per connector and for connector 0",
            "not every connector was reported after the boot", expected=[0, *expected], actual=sorted(reported))
    check_in("B4: connector 0 is the main controller", "StatusNotification status of connector 0",
             MAIN_CONTROLLER_STATUSES, reported[0])
    heartbeat = await arena.link.wait_for_call("Heartbeat", arena.harness.heartbeat_interval + arena.timeouts.action)
    if heartbeat is None:
        finding("B1 / behaviour rule 3", "no Heartbeat within the interval given in BootNotification.conf")


@certified(pytestmark, cs="TC_002_CS")
async def test_boot_pending_then_configured(ocpp_unlinked, profile):
    """B2/B3: Pending — the charge point answers GetConfiguration and ChangeConfiguration, then is Accepted."""
    arena = ocpp_unlinked
    if arena.is_sut(CSMS):
        station, response = await _registered_as(arena, "Pending",
                                                  "B3: a central system configured to answer Pending answers Pending")
        change = await arena.exchange(CSMS, "ChangeConfiguration", None,
                                      trigger=("change_configuration", {"key": "HeartbeatInterval", "value": "600"}),
                                      rule="B3: while Pending the central system may configure the charge point")
        check_equal("B3", "ChangeConfiguration.req key", "HeartbeatInterval", change.request["key"])
        await _accepted_after(arena, station, response, "B2: once configured the charge point is accepted")
        return
    arena.harness.registration = "Pending"
    await arena.connect_station_under_test()
    first = await arena.station_boot()
    answered_at = time.monotonic()
    config = await arena.exchange(CSMS, "GetConfiguration", {}, rule="B3")
    require(config.error is None, "B3: while Pending the charge point answers the central system (TC_002_CS)",
            "GetConfiguration was refused while Pending", expected="GetConfiguration.conf", actual=config.error)
    values = {k["key"]: k.get("value") for k in config.response.get("configurationKey", [])}
    change = await arena.exchange(CSMS, "ChangeConfiguration", {"key": "MeterValueSampleInterval",
                                                                "value": values.get("MeterValueSampleInterval") or "0"},
                                  rule="B3")
    check_equal("B3 (TC_002_CS step 6): the change is Accepted while Pending", "ChangeConfiguration.conf status",
                "Accepted", (change.response or {}).get("status"))
    arena.harness.registration = "Accepted"
    after = arena.link.history.index(first) + 1
    second = await arena.link.wait_for_call("BootNotification", arena.harness.retry_interval + arena.timeouts.action,
                                            start=after, answered=False)
    require(second is not None, "B2: after Pending the charge point boots again", "no second BootNotification",
            expected="BootNotification", actual="nothing")
    if time.monotonic() - answered_at < arena.harness.retry_interval - TOLERANCE:
        finding("B2 / 1.6 section 4.2", "the charge point booted again before the interval of the Pending answer")
    await _reports_connectors(arena, second)


@certified(pytestmark, cs="TC_001_CS")
async def test_boot_rejected_then_retried(ocpp_unlinked):
    """B2: Rejected — nothing is sent before the interval expires, then the boot is retried and Accepted."""
    arena = ocpp_unlinked
    if arena.is_sut(CSMS):
        station, response = await _registered_as(arena, "Rejected",
                                                  "B2: a central system configured to reject answers Rejected")
        await _accepted_after(arena, station, response, "B2: the retried boot is accepted")
        return
    arena.harness.registration, arena.harness.retry_interval = "Rejected", 2
    await arena.connect_station_under_test()
    first = await arena.station_boot()
    answered_at = time.monotonic()
    arena.harness.registration = "Accepted"
    after = arena.link.history.index(first) + 1
    nxt = await arena.link.wait_for(lambda e: e.incoming, arena.harness.retry_interval + arena.timeouts.action,
                                    start=after, answered=False)
    waited = time.monotonic() - answered_at
    if nxt is None:
        fail("B2: after Rejected the charge point boots again after the interval", "no message after the interval",
             expected="BootNotification", actual="nothing")
    if waited < arena.harness.retry_interval - TOLERANCE:
        fail("B2 / 1.6 section 4.2: after Rejected nothing is sent before the interval expires",
             f"the charge point sent {nxt.action} {waited:.2f} s after a Rejected answer with interval "
             f"{arena.harness.retry_interval}", expected=f">= {arena.harness.retry_interval} s", actual=f"{waited:.2f} s")
    check_equal("B2: the first message after Rejected is the next BootNotification", "action", "BootNotification",
                nxt.action)
    await _reports_connectors(arena, nxt)
