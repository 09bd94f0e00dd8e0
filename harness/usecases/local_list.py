"""Dialogues of the local authorization list and of a station that goes offline (C13-C15)."""

from __future__ import annotations

from typing import Any

from harness.arena.ocpp import OcppArena
from harness.roles import CS, CSMS
from harness.cistring import same_id
from harness.errors import NotApplicable
from harness.profile import Token
from harness.rules import Rule
from harness.transport.ws import Exchange
from harness.usecases.operations import operate
from harness.verdict import check_equal, dig

Entry = tuple[Token, "dict | None"]   # a token and its idTokenInfo (None: delete it, Differential only)


def plain_token(profile, status: str) -> Token:
    """The profile's first token with ``status`` and nothing else to it (no group, EVSE, station or current
    restriction, balance or second condition): one whose outcome only its status decides."""
    for token in profile.tokens_with(status):
        if not (token.also or token.group or token.evse_ids or token.stations or token.current
                or token.balance is not None):
            return token
    raise NotApplicable(f"the profile declares no plain idToken with status {status}")


async def list_version(arena: OcppArena, rule: Rule) -> Exchange:
    """GetLocalListVersion: sent by the harness's CSMS, or by the CSMS under test at its operator's request
    (an empty request: ``rule`` judges what it sends)."""
    return await operate(arena, "GetLocalListVersion", {}, rule)


async def send_local_list(arena: OcppArena, update_type: str, entries: list[Entry], rule: Rule,
                          version: int | None = None) -> Exchange:
    """SendLocalList of ``entries``: the harness's CSMS sends ``version``; a CSMS under test is asked for the
    update and picks its own version unless ``version`` is given."""
    body: dict[str, Any] = {"update_type": update_type, "entries": [
        {"id_token": token.wire()} | ({"id_token_info": info} if info is not None else {}) for token, info in entries]}
    payload = None
    if not arena.is_sut(CSMS):
        payload = {"versionNumber": version, "updateType": update_type}
        if entries:
            payload["localAuthorizationList"] = [
                {"idToken": token.wire()} | ({"idTokenInfo": info} if info is not None else {}) for token, info in entries]
    if version is not None:
        body["version_number"] = version
    return await arena.exchange(CSMS, "SendLocalList", payload, trigger=("send_local_list", body), rule=rule)


async def update_list(arena: OcppArena, update_type: str, entries: list[Entry], rule: Rule, version: int) -> None:
    """The harness's CSMS sends the station under test an update at ``version``; ``rule``: it must accept it."""
    exchange = await send_local_list(arena, update_type, entries, rule, version=version)
    check_equal(rule, f"SendLocalListResponse status of a {update_type} update", "Accepted",
                dig(exchange.result, "status"))


async def install_list(arena: OcppArena, entries: list[Entry], rule: Rule, *, ahead: int = 1) -> int:
    """The harness's CSMS installs ``entries`` as the full list of the station under test, at its current
    version + ``ahead``, which it returns; ``rule``: the station must accept it."""
    version = (await list_version(arena, rule)).result["versionNumber"] + ahead
    await update_list(arena, "Full", entries, rule, version)
    return version


async def present_offline(arena: OcppArena, token: Token, evse: int, rule: Rule) -> None:
    """The link to the station is cut; meanwhile a driver plugs in and presents ``token`` at ``evse``;
    then the link is restored and the station's new connection becomes the link (its silence breaks
    ``rule``). The harness's own station accepts an unknown token while offline (OfflineTxForUnknownIdEnabled)."""
    if not arena.is_sut(CS):
        arena.configure(offline_tx_for_unknown_id=True)
    await outage(arena, rule, ("plug_in", {"evse_id": evse}),
                 ("present_id_token", {"id_token": token.wire(), "evse_id": evse}))


async def outage(arena: OcppArena, rule: Rule, *steps: tuple[str, dict]) -> None:
    """The link to the station is cut; meanwhile the ``steps`` (actions at the station) happen and the
    station decides alone for a while; then the link is restored and the station's new connection
    becomes the link (its silence breaks ``rule``)."""
    connections = arena.connections()
    await arena.cut()
    for action, body in steps:
        await arena.act(CS, action, **body)
    await arena.elapse(arena.timeouts.quiet)   # the driver's steps take their time; the station decides alone
    await arena.restore()
    if await arena.reconnected(connections) is None:
        arena.silent(rule, "a new connection", arena.timeouts.connect, "after the outage ended")


def carries(token: Token, event_type: str | None = None):
    """A TransactionEvent payload filter: ``token`` in it (case-insensitive), of ``event_type`` when given."""
    return lambda p: (event_type in (None, p["eventType"])
                      and same_id(p.get("idToken", {}).get("idToken", ""), token.id))


async def started_with(arena: OcppArena, token: Token, after: int, rule: Rule) -> Exchange:
    """The Started event of the transaction ``token`` took part in (its silence breaks ``rule``). The token may
    come in a later event than the Started one: a station whose TxStartPoint is EVConnected starts the
    transaction when the cable goes in, and the token presented after it is carried by an Updated event (a legal
    reading, OCPP 2.0.1 part 2 E01 and the TxStartPoint values)."""
    carrying = await arena.expect("TransactionEvent", sender=CS, after=after, where=carries(token), rule=rule)
    if carrying.request["eventType"] == "Started":
        return carrying
    tx = dig(carrying.request, "transactionInfo.transactionId")
    return await arena.expect("TransactionEvent", sender=CS, after=after, rule=rule,
                              where=lambda p: p["eventType"] == "Started"
                              and dig(p, "transactionInfo.transactionId") == tx)


def asks_about(token: Token):
    """An AuthorizeRequest payload filter: ``token`` in it (case-insensitive)."""
    return lambda p: same_id(p.get("idToken", {}).get("idToken", ""), token.id)
