"""Tariffs dialogues (module at 2.2.1): the CPO making, changing and deleting Tariffs it pushes to the
eMSP's Receiver, reading a Tariff back from the SUT, and the eMSP pulling the CPO's list. The rules are
the rows of ``harness.ocpi.tariffs.TariffRules``.

Played from either side: a CPO under test is asked by the actuator (``push_tariff``, ``update_tariff``,
``delete_tariff``) and its request is awaited on the harness's Receiver, which judges it (schema, the
Tariff's own rows, the URL's ids); the harness's own CPO performs the same action and returns the
request it sent. An eMSP under test is asked to pull (``fetch_tariffs``); its GETs are served by the
harness's Sender.
"""

from __future__ import annotations

from typing import Any

from harness.cistring import same_id
from harness.errors import NotApplicable, PeerViolation
from harness.ocpi import schemas
from harness.ocpi.envelope import expect_success
from harness.ocpi.locations import LOCATIONS
from harness.ocpi.tariffs import TARIFF, TARIFFS, TariffRules, advice, problems, referencing
from harness.ocpi.timestamps import parse_datetime
from harness.arena.ocpi import OcpiArena, check_answer
from harness.roles import CPO, EMSP
from harness.rules import Rule
from harness.transport.http import HttpExchange
from harness.usecases import ocpi_credentials
from harness.usecases import ocpi_locations as loc
from harness.usecases.ocpi_sessions import seconds_later
from harness.verdict import require, violated

LISTING = (TARIFFS, TARIFF, TariffRules.listed)


def _pushed(push: HttpExchange | None, rule: Rule) -> dict[str, Any]:
    """The Tariff the CPO's PUT carried."""
    body = push.request_json() if push is not None else None
    require(isinstance(body, dict), rule, "the CPO's PUT carries no Tariff", expected="a JSON object", actual=body)
    return body


async def _cpo_does(arena: OcpiArena, action: str, method: str, ids: tuple[str, ...], *, rule: Rule,
                    accepted: Rule, **body: Any) -> HttpExchange:
    """The CPO performs ``action``: a CPO under test through its actuator (its ``method`` request
    awaited and judged by the harness's Receiver), the harness's own CPO directly (the request it sent,
    which the eMSP under test must have accepted: ``accepted``)."""
    if arena.is_sut(CPO):
        return await arena.exchange(CPO, method, TARIFFS, ids, trigger=(action, body), rule=rule)
    push = await arena.act(CPO, action, **body)
    check_answer(push, accepted, f"the Tariff {method} ({action})", success=True)
    return push


def _judge(arena: OcpiArena, tariff: dict[str, Any]) -> None:
    """A CPO under test's Tariff against its own rows (MUST) and the text's advice (SHOULD)."""
    if arena.is_sut(CPO):
        for row, why in problems(tariff):
            violated(row, why, expected="a Tariff as 2.2.1 §11.3 defines it", actual=tariff.get("elements"))
        for row, why in advice(tariff):
            violated(row, why, expected="the text's advice", actual=tariff.get("elements"))


async def push(arena: OcpiArena, *, rule: Rule = TariffRules.pushed, **body: Any) -> dict[str, Any]:
    """The CPO makes a Tariff (``body``: shape; or the tariff_id of one to push again whole) and PUTs it:
    the Tariff it pushed, its removal registered for the end of the test."""
    await ocpi_credentials.registered(arena)
    tariff = _pushed(await _cpo_does(arena, "push_tariff", "PUT", (), rule=rule, accepted=TariffRules.stored,
                                     **body), rule)
    _judge(arena, tariff)
    if not body.get("tariff_id"):
        found = {"tariff_id": tariff.get("id")}
        arena.undo(f"delete_tariff {found}", lambda: _delete_quietly(arena, found))
    return tariff


async def _delete_quietly(arena: OcpiArena, body: dict[str, Any]) -> None:
    if any(same_id(t["id"], body["tariff_id"]) for t in _own(arena)):
        await arena.act(CPO, "delete_tariff", **body)


def _own(arena: OcpiArena) -> list[dict[str, Any]]:
    """The Tariffs of the CPO (the harness's own, or those a CPO under test pushed to the harness)."""
    return arena.harness_peer.objects(TARIFFS)


async def update(arena: OcpiArena, tariff: dict[str, Any], *, rule: Rule = TariffRules.pushed,
                 **body: Any) -> dict[str, Any]:
    """The CPO changes a Tariff (``update_tariff``: price, alt_text) and PUTs it whole again: the Tariff
    it pushed, whose last_updated must be later than the one pushed before."""
    again = _pushed(await _cpo_does(arena, "update_tariff", "PUT", (tariff["id"],), rule=rule,
                                    accepted=TariffRules.put_replaces, tariff_id=tariff["id"], **body), rule)
    _judge(arena, again)
    before, after = tariff.get("last_updated"), again.get("last_updated")
    require(isinstance(after, str) and isinstance(before, str) and parse_datetime(after) > parse_datetime(before),
            TariffRules.last_updated_moves, f"the Tariff {tariff['id']} was pushed again changed without a later "
            "last_updated", expected=f"later than {before}", actual=after)
    return again


async def delete(arena: OcpiArena, tariff: dict[str, Any], *, rule: Rule = TariffRules.receiver_url) -> HttpExchange:
    """The CPO deletes a Tariff no Connector uses: its DELETE (from a CPO under test: judged against the
    Locations it pushed to the harness)."""
    exchange = await _cpo_does(arena, "delete_tariff", "DELETE", (tariff["id"],), rule=rule,
                               accepted=TariffRules.deleted, tariff_id=tariff["id"])
    if arena.is_sut(CPO):
        used = referencing(arena.harness_peer.objects(LOCATIONS), tariff["id"])
        require(not used, TariffRules.unreferenced_deleted, f"the CPO deleted the Tariff {tariff['id']} that "
                "Connectors still name", expected="no Connector naming it", actual=used)
    return exchange


def held_by_harness(arena: OcpiArena, tariff_id: str) -> dict[str, Any]:
    """The Tariff as the harness holds it: the harness's CPO's own, or what its eMSP was pushed."""
    found = next((t for t in _own(arena) if same_id(t["id"], tariff_id)), None)
    require(found is not None, TariffRules.pushed, f"the harness holds no Tariff {tariff_id}",
            expected=tariff_id, actual=[t["id"] for t in _own(arena)])
    return found


async def stored_answer(arena: OcpiArena, tariff_id: str) -> HttpExchange:
    """An eMSP under test's answer to a GET of the harness's Tariff ``tariff_id``."""
    return await loc.get(arena, arena.sut_url(TARIFFS, tariff_id), TARIFFS)


async def held_by_sut(arena: OcpiArena, tariff: dict[str, Any]) -> dict[str, Any] | None:
    """The Tariff as the SUT holds it: an eMSP's by GET on its Receiver; a CPO's from its list
    (date_from: the Tariff's last_updated, so a list that still holds it must show it). None when the
    SUT does not hold it."""
    if arena.is_sut(EMSP):
        exchange = await stored_answer(arena, tariff["id"])
        if exchange.status == 404 or not _success(exchange):
            return None
        found = expect_success(exchange.status, exchange.response_body)
        require(isinstance(found, dict), TariffRules.stored, "a GET of the Tariff answered no object",
                expected="a Tariff", actual=found)
    else:
        listed = (await listing(arena, date_from=tariff["last_updated"])).items
        found = next((t for t in listed if same_id(t.get("id"), tariff["id"])), None)
        if found is None:
            return None
    schemas.check(TARIFF, found)
    return found


def _success(exchange: HttpExchange) -> bool:
    try:
        expect_success(exchange.status, exchange.response_body)
    except (PeerViolation, ValueError):   # any error envelope, or none: not held
        return False
    return True


async def must_hold(arena: OcpiArena, tariff: dict[str, Any]) -> dict[str, Any]:
    """The Tariff as the SUT holds it (``held_by_sut``); its absence fails stored (an eMSP) or listed (a CPO)."""
    found = await held_by_sut(arena, tariff)
    rule = TariffRules.stored if arena.is_sut(EMSP) else TariffRules.listed
    require(found is not None, rule, f"the SUT does not hold the Tariff {tariff['id']} pushed",
            expected=tariff["id"], actual=None)
    return found


def check_held(arena: OcpiArena, field: str, expected: Any, actual: Any) -> None:
    """The SUT holds what the CPO pushed: an eMSP as stored, a CPO in its list; compared as the text reads
    it (CiStrings ignoring case, null as absent)."""
    rule = TariffRules.stored if arena.is_sut(EMSP) else TariffRules.listed_as_pushed
    if not schemas.same_object({field: expected}, {field: actual}):
        violated(rule, f"the SUT holds another {field} than was pushed", expected=expected, actual=actual)


def later(tariff: dict[str, Any], seconds: int = 60) -> str:
    """A last_updated ``seconds`` after the Tariff's: for a PUT the harness's CPO sends again."""
    return seconds_later(tariff["last_updated"], seconds)


def same(a: Any, b: Any) -> bool:
    """Equal as the text reads a Tariff's members (CiStrings ignoring case, null as absent)."""
    return schemas.same_object({"v": a}, {"v": b})


async def listing(arena: OcpiArena, **query: Any):
    """Every page of the CPO under test's Tariff list for ``query`` (see ``ocpi_locations.walk``)."""
    return await loc.walk(arena, listing=LISTING, **query)


async def sut_tariffs(arena: OcpiArena) -> list[dict[str, Any]]:
    """The Tariffs the CPO under test lists (registered first)."""
    await ocpi_credentials.registered(arena)
    return (await listing(arena)).items


async def fetch(arena: OcpiArena, date_from: str | None = None) -> HttpExchange:
    """An eMSP under test pulls the harness CPO's Tariffs (``fetch_tariffs``): its first GET, on the list."""
    await ocpi_credentials.registered(arena)
    body = {"date_from": date_from} if date_from else {}
    return await arena.exchange(EMSP, "GET", TARIFFS, (), trigger=("fetch_tariffs", body),
                                rule=TariffRules.pulled_by_list)


def sample(arena: OcpiArena, predicate=lambda tariff: True) -> dict[str, Any]:
    """A Tariff of the harness's CPO that fits ``predicate``; not applicable without."""
    found = next((t for t in _own(arena) if predicate(t)), None)
    if found is None:
        raise NotApplicable("the harness's CPO holds no such Tariff")
    return found
