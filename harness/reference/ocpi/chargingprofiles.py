"""The chargingprofiles module of the reference peer: the CPO's Receiver (GET ActiveChargingProfile, PUT
SetChargingProfile and DELETE ClearProfile answered with a ChargingProfileResponse, their results POSTed to the
response_url in the background; a changed ActiveChargingProfile PUT to the eMSP) and the eMSP's Sender (the
requests sent at a smart charging service's request, results and updates received at its own URLs).

The rules are the core's (``harness/ocpi/chargingprofiles.py``). The reference CPO's charge points answer at
once: a request for one of its ongoing Sessions of the asking eMSP's driver is ACCEPTED (timeout ``TIMEOUT``) and
its result is ACCEPTED, but for clearing where no profile was set (UNKNOWN: nothing matched); a Session it does
not have is UNKNOWN_SESSION; a Session that ended or of another eMSP's driver is REJECTED. Its ActiveChargingProfile
is the profile set, else the EVSE's maximum. A local limit at an EVSE (``change_active_profile``) is PUT to the eMSP
only for a Session the eMSP once set a profile on. The reference eMSP gives response_urls
``{chargingprofiles}/{kind}/{ref}``, or ``{chargingprofiles}/{kind}?request_id={ref}`` when asked (``query``).
"""

from __future__ import annotations

import re
import secrets
from datetime import timedelta
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit

from harness.cistring import id_key, same_id
from harness.clock import utcnow
from harness.ocpi.chargingprofiles import (
    ACCEPTED, ACTIVE_PROFILE, CHARGINGPROFILES, DELETE, GET, PUT, REJECTED, RESPONSE, RESULTS, SET, UNKNOWN,
    UNKNOWN_SESSION, ChargingProfileRules, extra_decimals, sample_profile)
from harness.ocpi.envelope import StatusCode, StatusError, build
from harness.ocpi.locations import checked
from harness.ocpi.sessions import ACTIVE, PENDING, SESSIONS
from harness.ocpi.timestamps import format_datetime
from harness.ocpi.versions import RECEIVER, SENDER
from harness.reference.ocpi.handler import CPO, EMSP, ModuleHandler, Reply
from harness.reference.ocpi.locations import seeded_faker
from harness.reference.ocpi.sessions import _json_body
from harness.transport.http import HttpExchange, HttpRequest

TIMEOUT = 30          # seconds the reference CPO gives its charge points to answer
EVSE_MAX_W = 22000.0  # the reference EVSEs' maximum, shown when no profile is active
LOCAL_LIMIT = 0.5     # a local limit (load balancing) halves what the EVSE offers
SEED = 1414
KINDS = {GET: "activechargingprofile", PUT: "chargingprofile", DELETE: "clearprofile"}


class ChargingProfileStore:
    """What one side keeps: the CPO the requests it got (each with its result's task) and the profile each
    Session has; the eMSP the requests it sent, the results and the ActiveChargingProfiles it got."""

    def __init__(self, _stock: Any = ()) -> None:
        self.requests: list[dict[str, Any]] = []
        self.profiles: dict[str, dict[str, Any]] = {}   # CPO: by Session id key, the profile set by the eMSP
        self.set_once: set[str] = set()                  # CPO: Sessions the eMSP once set a profile on
        self.results: dict[str, dict[str, Any]] = {}     # eMSP: by response_url, the result received
        self.updates: dict[str, dict[str, Any]] = {}     # eMSP: by Session id key, the ActiveChargingProfile PUT

    def all(self) -> list[dict[str, Any]]:
        return list(self.requests)


def _same_url(a: str, b: str) -> bool:
    """Two URLs name the same place: their path (a final slash aside) and their query, in any order."""
    first, second = urlsplit(a), urlsplit(b)
    return first.path.rstrip("/") == second.path.rstrip("/") and \
        sorted(parse_qsl(first.query)) == sorted(parse_qsl(second.query))


# ------------------------------------------------------------------------------ the CPO: Receiver
class ChargingProfilesReceiver(ModuleHandler):
    """The CPO's chargingprofiles endpoint: {chargingprofiles}/{session_id}, GET, PUT and DELETE."""

    module, role, interface = CHARGINGPROFILES, CPO, RECEIVER
    client_owned = False
    store: ChargingProfileStore

    async def serve(self, request: HttpRequest, rest: list[str]) -> Reply:
        self.peer.only(request, GET, PUT, DELETE)
        if len(rest) != 1:
            raise StatusError(ChargingProfileRules.request, f"no Session at {request.path}: the Receiver URL is "
                              "{chargingprofiles}/{session_id}", status_code=StatusCode.INVALID_PARAMETERS,
                              http_status=404)
        asked = self.read(request)
        answer, result = self.decide(request.method, rest[0], asked)
        record: dict[str, Any] = {"method": request.method, "session_id": rest[0], "request": asked,
                                  "response_url": asked["response_url"], "response": answer, "result": None}
        if answer == ACCEPTED:
            record["result"] = self.peer.background.spawn(self._post_result(request.method, asked["response_url"],
                                                                            result))
        self.store.requests.append(record)
        return Reply(200, build(self.peer.outgoing(RESPONSE, {"result": answer, "timeout": TIMEOUT})))

    @staticmethod
    def read(request: HttpRequest) -> dict[str, Any]:
        """What the eMSP asked: a GET's duration and response_url, a DELETE's response_url (the query), a PUT's
        SetChargingProfile (the body); StatusError 2001 when one is missing."""
        if request.method == PUT:
            body = checked(SET, _json_body(request))
            decimals = extra_decimals(body["charging_profile"])
            if decimals:
                raise StatusError(ChargingProfileRules.one_decimal, f"more than one decimal: {', '.join(decimals)}",
                                  status_code=StatusCode.INVALID_PARAMETERS, http_status=400)
            return body
        query = dict(request.query)
        needed = ("duration", "response_url") if request.method == GET else ("response_url",)
        missing = [name for name in needed if not query.get(name)]
        if missing or (request.method == GET and not re.fullmatch(r"[0-9]{1,9}", query["duration"])):
            lacking = ", ".join(missing) or "a duration in seconds"
            raise StatusError(ChargingProfileRules.request, f"the {request.method} lacks {lacking}",
                              status_code=StatusCode.INVALID_PARAMETERS, http_status=400)
        return {name: int(query[name]) if name == "duration" else query[name] for name in needed}

    def decide(self, method: str, session_id: str, asked: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        """(the ChargingProfileResponse result, the result to POST when it is ACCEPTED)."""
        session = self.peer.store(SESSIONS).owned(session_id)
        if session is None:
            return UNKNOWN_SESSION, {}
        party = self.peer.peer_party
        token = session.get("cdr_token") or {}
        ours = party is None or (same_id(token.get("country_code"), party.country_code)
                                 and same_id(token.get("party_id"), party.party_id))
        if session["status"] not in (ACTIVE, PENDING) or not ours:
            return REJECTED, {}
        key = id_key(session["id"])
        if method == PUT:
            self.store.profiles[key] = asked["charging_profile"]
            self.store.set_once.add(key)
            return ACCEPTED, {"result": ACCEPTED}
        if method == DELETE:
            cleared = self.store.profiles.pop(key, None)
            return ACCEPTED, {"result": ACCEPTED if cleared is not None else UNKNOWN}
        return ACCEPTED, {"result": ACCEPTED, "profile": self.active(key, asked["duration"])}

    def active(self, key: str, duration: int, factor: float = 1.0) -> dict[str, Any]:
        """The ActiveChargingProfile of the Session ``key`` for ``duration`` seconds: the profile set (its
        limits times ``factor``), else the EVSE's maximum."""
        chosen = self.store.profiles.get(key)
        if chosen is None:
            profile: dict[str, Any] = {"charging_rate_unit": "W", "charging_profile_period": [
                {"start_period": 0, "limit": round(EVSE_MAX_W * factor, 1)}]}
        else:
            profile = {"charging_rate_unit": chosen["charging_rate_unit"], "charging_profile_period": [
                {"start_period": p["start_period"], "limit": round(p["limit"] * factor, 1)}
                for p in chosen.get("charging_profile_period") or [] if p["start_period"] < duration]}
        return {"start_date_time": format_datetime(utcnow()), "charging_profile": {**profile, "duration": duration}}

    async def _post_result(self, method: str, url: str, result: dict[str, Any]) -> HttpExchange:
        """The charge point answered: the result POSTed to the eMSP's response_url, as given."""
        return await self.peer.send("POST", url, token=self.peer.peer_token, module=CHARGINGPROFILES,
                                    body=self.peer.outgoing(RESULTS[method], result))

    async def act_change_active_profile(self, session_id: str) -> HttpExchange | None:
        """A local limit at the EVSE of ``session_id`` halves what it offers: the new ActiveChargingProfile is PUT
        to the eMSP, for a Session the eMSP once set a profile on."""
        session = self.peer.store(SESSIONS).owned(session_id)
        if session is None or id_key(session["id"]) not in self.store.set_once:
            return None
        update = self.active(id_key(session["id"]), 15 * 60, LOCAL_LIMIT)
        return await self.peer.call(PUT, CHARGINGPROFILES, (session["id"],), self.peer.outgoing(ACTIVE_PROFILE, update))


# ------------------------------------------------------------------------------ the eMSP: Sender
class ChargingProfilesSender(ModuleHandler):
    """The eMSP's requests, sent to the CPO; their results (POST) and the CPO's updates (PUT {session_id})
    received at {chargingprofiles}."""

    module, role, interface = CHARGINGPROFILES, EMSP, SENDER
    client_owned = False
    store: ChargingProfileStore

    async def serve(self, request: HttpRequest, rest: list[str]) -> Reply:
        self.peer.only(request, "POST", PUT)
        if request.method == PUT:
            if len(rest) != 1:
                raise StatusError(ChargingProfileRules.update_sent, f"no Session at {request.path}: updates go to "
                                  "{chargingprofiles}/{session_id}", status_code=StatusCode.INVALID_PARAMETERS,
                                  http_status=404)
            self.store.updates[id_key(rest[0])] = checked(ACTIVE_PROFILE, _json_body(request))
            return Reply(200, build())
        record = next((r for r in reversed(self.store.requests) if _same_url(r["response_url"], request.url)), None)
        if record is None:
            raise StatusError(ChargingProfileRules.result_url, f"no response_url of ours at {request.url}",
                              status_code=StatusCode.CLIENT_ERROR, http_status=404)
        self.store.results[record["response_url"]] = checked(RESULTS[record["method"]], _json_body(request))
        return Reply(200, build())

    def _response_url(self, method: str, query: bool) -> str:
        ref, base = secrets.token_hex(6), self.peer.module_url(CHARGINGPROFILES).rstrip("/")
        return f"{base}/{KINDS[method]}?{urlencode({'request_id': ref})}" if query else f"{base}/{KINDS[method]}/{ref}"

    async def _send(self, method: str, session_id: str, query: bool, **asked: Any) -> HttpExchange:
        url = self._response_url(method, query)
        self.store.requests.append({"method": method, "session_id": session_id, "response_url": url})
        target = self.peer.other_url(CHARGINGPROFILES, session_id)
        if method == PUT:
            body = self.peer.outgoing(SET, {"charging_profile": asked["charging_profile"], "response_url": url})
            return await self.peer.send(PUT, target, token=self.peer.peer_token, module=CHARGINGPROFILES, body=body)
        parameters = {**asked, "response_url": url}
        return await self.peer.send(method, f"{target}?{urlencode(parameters)}", token=self.peer.peer_token,
                                    module=CHARGINGPROFILES)

    async def act_charging_profile_get(self, session_id: str, duration: int = 900, query: bool = False
                                       ) -> HttpExchange:
        """The smart charging service asks what the EVSE plans for the next ``duration`` seconds."""
        return await self._send(GET, session_id, query, duration=duration)

    async def act_charging_profile_set(self, session_id: str, charging_profile: dict[str, Any] | None = None,
                                       query: bool = False) -> HttpExchange:
        """The smart charging service limits a Session: ``charging_profile``, or one of its own making."""
        drawn = seeded_faker(SEED + len(self.store.requests)).random   # another profile for each request
        profile = charging_profile or sample_profile(drawn, format_datetime(utcnow() + timedelta(minutes=1)))
        return await self._send(PUT, session_id, query, charging_profile=profile)

    async def act_charging_profile_clear(self, session_id: str, query: bool = False) -> HttpExchange:
        """The driver wants the fastest charge again: the profile is cleared."""
        return await self._send(DELETE, session_id, query)
