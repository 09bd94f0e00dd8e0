"""C22 — A settlement that is rejected or fails (2.1).

The payment provider rejects the capture of a paid transaction's amount, or it fails: the station
reports NotifySettlement with status Rejected or Failed and the payment reference (with which the
operator may capture the amount directly); the CSMS records it (spec 001 "Direct payment and settlement"
rule 4). The actuator action ``fail_settlement`` stands for the provider's answer to the next capture.
"""

import pytest

from harness.roles import CS
from harness.rules import RuleTable, must
from harness.suite import case, checks
from harness.usecases.payment import DirectPayment, check_settlement, paid_transaction, settlement


class C22(RuleTable):
    """The rules of C22 (spec 001 Direct payment and settlement rule 4; Events: NotifySettlementRequest)."""
    reported = must("spec 001 Direct payment and settlement rule 4; Events: NotifySettlementRequest",
                    "a settlement the payment provider rejects or that fails is reported with NotifySettlement status "
                    "Rejected or Failed, the transactionId and the payment reference as pspRef", by=CS)


pytestmark = case("C22", block="Authorization", roles=("csms", "cs"), protocols=("ocpp2.1",),
                  requires=["payment_terminal"])


@pytest.mark.parametrize("outcome", [pytest.param(o, marks=checks(C22.reported, DirectPayment.recorded))
                                     for o in ("Rejected", "Failed")])
async def test_failed_settlement_is_reported(ocpp, profile, outcome):
    """The next capture is refused; pay, charge, unplug: NotifySettlement with that outcome, answered."""
    evse = profile.evses[0].id
    await ocpp.act(CS, "fail_settlement", status=outcome)
    authorized, started = await paid_transaction(ocpp, evse, C22.reported)
    start = ocpp.mark()
    await ocpp.act(CS, "unplug", evse_id=evse)
    notified = await settlement(ocpp, start, C22.reported)
    check_settlement(notified, C22.reported, outcome, authorized.request["idToken"]["idToken"],
                     started.request["transactionInfo"]["transactionId"])
