"""Payment started at the CSMS (2.1): an ad hoc payment at a stand-alone terminal (C24) and a QR code
scanned by the driver (C25); both end in a remote start with an idToken of type DirectPayment, whose
transaction is limited to what was paid for.

CSMS (spec 001 Remote start rule 3, "QR-code payment"): ``ad_hoc_payment`` — the terminal authorized
``amount`` for ``evse_id`` — sends RequestStartTransaction with a DirectPayment token (the payment
reference) and answers the Started event with transactionLimit.maxCost = amount. ``scan_qr_code`` — the
driver's phone opened the URL of the station's QR code (``harness.ocpp.totp``) and paid — checks the
station identity and the TOTP (the current, previous or next interval, with the profile's [qr_code]
secret, interval and length) and only then starts the same way, its Started event answered with the
URL's maxenergy, maxtime and maxcost as transactionLimit; an invalid code starts nothing. The payment
page itself (the PSP) is outside OCPP: these actions stand for the paid outcome.
"""

from __future__ import annotations

import secrets
from typing import Any

from harness import clock
from harness.ocpp import totp
from harness.reference.common import V2X, Block
from harness.reference.tokens import token_key


class PaymentCsms2x(Block):
    versions = V2X
    requires = ("RemoteControlCsms2x", "TransactionsCsms2x")

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
        await self._start_paid(int(parameters["evse"]), totp.transaction_limit(parameters), station)
