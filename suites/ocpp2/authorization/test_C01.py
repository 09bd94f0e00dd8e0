"""C01 — EV driver authorization using RFID (and the order of checks of the CSMS's decision).

A station asks about the token presented to it; the CSMS decides in a fixed order (unknown →
Invalid, blocked → Blocked, expired → Expired, in a transaction → ConcurrentTx, wrong station →
NotAtThisLocation, wrong EVSE type → NotAllowedTypeEVSE, EVSE-restricted → Accepted with evseId,
else Accepted), answers a grouped token with its group and checks a TransactionEvent's token
again; a station charges only for an accepted token.

ConcurrentTx is judged where the 2.x texts put it: on the TransactionEvent Started of a second
transaction with the token (AuthorizationStatusEnumType: "only relevant for the response to a
TransactionEventRequest(eventType=Started)"). An AuthorizeRequest for a token already charging is
answered Accepted (a driver also authorizes to stop) or ConcurrentTx (step 4 of the order of checks
read as applying to every decision): both readings are accepted.
"""

import pytest

from harness.arena import CS, CSMS
from harness.errors import NotApplicable
from harness.profile import TOKEN_STATUSES
from harness.rules import RuleTable, must
from harness.suite import OCPP2, TC, case, checks, needs
from harness.usecases.authorization import Authorization, authorize, check_presented_token
from harness.verdict import check_equal, check_in, dig, require


class C01(RuleTable):
    """The rules of C01 (spec 001 Order of checks, Authorization rules 5 and 7, status values)."""
    presented = must("spec 001 Events: AuthorizeRequest; IdTokenType (C01.FR.01)",
                     "the station asks about the token that was presented, with its idToken and type", by=CS)
    status = must("spec 001 Order of checks; AuthorizeResponse (C01.FR.07)",
                  "the AuthorizeResponse carries the status the order of checks gives the token", by=CSMS)
    evse_restriction = must("spec 001 Order of checks, step 7",
                            "a token allowed only at certain EVSEs is Accepted with evseId listing them", by=CSMS)
    blocked_first = must("spec 001 Order of checks, steps 2 and 3", "a token both blocked and expired is Blocked",
                         by=CSMS)
    concurrent = must("spec 001 Order of checks, step 4; OCPP 2.0.1 AuthorizationStatusEnumType (ConcurrentTx)",
                      "the TransactionEvent Started of a second transaction with a valid token already in an "
                      "active transaction is answered ConcurrentTx", by=CSMS)
    group = must("spec 001 Authorization rule 5 (C09)",
                 "a token's groupIdToken is in the AuthorizeResponse and the TransactionEventResponse", by=CSMS)
    event_token = must("spec 001 Authorization rule 7 (C12, C14)",
                       "the CSMS checks the token of a TransactionEvent again and answers its status", by=CSMS)
    accepted_starts = must("spec 001 Authorization status values (Accepted allows charging)",
                           "an accepted driver's transaction starts, with the token, once the cable is in", by=CS)
    rejected_no_start = must("spec 001 Authorization status values (every other status rejects charging)",
                             "a rejected token starts no transaction", by=CS)


pytestmark = case("C01", block="Authorization", roles=("csms", "cs"), protocols=OCPP2)

STATIC_STATUSES = [s for s in TOKEN_STATUSES if s != "ConcurrentTx"]
# the public test case that asks a CSMS for each status (OCPP 2.0.1 Part 6, block C)
STATUS_CASES = {"Invalid": "TC_C_02_CSMS", "Blocked": "TC_C_06_CSMS", "Expired": "TC_C_07_CSMS"}


def _token_with(profile, status):
    tokens = [t for t in profile.tokens_with(status) if not t.also]
    if not tokens:
        raise NotApplicable(f"the profile declares no idToken that must get status {status}")
    return tokens[0]


def _blocked_and_expired(profile):
    tokens = [t for t in profile.tokens_with("Blocked") if "Expired" in t.also]
    if not tokens:
        raise NotApplicable("the profile declares no token that is both blocked and expired "
                            "(status = \"Blocked\", also = [\"Expired\"])")
    return tokens[0]


def _grouped(profile):
    grouped = [t for t in profile.tokens.values() if t.group and t.status == "Accepted"]
    if not grouped:
        raise NotApplicable("the profile declares no accepted idToken with a group")
    return grouped[0]


def _two_evses(profile):
    if len(profile.evses) < 2:
        raise NotApplicable("ConcurrentTx needs a second EVSE; the profile declares one")


async def _harness_station_starts(ocpp, profile, token, rule, evse=None):
    """The harness's station starts a transaction with ``token`` on ``evse`` (default: the first),
    accepted from its own cache (no AuthorizeRequest: the CSMS meets the token in the TransactionEvent
    first); returns its EVSE and the TransactionEvent Started. ``rule`` is the rule the test judges (the
    harness's own silence would be a harness error, never the SUT's)."""
    evse = evse or profile.evses[0].id
    start = ocpp.mark()
    ocpp.configure(local_authorization=True)
    await ocpp.act("cs", "plug_in", evse_id=evse)
    await ocpp.act("cs", "present_id_token", id_token=token.wire(), evse_id=evse)
    event = await ocpp.expect("TransactionEvent", sender="cs", after=start, rule=rule,
                              where=lambda p: p["eventType"] == "Started" and p["evse"]["id"] == evse)
    return evse, event


def _status_param(status):
    """A CSMS is judged on its answer, a station on the request it sends."""
    certification = {"csms": TC(STATUS_CASES[status], "ocpp2.0.1")} if status in STATUS_CASES else {}
    return pytest.param(status, marks=checks(C01.status, C01.evse_restriction, Authorization.sent, C01.presented,
                                             **certification))


@pytest.mark.parametrize("status", [_status_param(s) for s in STATIC_STATUSES])
@needs(lambda given: _token_with(given.profile, given.params["status"]))
async def test_presented_token_gets_its_status(ocpp, profile, status):
    """Each token of the profile is answered with the status the profile says it must get."""
    token = _token_with(profile, status)
    exchange = await authorize(ocpp, token)
    if ocpp.is_sut(CS):
        check_presented_token(exchange, token, C01.presented)
        return
    info = exchange.response["idTokenInfo"]
    check_equal(C01.status, f"idTokenInfo.status for the {token.name} token", status, info["status"])
    if status == "Accepted" and token.evse_ids:
        check_equal(C01.evse_restriction, "idTokenInfo.evseId", sorted(token.evse_ids), sorted(info.get("evseId", [])))


@checks(C01.blocked_first)
@pytest.mark.sut_roles("csms")
@needs(lambda given: _blocked_and_expired(given.profile))
async def test_blocked_is_checked_before_expired(ocpp, profile):
    """A token that is both blocked and expired is Blocked: step 2 comes before step 3."""
    exchange = await authorize(ocpp, _blocked_and_expired(profile))
    check_equal(C01.blocked_first, "idTokenInfo.status of a token both blocked and expired", "Blocked",
                exchange.response["idTokenInfo"]["status"])


@checks(C01.concurrent, C01.status)
@pytest.mark.sut_roles("csms")
@needs(lambda given: _two_evses(given.profile), lambda given: _token_with(given.profile, "Accepted"))
async def test_token_in_a_transaction_is_concurrent(ocpp, profile):
    """A valid token already charging on one EVSE starts a second transaction on another: its
    TransactionEvent Started is answered ConcurrentTx (step 4). Authorized meanwhile, the token gets
    Accepted or ConcurrentTx (both readings, see the module's docstring), never another status."""
    token = _token_with(profile, "Accepted")
    await _harness_station_starts(ocpp, profile, token, C01.concurrent)
    exchange = await authorize(ocpp, token)
    check_in(C01.status, "idTokenInfo.status of an AuthorizeRequest for a token already in a transaction",
             {"Accepted", "ConcurrentTx"}, dig(exchange.response, "idTokenInfo.status"))
    _, second = await _harness_station_starts(ocpp, profile, token, C01.concurrent, evse=profile.evses[1].id)
    check_equal(C01.concurrent, "TransactionEventResponse idTokenInfo.status of a second transaction with the token",
                "ConcurrentTx", dig(second.response, "idTokenInfo.status"))


@checks(C01.group)
@pytest.mark.sut_roles("csms")
@needs(lambda given: _grouped(given.profile))
async def test_group_token_is_answered_with_its_group(ocpp, profile):
    """AuthorizeResponse and TransactionEventResponse carry the token's groupIdToken (rule 5)."""
    token = _grouped(profile)
    exchange = await authorize(ocpp, token)
    group = dig(exchange.response, "idTokenInfo.groupIdToken.idToken")
    require(group is not None and group.casefold() == token.group.casefold(),
            C01.group, "AuthorizeResponse lacks the token's groupIdToken",
            expected=token.group, actual=dig(exchange.response, "idTokenInfo.groupIdToken"))
    _, event = await _harness_station_starts(ocpp, profile, token, C01.group)
    group = dig(event.response, "idTokenInfo.groupIdToken.idToken")
    require(group is not None and group.casefold() == token.group.casefold(),
            C01.group, "TransactionEventResponse lacks the token's groupIdToken",
            expected=token.group, actual=dig(event.response, "idTokenInfo"))


@checks(C01.event_token)
@pytest.mark.sut_roles("csms")
@needs(lambda given: _token_with(given.profile, "Blocked"))
async def test_token_is_checked_again_in_transaction_event(ocpp, profile):
    """A blocked token that arrives in a TransactionEvent is answered Blocked (rule 7)."""
    token = _token_with(profile, "Blocked")
    _, event = await _harness_station_starts(ocpp, profile, token, C01.event_token)
    check_equal(C01.event_token, "TransactionEventResponse idTokenInfo.status", "Blocked",
                dig(event.response, "idTokenInfo.status"))


@pytest.mark.sut_roles("cs")
@pytest.mark.parametrize("accepted", [
    pytest.param(True, id="accepted", marks=checks(Authorization.sent, C01.presented, C01.accepted_starts)),
    pytest.param(False, id="rejected", marks=checks(Authorization.sent, C01.presented, C01.rejected_no_start)),
])
@needs(lambda given: _token_with(given.profile, "Accepted" if given.params["accepted"] else "Invalid"))
async def test_station_starts_only_for_an_accepted_token(ocpp, profile, accepted):
    """Card then cable: a transaction starts with the token only when the CSMS accepted it."""
    token = _token_with(profile, "Accepted" if accepted else "Invalid")
    evse = profile.evses[0].id
    exchange = await authorize(ocpp, token, evse_id=evse)
    check_presented_token(exchange, token, C01.presented)
    start = ocpp.mark()
    await ocpp.act("cs", "plug_in", evse_id=evse)
    started = lambda p: p["eventType"] == "Started" or dig(p, "idToken.idToken", "").casefold() == token.id.casefold()
    if accepted:
        event = await ocpp.expect("TransactionEvent", sender="cs", after=start, where=started,
                                  rule=C01.accepted_starts)
        check_equal(C01.accepted_starts, "TransactionEvent idToken.idToken", token.id.casefold(),
                    dig(event.request, "idToken.idToken", "").casefold())
    else:
        await ocpp.expect_none("TransactionEvent", after=start,
                               where=lambda p: dig(p, "idToken.idToken", "").casefold() == token.id.casefold(),
                               rule=C01.rejected_no_start)
