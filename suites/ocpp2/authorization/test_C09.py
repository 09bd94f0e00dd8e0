"""C09 — Authorization by groupIdToken.

Tokens of one group (a family, a fleet) are answered with their groupIdToken, in the AuthorizeResponse
and the TransactionEventResponse; any member may stop a transaction another member started: the
station asks about the second token and, the group matching, ends the transaction with it (spec 001
Authorization rule 5), from the authorization cache too (TC_C_41). A token of neither the starter nor its
group does not end the transaction (the public case TC_C_04_CS says SHALL NOT; the station may still ask
about it). The groupIdToken's type SHOULD be Central (IdTokenInfoType).
"""

import pytest

from harness.roles import CS, CSMS
from harness.cistring import same_id
from harness.errors import NotApplicable
from harness.rules import RuleTable, must, should
from harness.suite import OCPP2, TC, case, checks, needs
from harness.usecases.authorization import (Authorization, authorize, cached_start, carries, charge_once,
                                            judge_group, present_again, starts_with, station_cache_on)
from harness.verdict import check_equal, dig


class C09(RuleTable):
    """The rules of C09 (spec 001 Authorization rule 5, IdTokenInfoType groupIdToken)."""
    central = should("spec 001 IdTokenInfoType groupIdToken (type SHOULD be Central)",
                     "a groupIdToken is of type Central", by=CSMS)
    member_accepted = must("spec 001 Authorization rule 5; Order of checks",
                           "a member presented while another member charges is Accepted with the group (it is in no "
                           "transaction itself), so the station lets it stop", by=CSMS)
    member_stops = must("spec 001 Authorization rule 5",
                        "a member's token stops the transaction another member of its group started: the station "
                        "asks about it, then ends the transaction with it", by=CS)
    other_keeps = must("OCPP 2.0.1 Part 6 TC_C_04_CS (the station SHALL NOT send a TransactionEvent after an idToken "
                       "other than the one that started the transaction); spec 001 Authorization rule 5",
                       "an accepted token of neither the starter nor its group, presented during a transaction, does "
                       "not end it", by=CS)


pytestmark = case("C09", block="Authorization", roles=("csms", "cs"), protocols=OCPP2)


def _members(profile):
    """Two Accepted tokens of one group."""
    groups = {}
    for token in profile.tokens.values():
        if token.group and token.status == "Accepted" and not token.also:
            groups.setdefault(token.group.casefold(), []).append(token)
    pair = next((members for members in groups.values() if len(members) >= 2), None)
    if pair is None:
        raise NotApplicable("the profile declares no two Accepted tokens of one group (group = \"...\")")
    return pair[0], pair[1]


@checks(Authorization.group, C09.central)
@pytest.mark.sut_roles("csms")
@needs(lambda given: _members(given.profile))
async def test_members_are_answered_with_their_group(ocpp, profile):
    """Both members get the group's groupIdToken, of type Central (SHOULD)."""
    for token in _members(profile):
        exchange = await authorize(ocpp, token)
        judge_group(exchange, token)
        check_equal(C09.central, f"groupIdToken.type for {token.name}", "Central",
                    dig(exchange.result, "idTokenInfo.groupIdToken.type"))


@pytest.mark.parametrize("starter", [0, 1], ids=["a_then_b", "b_then_a"])
@checks(C09.member_accepted, Authorization.group, Authorization.sent, C09.member_stops,
        csms=(TC("TC_C_39_CSMS", "ocpp2.0.1"), TC("TC_C_43_CSMS", "ocpp2.0.1")), cs=TC("TC_C_39_CS", "ocpp2.0.1"))
@needs(lambda given: _members(given.profile))
async def test_member_stops_another_members_transaction(ocpp, profile, starter):
    """One member charges; the other presents its token at the same EVSE: asked about, Accepted with the
    same group, and the transaction ends carrying the second token. A CSMS under test meets the first token
    in the TransactionEvent (the station took it from its own list, TC_C_43) and answers it with the group;
    it answers the second token Accepted with the group in the AuthorizeResponse and again in the
    TransactionEventResponse of the event that ends the transaction with it (spec 001 rule 5)."""
    first, second = _members(profile)[starter], _members(profile)[1 - starter]
    evse = profile.evses[0].id
    # the one step that differs by role: a station under test must ask about the first token before it starts;
    # the harness's station starts from its cache, so that the CSMS meets the token in the TransactionEvent
    if ocpp.is_sut(CS):
        await authorize(ocpp, first, evse_id=evse)
        start = ocpp.mark()
        await ocpp.act(CS, "plug_in", evse_id=evse)
        await starts_with(ocpp, first, start, C09.member_stops)
    else:
        _, event = await cached_start(ocpp, first, Authorization.group, evse)
        judge_group(event, first)
    stop = ocpp.mark()
    if ocpp.is_sut(CSMS):   # the harness's station asks about the second token, and stops with it when Accepted
        ocpp.configure(local_authorization=False)
        await ocpp.act(CS, "present_id_token", id_token=second.wire(), evse_id=evse)
        exchange = await ocpp.expect("Authorize", sender=CS, after=stop)
        check_equal(C09.member_accepted, f"AuthorizeResponse idTokenInfo.status for {second.name}", "Accepted",
                    dig(exchange.result, "idTokenInfo.status"))
        judge_group(exchange, second, C09.member_accepted)
        ended = await ocpp.expect("TransactionEvent", sender=CS, after=stop,
                                  where=lambda p: same_id(dig(p, "idToken.idToken", ""), second.id))
        check_equal(C09.member_accepted, f"TransactionEventResponse idTokenInfo.status for {second.name}",
                    "Accepted", dig(ended.result, "idTokenInfo.status"))
        judge_group(ended, second)
        return
    await authorize(ocpp, second, evse_id=evse)
    ended = await ocpp.expect("TransactionEvent", sender=CS, after=stop, rule=C09.member_stops,
                              where=lambda p: p["eventType"] == "Ended")
    check_equal(C09.member_stops, "TransactionEvent Ended idToken.idToken", second.id.casefold(),
                dig(ended.request, "idToken.idToken", "").casefold())


@pytest.mark.sut_roles("cs")
@checks(Authorization.sent, C09.member_stops, cs=TC("TC_C_41_CS", "ocpp2.0.1"))
@needs(lambda given: _members(given.profile))
async def test_cached_member_stops_another_members_transaction(ocpp, profile):
    """Both members are in the authorization cache (each charged once); the first starts from the cache, the
    second presented at the same EVSE ends the transaction, carrying the second token."""
    first, second = _members(profile)
    evse = profile.evses[0].id
    await station_cache_on(ocpp)
    for member in (second, first):
        await charge_once(ocpp, member, evse, C09.member_stops)
    start = await present_again(ocpp, first, evse)
    await starts_with(ocpp, first, start, C09.member_stops)
    stop = ocpp.mark()
    await ocpp.act(CS, "present_id_token", id_token=second.wire(), evse_id=evse)
    ended = await ocpp.expect("TransactionEvent", sender=CS, after=stop, rule=C09.member_stops,
                              where=lambda p: p["eventType"] == "Ended")
    check_equal(C09.member_stops, "TransactionEvent Ended idToken.idToken", second.id.casefold(),
                dig(ended.request, "idToken.idToken", "").casefold())


def _strangers(profile):
    """Two Accepted tokens that share no group (the second may not stop the first's transaction)."""
    plain = [t for t in profile.tokens_with("Accepted") if not (t.also or t.evse_ids or t.stations or t.current
                                                                or t.balance is not None)]
    group = (profile.authorization("master_pass_group_id") or "").casefold()
    plain = [t for t in plain if (t.group or "").casefold() != group or not group]
    for starter in plain:
        for other in plain:
            if other is not starter and not (starter.group and other.group
                                             and same_id(starter.group, other.group)):
                return starter, other
    raise NotApplicable("the profile declares no two Accepted tokens of different groups (or none)")


@pytest.mark.sut_roles("cs")
@checks(C09.other_keeps, cs=TC("TC_C_04_CS", "ocpp2.0.1"))
@needs(lambda given: _strangers(given.profile))
async def test_other_token_does_not_stop_the_transaction(ocpp, profile):
    """A driver charges; another driver's token, accepted but of no shared group, is presented at the same
    EVSE: the station may ask about it, and the transaction goes on (no TransactionEvent ends it)."""
    starter, other = _strangers(profile)
    evse = profile.evses[0].id
    await authorize(ocpp, starter, evse_id=evse)
    start = ocpp.mark()
    await ocpp.act(CS, "plug_in", evse_id=evse)
    started = await starts_with(ocpp, starter, start, C09.other_keeps)
    transaction = started.request["transactionInfo"]["transactionId"]
    stop = ocpp.mark()
    await ocpp.act(CS, "present_id_token", id_token=other.wire(), evse_id=evse)
    await ocpp.expect_none("TransactionEvent", after=stop, rule=C09.other_keeps, where=lambda p: (
        p["transactionInfo"]["transactionId"] == transaction
        and (p["eventType"] == "Ended" or p["triggerReason"] in ("StopAuthorized", "Deauthorized")
             or carries(other)(p))))
