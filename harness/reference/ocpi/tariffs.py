"""The tariffs module of the reference peer: the CPO's Sender (its own Tariffs, listed and pushed) and
the eMSP's Receiver (what was pushed to it, and a pull of the CPO's list).

The rules and the store are the core's (``harness/ocpi/tariffs.py``); these handlers move them on and
off HTTP. Test data is drawn from faker seeded with ``SEED``: energy, time, parking and start-fee
prices with time-of-day, day-of-week, power and reservation restrictions, each dimension ending on an
unrestricted element (the advised fallback). The ids of Tariffs an action creates carry a random suffix
so that Tariffs pushed to a real eMSP in one run never collide with an earlier run's.

The reference CPO pushes a change as the whole Tariff again (PUT, last_updated moved on by at least a
second) and deletes only a Tariff no Connector of its Locations names in tariff_ids. The reference eMSP
answers a GET or DELETE of an unknown Tariff with 2000 and HTTP 404, a PATCH with HTTP 405, and a pull
replaces the Tariffs it held of that CPO by the list it received.
"""

from __future__ import annotations

import functools
import secrets
from datetime import timedelta
from typing import TYPE_CHECKING, Any
from urllib.parse import urlencode, urljoin

from harness.clock import utcnow
from harness.ocpi.envelope import StatusCode, StatusError, build, expect_success
from harness.ocpi.locations import LOCATIONS
from harness.ocpi.pagination import read_page_headers
from harness.ocpi.tariffs import (
    ENERGY, FLAT, PARKING_TIME, TARIFF, TARIFFS, TIME, TariffRules, TariffStore, referencing, unknown_tariff)
from harness.ocpi.timestamps import format_datetime, parse_datetime
from harness.ocpi.versions import RECEIVER, SENDER
from harness.profile import Profile
from harness.reference.ocpi.handler import CPO, EMSP, ModuleHandler, Reply, check_pushing_party
from harness.reference.ocpi.locations import drawn_once, seeded_faker
from harness.reference.ocpi.sessions import MAX_PAGES, _fake, _json_body
from harness.transport.http import HttpExchange, HttpRequest

if TYPE_CHECKING:   # imported where a Faker is built (locations._faker)
    from faker import Faker

SEED = 1111
SAMPLE_IDS = ("AC-STANDARD", "DC-FAST", "AC-NIGHT", "AC-WEEKEND", "DC-RESERVE", "AC-FREE")
WEEKDAYS = ("MONDAY", "TUESDAY", "WEDNESDAY", "THURSDAY", "FRIDAY")


def _component(fake: Faker, kind: str, low: float, high: float, step: int) -> dict[str, Any]:
    return {"type": kind, "price": round(fake.pyfloat(min_value=low, max_value=high, right_digits=2), 2),
            "vat": fake.random_element((9.0, 19.0, 21.0)), "step_size": step}


def build_tariff(fake: Faker, owner: tuple[str, str], tariff_id: str, shape: str = "AC-STANDARD", *,
                 stamp: str | None = None) -> dict[str, Any]:
    """A Tariff of the CPO ``owner`` (country_code, party_id) of one ``shape`` (the sample ids name them):
    restricted elements first, then an unrestricted fallback per dimension."""
    energy = _component(fake, ENERGY, 0.25, 0.45, 1)
    if shape == "AC-FREE":
        elements: list[dict[str, Any]] = [{"price_components": [{"type": FLAT, "price": 0.0, "step_size": 0}]}]
    elif shape == "DC-FAST":
        elements = [{"price_components": [_component(fake, ENERGY, 0.55, 0.79, 1)],
                     "restrictions": {"min_power": 50.0}},
                    {"price_components": [energy, _component(fake, FLAT, 0.5, 1.5, 0)]}]
    elif shape == "AC-NIGHT":
        elements = [{"price_components": [_component(fake, ENERGY, 0.15, 0.22, 1)],
                     "restrictions": {"start_time": "22:00", "end_time": "06:00"}},
                    {"price_components": [energy]}]
    elif shape == "AC-WEEKEND":
        elements = [{"price_components": [_component(fake, PARKING_TIME, 1.0, 3.0, 300)],
                     "restrictions": {"day_of_week": list(WEEKDAYS), "start_time": "09:00", "end_time": "18:00",
                                      "min_duration": 7200}},
                    {"price_components": [energy, _component(fake, TIME, 0.5, 2.0, 60)]},
                    {"price_components": [{"type": PARKING_TIME, "price": 0.0, "step_size": 1}]}]
    elif shape == "DC-RESERVE":
        elements = [{"price_components": [_component(fake, TIME, 1.0, 4.0, 60), _component(fake, FLAT, 1.0, 2.0, 0)],
                     "restrictions": {"reservation": "RESERVATION"}},
                    {"price_components": [energy]},
                    {"price_components": [{"type": TIME, "price": 0.0, "step_size": 1},
                                          {"type": FLAT, "price": 0.0, "step_size": 0}]}]
    else:
        elements = [{"price_components": [energy]}]
    tariff: dict[str, Any] = {
        "country_code": owner[0], "party_id": owner[1], "id": tariff_id,
        "currency": fake.random_element(("EUR", "EUR", "CHF", "GBP")), "type": "REGULAR",
        "tariff_alt_text": [{"language": "en", "text": f"{fake.catch_phrase()} ({shape})"[:512]}],
        "tariff_alt_url": f"https://{fake.domain_name()}/tariffs/{tariff_id.lower()}",
        "elements": elements, "last_updated": stamp or format_datetime(utcnow())}
    if shape == "DC-FAST":
        tariff["min_price"] = {"excl_vat": 1.0, "incl_vat": 1.21}
        tariff["max_price"] = {"excl_vat": 60.0, "incl_vat": 72.6}
    if shape == "AC-STANDARD":
        tariff["energy_mix"] = {"is_green_energy": True, "supplier_name": fake.company()[:64],
                                "energy_sources": [{"source": "WIND", "percentage": 60.0},
                                                   {"source": "SOLAR", "percentage": 40.0}]}
    return tariff


@drawn_once
def sample_tariffs(owner: tuple[str, str]) -> list[dict[str, Any]]:
    """The CPO's sample Tariffs, last updated a few hours apart (for the list's date filters)."""
    fake = seeded_faker(SEED)
    stamp = parse_datetime("2024-01-15T07:00:00Z")
    return [build_tariff(fake, owner, tariff_id, tariff_id, stamp=format_datetime(stamp + timedelta(hours=4 * n)))
            for n, tariff_id in enumerate(SAMPLE_IDS)]


def later_stamp(before: str | None) -> str:
    """Now, or a second after ``before`` when now is not later (a change always moves last_updated)."""
    now = utcnow().replace(microsecond=0)
    if before is not None and parse_datetime(before) >= now:
        now = parse_datetime(before) + timedelta(seconds=1)
    return format_datetime(now)


# ------------------------------------------------------------------------------ the CPO: Sender
class TariffsSender(ModuleHandler):
    """The CPO's own Tariffs: listed (no object GET in 2.2.1), pushed whole as they are made and
    changed, deleted when no Connector uses them."""

    module, role, interface = TARIFFS, CPO, SENDER
    store: TariffStore

    @functools.cached_property
    def fake(self) -> Faker:
        """This Sender's own faker, made when it first draws."""
        return _fake(SEED + 1)

    @classmethod
    def stock(cls, identity, profile: Profile, *, from_profile: bool) -> list[dict[str, Any]]:
        return sample_tariffs((identity.country_code, identity.party_id))

    @property
    def owner(self) -> tuple[str, str]:
        return self.peer.identity.country_code, self.peer.identity.party_id

    async def serve(self, request: HttpRequest, rest: list[str]) -> Reply:
        self.peer.only(request, "GET")
        if rest:
            raise StatusError(TariffRules.pulled_by_list, f"no tariffs object at {request.path}: the Sender "
                              "interface is the list only", status_code=StatusCode.CLIENT_ERROR, http_status=404)
        return self.peer.list_page(request, self.store.all(), TARIFF)

    async def push(self, tariff: dict[str, Any]) -> HttpExchange:
        """PUT a Tariff of ours, whole, to the eMSP's Receiver."""
        return await self.peer.call("PUT", TARIFFS, (tariff["id"],), self.peer.outgoing(TARIFF, tariff))

    async def act_push_tariff(self, tariff_id: str | None = None, shape: str = "AC-STANDARD") -> HttpExchange:
        """A new Tariff of ``shape`` (one of the sample ids), or one of ours pushed again whole: a PUT."""
        held = self.store.owned(tariff_id) if tariff_id else None
        if held is None:
            new_id = tariff_id or f"{shape}-{secrets.token_hex(4).upper()}"
            tariff = build_tariff(self.fake, self.owner, new_id, shape)
        else:
            tariff = {**held, "last_updated": later_stamp(held["last_updated"])}
        self.store.put(*self.owner, tariff["id"], tariff)
        return await self.push(tariff)

    async def act_update_tariff(self, tariff_id: str, price: float | None = None,
                                alt_text: bool = True) -> HttpExchange:
        """A Tariff changes: its first price set to ``price`` (drawn when None), its alternative text kept
        or dropped (``alt_text``); the whole Tariff PUT again, last_updated moved on."""
        held = self.store.owned(tariff_id)
        if held is None:
            raise StatusError(TariffRules.pushed, f"no Tariff {tariff_id} here", status_code=StatusCode.CLIENT_ERROR)
        tariff = {k: v for k, v in held.items() if alt_text or k != "tariff_alt_text"}
        tariff["elements"] = [{**e, "price_components": [dict(c) for c in e["price_components"]]}
                              for e in held["elements"]]
        first = tariff["elements"][0]["price_components"][0]
        first["price"] = price if price is not None else round(first["price"] + self.fake.random_int(1, 9) / 100, 2)
        tariff["last_updated"] = later_stamp(held["last_updated"])
        self.store.put(*self.owner, tariff_id, tariff)
        return await self.push(tariff)

    async def act_delete_tariff(self, tariff_id: str) -> HttpExchange:
        """A Tariff no longer used is deleted here and at the eMSP (DELETE); one a Connector still names
        is refused."""
        used = referencing(self.peer.store(LOCATIONS).all(), tariff_id)
        if used:
            raise StatusError(TariffRules.unreferenced_deleted, f"Tariff {tariff_id} is in use by {used}",
                              status_code=StatusCode.CLIENT_ERROR)
        held = self.store.owned(tariff_id)
        self.store.delete(*self.owner, held["id"] if held else tariff_id)
        return await self.peer.call("DELETE", TARIFFS, (held["id"] if held else tariff_id,))


# ------------------------------------------------------------------------------ the eMSP: Receiver
class TariffsReceiver(ModuleHandler):
    """What CPOs pushed to the eMSP, by their party: stored by PUT, removed by DELETE, read by GET; or
    pulled from the CPO's list."""

    module, role, interface = TARIFFS, EMSP, RECEIVER
    store: TariffStore

    async def serve(self, request: HttpRequest, rest: list[str]) -> Reply:
        if len(rest) != 3:
            raise StatusError(TariffRules.receiver_url, "Receiver URLs are {tariffs}/{country_code}/{party_id}/"
                              "{tariff_id}", status_code=StatusCode.INVALID_PARAMETERS, http_status=404)
        country_code, party_id, tariff_id = rest
        check_pushing_party(self.peer, country_code, party_id, TariffRules.receiver_url, "CPO")
        if request.method == "GET":
            found = self.store.get(country_code, party_id, tariff_id)
            if found is None:
                raise unknown_tariff(rest)
            return Reply(200, build(self.peer.outgoing(TARIFF, found, owned=False)))
        if request.method == "PATCH":
            raise StatusError(TariffRules.put_only, "PATCH is not defined for Tariffs in 2.2.1: PUT the whole "
                              "Tariff", status_code=StatusCode.CLIENT_ERROR, http_status=405)
        self.peer.only(request, "GET", "PUT", "DELETE")
        if request.method == "DELETE":
            self.store.delete(country_code, party_id, tariff_id)
            return Reply(200, build())
        created = self.store.put(country_code, party_id, tariff_id, _json_body(request))
        return Reply(201 if created else 200, build())

    async def act_fetch_tariffs(self, date_from: str | None = None) -> None:
        """The eMSP pulls the CPO's Tariffs (all, or changed since ``date_from``) page by page along the
        Link headers; a full pull replaces the Tariffs it held of that CPO."""
        query = f"?{urlencode({'date_from': date_from})}" if date_from else ""
        url: str | None = f"{self.peer.other_url(TARIFFS)}{query}"
        received: list[dict[str, Any]] = []
        for _ in range(MAX_PAGES):
            if url is None:
                break
            exchange = await self.peer.send("GET", url, token=self.peer.peer_token, module=TARIFFS)
            received.extend(expect_success(exchange.status, exchange.response_body) or [])
            following = read_page_headers(exchange.response_headers).next_url
            url = urljoin(url, following) if following else None
        party = self.peer.peer_party
        if not date_from and party is not None:
            for held in self.store.all():
                if party.same_as(type(party)(held["country_code"], held["party_id"])):
                    self.store.delete(held["country_code"], held["party_id"], held["id"])
        for tariff in received:
            self.store.put(tariff["country_code"], tariff["party_id"], tariff["id"], tariff)
