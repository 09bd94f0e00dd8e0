"""BOOT16 — registration of a 1.6 charge point: BootNotification Accepted, Pending (configured before
it is Accepted), Rejected (retried after the interval); the connectors it reports.

The rules are the table below (spec 002 BootNotification.conf and the Registration move; OCPP 1.6
section 4.2, which spec 002 does not show; connector rules of "What the service does" 8 and the
ChargePointStatus table). A charge point that does not answer while Pending breaks a SHOULD (section
4.2 words it so; TC_002_CS expects the answers): a finding, and the test goes on to the next boot.
That it reports every connector after an Accepted boot is read as the public test case TC_001_CS
reads it.
"""

import pytest

from harness import clock
from harness.arena.ocpp_sides import Registration
from harness.roles import CS, CSMS
from harness.ocpp.equivalence import configuration_keys, same
from harness.ocpp.v16 import interval_of
from harness.ocpp.versions import OcppVersion
from harness.rules import RuleTable, must, should
from harness.suite import OCPP16, TC, case, checks
from harness.usecases.core16 import collect, connectors
from harness.usecases.registration import accepted_after, answered_as
from harness.verdict import check_equal, check_in, require, violated


class BOOT16(RuleTable):
    """The rules of BOOT16."""
    registration = must("spec 002 Enumerations RegistrationStatus; Messages BootNotification",
                        "the central system answers a BootNotification with the registration status it was set to",
                        by=CSMS)
    interval = must("spec 002 Messages BootNotification; OCPP 1.6 section 4.2",
                    "an Accepted BootNotification.conf carries a positive heartbeat interval", by=CSMS)
    heartbeat_time = must("spec 002 Messages Heartbeat", "Heartbeat.conf carries the central system's currentTime",
                          by=CSMS)
    status_answered = must("spec 002 Messages StatusNotification",
                           "the central system answers a StatusNotification.req with StatusNotification.conf", by=CSMS)
    numbering = must("spec 002 What the service does 8; Limits",
                     "connector ids start at 1 and are sequential without gaps", by=CS)
    connectors_reported = must("OCPP 1.6 errata v4.0 §4.2: after an Accepted boot the charge point SHALL send "
                               "StatusNotification for connectorId 0 and all connectors (as public test projects quote "
                               "it); spec 002 States (connectorId 0 is the main controller); TC_001_CS",
                               "after an Accepted boot the charge point reports connector 0 and each connector", by=CS)
    main_controller = must("spec 002 States and transitions",
                           "connector 0, the main controller, reports only Available, Unavailable or Faulted", by=CS)
    heartbeat = should("spec 002 Behavior rule 3; Messages BootNotification",
                       "the charge point sends Heartbeat at the interval of the Accepted BootNotification.conf", by=CS)
    configures_pending = must("spec 002 States and transitions (Registration Pending); TC_002_CSMS",
                              "asked by its operator, the central system configures a Pending charge point", by=CSMS)
    answers_while_pending = should("spec 002 States and transitions (Registration Pending); OCPP 1.6 section "
                                   "4.2; TC_002_CS", "while Pending the charge point answers the central "
                                                     "system's queries and configuration", by=CS)
    boots_again = must("spec 002 Enumerations RegistrationStatus; OCPP 1.6 section 4.2",
                       "a charge point not Accepted sends BootNotification again after the interval", by=CS)
    pending_wait = should("OCPP 1.6 section 4.2",
                          "after Pending the charge point waits the interval before its next BootNotification", by=CS)
    rejected_silence = must("OCPP 1.6 section 4.2",
                            "after Rejected the charge point sends nothing before the interval has expired", by=CS)


pytestmark = case("BOOT16", block="Core (1.6)", roles=("csms", "cs"), protocols=OCPP16)

MAIN_CONTROLLER_STATUSES = {"Available", "Unavailable", "Faulted"}
TOLERANCE = 0.25   # seconds of scheduling slack when an interval is measured
HEARTBEAT = 2      # seconds: the heartbeat interval the harness's central system gives
PENDING_RETRY, REJECTED_RETRY = 1, 2   # seconds: the interval of its Pending and Rejected answers


async def _reports_connectors(arena, boot):
    await arena.expect("StatusNotification", sender=CS, after=arena.mark_after(boot),
                       rule=BOOT16.connectors_reported)


@pytest.mark.sut_roles("csms")
@checks(Registration.accepted, BOOT16.interval, BOOT16.status_answered, BOOT16.heartbeat_time,
        csms=TC("TC_001_CSMS"))
async def test_boot_is_accepted(ocpp_unlinked, harness_station, profile):
    """The configured charge point is Accepted with a heartbeat interval; its connectors' statuses and a
    Heartbeat are answered."""
    arena, station = ocpp_unlinked, harness_station
    await station.connect(boot=False)
    response = (await station.settled_boot()).result
    station.boot_answered(response["status"])
    require(interval_of(response) > 0, BOOT16.interval, "BootNotification.conf interval is not positive",
            expected="> 0", actual=interval_of(response))
    for connector in [0, *connectors(profile)]:
        status = await station.report_status(connector, "Available")
        require(status.error is None, BOOT16.status_answered, "the central system refused a "
                "StatusNotification", expected="StatusNotification.conf", actual=status.error)
    heartbeat = (await arena.call_sut("Heartbeat", {})).result
    require("currentTime" in heartbeat, BOOT16.heartbeat_time, "Heartbeat.conf lacks currentTime",
            expected="currentTime", actual=heartbeat)


@pytest.mark.sut_roles("cs")
@checks(BOOT16.numbering, BOOT16.connectors_reported, BOOT16.main_controller, BOOT16.heartbeat, cs=TC("TC_001_CS"))
async def test_accepted_boot_reports_every_connector(ocpp_unlinked, harness_csms, profile):
    """Accepted, the charge point reports connector 0 and every connector, then sends Heartbeats."""
    arena = ocpp_unlinked
    arena.configure(heartbeat_interval=HEARTBEAT)
    await harness_csms.await_station()
    boot = await harness_csms.station_boot()
    expected = connectors(profile)
    reports = await collect(arena, "StatusNotification", sender=CS, after=arena.mark_after(boot),
                            count=len(expected) + 1)
    reported = {e.request["connectorId"]: e.request["status"] for e in reports}
    numbered = sorted(n for n in reported if n > 0)
    require(numbered == list(range(1, len(numbered) + 1)), BOOT16.numbering,
            "the connector ids have a gap or do not start at 1", expected=list(range(1, len(numbered) + 1)),
            actual=numbered)
    require(set(reported) == {0, *expected}, BOOT16.connectors_reported,
            "not every connector was reported after the boot", expected=[0, *expected], actual=sorted(reported))
    check_in(BOOT16.main_controller, "StatusNotification status of connector 0", MAIN_CONTROLLER_STATUSES,
             reported[0])
    heartbeat = await arena.next_call("Heartbeat", sender=CS, within=HEARTBEAT + arena.timeouts.action)
    if heartbeat is None:
        violated(BOOT16.heartbeat, "no Heartbeat within the interval given in BootNotification.conf")


@pytest.mark.csms_wide("a central system's registration answer may be one for every charge point")
@pytest.mark.sut_roles("csms")
@checks(BOOT16.registration, BOOT16.configures_pending)
async def test_pending_charge_point_is_configured_then_accepted(ocpp_unlinked, harness_station):
    """Pending — the central system configures the charge point as its operator asks, then accepts it."""
    arena = ocpp_unlinked
    response = await answered_as(arena, harness_station, "Pending", BOOT16.registration)
    change = await arena.exchange(CSMS, "ChangeConfiguration", None,
                                  trigger=("change_configuration", {"key": "HeartbeatInterval", "value": "600"}),
                                  rule=BOOT16.configures_pending)
    check_equal(BOOT16.configures_pending, "ChangeConfiguration.req key", {"key": "HeartbeatInterval"},
                {"key": change.request["key"]}, same=same(OcppVersion.V16))
    await accepted_after(arena, harness_station, response, BOOT16.registration)


@pytest.mark.sut_roles("cs")
@checks(BOOT16.answers_while_pending, BOOT16.boots_again, BOOT16.pending_wait, BOOT16.connectors_reported,
        cs=TC("TC_002_CS"))
async def test_boot_pending_then_configured(ocpp_unlinked, harness_csms, profile):
    """Pending — the charge point answers GetConfiguration and ChangeConfiguration, then is Accepted."""
    arena = ocpp_unlinked
    arena.configure(registration="Pending", retry_interval=PENDING_RETRY)
    await harness_csms.await_station()
    first = await harness_csms.station_boot()
    answered_at = clock.now()
    config = await arena.exchange(CSMS, "GetConfiguration", {})
    require(config.error is None, BOOT16.answers_while_pending, "GetConfiguration was refused while Pending",
            expected="GetConfiguration.conf", actual=config.error)
    interval = configuration_keys(config.result).get("metervaluesampleinterval", {}).get("value")
    change = await arena.exchange(CSMS, "ChangeConfiguration", {"key": "MeterValueSampleInterval",
                                                                "value": interval or "0"})
    check_equal(BOOT16.answers_while_pending, "ChangeConfiguration.conf status (TC_002_CS step 6)", "Accepted",
                (change.result or {}).get("status"))
    arena.configure(registration="Accepted")
    second = await arena.next_call("BootNotification", sender=CS, within=PENDING_RETRY + arena.timeouts.action,
                                   after=arena.mark_after(first), answered=False)
    require(second is not None, BOOT16.boots_again, "no second BootNotification after Pending",
            expected="BootNotification", actual="nothing")
    if clock.now() - answered_at < PENDING_RETRY - TOLERANCE:
        violated(BOOT16.pending_wait, "the charge point booted again before the interval of the Pending answer")
    await _reports_connectors(arena, second)


@pytest.mark.csms_wide("a central system's registration answer may be one for every charge point")
@pytest.mark.sut_roles("csms")
@checks(BOOT16.registration)
async def test_rejected_charge_point_is_accepted_later(ocpp_unlinked, harness_station):
    """Rejected, then set to Accepted — the central system accepts the boot retried after the interval."""
    arena = ocpp_unlinked
    response = await answered_as(arena, harness_station, "Rejected", BOOT16.registration)
    await accepted_after(arena, harness_station, response, BOOT16.registration)


@pytest.mark.sut_roles("cs")
@checks(BOOT16.boots_again, BOOT16.rejected_silence, BOOT16.connectors_reported)
async def test_boot_rejected_then_retried(ocpp_unlinked, harness_csms):
    """Rejected — nothing is sent before the interval expires, then the boot is retried and Accepted."""
    arena = ocpp_unlinked
    arena.configure(registration="Rejected", retry_interval=REJECTED_RETRY)
    await harness_csms.await_station()
    first = await harness_csms.station_boot()
    answered_at = clock.now()
    arena.configure(registration="Accepted")
    nxt = await arena.next_call(sender=CS, within=REJECTED_RETRY + arena.timeouts.action,
                                after=arena.mark_after(first), answered=False)
    waited = clock.now() - answered_at
    require(nxt is not None, BOOT16.boots_again, "no message after the interval of the Rejected answer",
            expected="BootNotification", actual="nothing")
    require(waited >= REJECTED_RETRY - TOLERANCE, BOOT16.rejected_silence,
            f"the charge point sent {nxt.action} {waited:.2f} s after a Rejected answer with interval "
            f"{REJECTED_RETRY}", expected=f">= {REJECTED_RETRY} s", actual=f"{waited:.2f} s")
    check_equal(BOOT16.boots_again, "action of the first message after Rejected", "BootNotification", nxt.action)
    await _reports_connectors(arena, nxt)
