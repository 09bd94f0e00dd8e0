"""OCPP 1.6 dialogues shared by the 1.6 suite files, played from either side.

What happens at the charge point (a card presented, a cable plugged in) is asked of the charge
point whichever side it is on with ``arena.act(CS, ...)``: the SUT's actuator when the SUT is the
charge point, the harness's own charge point otherwise; the harness then reads the result on the
link with ``arena.expect``, so a missing message blames whichever side had to send it.
"""

from __future__ import annotations

from harness import clock
from harness.arena.ocpp import OcppArena
from harness.roles import CS, CSMS
from harness.errors import HarnessError, NotApplicable
from harness.ocpp.v16 import AUTHORIZATION_STATUSES, connector_ids
from harness.profile import Profile, Token
from harness.rules import Rule, RuleTable, must
from harness.transport.ws import Exchange
from harness.verdict import check_equal, dig, require

ID_TAG_LENGTH = 20   # spec 002 Limits: idTag and parentIdTag 20 characters


class Core16(RuleTable, namespace="core16"):
    """The rules the shared 1.6 dialogues judge (spec 002)."""
    authorize = must("spec 002 What the service does 3; Messages Authorize; Primitive types IdToken",
                     "a presented idTag is sent in Authorize.req as presented (CiString20: compared "
                     "case-insensitively)", by=CS)
    accepted = must("spec 002 Classes IdTagInfo; Enumerations AuthorizationStatus",
                    "the central system answers a valid idTag Accepted", by=CSMS)
    start = must("spec 002 What the service does 3; Messages StartTransaction",
                 "an Accepted idTag with the cable in starts a transaction, StartTransaction carrying that idTag",
                 by=CS)
    stops = must("spec 002 What the service does 3",
                 "the idTag that started a transaction stops it when presented again (StopTransaction.req)", by=CS)
    stop_answered = must("spec 002 Messages StopTransaction",
                         "the central system answers a StopTransaction.req with StopTransaction.conf", by=CSMS)
    group = must("spec 002 What the service does 8",
                 "the members of a group are answered with the group, their common parentIdTag", by=CSMS)
    status_answered = must("spec 002 Operations by direction (StatusNotification, CP to CS); Messages "
                           "StatusNotification", "the central system answers every StatusNotification.req, a fault "
                           "report too (Faulted, ConnectorLockFailure), with an empty StatusNotification.conf",
                           by=CSMS)


def usable16(token: Token) -> bool:
    """A profile token that exists in 1.6: no KeyCode (2.x only), an idTag of at most 20 characters."""
    return token.type != "KeyCode" and len(token.id) <= ID_TAG_LENGTH


def tag16(profile: Profile, status: str) -> Token:
    """The plainest 1.6 idTag the profile says must get ``status``."""
    if status not in AUTHORIZATION_STATUSES:
        raise NotApplicable(f"{status} is not a 1.6 AuthorizationStatus (spec 002 Enumerations)")
    tokens = sorted((t for t in profile.tokens_with(status) if not t.also and usable16(t)),
                    key=lambda t: (t.group is not None, bool(t.evse_ids or t.stations or t.current)))
    if not tokens:
        raise NotApplicable(f"the profile declares no 1.6 idTag (not KeyCode, at most {ID_TAG_LENGTH} characters) "
                            f"that must get status {status}")
    return tokens[0]


def tagged(status: str):
    """The condition (``suite.needs``) that the profile declares a 1.6 idTag that must get ``status``."""
    return lambda given: tag16(given.profile, status)


def grouped(given) -> tuple[Token, Token]:
    """The condition (``suite.needs``) that the profile declares two accepted 1.6 idTags of one group."""
    return group16(given.profile)


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


async def configure_charge_point(arena: OcppArena, values: dict[str, str]) -> None:
    """The charge point's configuration keys for this test; a charge point under test that does not
    accept one makes the test not applicable."""
    for key, value in values.items():
        if not arena.is_sut(CS):
            arena.harness_station.set_configuration_key(key, value)
            continue
        status = (await arena.call_sut("ChangeConfiguration", {"key": key, "value": value})).result["status"]
        if status != "Accepted":   # the old value is set again when the test ends (undo_ChangeConfiguration)
            raise NotApplicable(f"the charge point answers {key}={value} {status}")


async def authorize(arena: OcppArena, token: Token, connector_id: int | None = None) -> Exchange:
    """The idTag is presented; the charge point asks with Authorize (spec 002 What the service does 3)."""
    mark = arena.mark()
    await arena.act(CS, "present_id_tag", id_tag=token.id,
                    **({"connector_id": connector_id} if connector_id is not None else {}))
    exchange = await arena.expect("Authorize", sender=CS, after=mark, rule=Core16.authorize)
    check_equal(Core16.authorize, "Authorize.req idTag", token.id.casefold(),
                str(exchange.request.get("idTag", "")).casefold())
    return exchange


def judge_group(exchange: Exchange, token: Token) -> None:
    """A central system under test answered the Authorize of a group member with its group as parentIdTag."""
    parent = dig(exchange.result, "idTagInfo.parentIdTag")
    require(parent is not None and same_tag(parent, token.group), Core16.group,
            f"Authorize.conf for the {token.name} idTag lacks its group as parentIdTag",
            expected=token.group, actual=dig(exchange.result, "idTagInfo"))


def same_tag(sent: str | None, id_tag: str) -> bool:
    """IdToken is CiString20: compared case-insensitively."""
    return sent is not None and sent.casefold() == id_tag.casefold()


async def start(arena: OcppArena, token: Token, connector_id: int) -> Exchange:
    """Identification first: Authorize accepted, then the cable, then StartTransaction (TC_004_1). A
    central system under test accepts the valid idTag in both answers: a charge point whose start was
    refused stops again (StopTransactionOnInvalidId), and what it answers later is no longer the SUT's doing."""
    mark = arena.mark()
    auth = await authorize(arena, token, connector_id)
    if not arena.is_sut(CS):
        check_equal(Core16.accepted, "Authorize.conf idTagInfo.status", "Accepted", id_tag_status(auth))
    await arena.act(CS, "plug_in", connector_id=connector_id)
    exchange = await arena.expect("StartTransaction", sender=CS, after=mark,
                                  where=lambda p: p["connectorId"] == connector_id, rule=Core16.start)
    check_equal(Core16.start, "StartTransaction.req idTag", token.id.casefold(), exchange.request["idTag"].casefold())
    if not arena.is_sut(CS):
        check_equal(Core16.accepted, "StartTransaction.conf idTagInfo.status", "Accepted", id_tag_status(exchange))
    return exchange


async def stop(arena: OcppArena, token: Token, connector_id: int, *, rule: Rule = Core16.stops) -> Exchange:
    """The idTag that started the transaction is presented again: StopTransaction, answered. ``rule`` is
    the row the charge point's silence breaks (a use case that judges the stop itself names its own)."""
    mark = arena.mark()
    await arena.act(CS, "present_id_tag", id_tag=token.id, connector_id=connector_id)
    exchange = await arena.expect("StopTransaction", sender=CS, after=mark, rule=rule)
    require(exchange.error is None, Core16.stop_answered, "StopTransaction.req was refused",
            expected="StopTransaction.conf", actual=exchange.error)
    return exchange


async def collect(arena: OcppArena, action: str, *, sender: str, after: int, count: int,
                  timeout: float | None = None, where=None) -> list[Exchange]:
    """The ``action`` CALLs ``sender`` sent from ``after`` on, once ``count`` arrived or the wait is over."""
    found, start = [], after
    deadline = clock.now() + (timeout or arena.timeouts.action)
    while len(found) < count:
        exchange = await arena.next_call(action, sender=sender, within=max(0.0, deadline - clock.now()), after=start,
                                         where=where)
        if exchange is None:
            break
        found.append(exchange)
        start = arena.mark_after(exchange)
    return found


def transaction_id(start_exchange: Exchange) -> int:
    return dig(start_exchange.result, "transactionId")


def id_tag_status(exchange: Exchange) -> str | None:
    return dig(exchange.result, "idTagInfo.status")


async def harness_rebooted(arena: OcppArena, before: int, after_what: str) -> Exchange:
    """The harness's own charge point restarted (an update, a power loss): its new connection and the
    BootNotification it sent there (a charge point that does not come back is the harness's fault)."""
    if await arena.reconnected(before) is None:
        raise HarnessError(f"the harness's charge point did not reconnect within {arena.timeouts.connect:g} s after "
                           f"{after_what}")
    return await arena.expect("BootNotification", sender=CS, after=0)
