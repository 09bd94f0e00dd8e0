"""The CDRs module of the reference peer: the CPO's Sender (its own CDRs, made from its COMPLETED
Sessions and its Tariff, listed and POSTed to the eMSP) and the eMSP's Receiver (what was posted to it,
read back at the URL it gave, never changed; and its pull of the CPO's list).

The rules and the store are the core's (``harness/ocpi/cdrs.py``); these handlers move them on and off
HTTP. A CDR is made from the Session it records, as the CPO pushed it: the same Token, Location, EVSE
and Connector, auth_method and authorization_reference, start and end, currency and energy; its
ChargingPeriods are the Session's with the charging TIME of each and the Tariff that applied; its
costs are the reference Tariff's (``tariff``: energy per kWh and parking per hour, with VAT), which
is the tariff its connectors name (``AC-STANDARD``). Test data is drawn from faker seeded with
``SEED``; CDR ids carry a random part, as a CDR is never replaced.

The reference eMSP gives each CDR posted to it the URL ``{cdrs}/{a key of its own}`` (the text
defines no structure), answers a second POST of a CDR id it holds with 2001 and keeps the first, and
refuses PUT, PATCH and DELETE with HTTP 405.
"""

from __future__ import annotations

import functools
import secrets
from collections.abc import Mapping
from datetime import timedelta
from typing import TYPE_CHECKING, Any
from urllib.parse import urlencode, urljoin

from harness.cistring import same_id
from harness.clock import utcnow
from harness.ocpi.cdrs import CDR, CDRS, CdrRules, CdrStore, negated, never_changed, unknown_cdr
from harness.ocpi.envelope import StatusCode, StatusError, build, expect_success
from harness.ocpi.locations import LOCATIONS
from harness.ocpi.pagination import read_page_headers
from harness.ocpi.sessions import COMPLETED, SESSIONS
from harness.ocpi.timestamps import format_datetime, parse_datetime
from harness.ocpi.versions import RECEIVER, SENDER
from harness.profile import Profile
from harness.reference.ocpi.handler import CPO, EMSP, ModuleHandler, Reply, check_pushing_party
from harness.reference.ocpi.locations import LocationsSender, drawn_once
from harness.reference.ocpi.sessions import MAX_PAGES, PRICE_PER_KWH, VAT, SessionsSender, _fake, _json_body
from harness.transport.http import HttpExchange, HttpRequest

if TYPE_CHECKING:   # imported where a Faker is built (locations._faker)
    from faker import Faker

SEED = 1010
TARIFF_ID = "AC-STANDARD"   # the tariff the reference Locations' connectors name
PARKING_PER_HOUR = 1.20     # excl. VAT, EUR


def tariff(owner: tuple[str, str], currency: str = "EUR") -> dict[str, Any]:
    """The reference CPO's Tariff as it stood at the start of its sessions: energy per kWh (step 1 Wh) and
    parking per hour (step one minute), VAT on both."""
    return {"country_code": owner[0], "party_id": owner[1], "id": TARIFF_ID, "currency": currency,
            "type": "REGULAR", "tariff_alt_text": [{"language": "en", "text": f"{PRICE_PER_KWH:.2f} EUR/kWh, "
                                                    f"parking {PARKING_PER_HOUR:.2f} EUR/h"}],
            "elements": [{"price_components": [
                {"type": "ENERGY", "price": PRICE_PER_KWH, "vat": VAT * 100, "step_size": 1},
                {"type": "PARKING_TIME", "price": PARKING_PER_HOUR, "vat": VAT * 100, "step_size": 60}]}],
            "last_updated": "2024-01-01T00:00:00Z"}


def _price(excl: float) -> dict[str, float]:
    return {"excl_vat": round(excl, 2), "incl_vat": round(round(excl, 2) * (1 + VAT), 2)}


def cdr_location(location: Mapping[str, Any], evse_uid: str, connector_id: str) -> dict[str, Any]:
    """What a CDR keeps of ``location``: its address and only the EVSE and Connector of the session."""
    evse = next(e for e in location.get("evses", []) if same_id(e["uid"], evse_uid))
    connector = next(c for c in evse.get("connectors", []) if same_id(c["id"], connector_id))
    evse_id = evse.get("evse_id") or f"{location['country_code']}*{location['party_id']}*E{evse['uid']}".replace(
        "-", "")
    where = {"id": location["id"], "name": location.get("name"), "address": location["address"],
             "city": location["city"], "postal_code": location.get("postal_code"), "country": location["country"],
             "coordinates": location["coordinates"], "evse_uid": evse["uid"], "evse_id": evse_id[:48],
             "connector_id": connector["id"], "connector_standard": connector["standard"],
             "connector_format": connector["format"], "connector_power_type": connector["power_type"]}
    return {k: v for k, v in where.items() if v is not None}


def _periods(session: Mapping[str, Any], end: str) -> list[dict[str, Any]]:
    """The Session's ChargingPeriods (one at its start with all its energy when it has none), each with the
    charging TIME it lasted and the Tariff that applied."""
    given = list(session.get("charging_periods") or [])
    if not given:
        given = [{"start_date_time": session["start_date_time"],
                  "dimensions": [{"type": "ENERGY", "volume": session.get("kwh", 0)}]}]
    moments = [parse_datetime(p["start_date_time"]) for p in given] + [parse_datetime(end)]
    periods = []
    for n, period in enumerate(given):
        hours = max(0.0, (moments[n + 1] - moments[n]).total_seconds() / 3600)
        dimensions = [d for d in period["dimensions"] if d["type"] == "ENERGY"]
        periods.append({"start_date_time": period["start_date_time"],
                        "dimensions": dimensions + [{"type": "TIME", "volume": round(hours, 4)}],
                        "tariff_id": TARIFF_ID})
    return periods


def build_cdr(fake: Faker, session: Mapping[str, Any], location: Mapping[str, Any], cdr_id: str,
              created: str) -> dict[str, Any]:
    """The CDR of the COMPLETED ``session`` (see the module docstring), created at ``created``."""
    owner = (session["country_code"], session["party_id"])
    end = session["end_date_time"]
    kwh = float(session.get("kwh") or 0)
    hours = (parse_datetime(end) - parse_datetime(session["start_date_time"])).total_seconds() / 3600
    energy_cost = _price(kwh * PRICE_PER_KWH)
    cdr: dict[str, Any] = {
        "country_code": owner[0], "party_id": owner[1], "id": cdr_id, "start_date_time": session["start_date_time"],
        "end_date_time": end, "session_id": session["id"], "cdr_token": dict(session["cdr_token"]),
        "auth_method": session["auth_method"],
        "cdr_location": cdr_location(location, session["evse_uid"], session["connector_id"]),
        "meter_id": session.get("meter_id"), "currency": session.get("currency", "EUR"),
        "tariffs": [tariff(owner, session.get("currency", "EUR"))], "charging_periods": _periods(session, end),
        "total_cost": energy_cost, "total_energy": round(kwh, 3), "total_energy_cost": energy_cost,
        "total_time": round(hours, 4), "total_parking_time": 0, "total_parking_cost": _price(0),
        "invoice_reference_id": f"INV-{fake.numerify('########')}", "last_updated": created}
    if session.get("authorization_reference"):
        cdr["authorization_reference"] = session["authorization_reference"]
    return {k: v for k, v in cdr.items() if v is not None}


def new_cdr_id(fake: Faker) -> str:
    return f"CDR-{fake.bothify('??##').upper()}-{secrets.token_hex(5).upper()}"


def credit_of(cdr: Mapping[str, Any], created: str) -> dict[str, Any]:
    """The Credit CDR of ``cdr``: its data, another id, credit true, its total_cost negated."""
    return {**cdr, "id": f"{cdr['id']}-C", "credit": True, "credit_reference_id": cdr["id"],
            "total_cost": negated(cdr["total_cost"]), "last_updated": created}


@drawn_once
def sample_cdrs(owner: tuple[str, str], sessions: list[Mapping[str, Any]], locations: list[Mapping[str, Any]]
                ) -> list[dict[str, Any]]:
    """The CDRs of the COMPLETED sample Sessions, each created a few minutes after its Session ended."""
    fake, cdrs = _fake(SEED), []
    for n, session in enumerate(s for s in sessions if s.get("status") == COMPLETED and s.get("end_date_time")):
        location = next((loc for loc in locations if same_id(loc["id"], session["location_id"])), None)
        if location is None:
            continue
        created = format_datetime(parse_datetime(session["end_date_time"]) + timedelta(minutes=5 + n))
        cdrs.append(build_cdr(fake, session, location, f"CDR-SAMPLE-{n + 1:03d}", created))
    return cdrs


# ------------------------------------------------------------------------------ the CPO: Sender
class CdrsSender(ModuleHandler):
    """The CPO's own CDRs: listed, and POSTed to the eMSP once their Session has ended."""

    module, role, interface = CDRS, CPO, SENDER
    client_owned = False   # the eMSP's Receiver takes a POST at its endpoint and gives the CDR's URL
    store: CdrStore

    def __init__(self, peer: Any, store: CdrStore):
        super().__init__(peer, store)
        self.locations: dict[str, str] = {}   # CDR id (as we store it) -> the URL the eMSP gave

    @functools.cached_property
    def fake(self) -> Faker:
        return _fake(SEED + 1)

    @classmethod
    def stock(cls, identity: Any, profile: Profile, *, from_profile: bool) -> list[dict[str, Any]]:
        locations = LocationsSender.stock(identity, profile, from_profile=from_profile)
        sessions = SessionsSender.stock(identity, profile, from_profile=from_profile)
        return sample_cdrs((identity.country_code, identity.party_id), sessions, locations)

    async def serve(self, request: HttpRequest, rest: list[str]) -> Reply:
        self.peer.only(request, "GET")
        if rest:
            raise StatusError(CdrRules.listed, f"no cdrs object at {request.path}: the Sender interface is the list",
                              status_code=StatusCode.CLIENT_ERROR, http_status=404)
        return self.peer.list_page(request, self.store.all(), CDR)

    def _session(self, session_id: str) -> dict[str, Any]:
        session = self.peer.store(SESSIONS).owned(session_id)
        if session is None:
            raise StatusError(CdrRules.session_id, f"no Session {session_id} here", status_code=StatusCode.CLIENT_ERROR)
        if session["status"] != COMPLETED:
            raise StatusError(CdrRules.after_session, f"the Session {session_id} is {session['status']}: its CDR "
                              "follows once it has ended", status_code=StatusCode.CLIENT_ERROR)
        return session

    async def post(self, cdr: Mapping[str, Any]) -> HttpExchange:
        """POST a CDR of ours to the eMSP's Receiver; keep the URL its answer gives."""
        exchange = await self.peer.call("POST", CDRS, (), self.peer.outgoing(CDR, cdr))
        location = exchange.header("Location")
        if location:
            self.locations[cdr["id"]] = urljoin(exchange.url, location)
        return exchange

    async def act_send_cdr(self, session_id: str) -> HttpExchange:
        """The CDR of the ended Session ``session_id``: made, kept and POSTed (once: a CDR is never sent
        again; asked again, the CDR made before is posted again)."""
        session = self._session(session_id)
        cdr = self.store.of_session(session["id"])
        if cdr is None:
            location = self.peer.store(LOCATIONS).owned(session["location_id"])
            cdr = self.store.add(build_cdr(self.fake, session, location, new_cdr_id(self.fake),
                                           format_datetime(utcnow())))
        return await self.post(cdr)

    async def act_credit_cdr(self, cdr_id: str) -> HttpExchange:
        """The CDR ``cdr_id`` was wrong: its Credit CDR made, kept and POSTed."""
        original = self.store.owned(cdr_id)
        if original is None:
            raise StatusError(CdrRules.credit_reference, f"no CDR {cdr_id} here", status_code=StatusCode.CLIENT_ERROR)
        return await self.post(self.store.add(credit_of(original, format_datetime(utcnow()))))


# ------------------------------------------------------------------------------ the eMSP: Receiver
class CdrsReceiver(ModuleHandler):
    """What CPOs posted to the eMSP: created by POST, read at the URL given, never changed."""

    module, role, interface = CDRS, EMSP, RECEIVER
    store: CdrStore

    async def serve(self, request: HttpRequest, rest: list[str]) -> Reply:
        if not rest:
            self.peer.only(request, "POST")
            return self._created(_json_body(request))
        if request.method == "POST":
            raise StatusError(CdrRules.post_url, f"a CDR is POSTed to the cdrs endpoint itself, not to {request.path}",
                              status_code=StatusCode.INVALID_PARAMETERS, http_status=404)
        if len(rest) != 1:
            raise unknown_cdr(rest)
        if request.method in ("PUT", "PATCH", "DELETE"):
            raise never_changed(request.method)
        self.peer.only(request, "GET")
        found = self.store.at(rest[0])
        if found is None:
            raise unknown_cdr(rest)
        return Reply(200, build(self.peer.outgoing(CDR, found, owned=False)))

    def _created(self, cdr: Any) -> Reply:
        if isinstance(cdr, dict):
            check_pushing_party(self.peer, str(cdr.get("country_code")), str(cdr.get("party_id")), CdrRules.posted,
                                "CPO")
        path = self.store.post(cdr)
        return Reply(201, build(), {"Location": f"{self.peer.module_url(CDRS).rstrip('/')}/{path}"})

    async def act_fetch_cdrs(self, date_from: str | None = None) -> None:
        """The eMSP pulls the CPO's CDRs (from ``date_from`` on: the CDRs it missed), page by page along the
        Link headers, and keeps those it did not have."""
        query = f"?{urlencode({'date_from': date_from})}" if date_from else ""
        url: str | None = f"{self.peer.other_url(CDRS)}{query}"
        for _ in range(MAX_PAGES):
            if url is None:
                return
            exchange = await self.peer.send("GET", url, token=self.peer.peer_token, module=CDRS)
            for cdr in expect_success(exchange.status, exchange.response_body) or []:
                if self.store.get(*(cdr[name] for name in ("country_code", "party_id", "id"))) is None:
                    self.store.post(cdr)
            following = read_page_headers(exchange.response_headers).next_url
            url = urljoin(url, following) if following else None
