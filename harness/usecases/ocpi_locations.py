"""Locations dialogues (module at 2.3.0): pulling the Sender's list page by page, pushing from
the CPO to the eMSP's Receiver, and reading one object back from the SUT. Rules L1-L7 are in
harness/reference/ocpi/locations.py, P1-P8 in harness/ocpi/pagination.py.

Pushes are played from either side: the harness's CPO sends them itself; a CPO under test is
asked by the actuator (``push_location``, ``patch_evse_status``, ``patch_connector``) and its
request is awaited on the harness's Receiver, which judges it (schema, ids, last_updated).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

from harness.errors import NotApplicable
from harness.ocpi import schemas
from harness.ocpi.envelope import StatusError, expect_success
from harness.ocpi.pagination import PageWalker
from harness.ocpi.timestamps import parse_datetime
from harness.ocpi_arena import CPO, OcpiArena
from harness.reference.ocpi import Served
from harness.reference.ocpi.locations import KINDS
from harness.reference.ocpi.peer import LOCATIONS, RECEIVER, SENDER
from harness.transport.http import HttpExchange
from harness.verdict import require

MAX_PAGES = 200   # a walk longer than this is the SUT looping, not paging


def sut_locations_url(arena: OcpiArena) -> str:
    """The SUT's locations endpoint (Sender of a CPO, Receiver of an eMSP) once registered."""
    role = SENDER if arena.sut_role == CPO else RECEIVER
    try:
        return arena.harness.peer_endpoints.endpoint(LOCATIONS, role).url.rstrip("/")
    except StatusError:
        raise NotApplicable(f"the SUT's version details list no locations {role} endpoint") from None


def sut_object_url(arena: OcpiArena, ids: tuple[str, ...]) -> str:
    """Where the SUT serves one Location, EVSE or Connector: the Sender by ids (L2), the
    Receiver by the owning CPO's party and ids (L7)."""
    base = sut_locations_url(arena)
    if arena.sut_role != CPO:
        base += f"/{arena.harness.identity.country_code}/{arena.harness.identity.party_id}"
    return "/".join([base, *ids])


async def sut_object(arena: OcpiArena, ids: tuple[str, ...], rule: str) -> dict[str, Any]:
    """L2/L7: the object as the SUT holds it, checked against its schema."""
    exchange = await arena.harness.send("GET", sut_object_url(arena, ids), token=arena.harness.peer_token,
                                        module=LOCATIONS)
    data = expect_success(exchange.status, exchange.response_body)
    kind = KINDS[len(ids) - 1]
    require(isinstance(data, dict), rule, f"GET of a {kind} answered no object", expected=kind, actual=data)
    schemas.check(kind, data)
    return data


# ------------------------------------------------------------------------------ pull
async def walk(arena: OcpiArena, **query: Any) -> PageWalker:
    """P1-P8 and L1: every page of the SUT's Location list for ``query``, each Location valid."""
    base = sut_locations_url(arena)
    walker = PageWalker(f"{base}?{urlencode(query)}" if query else base)
    while walker.next_url is not None:
        url = walker.next_url
        exchange = await arena.harness.send("GET", url, token=arena.harness.peer_token, module=LOCATIONS)
        items = expect_success(exchange.status, exchange.response_body)
        require(isinstance(items, list), "L1", f"page {walker.pages + 1} holds no list of Locations",
                expected="a JSON array", actual=type(items).__name__)
        for item in items:
            schemas.check("location", item)
        walker.feed(url, exchange.response_headers, items)
        require(walker.pages < MAX_PAGES or walker.next_url is None, "P6",
                f"the pages did not end after {MAX_PAGES} pages", actual=walker.next_url)
    return walker


def last_updated(location: dict[str, Any]):
    return parse_datetime(location["last_updated"])


# ------------------------------------------------------------------------------ push
@dataclass
class Push:
    """A push from the CPO to the Receiver: what was sent, and the answer."""
    method: str
    ids: tuple[str, ...]
    body: Any
    exchange: HttpExchange


def _addressed_to(ids: tuple[str, ...], method: str):
    wanted = [i.lower() for i in ids]

    def match(served: Served) -> bool:
        parts = [p.lower() for p in served.exchange.path.rstrip("/").split("/")]
        return served.module == LOCATIONS and served.method == method and parts[-len(wanted):] == wanted

    return match


async def _push(arena: OcpiArena, method: str, ids: tuple[str, ...], action: str, body: dict[str, Any],
                own) -> Push:
    if arena.is_sut(CPO):
        start, since = arena.mark(), arena.faults()
        await arena.act(action, **body)
        rule = f"L3/L4: the CPO pushes what it was asked to ({action})"
        served = await arena.expect_request(_addressed_to(ids, method), after=start, rule=rule,
                                            what=f"a locations {method} of {'/'.join(ids)}",
                                            why=f"after the actuator action {action}")
        arena.check_served(served, since=since, rule=rule, what=f"the SUT's locations {method}")
        return Push(method, ids, served.body(), served.exchange)
    exchange = await own()
    return Push(method, ids, _json(exchange.request_body), exchange)


def _json(body: bytes) -> Any:
    return json.loads(body) if body else None


async def push_location(arena: OcpiArena, location_id: str) -> Push:
    """L3: the CPO PUTs a whole Location."""
    return await _push(arena, "PUT", (location_id,), "push_location", {"location_id": location_id},
                       lambda: arena.harness.push_location(location_id))


async def patch_evse_status(arena: OcpiArena, location_id: str, evse_uid: str, status: str) -> Push:
    """L4: the CPO PATCHes an EVSE's status (and last_updated)."""
    ids = (location_id, evse_uid)
    return await _push(arena, "PATCH", ids, "patch_evse_status",
                       {"location_id": location_id, "evse_uid": evse_uid, "status": status},
                       lambda: arena.harness.patch_own(ids, {"status": status}))


async def patch_connector(arena: OcpiArena, location_id: str, evse_uid: str, connector_id: str,
                          tariff_ids: list[str]) -> Push:
    """L4: the CPO PATCHes a Connector's tariff_ids (and last_updated)."""
    ids = (location_id, evse_uid, connector_id)
    return await _push(arena, "PATCH", ids, "patch_connector",
                       {"location_id": location_id, "evse_uid": evse_uid, "connector_id": connector_id,
                        "tariff_ids": tariff_ids},
                       lambda: arena.harness.patch_own(ids, {"tariff_ids": tariff_ids}))


def pushed_location(arena: OcpiArena) -> tuple[str, str, str]:
    """(location id, EVSE uid, connector id) the CPO pushes: the profile's first Location for a
    CPO under test, the harness's own first Location otherwise."""
    if arena.is_sut(CPO):
        entries = [e for e in arena.profile.get("ocpi.locations", []) if e.get("evses")]
        if not entries:
            raise NotApplicable("the profile lists no [[ocpi.locations]] with evses for the CPO to push")
        evse = entries[0]["evses"][0]
        return entries[0]["id"], evse["uid"], evse.get("connectors", ["1"])[0]
    location = arena.harness.locations.all()[0]
    evse = location["evses"][0]
    return location["id"], evse["uid"], evse["connectors"][0]["id"]
