"""C21 — Settlement of a direct payment (2.1).

When a transaction paid at the station's terminal ends, the station settles the amount with the payment
provider and reports it with NotifySettlement: status Settled, the transactionId, the payment reference
as pspRef, settlementAmount and settlementTime, and the VAT number and company when the driver gave a
validated one. When the CSMS makes the receipts (ReceiptByCSMS, the profile's [payment_terminal]
receipt_by_csms) it answers with receiptUrl; otherwise it acknowledges only (spec 001 "Direct payment and
settlement" rules 2-3). A VAT number entered at the terminal (actuator ``enter_vat_number``) is checked
with VatNumberValidation: Accepted with the company for one the CSMS validates, Rejected otherwise.
With PaymentCtrlr.SettlementByCSMS the station does not settle: its Ended event carries costDetails, with
which the CSMS settles (rule 3).

Readings chosen: the VAT numbers of the profile's [payment_terminal] are the ones the CSMS validates and
rejects; the receipt the CSMS returns after settling by itself (rule 3) has no message the text names, so
only the station's costDetails are judged there.
"""

import pytest

from harness.roles import CS, CSMS
from harness.errors import NotApplicable
from harness.rules import RuleTable, must
from harness.suite import case, checks, needs
from harness.usecases.authorization import station_variable
from harness.usecases.payment import DirectPayment, check_settlement, paid_transaction, pay_at_terminal, settlement
from harness.verdict import check_equal, require


class C21(RuleTable):
    """The rules of C21 (spec 001 Direct payment and settlement rules 2 and 3; VatNumberValidation)."""
    settled = must("spec 001 Direct payment and settlement rule 2",
                   "at the end of a paid transaction the station reports NotifySettlement Settled with the "
                   "transactionId, the payment reference as pspRef, settlementAmount and settlementTime", by=CS)
    receipt = must("spec 001 Direct payment and settlement rule 2",
                   "with ReceiptByCSMS the CSMS answers a Settled NotifySettlement with a receiptUrl", by=CSMS)
    cost_details = must("spec 001 Direct payment and settlement rule 3",
                        "with SettlementByCSMS the Ended event of a paid transaction carries costDetails", by=CS)
    vat_sent = must("spec 001 Events: VatNumberValidationRequest",
                    "a VAT number entered at the terminal is checked with VatNumberValidationRequest carrying it and "
                    "the EVSE", by=CS)
    vat_answer = must("spec 001 Endpoints: VatNumberValidationRequest",
                      "the CSMS answers a VAT number it validates Accepted with the company, one it cannot Rejected, "
                      "echoing the vatNumber", by=CSMS)


pytestmark = case("C21", block="Authorization", roles=("csms", "cs"), protocols=("ocpp2.1",),
                  requires=["payment_terminal"])


def _vat(profile, valid):
    terminal = profile.get("payment_terminal", {})
    number = terminal.get("vat_number", {}).get("number") if valid else terminal.get("unknown_vat_number")
    if not number:
        raise NotApplicable(f"the profile's [payment_terminal] declares no {'vat_number' if valid else 'unknown_vat_number'}")
    return number


async def _charge_and_stop(ocpp, evse):
    """A paid transaction that runs and ends with the cable pulled: (AuthorizeRequest, Ended event, mark)."""
    authorized, started = await paid_transaction(ocpp, evse, C21.settled)
    start = ocpp.mark()
    await ocpp.act(CS, "unplug", evse_id=evse)
    transaction_id = started.request["transactionInfo"]["transactionId"]
    ended = await ocpp.expect("TransactionEvent", sender=CS, after=start, rule=C21.settled, where=lambda p: (
        p["eventType"] == "Ended" and p["transactionInfo"]["transactionId"] == transaction_id))
    return authorized, ended, start


@checks(C21.settled, C21.receipt, DirectPayment.recorded)
async def test_paid_transaction_is_settled(ocpp, profile):
    """Pay, charge, unplug: NotifySettlement Settled for the transaction, answered (with a receiptUrl when
    the CSMS makes receipts)."""
    authorized, ended, start = await _charge_and_stop(ocpp, profile.evses[0].id)
    notified = await settlement(ocpp, start, C21.settled)
    check_settlement(notified, C21.settled, "Settled", authorized.request["idToken"]["idToken"],
                     ended.request["transactionInfo"]["transactionId"])
    for field in ("settlementAmount", "settlementTime"):
        require(field in notified.request, C21.settled, f"NotifySettlement lacks {field}", expected=field,
                actual=notified.request)
    if ocpp.is_sut(CSMS) and profile.get("payment_terminal.receipt_by_csms"):
        require(bool((notified.result or {}).get("receiptUrl")), C21.receipt,
                "the CSMS makes the receipts but answered the settlement without receiptUrl",
                expected="receiptUrl", actual=notified.result)


@checks(C21.cost_details)
@pytest.mark.sut_roles("cs")
async def test_settlement_by_csms_gives_cost_details(ocpp, profile):
    """SettlementByCSMS true: the Ended event of the paid transaction carries costDetails."""
    await station_variable(ocpp, "PaymentCtrlr", "SettlementByCSMS", "true")
    _, ended, _ = await _charge_and_stop(ocpp, profile.evses[0].id)
    require("costDetails" in ended.request, C21.cost_details, "the Ended event of the paid transaction carries no "
            "costDetails although the CSMS settles", expected="costDetails", actual=ended.request)


@pytest.mark.parametrize("valid", [pytest.param(v, id=name, marks=checks(C21.vat_sent, C21.vat_answer))
                                   for v, name in ((True, "known"), (False, "unknown"))])
@needs(lambda given: _vat(given.profile, given.params["valid"]))
async def test_vat_number_is_validated(ocpp, profile, valid):
    """During a payment the driver enters a VAT number: VatNumberValidation, Accepted with the company for
    one the CSMS knows, Rejected for another."""
    evse, number = profile.evses[0].id, _vat(profile, valid)
    await pay_at_terminal(ocpp, evse, C21.vat_sent)
    validated = await ocpp.exchange(CS, "VatNumberValidation", {"vatNumber": number, "evseId": evse},
                                    trigger=("enter_vat_number", {"evse_id": evse, "vat_number": number}),
                                    rule=C21.vat_sent)
    if ocpp.is_sut(CS):
        check_equal(C21.vat_sent, "VatNumberValidationRequest vatNumber", number, validated.request.get("vatNumber"))
        check_equal(C21.vat_sent, "VatNumberValidationRequest evseId", evse, validated.request.get("evseId"))
        return
    answer = validated.result or {}
    check_equal(C21.vat_answer, "VatNumberValidationResponse status", "Accepted" if valid else "Rejected",
                answer.get("status"))
    check_equal(C21.vat_answer, "VatNumberValidationResponse vatNumber", number, answer.get("vatNumber"))
    if valid:
        require("company" in answer, C21.vat_answer, "a validated VAT number is answered without the company",
                expected="company", actual=answer)
