"""C10 — Store authorization data in the authorization cache.

A station with its cache on keeps the idTokenInfo of every answer about a token (AuthorizeResponse,
TransactionEventResponse) and updates it from each new answer (spec 001 Authorization rule 7); an
entry past its cacheExpiryDateTime is not used (rule 8); with AuthCtrlr.LocalPreAuthorize false the
cache does not spare the AuthorizeRequest (OCPP 2.0.1 C10.FR.11). The CSMS leaves additionalInfo out
of idToken and groupIdToken in answers meant for caching (rule 8). Central and NoAuthorization tokens
are never cached (Remote start rule 1, Authorization rule 2): no presentation can show that on the
wire, so no test claims it; a prepaid token's entry expires at once (C17).

The station under test gets its cache on and pre-authorizing for the test (put back afterwards) and
emptied first (ClearCache).
"""

import pytest

from harness import clock
from harness.roles import CS, CSMS
from harness.errors import NotApplicable
from harness.rules import RuleTable, must
from harness.suite import OCPP2, TC, case, checks, needs
from harness.usecases.authorization import (Authorization, authorize, cached_start, carries, charge_once,
                                            present_again, starts_with, station_cache_on, station_variable,
                                            token_with)
from harness.verdict import dig, require


class C10(RuleTable):
    """The rules of C10 (spec 001 Authorization rules 7 and 8)."""
    updated = must("spec 001 Authorization rule 7 (the station updates its cache from the answer)",
                   "a token the CSMS refused in a TransactionEventResponse is no longer started from the cache: it "
                   "is asked about again", by=CS)
    expiry = must("spec 001 Authorization rule 8; IdTokenInfoType cacheExpiryDateTime",
                  "an entry past its cacheExpiryDateTime is not used: the token is asked about again", by=CS)
    pre_authorize = must("spec 001 Configuration variables (LocalPreAuthorize); OCPP 2.0.1 C10.FR.11",
                         "with LocalPreAuthorize false a cached token is still asked about before it starts", by=CS)
    no_additional_info = must("spec 001 Authorization rule 8",
                              "answers meant for caching carry no additionalInfo in idToken or groupIdToken", by=CSMS)


pytestmark = case("C10", block="Authorization", roles=("csms", "cs"), protocols=OCPP2,
                  requires=["authorization_cache"])


def _refused(profile):
    return token_with(profile, "Blocked")


@checks(Authorization.sent, C10.updated)
@pytest.mark.sut_roles("cs")
@needs(lambda given: _refused(given.profile))
async def test_cache_follows_transaction_event_answers(ocpp, profile):
    """Cached as Accepted, the token's cached start is answered Blocked; presented once more it is asked
    about again (its entry now says Blocked)."""
    token, evse = _refused(profile), profile.evses[0].id
    await station_cache_on(ocpp)
    ocpp.configure(token_status={token.id: "Accepted"})
    await charge_once(ocpp, token, evse, C10.updated)
    ocpp.configure(token_status={})
    start = await present_again(ocpp, token, evse)
    await starts_with(ocpp, token, start, C10.updated)
    await ocpp.expect("TransactionEvent", sender=CS, after=start, rule=C10.updated,
                      where=lambda p: p["eventType"] != "Started")   # ended or suspended: C12's to judge
    await ocpp.act(CS, "unplug", evse_id=evse)
    again = await present_again(ocpp, token, evse)
    await ocpp.expect("Authorize", sender=CS, after=again, rule=C10.updated, where=carries(token))


@checks(Authorization.sent, C10.expiry)
@pytest.mark.sut_roles("cs")
@needs(lambda given: token_with(given.profile, "Accepted"))
async def test_expired_entry_is_not_used(ocpp, profile):
    """The CSMS answers the token Accepted with cacheExpiryDateTime now: presented again later, it is asked
    about again."""
    token, evse = token_with(profile, "Accepted"), profile.evses[0].id
    await station_cache_on(ocpp)
    now = clock.utcnow().isoformat(timespec="seconds").replace("+00:00", "Z")
    ocpp.configure(id_token_info_extra={"cacheExpiryDateTime": now})
    await charge_once(ocpp, token, evse, C10.expiry)
    ocpp.configure(id_token_info_extra={})
    start = await present_again(ocpp, token, evse)
    await ocpp.expect("Authorize", sender=CS, after=start, rule=C10.expiry, where=carries(token))


@checks(Authorization.sent, C10.pre_authorize, cs=TC("TC_C_36_CS", "ocpp2.0.1"))
@pytest.mark.sut_roles("cs")
@needs(lambda given: token_with(given.profile, "Accepted"))
async def test_cache_without_local_pre_authorize_asks(ocpp, profile):
    """Cached as Accepted, the token is still asked about when LocalPreAuthorize is false."""
    token, evse = token_with(profile, "Accepted"), profile.evses[0].id
    await station_cache_on(ocpp)
    await charge_once(ocpp, token, evse, C10.pre_authorize)
    await station_variable(ocpp, "AuthCtrlr", "LocalPreAuthorize", "false")
    start = await present_again(ocpp, token, evse)
    await ocpp.expect("Authorize", sender=CS, after=start, rule=C10.pre_authorize, where=carries(token))


def _grouped(profile):
    token = next((t for t in profile.tokens.values() if t.group and t.status == "Accepted" and not t.also), None)
    if token is None:
        raise NotApplicable("the profile declares no Accepted token with a group")
    return token


@pytest.mark.sut_roles("csms")
@pytest.mark.parametrize("answer", ["Authorize", "TransactionEvent"])
@checks(C10.no_additional_info)
@needs(lambda given: _grouped(given.profile))
async def test_answers_for_the_cache_carry_no_additional_info(ocpp, profile, answer):
    """A grouped token presented with additionalInfo: the answer's groupIdToken carries none (it is what a
    station caches). The groupIdToken's presence is C09's to judge; here only what it carries."""
    token = _grouped(profile)
    id_token = token.wire() | {"additionalInfo": [{"additionalIdToken": "EVCC-0A1B2C3D", "type": "EVCCID"}]}
    if answer == "Authorize":
        exchange = await authorize(ocpp, id_token)
    else:
        _, exchange = await cached_start(ocpp, id_token, C10.no_additional_info)
    group = dig(exchange.result, "idTokenInfo.groupIdToken", {})   # its presence is C09's to judge
    require("additionalInfo" not in group, C10.no_additional_info,
            f"{answer}Response idTokenInfo.groupIdToken carries additionalInfo", expected="no additionalInfo",
            actual=group)
