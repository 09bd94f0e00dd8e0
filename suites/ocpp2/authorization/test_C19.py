"""C19 — A direct payment cancelled before the transaction starts (2.1).

The driver pays at the station's terminal (AuthorizeDirectPayment true), then cancels there before any
transaction: the station reports NotifySettlement with status Cancelled for the payment reference and
starts no transaction, even once the cable is in; the CSMS records the cancellation (spec 001
Transaction event rule 3). The actuator action ``cancel_payment`` stands for the driver at the terminal.
"""

from harness.roles import CS
from harness.ocpp.payment import CANCELED
from harness.rules import RuleTable, must
from harness.suite import case, checks
from harness.usecases.payment import DirectPayment, check_settlement, is_direct_payment, pay_at_terminal, settlement


class C19(RuleTable):
    """The rules of C19 (spec 001 Transaction event rule 3)."""
    cancelled = must("spec 001 Transaction event rule 3",
                     "a payment cancelled at the terminal before any transaction is reported with NotifySettlement "
                     "status Cancelled and the payment reference as pspRef", by=CS)
    no_transaction = must("spec 001 Transaction event rule 3",
                          "a payment cancelled before any transaction starts none: no TransactionEvent carries it",
                          by=CS)


pytestmark = case("C19", block="Authorization", roles=("csms", "cs"), protocols=("ocpp2.1",),
                  requires=["payment_terminal"])


@checks(C19.cancelled, C19.no_transaction, DirectPayment.recorded)
async def test_payment_cancelled_before_the_start(ocpp, profile):
    """Pay, cancel, plug in: NotifySettlement Cancelled, answered; no transaction with the payment."""
    evse = profile.evses[0].id
    authorized = await pay_at_terminal(ocpp, evse, C19.cancelled)
    psp_ref = authorized.request["idToken"]["idToken"]
    start = ocpp.mark()
    await ocpp.act(CS, "cancel_payment", evse_id=evse)
    notified = await settlement(ocpp, start, C19.cancelled)
    check_settlement(notified, C19.cancelled, CANCELED, psp_ref, None)
    await ocpp.act(CS, "plug_in", evse_id=evse)
    await ocpp.expect_none("TransactionEvent", after=start, rule=C19.no_transaction, where=is_direct_payment)
