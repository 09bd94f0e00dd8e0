"""C17 — Prepaid card.

A prepaid token is answered NoCredit at a balance of zero or below and Accepted above it, in both
cases with cacheExpiryDateTime equal to the time of the answer, so that the station never charges on a
cached prepaid decision (spec 001 moves "Prepaid token", Authorization rule 8). The first
TransactionEvent Started of a prepaid transaction is answered with transactionLimit.maxCost equal to
the remaining balance. A station starts nothing for a NoCredit token. C17 is 2.1's: the C block of
2.0.1 ends at C16.

The profile's prepaid tokens carry their balance (``balance``); the "response time" is read on the
harness's clock between sending the request and receiving the answer, with the call timeout as the
tolerance for the two systems' clocks.
"""

from datetime import datetime, timedelta

import pytest

from harness import clock
from harness.roles import CS, CSMS
from harness.errors import NotApplicable
from harness.rules import RuleTable, must
from harness.suite import case, checks, needs
from harness.usecases.authorization import Authorization, authorize, check_presented_token
from harness.usecases.local_list import carries
from harness.verdict import check_equal, dig, require


class C17(RuleTable):
    """The rules of C17 (spec 001 moves "Prepaid token", "Prepaid transaction"; Authorization rule 8)."""
    presented = must("spec 001 Events: AuthorizeRequest", "the station asks about the prepaid token presented",
                     by=CS)
    status = must("spec 001 Moves: Prepaid token",
                  "a prepaid token is NoCredit at a balance of zero or below and Accepted above it", by=CSMS)
    expires = must("spec 001 Moves: Prepaid token; Authorization rule 8",
                   "a prepaid token's idTokenInfo carries cacheExpiryDateTime equal to the time of the answer", by=CSMS)
    max_cost = must("spec 001 Moves: Prepaid transaction (first time only)",
                    "the first TransactionEvent Started of a prepaid transaction is answered with "
                    "transactionLimit.maxCost equal to the remaining balance", by=CSMS)
    no_start = must("spec 001 Authorization status values (NoCredit rejects charging)",
                    "a token answered NoCredit starts no transaction", by=CS)


pytestmark = case("C17", block="Authorization", roles=("csms", "cs"), protocols=("ocpp2.1",))


def _prepaid(profile, credit):
    tokens = [t for t in profile.tokens.values() if t.balance is not None and (t.balance > 0) == credit
              and t.status == ("Accepted" if credit else "NoCredit")]
    if not tokens:
        raise NotApplicable(f"the profile declares no prepaid idToken (with a balance) {'above' if credit else 'at'} "
                            f"zero")
    return tokens[0]


def _instant(value):
    try:
        return datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    except ValueError:
        return None


@pytest.mark.parametrize("credit", [
    pytest.param(True, id="credit", marks=checks(C17.status, C17.expires, Authorization.sent, C17.presented)),
    pytest.param(False, id="no_credit", marks=checks(C17.status, C17.expires, Authorization.sent, C17.presented)),
])
@needs(lambda given: _prepaid(given.profile, given.params["credit"]))
async def test_prepaid_answer_expires_at_once(ocpp, profile, credit):
    """A prepaid token is Accepted or NoCredit as its balance says, with cacheExpiryDateTime at the time of
    the answer; a station is judged on the token it asks about."""
    token = _prepaid(profile, credit)
    sent = clock.utcnow()
    exchange = await authorize(ocpp, token)
    answered = clock.utcnow()
    if ocpp.is_sut(CS):
        check_presented_token(exchange, token, C17.presented)
        return
    check_equal(C17.status, f"idTokenInfo.status of the prepaid token {token.name} (balance {token.balance:g})",
                token.status, dig(exchange.result, "idTokenInfo.status"))
    expiry = dig(exchange.result, "idTokenInfo.cacheExpiryDateTime")
    tolerance = timedelta(seconds=ocpp.timeouts.call)
    instant = _instant(expiry)
    require(instant is not None and sent - tolerance <= instant <= answered + tolerance, C17.expires,
            "a prepaid token's cacheExpiryDateTime is not the time of the answer",
            expected=f"between {sent.isoformat()} and {answered.isoformat()} (± {tolerance.seconds} s)", actual=expiry)


@checks(C17.max_cost)
@pytest.mark.sut_roles("csms")
@needs(lambda given: _prepaid(given.profile, True))
async def test_prepaid_transaction_is_limited_to_its_balance(ocpp, profile):
    """The harness's station starts a transaction with the prepaid token (from its own list): the Started
    event is answered with transactionLimit.maxCost equal to the balance."""
    token, evse = _prepaid(profile, True), profile.evses[0].id
    ocpp.configure(local_authorization=True)
    start = ocpp.mark()
    await ocpp.act(CS, "plug_in", evse_id=evse)
    await ocpp.act(CS, "present_id_token", id_token=token.wire(), evse_id=evse)
    event = await ocpp.expect("TransactionEvent", sender=CS, after=start, where=carries(token, "Started"))
    check_equal(C17.max_cost, "TransactionEventResponse transactionLimit.maxCost of the first Started event",
                token.balance, dig(event.result, "transactionLimit.maxCost"))


@checks(C17.no_start)
@pytest.mark.sut_roles("cs")
@needs(lambda given: _prepaid(given.profile, False))
async def test_no_credit_starts_no_transaction(ocpp, profile):
    """A prepaid token without credit, then the cable: the CSMS answers NoCredit and nothing starts."""
    token, evse = _prepaid(profile, False), profile.evses[0].id
    start = ocpp.mark()
    await ocpp.act(CS, "present_id_token", id_token=token.wire(), evse_id=evse)
    await ocpp.act(CS, "plug_in", evse_id=evse)
    await ocpp.expect_none("TransactionEvent", after=start, where=carries(token), rule=C17.no_start)
