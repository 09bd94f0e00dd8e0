"""C01 — EV driver authorization using RFID (and the order of checks of the CSMS's decision).

Rules (spec 001): the AuthorizeResponse carries an authorization status (C01.FR.07); the CSMS
decides in a fixed order: unknown → Invalid, blocked → Blocked, expired → Expired, already in a
transaction → ConcurrentTx, wrong station → NotAtThisLocation, wrong EVSE type →
NotAllowedTypeEVSE, EVSE-restricted → Accepted with evseId, else Accepted ("Order of checks");
a token in a group is answered with groupIdToken (Authorization rule 5); a token in a
TransactionEvent is checked again (Authorization rule 7).
"""

import pytest

from harness.arena import CS
from harness.errors import NotApplicable
from harness.profile import TOKEN_STATUSES
from harness.suite import OCPP2, case
from harness.usecases.authorization import authorize, check_presented_token
from harness.verdict import check_equal, dig, require

pytestmark = case("C01", block="Authorization", roles=("csms", "cs"), protocols=OCPP2,
                  certification={"csms": "TC_C_02_CSMS"})

STATIC_STATUSES = [s for s in TOKEN_STATUSES if s != "ConcurrentTx"]


def _token_with(profile, status):
    tokens = [t for t in profile.tokens_with(status) if not t.also]
    if not tokens:
        raise NotApplicable(f"the profile declares no idToken that must get status {status}")
    return tokens[0]


async def _harness_station_starts(ocpp, profile, token):
    """The harness's station starts a transaction with ``token`` (cable in, card presented)."""
    state = ocpp.harness.evses[profile.evses[0].id]
    start = ocpp.mark()
    state.plugged = True
    await ocpp.harness.start_transaction(state, "Authorized", token.wire())
    return state, await ocpp.expect("TransactionEvent", after=start, rule="C01")


@pytest.mark.parametrize("status", STATIC_STATUSES)
async def test_presented_token_gets_its_status(ocpp, profile, status):
    """Each token of the profile is answered with the status the profile says it must get."""
    token = _token_with(profile, status)
    exchange = await authorize(ocpp, token)
    if ocpp.is_sut(CS):
        check_presented_token(exchange, token, "C01.FR.01: the station sends the presented idToken")
        return
    info = exchange.response["idTokenInfo"]
    check_equal("C01.FR.07 / order of checks", f"idTokenInfo.status for the {token.name} token", status, info["status"])
    if status == "Accepted" and token.evse_ids:
        check_equal("order of checks step 7: Accepted with evseId", "idTokenInfo.evseId",
                    sorted(token.evse_ids), sorted(info.get("evseId", [])))


@pytest.mark.sut_roles("csms")
async def test_blocked_is_checked_before_expired(ocpp, profile):
    """A token that is both blocked and expired is Blocked: step 2 comes before step 3."""
    tokens = [t for t in profile.tokens_with("Blocked") if "Expired" in t.also]
    if not tokens:
        raise NotApplicable("the profile declares no token that is both blocked and expired "
                            "(status = \"Blocked\", also = [\"Expired\"])")
    exchange = await authorize(ocpp, tokens[0])
    check_equal("order of checks: Blocked (2) before Expired (3)", "idTokenInfo.status", "Blocked",
                exchange.response["idTokenInfo"]["status"])


@pytest.mark.sut_roles("csms")
async def test_token_in_a_transaction_is_concurrent(ocpp, profile):
    """A valid token already in an active transaction gets ConcurrentTx (step 4)."""
    token = _token_with(profile, "Accepted")
    state, _ = await _harness_station_starts(ocpp, profile, token)
    exchange = await authorize(ocpp, token)
    check_equal("order of checks step 4: ConcurrentTx", "idTokenInfo.status", "ConcurrentTx",
                exchange.response["idTokenInfo"]["status"])
    await ocpp.harness.end_transaction(state, "StopAuthorized", "Local", token.wire())


@pytest.mark.sut_roles("csms")
async def test_group_token_is_answered_with_its_group(ocpp, profile):
    """AuthorizeResponse and TransactionEventResponse carry the token's groupIdToken (rule 5)."""
    grouped = [t for t in profile.tokens.values() if t.group and t.status == "Accepted"]
    if not grouped:
        raise NotApplicable("the profile declares no accepted idToken with a group")
    token = grouped[0]
    exchange = await authorize(ocpp, token)
    group = dig(exchange.response, "idTokenInfo.groupIdToken.idToken")
    require(group is not None and group.casefold() == token.group.casefold(),
            "C09 / authorization rule 5", "AuthorizeResponse lacks the token's groupIdToken",
            expected=token.group, actual=dig(exchange.response, "idTokenInfo.groupIdToken"))
    state, event = await _harness_station_starts(ocpp, profile, token)
    group = dig(event.response, "idTokenInfo.groupIdToken.idToken")
    require(group is not None and group.casefold() == token.group.casefold(),
            "C09 / authorization rule 5", "TransactionEventResponse lacks the token's groupIdToken",
            expected=token.group, actual=dig(event.response, "idTokenInfo"))
    await ocpp.harness.end_transaction(state, "StopAuthorized", "Local", token.wire())


@pytest.mark.sut_roles("csms")
async def test_token_is_checked_again_in_transaction_event(ocpp, profile):
    """A blocked token that arrives in a TransactionEvent is answered Blocked (rule 7)."""
    token = _token_with(profile, "Blocked")
    _, event = await _harness_station_starts(ocpp, profile, token)
    check_equal("authorization rule 7: the CSMS SHALL check the token of a TransactionEvent",
                "TransactionEventResponse idTokenInfo.status", "Blocked", dig(event.response, "idTokenInfo.status"))


@pytest.mark.sut_roles("cs")
@pytest.mark.parametrize("accepted", [True, False], ids=["accepted", "rejected"])
async def test_station_starts_only_for_an_accepted_token(ocpp, profile, accepted):
    """Card then cable: a transaction starts with the token only when the CSMS accepted it."""
    token = _token_with(profile, "Accepted" if accepted else "Invalid")
    evse = profile.evses[0].id
    exchange = await authorize(ocpp, token, evse_id=evse)
    check_presented_token(exchange, token, "C01.FR.01: the station sends the presented idToken")
    start = ocpp.mark()
    await ocpp.act("plug_in", evse_id=evse)
    started = lambda p: p["eventType"] == "Started" or dig(p, "idToken.idToken", "").casefold() == token.id.casefold()
    if accepted:
        event = await ocpp.expect("TransactionEvent", after=start, where=started,
                                  rule="C01: an accepted driver can charge once the cable is in")
        check_equal("C01: the transaction is the presented token's", "TransactionEvent idToken.idToken",
                    token.id.casefold(), dig(event.request, "idToken.idToken", "").casefold())
    else:
        await ocpp.expect_none("TransactionEvent", after=start,
                               where=lambda p: dig(p, "idToken.idToken", "").casefold() == token.id.casefold(),
                               rule="C01: a rejected token SHALL NOT start a transaction")
