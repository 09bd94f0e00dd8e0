"""Payment started at the CSMS (2.1): an ad hoc payment at a stand-alone terminal (C24) and a QR code
scanned by the driver (C25); both end in a remote start with an idToken of type DirectPayment, whose
transaction is limited to what was paid for.

CSMS (spec 001 Remote start rule 3, "QR-code payment"): ``ad_hoc_payment`` — the terminal authorized
``amount`` for ``evse_id`` — sends RequestStartTransaction with a DirectPayment token (the payment
reference) and answers the Started event with transactionLimit.maxCost = amount. ``scan_qr_code`` — the
driver's phone opened the URL of the station's QR code (``harness.ocpp.totp``) and paid — checks the
station identity and the TOTP (the current, previous or next interval, with the profile's [qr_code]
secret, interval and length) and only then starts the same way, its Started event answered with the
URL's maxenergy, maxtime and maxcost as transactionLimit; an invalid code starts nothing. Before the
start it tells the station with NotifyWebPaymentStarted that a web payment runs for the EVSE
(``web_payment_timeout`` seconds). The payment page itself (the PSP) is outside OCPP: these actions
stand for the paid outcome.

Station 2.1 (spec 001 Moves "Web payment"): NotifyWebPaymentStarted locks the EVSE for ``timeout``
seconds: no driver's transaction starts there meanwhile; the paid remote start does.

Direct payment at the station's own terminal (C18-C23; spec 001 "Direct payment and settlement",
Transaction event rules 1-3). Station: ``card_payment`` — the terminal authorized ``amount`` on the
driver's card and gave a PSP reference — makes a DirectPayment token (the reference as idToken, the
profile's [payment_terminal] card details as additionalInfo), asked about with AuthorizeRequest when
PaymentCtrlr.AuthorizeDirectPayment is true, taken as authorized without it; the transaction starts once
the cable is in. ``cancel_payment`` before the start sends NotifySettlement Cancelled without a
transaction; after it ends the transaction (triggerReason StopAuthorized, or EVConnectTimeout) and then
sends NotifySettlement Cancelled for it. The end of a paid transaction is settled with NotifySettlement
(Settled, or what ``fail_settlement`` made the next capture: Rejected, Failed) for the CSMS's totalCost,
with the VAT number a ``enter_vat_number`` got Accepted — unless PaymentCtrlr.SettlementByCSMS: then the
Ended event carries costDetails and the CSMS settles. ``raise_payment`` reports a raised amount with
TransactionEvent Updated, triggerReason LimitSet, transactionLimit.maxCost.

CSMS 2.1: a DirectPayment token is Accepted (the terminal authorized the card), its AuthorizeResponse
with ``direct_payment_tariff`` when a test sets one; an Ended event with triggerReason StopAuthorized or
EVConnectTimeout of a transaction that delivered no energy is answered totalCost 0; NotifySettlement of
every status is answered, a Settled one with receiptUrl when the profile's [payment_terminal]
receipt_by_csms says the CSMS makes receipts; VatNumberValidation is Accepted with the company for the
profile's [payment_terminal] vat_number, Rejected for any other.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from typing import Any

from harness import clock
from harness.errors import PeerViolation
from harness.ocpp import totp
from harness.ocpp.meter16 import ENERGY
from harness.ocpp.payment import CANCELED, CANCELLING
from harness.ocpp.versions import OcppVersion
from harness.reference.base import StationSession
from harness.reference.common import V2X, Block, now_iso, store
from harness.reference.model import EvseState
from harness.reference.tokens import token_key

DEFAULT_AMOUNT = 50.0   # what the terminal authorizes when neither the action nor the profile says
RECEIPTS = "https://receipts.reference.example/"


def terminal(profile) -> dict:
    """The profile's [payment_terminal] (empty when it declares none)."""
    return profile.get("payment_terminal", {})


def card_details(profile) -> list[dict]:
    """The card the terminal reads, as IdTokenType.additionalInfo (Direct payment rule 1)."""
    card = terminal(profile).get("card", [{"type": "CardBrand", "value": "VISA"}])
    return [{"additionalIdToken": c["value"], "type": c["type"]} for c in card]


@dataclass
class TerminalPayment:
    """A payment the station's terminal authorized for an EVSE, until it is settled or cancelled."""
    id_token: dict    # DirectPayment: the PSP reference, the card details
    amount: float
    vat: dict | None = None   # vatNumber (and vatCompany) the CSMS validated


class PaymentStation2x(Block):
    versions = V2X
    precedes = ("TransactionsStation2x",)   # a web payment holds the EVSE
    undone_by = {"card_payment": lambda body: ("cancel_payment", {"evse_id": body.get("evse_id", 1)})}
    requires = ("TransactionsStation2x", "AuthorizationStation2x", "DeviceModelStation2x")
    settlement_status = "Settled"   # what the payment provider makes of the next capture (fail_settlement)

    web_payment_until: dict[int, float] = store(dict)   # EVSE id → the clock.now() its lock ends
    payments: dict[int, TerminalPayment] = store(dict)   # EVSE id → the terminal payment waiting or charging

    def on_NotifyWebPaymentStarted(self, _: None, payload: dict) -> dict:
        self.web_payment_until[payload["evseId"]] = clock.now() + payload["timeout"]
        return {}

    async def start_transaction(self, state: EvseState, trigger: str, id_token: dict | None,
                                remote_start_id: int | None = None) -> None:
        if trigger != "RemoteStart" and clock.now() < self.web_payment_until.get(state.evse.id, 0):
            return   # a web payment holds the EVSE
        await super().start_transaction(state, trigger, id_token, remote_start_id)

    # ------------------------------------------------------------ the station's own terminal (C18-C23)
    def _paid(self, state: EvseState) -> TerminalPayment | None:
        """The terminal payment of the transaction running on ``state``'s EVSE, if it is one."""
        payment, tx = self.payments.get(state.evse.id), state.transaction
        if payment is None or tx is None or tx.id_token is None:
            return None
        return payment if token_key(tx.id_token) == token_key(payment.id_token) else None

    async def report(self, action: str, payload: dict) -> None:
        """A CALL whose answer a test judges: a CALLERROR is the CSMS's answer, never the station's failure."""
        try:
            await self.connection.call_exchange(action, payload)
        except PeerViolation:
            pass   # no answer, or one breaking its schema: the connection records it

    async def notify_settlement(self, payment: TerminalPayment, status: str, amount: float,
                                transaction_id: str | None) -> None:
        payload = {"pspRef": payment.id_token["idToken"], "status": status, "settlementAmount": amount,
                   "settlementTime": now_iso()} | (payment.vat or {})
        if transaction_id is not None:
            payload["transactionId"] = transaction_id
        await self.report("NotifySettlement", payload)

    def _event(self, state: EvseState, event_type: str, trigger: str, **info: Any) -> dict:
        """A paid transaction starts limited to the authorized amount; with SettlementByCSMS it ends with
        costDetails (Direct payment and settlement rule 3)."""
        payment = self._paid(state)
        if event_type == "Started" and payment is not None:
            info["transactionLimit"] = {"maxCost": payment.amount}
        payload = super()._event(state, event_type, trigger, **info)
        if event_type == "Ended" and payment is not None and self.flag("PaymentCtrlr", "SettlementByCSMS"):
            payload["costDetails"] = {"totalCost": {"currency": "EUR", "typeOfCost": "NormalCost", "total": {
                "exclTax": 0.0}}, "totalUsage": {"energy": 0, "chargingTime": 0, "idleTime": 0}}
        return payload

    async def end_transaction(self, state: EvseState, trigger: str, stopped_reason: str,
                              id_token: dict | None = None) -> dict | None:
        payment, tx = self._paid(state), state.transaction
        response = await super().end_transaction(state, trigger, stopped_reason, id_token)
        if payment is not None and self.payments.pop(state.evse.id, None) is payment \
                and not self.flag("PaymentCtrlr", "SettlementByCSMS"):
            status, self.settlement_status = self.settlement_status, "Settled"
            await self.notify_settlement(payment, status, (response or {}).get("totalCost", 0.0), tx.id)
        return response

    async def act_card_payment(self, evse_id: int = 1, amount: float | None = None,
                               psp_ref: str | None = None) -> None:
        state = self.evses[evse_id]
        id_token = {"idToken": psp_ref or "PSP-" + secrets.token_hex(8).upper(), "type": "DirectPayment",
                    "additionalInfo": card_details(self.profile)}
        payment = TerminalPayment(id_token, amount or terminal(self.profile).get("amount", DEFAULT_AMOUNT))

        async def pay() -> None:
            self.payments[evse_id] = payment
            if self.flag("PaymentCtrlr", "AuthorizeDirectPayment") and \
                    (await self.authorize(id_token))["status"] != "Accepted":
                self.payments.pop(evse_id, None)
            elif self.payments.get(evse_id) is payment:   # not cancelled meanwhile
                await self._authorized(state, id_token, None)

        self.background.spawn(pay())

    async def act_cancel_payment(self, evse_id: int = 1, reason: str = "StopAuthorized") -> None:
        state = self.evses[evse_id]
        running = self._paid(state) is not None
        payment = self.payments.pop(evse_id, None)
        if payment is None:
            return

        async def cancel() -> None:
            tx = state.transaction if running else None
            if tx is not None:
                await self.end_transaction(state, reason, "Timeout" if reason == "EVConnectTimeout" else "Local")
            elif state.authorized is not None and token_key(state.authorized) == token_key(payment.id_token):
                state.authorized = None
            await self.notify_settlement(payment, CANCELED, 0.0, tx.id if tx is not None else None)

        self.background.spawn(cancel())

    async def act_fail_settlement(self, status: str = "Failed") -> None:
        self.settlement_status = status

    async def act_raise_payment(self, evse_id: int = 1, amount: float = 2 * DEFAULT_AMOUNT) -> None:
        state = self.evses[evse_id]
        payment = self._paid(state)
        if payment is None:
            return
        payment.amount = amount
        self.background.spawn(self.report("TransactionEvent", self._event(
            state, "Updated", "LimitSet", chargingState="Charging", transactionLimit={"maxCost": amount})))

    async def act_enter_vat_number(self, vat_number: str, evse_id: int = 1) -> None:
        async def validate() -> None:
            answer = await self.call("VatNumberValidation", {"vatNumber": vat_number, "evseId": evse_id})
            payment = self.payments.get(evse_id)
            if payment is not None and answer["status"] == "Accepted":
                payment.vat = {"vatNumber": vat_number} | ({"vatCompany": answer["company"]} if "company" in answer
                                                          else {})

        self.background.spawn(validate())


class PaymentCsms2x(Block):
    versions = V2X
    precedes = ("TransactionsCsms2x",)   # it adds the limits of what was paid
    requires = ("RemoteControlCsms2x", "TransactionsCsms2x")
    # direct_payment_tariff: the tariff (TariffType) the AuthorizeResponse of a DirectPayment token carries
    configurable = frozenset({"direct_payment_tariff"})
    direct_payment_tariff: dict | None = None
    web_payment_timeout = 120   # seconds the station holds the EVSE while the driver pays

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.paid: dict[tuple[str, str], dict] = {}   # by token_key of a DirectPayment token: its transactionLimit
        self.energy: dict[str, tuple[float, float]] = {}   # transactionId → first and last register seen (Wh)

    def id_token_info(self, session: StationSession, id_token: dict, *, current_tx: str | None = None) -> dict:
        if id_token.get("type") == "DirectPayment":
            return {"status": "Accepted"}   # the terminal authorized the card (Direct payment rule 1)
        return super().id_token_info(session, id_token, current_tx=current_tx)

    def authorize_extras(self, session: StationSession, id_token: dict) -> dict:
        if id_token.get("type") == "DirectPayment" and self.direct_payment_tariff and session.version is OcppVersion.V21:
            return {"tariff": self.direct_payment_tariff}
        return super().authorize_extras(session, id_token)

    def transaction_answer(self, session: StationSession, payload: dict) -> dict:
        """Transaction event rule 1: a cancelled transaction without energy costs nothing."""
        answer = super().transaction_answer(session, payload)
        tx_id = payload["transactionInfo"]["transactionId"]
        for value in payload.get("meterValue", []):
            for sample in value["sampledValue"]:
                if sample.get("measurand", ENERGY) == ENERGY:
                    first = self.energy.get(tx_id, (sample["value"],))[0]
                    self.energy[tx_id] = (first, sample["value"])
        first, last = self.energy.get(tx_id, (0, 0))
        if payload["eventType"] == "Ended" and payload["triggerReason"] in CANCELLING and last <= first:
            answer["totalCost"] = 0.0
        return answer

    def on_NotifySettlement(self, _: StationSession, payload: dict) -> dict:
        if payload["status"] == "Settled" and terminal(self.profile).get("receipt_by_csms"):
            return {"receiptUrl": RECEIPTS + payload["pspRef"]}
        return {}

    def on_VatNumberValidation(self, _: StationSession, payload: dict) -> dict:
        known = terminal(self.profile).get("vat_number", {})
        answer: dict[str, Any] = {"vatNumber": payload["vatNumber"], "status": "Rejected"}
        if "evseId" in payload:
            answer["evseId"] = payload["evseId"]
        if known and payload["vatNumber"].casefold() == known["number"].casefold():
            answer |= {"status": "Accepted", "company": {k: v for k, v in known.items() if k != "number"}}
        return answer

    def transaction_limit(self, id_token: dict) -> dict | None:
        return self.paid.get(token_key(id_token)) or super().transaction_limit(id_token)

    async def _start_paid(self, evse_id: int, limit: dict, station: str | None, psp_ref: str | None = None) -> None:
        id_token = {"idToken": psp_ref or "PSP-" + secrets.token_hex(8).upper(), "type": "DirectPayment"}
        self.paid[token_key(id_token)] = limit
        await self.act_request_start_transaction(evse_id=evse_id, id_token=id_token, station=station)

    async def act_ad_hoc_payment(self, evse_id: int, amount: float, psp_ref: str | None = None,
                                 station: str | None = None) -> None:
        await self._start_paid(evse_id, {"maxCost": amount}, station, psp_ref)

    async def act_scan_qr_code(self, url: str, station: str | None = None) -> None:
        parameters = totp.parse_qr_url(url)
        session = self.session(station)
        qr = self.profile.get("qr_code", {})
        if parameters.get("chargingstationid") != session.identity or not totp.accepted(
                parameters.get("totp", ""), qr.get("totp_secret", "").encode(), clock.wall(),
                interval=qr.get("interval", 30), length=qr.get("length", 8)):
            return
        evse_id = int(parameters["evse"])

        async def pay() -> None:
            await session.connection.call("NotifyWebPaymentStarted", {"evseId": evse_id,
                                                                      "timeout": self.web_payment_timeout})
            await self._start_paid(evse_id, totp.transaction_limit(parameters), station)

        self.background.spawn(pay())
