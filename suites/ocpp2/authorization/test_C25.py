"""C25 — Ad hoc payment by a dynamic QR code (2.1).

The driver scans the station's QR code: a URL with chargingstationid, evse, totp and version, and
optionally maxenergy, maxtime and maxcost. The CSMS checks the TOTP — HMAC-SHA256 in base62 — against
the station's secret, accepting the current, the previous and the next interval, and starts nothing
for any other code; after payment it starts the transaction with an idToken of type DirectPayment
and answers its Started event with the URL's limits as transactionLimit (spec 001 "QR-code payment").

The harness builds the URL as the profile's [qr_code] says (the TOTP's input, interval and URL are
left open by the text: ``harness.ocpp.totp`` documents the construction) and hands it to the CSMS
with the actuator action ``scan_qr_code``, which stands for the driver's phone opening it and paying.
A code is built at least a call timeout before its interval ends (else after it), so that the
interval it was meant for is the one the CSMS sees.
"""


import pytest

from harness import clock
from harness.roles import CS, CSMS
from harness.errors import HarnessError, NotApplicable, clip
from harness.ocpp import totp
from harness.ocpp.equivalence import same
from harness.rules import RuleTable, must
from harness.suite import case, checks, needs
from harness.usecases.local_list import carries, plain_token
from harness.usecases.payment import paid_start
from harness.verdict import check_equal, dig

LIMITS = {"maxcost": 12.5, "maxenergy": 20000.0, "maxtime": 3600}
WEB_PAYMENT_REFUSALS = ("NotSupported", "NotImplemented")   # a station without web payment


class C25(RuleTable):
    """The rules of C25 (spec 001 QR-code payment rules 2, 4 and 5)."""
    started = must("spec 001 QR-code payment rules 2 and 5",
                   "a QR code with the TOTP of the current, previous or next interval leads to a "
                   "RequestStartTransaction with an idToken of type DirectPayment for the EVSE of the code", by=CSMS)
    refused = must("spec 001 QR-code payment rule 2", "a QR code with any other TOTP starts no transaction", by=CSMS)
    web_payment = must("spec 001 QR-code payment rule 5",
                       "a NotifyWebPaymentStarted the CSMS sends for a scanned code names the code's EVSE and a "
                       "timeout", by=CSMS)
    locked = must("spec 001 Moves: Web payment (NotifyWebPaymentStarted: EVSE locked for timeout seconds)",
                  "while a web payment holds the EVSE no driver's transaction starts there", by=CS)
    limits = must("spec 001 QR-code payment rule 4",
                  "the URL's maxenergy, maxtime and maxcost are the transactionLimit of the TransactionEventResponse "
                  "of the paid transaction, its token Accepted", by=CSMS)


pytestmark = case("C25", block="Authorization", roles=("csms", "cs"), protocols=("ocpp2.1",))


def _qr(profile):
    qr = profile.get("qr_code")
    if not qr:
        raise NotApplicable("the profile declares no [qr_code] (the station's TOTP secret, interval and length)")
    return qr


async def _url(ocpp, profile, offset=0, code=None, **limits):
    """The URL of the first EVSE's QR code with the TOTP ``offset`` intervals from now (or ``code``)."""
    qr = _qr(profile)
    interval = qr.get("interval", 30)
    left = interval - clock.wall() % interval
    if left < ocpp.timeouts.call:
        await ocpp.elapse(left)   # too close to the end of this interval: build the code in the next one
    code = code or totp.totp(qr["totp_secret"].encode(), clock.wall(), interval=interval,
                             length=qr.get("length", 8), offset=offset)
    return totp.qr_url(qr.get("url", "https://pay.example/qr"), profile.identity, profile.evses[0].id, code,
                       version=qr.get("version", "1"), **limits)


@pytest.mark.sut_roles("csms")
@pytest.mark.parametrize("offset", [pytest.param(o, id=name, marks=checks(C25.started, C25.web_payment, C25.limits))
                                    for o, name in ((0, "current"), (-1, "previous"), (1, "next"))])
@needs(lambda given: _qr(given.profile))
async def test_valid_code_starts_a_paid_transaction(ocpp, profile, offset):
    """The CSMS starts a DirectPayment transaction on the code's EVSE and limits it as the URL says."""
    url = await _url(ocpp, profile, offset, **LIMITS)
    start = ocpp.mark()
    request = await ocpp.exchange(CSMS, "RequestStartTransaction", trigger=("scan_qr_code", {"url": url}),
                                  rule=C25.started)
    check_equal(C25.started, "RequestStartTransactionRequest idToken.type", "DirectPayment",
                dig(request.request, "idToken.type"))
    check_equal(C25.started, "RequestStartTransactionRequest evseId", profile.evses[0].id,
                request.request.get("evseId"))
    notified = await ocpp.next_call("NotifyWebPaymentStarted", sender=ocpp.harness_role, within=0.01,
                                    after=start)   # it may send one (rule 5), before the start
    if notified is not None:
        check_equal(C25.web_payment, "NotifyWebPaymentStartedRequest evseId", profile.evses[0].id,
                    notified.request.get("evseId"))
    event = await paid_start(ocpp, request, start, C25.limits)
    check_equal(C25.limits, "TransactionEventResponse transactionLimit",
                {totp.TRANSACTION_LIMIT[k]: v for k, v in LIMITS.items()}, dig(event.result, "transactionLimit"),
                same=same(ocpp.version))


@pytest.mark.sut_roles("csms")
@pytest.mark.parametrize("offset", [pytest.param(o, id=name, marks=checks(C25.refused))
                                    for o, name in ((-2, "two_intervals_ago"), (2, "two_intervals_ahead"),
                                                    (None, "not_a_code"))])
@needs(lambda given: _qr(given.profile))
async def test_other_code_starts_nothing(ocpp, profile, offset):
    """A code two intervals off, or one that is no TOTP at all, starts no transaction."""
    length = _qr(profile).get("length", 8)
    url = await _url(ocpp, profile, offset or 0, code=None if offset is not None else "0" * length)
    start = ocpp.mark()
    await ocpp.act(CSMS, "scan_qr_code", url=url)
    await ocpp.expect_none("RequestStartTransaction", after=start, rule=C25.refused)


@checks(C25.locked)
@pytest.mark.sut_roles("cs")
@pytest.mark.requires("web_payment")
@needs(lambda given: plain_token(given.profile, "Accepted"))
async def test_web_payment_holds_the_evse(ocpp, profile):
    """NotifyWebPaymentStarted for the first EVSE; meanwhile a driver presents an accepted token there and
    plugs in: no transaction starts. The hold is a little longer than the watch, and the test waits it out
    so that the station is free again when it ends. Web payment is optional (the CSMS "may" send the
    message, spec 001 QR-code payment rule 5): a station that refuses it is not judged on the lock."""
    token, evse = plain_token(profile, "Accepted"), profile.evses[0].id
    hold = int(ocpp.timeouts.quiet) + 2
    notified = await ocpp.exchange(CSMS, "NotifyWebPaymentStarted", {"evseId": evse, "timeout": hold})
    _web_payment_taken(notified)
    held_until = clock.now() + hold
    start = ocpp.mark()
    await ocpp.act(CS, "present_id_token", id_token=token.wire(), evse_id=evse)
    await ocpp.act(CS, "plug_in", evse_id=evse)
    await ocpp.expect_none("TransactionEvent", after=start, where=carries(token, "Started"), rule=C25.locked)
    await ocpp.elapse(max(0.0, held_until - clock.now()))


def _web_payment_taken(notified) -> None:
    """The station took the web payment: a station without the optional feature refuses the message with
    CALLERROR NotSupported or NotImplemented (the codes of OCPP-J for a message it does not support), and
    the lock does not apply to it; any other CALLERROR leaves the test without its prerequisite."""
    if notified.error is None:
        return
    code = notified.error.code
    if code in WEB_PAYMENT_REFUSALS:
        raise NotApplicable(f"the station answered NotifyWebPaymentStarted with CALLERROR {code}: it does not "
                            f"take web payments (optional in C25)")
    raise HarnessError(f"prerequisite failed: the station answered NotifyWebPaymentStarted with CALLERROR {code} "
                       f"({clip(notified.error.description, 200)!r}); the test needs the web payment taken")
