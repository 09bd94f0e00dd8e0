"""INVALIDID16 — a transaction whose StartTransaction.conf does not accept its idTag: stopped with reason
DeAuthorized when StopTransactionOnInvalidId is true, kept (energy delivery stopped: SuspendedEVSE)
when it is false (spec 002 States and transitions, "Offline-authorized transaction"; ChargePointStatus
SuspendedEVSE; Reason DeAuthorized; Behavior rule 17).

The text names the transaction authorized offline; a charge point under test is brought there online,
which puts it in the same position (the transaction runs when the answer comes): the harness's central
system accepts the idTag in Authorize and refuses it (Invalid) in StartTransaction.conf. A central
system under test is given a transaction its charge point started on its own with an idTag that is not
valid, and must refuse it there.
"""

import pytest

from harness.arena import CS, CSMS
from harness.rules import RuleTable, must, should
from harness.suite import OCPP16, case, checks, needs
from harness.usecases.core16 import (
    Core16, configure_charge_point, connectors, id_tag_status, start, tag16, tagged, transaction_id,
)
from harness.verdict import check_equal, require


class INVALIDID16(RuleTable):
    """The rules of INVALIDID16."""
    stopped = must("spec 002 States and transitions (Offline-authorized transaction); Enumerations Reason",
                   "StartTransaction.conf not Accepted and StopTransactionOnInvalidId true: the transaction is stopped "
                   "with StopTransaction, reason DeAuthorized", by=CS)
    kept = must("spec 002 States and transitions (Offline-authorized transaction)",
                "StartTransaction.conf not Accepted and StopTransactionOnInvalidId false: the transaction is not "
                "stopped (only energy delivery)", by=CS)
    suspended = should("spec 002 States and transitions (SuspendedEVSE: a start answer disallowing charging)",
                       "the connector whose start answer disallows charging reports SuspendedEVSE", by=CS)
    refused = must("spec 002 Classes IdTagInfo; Enumerations AuthorizationStatus",
                   "StartTransaction.conf gives an idTag that is not valid its status, never Accepted", by=CSMS)
    stop_answered = must("spec 002 Messages StopTransaction",
                         "the central system answers the StopTransaction of the refused transaction", by=CSMS)


pytestmark = case("INVALIDID16", block="Core (1.6)", roles=("csms", "cs"), protocols=OCPP16)


async def _refused_start(ocpp, profile, stop_on_invalid: str):
    """StopTransactionOnInvalidId set; an idTag accepted in Authorize, refused (Invalid) in StartTransaction.conf."""
    await configure_charge_point(ocpp, {"StopTransactionOnInvalidId": stop_on_invalid})
    ocpp.configure(start_refused="Invalid")
    connector = connectors(profile)[0]
    started = await start(ocpp, tag16(profile, "Accepted"), connector)
    return connector, transaction_id(started), ocpp.link.history.index(started)


@pytest.mark.sut_roles("cs")
@checks(Core16.authorize, Core16.start, INVALIDID16.stopped)
@needs(tagged("Accepted"))
async def test_refused_start_stops_the_transaction(ocpp, profile):
    """StopTransactionOnInvalidId true: StopTransaction with reason DeAuthorized follows the refusal."""
    _, tx_id, after = await _refused_start(ocpp, profile, "true")
    stop = await ocpp.expect("StopTransaction", sender=CS, after=after, where=lambda p: p["transactionId"] == tx_id,
                             rule=INVALIDID16.stopped)
    check_equal(INVALIDID16.stopped, "StopTransaction.req reason", "DeAuthorized", stop.request.get("reason"))


@pytest.mark.sut_roles("cs")
@checks(Core16.authorize, Core16.start, INVALIDID16.kept, INVALIDID16.suspended)
@needs(tagged("Accepted"))
async def test_refused_start_keeps_the_transaction_when_not_configured(ocpp, profile):
    """StopTransactionOnInvalidId false: no StopTransaction; the connector reports SuspendedEVSE."""
    connector, tx_id, after = await _refused_start(ocpp, profile, "false")
    await ocpp.expect_none("StopTransaction", after=after, rule=INVALIDID16.kept,
                           where=lambda p: p["transactionId"] == tx_id)
    await ocpp.expect("StatusNotification", sender=CS, after=after, rule=INVALIDID16.suspended,
                      where=lambda p: p["connectorId"] == connector and p["status"] == "SuspendedEVSE")


@pytest.mark.sut_roles("csms")
@pytest.mark.parametrize("status", ["Invalid", "Blocked", "Expired"])
@checks(INVALIDID16.refused, INVALIDID16.stop_answered)
@needs(lambda given: tag16(given.profile, given.params["status"]))
async def test_start_with_a_tag_that_is_not_valid_is_refused(ocpp, profile, status):
    """The charge point started on its own with an idTag that is not valid: StartTransaction.conf gives its
    status; the charge point then stops (DeAuthorized), and the StopTransaction is answered."""
    token, connector = tag16(profile, status), connectors(profile)[0]
    mark = ocpp.mark()
    await ocpp.act(CS, "start_locally_authorized", id_tag=token.id, connector_id=connector)
    started = await ocpp.expect("StartTransaction", sender=CS, after=mark,
                                where=lambda p: p["connectorId"] == connector)
    check_equal(INVALIDID16.refused, f"StartTransaction.conf idTagInfo.status for the {token.name} idTag", status,
                id_tag_status(started))
    stop = await ocpp.expect("StopTransaction", sender=CS, after=mark,
                             where=lambda p: p["transactionId"] == transaction_id(started))
    require(stop.error is None, INVALIDID16.stop_answered, "the StopTransaction was refused",
            expected="StopTransaction.conf", actual=stop.error)
