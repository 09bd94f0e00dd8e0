"""OCPP 1.6 dialogues shared by the 1.6 suite files, played from either side.

What happens at the charge point (a card presented, a cable plugged in) is asked of the charge
point whichever side it is on: the SUT's actuator when the SUT is the charge point, the harness's
own reference charge point otherwise; the harness then reads the result on the link with
``arena.expect``, so a missing message blames whichever side had to send it.
"""

from __future__ import annotations

import time

from harness.arena import CS, OcppArena
from harness.errors import NotApplicable
from harness.profile import Profile, Token
from harness.reference.tokens import STATUSES_16
from harness.reference.v16.station import connector_ids
from harness.transport.ws import Exchange
from harness.verdict import check_equal, dig

ID_TAG_LENGTH = 20   # spec 002 Limits: idTag and parentIdTag 20 characters


def usable16(token: Token) -> bool:
    """A profile token that exists in 1.6: no KeyCode (2.x only), an idTag of at most 20 characters."""
    return token.type != "KeyCode" and len(token.id) <= ID_TAG_LENGTH


def tag16(profile: Profile, status: str) -> Token:
    """The plainest 1.6 idTag the profile says must get ``status``."""
    if status not in STATUSES_16:
        raise NotApplicable(f"{status} is not a 1.6 AuthorizationStatus (spec 002 Enumerations)")
    tokens = sorted((t for t in profile.tokens_with(status) if not t.also and usable16(t)),
                    key=lambda t: (t.group is not None, bool(t.evse_ids or t.stations or t.current)))
    if not tokens:
        raise NotApplicable(f"the profile declares no 1.6 idTag (not KeyCode, at most {ID_TAG_LENGTH} characters) "
                            f"that must get status {status}")
    return tokens[0]


def group16(profile: Profile) -> tuple[Token, Token]:
    """Two accepted 1.6 idTags of the same group (equal parentIdTag)."""
    grouped = [t for t in profile.tokens_with("Accepted") if t.group and not t.also and usable16(t)]
    for first in grouped:
        for second in grouped:
            if first is not second and first.group.casefold() == second.group.casefold():
                return first, second
    raise NotApplicable("the profile declares no two accepted 1.6 idTags with the same group (parentIdTag)")


def connectors(profile: Profile) -> list[int]:
    return connector_ids(profile)


async def at_charge_point(arena: OcppArena, action: str, **body) -> None:
    """Something that happens at the charge point: the SUT's actuator, or the harness's own charge point."""
    if arena.is_sut(CS):
        await arena.act(action, **body)
    else:
        await arena.harness.perform(action, body)


async def unplug(arena: OcppArena, connector_id: int) -> None:
    """The cable is pulled at the end of a test. The harness's charge point delivers its StopTransactions
    (this transaction's, and any other it queued) before the test ends: a real central system keeps a
    transaction open otherwise, and the idTag would get ConcurrentTx in the next test."""
    running = None if arena.is_sut(CS) else arena.harness.connectors[connector_id].transaction
    mark = arena.mark()
    await at_charge_point(arena, "unplug", connector_id=connector_id)
    if running is not None:
        await arena.expect("StopTransaction", after=mark, where=lambda p: p["transactionId"] == running.id,
                           rule="1.6 StopTransaction: the central system answers a StopTransaction")
    if not arena.is_sut(CS):
        await arena.harness.drained(arena.timeouts.action)


async def authorize(arena: OcppArena, token: Token, connector_id: int | None = None) -> Exchange:
    """The idTag is presented; the charge point asks with Authorize (spec 002 What the service does 3)."""
    mark = arena.mark()
    await at_charge_point(arena, "present_id_tag", id_tag=token.id,
                          **({"connector_id": connector_id} if connector_id is not None else {}))
    exchange = await arena.expect("Authorize", after=mark, rule="1.6 Authorize: a presented idTag is sent in Authorize.req")
    check_equal("1.6 Authorize: the charge point asks about the presented idTag (CiString20, case-insensitive)",
                "Authorize.req idTag", token.id.casefold(), str(exchange.request.get("idTag", "")).casefold())
    return exchange


def same_tag(sent: str | None, id_tag: str) -> bool:
    """IdToken is CiString20: compared case-insensitively."""
    return sent is not None and sent.casefold() == id_tag.casefold()


async def start(arena: OcppArena, token: Token, connector_id: int) -> Exchange:
    """Identification first: Authorize accepted, then the cable, then StartTransaction (TC_004_1)."""
    mark = arena.mark()
    auth = await authorize(arena, token, connector_id)
    if not arena.is_sut(CS):
        check_equal("1.6 Authorize (TC_004_1_CSMS): a valid idTag is Accepted", "Authorize.conf idTagInfo.status",
                    "Accepted", id_tag_status(auth))
    await at_charge_point(arena, "plug_in", connector_id=connector_id)
    exchange = await arena.expect("StartTransaction", after=mark, where=lambda p: p["connectorId"] == connector_id,
                                  rule="1.6 StartTransaction: an accepted idTag with the cable in starts a transaction")
    check_equal("1.6 StartTransaction: the transaction is the presented idTag's", "StartTransaction.req idTag",
                token.id.casefold(), exchange.request["idTag"].casefold())
    return exchange


async def collect(arena: OcppArena, action: str, *, after: int, count: int,
                  timeout: float | None = None, where=None) -> list[Exchange]:
    """The ``action`` CALLs from ``after`` on, once ``count`` arrived or the wait is over."""
    found, start = [], after
    deadline = time.monotonic() + (timeout or arena.timeouts.action)
    while len(found) < count:
        exchange = await arena.link.wait_for(lambda e: e.action == action and (where is None or where(e.request)),
                                             max(0.0, deadline - time.monotonic()), start=start)
        if exchange is None:
            break
        found.append(exchange)
        start = arena.link.history.index(exchange) + 1
    return found


def transaction_id(start_exchange: Exchange) -> int:
    return dig(start_exchange.response, "transactionId")


def id_tag_status(exchange: Exchange) -> str | None:
    return dig(exchange.response, "idTagInfo.status")
