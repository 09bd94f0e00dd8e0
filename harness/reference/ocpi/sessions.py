"""The sessions module of the reference peer: the CPO's Sender (its own Sessions, listed, pushed,
and its answer to charging preferences) and the eMSP's Receiver (what was pushed to it, and the
charging preferences its drivers set).

The rules and the store are the core's (``harness/ocpi/sessions.py``); these handlers move them on
and off HTTP. The CPO's actions change its own Session first (the store refuses what the status
table forbids), then push the change: PUT for a new Session, PATCH with only the changed fields
and last_updated otherwise. Test data is drawn from faker seeded with ``SEED``; session ids carry
a random suffix so that Sessions pushed to a real eMSP in one run never collide with an earlier
run's (a Session is never deleted).

The reference CPO's answer to ChargingPreferences (the specification leaves the choice to the
CPO): not CHARGING_PREFERENCES_CAPABLE → HTTP 404, 2001; a Session that is no longer ongoing or a
departure in the past → NOT_POSSIBLE; a ProfileType outside ``SUPPORTED_PROFILES`` →
PROFILE_TYPE_NOT_SUPPORTED; CHEAP and GREEN need departure_time (DEPARTURE_REQUIRED) and
energy_need (ENERGY_NEED_REQUIRED); anything else is ACCEPTED.
"""

from __future__ import annotations

import functools
import json
import secrets
from collections.abc import Mapping
from datetime import timedelta
from typing import TYPE_CHECKING, Any
from urllib.parse import urlencode, urljoin

from harness.cistring import same_id
from harness.clock import utcnow
from harness.ocpi import schemas
from harness.ocpi.envelope import EnvelopeRules, StatusCode, StatusError, build, expect_success
from harness.ocpi.locations import LOCATIONS, Target, checked
from harness.ocpi.pagination import read_page_headers
from harness.ocpi.sessions import (
    ACTIVE, CHARGING_PREFERENCES, COMPLETED, NA, PENDING, PREFERENCES_CAPABLE, RESERVATION, SESSIONS, SessionRules,
    SessionStore, unknown_session)
from harness.ocpi.timestamps import format_datetime, parse_datetime
from harness.ocpi.versions import RECEIVER, SENDER
from harness.profile import Profile
from harness.reference.ocpi.handler import CPO, EMSP, ModuleHandler, check_pushing_party, Reply
from harness.reference.ocpi.locations import LocationsSender, drawn_once, own_faker, seeded_faker
from harness.transport.http import HttpExchange, HttpRequest

if TYPE_CHECKING:   # imported where a Faker is built (locations._faker)
    from faker import Faker

SEED = 2211
SESSION = "session"   # the schema of a Session
SUPPORTED_PROFILES = ("REGULAR", "FAST", "CHEAP")
ONGOING = (PENDING, ACTIVE, RESERVATION)
PRICE_PER_KWH = 0.35   # excl. VAT, EUR
VAT = 0.21
MAX_PAGES = 200   # a list longer than this is the other platform looping


def _json_body(request: HttpRequest) -> Any:
    try:
        return json.loads(request.body)
    except ValueError:
        raise StatusError(EnvelopeRules.request_json, "request body is not valid JSON",
                          status_code=StatusCode.INVALID_PARAMETERS, http_status=400) from None


def _fake(seed: int = SEED) -> Faker:
    return own_faker(seed)


def new_session_id(fake: Faker) -> str:
    return f"SES-{fake.bothify('??##').upper()}-{secrets.token_hex(4).upper()}"


def cdr_token(fake: Faker, country_code: str, party_id: str) -> dict[str, Any]:
    """The RFID card of a driver of the eMSP ``country_code``/``party_id``."""
    return {"country_code": country_code, "party_id": party_id, "uid": fake.hexify("^^^^^^^^", upper=True),
            "type": "RFID", "contract_id": f"{country_code}-{party_id}-C{fake.numerify('########')}"}


def build_session(fake: Faker, owner: tuple[str, str], session_id: str, status: str, token: dict[str, Any],
                  place: tuple[str, str, str], start: str, *, authorization_reference: str | None = None
                  ) -> dict[str, Any]:
    """A new Session of ``owner`` (country_code, party_id) at ``place`` (location, EVSE, connector)."""
    session = {"country_code": owner[0], "party_id": owner[1], "id": session_id, "start_date_time": start,
               "kwh": 0, "cdr_token": token, "auth_method": "COMMAND" if authorization_reference else "WHITELIST",
               "location_id": place[0], "evse_uid": place[1], "connector_id": place[2],
               "meter_id": fake.bothify("MTR-########"), "currency": "EUR", "charging_periods": [],
               "status": status, "last_updated": start}
    if authorization_reference:
        session["authorization_reference"] = authorization_reference
    return session


@drawn_once
def sample_sessions(owner: tuple[str, str], locations: list[Mapping[str, Any]], count: int = 6) -> list[dict]:
    """``count`` COMPLETED Sessions a few hours apart at ``locations``, for a Sender's list."""
    fake, sessions = seeded_faker(SEED), []
    stamp = parse_datetime("2024-03-01T08:00:00Z")
    for n in range(count):
        location = locations[n % len(locations)]
        evse = location["evses"][0]
        start = stamp + timedelta(hours=5 * n)
        session = build_session(fake, owner, f"SES-SAMPLE-{n + 1:03d}", COMPLETED, cdr_token(fake, "NL", "EMS"),
                                (location["id"], evse["uid"], evse["connectors"][0]["id"]), format_datetime(start))
        kwh = round(fake.pyfloat(min_value=4, max_value=60, right_digits=2), 2)
        end = format_datetime(start + timedelta(minutes=fake.random_int(30, 240)))
        session.update(kwh=kwh, end_date_time=end, last_updated=end, total_cost=_price(kwh), charging_periods=[
            {"start_date_time": session["start_date_time"], "dimensions": [{"type": "ENERGY", "volume": kwh}]}])
        sessions.append(session)
    return sessions


def _price(kwh: float) -> dict[str, float]:
    excl = round(kwh * PRICE_PER_KWH, 2)
    return {"excl_vat": excl, "incl_vat": round(excl * (1 + VAT), 2)}


def preferences_answer(session: Mapping[str, Any], preferences: Mapping[str, Any]) -> str:
    """The reference CPO's ChargingPreferencesResponse (see the module docstring)."""
    departure = preferences.get("departure_time")
    if session["status"] not in ONGOING or (departure and parse_datetime(departure) <= utcnow()):
        return "NOT_POSSIBLE"
    if preferences["profile_type"] not in SUPPORTED_PROFILES:
        return "PROFILE_TYPE_NOT_SUPPORTED"
    if preferences["profile_type"] in ("CHEAP", "GREEN"):
        if not departure:
            return "DEPARTURE_REQUIRED"
        if preferences.get("energy_need") is None:
            return "ENERGY_NEED_REQUIRED"
    return "ACCEPTED"


def _evse(peer, location_id: str, evse_uid: str, *, owner: tuple[str, str] | None = None) -> dict | None:
    """The EVSE as this peer knows it: its own (a CPO), or as pushed to it by ``owner`` (an eMSP)."""
    store = peer.store(LOCATIONS)
    target = Target((location_id, evse_uid))
    if owner is None:
        found = store.chain(store.owned(location_id), target)
        return found[-1] if found else None
    return store.get(owner[0], owner[1], target)


def capable(evse: Mapping[str, Any] | None) -> bool:
    return evse is not None and PREFERENCES_CAPABLE in (evse.get("capabilities") or [])


# ------------------------------------------------------------------------------ the CPO: Sender
class SessionsSender(ModuleHandler):
    """The CPO's own Sessions: listed, pushed as they start and change; charging preferences answered."""

    module, role, interface = SESSIONS, CPO, SENDER
    store: SessionStore

    @functools.cached_property
    def fake(self) -> Faker:
        """This Sender's own faker, made when it first draws (most never do)."""
        return _fake()

    @classmethod
    def stock(cls, identity, profile: Profile, *, from_profile: bool) -> list[dict[str, Any]]:
        locations = [loc for loc in LocationsSender.stock(identity, profile, from_profile=from_profile)
                     if loc.get("evses")]
        return sample_sessions((identity.country_code, identity.party_id), locations) if locations else []

    async def serve(self, request: HttpRequest, rest: list[str]) -> Reply:
        if request.method == "PUT" and len(rest) == 2 and rest[1] == CHARGING_PREFERENCES:
            return self._preferences(rest[0], _json_body(request))
        self.peer.only(request, "GET")
        if rest:
            raise StatusError(SessionRules.listed, f"no sessions object at {request.path}: the Sender interface is "
                              "the list and {session_id}/charging_preferences", status_code=StatusCode.CLIENT_ERROR,
                              http_status=404)
        return self.peer.list_page(request, self.listed(), SESSION, date_from_required=True)

    def listed(self) -> list[dict[str, Any]]:
        """The Sessions the list serves: all of them, COMPLETED ones too (never deleted)."""
        return self.store.all()

    def _preferences(self, session_id: str, preferences: Any) -> Reply:
        session = self.store.owned(session_id)
        if session is None:
            raise unknown_session((session_id,), SessionRules.preferences_sent)
        if not capable(_evse(self.peer, session["location_id"], session["evse_uid"])):
            raise StatusError(SessionRules.preferences_only_capable, f"the EVSE {session['evse_uid']} of Session "
                              f"{session_id} lists no {PREFERENCES_CAPABLE}",
                              status_code=StatusCode.INVALID_PARAMETERS, http_status=404)
        checked("charging_preferences", preferences)
        return Reply(200, build(preferences_answer(session, preferences)))

    # -------------------------------------------------------------- changing a Session, then pushing it
    @property
    def owner(self) -> tuple[str, str]:
        return self.peer.identity.country_code, self.peer.identity.party_id

    def _place(self, location_id: str | None, evse_uid: str | None, connector_id: str | None) -> tuple[str, str, str]:
        """(location, EVSE, connector): those named, else the first with an EVSE (a capable one first)."""
        locations = [loc for loc in self.peer.store(LOCATIONS).all() if loc.get("evses")]
        location = next((loc for loc in locations if location_id is None or same_id(loc["id"], location_id)),
                        None)
        if location is None:
            raise StatusError(SessionRules.pushed, f"no Location {location_id} with an EVSE here",
                              status_code=StatusCode.UNKNOWN_LOCATION)
        evses = sorted(location["evses"], key=lambda evse: not capable(evse))
        evse = next((e for e in evses if evse_uid is None or same_id(e["uid"], evse_uid)), evses[0])
        connector = next((c for c in evse["connectors"] if connector_id is None or same_id(c["id"], connector_id)),
                         evse["connectors"][0])
        return location["id"], evse["uid"], connector["id"]

    def _token(self) -> dict[str, Any]:
        party = self.peer.peer_party
        return cdr_token(self.fake, party.country_code if party else "NL", party.party_id if party else "EMS")

    async def _put(self, session: dict[str, Any]) -> HttpExchange:
        self.store.put(*self.owner, session["id"], session)
        return await self.push("PUT", session["id"], session)

    async def push(self, method: str, session_id: str, body: Mapping[str, Any]) -> HttpExchange:
        """PUT a whole Session or PATCH a change of ours to the eMSP's Receiver."""
        sent = self.peer.outgoing(SESSION, body, whole=method == "PUT")
        return await self.peer.call(method, SESSIONS, (session_id,), sent)

    async def _patch(self, session_id: str, changes: dict[str, Any]) -> HttpExchange | None:
        """Change our Session (the store checks the status table), then PATCH the change; nothing is
        pushed for a COMPLETED Session (final)."""
        session = self.store.owned(session_id)
        if session is None:
            raise StatusError(SessionRules.pushed, f"no Session {session_id} here", status_code=StatusCode.CLIENT_ERROR)
        if session["status"] == COMPLETED:
            return None
        body = {**changes, "last_updated": format_datetime(utcnow())}
        self.store.patch(*self.owner, session["id"], body)
        return await self.push("PATCH", session["id"], body)

    async def act_start_session(self, status: str = ACTIVE, authorization_reference: str | None = None,
                                location_id: str | None = None, evse_uid: str | None = None,
                                connector_id: str | None = None) -> HttpExchange:
        """A driver starts charging (ACTIVE) or plugs in before the authorization (PENDING): a PUT."""
        now = format_datetime(utcnow())
        session = build_session(self.fake, self.owner, new_session_id(self.fake), status, self._token(),
                                self._place(location_id, evse_uid, connector_id), now,
                                authorization_reference=authorization_reference)
        return await self._put(session)

    async def act_reserve(self, location_id: str | None = None, evse_uid: str | None = None) -> HttpExchange:
        """A driver reserves (through the eMSP's ReserveNow): a RESERVATION Session, its evse_uid and
        connector_id #NA when no EVSE is named."""
        place = self._place(location_id, evse_uid, None)
        if evse_uid is None:
            place = (place[0], NA, NA)
        session = build_session(self.fake, self.owner, new_session_id(self.fake), RESERVATION, self._token(), place,
                                format_datetime(utcnow()), authorization_reference=f"RES-{secrets.token_hex(4)}")
        return await self._put(session)

    async def act_update_session(self, session_id: str, kwh: float | None = None, status: str | None = None,
                                 authorization_reference: str | None = None) -> HttpExchange | None:
        """Charging goes on (``kwh`` so far: a new ChargingPeriod), the status changes (to ACTIVE the
        start moves to now, a reservation gets its EVSE), or the eMSP gave a new authorization_reference."""
        session = self.store.owned(session_id)
        now = format_datetime(utcnow())
        changes: dict[str, Any] = {}
        if kwh is not None and session is not None:
            changes["kwh"] = kwh
            changes["charging_periods"] = [{"start_date_time": now, "dimensions": [
                {"type": "ENERGY", "volume": round(kwh - session["kwh"], 3)}]}]
        if status is not None:
            changes["status"] = status
            if status == ACTIVE and session is not None and session["status"] in (PENDING, RESERVATION):
                if now != session["start_date_time"]:
                    changes["start_date_time"] = now
                if same_id(session["evse_uid"], NA):
                    place = self._place(session["location_id"], None, None)
                    changes.update(evse_uid=place[1], connector_id=place[2])
        if authorization_reference is not None:
            changes["authorization_reference"] = authorization_reference
        return await self._patch(session_id, changes)

    async def act_stop_session(self, session_id: str) -> HttpExchange | None:
        """The driver stops: COMPLETED, with end_date_time and total_cost (final)."""
        session = self.store.owned(session_id)
        kwh = session["kwh"] if session else 0
        return await self._patch(session_id, {"status": COMPLETED, "end_date_time": format_datetime(utcnow()),
                                              "total_cost": _price(kwh)})


# ------------------------------------------------------------------------------ the eMSP: Receiver
class SessionsReceiver(ModuleHandler):
    """What CPOs pushed to the eMSP, by their party: stored by PUT, changed by PATCH, read by GET."""

    module, role, interface = SESSIONS, EMSP, RECEIVER
    store: SessionStore

    async def serve(self, request: HttpRequest, rest: list[str]) -> Reply:
        if len(rest) != 3:
            raise StatusError(SessionRules.receiver_url, "Receiver URLs are {sessions}/{country_code}/{party_id}/"
                              "{session_id}: a PATCH works on the whole Session only",
                              status_code=StatusCode.INVALID_PARAMETERS, http_status=404)
        country_code, party_id, session_id = rest
        self._check_party(country_code, party_id)
        if request.method == "GET":
            found = self.store.get(country_code, party_id, session_id)
            if found is None:
                raise unknown_session(rest)
            return Reply(200, build(self.peer.outgoing(SESSION, found, owned=False)))
        if request.method == "DELETE":
            raise StatusError(SessionRules.receiver_url, "Sessions are never deleted: the final status is COMPLETED",
                              status_code=StatusCode.CLIENT_ERROR, http_status=405)
        self.peer.only(request, "GET", "PUT", "PATCH")
        body = _json_body(request)
        if request.method == "PUT":
            created = self.store.put(country_code, party_id, session_id, body)
            return Reply(201 if created else 200, build())
        self.store.patch(country_code, party_id, session_id, body)
        return Reply(200, build())

    def _check_party(self, country_code: str, party_id: str) -> None:
        """The URL's party is the pushing CPO's, as its credentials roles declare it."""
        check_pushing_party(self.peer, country_code, party_id, SessionRules.receiver_url, "CPO")

    async def act_fetch_sessions(self, date_from: str) -> None:
        """Back from an outage, the eMSP pulls the Sessions changed since ``date_from`` from the CPO's
        Sender, page by page along the Link headers, and keeps them."""
        url: str | None = f"{self.peer.other_url(SESSIONS)}?{urlencode({'date_from': date_from})}"
        for _ in range(MAX_PAGES):
            if url is None:
                return
            exchange = await self.peer.send("GET", url, token=self.peer.peer_token, module=SESSIONS)
            for session in expect_success(exchange.status, exchange.response_body) or []:
                self.store.put(session["country_code"], session["party_id"], session["id"], session)
            following = read_page_headers(exchange.response_headers).next_url
            url = urljoin(url, following) if following else None

    def takes_preferences(self, session: Mapping[str, Any]) -> bool:
        """The Session's EVSE lists CHARGING_PREFERENCES_CAPABLE in the Locations its CPO pushed us."""
        owner = (session["country_code"], session["party_id"])
        return capable(_evse(self.peer, session["location_id"], session["evse_uid"], owner=owner))

    async def act_set_charging_preferences(self, session_id: str, profile_type: str,
                                           departure_time: str | None = None, energy_need: float | None = None
                                           ) -> HttpExchange | None:
        """A driver sets preferences in the app: PUT to the CPO, only for an EVSE that lists
        CHARGING_PREFERENCES_CAPABLE in the Locations pushed to us (nothing is sent otherwise)."""
        session = next((s for s in self.store.all() if same_id(s["id"], session_id)), None)
        if session is None:
            return None
        if not self.takes_preferences(session):
            return None
        preferences = {"profile_type": profile_type, "departure_time": departure_time, "energy_need": energy_need}
        body = {k: v for k, v in preferences.items() if v is not None}
        schemas.check("charging_preferences", body)
        return await self.peer.call("PUT", SESSIONS, (session["id"], CHARGING_PREFERENCES),
                                    self.peer.outgoing(CHARGING_PREFERENCES, body))
