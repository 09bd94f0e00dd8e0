"""TX16 — a whole 1.6 transaction: Authorize → StartTransaction → MeterValues → StopTransaction,
stopped by the idTag that started it (without Authorize) or by another member of its group (spec
002 "What the service does" 3 and 8; Messages StartTransaction, StopTransaction, MeterValues; Reason;
Register values; behaviour rule 16). The register readings are read by harness/ocpp/meter16.py.
"""

import pytest

from harness import clock
from harness.arena.ocpp_sides import Registration
from harness.roles import CS, CSMS
from harness.ocpp.meter16 import decreases, transaction_readings
from harness.rules import RuleTable, must
from harness.smartcharging.wire import iso
from harness.suite import OCPP16, TC, case, checks, needs
from harness.usecases.core16 import (
    Core16, configure_charge_point, connectors, group16, grouped, harness_rebooted, id_tag_status, same_tag, start,
    stop, tag16, tagged, transaction_id,
)
from harness.verdict import check_equal, check_in, dig, require, violated


class TX16(RuleTable):
    """The rules of TX16."""
    start_info = must("spec 002 Messages StartTransaction; Classes IdTagInfo",
                      "StartTransaction.conf gives the transactionId and the idTag's IdTagInfo, Accepted when valid",
                      by=CSMS)
    meter_values = must("spec 002 Behavior rule 16; Messages MeterValues",
                        "with MeterValueSampleInterval set, the charge point sends MeterValues carrying the "
                        "transactionId", by=CS)
    meter_values_answered = must("spec 002 Messages MeterValues", "the central system answers MeterValues.req with "
                                 "MeterValues.conf", by=CSMS)
    own_tag_stops = must("spec 002 What the service does 3",
                         "the idTag that started a transaction stops it when presented again", by=CS)
    no_authorize = must("spec 002 What the service does 3",
                        "the charge point sends no Authorize before stopping with the idTag that started the "
                        "transaction", by=CS)
    stop_identifies = must("spec 002 Messages StopTransaction",
                           "StopTransaction.req carries the transactionId and the idTag that stopped the transaction",
                           by=CS)
    local_reason = must("spec 002 Enumerations Reason; Messages StopTransaction",
                        "a stop at the charge point has reason Local, or none (Local is the default)", by=CS)
    monotonic = must("spec 002 Enumerations (Register values)",
                     "the Register values of one transaction increase monotonically in time", by=CS)
    stop_info = must("spec 002 Messages StopTransaction; Classes IdTagInfo",
                     "StopTransaction.conf may leave out IdTagInfo (optional); when it carries it, it is the status of "
                     "the idTag that stopped the transaction", by=CSMS)
    group = must("spec 002 What the service does 8",
                  "IdTagInfo carries the idTag's group as parentIdTag: a group is the idTags of equal parentIdTag",
                  by=CSMS)
    member_authorized = must("spec 002 What the service does 3",
                             "another idTag presented to stop a transaction is first sent in Authorize", by=CS)
    member_stops = must("spec 002 What the service does 3 and 8",
                        "a member of the starter's group (same parentIdTag) stops the transaction", by=CS)


pytestmark = case("TX16", block="Core (1.6)", roles=("csms", "cs"), protocols=OCPP16)


def _check_stop(stopped, tx_id, token):
    check_equal(TX16.stop_identifies, "StopTransaction.req transactionId", tx_id, stopped.request["transactionId"])
    require(same_tag(stopped.request.get("idTag"), token.id), TX16.stop_identifies, "StopTransaction.req does not "
            "carry the idTag that stopped the transaction", expected=token.id, actual=stopped.request.get("idTag"))


@checks(Core16.authorize, Core16.start, TX16.start_info, TX16.meter_values, TX16.meter_values_answered,
        TX16.own_tag_stops, TX16.no_authorize, Core16.stop_answered,
        TX16.stop_identifies, TX16.local_reason, TX16.monotonic, TX16.stop_info,
        cs=TC("TC_068_CS"), csms=TC("TC_004_1_CSMS"))
@needs(tagged("Accepted"))
async def test_full_transaction_stopped_by_its_own_tag(ocpp, profile):
    """Identification first, meter values, then the same idTag stops it without Authorize."""
    token, connector = tag16(profile, "Accepted"), connectors(profile)[0]
    await configure_charge_point(ocpp, {"MeterValueSampleInterval": "1"})
    started = await start(ocpp, token, connector)
    tx_id = transaction_id(started)
    if ocpp.is_sut(CSMS):
        check_equal(TX16.start_info, "StartTransaction.conf idTagInfo.status", "Accepted", id_tag_status(started))
    after = ocpp.mark_after(started)
    sample = await ocpp.expect("MeterValues", sender=CS, after=after, where=lambda p: p.get("transactionId") == tx_id,
                               rule=TX16.meter_values)
    require(sample.error is None, TX16.meter_values_answered, "MeterValues was refused", expected="MeterValues.conf",
            actual=sample.error)
    mark = ocpp.mark()
    stopped = await stop(ocpp, token, connector, rule=TX16.own_tag_stops)
    asked = [e.request for e in ocpp.sent("Authorize", sender=CS, after=mark)]
    if ocpp.is_sut(CS):
        require(not asked, TX16.no_authorize, "the charge point sent Authorize before stopping with the starting "
                "idTag", expected="StopTransaction without Authorize", actual=asked)
    _check_stop(stopped, tx_id, token)
    check_in(TX16.local_reason, "StopTransaction.req reason", {None, "Local"}, stopped.request.get("reason"))
    if ocpp.is_sut(CS):
        samples = [e.request for e in ocpp.sent("MeterValues", sender=CS, where=lambda p: p.get("transactionId") == tx_id)]
        broken = decreases(transaction_readings(started.request, samples, stopped.request))
        if broken:
            earlier, later = broken[0]
            violated(TX16.monotonic, "a register reading of the transaction decreased", expected=f">= {earlier}",
                     actual=str(later))
    else:
        check_in(TX16.stop_info, "StopTransaction.conf idTagInfo.status (None: IdTagInfo left out, as it may be)",
                 {None, "Accepted"}, id_tag_status(stopped))


@checks(Core16.authorize, Core16.start, TX16.group, TX16.member_authorized, TX16.member_stops, TX16.stop_identifies,
        cs=TC("TC_069_CS"))
@needs(grouped)
async def test_group_member_stops_with_authorize(ocpp, profile):
    """Another member of the starter's group is authorized, then stops the transaction."""
    (starter, member), connector = group16(profile), connectors(profile)[0]
    started = await start(ocpp, starter, connector)
    group = dig(started.result, "idTagInfo.parentIdTag")
    if ocpp.is_sut(CSMS):
        require(group is not None and same_tag(group, starter.group), TX16.group,
                "StartTransaction.conf lacks the idTag's group as parentIdTag", expected=starter.group,
                actual=dig(started.result, "idTagInfo"))
    mark = ocpp.mark()
    await ocpp.act(CS, "present_id_tag", id_tag=member.id, connector_id=connector)
    auth = await ocpp.expect("Authorize", sender=CS, after=mark, where=lambda p: same_tag(p.get("idTag"), member.id),
                             rule=TX16.member_authorized)
    if ocpp.is_sut(CSMS):
        parent = dig(auth.result, "idTagInfo.parentIdTag")
        require(parent is not None and same_tag(parent, group), TX16.group,
                "Authorize.conf of a group member lacks the group's parentIdTag", expected=group,
                actual=dig(auth.result, "idTagInfo"))
    stopped = await ocpp.expect("StopTransaction", sender=CS, after=mark, rule=TX16.member_stops)
    _check_stop(stopped, transaction_id(started), member)


@pytest.mark.sut_roles("csms")
@checks(Core16.accepted, Core16.status_answered, csms=TC("TC_024_CSMS"))
@needs(tagged("Accepted"))
async def test_lock_failure_is_answered(ocpp, profile):
    """An authorized idTag, the connector Preparing, then its lock fails as the cable goes in: StatusNotification
    Faulted with errorCode ConnectorLockFailure, and once the lock is cleared Available again. The central
    system answers each (an empty conf); what it does about the fault is its own (the texts ask nothing
    more)."""
    token, connector = tag16(profile, "Accepted"), connectors(profile)[0]
    authorized = await ocpp.exchange(CS, "Authorize", {"idTag": token.id})
    check_equal(Core16.accepted, "Authorize.conf idTagInfo.status", "Accepted", id_tag_status(authorized))
    for status, error in (("Preparing", "NoError"), ("Faulted", "ConnectorLockFailure"), ("Available", "NoError")):
        answered = await ocpp.exchange(CS, "StatusNotification", {
            "connectorId": connector, "status": status, "errorCode": error,
            "timestamp": iso(clock.utcnow())})
        require(answered.error is None, Core16.status_answered, f"the StatusNotification {status} ({error}) was "
                "refused", expected="StatusNotification.conf", actual=answered.error)
        check_equal(Core16.status_answered, f"StatusNotification.conf fields for {status} ({error})", {},
                    answered.result)


@pytest.mark.sut_roles("csms")
@checks(Core16.authorize, Core16.start, Registration.accepted, Core16.stop_answered, csms=TC("TC_032_1_CSMS"))
@needs(tagged("Accepted"))
async def test_transaction_ended_by_a_power_loss(ocpp, harness_station, profile):
    """A transaction charges; the charge point loses power and comes back: it boots, reports its connectors, and
    stops the transaction with reason PowerLoss, which the central system answers. The boot may be answered
    Pending or Rejected (RegistrationStatus): Accepted is required only of a station the profile declares
    registered (``Registration.accepted``). The texts ask nothing more of the central system (the
    transaction's end is the charge point's report)."""
    connector = connectors(profile)[0]
    tx_id = transaction_id(await start(ocpp, tag16(profile, "Accepted"), connector))
    before = ocpp.connections()
    await ocpp.act(CS, "power_loss")
    boot = await harness_rebooted(ocpp, before, "the power loss")
    harness_station.boot_answered(boot.result["status"])
    stopped = await ocpp.expect("StopTransaction", sender=CS, after=0, where=lambda p: p["transactionId"] == tx_id)
    require(stopped.error is None, Core16.stop_answered, "the StopTransaction (reason PowerLoss) was refused",
            expected="StopTransaction.conf", actual=stopped.error)
