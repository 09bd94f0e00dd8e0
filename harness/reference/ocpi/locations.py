"""The locations module of the reference peer: the CPO's Sender (its own Locations, served and
pushed) and the eMSP's Receiver (what was pushed to it), with the test data a CPO starts with.

The rules and the store are the core's (``harness/ocpi/locations.py``); these handlers move them
on and off HTTP. The CPO's actions change its own object first (the parents' ``last_updated``
follow), then push the change to the other platform's Receiver.
"""

from __future__ import annotations

import functools
import json
import random
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import datetime, timedelta, timezone
from typing import TYPE_CHECKING, Any, TypeVar, cast

from harness.clock import utcnow
from harness.ocpi.envelope import EnvelopeRules, StatusCode, StatusError, build, json_copy, read_json
from harness.ocpi.locations import KINDS, LOCATIONS, LocationRules, LocationStore, Target
from harness.ocpi.timestamps import format_datetime
from harness.ocpi.versions import RECEIVER, SENDER
from harness.profile import Profile
from harness.reference.ocpi.handler import CPO, EMSP, ModuleHandler, Reply
from harness.transport.http import HttpExchange, HttpRequest

if TYPE_CHECKING:   # imported where a Faker is built (_faker): ~50 ms of CPU a process that builds none
    from faker import Faker


SEED = 2301   # faker's seed for the sample Locations

# ------------------------------------------------------------------------------ test data
def build_location(country_code: str, party_id: str, location_id: str,
                   evses: Iterable[tuple[str, Sequence[str]]], last_updated: str, *,
                   private: bool = False) -> dict[str, Any]:
    """A complete, valid Location with AC connectors on each EVSE and one Parking place (2.3.0)
    that the first EVSE references; the first EVSE takes charging preferences
    (CHARGING_PREFERENCES_CAPABLE), the others do not. A ``private`` one is not published (spec
    000 Operating rules for Locations 6): only the owners' Token group may be shown it."""
    def connector(connector_id: str) -> dict[str, Any]:
        return {"id": connector_id, "standard": "IEC_62196_T2", "format": "SOCKET", "power_type": "AC_3_PHASE",
                "max_voltage": 230, "max_amperage": 32, "tariff_ids": ["AC-STANDARD"], "last_updated": last_updated}

    parking_id = f"{location_id}-P1"
    return {
        "country_code": country_code, "party_id": party_id, "id": location_id, "publish": not private,
        **({"publish_allowed_to": [{"group_id": f"{location_id}-OWNERS"}]} if private else {}),
        "name": f"Reference site {location_id}", "address": "Stationsplein 1", "city": "Utrecht",
        "postal_code": "3511 ED", "country": "NLD",
        "coordinates": {"latitude": "52.089444", "longitude": "5.110278"},
        "parking_type": "PARKING_LOT", "time_zone": "Europe/Amsterdam",
        "evses": [{"uid": uid, "status": "AVAILABLE",
                   "capabilities": ["RFID_READER"] + (["CHARGING_PREFERENCES_CAPABLE"] if index == 0 else []),
                   "connectors": [connector(c) for c in connectors], "last_updated": last_updated,
                   **({"parking": [{"parking_id": parking_id, "evse_position": "LEFT"}]} if index == 0 else {})}
                  for index, (uid, connectors) in enumerate(evses)],
        "parking_places": [{"id": parking_id, "vehicle_types": ["PERSONAL_VEHICLE"], "restricted_to_type": False,
                            "reservation_required": False, "roofed": False}],
        "last_updated": last_updated,
    }


@functools.cache
def _faker(locale: str | None) -> Faker:
    from faker import Faker
    return Faker(locale)


def seeded_faker(seed: int, locale: str | None = None) -> Faker:
    """Faker seeded with ``seed``, to draw from within one call that does not wait: one instance per
    locale serves every such call, seeded again each time, so each draws what a new instance would
    (building one is ~5 ms of CPU, and the samples are drawn for every OCPI peer a test starts)."""
    fake = _faker(locale)
    fake.seed_instance(seed)
    return fake


class _OwnDraws:
    """What a new ``Faker(locale)`` seeded with ``seed`` draws, on the one shared instance of the locale: its draws
    come from a generator of this object's own (``random``), put in for the length of each call (a draw never
    waits, so no other caller draws in between)."""

    def __init__(self, seed: int, locale: str | None):
        self.random = random.Random(seed)   # what seed_instance(seed) gives a new instance
        self._shared = _faker(locale)

    def __getattr__(self, name: str) -> Any:
        provider = getattr(self._shared, name)
        if not callable(provider):
            return provider

        def draw(*args: Any, **kwargs: Any) -> Any:
            shared, own = self._shared, self.random
            before, shared.random = shared.random, own
            try:
                return provider(*args, **kwargs)
            finally:
                shared.random = before
        return draw


def own_faker(seed: int, locale: str | None = None) -> Faker:
    """A faker of one's own, seeded with ``seed``, to draw from for as long as one likes (a handler's ids, a test's
    values): the draws of a new ``Faker(locale)`` seeded so, without building one (0.75 ms of CPU each, against 5 µs)."""
    return cast("Faker", _OwnDraws(seed, locale))


T = TypeVar("T")
SAMPLES_KEPT = 64   # argument sets whose samples stay drawn (a run uses a handful: the profile's parties, the harness's)


def drawn_once(sample: Callable[..., T]) -> Callable[..., T]:
    """``sample``, whose draws depend on its arguments only (seeded faker, fixed time stamps), drawn once per
    arguments: every call gets a copy of its own to change. Faker's draws cost ~3 ms of CPU a list, and the samples
    are drawn for both OCPI peers of every test."""
    drawn: dict[str, Any] = {}

    @functools.wraps(sample)
    def once(*args: Any, **kwargs: Any) -> T:
        key = json.dumps([args, kwargs], sort_keys=True, default=repr)
        if key not in drawn:
            if len(drawn) >= SAMPLES_KEPT:
                drawn.clear()
            drawn[key] = sample(*args, **kwargs)
        return json_copy(drawn[key])
    return once


def site(fake: Faker) -> dict[str, Any]:
    """Where a Location is, drawn from ``fake`` (a Dutch locale): name, street, city, postcode and
    coordinates of a real Dutch place (6 decimals, as GeoLocation allows)."""
    latitude, longitude, city, _, time_zone = fake.local_latlng(country_code="NL")
    return {"name": f"{fake.company()} {city}"[:255], "address": fake.street_address()[:45], "city": city[:45],
            "postal_code": fake.postcode()[:10], "time_zone": time_zone,
            "coordinates": {"latitude": f"{float(latitude):.6f}", "longitude": f"{float(longitude):.6f}"}}


@drawn_once
def sample_locations(country_code: str, party_id: str, count: int = 5,
                     first: datetime = datetime(2024, 3, 1, 9, 0, tzinfo=timezone.utc)) -> list[dict[str, Any]]:
    """``count`` Locations a day apart, each with two EVSEs of one connector, at places drawn from
    faker seeded with ``SEED``."""
    fake = seeded_faker(SEED, "nl_NL")
    return [{**build_location(country_code, party_id, f"LOC-{n:04d}", [(f"EVSE-{n:04d}-{e}", ["1"]) for e in (1, 2)],
                              format_datetime(first + timedelta(days=n - 1))), **site(fake)}
            for n in range(1, count + 1)]


def profile_locations(country_code: str, party_id: str, entries: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Locations built from the profile's ``[[ocpi.locations]]`` entries (``private = true``: not published)."""
    return [build_location(country_code, party_id, entry["id"],
                           [(evse["uid"], evse.get("connectors", ["1"])) for evse in entry.get("evses", [])],
                           entry.get("last_updated", "2024-03-01T09:00:00Z"), private=entry.get("private", False))
            for entry in entries]


# ------------------------------------------------------------------------------ the CPO: Sender
class LocationsSender(ModuleHandler):
    """The CPO's own Locations: served by list and by ids, pushed to the eMSP's Receiver."""

    module, role, interface = LOCATIONS, CPO, SENDER
    listed_at = ("2.2.1", "2.3.0")   # the module is 2.3.0; listed at 2.2.1 too, the relationship's version
    store: LocationStore

    @classmethod
    def stock(cls, identity, profile: Profile, *, from_profile: bool) -> list[dict[str, Any]]:
        """The profile's ``[[ocpi.locations]]`` for a CPO the profile describes; sample ones otherwise."""
        entries = profile.get("ocpi.locations", []) if from_profile else []
        if entries:
            return profile_locations(identity.country_code, identity.party_id, entries)
        return sample_locations(identity.country_code, identity.party_id)

    async def serve(self, request: HttpRequest, rest: list[str]) -> Reply:
        self.peer.only(request, "GET")
        if len(rest) > 3:
            raise StatusError(LocationRules.object_by_ids, f"no locations object at {request.path}",
                              status_code=StatusCode.CLIENT_ERROR, http_status=404)
        if rest:
            target = Target(tuple(rest))
            return Reply(200, build(self.peer.outgoing(target.kind, self.store.get_owned(target))))
        return self.peer.list_page(request, self.store.all(), KINDS[0])

    async def push(self, method: str, ids: tuple[str, ...], body: Any) -> HttpExchange:
        """PUT a whole object or PATCH a change of ours to the eMSP's Receiver."""
        sent = self.peer.outgoing(Target(ids).kind, body, whole=method == "PUT")
        return await self.peer.call(method, LOCATIONS, ids, sent)

    async def push_location(self, location_id: str) -> HttpExchange:
        location = self.store.get_owned(Target((location_id,)))
        return await self.push("PUT", (location["id"],), location)

    async def patch_own(self, ids: tuple[str, ...], changes: dict[str, Any]) -> HttpExchange:
        """Change one of our objects (its parents follow), then PATCH the change to the Receiver."""
        body = {**changes, "last_updated": format_datetime(utcnow())}
        identity = self.peer.identity
        self.store.patch(identity.country_code, identity.party_id, Target(ids), body)
        return await self.push("PATCH", ids, body)

    async def push_object(self, ids: tuple[str, ...]) -> HttpExchange:
        """Stamp one of our EVSEs or Connectors as changed now (its parents follow), then PUT it whole."""
        identity = self.peer.identity
        target = Target(ids)
        obj = {**self.store.get_owned(target), "last_updated": format_datetime(utcnow())}
        self.store.put(identity.country_code, identity.party_id, target, obj)
        return await self.push("PUT", ids, obj)

    async def act_push_evse(self, location_id: str, evse_uid: str) -> None:
        self.peer.background.spawn(self.push_object((location_id, evse_uid)))

    async def act_push_connector(self, location_id: str, evse_uid: str, connector_id: str) -> None:
        self.peer.background.spawn(self.push_object((location_id, evse_uid, connector_id)))

    async def act_push_location(self, location_id: str) -> None:
        self.peer.background.spawn(self.push_location(location_id))

    async def act_patch_evse_status(self, location_id: str, evse_uid: str, status: str) -> None:
        self.peer.background.spawn(self.patch_own((location_id, evse_uid), {"status": status}))

    async def act_patch_connector(self, location_id: str, evse_uid: str, connector_id: str,
                                  tariff_ids: list[str]) -> None:
        self.peer.background.spawn(self.patch_own((location_id, evse_uid, connector_id), {"tariff_ids": tariff_ids}))


# ------------------------------------------------------------------------------ the eMSP: Receiver
class LocationsReceiver(ModuleHandler):
    """What CPOs pushed to the eMSP, by their party: stored by PUT, changed by PATCH, read by GET."""

    module, role, interface = LOCATIONS, EMSP, RECEIVER
    listed_at = ("2.2.1", "2.3.0")
    store: LocationStore

    async def serve(self, request: HttpRequest, rest: list[str]) -> Reply:
        if not 3 <= len(rest) <= 5:
            raise StatusError(LocationRules.receiver_url, "receiver URLs are {locations}/{country_code}/{party_id}/"
                              "{location_id}[/{evse_uid}[/{connector_id}]]", status_code=StatusCode.CLIENT_ERROR,
                              http_status=404)
        country_code, party_id, target = rest[0], rest[1], Target(tuple(rest[2:]))
        if request.method == "GET":
            found = self.store.get(country_code, party_id, target)
            if found is None:
                raise StatusError(LocationRules.stored, f"no {target.kind} {'/'.join(target.ids)} was pushed",
                                  status_code=StatusCode.UNKNOWN_LOCATION, http_status=404)
            return Reply(200, build(self.peer.outgoing(target.kind, found, owned=False)))
        if request.method == "DELETE":
            raise StatusError(LocationRules.removal, "Locations, EVSEs and Connectors are never deleted: PATCH status "
                              "REMOVED", status_code=StatusCode.CLIENT_ERROR, http_status=405)
        self.peer.only(request, "GET", "PUT", "PATCH")
        try:
            body = read_json(request.body)
        except ValueError:
            raise StatusError(EnvelopeRules.request_json, "request body is not valid JSON",
                              status_code=StatusCode.INVALID_PARAMETERS, http_status=400) from None
        if request.method == "PUT":
            created = self.store.put(country_code, party_id, target, body)
            return Reply(201 if created else 200, build())
        self.store.patch(country_code, party_id, target, body)
        return Reply(200, build())
