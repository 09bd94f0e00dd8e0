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
"""

from __future__ import annotations

import secrets
from typing import Any

from harness import clock
from harness.ocpp import totp
from harness.reference.common import V2X, Block
from harness.reference.model import EvseState
from harness.reference.tokens import token_key


class PaymentStation2x(Block):
    versions = V2X
    requires = ("TransactionsStation2x",)

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.web_payment_until: dict[int, float] = {}   # EVSE id → the clock.now() its lock ends

    def on_NotifyWebPaymentStarted(self, _: None, payload: dict) -> dict:
        self.web_payment_until[payload["evseId"]] = clock.now() + payload["timeout"]
        return {}

    async def start_transaction(self, state: EvseState, trigger: str, id_token: dict | None,
                                remote_start_id: int | None = None) -> None:
        if trigger != "RemoteStart" and clock.now() < self.web_payment_until.get(state.evse.id, 0):
            return   # a web payment holds the EVSE
        await super().start_transaction(state, trigger, id_token, remote_start_id)


class PaymentCsms2x(Block):
    versions = V2X
    requires = ("RemoteControlCsms2x", "TransactionsCsms2x")
    web_payment_timeout = 120   # seconds the station holds the EVSE while the driver pays

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.paid: dict[tuple[str, str], dict] = {}   # by token_key of a DirectPayment token: its transactionLimit

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
