"""The authorization dialogue (C01 and the token use cases built on it)."""

from __future__ import annotations

from harness.arena.ocpp import OcppArena
from harness.roles import CS, CSMS
from harness.cistring import same_id
from harness.errors import NotApplicable
from harness.profile import Profile, Token
from harness.rules import Rule, RuleTable, must
from harness.transport.ws import Exchange
from harness.verdict import check_equal, dig, require


class Authorization(RuleTable, namespace="authorize"):
    """The rule of the dialogue itself; what the answer must say is the calling use case's."""
    sent = must("spec 001 Events: AuthorizeRequest", "a station sends AuthorizeRequest when a driver presents a token",
                by=CS)
    group = must("spec 001 Authorization rule 5 (C09)",
                 "a token's groupIdToken is in the AuthorizeResponse and the TransactionEventResponse", by=CSMS)


def judge_group(exchange: Exchange, token: Token, rule: Rule = Authorization.group) -> None:
    """A CSMS under test answered ``token``'s Authorize or TransactionEvent with its groupIdToken (case-insensitive):
    the station knows a member of the reservation's or the transaction's group only from it (``rule``: the row
    that answer serves, when it is another than the group's own)."""
    group = dig(exchange.result, "idTokenInfo.groupIdToken.idToken")
    require(group is not None and str(group).casefold() == str(token.group).casefold(), rule,
            f"{exchange.action}Response for {token.name} lacks its groupIdToken",
            expected=token.group, actual=dig(exchange.result, "idTokenInfo"))


async def authorize(arena: OcppArena, token: Token | dict, evse_id: int | None = None) -> Exchange:
    """The station presents ``token`` (a profile token, or an IdTokenType as the test writes it) and asks
    the CSMS (C01 main flow, steps 1-2)."""
    id_token = token.wire() if isinstance(token, Token) else token
    body = {"id_token": id_token} | ({"evse_id": evse_id} if evse_id is not None else {})
    return await arena.exchange(CS, "Authorize", {"idToken": id_token}, trigger=("present_id_token", body),
                                rule=Authorization.sent)


def check_presented_token(exchange: Exchange, token: Token, rule: Rule) -> None:
    """The station must ask about the token that was presented (idToken is case-insensitive)."""
    sent = dig(exchange.request, "idToken", {})
    check_equal(rule, "AuthorizeRequest idToken.idToken (case-insensitive)", token.id.casefold(),
                str(sent.get("idToken", "")).casefold())
    check_equal(rule, "AuthorizeRequest idToken.type", token.type, sent.get("type"))


def token_with(profile: Profile, status: str, *, type: str | None = None) -> Token:
    """The profile's first token that must get ``status`` (and is of ``type``, when given), and only that
    status; not applicable when there is none."""
    tokens = [t for t in profile.tokens_with(status) if not t.also and type in (None, t.type)]
    if not tokens:
        kind = f" of type {type}" if type else ""
        raise NotApplicable(f"the profile declares no idToken{kind} that must get status {status}")
    return tokens[0]


async def cached_start(arena: OcppArena, token: Token | dict, rule: Rule,
                       evse: int | None = None) -> tuple[int, Exchange]:
    """The harness's station starts a transaction with ``token`` (a profile token, or an IdTokenType) on
    ``evse`` (default: the first),
    accepted from its own cache (no AuthorizeRequest: the CSMS meets the token in the TransactionEvent
    first); returns its EVSE and the TransactionEvent Started. ``rule`` is the rule the test judges (the
    harness's own silence would be a harness error, never the SUT's)."""
    evse = evse or arena.profile.evses[0].id
    start = arena.mark()
    arena.configure(local_authorization=True)
    await arena.act(CS, "plug_in", evse_id=evse)
    await arena.act(CS, "present_id_token", id_token=token.wire() if isinstance(token, Token) else token,
                    evse_id=evse)
    event = await arena.expect("TransactionEvent", sender=CS, after=start, rule=rule,
                               where=lambda p: p["eventType"] == "Started" and p["evse"]["id"] == evse)
    return evse, event


def carries(token: Token):
    """A TransactionEvent that carries ``token`` (idToken compared case-insensitively)."""
    return lambda p: same_id(dig(p, "idToken.idToken", ""), token.id)


async def starts_with(arena: OcppArena, token: Token, after: int, rule: Rule) -> Exchange:
    """The station under test starts (or reports) a transaction carrying ``token`` after ``after``."""
    return await arena.expect("TransactionEvent", sender=CS, after=after, where=carries(token), rule=rule)


async def never_starts_with(arena: OcppArena, token: Token, after: int, rule: Rule) -> None:
    """No TransactionEvent carries ``token`` while the harness watches (``quiet`` seconds)."""
    await arena.expect_none("TransactionEvent", after=after, where=carries(token), rule=rule)


async def set_station_variable(arena: OcppArena, component: str, variable: str, value: str,
                               instance: str | None = None) -> str:
    """The station's device-model variable (its Actual attribute) for this test: sent in SetVariables to a
    station under test, whose attributeStatus is returned and whose old value is set again when the test ends
    (``undo_SetVariables``); set directly in the harness's own station ("Accepted")."""
    if not arena.is_sut(CS):
        arena.harness_station.set_variable(component, variable, value)
        return "Accepted"
    named = {"name": variable} | ({"instance": instance} if instance else {})
    answer = await arena.call_sut("SetVariables", {"setVariableData": [
        {"component": {"name": component}, "variable": named, "attributeValue": value}]})
    return answer.result["setVariableResult"][0]["attributeStatus"]


async def station_variable(arena: OcppArena, component: str, variable: str, value: str,
                           instance: str | None = None) -> None:
    """The station's device-model variable (of ``instance``, when given) set for this test (put back
    afterwards); not applicable when the station refuses it."""
    status = await set_station_variable(arena, component, variable, value, instance)
    if status != "Accepted":
        raise NotApplicable(f"the station answered SetVariables {component}.{variable}"
                            f"{f'[{instance}]' if instance else ''}={value} {status}: "
                            f"the test needs that setting")


async def station_cache_on(arena: OcppArena) -> None:
    """A station under test with its authorization cache on, pre-authorizing from it (AuthCacheCtrlr.Enabled
    and AuthCtrlr.LocalPreAuthorize true, put back when the test ends) and emptied (ClearCache), so that
    no earlier test's entry decides; not applicable when the station refuses either."""
    for component, variable in (("AuthCacheCtrlr", "Enabled"), ("AuthCtrlr", "LocalPreAuthorize")):
        await station_variable(arena, component, variable, "true")
    if arena.is_sut(CS):
        cleared = await arena.call_sut("ClearCache", {})
        if cleared.result.get("status") != "Accepted":
            raise NotApplicable(f"the station did not clear its authorization cache ({cleared.result}): the test "
                                f"needs it empty")


async def charge_once(arena: OcppArena, token: Token, evse: int, rule: Rule) -> None:
    """At a station under test: ``token`` is presented and asked about (the answer fills the station's
    cache), a transaction starts with it once the cable is in and ends when the cable is pulled, leaving
    the EVSE free and the token cached. ``rule``: the row whose steps these are."""
    await authorize(arena, token, evse_id=evse)
    start = arena.mark()
    await arena.act(CS, "plug_in", evse_id=evse)
    await starts_with(arena, token, start, rule)
    stop = arena.mark()
    await arena.act(CS, "unplug", evse_id=evse)
    await arena.expect("TransactionEvent", sender=CS, after=stop, rule=rule, where=lambda p: p["eventType"] == "Ended")


async def present_again(arena: OcppArena, token: Token, evse: int) -> int:
    """The cable in, ``token`` is presented once more; returns the mark taken before (to judge whether the
    station asked the CSMS or started from its cache)."""
    start = arena.mark()
    await arena.act(CS, "plug_in", evse_id=evse)
    await arena.act(CS, "present_id_token", id_token=token.wire(), evse_id=evse)
    return start
