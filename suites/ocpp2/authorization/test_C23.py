"""C23 — The driver raises the authorized amount during a paid transaction (2.1).

While a transaction paid at the station's terminal runs, the terminal authorizes a higher amount: the
station reports it with TransactionEvent Updated, triggerReason LimitSet, transactionInfo.transactionLimit
.maxCost the new amount; the CSMS records it (informational: the station already raised the
authorization) and answers normally (spec 001 Transaction event rule 2). The actuator action
``raise_payment`` stands for the terminal.

Reading chosen: "answers normally" — a TransactionEventResponse that does not refuse the paid token.
"""

from harness.roles import CS, CSMS
from harness.rules import RuleTable, must
from harness.suite import case, checks
from harness.usecases.payment import paid_transaction
from harness.verdict import check_equal, dig, require


class C23(RuleTable):
    """The rules of C23 (spec 001 Transaction event rule 2)."""
    limit_set = must("spec 001 Transaction event rule 2",
                     "an amount raised at the terminal is reported with TransactionEvent Updated, triggerReason "
                     "LimitSet and transactionLimit.maxCost the new amount", by=CS)
    answered = must("spec 001 Transaction event rule 2",
                    "the CSMS answers the LimitSet event normally: a TransactionEventResponse not refusing the paid "
                    "token", by=CSMS)


pytestmark = case("C23", block="Authorization", roles=("csms", "cs"), protocols=("ocpp2.1",),
                  requires=["payment_terminal"])


@checks(C23.limit_set, C23.answered)
async def test_raised_amount_is_reported(ocpp, profile):
    """Pay, charge; the driver raises the amount: TransactionEvent LimitSet with the new maxCost, answered."""
    evse = profile.evses[0].id
    amount = 2 * float(profile.get("payment_terminal.amount", 50.0))
    _, started = await paid_transaction(ocpp, evse, C23.limit_set)
    transaction_id = started.request["transactionInfo"]["transactionId"]
    start = ocpp.mark()
    await ocpp.act(CS, "raise_payment", evse_id=evse, amount=amount)
    raised = await ocpp.expect("TransactionEvent", sender=CS, after=start, rule=C23.limit_set, where=lambda p: (
        p["transactionInfo"]["transactionId"] == transaction_id and p["triggerReason"] == "LimitSet"))
    check_equal(C23.limit_set, "TransactionEvent LimitSet eventType", "Updated", raised.request["eventType"])
    check_equal(C23.limit_set, "TransactionEvent LimitSet transactionInfo.transactionLimit.maxCost", amount,
                dig(raised.request, "transactionInfo.transactionLimit.maxCost"))
    if ocpp.is_sut(CSMS):
        require(raised.error is None, C23.answered, "the CSMS refused the LimitSet event",
                expected="a TransactionEventResponse", actual=raised.error)
        check_equal(C23.answered, "TransactionEventResponse idTokenInfo.status of the LimitSet event", "Accepted",
                    dig(raised.result, "idTokenInfo.status", "Accepted"))
