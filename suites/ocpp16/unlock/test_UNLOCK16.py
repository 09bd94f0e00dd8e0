"""UNLOCK16 — UnlockConnector in 1.6: the cable retention released at the central system's request,
with and without a running transaction (spec 002 Messages UnlockConnector; UnlockStatus; Reason
UnlockCommand; ChargePointStatus Finishing, Available).

UnlockFailed (the lock did not open) and NotSupported (a fixed cable: no lock) are answers a charge
point may give for a connector it has; a test that needs the lock opened is then not applicable. A
transaction running on the connector ends with StopTransaction, reason UnlockCommand, whatever the
lock does (TC_018_1_CS); the StopTransaction may come before or after the UnlockConnector.conf.
"""

import pytest

from harness.roles import CS, CSMS
from harness.errors import NotApplicable
from harness.rules import RuleTable, must
from harness.suite import OCPP16, TC, case, checks, needs
from harness.usecases.core16 import Core16, connectors, start, tag16, tagged, transaction_id
from harness.usecases.operations import ASKED16, operate, status_of
from harness.verdict import check_equal


class UNLOCK16(RuleTable):
    """The rules of UNLOCK16."""
    stops_transaction = must("spec 002 Enumerations Reason (UnlockCommand); Messages UnlockConnector; TC_018_1_CS",
                             "a transaction running on the connector to unlock ends with StopTransaction, reason "
                             "UnlockCommand", by=CS)
    after_stop = must("spec 002 States and transitions (Finishing, Available); TC_018_1_CS",
                      "after the stop the connector reports Finishing while the cable is in, Available once it is "
                      "out", by=CS)
    unknown_connector = must("spec 002 Enumerations UnlockStatus (NotSupported: no lock or unknown connector)",
                             "an UnlockConnector for a connector the charge point does not have is NotSupported",
                             by=CS)
    stop_answered = must("spec 002 Messages StopTransaction",
                         "the central system answers the StopTransaction of the unlocked connector", by=CSMS)


pytestmark = case("UNLOCK16", block="Core (1.6)", roles=("csms", "cs"), protocols=OCPP16)


async def _unlock(ocpp, connector_id: int):
    """UnlockConnector of a connector the charge point has; without a lock to open, not applicable."""
    exchange = await operate(ocpp, "UnlockConnector", {"connectorId": connector_id})
    if status_of(exchange) != "Unlocked":
        raise NotApplicable(f"the charge point answers UnlockConnector {status_of(exchange)}: its lock did not open "
                            f"or it has none (a fixed cable)")
    return exchange


@checks(*ASKED16, csms=TC("TC_017_1_CSMS"), cs=TC("TC_017_1_CS"))
async def test_unlock_without_transaction(ocpp, profile):
    """No transaction runs: the connector is unlocked."""
    await _unlock(ocpp, connectors(profile)[0])


@checks(*ASKED16, Core16.authorize, Core16.start, UNLOCK16.stops_transaction, UNLOCK16.after_stop,
        UNLOCK16.stop_answered, cs=TC("TC_018_1_CS"), csms=TC("TC_018_1_CSMS"))
@needs(tagged("Accepted"))
async def test_unlock_stops_the_running_transaction(ocpp, profile):
    """Unlocking a charging connector: StopTransaction with reason UnlockCommand, then Finishing, and
    Available once the cable is out."""
    connector = connectors(profile)[0]
    tx_id = transaction_id(await start(ocpp, tag16(profile, "Accepted"), connector))
    mark = ocpp.mark()
    await _unlock(ocpp, connector)
    stop = await ocpp.expect("StopTransaction", sender=CS, after=mark, where=lambda p: p["transactionId"] == tx_id,
                             rule=UNLOCK16.stops_transaction)
    check_equal(UNLOCK16.stops_transaction, "StopTransaction.req reason", "UnlockCommand", stop.request.get("reason"))
    check_equal(UNLOCK16.stop_answered, "StopTransaction answered", None, stop.error)
    mine = lambda status: lambda p: p["connectorId"] == connector and p["status"] == status
    await ocpp.expect("StatusNotification", sender=CS, after=mark, where=mine("Finishing"), rule=UNLOCK16.after_stop)
    unplugged = ocpp.mark()
    await ocpp.act(CS, "unplug", connector_id=connector)
    await ocpp.expect("StatusNotification", sender=CS, after=unplugged, where=mine("Available"),
                      rule=UNLOCK16.after_stop)


@checks(*ASKED16, UNLOCK16.unknown_connector, cs=TC("TC_031_CS"), csms=TC("TC_031_CSMS"))
async def test_unlock_of_an_unknown_connector_is_not_supported(ocpp, profile):
    """UnlockConnector of a connector above the charge point's number: NotSupported. The central system sends
    it as asked; after NotSupported the texts ask nothing more of it."""
    unknown = len(connectors(profile)) + 1
    exchange = await operate(ocpp, "UnlockConnector", {"connectorId": unknown})
    check_equal(UNLOCK16.unknown_connector, f"UnlockConnector.conf status for connector {unknown}", "NotSupported",
                status_of(exchange))


@pytest.mark.sut_roles("csms")
@pytest.mark.parametrize("result", [pytest.param("UnlockFailed", marks=checks(*ASKED16, csms=TC("TC_030_CSMS"))),
                                    pytest.param("NotSupported", marks=checks(*ASKED16, csms=TC("TC_017_2_CSMS")))])
async def test_unlock_answered_without_unlocking(ocpp, profile, result):
    """The charge point's lock fails (UnlockFailed) or it has a fixed cable (NotSupported): the central
    system sends the request as asked and takes the answer; the texts ask nothing more of it."""
    ocpp.configure(unlock_result=result)
    await operate(ocpp, "UnlockConnector", {"connectorId": connectors(profile)[0]})
