"""C12 — Start of a transaction with an identifier from the authorization cache.

A token the station's cache holds as Accepted starts a transaction at once, without AuthorizeRequest
(AuthCtrlr.LocalPreAuthorize); the CSMS meets the token first in the TransactionEvent and SHALL check
it again, answering its status now (spec 001 Authorization rule 7): a token blocked since it was
cached is refused there, and the station then stops the transaction or suspends its energy
(StopTxOnInvalidId; moves "Offline-authorized transaction") — ConcurrentTx too, the status a
TransactionEvent Started alone can get. A token the cache holds with a refusal
is asked about again (AuthorizeRequest), and starts nothing while the CSMS refuses it; with
AuthCacheCtrlr.DisablePostAuthorize on, it is refused from the cache (not asked again: a SHOULD, the
variable's description holds no SHALL) and starts nothing.

The station under test gets its cache on and pre-authorizing for the test (AuthCacheCtrlr.Enabled,
AuthCtrlr.LocalPreAuthorize, put back afterwards) and emptied first (ClearCache), and needs
MaxEnergyOnInvalidId unset: with it set a refused cached start may legally go on to that energy.
"""

import pytest

from harness.roles import CS, CSMS
from harness.profile import TOKEN_STATUSES
from harness.rules import RuleTable, must, should
from harness.suite import OCPP2, TC, case, checks, needs
from harness.usecases.authorization import (Authorization, authorize, cached_start, carries, charge_once,
                                            never_starts_with, present_again, starts_with, station_cache_on,
                                            station_variable, token_with)
from harness.verdict import check_equal, dig, require


class C12(RuleTable):
    """The rules of C12 (spec 001 Authorization rule 7, moves "Offline-authorized transaction")."""
    cached_start = must("spec 001 Use cases C12; Authorization rule 7; AuthCtrlr.LocalPreAuthorize",
                        "a token the cache holds as Accepted starts a transaction without AuthorizeRequest", by=CS)
    rechecked = must("spec 001 Authorization rule 7",
                     "the CSMS answers the TransactionEvent of a cached start with the token's status now", by=CSMS)
    deauthorized = must("spec 001 Authorization rule 7; Moves: Offline-authorized transaction",
                        "a cached start the CSMS refuses is ended, or its energy stopped (triggerReason "
                        "Deauthorized, chargingState SuspendedEVSE)", by=CS)
    asked_again = must("spec 001 Authorization rule 7; OCPP 2.0.1 C12.FR.05, C10.FR.03",
                       "a token the cache holds with a refusal is asked about again with AuthorizeRequest, and starts "
                       "nothing while the CSMS refuses it", by=CS)

    refusal_final = must("spec 001 Authorization status values (every status but Accepted rejects charging); "
                         "OCPP 2.0.1 AuthCacheCtrlr.DisablePostAuthorize",
                         "with DisablePostAuthorize a token the cache holds refused starts nothing", by=CS)
    not_asked = should("OCPP 2.0.1 AuthCacheCtrlr.DisablePostAuthorize (disables asking about a cached refusal "
                       "again, C10.FR.03 and C12.FR.05); Part 6 TC_C_57_CS (no SHALL: a finding)",
                       "with DisablePostAuthorize a token the cache holds refused is not asked about again", by=CS)

pytestmark = case("C12", block="Authorization", roles=("csms", "cs"), protocols=OCPP2,
                  requires=["authorization_cache"])

STATIC_STATUSES = [s for s in TOKEN_STATUSES if s != "ConcurrentTx"]
REFUSALS = [s for s in STATIC_STATUSES if s != "Accepted"]
# the public test cases of a station presented a token its cache holds refused (OCPP 2.0.1 Part 6, block C)
CACHED_REFUSAL_CASES = {"Invalid": "TC_C_09_CS", "Blocked": "TC_C_10_CS", "Expired": "TC_C_11_CS"}


@pytest.mark.sut_roles("cs")
@checks(Authorization.sent, C12.cached_start, cs=TC("TC_C_33_CS", "ocpp2.0.1"))
@needs(lambda given: token_with(given.profile, "Accepted"))
async def test_cached_token_starts_without_authorize(ocpp, profile):
    """Charged once (so cached as Accepted), the token starts the next transaction without asking."""
    token, evse = token_with(profile, "Accepted"), profile.evses[0].id
    await station_cache_on(ocpp)
    await charge_once(ocpp, token, evse, C12.cached_start)
    start = await present_again(ocpp, token, evse)
    await starts_with(ocpp, token, start, C12.cached_start)
    await ocpp.expect_none("Authorize", after=start, rule=C12.cached_start)


@pytest.mark.sut_roles("cs")
@checks(Authorization.sent, C12.cached_start, cs=TC("TC_C_13_CS", "ocpp2.0.1"))
@needs(lambda given: token_with(given.profile, "Accepted"))
async def test_cached_token_before_the_cable_starts_once_plugged(ocpp, profile):
    """Charged once (so cached as Accepted), the token is presented before the cable: the station asks nobody,
    and the transaction carries the token once the cable is in."""
    token, evse = token_with(profile, "Accepted"), profile.evses[0].id
    await station_cache_on(ocpp)
    await charge_once(ocpp, token, evse, C12.cached_start)
    start = ocpp.mark()
    await ocpp.act(CS, "present_id_token", id_token=token.wire(), evse_id=evse)
    await ocpp.act(CS, "plug_in", evse_id=evse)
    await starts_with(ocpp, token, start, C12.cached_start)
    await ocpp.expect_none("Authorize", after=start, rule=C12.cached_start)


def _stopped(payload):
    """A TransactionEvent that ends the transaction or stops its energy."""
    return payload["eventType"] == "Ended" or payload["triggerReason"] == "Deauthorized" \
        or dig(payload, "transactionInfo.chargingState") == "SuspendedEVSE"


def _refused_at_start(profile, status):
    """The token the CSMS refuses with ``status`` at a transaction's start: the profile's, or for
    ConcurrentTx (a status only a TransactionEvent Started gets) an Accepted one."""
    return token_with(profile, "Accepted" if status == "ConcurrentTx" else status)


@pytest.mark.sut_roles("cs")
@pytest.mark.parametrize("status", REFUSALS + ["ConcurrentTx"])
@checks(Authorization.sent, C12.cached_start, C12.deauthorized)
@needs(lambda given: _refused_at_start(given.profile, given.params["status"]))
async def test_refused_cached_start_is_stopped(ocpp, profile, status):
    """The token was Accepted when cached; the CSMS now answers the cached start's TransactionEvent with
    ``status``: the station ends the transaction or suspends its energy."""
    token, evse = _refused_at_start(profile, status), profile.evses[0].id
    await station_cache_on(ocpp)
    ocpp.configure(token_status={token.id: "Accepted"})
    await charge_once(ocpp, token, evse, C12.cached_start)
    ocpp.configure(token_status={token.id: status})
    start = await present_again(ocpp, token, evse)
    started = await starts_with(ocpp, token, start, C12.cached_start)
    transaction = started.request["transactionInfo"]["transactionId"]
    await ocpp.expect("TransactionEvent", sender=CS, after=start, rule=C12.deauthorized,
                      where=lambda p: p["transactionInfo"]["transactionId"] == transaction and _stopped(p))


async def _refused_then_presented_again(ocpp, token, evse, rule):
    """The cable in, ``token`` is asked about and refused (so cached with the refusal) and starts nothing
    (``rule``); then it is presented again: returns the mark taken before."""
    await ocpp.act(CS, "plug_in", evse_id=evse)
    first = ocpp.mark()
    await authorize(ocpp, token, evse_id=evse)
    await never_starts_with(ocpp, token, first, rule)
    again = ocpp.mark()
    await ocpp.act(CS, "present_id_token", id_token=token.wire(), evse_id=evse)
    return again


def _cached_refusal_param(status):
    return pytest.param(status, marks=checks(Authorization.sent, C12.asked_again,
                                             cs=TC(CACHED_REFUSAL_CASES[status], "ocpp2.0.1")))


@pytest.mark.sut_roles("cs")
@pytest.mark.parametrize("status", [_cached_refusal_param(s) for s in CACHED_REFUSAL_CASES])
@needs(lambda given: token_with(given.profile, given.params["status"]))
async def test_cached_refusal_is_asked_again(ocpp, profile, status):
    """The cable in, the token is refused (so cached with the refusal) and starts nothing; presented again it
    is asked about again and, refused again, starts nothing either."""
    token = token_with(profile, status)
    await station_cache_on(ocpp)
    again = await _refused_then_presented_again(ocpp, token, profile.evses[0].id, C12.asked_again)
    await ocpp.expect("Authorize", sender=CS, after=again, rule=C12.asked_again, where=carries(token))
    await never_starts_with(ocpp, token, again, C12.asked_again)


@pytest.mark.sut_roles("cs")
@checks(Authorization.sent, C12.refusal_final, C12.not_asked, cs=TC("TC_C_57_CS", "ocpp2.0.1"))
@needs(lambda given: token_with(given.profile, "Invalid"))
async def test_cached_refusal_is_final_with_post_authorize_disabled(ocpp, profile):
    """AuthCacheCtrlr.DisablePostAuthorize on (not applicable when the station refuses it): the cable in, the
    token is refused (so cached with the refusal); presented again it starts nothing and, as the variable
    says, is not asked about again (a SHOULD: the variable's text holds no SHALL)."""
    token = token_with(profile, "Invalid")
    await station_cache_on(ocpp)
    await station_variable(ocpp, "AuthCacheCtrlr", "DisablePostAuthorize", "true")
    again = await _refused_then_presented_again(ocpp, token, profile.evses[0].id, C12.refusal_final)
    await never_starts_with(ocpp, token, again, C12.refusal_final)
    await ocpp.expect_none("Authorize", after=again, rule=C12.not_asked, where=carries(token))


@pytest.mark.sut_roles("csms")
@pytest.mark.parametrize("status", STATIC_STATUSES)
@checks(C12.rechecked,
        csms=(TC("TC_C_08_CSMS", "ocpp2.0.1", when="Accepted"), TC("TC_C_20_CSMS", "ocpp2.0.1", when="Invalid")))
@needs(lambda given: token_with(given.profile, given.params["status"]))
async def test_cached_start_is_checked_again(ocpp, profile, status):
    """The harness's station starts from its cache (no AuthorizeRequest): the CSMS answers the
    TransactionEvent Started with the status the token has now, as the profile gives it."""
    token = token_with(profile, status)
    _, event = await cached_start(ocpp, token, C12.rechecked)
    require("idTokenInfo" in (event.result or {}), C12.rechecked,
            "the TransactionEventResponse of a transaction with an idToken lacks idTokenInfo",
            expected="idTokenInfo", actual=event.result)
    check_equal(C12.rechecked, f"TransactionEventResponse idTokenInfo.status for the {token.name} token", status,
                dig(event.result, "idTokenInfo.status"))
