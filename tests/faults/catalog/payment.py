"""Direct payment faults (C18-C25, OCPP 2.1): the payment terminal, QR codes, settlements,
receipts, VAT numbers and cost details."""

from __future__ import annotations

from harness import clock
from harness.ocpp import totp
from harness.reference import ReferenceCsms, ReferenceStation
from harness.transport.ws import CallErrorReply

from .records import V21, Fault, cs21_test, csms21_test


class CsmsAcceptsAnyQrCode(ReferenceCsms):
    """QR-code payment rule 2: the TOTP of a scanned QR code is not checked."""

    async def act_scan_qr_code(self, url, station=None):
        parameters = totp.parse_qr_url(url)
        await self._start_paid(int(parameters["evse"]), totp.transaction_limit(parameters), station)


class CsmsAcceptsOnlyTheCurrentInterval(ReferenceCsms):
    """QR-code payment rule 2: the previous interval's TOTP (clock skew) is refused."""

    async def act_scan_qr_code(self, url, station=None):
        qr = self.profile.get("qr_code")
        current = totp.totp(qr["totp_secret"].encode(), clock.wall(), interval=qr["interval"], length=qr["length"])
        if totp.parse_qr_url(url).get("totp") in (current, totp.totp(
                qr["totp_secret"].encode(), clock.wall(), interval=qr["interval"], length=qr["length"], offset=1)):
            await super().act_scan_qr_code(url, station)


class CsmsForgetsWhatWasPaid(ReferenceCsms):
    """QR-code payment rule 4: a paid transaction's Started event gets no transactionLimit."""

    def transaction_limit(self, id_token):
        return None if id_token.get("type") == "DirectPayment" else super().transaction_limit(id_token)


class CsmsForgetsTheTerminalAmount(ReferenceCsms):
    """Remote start rule 3: an ad hoc payment's transaction is not limited to the authorized amount."""

    async def act_ad_hoc_payment(self, evse_id, amount, psp_ref=None, station=None):
        await self._start_paid(evse_id, {}, station, psp_ref)


class StationIgnoresWebPayments(ReferenceStation):
    """Moves "Web payment": NotifyWebPaymentStarted is answered but holds nothing: a driver starts meanwhile."""

    def on_NotifyWebPaymentStarted(self, session, payload):
        return {}


C24, C25 = "authorization/test_C24.py", "authorization/test_C25.py"


class CsmsRefusesCardPayments(ReferenceCsms):
    """Direct payment rule 1: the DirectPayment token of a card the terminal authorized is refused."""

    def id_token_info(self, session, id_token, *, current_tx=None):
        info = super().id_token_info(session, id_token, current_tx=current_tx)
        return info | {"status": "Invalid"} if id_token.get("type") == "DirectPayment" else info


class CsmsChargesForCancelledPayments(ReferenceCsms):
    """Transaction event rule 1: a paid transaction cancelled without energy is answered with a cost."""

    def transaction_answer(self, session, payload):
        answer = super().transaction_answer(session, payload)
        return answer | {"totalCost": 4.5} if payload["eventType"] == "Ended" else answer


class CsmsWithholdsReceipts(ReferenceCsms):
    """Direct payment rule 2: a CSMS that makes the receipts answers a Settled settlement without receiptUrl."""

    def on_NotifySettlement(self, session, payload):
        super().on_NotifySettlement(session, payload)
        return {}


class CsmsRejectsEveryVatNumber(ReferenceCsms):
    """VatNumberValidation: a VAT number the CSMS knows is answered Rejected."""

    def on_VatNumberValidation(self, session, payload):
        return {"vatNumber": payload["vatNumber"], "status": "Rejected"}


class CsmsRefusesFailedSettlements(ReferenceCsms):
    """Direct payment rule 4: a settlement that is not Settled is refused with a CALLERROR, not recorded."""

    def on_NotifySettlement(self, session, payload):
        if payload["status"] != "Settled":
            raise CallErrorReply("InternalError", "no settlement but Settled is kept")
        return super().on_NotifySettlement(session, payload)


class CsmsRefusesRaisedLimits(ReferenceCsms):
    """Transaction event rule 2: the LimitSet event of a paid transaction is answered refusing its token."""

    def transaction_answer(self, session, payload):
        answer = super().transaction_answer(session, payload)
        return answer | {"idTokenInfo": {"status": "Invalid"}} if payload["triggerReason"] == "LimitSet" else answer


class StationSkipsPaymentAuthorization(ReferenceStation):
    """Direct payment rule 1: with AuthorizeDirectPayment true the payment starts without AuthorizeRequest."""

    async def act_card_payment(self, evse_id=1, amount=None, psp_ref=None):
        self.variables[("PaymentCtrlr", "AuthorizeDirectPayment")] = "false"
        await super().act_card_payment(evse_id, amount, psp_ref)


class StationAsksAboutUnauthorizedPayments(ReferenceStation):
    """Direct payment rule 1: with AuthorizeDirectPayment false the payment is asked about all the same."""

    async def act_card_payment(self, evse_id=1, amount=None, psp_ref=None):
        self.variables[("PaymentCtrlr", "AuthorizeDirectPayment")] = "true"
        await super().act_card_payment(evse_id, amount, psp_ref)


class StationForgetsTheCard(ReferenceStation):
    """Direct payment rule 1: the DirectPayment token is asked about without the card details."""

    async def authorize(self, id_token):
        return await super().authorize({k: v for k, v in id_token.items() if k != "additionalInfo"})


class StationStartsCancelledPayments(ReferenceStation):
    """Transaction event rule 3: a payment cancelled before the start is reported, but the cable still starts it."""

    async def act_cancel_payment(self, evse_id=1, reason="StopAuthorized"):
        payment = self.payments.get(evse_id)
        if payment is not None and self.evses[evse_id].transaction is None:
            self.background.spawn(self.notify_settlement(payment, "Canceled", 0.0, None))


class StationKeepsCancellationsQuiet(ReferenceStation):
    """Transaction event rules 1 and 3: a cancelled payment is never reported with NotifySettlement."""

    async def notify_settlement(self, payment, status, amount, transaction_id):
        if status != "Canceled":
            await super().notify_settlement(payment, status, amount, transaction_id)


class StationSettlesCancelledTransactions(ReferenceStation):
    """Transaction event rule 1: a paid transaction cancelled after its start is reported Settled."""

    async def notify_settlement(self, payment, status, amount, transaction_id):
        cancelled_after_start = status == "Canceled" and transaction_id is not None
        await super().notify_settlement(payment, "Settled" if cancelled_after_start else status, amount,
                                        transaction_id)


class StationEndsCancelledTransactionsAsDisconnected(ReferenceStation):
    """Transaction event rule 1: a cancelled paid transaction ends with triggerReason EVCommunicationLost."""

    async def act_cancel_payment(self, evse_id=1, reason="StopAuthorized"):
        await super().act_cancel_payment(evse_id, "EVCommunicationLost")


class StationSettlesSilently(ReferenceStation):
    """Direct payment rule 2: the end of a paid transaction is never reported with NotifySettlement Settled."""

    async def notify_settlement(self, payment, status, amount, transaction_id):
        if status != "Settled":
            await super().notify_settlement(payment, status, amount, transaction_id)


class StationOmitsCostDetails(ReferenceStation):
    """Direct payment rule 3: with SettlementByCSMS the Ended event of a paid transaction has no costDetails."""

    def _event(self, state, event_type, trigger, **info):
        payload = super()._event(state, event_type, trigger, **info)
        payload.pop("costDetails", None)
        return payload


class StationMistypesVatNumbers(ReferenceStation):
    """VatNumberValidation: the station validates another VAT number than the one the driver entered."""

    async def act_enter_vat_number(self, vat_number, evse_id=1):
        await super().act_enter_vat_number(vat_number[:-1], evse_id)


class StationHidesFailedSettlements(ReferenceStation):
    """Direct payment rule 4: a capture the provider rejects or that fails is reported Settled."""

    async def act_fail_settlement(self, status="Failed"):
        self.settlement_status = "Settled"


class StationIgnoresRaisedAmounts(ReferenceStation):
    """Transaction event rule 2: a raised amount is reported with the old maxCost."""

    async def act_raise_payment(self, evse_id=1, amount=100.0):
        payment = self.payments.get(evse_id)
        await super().act_raise_payment(evse_id, payment.amount if payment is not None else amount)


C18, C19, C20 = (f"authorization/test_{c}.py" for c in ("C18", "C19", "C20"))


C21, C22, C23 = (f"authorization/test_{c}.py" for c in ("C21", "C22", "C23"))


FAULTS: tuple[Fault, ...] = (
    Fault("csms-accepts-any-qr-code", "C25.refused", CsmsAcceptsAnyQrCode,
          (csms21_test(C25, "test_other_code_starts_nothing", "two_intervals_ago"),
           csms21_test(C25, "test_other_code_starts_nothing", "not_a_code")),
          "the SUT sent RequestStartTransaction when it must not", version=V21),
    Fault("csms-accepts-only-the-current-interval", "C25.started", CsmsAcceptsOnlyTheCurrentInterval,
          (csms21_test(C25, "test_valid_code_starts_a_paid_transaction", "previous"),),
          "[C25.started] the SUT did not send RequestStartTransaction within", version=V21),
    Fault("csms-forgets-what-was-paid-by-qr-code", "C25.limits", CsmsForgetsWhatWasPaid,
          (csms21_test(C25, "test_valid_code_starts_a_paid_transaction", "current"),),
          "TransactionEventResponse transactionLimit is wrong", version=V21),
    Fault("csms-forgets-the-terminal-amount", "C24.max_cost", CsmsForgetsTheTerminalAmount,
          (csms21_test(C24, "test_ad_hoc_payment_starts_a_limited_transaction"),),
          "TransactionEventResponse transactionLimit.maxCost is wrong", version=V21),
    Fault("station-ignores-web-payments", "C25.locked", StationIgnoresWebPayments,
          (cs21_test(C25, "test_web_payment_holds_the_evse"),), "the SUT sent TransactionEvent when it must not",
          version=V21),
    Fault("csms-refuses-card-payments", "direct_payment.accepted", CsmsRefusesCardPayments,
          (csms21_test(C18, "test_card_payment_is_authorized"),
           csms21_test(C18, "test_without_authorization_the_payment_starts_directly")),
          "idTokenInfo.status of the DirectPayment token is wrong", version=V21),
    Fault("csms-charges-for-cancelled-payments", "C20.total_cost", CsmsChargesForCancelledPayments,
          (csms21_test(C20, "test_payment_cancelled_after_the_start"),
           csms21_test(C20, "test_ev_connect_timeout_costs_nothing")),
          "TransactionEventResponse totalCost of the cancelled transaction is wrong", version=V21),
    Fault("csms-withholds-receipts", "C21.receipt", CsmsWithholdsReceipts,
          (csms21_test(C21, "test_paid_transaction_is_settled"),),
          "the CSMS makes the receipts but answered the settlement without receiptUrl", version=V21),
    Fault("csms-rejects-every-vat-number", "C21.vat_answer", CsmsRejectsEveryVatNumber,
          (csms21_test(C21, "test_vat_number_is_validated", "known"),),
          "VatNumberValidationResponse status is wrong", version=V21),
    Fault("csms-refuses-failed-settlements", "direct_payment.recorded", CsmsRefusesFailedSettlements,
          (*(csms21_test(C22, "test_failed_settlement_is_reported", o) for o in ("Rejected", "Failed")),
           csms21_test(C19, "test_payment_cancelled_before_the_start"),
           csms21_test(C20, "test_payment_cancelled_after_the_start")),
          "the CSMS refused a NotifySettlement", version=V21),
    Fault("csms-refuses-raised-limits", "C23.answered", CsmsRefusesRaisedLimits,
          (csms21_test(C23, "test_raised_amount_is_reported"),),
          "TransactionEventResponse idTokenInfo.status of the LimitSet event is wrong", version=V21),
    Fault("station-skips-payment-authorization", "C18.authorize", StationSkipsPaymentAuthorization,
          (cs21_test(C18, "test_card_payment_is_authorized"),),
          "[C18.authorize] the SUT did not send Authorize within", version=V21),
    Fault("station-asks-about-unauthorized-payments", "C18.unasked", StationAsksAboutUnauthorizedPayments,
          (cs21_test(C18, "test_without_authorization_the_payment_starts_directly"),),
          "the SUT sent Authorize when it must not", version=V21),
    Fault("station-forgets-the-card", "C18.authorize", StationForgetsTheCard,
          (cs21_test(C18, "test_card_payment_is_authorized"),),
          "the DirectPayment token carries no card details", version=V21),
    Fault("station-starts-cancelled-payments", "C19.no_transaction", StationStartsCancelledPayments,
          (cs21_test(C19, "test_payment_cancelled_before_the_start"),),
          "the SUT sent TransactionEvent when it must not", version=V21),
    Fault("station-keeps-cancellations-quiet", "C19.cancelled", StationKeepsCancellationsQuiet,
          (cs21_test(C19, "test_payment_cancelled_before_the_start"),),
          "[C19.cancelled] the SUT did not send NotifySettlement within", version=V21),
    Fault("station-settles-cancelled-transactions", "C20.cancelled", StationSettlesCancelledTransactions,
          (cs21_test(C20, "test_payment_cancelled_after_the_start"),),
          "NotifySettlementRequest status is wrong", version=V21),
    Fault("station-ends-cancelled-transactions-as-disconnected", "C20.ended",
          StationEndsCancelledTransactionsAsDisconnected,
          (cs21_test(C20, "test_payment_cancelled_after_the_start"),),
          "TransactionEvent Ended triggerReason is not one of the accepted values", version=V21),
    Fault("station-settles-silently", "C21.settled", StationSettlesSilently,
          (cs21_test(C21, "test_paid_transaction_is_settled"),),
          "[C21.settled] the SUT did not send NotifySettlement within", version=V21),
    Fault("station-omits-cost-details", "C21.cost_details", StationOmitsCostDetails,
          (cs21_test(C21, "test_settlement_by_csms_gives_cost_details"),),
          "carries no costDetails although the CSMS settles", version=V21),
    Fault("station-mistypes-vat-numbers", "C21.vat_sent", StationMistypesVatNumbers,
          (cs21_test(C21, "test_vat_number_is_validated", "known"),),
          "VatNumberValidationRequest vatNumber is wrong", version=V21),
    Fault("station-hides-failed-settlements", "C22.reported", StationHidesFailedSettlements,
          tuple(cs21_test(C22, "test_failed_settlement_is_reported", o) for o in ("Rejected", "Failed")),
          "NotifySettlementRequest status is wrong", version=V21),
    Fault("station-ignores-raised-amounts", "C23.limit_set", StationIgnoresRaisedAmounts,
          (cs21_test(C23, "test_raised_amount_is_reported"),),
          "transactionInfo.transactionLimit.maxCost is wrong", version=V21),
)
