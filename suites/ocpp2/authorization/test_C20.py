"""C20 — A direct payment cancelled after the transaction started (2.1).

The driver paid at the station's terminal and the transaction started, but no energy flowed: the driver
cancels at the terminal (triggerReason StopAuthorized) or the EV never connects in time
(EVConnectTimeout). The station ends the transaction so and then reports NotifySettlement with status
Cancelled for it; the CSMS answers the Ended event with totalCost 0 and records the cancellation (spec
001 Transaction event rule 1). The actuator action ``cancel_payment`` (with the reason) stands for it.

Reading chosen: a station under test may end the transaction with either trigger, whichever the action
asked for; a station that cannot time out on demand answers the action 501 (not applicable).
"""

import pytest

from harness.arena import CS, CSMS
from harness.rules import RuleTable, must
from harness.suite import case, checks
from harness.usecases.payment import CANCELED, DirectPayment, check_settlement, paid_transaction, settlement
from harness.verdict import check_equal, check_in, require


class C20(RuleTable):
    """The rules of C20 (spec 001 Transaction event rule 1)."""
    ended = must("spec 001 Transaction event rule 1",
                 "a paid transaction cancelled before energy flowed ends with TransactionEvent Ended, triggerReason "
                 "StopAuthorized or EVConnectTimeout", by=CS)
    cancelled = must("spec 001 Transaction event rule 1",
                     "after that Ended event the station reports NotifySettlement status Cancelled for the transaction "
                     "and its payment reference", by=CS)
    total_cost = must("spec 001 Transaction event rule 1",
                      "the CSMS answers that Ended event (no energy delivered) with totalCost 0", by=CSMS)


pytestmark = case("C20", block="Authorization", roles=("csms", "cs"), protocols=("ocpp2.1",),
                  requires=["payment_terminal"])


@pytest.mark.parametrize("reason", [pytest.param(r, marks=checks(C20.ended, C20.cancelled, C20.total_cost,
                                                                  DirectPayment.recorded))
                                    for r in ("StopAuthorized", "EVConnectTimeout")])
async def test_payment_cancelled_after_the_start(ocpp, profile, reason):
    """Pay, plug in, the transaction starts; cancelled: Ended (totalCost 0), then NotifySettlement Cancelled."""
    evse = profile.evses[0].id
    authorized, started = await paid_transaction(ocpp, evse, C20.ended)
    transaction_id = started.request["transactionInfo"]["transactionId"]
    start = ocpp.mark()
    await ocpp.act(CS, "cancel_payment", evse_id=evse, reason=reason)
    ended = await ocpp.expect("TransactionEvent", sender=CS, after=start, rule=C20.ended, where=lambda p: (
        p["eventType"] == "Ended" and p["transactionInfo"]["transactionId"] == transaction_id))
    check_in(C20.ended, "TransactionEvent Ended triggerReason", ("StopAuthorized", "EVConnectTimeout"),
             ended.request["triggerReason"])
    if ocpp.is_sut(CSMS):
        check_equal(C20.total_cost, "TransactionEventResponse totalCost of the cancelled transaction", 0,
                    ended.response.get("totalCost"))
    notified = await settlement(ocpp, start, C20.cancelled)
    check_settlement(notified, C20.cancelled, CANCELED, authorized.request["idToken"]["idToken"], transaction_id)
    history = ocpp.link.history
    require(history.index(notified) > history.index(ended), C20.cancelled, "the station reported the cancellation "
            "before it ended the transaction", expected="NotifySettlement after the Ended event", actual="before it")
