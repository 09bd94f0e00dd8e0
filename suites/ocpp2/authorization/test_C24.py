"""C24 — Ad hoc payment through a stand-alone payment terminal (2.1).

The terminal beside the station authorizes an amount on the driver's card; the CSMS then sends
RequestStartTransaction with an idToken of type DirectPayment whose value is the payment reference,
and answers the transaction's Started event with transactionLimit.maxCost equal to the authorized
amount (spec 001 Remote start rule 3). The terminal's side is outside OCPP: the actuator action
``ad_hoc_payment`` stands for it.
"""

import secrets

from harness.roles import CSMS
from harness.rules import RuleTable, must
from harness.suite import case, checks
from harness.usecases.payment import paid_start
from harness.verdict import check_equal, dig

AMOUNT = 30.0


class C24(RuleTable):
    """The rules of C24 (spec 001 Remote start rule 3)."""
    request = must("spec 001 Remote start rule 3",
                   "an ad hoc payment leads to a RequestStartTransaction for the paid EVSE with an idToken of type "
                   "DirectPayment holding the payment reference", by=CSMS)
    max_cost = must("spec 001 Remote start rule 3",
                    "the paid transaction's Started event is answered with transactionLimit.maxCost equal to the "
                    "authorized amount, its token Accepted", by=CSMS)


pytestmark = case("C24", block="Authorization", roles=("csms",), protocols=("ocpp2.1",))


@checks(C24.request, C24.max_cost)
async def test_ad_hoc_payment_starts_a_limited_transaction(ocpp, profile):
    """The CSMS starts the paid transaction with the payment reference and limits it to the amount."""
    evse, psp_ref = profile.evses[0].id, "PSP-" + secrets.token_hex(6).upper()
    start = ocpp.mark()
    request = await ocpp.exchange(CSMS, "RequestStartTransaction", rule=C24.request, trigger=(
        "ad_hoc_payment", {"evse_id": evse, "amount": AMOUNT, "psp_ref": psp_ref}))
    check_equal(C24.request, "RequestStartTransactionRequest idToken.type", "DirectPayment",
                dig(request.request, "idToken.type"))
    check_equal(C24.request, "RequestStartTransactionRequest idToken.idToken (case-insensitive)", psp_ref.casefold(),
                str(dig(request.request, "idToken.idToken", "")).casefold())
    check_equal(C24.request, "RequestStartTransactionRequest evseId", evse, request.request.get("evseId"))
    event = await paid_start(ocpp, request, start, C24.max_cost)
    check_equal(C24.max_cost, "TransactionEventResponse transactionLimit.maxCost", AMOUNT,
                dig(event.result, "transactionLimit.maxCost"))
