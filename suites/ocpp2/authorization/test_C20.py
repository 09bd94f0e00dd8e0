"""C20 — A direct payment cancelled after the transaction started (2.1).

The driver paid at the station's terminal and the transaction started, but no energy flowed: the driver
cancels at the terminal (triggerReason StopAuthorized) or the EV never connects in time
(EVConnectTimeout). The station ends the transaction so and then reports NotifySettlement with status
Canceled for it; the CSMS answers the Ended event with totalCost 0 and records the cancellation (spec
001 Transaction event rule 1). The actuator action ``cancel_payment`` stands for the driver.

Readings chosen: a station under test may end the cancelled transaction with either trigger. The EV
connection timeout is played by the harness's station only (a CSMS under test): at a station under test
it needs TxStartPoint Authorized and an EVConnectionTimeOut the profile does not declare.
"""

import pytest

from harness.roles import CS, CSMS
from harness.ocpp.payment import CANCELED, CANCELLING
from harness.rules import RuleTable, must
from harness.suite import case, checks
from harness.usecases.payment import DirectPayment, check_settlement, paid_transaction, settlement
from harness.verdict import check_equal, check_in, require


class C20(RuleTable):
    """The rules of C20 (spec 001 Transaction event rule 1)."""
    ended = must("spec 001 Transaction event rule 1",
                 "a paid transaction cancelled before energy flowed ends with TransactionEvent Ended, triggerReason "
                 "StopAuthorized or EVConnectTimeout", by=CS)
    cancelled = must("spec 001 Transaction event rule 1",
                     "after that Ended event the station reports NotifySettlement status Canceled for the transaction "
                     "and its payment reference", by=CS)
    total_cost = must("spec 001 Transaction event rule 1",
                      "the CSMS answers that Ended event (no energy delivered) with totalCost 0", by=CSMS)


pytestmark = case("C20", block="Authorization", roles=("csms", "cs"), protocols=("ocpp2.1",),
                  requires=["payment_terminal"])


async def _cancelled(ocpp, evse, **reason):
    """Pay, plug in, the transaction starts; cancelled (``reason``: how the harness's station ends it):
    Ended (totalCost 0), then NotifySettlement Canceled for the transaction."""
    authorized, started = await paid_transaction(ocpp, evse, C20.ended)
    transaction_id = started.request["transactionInfo"]["transactionId"]
    start = ocpp.mark()
    await ocpp.act(CS, "cancel_payment", evse_id=evse, **reason)
    ended = await ocpp.expect("TransactionEvent", sender=CS, after=start, rule=C20.ended, where=lambda p: (
        p["eventType"] == "Ended" and p["transactionInfo"]["transactionId"] == transaction_id))
    check_in(C20.ended, "TransactionEvent Ended triggerReason", CANCELLING, ended.request["triggerReason"])
    if ocpp.is_sut(CSMS):
        check_equal(C20.total_cost, "TransactionEventResponse totalCost of the cancelled transaction", 0,
                    ended.result.get("totalCost"))
    notified = await settlement(ocpp, start, C20.cancelled)
    check_settlement(notified, C20.cancelled, CANCELED, authorized.request["idToken"]["idToken"], transaction_id)
    require(ocpp.mark_after(notified) > ocpp.mark_after(ended), C20.cancelled, "the station reported the cancellation "
            "before it ended the transaction", expected="NotifySettlement after the Ended event", actual="before it")


@checks(C20.ended, C20.cancelled, C20.total_cost, DirectPayment.recorded)
async def test_payment_cancelled_after_the_start(ocpp, profile):
    """The driver cancels at the terminal after the start: StopAuthorized, totalCost 0, Canceled."""
    await _cancelled(ocpp, profile.evses[0].id)


@checks(C20.total_cost, DirectPayment.recorded)
@pytest.mark.sut_roles("csms")
async def test_ev_connect_timeout_costs_nothing(ocpp, profile):
    """The EV never connects in time: EVConnectTimeout without energy, totalCost 0, Canceled recorded."""
    await _cancelled(ocpp, profile.evses[0].id, reason="EVConnectTimeout")
