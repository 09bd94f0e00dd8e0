"""Locations dialogues (module at 2.3.0): pulling the Sender's list page by page, pushing from
the CPO to the eMSP's Receiver, and reading one object back from the SUT. The rules are the rows
of ``harness.ocpi.locations.LocationRules`` and ``harness.ocpi.pagination.PaginationRules``.

Pushes are played from either side with ``arena.exchange``: the harness's CPO sends them itself;
a CPO under test is asked by the actuator (``push_location``, ``patch_evse_status``,
``patch_connector``) and its request is awaited on the harness's Receiver, which judges it
(schema, ids, last_updated); the SUT's silence breaks the ``rule`` the caller names.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from harness.cistring import same_id
from harness.clock import utcnow
from harness.errors import NotApplicable
from harness.ocpi import schemas
from harness.ocpi.envelope import expect_success
from harness.ocpi.locations import KINDS, LOCATIONS, LocationRules, last_updated
from harness.ocpi.pagination import PageWalker, PaginationRules, object_key
from harness.ocpi.timestamps import format_datetime
from harness.ocpi.versions import VersionDetails, read_details, read_versions
from harness.arena.ocpi import OcpiArena, check_answer
from harness.roles import CPO
from harness.rules import Rule
from harness.transport.http import HttpExchange
from harness.usecases import ocpi_credentials
from harness.verdict import check_equal, require, violated

MAX_PAGES = 200   # a walk longer than this is the SUT looping, not paging


async def get(arena: OcpiArena, url: str, module: str = LOCATIONS) -> HttpExchange:
    """A GET of the SUT's ``module`` endpoint with the token of the registration."""
    return await arena.send("GET", url, token=arena.token_to_sut, module=module)


async def read_object(arena: OcpiArena, ids: tuple[str, ...]) -> tuple[dict[str, Any], HttpExchange]:
    """The object as the SUT holds it, checked against its schema (the Sender's by ids, the
    Receiver's as stored), and the answer that carried it."""
    exchange = await get(arena, arena.sut_url(LOCATIONS, *ids))
    data = expect_success(exchange.status, exchange.response_body)
    kind = KINDS[len(ids) - 1]
    rule = LocationRules.object_by_ids if arena.is_sut(CPO) else LocationRules.stored
    require(isinstance(data, dict), rule, f"GET of a {kind} answered no object", expected=kind, actual=data)
    schemas.check(kind, data)
    return data, exchange


async def sut_object(arena: OcpiArena, ids: tuple[str, ...]) -> dict[str, Any]:
    """The object as the SUT holds it (see ``read_object``)."""
    return (await read_object(arena, ids))[0]


# ------------------------------------------------------------------------------ pull
async def walk(arena: OcpiArena, *, listing: tuple[str, str, Rule] = (LOCATIONS, "location", LocationRules.listed),
               endpoints: VersionDetails | None = None, **query: Any) -> PageWalker:
    """Every page of the SUT's list of ``listing`` (module, object schema, the rule of its list;
    Locations by default) for ``query``, each object valid, the pages chained by the pagination
    rules; at the endpoint ``endpoints`` list (by default the registration's)."""
    module, kind, rule = listing
    base = arena.sut_url(module, endpoints=endpoints)
    walker = PageWalker(f"{base}?{urlencode(query)}" if query else base)
    while walker.next_url is not None:
        url = walker.next_url
        exchange = await get(arena, url, module)
        items = expect_success(exchange.status, exchange.response_body)
        require(isinstance(items, list), rule, f"page {walker.pages + 1} holds no list of {module}",
                expected="a JSON array", actual=type(items).__name__)
        for item in items:
            schemas.check(kind, item)
        walker.feed(url, exchange.response_headers, items)
        _report(walker)
        require(walker.pages < MAX_PAGES or walker.next_url is None, PaginationRules.complete,
                f"the pages did not end after {MAX_PAGES} pages", actual=walker.next_url)
    return walker


async def check_date_filter(arena: OcpiArena, everything: list[dict[str, Any]], bound: str, *,
                            listing: tuple[str, str, Rule] = (LOCATIONS, "location", LocationRules.listed),
                            **fixed: Any) -> None:
    """The list walked with ``bound`` (date_from or date_to) at the middle last_updated of
    ``everything`` holds exactly the objects on its side: date_from keeps last_updated >= it
    (inclusive), date_to keeps last_updated < it (exclusive). ``fixed``: filters every request
    carries (such as the date_from a list requires)."""
    stamps = sorted({last_updated(item) for item in everything})
    if len(stamps) < 2:
        raise NotApplicable(f"the SUT's {listing[0]} share one last_updated: no filter can split them")
    pivot = stamps[len(stamps) // 2]
    text = next(item["last_updated"] for item in everything if last_updated(item) == pivot)
    keep = (lambda stamp: stamp >= pivot) if bound == "date_from" else (lambda stamp: stamp < pivot)
    expected = [item for item in everything if keep(last_updated(item))]
    filtered = await walk(arena, listing=listing, **{**fixed, bound: text, "limit": 1})
    check_equal(PaginationRules.date_filters, f"{listing[0]} listed with {bound}={text}",
                sorted(object_key(item) for item in expected), sorted(object_key(item) for item in filtered.items))


async def sut_details(arena: OcpiArena, version: str) -> VersionDetails | None:
    """The SUT's details of ``version`` (with the registration's token), None when it does not list it."""
    listing = await arena.send("GET", arena.sut_versions_url, token=arena.token_to_sut)
    found = [v for v in read_versions(expect_success(listing.status, listing.response_body)) if v.version == version]
    if not found:
        return None
    details = await arena.send("GET", found[0].url, token=arena.token_to_sut)
    return read_details(expect_success(details.status, details.response_body))


def _report(walker: PageWalker) -> None:
    """The walk's breaks of SHOULD rows, as findings (each once)."""
    while walker.findings:
        finding = walker.findings.pop(0)
        violated(finding.rule, finding.args[0], expected=finding.expected, actual=finding.actual)


# ------------------------------------------------------------------------------ push
def _own_location(arena: OcpiArena, location_id: str) -> dict[str, Any]:
    return next(location for location in arena.harness_peer.objects(LOCATIONS)
                if same_id(location["id"], location_id))


async def push_location(arena: OcpiArena, location_id: str, *, rule: Rule) -> HttpExchange:
    """The CPO PUTs a whole Location to the Receiver."""
    body = None if arena.is_sut(CPO) else _own_location(arena, location_id)
    return await arena.exchange(CPO, "PUT", LOCATIONS, (location_id,), body, rule=rule,
                                trigger=("push_location", {"location_id": location_id}))


async def _patch(arena: OcpiArena, ids: tuple[str, ...], changes: dict[str, Any], action: str, rule: Rule,
                 **trigger: Any) -> HttpExchange:
    """The CPO PATCHes ``changes`` (and last_updated) of the object ``ids`` to the Receiver."""
    body = {**changes, "last_updated": format_datetime(utcnow())}
    return await arena.exchange(CPO, "PATCH", LOCATIONS, ids, body, rule=rule, trigger=(action, trigger))


async def patch_evse_status(arena: OcpiArena, location_id: str, evse_uid: str, status: str, *,
                            rule: Rule) -> HttpExchange:
    """The CPO PATCHes an EVSE's status."""
    return await _patch(arena, (location_id, evse_uid), {"status": status}, "patch_evse_status", rule,
                        location_id=location_id, evse_uid=evse_uid, status=status)


async def patch_connector(arena: OcpiArena, location_id: str, evse_uid: str, connector_id: str,
                          tariff_ids: list[str], *, rule: Rule) -> HttpExchange:
    """The CPO PATCHes a Connector's tariff_ids."""
    return await _patch(arena, (location_id, evse_uid, connector_id), {"tariff_ids": tariff_ids}, "patch_connector",
                        rule, location_id=location_id, evse_uid=evse_uid, connector_id=connector_id,
                        tariff_ids=tariff_ids)


def evse_uids(arena: OcpiArena, location_id: str) -> list[str]:
    """The uids of every EVSE of the Location ``location_id`` the CPO pushes: as the profile
    declares them for a CPO under test, the harness's own otherwise."""
    if arena.is_sut(CPO):
        entry = next(e for e in arena.profile.get("ocpi.locations", []) if same_id(e["id"], location_id))
        return [evse["uid"] for evse in entry.get("evses", [])]
    return [evse["uid"] for evse in _own_location(arena, location_id).get("evses", [])]


async def remove_every_evse(arena: OcpiArena, location_id: str, *, rule: Rule) -> list[str]:
    """The CPO PATCHes every EVSE of the Location to REMOVED, each accepted (the Location is then
    expired); a CPO under test is asked to make them AVAILABLE again when the test ends. Returns the
    EVSE uids."""
    uids = evse_uids(arena, location_id)
    for uid in uids:
        patch = await patch_evse_status(arena, location_id, uid, "REMOVED", rule=rule)
        check_answer(patch, LocationRules.removal, f"the PATCH of EVSE {uid} to REMOVED", success=True)
        if arena.is_sut(CPO):
            body = {"location_id": location_id, "evse_uid": uid, "status": "AVAILABLE"}
            arena.undo(f"patch_evse_status {body}", lambda body=body: arena.act(CPO, "patch_evse_status", **body))
    return uids


def _own_object(arena: OcpiArena, ids: tuple[str, ...]) -> dict[str, Any]:
    """The harness's own EVSE or Connector at ``ids``, stamped as changed now."""
    found: dict[str, Any] = _own_location(arena, ids[0])
    for key, child_id in zip(("evses", "connectors"), ids[1:]):
        id_field = "uid" if key == "evses" else "id"
        found = next(child for child in found[key] if same_id(child[id_field], child_id))
    return {**found, "last_updated": format_datetime(utcnow())}


async def push_object(arena: OcpiArena, ids: tuple[str, ...], *, rule: Rule) -> HttpExchange:
    """The CPO PUTs a whole EVSE (location, evse) or Connector (location, evse, connector) to the
    Receiver, stamped as changed now (``push_evse``, ``push_connector``)."""
    action, names = (("push_evse", ("location_id", "evse_uid")) if len(ids) == 2 else
                     ("push_connector", ("location_id", "evse_uid", "connector_id")))
    body = None if arena.is_sut(CPO) else _own_object(arena, ids)
    return await arena.exchange(CPO, "PUT", LOCATIONS, ids, body, rule=rule, trigger=(action, dict(zip(names, ids))))


async def location_pushed(arena: OcpiArena, *, rule: Rule) -> tuple[tuple[str, str, str], HttpExchange]:
    """Registered, and the CPO's first Location PUT to the Receiver and accepted: its ids
    (``pushed_location``), and the PUT."""
    await ocpi_credentials.registered(arena)
    ids = pushed_location(arena)
    push = await push_location(arena, ids[0], rule=rule)
    check_answer(push, LocationRules.put, f"the PUT of {ids[0]}", success=True)
    return ids, push


def pushed_location(arena: OcpiArena) -> tuple[str, str, str]:
    """(location id, EVSE uid, connector id) the CPO pushes: the profile's first Location for a
    CPO under test, the harness's own first Location otherwise."""
    if arena.is_sut(CPO):
        entries = [e for e in arena.profile.get("ocpi.locations", []) if e.get("evses")]
        if not entries:
            raise NotApplicable("the profile lists no [[ocpi.locations]] with evses for the CPO to push")
        evse = entries[0]["evses"][0]
        return entries[0]["id"], evse["uid"], evse.get("connectors", ["1"])[0]
    location = arena.harness_peer.objects(LOCATIONS)[0]
    evse = location["evses"][0]
    return location["id"], evse["uid"], evse["connectors"][0]["id"]
