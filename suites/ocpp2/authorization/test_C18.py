"""C18 — Authorization by the station's own payment terminal (2.1).

The driver pays at the terminal built into the station: it authorizes an amount on the card and gives
a payment reference. With PaymentCtrlr.AuthorizeDirectPayment true the station asks the CSMS with an
AuthorizeRequest whose idToken is that reference, of type DirectPayment, the card details in
additionalInfo; the CSMS validates it and may return a tariff (otherwise its default applies). With it
false no AuthorizeRequest is sent: the transaction starts with the payment token (spec 001 "Direct
payment and settlement" rule 1). The terminal is outside OCPP: the actuator action ``card_payment``
stands for it.

Reading chosen: the card of the profile's [payment_terminal] is one the CSMS takes, so a CSMS under test
answers its token Accepted, in the AuthorizeResponse and in the TransactionEvent that carries it.
"""

import pytest

from harness.roles import CS
from harness.rules import RuleTable, must
from harness.suite import case, checks
from harness.usecases.payment import DirectPayment, charges, is_direct_payment, paid_transaction, pay_at_terminal
from harness.verdict import check_equal, dig, require

TARIFF = {"tariffId": "DIRECT-0001", "currency": "EUR", "energy": {"prices": [{"priceKwh": 0.59}]}}


class C18(RuleTable):
    """The rules of C18 (spec 001 Direct payment and settlement rule 1)."""
    authorize = must("spec 001 Direct payment and settlement rule 1",
                     "with AuthorizeDirectPayment true, a payment at the terminal is asked about with AuthorizeRequest: "
                     "idToken of type DirectPayment holding the payment reference, the card details in additionalInfo",
                     by=CS)
    started = must("spec 001 Direct payment and settlement rule 1; Events: TransactionEventRequest",
                   "an accepted payment (with or without a tariff in the answer) starts the transaction with the "
                   "DirectPayment token once the cable is in", by=CS)
    unasked = must("spec 001 Direct payment and settlement rule 1",
                   "with AuthorizeDirectPayment false no AuthorizeRequest is sent: the transaction starts with the "
                   "DirectPayment token", by=CS)


pytestmark = case("C18", block="Authorization", roles=("csms", "cs"), protocols=("ocpp2.1",),
                  requires=["payment_terminal"])


@checks(C18.authorize, DirectPayment.accepted, C18.started)
async def test_card_payment_is_authorized(ocpp, profile):
    """The payment is asked about as a DirectPayment token with the card details, accepted, and charges."""
    evse = profile.evses[0].id
    authorized = await pay_at_terminal(ocpp, evse, C18.authorize)
    token = authorized.request["idToken"]
    require(is_direct_payment(authorized.request), C18.authorize, "the payment is not asked about as a DirectPayment "
            "token", expected="idToken.type DirectPayment (case-insensitive)", actual=token.get("type"))
    require(bool(token.get("additionalInfo")), C18.authorize, "the DirectPayment token carries no card details",
            expected="additionalInfo with the card details", actual=token)
    _charges_with(authorized, await charges(ocpp, evse, C18.started))


def _charges_with(authorized, started):
    """The transaction carries the payment reference the station asked about (idToken is case-insensitive)."""
    check_equal(C18.started, "idToken of the transaction (case-insensitive)",
                authorized.request["idToken"]["idToken"].casefold(),
                str(dig(started.request, "idToken.idToken", "")).casefold())


@checks(C18.started)
@pytest.mark.sut_roles("cs")
async def test_tariff_in_the_answer_starts_the_transaction(ocpp, profile):
    """The CSMS answers the payment with a tariff: the station charges under it."""
    ocpp.configure(direct_payment_tariff=TARIFF)
    _charges_with(*await paid_transaction(ocpp, profile.evses[0].id, C18.started))


@checks(C18.unasked, DirectPayment.accepted)
async def test_without_authorization_the_payment_starts_directly(ocpp, profile):
    """AuthorizeDirectPayment false: the cable in, the transaction carries the payment, and no AuthorizeRequest
    came before it (one would precede the transaction it decides: the wire log up to it is judged)."""
    evse = profile.evses[0].id
    start = ocpp.mark()
    await pay_at_terminal(ocpp, evse, C18.unasked, authorize=False)
    await charges(ocpp, evse, C18.unasked)
    if ocpp.is_sut(CS):
        await ocpp.expect_none("Authorize", after=start, rule=C18.unasked, within=0.01)
