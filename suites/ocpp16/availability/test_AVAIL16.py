"""AVAIL16 — ChangeAvailability in 1.6: a connector, or the whole charge point (connector 0), made
Inoperative and Operative, and the StatusNotifications that follow (spec 002 Messages ChangeAvailability;
AvailabilityType, AvailabilityStatus; ChargePointStatus Unavailable; What the service does 8).

Readings chosen where the text is silent: Rejected is an answer a charge point may give (the test is
then not applicable); Scheduled means "executed when running transactions finish", so an idle
connector is never answered Scheduled; a connector whose transaction ends after a Scheduled change
reports Unavailable once it is free (after Finishing while the cable is in: the test pulls the cable).
A connector the charge point does not have cannot be Accepted (Rejected, or a CALLERROR, are both
read as a refusal).
"""

import pytest

from harness.roles import CS, CSMS
from harness.errors import NotApplicable
from harness.ocpp.v16 import WHOLE_CHARGE_POINT
from harness.rules import RuleTable, must
from harness.suite import OCPP16, case, checks, needs
from harness.usecases.core16 import Core16, connectors, same_tag, start, stop, tag16, tagged, transaction_id
from harness.usecases.operations import ASKED16, Operations16, operate, status_of
from harness.verdict import check_equal, require


class AVAIL16(RuleTable):
    """The rules of AVAIL16."""
    idle_accepted = must("spec 002 Enumerations AvailabilityStatus",
                         "a change of an idle connector is Accepted at once, never Scheduled (nothing runs)", by=CS)
    unavailable = must("spec 002 States and transitions (Unavailable); Events",
                       "a connector made Inoperative reports StatusNotification Unavailable", by=CS)
    available = must("spec 002 States and transitions (Available); Events",
                     "a connector made Operative again reports StatusNotification Available", by=CS)
    whole = must("spec 002 What the service does 8; Messages ChangeAvailability",
                 "connectorId 0 addresses the whole charge point: every connector reports Unavailable", by=CS)
    scheduled = must("spec 002 Enumerations AvailabilityStatus (Scheduled)",
                     "Inoperative for a connector with a running transaction is Scheduled: the transaction goes on "
                     "(until it is stopped as any other) and the connector reports Unavailable once it has "
                     "finished", by=CS)
    no_start = must("spec 002 States and transitions (Unavailable: not operative)",
                    "an Inoperative connector starts no transaction", by=CS)
    unknown_connector = must("spec 002 What the service does 8; Enumerations AvailabilityStatus",
                             "a ChangeAvailability for a connector the charge point does not have is not Accepted "
                             "or Scheduled", by=CS)
    status_answered = must("spec 002 Messages StatusNotification",
                           "the central system answers the StatusNotification that follows with "
                           "StatusNotification.conf", by=CSMS)


pytestmark = case("AVAIL16", block="Core (1.6)", roles=("csms", "cs"), protocols=OCPP16)


async def _change(ocpp, connector_id: int, kind: str):
    """ChangeAvailability; a charge point's Rejected makes the test not applicable."""
    exchange = await operate(ocpp, "ChangeAvailability", {"connectorId": connector_id, "type": kind})
    if status_of(exchange) == "Rejected":
        raise NotApplicable(f"the charge point rejects ChangeAvailability {kind} of connector {connector_id}")
    return exchange


async def _reported(ocpp, connector_id: int, status: str, after: int, rule):
    """The StatusNotification of ``connector_id`` with ``status`` from ``after`` on, answered."""
    report = await ocpp.expect("StatusNotification", sender=CS, after=after, rule=rule,
                               where=lambda p: p["connectorId"] == connector_id and p["status"] == status)
    require(report.error is None, AVAIL16.status_answered, "StatusNotification was refused",
            expected="StatusNotification.conf", actual=report.error)
    return report


@checks(*ASKED16, AVAIL16.idle_accepted, AVAIL16.unavailable, AVAIL16.available, AVAIL16.status_answered)
async def test_connector_made_inoperative_then_operative(ocpp, profile):
    """Inoperative: Accepted and Unavailable; Operative again: Accepted and Available."""
    connector = connectors(profile)[0]
    for kind, status, rule in (("Inoperative", "Unavailable", AVAIL16.unavailable),
                               ("Operative", "Available", AVAIL16.available)):
        mark = ocpp.mark()
        exchange = await _change(ocpp, connector, kind)
        check_equal(AVAIL16.idle_accepted, "ChangeAvailability.conf status", "Accepted", status_of(exchange))
        await _reported(ocpp, connector, status, mark, rule)


@checks(*ASKED16, AVAIL16.idle_accepted, AVAIL16.whole, AVAIL16.status_answered)
async def test_whole_charge_point_made_inoperative(ocpp, profile):
    """ChangeAvailability of connector 0: every connector reports Unavailable."""
    mark = ocpp.mark()
    exchange = await _change(ocpp, WHOLE_CHARGE_POINT, "Inoperative")
    check_equal(AVAIL16.idle_accepted, "ChangeAvailability.conf status", "Accepted", status_of(exchange))
    for connector in connectors(profile):
        await _reported(ocpp, connector, "Unavailable", mark, AVAIL16.whole)


@checks(*ASKED16, AVAIL16.idle_accepted)
async def test_operative_connector_made_operative_is_accepted(ocpp, profile):
    """Operative for a connector that already is: Accepted (nothing to change, nothing to schedule)."""
    exchange = await _change(ocpp, connectors(profile)[0], "Operative")
    check_equal(AVAIL16.idle_accepted, "ChangeAvailability.conf status", "Accepted", status_of(exchange))


@checks(*ASKED16, Core16.authorize, Core16.start, AVAIL16.scheduled, Core16.stop_answered, AVAIL16.status_answered)
@needs(tagged("Accepted"))
async def test_change_while_charging_is_scheduled(ocpp, profile):
    """Inoperative during a transaction: Scheduled, the transaction runs on; once it stopped and the cable
    is out, the connector reports Unavailable."""
    token, connector = tag16(profile, "Accepted"), connectors(profile)[0]
    tx_id = transaction_id(await start(ocpp, token, connector))
    mark = ocpp.mark()
    exchange = await _change(ocpp, connector, "Inoperative")
    check_equal(AVAIL16.scheduled, "ChangeAvailability.conf status", "Scheduled", status_of(exchange))
    await ocpp.expect_none("StopTransaction", after=mark, rule=AVAIL16.scheduled,
                           where=lambda p: p.get("transactionId") == tx_id)
    stopped = ocpp.mark()
    await stop(ocpp, token, connector, rule=AVAIL16.scheduled)
    await ocpp.act(CS, "unplug", connector_id=connector)
    await _reported(ocpp, connector, "Unavailable", stopped, AVAIL16.scheduled)


@pytest.mark.sut_roles("cs")
@checks(*ASKED16, AVAIL16.no_start)
@needs(tagged("Accepted"))
async def test_inoperative_connector_starts_no_transaction(ocpp, profile):
    """An accepted idTag and the cable at an Inoperative connector: no StartTransaction."""
    token, connector = tag16(profile, "Accepted"), connectors(profile)[0]
    await _change(ocpp, connector, "Inoperative")
    mark = ocpp.mark()
    await ocpp.act(CS, "present_id_tag", id_tag=token.id, connector_id=connector)
    await ocpp.act(CS, "plug_in", connector_id=connector)
    await ocpp.expect_none("StartTransaction", after=mark, rule=AVAIL16.no_start,
                           where=lambda p: same_tag(p.get("idTag"), token.id))


@pytest.mark.sut_roles("cs")
@checks(Operations16.sent_as_asked, AVAIL16.unknown_connector)
async def test_unknown_connector_is_not_accepted(ocpp, profile):
    """ChangeAvailability of a connector above the charge point's number: not Accepted nor Scheduled."""
    unknown = len(connectors(profile)) + 1
    exchange = await ocpp.exchange(CSMS, "ChangeAvailability", {"connectorId": unknown, "type": "Inoperative"},
                                   rule=Operations16.sent_as_asked)
    require(status_of(exchange) not in ("Accepted", "Scheduled"), AVAIL16.unknown_connector,
            f"ChangeAvailability of connector {unknown}, which the charge point does not have, was accepted",
            expected="Rejected", actual=status_of(exchange))


@pytest.mark.sut_roles("csms")
@checks(Operations16.sent_as_asked)
async def test_rejected_change_is_sent_as_asked(ocpp, profile):
    """A charge point that refuses the change (Rejected): the central system still sends what it was asked."""
    ocpp.configure(availability_refused=True)
    await operate(ocpp, "ChangeAvailability", {"connectorId": connectors(profile)[-1], "type": "Inoperative"})
