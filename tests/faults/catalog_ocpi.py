"""The OCPI part of the self-check fault catalog: deliberately faulty variants of the reference
OCPI peer, each breaking ONE named rule, and the suite tests that must catch it with the reason.

Same shape as ``catalog`` (2.x): each fault is a small subclass of ``OcpiPeer`` overriding the least
code needed (for a functional module: a faulty handler or store put in its registry, ``modules``);
``test_faults_ocpi.py`` plays each selection with the faulty class as the embedded
SUT (``--embedded-sut catalog_ocpi:<Class>``), in the OCPI role(s) the node ids name. This file is
imported as the top-level module ``catalog_ocpi`` (this folder is put on the path, see conftest.py).
"""

from __future__ import annotations

import copy
import re

import dataclasses
import json
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import catalog  # importable: conftest.py puts this folder on sys.path

from harness.clock import utcnow
from harness.ocpi import headers as hdr, schemas
from harness.ocpi.auth import AuthRules, PresentedToken, TokenForm
from harness.ocpi.credentials import CredentialsRules, Registration
from harness.ocpi.schemas import SchemaRules
from harness.ocpi.envelope import EnvelopeRules, StatusCode, StatusError, build
from harness.ocpi.headers import REQUEST_ID, HeaderRules
from harness.ocpi.locations import LOCATIONS, LocationRules, LocationStore, Target
from harness.ocpi.pagination import PaginationRules, read_page_headers
from harness.ocpi.sessions import (
    ACTIVE, COMPLETED, NA, PENDING, RESERVATION, SESSIONS, SessionRules, SessionStore)
from harness.ocpi.timestamps import format_datetime
from harness.ocpi.tokens import ALLOWED, NOT_ALLOWED, TOKENS, TokenRules, TokenStore
from harness.reference.ocpi import VERSION, OcpiPeer
from harness.reference.ocpi.peer import LOCATIONS_VERSION
from harness.reference.ocpi.handler import Reply
from harness.reference.ocpi.locations import LocationsReceiver, LocationsSender
from harness.reference.ocpi.sessions import SessionsReceiver, SessionsSender
from harness.reference.ocpi.tokens import TokensReceiver, TokensSender
from harness.reference.ocpi.commands import CommandsReceiver, CommandsSender
from harness.ocpi.commands import ACCEPTED as COMMAND_ACCEPTED, CommandRules
from harness.transport.http import HttpResponse

MODULE = "catalog_ocpi"
PROTOCOL = "ocpi2.2.1"
RAW_TOKENS = Path(__file__).resolve().parent / "ocpi-raw-tokens.toml"   # a profile declaring raw tokens


# ------------------------------------------------------------------------------ authentication
class Answers403ForAnUnknownToken(OcpiPeer):
    """An unknown token gets HTTP 403 instead of 401."""

    def _authenticate(self, request, module):
        try:
            return super()._authenticate(request, module)
        except StatusError as error:
            error.http_status = 403 if request.header("Authorization") else error.http_status
            raise


class Answers200ForAnUnknownToken(OcpiPeer):
    """An unknown token gets HTTP 200 with an error status_code instead of HTTP 401."""

    def _authenticate(self, request, module):
        try:
            return super()._authenticate(request, module)
        except StatusError as error:
            error.http_status = 200
            raise


class LetsInEveryHttpsRequest(OcpiPeer):
    """Over HTTPS any request gets in, token or not (as if TLS authenticated the platform)."""

    def _authenticate(self, request, module):
        try:
            return super()._authenticate(request, module)
        except StatusError:
            if urlsplit(request.url).scheme != "https":
                raise
            return PresentedToken("", TokenForm.BASE64)


class ReadsBothTokenForms(OcpiPeer):
    """Reads a token in either form whatever its profile declares: raw where base64 is declared,
    base64 where raw is."""

    token_policy = "either"


# ------------------------------------------------------------------------------ credentials
class AcceptsASecondPost(OcpiPeer):
    """A POST from a registered client registers it again instead of getting 405."""

    async def _serve_credentials(self, request, token):
        if request.method == "POST" and self.server_registered and token == self.server.token_c:
            self.server.state, self.server.token_a = Registration.NOT_REGISTERED, token
        return await super()._serve_credentials(request, token)


class KeepsTokenA(OcpiPeer):
    """Token A still opens the credentials endpoint after the registration."""

    async def _serve_credentials(self, request, token):
        token_a = self.server.token_a
        reply = await super()._serve_credentials(request, token)
        if self.server_registered and token_a is not None:
            self.server.token_a = token_a
        return reply


class DiscardsTokenAOnAFailedRegistration(OcpiPeer):
    """A registration that failed (3001) ends token A as well: the client cannot retry."""

    async def _serve_credentials(self, request, token):
        reply = await super()._serve_credentials(request, token)
        if request.method == "POST" and not self.server_registered:
            self.server.token_a = None
        return reply


class KeepsTheReplacedToken(OcpiPeer):
    """After a PUT the replaced token C still opens the API."""

    async def _serve_credentials(self, request, token):
        reply = await super()._serve_credentials(request, token)
        if request.method == "PUT" and self.server_registered:
            self.server.token_a = token   # the old C lives on as a token that opens credentials
        return reply


class Answers3000OnConnectBackFailure(OcpiPeer):
    """A failed connect-back is answered 3000 (generic server error) instead of 3001."""

    async def _serve_credentials(self, request, token):
        reply = await super()._serve_credentials(request, token)
        if reply.body.get("status_code") == StatusCode.CLIENT_API_UNUSABLE:
            reply.body = build(status_code=StatusCode.SERVER_ERROR, status_message="registration failed")
        return reply


class PostsWithoutAMutualVersion(OcpiPeer):
    """The client POSTs its credentials although the server lists no mutual version."""

    async def register_with(self, versions_url, token_a):
        listing = await self.send("GET", versions_url, token=token_a)
        details = await self.send("GET", json.loads(listing.response_body)["data"][0]["url"], token=token_a)
        endpoints = json.loads(details.response_body)["data"]["endpoints"]
        url = next(e["url"] for e in endpoints if e["identifier"] == "credentials")
        await self.send("POST", url, token=token_a, body=self.server.own_credentials(self._offer()))


# ------------------------------------------------------------------------------ format
class AnswersErrorsInPlainText(OcpiPeer):
    """Error answers carry a framework's plain-text body instead of an OCPI envelope."""

    async def handle(self, request):
        response = await super().handle(request)
        if response.status >= 400:
            return HttpResponse(response.status, b"Unauthorized" if response.status == 401 else b"Error",
                                {**response.headers, "Content-Type": "text/plain"})
        return response


class ForgetsTheRequestId(OcpiPeer):
    """The answer does not repeat the request's X-Request-ID."""

    def _answer_headers(self, request, module):
        return {k: v for k, v in super()._answer_headers(request, module).items() if k != REQUEST_ID}


class SendsNoRequestIds(OcpiPeer):
    """Its own requests carry neither X-Request-ID nor X-Correlation-ID."""

    @staticmethod
    def tracking_headers():
        return {}


class ReusesOneRequestId(OcpiPeer):
    """Its own requests all carry the same X-Request-ID."""

    @staticmethod
    def tracking_headers():
        return {hdr.REQUEST_ID: "7f0c4d8e-0000-4000-8000-000000000001", hdr.CORRELATION_ID: hdr.new_id()}


class LowerCasesTheOthersParty(OcpiPeer):
    """Names the other platform's party in lower case (OCPI-to-* headers), not as its credentials
    roles declared it."""

    @property
    def peer_party(self):
        party = super().peer_party
        return party and hdr.Party(party.country_code.lower(), party.party_id.lower())


# ------------------------------------------------------------------------------ locations: pull
def _link_url(reply) -> str | None:
    """The next page's URL of a reply, whatever form the stand-in's variance gave its Link (a rel="first" link
    may come before it)."""
    return read_page_headers(reply.headers or {}).next_url


class _DropsTheDateFilter(LocationsSender):
    async def serve(self, request, rest):
        reply = await super().serve(request, rest)
        url = _link_url(reply)
        if url:
            parts = urlsplit(url)
            query = [(k, v) for k, v in parse_qsl(parts.query) if k not in ("date_from", "date_to")]
            reply.headers["Link"] = f'<{urlunsplit(parts._replace(query=urlencode(query)))}>; rel="next"'
        return reply


class LinkDropsTheDateFilter(OcpiPeer):
    """The next-page Link leaves out the date filters of the original request."""

    modules = OcpiPeer.modules.with_handler(_DropsTheDateFilter)


class _LinksPastTheEnd(LocationsSender):
    async def serve(self, request, rest):
        reply = await super().serve(request, rest)
        if reply.headers and "X-Total-Count" in reply.headers and "Link" not in reply.headers:
            reply.headers["Link"] = f'<{request.url.split("?")[0]}?offset={reply.headers["X-Total-Count"]}>; rel="next"'
        return reply


class LinkOnTheLastPage(OcpiPeer):
    """The last page still carries a next-page Link."""

    modules = OcpiPeer.modules.with_handler(_LinksPastTheEnd)


class _CountsOneTooMany(LocationsSender):
    async def serve(self, request, rest):
        reply = await super().serve(request, rest)
        if reply.headers and "X-Total-Count" in reply.headers:
            reply.headers["X-Total-Count"] = str(int(reply.headers["X-Total-Count"]) + 1)
        return reply


class CountsOneTooMany(OcpiPeer):
    """X-Total-Count says one more Location than the list holds."""

    modules = OcpiPeer.modules.with_handler(_CountsOneTooMany)


class _EmptyLinkOnTheLastPage(LocationsSender):
    async def serve(self, request, rest):
        reply = await super().serve(request, rest)
        if reply.headers and "X-Total-Count" in reply.headers and "Link" not in reply.headers:
            reply.headers["Link"] = ""
        return reply


class EmptyLinkOnTheLastPage(OcpiPeer):
    """Legal: the last page carries an empty Link header (an empty list, RFC 9110 §5.6.1)."""

    modules = OcpiPeer.modules.with_handler(_EmptyLinkOnTheLastPage)


# ------------------------------------------------------------------------------ locations: push
class _NoPropagation(LocationStore):
    def _propagate(self, parents, last_updated):
        return None


class DoesNotPropagateLastUpdated(OcpiPeer):
    """A changed EVSE or Connector leaves its parents' last_updated as it was."""

    modules = OcpiPeer.modules.with_store(LOCATIONS, _NoPropagation)


class _PatchesWithoutLastUpdated(LocationsSender):
    async def push(self, method, ids, body):
        if method == "PATCH":
            body = {k: v for k, v in body.items() if k != "last_updated"}
        return await super().push(method, ids, body)


class PatchesWithoutLastUpdated(OcpiPeer):
    """The CPO's PATCH carries no last_updated."""

    modules = OcpiPeer.modules.with_handler(_PatchesWithoutLastUpdated)


class _LenientStore(LocationStore):
    def patch(self, country_code, party_id, target, changes):
        if isinstance(changes, dict) and "last_updated" not in changes:
            changes = {**changes, "last_updated": format_datetime(utcnow())}
        super().patch(country_code, party_id, target, changes)


class AcceptsAPatchWithoutLastUpdated(OcpiPeer):
    """The Receiver applies a PATCH that has no last_updated instead of answering 2001."""

    modules = OcpiPeer.modules.with_store(LOCATIONS, _LenientStore)


class _LowerCasingStore(LocationStore):
    def put(self, country_code, party_id, target, obj):
        if isinstance(obj, dict) and target.kind == "location":
            obj = {**obj, "id": obj["id"].lower(), "evses": [
                {**evse, "uid": evse["uid"].lower(),
                 "connectors": [{**c, "id": c["id"].lower()} for c in evse.get("connectors", [])]}
                for evse in obj.get("evses", [])]}
        return super().put(country_code, party_id, target, obj)


class StoresIdsLowerCased(OcpiPeer):
    """The Receiver keeps the ids of a pushed Location lower-cased and answers them so."""

    modules = OcpiPeer.modules.with_store(LOCATIONS, _LowerCasingStore)


# ------------------------------------------------------------------------------ sessions: the CPO
def _pushing(change) -> type:
    """A CPO's Sessions Sender whose pushes go out as ``change(sender, method, session_id, body)`` makes them."""
    class Faulty(SessionsSender):
        async def push(self, method, session_id, body):
            return await super().push(method, session_id, change(self, method, session_id, body))
    return Faulty


def _without(body, *fields):
    return {k: v for k, v in body.items() if k not in fields}


class SessionPatchesWithoutLastUpdated(OcpiPeer):
    """The CPO's Session PATCH carries no last_updated."""

    modules = OcpiPeer.modules.with_handler(_pushing(
        lambda sender, method, session_id, body: _without(body, "last_updated") if method == "PATCH" else body))


class ResendsAllChargingPeriods(OcpiPeer):
    """Every Session PATCH carries all the ChargingPeriods so far, not only the new one."""

    modules = OcpiPeer.modules.with_handler(_pushing(
        lambda sender, method, session_id, body: {**body, "charging_periods": sender.store.owned(session_id)[
            "charging_periods"]} if method == "PATCH" and body.get("charging_periods") else body))


class KeepsTheCreationTimeOnActivation(OcpiPeer):
    """PENDING → ACTIVE leaves start_date_time at the creation time."""

    modules = OcpiPeer.modules.with_handler(_pushing(
        lambda sender, method, session_id, body: _without(body, "start_date_time") if method == "PATCH" else body))


class PutsASessionOfAnotherParty(OcpiPeer):
    """The CPO's Session PUT carries a party_id other than the one in its URL (its own)."""

    modules = OcpiPeer.modules.with_handler(_pushing(
        lambda sender, method, session_id, body: {**body, "party_id": "ZZZ"} if method == "PUT" else body))


class _PushesUnderAnotherParty(SessionsSender):
    async def push(self, method, session_id, body):
        own = f"/{self.peer.identity.country_code}/{self.peer.identity.party_id}/"   # in any case (variance)
        url = re.sub(re.escape(own), "/XX/ZZZ/", self.peer.other_url(SESSIONS, session_id), flags=re.IGNORECASE)
        moved = {**body, "country_code": "XX", "party_id": "ZZZ"} if method == "PUT" else body
        return await self.peer.send(method, url, token=self.peer.peer_token, module=SESSIONS, body=moved)


class PushesSessionsUnderAnotherParty(OcpiPeer):
    """The CPO pushes its Sessions under a party none of its credentials roles declares (URL and body agree)."""

    modules = OcpiPeer.modules.with_handler(_PushesUnderAnotherParty)


class _PushesAfterCompleted(SessionsSender):
    async def _patch(self, session_id, changes):
        session = self.store.owned(session_id)
        if session is not None and session["status"] == COMPLETED:
            return await self.push("PATCH", session["id"], {**changes, "last_updated": format_datetime(utcnow())})
        return await super()._patch(session_id, changes)


class PushesChangesAfterCompleted(OcpiPeer):
    """Still PATCHes a Session after it is COMPLETED."""

    modules = OcpiPeer.modules.with_handler(_PushesAfterCompleted)


class NewTokenOnActivation(OcpiPeer):
    """A Session that goes ACTIVE (a reservation used) names another Token."""

    modules = OcpiPeer.modules.with_handler(_pushing(
        lambda sender, method, session_id, body: {**body, "cdr_token": sender._token()}
        if method == "PATCH" and body.get("status") == ACTIVE else body))


class KeepsTheFirstAuthorizationReference(OcpiPeer):
    """A later authorization_reference from the eMSP never reaches the Session."""

    modules = OcpiPeer.modules.with_handler(_pushing(
        lambda sender, method, session_id, body: _without(body, "authorization_reference") if method == "PATCH"
        else body))


class ReservesAsPending(OcpiPeer):
    """A reservation is pushed as a PENDING Session, not RESERVATION."""

    modules = OcpiPeer.modules.with_handler(_pushing(
        lambda sender, method, session_id, body: {**body, "status": PENDING}
        if method == "PUT" and body.get("status") == RESERVATION else body))


class ChargesWithoutAnEvse(OcpiPeer):
    """A #NA reservation goes ACTIVE without naming the EVSE it charges at."""

    modules = OcpiPeer.modules.with_handler(_pushing(
        lambda sender, method, session_id, body: _without(body, "evse_uid", "connector_id") if method == "PATCH"
        else body))


class _DropsCompleted(SessionsSender):
    def listed(self):
        return [session for session in super().listed() if session["status"] != COMPLETED]


class DropsCompletedSessionsFromTheList(OcpiPeer):
    """The Sender's list leaves COMPLETED Sessions out."""

    modules = OcpiPeer.modules.with_handler(_DropsCompleted)


class PatchesUnchangedFields(OcpiPeer):
    """Every Session PATCH also carries the currency, which never changed."""

    modules = OcpiPeer.modules.with_handler(_pushing(
        lambda sender, method, session_id, body: {**body, "currency": sender.store.owned(session_id)["currency"]}
        if method == "PATCH" else body))


# ------------------------------------------------------------------------------ sessions: the eMSP
class _ReplacesPeriodsOnPatch(SessionStore):
    def patch(self, country_code, party_id, session_id, changes):
        held = self.get(country_code, party_id, session_id)
        if held is not None and isinstance(changes, dict) and changes.get("charging_periods"):
            held["charging_periods"] = []
        return super().patch(country_code, party_id, session_id, changes)


class ReplacesChargingPeriodsOnPatch(OcpiPeer):
    """A PATCH's charging_periods replace the stored ones instead of being appended."""

    modules = OcpiPeer.modules.with_store(SESSIONS, _ReplacesPeriodsOnPatch)


class _LenientSessionStore(SessionStore):
    def patch(self, country_code, party_id, session_id, changes):
        if isinstance(changes, dict) and "last_updated" not in changes:
            changes = {**changes, "last_updated": format_datetime(utcnow())}
        return super().patch(country_code, party_id, session_id, changes)


class AcceptsASessionPatchWithoutLastUpdated(OcpiPeer):
    """The Receiver applies a Session PATCH that has no last_updated instead of answering 2001."""

    modules = OcpiPeer.modules.with_store(SESSIONS, _LenientSessionStore)


class _TrustsTheUrl(SessionStore):
    def put(self, country_code, party_id, session_id, session):
        if isinstance(session, dict):
            session = {**session, "country_code": country_code, "party_id": party_id, "id": session_id}
        return super().put(country_code, party_id, session_id, session)


class StoresUnderTheUrlIds(OcpiPeer):
    """A PUT whose URL ids differ from the Session's is stored under the URL's, not refused."""

    modules = OcpiPeer.modules.with_store(SESSIONS, _TrustsTheUrl)


class _FreeWhenAbsent(SessionStore):
    def put(self, country_code, party_id, session_id, session):
        if isinstance(session, dict) and session.get("total_cost") is None:
            session = {**session, "total_cost": {"excl_vat": 0.0, "incl_vat": 0.0}}
        return super().put(country_code, party_id, session_id, session)


class ReadsAnAbsentTotalCostAsFree(OcpiPeer):
    """A Session pushed without total_cost is stored as free (0.00)."""

    modules = OcpiPeer.modules.with_store(SESSIONS, _FreeWhenAbsent)


class _RefusesNa(SessionStore):
    def put(self, country_code, party_id, session_id, session):
        if isinstance(session, dict) and NA in (session.get("evse_uid"), session.get("connector_id")):
            raise StatusError(SessionRules.na_accepted, "unknown EVSE #NA", status_code=StatusCode.INVALID_PARAMETERS)
        return super().put(country_code, party_id, session_id, session)


class RefusesNaReservations(OcpiPeer):
    """A RESERVATION whose evse_uid and connector_id are #NA is refused."""

    modules = OcpiPeer.modules.with_store(SESSIONS, _RefusesNa)


class _CreatesOnPatch(SessionStore):
    def patch(self, country_code, party_id, session_id, changes):
        if self.get(country_code, party_id, session_id) is None:
            return {}
        return super().patch(country_code, party_id, session_id, changes)


class AcceptsAPatchOfAnUnknownSession(OcpiPeer):
    """A PATCH of a Session it never got is answered with success (and dropped)."""

    modules = OcpiPeer.modules.with_store(SESSIONS, _CreatesOnPatch)


class _ReopensCompleted(SessionStore):
    @staticmethod
    def _check_change(held, after):
        return None


class ReopensACompletedSession(OcpiPeer):
    """Applies any status change, a COMPLETED Session's too."""

    modules = OcpiPeer.modules.with_store(SESSIONS, _ReopensCompleted)


def _accepting_deletes(receiver) -> type:
    """A Receiver ``receiver`` that answers a DELETE with success."""
    class Faulty(receiver):
        async def serve(self, request, rest):
            if request.method == "DELETE":
                return Reply(200, build())
            return await super().serve(request, rest)
    return Faulty


class AcceptsASessionDelete(OcpiPeer):
    """Answers a Session DELETE with success."""

    modules = OcpiPeer.modules.with_handler(_accepting_deletes(SessionsReceiver))


class _PatchesInnerObjects(SessionsReceiver):
    async def serve(self, request, rest):
        return await super().serve(request, rest[:3])


class PatchesThroughExtraSegments(OcpiPeer):
    """A PATCH at {session_id}/charging_periods is applied to the Session instead of refused."""

    modules = OcpiPeer.modules.with_handler(_PatchesInnerObjects)


class _AnyParty(SessionsReceiver):
    def _check_party(self, country_code, party_id):
        return None


class AcceptsPushesUnderAnyParty(OcpiPeer):
    """Stores Sessions pushed under any party, not only the pushing CPO's."""

    modules = OcpiPeer.modules.with_handler(_AnyParty)


class _PreferencesEverywhere(SessionsSender):
    def _preferences(self, session_id, preferences):
        return Reply(200, build("ACCEPTED"))


class AcceptsPreferencesWithoutTheCapability(OcpiPeer):
    """Accepts ChargingPreferences at an EVSE without CHARGING_PREFERENCES_CAPABLE (no 404, 2001)."""

    modules = OcpiPeer.modules.with_handler(_PreferencesEverywhere)


class _AnswersOk(SessionsSender):
    def _preferences(self, session_id, preferences):
        reply = super()._preferences(session_id, preferences)
        return Reply(reply.status, build("OK"))


class AnswersPreferencesWithAnUnknownValue(OcpiPeer):
    """Answers ChargingPreferences with "OK", no ChargingPreferencesResponse value."""

    modules = OcpiPeer.modules.with_handler(_AnswersOk)


class _IgnoresTheCapability(SessionsReceiver):
    def takes_preferences(self, session):
        return True


class SendsPreferencesWithoutTheCapability(OcpiPeer):
    """The eMSP PUTs ChargingPreferences whatever the EVSE's capabilities."""

    modules = OcpiPeer.modules.with_handler(_IgnoresTheCapability)


# ------------------------------------------------------------------------------ tokens: the eMSP
def _token_pushing(change) -> type:
    """An eMSP's Tokens Sender whose pushes go out as ``change(method, body)`` makes them."""
    class Faulty(TokensSender):
        async def push(self, method, token, body):
            return await super().push(method, token, change(method, body))
    return Faulty


class TokenPatchesWithoutLastUpdated(OcpiPeer):
    """The eMSP's Token PATCH carries no last_updated."""

    modules = OcpiPeer.modules.with_handler(_token_pushing(
        lambda method, body: _without(body, "last_updated") if method == "PATCH" else body))


class _PushesWithoutType(TokensSender):
    async def push(self, method, token, body):
        return await self.peer.call(method, TOKENS, (token["uid"],), self.peer.outgoing("token", body))


class PushesAppTokensWithoutType(OcpiPeer):
    """An APP_USER Token is PUT without ?type=APP_USER (as if it were an RFID one)."""

    modules = OcpiPeer.modules.with_handler(_PushesWithoutType)


class _Unknown200(TokensSender):
    def _authorize(self, uid, kind, where):
        if self.store.owned(uid, kind) is None:
            return Reply(200, build(status_code=StatusCode.UNKNOWN_TOKEN, status_message="unknown Token"))
        return super()._authorize(uid, kind, where)


class AnswersAnUnknownTokenWithHttp200(OcpiPeer):
    """A real-time authorization of an unknown Token gets HTTP 200 (status 2004) instead of HTTP 404."""

    modules = OcpiPeer.modules.with_handler(_Unknown200)


class _UnknownWithData(TokensSender):
    def _authorize(self, uid, kind, where):
        if self.store.owned(uid, kind) is None:
            return Reply(404, build({"allowed": NOT_ALLOWED}, status_code=StatusCode.UNKNOWN_TOKEN))
        return super()._authorize(uid, kind, where)


class AnswersAnUnknownTokenWithData(OcpiPeer):
    """A real-time authorization of an unknown Token is answered 404, 2004 with data."""

    modules = OcpiPeer.modules.with_handler(_UnknownWithData)


class _Always2002(TokensSender):
    def allowed(self, token, where):
        raise StatusError(TokenRules.authorize_url, "not enough information",
                          status_code=StatusCode.NOT_ENOUGH_INFORMATION)


class Answers2002EvenWithALocation(OcpiPeer):
    """Every real-time authorization gets 2002, LocationReferences or not."""

    modules = OcpiPeer.modules.with_handler(_Always2002)


class _ExtraEvse(TokensSender):
    def _authorize(self, uid, kind, where):
        if where is not None:
            where = {**where, "evse_uids": [*(where.get("evse_uids") or []), "EVSE-NOT-ASKED"]}
        return super()._authorize(uid, kind, where)


class AllowsEvsesNotAskedAbout(OcpiPeer):
    """The AuthorizationInfo's location lists an EVSE the request did not name."""

    modules = OcpiPeer.modules.with_handler(_ExtraEvse)


class _JudgesOnStatus(TokensSender):
    def allowed(self, token, where):
        verdict = super().allowed(token, where)
        for location in self.peer.store(LOCATIONS).all():
            if where and location["id"].casefold() == where["location_id"].casefold() and any(
                    evse.get("status") == "INOPERATIVE" for evse in location.get("evses", [])):
                return NOT_ALLOWED
        return verdict


class JudgesOnEvseStatus(OcpiPeer):
    """The eMSP answers NOT_ALLOWED at a Location one of whose EVSEs is INOPERATIVE."""

    modules = OcpiPeer.modules.with_handler(_JudgesOnStatus)


class _AllowsInvalid(TokensSender):
    def allowed(self, token, where):
        return ALLOWED


class AllowsInvalidTokens(OcpiPeer):
    """An invalid Token is answered ALLOWED."""

    modules = OcpiPeer.modules.with_handler(_AllowsInvalid)


class _ForgetsChanges(TokensSender):
    def act_update_token(self, uid, type="RFID", **changes):
        held = copy.deepcopy(self.store.owned(uid, type))
        pushed = super().act_update_token(uid, type, **changes)

        async def restored():
            try:
                return await pushed
            finally:
                self.store.owned(uid, type).update(held)
        return restored()


class ListsTokensAsFirstIssued(OcpiPeer):
    """The eMSP's list holds a Token as first issued: a change it pushed never reaches the list."""

    modules = OcpiPeer.modules.with_handler(_ForgetsChanges)


class _OnlyValid(TokensSender):
    async def serve(self, request, rest):
        if request.method == "GET" and not rest:
            return self.peer.list_page(request, [t for t in self.store.all() if t["valid"]], "token")
        return await super().serve(request, rest)


class ListsOnlyValidTokens(OcpiPeer):
    """Legal: the list holds only the valid Tokens; an invalidated one leaves it (OCPI 2.2.1 §12.2.2.1:
    "list of valid Token objects"; what the list no longer holds is no longer valid)."""

    modules = OcpiPeer.modules.with_handler(_OnlyValid)


class _NeedsALocationAlways(TokensSender):
    def allowed(self, token, where):
        if where is None:
            raise StatusError(TokenRules.authorize_url, "which Location?", status_code=StatusCode.NOT_ENOUGH_INFORMATION)
        return super().allowed(token, where)


class NeedsALocationForEveryToken(OcpiPeer):
    """Legal: every real-time authorization without LocationReferences gets 2002 (too little information)."""

    modules = OcpiPeer.modules.with_handler(_NeedsALocationAlways)


class _AppTokensWhitelisted(TokensSender):
    async def act_push_token(self, uid=None, type="RFID", whitelist=None, valid=True):
        if type in ("APP_USER", "AD_HOC_USER") and whitelist is None:
            whitelist = "ALLOWED"
        return await super().act_push_token(uid, type, whitelist, valid)


class WhitelistsAppTokens(OcpiPeer):
    """APP_USER Tokens are issued with whitelist ALLOWED, not the RECOMMENDED NEVER."""

    modules = OcpiPeer.modules.with_handler(_AppTokensWhitelisted)


# ------------------------------------------------------------------------------ tokens: the CPO
class _LenientTokenStore(TokenStore):
    def patch(self, country_code, party_id, uid, kind, changes):
        if isinstance(changes, dict) and "last_updated" not in changes:
            changes = {**changes, "last_updated": format_datetime(utcnow())}
        return super().patch(country_code, party_id, uid, kind, changes)


class AcceptsATokenPatchWithoutLastUpdated(OcpiPeer):
    """The Receiver applies a Token PATCH that has no last_updated instead of answering 2001."""

    modules = OcpiPeer.modules.with_store(TOKENS, _LenientTokenStore)


class _IgnoresType(TokenStore):
    @staticmethod
    def _key(country_code, party_id, uid, kind):
        return TokenStore._key(country_code, party_id, uid, "RFID")

    def put(self, country_code, party_id, uid, kind, token):
        if isinstance(token, dict):
            token = {**token, "type": kind}
        return super().put(country_code, party_id, uid, kind, token)


class KeepsOneTokenPerUid(OcpiPeer):
    """The Receiver keeps one Token per uid whatever its type: an APP_USER PUT replaces the RFID Token."""

    modules = OcpiPeer.modules.with_store(TOKENS, _IgnoresType)


class _TrustsTheTokenUrl(TokenStore):
    def put(self, country_code, party_id, uid, kind, token):
        if isinstance(token, dict):
            token = {**token, "country_code": country_code, "party_id": party_id, "uid": uid, "type": kind}
        return super().put(country_code, party_id, uid, kind, token)


class StoresTokensUnderTheUrlIds(OcpiPeer):
    """A Token PUT whose URL ids differ from the Token's is stored under the URL's, not refused."""

    modules = OcpiPeer.modules.with_store(TOKENS, _TrustsTheTokenUrl)


class AcceptsATokenDelete(OcpiPeer):
    """Answers a Token DELETE with success."""

    modules = OcpiPeer.modules.with_handler(_accepting_deletes(TokensReceiver))


class _DropsPatches(TokenStore):
    def patch(self, country_code, party_id, uid, kind, changes):
        held = self.get(country_code, party_id, uid, kind)
        kept = copy.deepcopy(held)
        after = super().patch(country_code, party_id, uid, kind, changes)
        held.clear()
        held.update(kept)
        return after


class IgnoresTokenPatches(OcpiPeer):
    """Answers a Token PATCH with success and keeps the Token as it was."""

    modules = OcpiPeer.modules.with_store(TOKENS, _DropsPatches)


class _UnknownAnswered(TokensReceiver):
    async def serve(self, request, rest):
        try:
            return await super().serve(request, rest)
        except StatusError as error:
            if error.status_code != StatusCode.UNKNOWN_TOKEN:
                raise
            return Reply(200, build())


class AnswersUnknownTokensWithSuccess(OcpiPeer):
    """A GET or PATCH of a Token the CPO never got is answered 1000."""

    modules = OcpiPeer.modules.with_handler(_UnknownAnswered)


class _TrustsItsCache(TokensReceiver):
    def needs_realtime(self, token):
        return token is None


class NeverAuthorizesInRealTime(OcpiPeer):
    """The CPO lets every Token it holds in from its cache, NEVER ones too."""

    modules = OcpiPeer.modules.with_handler(_TrustsItsCache)


class _AsksAlways(TokensReceiver):
    def needs_realtime(self, token):
        return True


class AuthorizesAlwaysTokensInRealTime(OcpiPeer):
    """The CPO asks the eMSP in real time about ALWAYS Tokens too."""

    modules = OcpiPeer.modules.with_handler(_AsksAlways)


class _PostsAtTheToken(TokensReceiver):
    async def act_present_token(self, uid, type="RFID", location_id=None, evse_uid=None):
        url = self.peer.other_url(TOKENS, uid)
        return await self.peer.send("POST", url, token=self.peer.peer_token, module=TOKENS,
                                    body={"location_id": location_id, "evse_uids": [evse_uid]})


class AuthorizesWithoutTheAuthorizeSegment(OcpiPeer):
    """The real-time authorization is POSTed to {tokens}/{token_uid}, without /authorize."""

    modules = OcpiPeer.modules.with_handler(_PostsAtTheToken)


class _AnyTokenParty(TokensReceiver):
    def _check_party(self, country_code, party_id):
        return None


class AcceptsTokensUnderAnyParty(OcpiPeer):
    """Stores Tokens pushed under any party, not only the pushing eMSP's."""

    modules = OcpiPeer.modules.with_handler(_AnyTokenParty)


# ------------------------------------------------------------------------------ commands: the CPO
class _NoResult(CommandsReceiver):
    async def _post_result(self, url, result):
        return None


class NeverPostsTheCommandResult(OcpiPeer):
    """The CPO answers ACCEPTED and never POSTs the CommandResult."""

    modules = OcpiPeer.modules.with_handler(_NoResult)


class _AcceptsEverything(CommandsReceiver):
    def decide(self, command, body):
        return COMMAND_ACCEPTED, COMMAND_ACCEPTED


class AcceptsCommandsForWhatItDoesNotHave(OcpiPeer):
    """Every command is ACCEPTED: an unknown Session, an unknown Location, an unknown reservation too."""

    modules = OcpiPeer.modules.with_handler(_AcceptsEverything)


class _ChecksTheToken(CommandsReceiver):
    def decide(self, command, body):
        token = body.get("token")
        if token and not any(t["uid"].casefold() == token["uid"].casefold() for t in self.peer.store(TOKENS).all()):
            return "REJECTED", ""
        return super().decide(command, body)


class RejectsTokensItNeverGot(OcpiPeer):
    """A START_SESSION or RESERVE_NOW with a Token the CPO was never pushed is REJECTED."""

    modules = OcpiPeer.modules.with_handler(_ChecksTheToken)


class _AuthorizesCommandTokens(CommandsReceiver):
    def decide(self, command, body):
        token = body.get("token")
        if token:
            self.peer.background.spawn(self.peer.call("POST", TOKENS, (token["uid"], "authorize"), None))
        return super().decide(command, body)


class AuthorizesAppTokensOfCommands(OcpiPeer):
    """The CPO asks the eMSP in real time about the app Token of a START_SESSION."""

    modules = OcpiPeer.modules.with_handler(_AuthorizesCommandTokens)


class _NoTimeout(CommandsReceiver):
    async def serve(self, request, rest):
        reply = await super().serve(request, rest)
        return Reply(reply.status, {**reply.body, "data": _without(reply.body["data"], "timeout")})


class AnswersCommandsWithoutATimeout(OcpiPeer):
    """The CommandResponse has no timeout."""

    modules = OcpiPeer.modules.with_handler(_NoTimeout)


class _CancelsAnything(CommandsReceiver):
    def decide(self, command, body):
        if command == "CANCEL_RESERVATION":
            return COMMAND_ACCEPTED, COMMAND_ACCEPTED
        return super().decide(command, body)


class CancelsReservationsNobodyMade(OcpiPeer):
    """A CANCEL_RESERVATION of a reservation never made ends with the result ACCEPTED."""

    modules = OcpiPeer.modules.with_handler(_CancelsAnything)


class _AnswersGet(CommandsReceiver):
    async def serve(self, request, rest):
        if request.method == "GET":
            return Reply(200, build([]))
        return await super().serve(request, rest)


class AnswersAGetOfCommands(OcpiPeer):
    """The commands endpoint answers a GET with success."""

    modules = OcpiPeer.modules.with_handler(_AnswersGet)


class _AcceptsAnyType(CommandsReceiver):
    async def serve(self, request, rest):
        if rest and rest[0] not in ("START_SESSION", "STOP_SESSION", "RESERVE_NOW", "CANCEL_RESERVATION",
                                    "UNLOCK_CONNECTOR"):
            return Reply(200, build({"result": COMMAND_ACCEPTED, "timeout": 30}))
        return await super().serve(request, rest)


class AcceptsUnknownCommandTypes(OcpiPeer):
    """A command type that does not exist is ACCEPTED."""

    modules = OcpiPeer.modules.with_handler(_AcceptsAnyType)


# ------------------------------------------------------------------------------ commands: the eMSP
class _OthersTokens(CommandsSender):
    def _app_token(self):
        return {**super()._app_token(), "country_code": "DE", "party_id": "OTH"}


class StartsWithAnotherEmspsToken(OcpiPeer):
    """The eMSP's START_SESSION and RESERVE_NOW carry a Token of another eMSP."""

    modules = OcpiPeer.modules.with_handler(_OthersTokens)


class _RefusesResults(CommandsSender):
    async def serve(self, request, rest):
        return Reply(200, build(status_code=StatusCode.CLIENT_ERROR, status_message="unexpected result"))


class RefusesCommandResults(OcpiPeer):
    """The eMSP answers every CommandResult POST with 2000."""

    modules = OcpiPeer.modules.with_handler(_RefusesResults)


class _ConnectorWithoutEvse(CommandsSender):
    async def _send(self, command, **body):
        if body.get("connector_id"):
            body = {**body, "evse_uid": None}
        return await super()._send(command, **body)


class StartsAtAConnectorWithoutItsEvse(OcpiPeer):
    """A START_SESSION names a connector_id without its evse_uid."""

    modules = OcpiPeer.modules.with_handler(_ConnectorWithoutEvse)


# ------------------------------------------------------------------------------ locations: objects
class _DropsNewEvses(LocationStore):
    def put(self, country_code, party_id, target, obj):
        if target.kind == "evse" and self.get(country_code, party_id, target) is None:
            return True
        return super().put(country_code, party_id, target, obj)


class DropsANewEvse(OcpiPeer):
    """An EVSE PUT with a uid it has not seen is answered with success and dropped."""

    modules = OcpiPeer.modules.with_store(LOCATIONS, _DropsNewEvses)


class AcceptsAnEvseDelete(OcpiPeer):
    """Answers an EVSE DELETE with success."""

    modules = OcpiPeer.modules.with_handler(_accepting_deletes(LocationsReceiver))


class _TrustsTheLocationUrl(LocationStore):
    def put(self, country_code, party_id, target, obj):
        if isinstance(obj, dict) and target.kind == "location":
            obj = {**obj, "country_code": country_code, "party_id": party_id}
        return super().put(country_code, party_id, target, obj)


class StoresALocationUnderTheUrlParty(OcpiPeer):
    """A Location PUT whose party differs from the URL's is stored under the URL's, not refused."""

    modules = OcpiPeer.modules.with_store(LOCATIONS, _TrustsTheLocationUrl)


class _RenamesParking(LocationStore):
    def all(self):
        return [{**location, "parking_places": [{**place, "id": f"{place['id']}-OLD"}
                                                for place in location.get("parking_places", [])]}
                for location in super().all()]


class ReferencesParkingThatIsNotThere(OcpiPeer):
    """Its EVSEs reference Parking ids that its Locations list under other ids."""

    modules = OcpiPeer.modules.with_store(LOCATIONS, _RenamesParking)


class ListsLocationsOnlyAt221(OcpiPeer):
    """Lists 2.3.0, but its details there carry no locations endpoint (the module only under 2.2.1)."""

    def endpoints(self, version=VERSION):
        return [e for e in super().endpoints(version) if version == VERSION or e["identifier"] != LOCATIONS]


class StaysAt221OnAPut(OcpiPeer):
    """Serves a credentials PUT at its 2.3.0 endpoint as one at 2.2.1: the version never switches."""

    async def _serve_credentials(self, request, token):
        moved = request.url.replace(f"/ocpi/{LOCATIONS_VERSION}/", f"/ocpi/{VERSION}/")
        return await super()._serve_credentials(dataclasses.replace(request, url=moved), token)


class _FetchesOnePage(SessionsReceiver):
    async def act_fetch_sessions(self, date_from):
        url = f"{self.peer.other_url(SESSIONS)}?date_from={date_from}"
        await self.peer.send("GET", url, token=self.peer.peer_token, module=SESSIONS)


class FetchesOnlyTheFirstPage(OcpiPeer):
    """Catching up on missed Sessions, the eMSP GETs the first page and ignores the Link."""

    modules = OcpiPeer.modules.with_handler(_FetchesOnePage)


# ------------------------------------------------------------------------------ locations: publish
class _PublishesEverything(LocationsSender):
    @classmethod
    def stock(cls, identity, profile, *, from_profile):
        return [{**{k: v for k, v in location.items() if k != "publish_allowed_to"}, "publish": True}
                for location in super().stock(identity, profile, from_profile=from_profile)]


class PublishesItsPrivateLocations(OcpiPeer):
    """Serves the Locations its profile declares private with publish = true."""

    modules = OcpiPeer.modules.with_handler(_PublishesEverything)


class _IgnoresPublish(LocationStore):
    def get(self, country_code, party_id, target):
        found = super().get(country_code, party_id, target)
        if found is None or target.kind != "location":
            return found
        return {**{k: v for k, v in found.items() if k != "publish_allowed_to"}, "publish": True}


class ForgetsWhoMaySeeALocation(OcpiPeer):
    """Holds every Location pushed to it as published, its publish_allowed_to dropped."""

    modules = OcpiPeer.modules.with_store(LOCATIONS, _IgnoresPublish)


# ------------------------------------------------------------------------------ locations: expiry
def _expired(location):
    return bool(location.get("evses")) and all(evse.get("status") == "REMOVED" for evse in location["evses"])


class _DeletesExpiredLocations(LocationStore):
    def patch(self, country_code, party_id, target, changes):
        super().patch(country_code, party_id, target, changes)
        self._locations = {key: location for key, location in self._locations.items() if not _expired(location)}


class DeletesALocationOnceEveryEvseIsRemoved(OcpiPeer):
    """Deletes a Location when a PATCH leaves every EVSE of it REMOVED (as CPO and as eMSP)."""

    modules = OcpiPeer.modules.with_store(LOCATIONS, _DeletesExpiredLocations)


class _DropsExpiredLocations(LocationStore):
    def put(self, country_code, party_id, target, obj):
        if target.kind == "location" and isinstance(obj, dict) and _expired(obj):
            return True
        return super().put(country_code, party_id, target, obj)


class DropsALocationPutExpired(OcpiPeer):
    """Answers the PUT of a Location whose every EVSE is REMOVED with success, and drops it."""

    modules = OcpiPeer.modules.with_store(LOCATIONS, _DropsExpiredLocations)


class _DeletesAnEvsePutRemoved(LocationStore):
    def put(self, country_code, party_id, target, obj):
        created = super().put(country_code, party_id, target, obj)
        if target.kind == "evse" and obj.get("status") == "REMOVED":
            location = self.get(country_code, party_id, Target(target.ids[:1]))
            location["evses"] = [e for e in location["evses"] if e["uid"].lower() != target.ids[1].lower()]
        return created


class DeletesAnEvsePutAsRemoved(OcpiPeer):
    """Deletes an EVSE PUT with status REMOVED instead of keeping it."""

    modules = OcpiPeer.modules.with_store(LOCATIONS, _DeletesAnEvsePutRemoved)


# ------------------------------------------------------------------------------ locations: coordinates
class _PlacesALocationOffTheGlobe(LocationsSender):
    @classmethod
    def stock(cls, identity, profile, *, from_profile):
        first, *others = super().stock(identity, profile, from_profile=from_profile)
        return [{**first, "coordinates": {**first["coordinates"], "latitude": "95.089444"}}, *others]


class ServesALatitudeBeyond90(OcpiPeer):
    """Serves a Location at latitude 95 degrees (the form of a decimal degree, beyond WGS 84)."""

    modules = OcpiPeer.modules.with_handler(_PlacesALocationOffTheGlobe)


def _as_numbers(point):
    return {**point, **{axis: str(float(point[axis])) for axis in ("latitude", "longitude") if axis in point}}


class _CoordinatesAsNumbers(LocationStore):
    def get(self, country_code, party_id, target):
        found = super().get(country_code, party_id, target)
        if found is None or target.kind != "location":
            return found
        return {**found, "coordinates": _as_numbers(found["coordinates"]),
                "related_locations": [_as_numbers(point) for point in found.get("related_locations") or []],
                "evses": [{**evse, **({"coordinates": _as_numbers(evse["coordinates"])} if "coordinates" in evse
                                      else {})} for evse in found.get("evses") or []]}


class StoresCoordinatesAsNumbers(OcpiPeer):
    """Keeps latitudes and longitudes as numbers: they come back trimmed ("52.10000" as "52.1")."""

    modules = OcpiPeer.modules.with_store(LOCATIONS, _CoordinatesAsNumbers)


# ------------------------------------------------------------------------------ legal variants
class PublishesTrailingSlashes(OcpiPeer):
    """Legal: publishes its versions, version details and module URLs with a trailing slash (as the
    2.2.1 examples write them) and serves only those: the same path without the slash is redirected
    (HTTP 307), as web frameworks do."""

    @property
    def versions_url(self):
        return f"{self._base()}/ocpi/versions/"

    @property
    def details_url(self):
        return f"{self._base()}/ocpi/{VERSION}/"

    def module_url(self, module):
        return f"{self.details_url}{module}/"

    async def handle(self, request):
        published = {urlsplit(url).path for url in (self.versions_url, self.details_url)} | {
            urlsplit(endpoint["url"]).path for endpoint in self.endpoints()}
        parts = urlsplit(request.url)
        if f"{parts.path}/" in published:
            return HttpResponse(307, b"", {"Location": urlunsplit(parts._replace(path=f"{parts.path}/"))})
        return await super().handle(request)


def _rewritten(body: bytes, rewrite) -> bytes:
    """``body`` with its JSON passed through ``rewrite``; a body that is no JSON stays as it is."""
    try:
        value = json.loads(body)
    except ValueError:
        return body
    return json.dumps(rewrite(value)).encode()


class _RewritesWhatItSends(OcpiPeer):
    """A peer whose every body, request or answer, goes out as ``rewrite`` makes it (per method)."""

    def rewrite(self, method: str, value):
        raise NotImplementedError

    async def send(self, method, url, *, body=None, raw_body=None, **rest):
        if body is not None and raw_body is None:
            body = self.rewrite(method, body)
        return await super().send(method, url, body=body, raw_body=raw_body, **rest)

    async def handle(self, request):
        response = await super().handle(request)
        if response.body and response.headers.get("Content-Type", "").startswith("application/json"):
            response.body = _rewritten(response.body, lambda value: self.rewrite(request.method, value))
        return response


def _lower_cased(value):
    if isinstance(value, dict):
        return {name: (_lower_cistring(member) if name in schemas.cistring_fields() else _lower_cased(member))
                for name, member in value.items()}
    return [_lower_cased(item) for item in value] if isinstance(value, list) else value


def _lower_cistring(member):
    if isinstance(member, list):
        return [item.lower() if isinstance(item, str) else item for item in member]
    return member.lower() if isinstance(member, str) else member


class StoresIdsInLowerCase(_RewritesWhatItSends):
    """Legal: keeps every CiString (country_code, party_id, object ids, tariff ids, token uids, #NA)
    in lower case, so it sends and answers them so, whatever case they came in."""

    def rewrite(self, method, value):
        return _lower_cased(value)


def _schema(reference: str, within: str = "") -> tuple[dict, str]:
    """The schema a ``$ref`` names (``price.json``, ``common.json#/$defs/X``, ``#/$defs/Y`` in the
    file ``within``), and its file."""
    name, _, pointer = reference.partition("#")
    name = name or within
    schema = json.loads((schemas.schema_dir() / name).read_text(encoding="utf-8"))
    for part in filter(None, pointer.split("/")):
        schema = schema[part]
    return schema, name


WHOLE = ("location.json", "evse.json", "connector.json", "session.json", "credentials.json")


def _kind(value) -> tuple[dict, str] | tuple[None, str]:
    """The schema of the whole object ``value`` is (told by its required members), and its file."""
    for name in WHOLE:
        schema, _ = _schema(name)
        if isinstance(value, dict) and all(member in value for member in schema["required"]):
            return schema, name
    return None, ""


def _with_nulls(value, schema: dict | None = None, within: str = ""):
    """``value`` with every optional member its schema names and it lacks written as null, at every
    depth (nested objects by their own schemas)."""
    while schema is not None and "$ref" in schema:
        schema, within = _schema(schema["$ref"], within)
    if isinstance(value, list):
        return [_with_nulls(item, (schema or {}).get("items"), within) for item in value]
    if not isinstance(value, dict):
        return value
    if not (schema and "properties" in schema):
        schema, within = _kind(value)
    properties = (schema or {}).get("properties", {})
    return {**{member: None for member in properties if member not in value},
            **{name: _with_nulls(member, properties.get(name), within) for name, member in value.items()}}


class WritesAbsentFieldsAsNull(_RewritesWhatItSends):
    """Legal: writes every optional member of a whole Location, EVSE, Connector or Session it has
    no value for as null (a PUT, an answer); a PATCH carries only what changed, as the text asks."""

    def rewrite(self, method, value):
        return value if method == "PATCH" else _with_nulls(value)


class RegistersOnlyWithTokenA(OcpiPeer):
    """Legal: token A opens its versions and details and registers (POST credentials), nothing
    more: a GET of its credentials with token A gets HTTP 401, before and after a failed registration."""

    async def _serve_credentials(self, request, token):
        if request.method == "GET" and token == self.server.token_a:
            raise StatusError(AuthRules.header, "token A only registers", status_code=StatusCode.CLIENT_ERROR,
                              http_status=401)
        return await super()._serve_credentials(request, token)


class IgnoresTheRegisterAction(OcpiPeer):
    """Asked to register, does nothing at all (so it never POSTs either)."""

    async def act_register(self, versions_url: str, token_a: str) -> None:
        return None


# ------------------------------------------------------------------------------ the records
@dataclass(frozen=True)
class Fault(catalog.Fault):
    """One faulty stand-in and how the suites must catch it: the record of ``catalog``, played under
    ``profile`` (the built-in one when None)."""
    profile: Path | None = None

    @property
    def options(self) -> tuple[str, ...]:
        """The command-line options of its run."""
        return (f"--embedded-sut={self.embedded_sut}", *profile_options(self.profile))


def profile_options(profile: Path | None) -> tuple[str, ...]:
    return (f"--sut-profile={profile}",) if profile else ()


@dataclass(frozen=True)
class Variant:
    """A legal but unusual stand-in: every test of ``selection`` passes against it, with a finding
    naming the rule ``finding`` when one is given (a SHOULD the variant departs from); ``reading``:
    the freedom it takes, with the line of the text that gives it."""
    name: str
    cls: type
    selection: tuple[str, ...]
    finding: str | None = None
    reading: str = ""
    unblamed: tuple[str, ...] = ()   # rules no test may name in a finding against it: the freedom it takes

    @property
    def embedded_sut(self) -> str:
        return f"{MODULE}:{self.cls.__name__}"


def node(path: str, test: str, role: str, *params: str) -> str:
    return f"suites/ocpi/{path}::{test}[{'-'.join((role, PROTOCOL, *params))}]"


AUTH, FORMAT = "transport/test_OCPI_AUTH.py", "transport/test_OCPI_FORMAT.py"
OCPI_AUTH_UNDECLARED = "OCPI_AUTH.undeclared_form_refused"   # a use case's row: its table lives in the suite
CREDS = "credentials/test_OCPI_CREDENTIALS.py"
PULL, PUSH = "locations/test_OCPI_LOCATIONS_PULL.py", "locations/test_OCPI_LOCATIONS_PUSH.py"
S_PUSH, S_PULL = "sessions/test_OCPI_SESSIONS_PUSH.py", "sessions/test_OCPI_SESSIONS_PULL.py"
S_RECEIVER = "sessions/test_OCPI_SESSIONS_RECEIVER.py"
S_PREFS = "sessions/test_OCPI_CHARGING_PREFERENCES.py"
S_FETCH = "sessions/test_OCPI_SESSIONS_FETCH.py"
OBJECTS = "locations/test_OCPI_LOCATIONS_OBJECTS.py"
LOC_VERSION = "locations/test_OCPI_LOCATIONS_VERSION.py"
PUBLISH = "locations/test_OCPI_LOCATIONS_PUBLISH.py"
EXPIRY = "locations/test_OCPI_LOCATIONS_EXPIRY.py"
COORDINATES = "locations/test_OCPI_LOCATIONS_COORDINATES.py"
T_PUSH, T_PULL = "tokens/test_OCPI_TOKENS_PUSH.py", "tokens/test_OCPI_TOKENS_PULL.py"
C_CMD = "commands/test_OCPI_COMMANDS.py"
T_RECEIVER, T_AUTH = "tokens/test_OCPI_TOKENS_RECEIVER.py", "tokens/test_OCPI_TOKENS_AUTHORIZE.py"

FAULTS: tuple[Fault, ...] = (
    Fault("403-for-an-unknown-token", AuthRules.header.id, Answers403ForAnUnknownToken,
          (node(AUTH, "test_unknown_token_gets_401", "cpo", "credentials"),
           node(AUTH, "test_unknown_token_gets_401", "emsp", "locations")),
          "with an unknown token: HTTP 403 where HTTP 401 is due"),
    Fault("200-with-an-error-for-an-unknown-token", AuthRules.header.id, Answers200ForAnUnknownToken,
          (node(AUTH, "test_unknown_token_gets_401", "emsp", "versions"),),
          "HTTP 200, status_code 2000 (generic client error)"),
    Fault("https-request-let-in-without-a-token", AuthRules.header.id, LetsInEveryHttpsRequest,
          (node(AUTH, "test_the_401_rules_hold_over_https", "cpo", "https"),
           node(AUTH, "test_the_401_rules_hold_over_https", "emsp", "https")),
          "over HTTPS without a token: HTTP 200 where HTTP 401 is due"),
    Fault("second-post-accepted", CredentialsRules.post_when_registered.id, AcceptsASecondPost,
          (node(CREDS, "test_second_post_is_refused_with_405", "cpo"),),
          "a second POST: HTTP 200 where HTTP 405 is due"),
    Fault("undeclared-raw-token-accepted", OCPI_AUTH_UNDECLARED, ReadsBothTokenForms,
          (node(AUTH, "test_token_in_the_undeclared_form_is_refused", "cpo"),
           node(AUTH, "test_token_in_the_undeclared_form_is_refused", "emsp")),
          "token C in raw form where the profile declares base64: HTTP 200 where HTTP 401 is due", "finding"),
    Fault("undeclared-base64-token-accepted", OCPI_AUTH_UNDECLARED, ReadsBothTokenForms,
          (node(AUTH, "test_token_in_the_undeclared_form_is_refused", "cpo"),),
          "token C in base64 form where the profile declares raw: HTTP 200 where HTTP 401 is due", "finding",
          profile=RAW_TOKENS),
    Fault("token-a-kept-after-registration", CredentialsRules.token_a_discarded.id, KeepsTokenA,
          (node(CREDS, "test_registration", "emsp", "by_cpo"), node(CREDS, "test_registration", "cpo", "by_emsp"),
           node(CREDS, "test_registration_over_real_sockets", "cpo", "sockets")),
          "token A still opens the SUT's API after the registration it started succeeded"),
    Fault("token-a-discarded-on-a-failed-registration", CredentialsRules.token_a_kept_on_failure.id,
          DiscardsTokenAOnAFailedRegistration,
          (node(CREDS, "test_connect_back_failure_gets_3001", "cpo"),
           node(CREDS, "test_connect_back_failure_gets_3001", "emsp")),
          "the retried registration with token A was refused: HTTP 401", "finding"),
    Fault("replaced-token-kept", CredentialsRules.rotation.id, KeepsTheReplacedToken,
          (node(CREDS, "test_put_rotates_the_tokens", "cpo", "by_emsp"),),
          "the old token C after the PUT: HTTP 200 where HTTP 401 is due"),
    Fault("connect-back-failure-not-3001", CredentialsRules.connect_back_failure.id, Answers3000OnConnectBackFailure,
          (node(CREDS, "test_connect_back_failure_gets_3001", "emsp"),),
          "the POST answer: status_code 3000 where 3001 (unable to use the client's API) is due"),
    Fault("posts-without-a-mutual-version", CredentialsRules.no_post_without_endpoints.id, PostsWithoutAMutualVersion,
          (node(CREDS, "test_no_mutual_version_or_endpoints", "cpo", "version", "by_cpo"),),
          "the SUT sent a credentials POST when it must not"),
    Fault("error-body-not-an-envelope", EnvelopeRules.json_object.id, AnswersErrorsInPlainText,
          (node(FORMAT, "test_answer_is_an_envelope_with_the_request_ids", "cpo", "unauthorized"),
           node(FORMAT, "test_answer_is_an_envelope_with_the_request_ids", "emsp", "method_not_allowed")),
          "is not an OCPI envelope: response body is not valid JSON"),
    Fault("request-id-not-echoed", HeaderRules.echo_ids.id, ForgetsTheRequestId,
          (node(FORMAT, "test_answer_is_an_envelope_with_the_request_ids", "emsp", "success"),),
          "X-Request-ID missing from the response"),
    Fault("sut-requests-without-ids", HeaderRules.request_ids.id, SendsNoRequestIds,
          (node(FORMAT, "test_sut_requests_carry_request_ids", "cpo"),
           node(FORMAT, "test_sut_requests_carry_request_ids", "emsp")),
          "carries no X-Request-ID and no X-Correlation-ID"),
    Fault("sut-requests-share-one-request-id", HeaderRules.request_ids.id, ReusesOneRequestId,
          (node(FORMAT, "test_sut_requests_carry_request_ids", "emsp"),),
          "repeats the X-Request-ID of the SUT's GET versions"),
    Fault("party-named-in-another-case", CredentialsRules.party_as_declared.id, LowerCasesTheOthersParty,
          (node(PUSH, "test_ids_and_party_come_back_as_sent", "cpo"),),
          "the harness's party in the CPO's PUT is wrong (expected 'NL*HAR', actual 'nl*har')", "finding"),
    Fault("ids-lower-cased", LocationRules.ids_as_sent.id, StoresIdsLowerCased,
          (node(PUSH, "test_ids_and_party_come_back_as_sent", "emsp"),),
          "Location id is wrong", "finding"),
    Fault("link-drops-the-date-filter", PaginationRules.link_filters.id, LinkDropsTheDateFilter,
          (node(PULL, "test_date_filter_on_last_updated", "cpo", "date_from"),),
          "Link does not repeat the original date filters"),
    Fault("link-on-the-last-page", PaginationRules.next_link.id, LinkOnTheLastPage,
          (node(PULL, "test_pages_chain_completely", "cpo"),),
          "Link on the last page"),
    Fault("x-total-count-one-too-many", PaginationRules.complete.id, CountsOneTooMany,
          (node(PULL, "test_pages_chain_completely", "cpo"),),
          "the pages ended after 5 objects but X-Total-Count is 6"),
    Fault("last-updated-not-propagated", LocationRules.propagation.id, DoesNotPropagateLastUpdated,
          (node(PUSH, "test_evse_status_patch_propagates", "emsp", "in_process"),
           node(PUSH, "test_connector_patch_propagates", "cpo")),
          "last_updated was not brought up to the change"),
    Fault("patch-without-last-updated", LocationRules.patch_last_updated.id, PatchesWithoutLastUpdated,
          (node(PUSH, "test_evse_status_patch_propagates", "cpo", "sockets"),),
          "the PATCH has no last_updated"),
    Fault("patch-without-last-updated-accepted", LocationRules.patch_last_updated.id,
          AcceptsAPatchWithoutLastUpdated, (node(PUSH, "test_patch_without_last_updated_gets_2001", "emsp"),),
          "a PATCH without last_updated: status_code 1000 where 2001 (invalid or missing parameters) is due"),
    Fault("session-patch-without-last-updated", SessionRules.patch_last_updated.id, SessionPatchesWithoutLastUpdated,
          (node(S_PUSH, "test_change_is_patched_with_last_updated", "cpo"),),
          "the PATCH has no last_updated"),
    Fault("session-patch-resends-all-periods", SessionRules.periods_only_new.id, ResendsAllChargingPeriods,
          (node(S_PUSH, "test_charging_periods_are_appended", "cpo"),),
          "the PATCH repeats ChargingPeriods pushed before"),
    Fault("session-start-not-moved-on-activation", SessionRules.activation_start.id, KeepsTheCreationTimeOnActivation,
          (node(S_PUSH, "test_pending_becomes_active_at_the_moment_of_activation", "cpo"),),
          "start_date_time was not moved to the moment of activation"),
    Fault("session-changed-after-completed", SessionRules.final.id, PushesChangesAfterCompleted,
          (node(S_PUSH, "test_completed_is_final", "cpo"),),
          "the SUT sent a sessions PATCH when it must not"),
    Fault("session-token-changed-on-activation", SessionRules.reservation_token.id, NewTokenOnActivation,
          (node(S_PUSH, "test_reservation_becomes_active_with_the_same_token", "cpo"),),
          "cdr_token uid after activation is wrong"),
    Fault("session-authorization-reference-not-updated", SessionRules.authorization_reference.id,
          KeepsTheFirstAuthorizationReference,
          (node(S_PUSH, "test_authorization_reference_is_the_last_given", "cpo"),),
          "authorization_reference held is wrong"),
    Fault("session-reservation-pushed-as-pending", SessionRules.reservation.id, ReservesAsPending,
          (node(S_PUSH, "test_reservation_becomes_active_with_the_same_token", "cpo"),),
          "status of the reservation's Session is wrong"),
    Fault("session-active-without-an-evse", SessionRules.na_only_reservation.id, ChargesWithoutAnEvse,
          (node(S_PUSH, "test_reservation_without_an_evse_is_na_until_charging", "cpo"),),
          "#NA in a ACTIVE Session"),
    Fault("session-completed-dropped-from-the-list", SessionRules.still_listed.id, DropsCompletedSessionsFromTheList,
          (node(S_PULL, "test_completed_session_stays_listed", "cpo"),),
          "the COMPLETED Session is gone from the list"),
    Fault("session-patch-repeats-unchanged-fields", SessionRules.patch_only_changed.id, PatchesUnchangedFields,
          (node(S_PUSH, "test_change_is_patched_with_last_updated", "cpo"),),
          "the PATCH carries fields that did not change", "finding"),
    Fault("session-periods-replaced-by-patch", SessionRules.periods_appended.id, ReplacesChargingPeriodsOnPatch,
          (node(S_PUSH, "test_charging_periods_are_appended", "emsp"),
           node(S_RECEIVER, "test_put_replaces_the_charging_periods", "emsp")),
          "charging_periods"),
    Fault("session-patch-without-last-updated-accepted", SessionRules.patch_refused_without_last_updated.id,
          AcceptsASessionPatchWithoutLastUpdated,
          (node(S_RECEIVER, "test_patch_without_last_updated_gets_2001", "emsp"),),
          "a PATCH without last_updated: status_code 1000 where 2001 (invalid or missing parameters) is due"),
    Fault("session-url-ids-trusted", SessionRules.mismatch_refused.id, StoresUnderTheUrlIds,
          (node(S_RECEIVER, "test_put_whose_url_differs_from_the_body_is_refused", "emsp", "country_code"),
           node(S_RECEIVER, "test_put_whose_url_differs_from_the_body_is_refused", "emsp", "id")),
          "differs between URL and body carries a success status_code"),
    Fault("session-absent-total-cost-read-as-free", SessionRules.total_cost.id, ReadsAnAbsentTotalCostAsFree,
          (node(S_RECEIVER, "test_total_cost_is_kept_as_sent", "emsp", "unknown"),),
          "total_cost of a Session pushed without one is wrong"),
    Fault("session-na-reservation-refused", SessionRules.na_accepted.id, RefusesNaReservations,
          (node(S_PUSH, "test_reservation_without_an_evse_is_na_until_charging", "emsp"),),
          "was refused"),
    Fault("session-unknown-patch-accepted", SessionRules.patch_unknown.id, AcceptsAPatchOfAnUnknownSession,
          (node(S_RECEIVER, "test_unknown_session_patch_refused_then_validated_and_put", "emsp"),),
          "a PATCH of an unknown Session carries a success status_code"),
    Fault("session-completed-reopened", SessionRules.completed_kept.id, ReopensACompletedSession,
          (node(S_PUSH, "test_completed_is_final", "emsp"),),
          "status is wrong", "finding"),
    Fault("session-delete-accepted", SessionRules.never_deleted.id, AcceptsASessionDelete,
          (node(S_RECEIVER, "test_delete_is_refused_and_the_session_stays", "emsp"),),
          "a DELETE of a Session carries a success status_code"),
    Fault("session-patch-through-extra-segments", SessionRules.patch_whole_session.id, PatchesThroughExtraSegments,
          (node(S_RECEIVER, "test_patch_on_an_inner_object_is_refused", "emsp"),),
          "a PATCH on the Session's charging_periods carries a success status_code"),
    Fault("session-pushed-under-any-party", SessionRules.party_registered.id, AcceptsPushesUnderAnyParty,
          (node(S_RECEIVER, "test_push_under_another_party_is_refused", "emsp"),),
          "a PUT under a party the harness never declared carries a success status_code"),
    Fault("preferences-accepted-without-the-capability", SessionRules.preferences_not_capable.id,
          AcceptsPreferencesWithoutTheCapability,
          (node(S_PREFS, "test_no_preferences_without_the_capability", "cpo"),),
          "HTTP 200 where HTTP 404 is due"),
    Fault("preferences-answered-with-an-unknown-value", SessionRules.preferences_answer.id,
          AnswersPreferencesWithAnUnknownValue,
          (node(S_PREFS, "test_preferences_are_answered_with_a_response_value", "cpo", "ACCEPTED"),),
          "is not one of the accepted values"),
    Fault("preferences-sent-without-the-capability", SessionRules.preferences_only_capable.id,
          SendsPreferencesWithoutTheCapability,
          (node(S_PREFS, "test_no_preferences_without_the_capability", "emsp"),),
          "the SUT sent a sessions PUT when it must not"),
    Fault("location-new-evse-dropped", LocationRules.put.id, DropsANewEvse,
          (node(OBJECTS, "test_new_evse_put_joins_its_location", "emsp"),),
          "the new EVSE in its Location is wrong"),
    Fault("location-evse-delete-accepted", LocationRules.removal.id, AcceptsAnEvseDelete,
          (node(OBJECTS, "test_evse_delete_is_refused_and_it_stays", "emsp"),),
          "a DELETE of an EVSE carries a success status_code"),
    Fault("location-url-party-trusted", LocationRules.put.id, StoresALocationUnderTheUrlParty,
          (node(OBJECTS, "test_location_whose_party_differs_from_the_url_gets_2001", "emsp"),),
          "status_code 1000 where 2001 (invalid or missing parameters) is due"),
    Fault("location-parking-reference-dangling", LocationRules.parking_reference.id, ReferencesParkingThatIsNotThere,
          (node(OBJECTS, "test_parking_references_name_parking_of_the_location", "cpo"),),
          "which the Location lacks"),
    Fault("locations-not-listed-at-2.3.0", LocationRules.version_offered.id, ListsLocationsOnlyAt221,
          (node(LOC_VERSION, "test_2_3_0_is_listed_with_the_locations_endpoint", "cpo"),
           node(LOC_VERSION, "test_2_3_0_is_listed_with_the_locations_endpoint", "emsp")),
          "details list no locations endpoint", "finding"),
    Fault("version-not-switched-by-put", "OCPI_LOCATIONS_VERSION.switched", StaysAt221OnAPut,
          (node(LOC_VERSION, "test_credentials_put_at_2_3_0_switches_the_version", "cpo"),
           node(LOC_VERSION, "test_credentials_put_at_2_3_0_switches_the_version", "emsp")),
          "the SUT did not fetch the harness's 2.3.0 details"),
    Fault("sessions-fetch-stops-after-one-page", "OCPI_SESSIONS_FETCH.every_page", FetchesOnlyTheFirstPage,
          (node(S_FETCH, "test_missed_sessions_are_fetched_page_by_page", "emsp"),),
          "the SUT did not send the GET of the last page"),
    Fault("location-private-published", LocationRules.private_unpublished.id, PublishesItsPrivateLocations,
          (node(PUBLISH, "test_private_locations_are_not_published", "cpo"),),
          "publish of the private Location LOC-0005"),
    Fault("location-publish-allowed-to-forgotten", LocationRules.unpublished_kept.id, ForgetsWhoMaySeeALocation,
          (node(PUBLISH, "test_unpublished_location_is_kept_with_who_may_see_it", "emsp"),
           node(PUBLISH, "test_unpublishing_patch_is_kept", "emsp")),
          "as stored"),
    Fault("location-deleted-once-expired", LocationRules.expired.id, DeletesALocationOnceEveryEvseIsRemoved,
          (node(EXPIRY, "test_location_whose_every_evse_is_removed_is_kept", "cpo"),
           node(EXPIRY, "test_location_whose_every_evse_is_removed_is_kept", "emsp")),
          "once every EVSE of its Location is REMOVED was refused"),
    Fault("location-put-expired-dropped", LocationRules.expired.id, DropsALocationPutExpired,
          (node(EXPIRY, "test_location_put_with_every_evse_removed_is_kept", "emsp"),),
          "once every EVSE of its Location is REMOVED was refused"),
    Fault("location-evse-put-removed-deleted", LocationRules.removal.id, DeletesAnEvsePutAsRemoved,
          (node(EXPIRY, "test_evse_put_removed_stays", "emsp"),),
          "after its PUT as REMOVED was refused"),
    Fault("location-latitude-beyond-90", LocationRules.coordinates.id, ServesALatitudeBeyond90,
          (node(COORDINATES, "test_served_coordinates_are_decimal_degrees", "cpo"),),
          "is beyond +-90 degrees"),
    Fault("location-coordinates-stored-as-numbers", LocationRules.coordinates.id, StoresCoordinatesAsNumbers,
          (node(COORDINATES, "test_coordinates_are_kept_as_sent", "emsp"),),
          "latitude as stored"),
    Fault("session-put-body-party-differs-from-url", SessionRules.put_ids.id, PutsASessionOfAnotherParty,
          (node(S_PUSH, "test_new_session_is_put_and_held", "cpo", "in_process"),),
          "differs from the URL's"),
    Fault("session-pushed-under-another-party", SessionRules.receiver_url.id, PushesSessionsUnderAnotherParty,
          (node(S_PUSH, "test_new_session_is_put_and_held", "cpo", "in_process"),),
          "is not the party of the pushing CPO"),
    Fault("register-ignored", CredentialsRules.client_discovery.id, IgnoresTheRegisterAction,
          (node(CREDS, "test_no_mutual_version_or_endpoints", "cpo", "version", "by_cpo"),
           node(CREDS, "test_no_mutual_version_or_endpoints", "cpo", "endpoints", "by_cpo")),
          "the SUT did not send a GET of"),
    Fault("token-patch-without-last-updated", TokenRules.patch_last_updated.id, TokenPatchesWithoutLastUpdated,
          (node(T_PUSH, "test_invalidated_token_is_patched_valid_false", "emsp"),),
          "the PATCH has no last_updated"),
    Fault("token-app-user-pushed-without-type", TokenRules.put_ids.id, PushesAppTokensWithoutType,
          (node(T_PUSH, "test_app_user_token_is_pushed_with_its_type", "emsp"),),
          "type differs from the URL's type parameter"),
    Fault("token-app-user-whitelisted", TokenRules.app_tokens_never.id, WhitelistsAppTokens,
          (node(T_PUSH, "test_app_user_token_is_pushed_with_its_type", "emsp"),),
          "a APP_USER Token with whitelist ALLOWED", "finding"),
    Fault("token-unknown-authorized-with-http-200", TokenRules.authorize_unknown.id, AnswersAnUnknownTokenWithHttp200,
          (node(T_AUTH, "test_unknown_token_gets_404_and_2004_without_data", "emsp"),),
          "HTTP 200 where HTTP 404 is due"),
    Fault("token-unknown-authorized-with-data", TokenRules.authorize_unknown.id, AnswersAnUnknownTokenWithData,
          (node(T_AUTH, "test_unknown_token_gets_404_and_2004_without_data", "emsp"),),
          "the answer about an unknown Token carries data"),
    Fault("token-2002-with-a-location", TokenRules.authorize_needs_location.id, Answers2002EvenWithALocation,
          (node(T_AUTH, "test_without_location_a_verdict_or_2002", "emsp"),),
          "still gets 2002 with LocationReferences"),
    Fault("token-evse-not-asked-allowed", TokenRules.authorize_location.id, AllowsEvsesNotAskedAbout,
          (node(T_AUTH, "test_location_answered_names_only_what_was_asked", "emsp"),
           node(T_AUTH, "test_known_token_gets_its_authorization_info", "emsp")),
          "the answer allows EVSEs the request did not name"),
    Fault("token-authorization-judged-on-evse-status", TokenRules.authorize_not_by_status.id, JudgesOnEvseStatus,
          (node(T_AUTH, "test_evse_status_does_not_change_the_answer", "emsp"),),
          "allowed once the EVSE is INOPERATIVE is wrong"),
    Fault("token-invalid-allowed", TokenRules.authorize_consistent.id, AllowsInvalidTokens,
          (node(T_AUTH, "test_invalid_token_is_not_allowed", "emsp"),),
          "an invalid Token is answered ALLOWED", "finding"),
    Fault("token-list-misses-changes", TokenRules.listed_as_pushed.id, ListsTokensAsFirstIssued,
          (node(T_PULL, "test_pushed_token_and_its_change_are_listed", "emsp"),),
          "valid of the listed Token after the PATCH is wrong"),
    Fault("token-patch-without-last-updated-accepted", TokenRules.patch_refused_without_last_updated.id,
          AcceptsATokenPatchWithoutLastUpdated, (node(T_RECEIVER, "test_patch_without_last_updated_gets_2001", "cpo"),),
          "a PATCH without last_updated: status_code 1000 where 2001 (invalid or missing parameters) is due"),
    Fault("token-one-per-uid", TokenRules.type_identifies.id, KeepsOneTokenPerUid,
          (node(T_RECEIVER, "test_one_uid_under_two_types_is_two_tokens", "cpo"),),
          "type of the Token GET without a type is wrong"),
    Fault("token-url-ids-trusted", TokenRules.mismatch_refused.id, StoresTokensUnderTheUrlIds,
          (node(T_RECEIVER, "test_put_whose_url_differs_from_the_token_is_refused", "cpo", "uid"),
           node(T_RECEIVER, "test_put_whose_url_differs_from_the_token_is_refused", "cpo", "type")),
          "differs from the Token's carries a success status_code"),
    Fault("token-delete-accepted", TokenRules.never_deleted.id, AcceptsATokenDelete,
          (node(T_RECEIVER, "test_delete_is_refused_and_the_token_stays", "cpo"),),
          "a DELETE of a Token carries a success status_code"),
    Fault("token-patch-ignored", TokenRules.patch_applied.id, IgnoresTokenPatches,
          (node(T_RECEIVER, "test_patch_changes_only_its_fields", "cpo"),),
          "language after the PATCH is wrong"),
    Fault("token-unknown-answered-with-success", TokenRules.unknown_refused.id, AnswersUnknownTokensWithSuccess,
          (node(T_RECEIVER, "test_unknown_token_is_not_answered_with_success", "cpo"),),
          "a GET of an unknown Token carries a success status_code"),
    Fault("token-never-authorized-in-real-time", TokenRules.authorize_sent.id, NeverAuthorizesInRealTime,
          (node(T_AUTH, "test_token_needing_realtime_is_authorized_at_the_emsp", "cpo", "valid", "NEVER"),
           node(T_AUTH, "test_token_needing_realtime_is_authorized_at_the_emsp", "cpo", "invalid", "ALLOWED_OFFLINE")),
          "the SUT did not send"),
    Fault("token-always-authorized-in-real-time", TokenRules.always_local.id, AuthorizesAlwaysTokensInRealTime,
          (node(T_AUTH, "test_always_token_is_let_in_without_asking", "cpo"),),
          "a tokens POST", "finding"),
    Fault("token-authorized-without-the-authorize-segment", TokenRules.authorize_url.id,
          AuthorizesWithoutTheAuthorizeSegment,
          (node(T_AUTH, "test_token_needing_realtime_is_authorized_at_the_emsp", "cpo", "valid", "NEVER"),),
          "the POST is not at {tokens}/{token_uid}/authorize"),
    Fault("token-pushed-under-any-party", TokenRules.party_registered.id, AcceptsTokensUnderAnyParty,
          (node(T_RECEIVER, "test_push_under_another_party_is_refused", "cpo"),),
          "a PUT under a party the harness never declared carries a success status_code", "finding"),
    Fault("command-result-never-posted", CommandRules.result_sent.id, NeverPostsTheCommandResult,
          (node(C_CMD, "test_command_is_answered_then_its_result_posted", "cpo", "START_SESSION"),
           node(C_CMD, "test_command_is_answered_then_its_result_posted", "cpo", "UNLOCK_CONNECTOR")),
          "the SUT did not send"),
    Fault("command-unknown-accepted", CommandRules.not_accepted_unknown.id, AcceptsCommandsForWhatItDoesNotHave,
          (node(C_CMD, "test_stop_of_an_unknown_session_is_not_accepted", "cpo"),
           node(C_CMD, "test_command_at_an_unknown_location_is_not_accepted", "cpo", "START_SESSION")),
          "ACCEPTED"),
    Fault("command-token-checked", CommandRules.no_token_check.id, RejectsTokensItNeverGot,
          (node(C_CMD, "test_app_token_start_is_neither_checked_nor_authorized", "cpo"),),
          "REJECTED"),
    Fault("command-token-authorized", CommandRules.no_realtime.id, AuthorizesAppTokensOfCommands,
          (node(C_CMD, "test_app_token_start_is_neither_checked_nor_authorized", "cpo"),),
          "a tokens POST"),
    Fault("command-response-without-timeout", SchemaRules.valid.id, AnswersCommandsWithoutATimeout,
          (node(C_CMD, "test_command_is_answered_then_its_result_posted", "cpo", "RESERVE_NOW"),),
          "timeout: required"),
    Fault("command-unknown-reservation-cancelled", CommandRules.unknown_reservation.id, CancelsReservationsNobodyMade,
          (node(C_CMD, "test_cancel_of_a_reservation_nobody_made", "cpo"),),
          "result of cancelling a reservation nobody made is wrong", "finding"),
    Fault("command-get-answered", CommandRules.post_only.id, AnswersAGetOfCommands,
          (node(C_CMD, "test_other_methods_are_refused", "cpo", "GET"),),
          "a GET of the commands endpoint carries a success status_code"),
    Fault("command-unknown-type-accepted", CommandRules.command_type.id, AcceptsUnknownCommandTypes,
          (node(C_CMD, "test_unknown_command_is_refused", "cpo"),),
          "result of an unknown command"),
    Fault("command-token-of-another-emsp", CommandRules.own_token.id, StartsWithAnotherEmspsToken,
          (node(C_CMD, "test_command_is_answered_then_its_result_posted", "emsp", "START_SESSION"),
           node(C_CMD, "test_command_is_answered_then_its_result_posted", "emsp", "RESERVE_NOW")),
          "belongs to DE/"),
    Fault("command-result-refused", CommandRules.result_answered.id, RefusesCommandResults,
          (node(C_CMD, "test_command_is_answered_then_its_result_posted", "emsp", "STOP_SESSION"),),
          "was refused"),
    Fault("command-connector-without-evse", SchemaRules.valid.id, StartsAtAConnectorWithoutItsEvse,
          (node(C_CMD, "test_start_session_at_a_named_connector", "emsp"),),
          "evse_uid: required when connector_id is present"),
)


VARIANTS: tuple[Variant, ...] = (
    Variant("trailing-slash-urls", PublishesTrailingSlashes, ("suites/ocpi",)),
    Variant("token-a-only-registers", RegistersOnlyWithTokenA, (f"suites/ocpi/{CREDS}",),
            reading="spec 000 Authentication 2 (token A starts the exchange; nothing makes it open a GET of the "
                    "credentials)", unblamed=(CredentialsRules.token_a_kept_on_failure.id,)),
    Variant("ids-in-lower-case", StoresIdsInLowerCase, ("suites/ocpi",),
            reading="spec 000 Notation (CiString: case-insensitive); facts/ocpi-wire.md Other rules (compare "
                    "case-insensitively; echoing in another case is at most a finding)"),
    Variant("absent-fields-as-null", WritesAbsentFieldsAsNull, ("suites/ocpi",),
            reading="spec 000 Pagination (unspecified fields in returned objects count as null)"),
    Variant("empty-link-on-the-last-page", EmptyLinkOnTheLastPage,
            (node(PULL, "test_pages_chain_completely", "cpo"),
             node(PULL, "test_date_filter_on_last_updated", "cpo", "date_from"),
             node(PULL, "test_date_filter_on_last_updated", "cpo", "date_to"),
             node(PULL, "test_object_get_returns_one_location_evse_connector", "cpo")),
            PaginationRules.empty_link.id),
    Variant("tokens-list-only-valid", ListsOnlyValidTokens, ("suites/ocpi/tokens",),
            reading="OCPI 2.2.1 §12.2.2.1 response data (the list of valid Token objects; information no longer "
                    "in the list is no longer valid)"),
    Variant("tokens-need-a-location", NeedsALocationForEveryToken, ("suites/ocpi/tokens",),
            reading="OCPI 2.2.1 §12.2.2.2 (too little information, no LocationReferences, to decide: 2002)"),
)


# --- chargingprofiles ---
from harness.ocpi.chargingprofiles import ChargingProfileRules  # noqa: E402
from harness.reference.ocpi.chargingprofiles import (  # noqa: E402
    ChargingProfilesReceiver, ChargingProfilesSender)

CP, CP_RECEIVER = "chargingprofiles/test_OCPI_CHARGINGPROFILES.py", "chargingprofiles/test_OCPI_CHARGINGPROFILES_RECEIVER.py"


def _profiles(handler: type, name: str) -> type:
    """A peer ``name`` whose chargingprofiles handler (of its role) is ``handler``."""
    return type(name, (OcpiPeer,), {"modules": OcpiPeer.modules.with_handler(handler), "__module__": __name__,
                                    "__doc__": handler.__doc__})


class _NoProfileResult(ChargingProfilesReceiver):
    async def _post_result(self, method, url, result):
        return None


class _DropsTheQuery(ChargingProfilesReceiver):
    async def _post_result(self, method, url, result):
        return await super()._post_result(method, url.split("?", 1)[0], result)


class _AcceptsUnknownSessions(ChargingProfilesReceiver):
    def decide(self, method, session_id, asked):
        said = super().decide(method, session_id, asked)
        return ("ACCEPTED", {"result": "ACCEPTED"}) if said[0] == "UNKNOWN_SESSION" else said


class _RejectsUnknownSessions(ChargingProfilesReceiver):
    def decide(self, method, session_id, asked):
        said = super().decide(method, session_id, asked)
        return ("REJECTED", {}) if said[0] == "UNKNOWN_SESSION" else said


class _AnswersPost(ChargingProfilesReceiver):
    async def serve(self, request, rest):
        if request.method in ("POST", "PATCH"):
            return Reply(200, build({"result": "ACCEPTED", "timeout": 30}))
        return await super().serve(request, rest)


class _NoResponseData(ChargingProfilesReceiver):
    async def serve(self, request, rest):
        await super().serve(request, rest)
        return Reply(200, build())


class _NoActiveProfile(ChargingProfilesReceiver):
    def decide(self, method, session_id, asked):
        answer, result = super().decide(method, session_id, asked)
        return answer, {k: v for k, v in result.items() if k != "profile"}


class _ParametersOptional(ChargingProfilesReceiver):
    @staticmethod
    def read(request):
        if request.method == "PUT":
            body = json.loads(request.body)
            return {"charging_profile": body.get("charging_profile") or {}, "response_url": body.get("response_url")
                    or "https://nowhere.invalid/"}
        query = dict(request.query)
        return {"duration": int(query.get("duration") or 900),
                "response_url": query.get("response_url") or "https://nowhere.invalid/"}

    async def _post_result(self, method, url, result):
        if "nowhere.invalid" in url:
            return None
        return await super()._post_result(method, url, result)


class _DefaultsTheDuration(ChargingProfilesReceiver):
    @staticmethod
    def read(request):
        if request.method == "GET" and not dict(request.query).get("duration"):
            return {"duration": 900, "response_url": dict(request.query).get("response_url") or ""}
        return ChargingProfilesReceiver.read(request)


class _AcceptsEndedSessions(ChargingProfilesReceiver):
    def decide(self, method, session_id, asked):
        session = self.peer.store(SESSIONS).owned(session_id)
        if session is not None and session["status"] == COMPLETED:
            self.peer.store(SESSIONS).owned(session_id)["status"] = ACTIVE
            try:
                return super().decide(method, session_id, asked)
            finally:
                self.peer.store(SESSIONS).owned(session_id)["status"] = COMPLETED
        return super().decide(method, session_id, asked)


class _UpdatesUnset(ChargingProfilesReceiver):
    async def act_change_active_profile(self, session_id):
        return await self.peer.call("PUT", "chargingprofiles", (session_id,),
                                    self.active(session_id.casefold(), 900, 0.5))


class _NoUpdate(ChargingProfilesReceiver):
    async def act_change_active_profile(self, session_id):
        return None


class _UpdatesForADay(ChargingProfilesReceiver):
    def active(self, key, duration, factor=1.0):
        return super().active(key, 24 * 3600 if factor != 1.0 else duration, factor)


class _GetWithoutDuration(ChargingProfilesSender):
    async def _send(self, method, session_id, query, **asked):
        asked.pop("duration", None)
        return await super()._send(method, session_id, query, **asked)


class _TwoDecimals(ChargingProfilesSender):
    async def _send(self, method, session_id, query, **asked):
        if "charging_profile" in asked:
            profile = copy.deepcopy(asked["charging_profile"])
            for period in profile.get("charging_profile_period", []):
                period["limit"] = round(period["limit"] + 0.25, 2)
            asked["charging_profile"] = profile
        return await super()._send(method, session_id, query, **asked)


class _OwnProfile(ChargingProfilesSender):
    async def act_charging_profile_set(self, session_id, charging_profile=None, query=False):
        return await super().act_charging_profile_set(session_id, None, query)


class _ResultAnsweredWithData(ChargingProfilesSender):
    async def serve(self, request, rest):
        reply = await super().serve(request, rest)
        return Reply(reply.status, build({"received": True})) if request.method == "POST" else reply


class _RefusesUpdates(ChargingProfilesSender):
    async def serve(self, request, rest):
        if request.method == "PUT":
            return Reply(200, build(status_code=StatusCode.CLIENT_ERROR, status_message="no update expected"))
        return await super().serve(request, rest)


class _RejectsEveryProfile(ChargingProfilesReceiver):
    def decide(self, method, session_id, asked):
        answer, result = super().decide(method, session_id, asked)
        return (answer, {"result": "REJECTED"}) if answer == "ACCEPTED" else (answer, result)


class _NoActiveProfileSupport(ChargingProfilesReceiver):
    def decide(self, method, session_id, asked):
        if method == "GET":
            return "NOT_SUPPORTED", {}
        return super().decide(method, session_id, asked)


class _ForgetsOnClear(ChargingProfilesReceiver):
    def decide(self, method, session_id, asked):
        said = super().decide(method, session_id, asked)
        if method == "DELETE" and said[0] == "ACCEPTED":
            self.store.set_once.discard(session_id.casefold())
        return said


class _OneResponseUrl(ChargingProfilesSender):
    def _response_url(self, method, query):
        return f"{self.peer.module_url('chargingprofiles').rstrip('/')}/results"


NeverPostsTheProfileResult = _profiles(_NoProfileResult, "NeverPostsTheProfileResult")
PostsResultsWithoutTheQuery = _profiles(_DropsTheQuery, "PostsResultsWithoutTheQuery")
AcceptsProfilesForUnknownSessions = _profiles(_AcceptsUnknownSessions, "AcceptsProfilesForUnknownSessions")
RejectsProfilesForUnknownSessions = _profiles(_RejectsUnknownSessions, "RejectsProfilesForUnknownSessions")
AnswersAPostOfChargingProfiles = _profiles(_AnswersPost, "AnswersAPostOfChargingProfiles")
AnswersProfilesWithoutAResponse = _profiles(_NoResponseData, "AnswersProfilesWithoutAResponse")
ActiveProfileResultWithoutProfile = _profiles(_NoActiveProfile, "ActiveProfileResultWithoutProfile")
AcceptsProfileRequestsWithoutParameters = _profiles(_ParametersOptional, "AcceptsProfileRequestsWithoutParameters")
DefaultsTheActiveProfileDuration = _profiles(_DefaultsTheDuration, "DefaultsTheActiveProfileDuration")
AcceptsProfilesForEndedSessions = _profiles(_AcceptsEndedSessions, "AcceptsProfilesForEndedSessions")
PutsActiveProfilesNobodySet = _profiles(_UpdatesUnset, "PutsActiveProfilesNobodySet")
NeverPutsTheChangedActiveProfile = _profiles(_NoUpdate, "NeverPutsTheChangedActiveProfile")
PutsADayLongActiveProfile = _profiles(_UpdatesForADay, "PutsADayLongActiveProfile")
AsksActiveProfileWithoutDuration = _profiles(_GetWithoutDuration, "AsksActiveProfileWithoutDuration")
SendsLimitsWithTwoDecimals = _profiles(_TwoDecimals, "SendsLimitsWithTwoDecimals")
SendsAnotherProfileThanAsked = _profiles(_OwnProfile, "SendsAnotherProfileThanAsked")
AnswersProfileResultsWithData = _profiles(_ResultAnsweredWithData, "AnswersProfileResultsWithData")
RefusesActiveProfileUpdates = _profiles(_RefusesUpdates, "RefusesActiveProfileUpdates")
StopsUpdatesAfterAClear = _profiles(_ForgetsOnClear, "StopsUpdatesAfterAClear")
ReusesOneResponseUrl = _profiles(_OneResponseUrl, "ReusesOneResponseUrl")
ChargePointsRejectEveryProfile = _profiles(_RejectsEveryProfile, "ChargePointsRejectEveryProfile")
ActiveProfileNotSupported = _profiles(_NoActiveProfileSupport, "ActiveProfileNotSupported")

_CPR = ChargingProfileRules
FAULTS += (
    Fault("cp-result-never-posted", _CPR.result_sent.id, NeverPostsTheProfileResult,
          (node(CP, "test_request_is_answered_then_its_result_posted", "cpo", "PUT"),
           node(CP, "test_request_is_answered_then_its_result_posted", "cpo", "GET")),
          "the SUT did not send"),
    Fault("cp-result-without-the-query", _CPR.result_url.id, PostsResultsWithoutTheQuery,
          (node(CP_RECEIVER, "test_result_goes_to_a_response_url_with_a_query", "cpo", "GET"),
           node(CP_RECEIVER, "test_result_goes_to_a_response_url_with_a_query", "cpo", "DELETE")),
          "another URL than the response_url"),
    Fault("cp-unknown-session-accepted", _CPR.not_accepted_unknown.id, AcceptsProfilesForUnknownSessions,
          (node(CP_RECEIVER, "test_unknown_session_is_not_accepted", "cpo", "PUT"),),
          "for an unknown Session is ACCEPTED"),
    Fault("cp-unknown-session-rejected", _CPR.unknown_session.id, RejectsProfilesForUnknownSessions,
          (node(CP_RECEIVER, "test_unknown_session_is_not_accepted", "cpo", "GET"),),
          "result of a GET for an unknown Session is wrong", "finding"),
    Fault("cp-post-answered", _CPR.methods.id, AnswersAPostOfChargingProfiles,
          (node(CP_RECEIVER, "test_other_methods_are_refused", "cpo", "POST"),
           node(CP_RECEIVER, "test_other_methods_are_refused", "cpo", "PATCH")),
          "carries a success status_code"),
    Fault("cp-no-response", _CPR.profile_response.id, AnswersProfilesWithoutAResponse,
          (node(CP, "test_request_is_answered_then_its_result_posted", "cpo", "DELETE"),),
          "holds no charging_profile_response"),
    Fault("cp-active-result-without-profile", _CPR.active_profile.id, ActiveProfileResultWithoutProfile,
          (node(CP, "test_set_then_active_profile", "cpo"),),
          "carries no profile"),
    Fault("cp-parameters-optional", _CPR.parameters.id, AcceptsProfileRequestsWithoutParameters,
          (node(CP_RECEIVER, "test_request_without_its_parameters", "cpo", "GET-response_url"),
           node(CP_RECEIVER, "test_request_without_its_parameters", "cpo", "PUT-response_url")),
          "is ACCEPTED"),
    Fault("cp-duration-defaulted", _CPR.duration_required.id, DefaultsTheActiveProfileDuration,
          (node(CP_RECEIVER, "test_request_without_its_parameters", "cpo", "GET-duration"),),
          "a GET without duration is ACCEPTED", "finding"),
    Fault("cp-ended-session-accepted", _CPR.ongoing_only.id, AcceptsProfilesForEndedSessions,
          (node(CP_RECEIVER, "test_set_on_an_ended_session_is_not_accepted", "cpo"),),
          "for a COMPLETED Session is ACCEPTED", "finding"),
    Fault("cp-update-without-a-set", _CPR.no_update_unset.id, PutsActiveProfilesNobodySet,
          (node(CP_RECEIVER, "test_no_update_for_a_session_without_a_set_profile", "cpo"),),
          "chargingprofiles PUT"),
    Fault("cp-update-never-put", _CPR.update_sent.id, NeverPutsTheChangedActiveProfile,
          (node(CP, "test_changed_active_profile_is_put_after_a_set", "cpo"),),
          "the SUT did not send"),
    Fault("cp-update-a-day-long", _CPR.update_duration.id, PutsADayLongActiveProfile,
          (node(CP, "test_changed_active_profile_is_put_after_a_set", "cpo"),),
          "spans 86400 s", "finding"),
    Fault("cp-get-without-duration", _CPR.request.id, AsksActiveProfileWithoutDuration,
          (node(CP, "test_request_is_answered_then_its_result_posted", "emsp", "GET"),),
          "the GET lacks duration"),
    Fault("cp-limits-with-two-decimals", _CPR.one_decimal.id, SendsLimitsWithTwoDecimals,
          (node(CP, "test_request_is_answered_then_its_result_posted", "emsp", "PUT"),),
          "more than one decimal"),
    Fault("cp-another-profile-sent", _CPR.request.id, SendsAnotherProfileThanAsked,
          (node(CP, "test_set_again_replaces_the_profile", "emsp"),),
          "another ChargingProfile than it was asked to"),
    Fault("cp-result-answered-with-data", _CPR.result_answered.id, AnswersProfileResultsWithData,
          (node(CP, "test_request_is_answered_then_its_result_posted", "emsp", "DELETE"),),
          "carries data"),
    Fault("cp-update-refused", _CPR.update_answered.id, RefusesActiveProfileUpdates,
          (node(CP, "test_changed_active_profile_is_put_after_a_set", "emsp"),
           node(CP, "test_changed_active_profile_is_put_after_a_clear", "emsp")),
          "was refused"),
    Fault("cp-updates-stop-after-a-clear", _CPR.update_sent.id, StopsUpdatesAfterAClear,
          (node(CP, "test_changed_active_profile_is_put_after_a_clear", "cpo"),),
          "the SUT did not send"),
    Fault("cp-one-response-url", _CPR.unique_url.id, ReusesOneResponseUrl,
          (node(CP, "test_set_again_replaces_the_profile", "emsp"),),
          "share one response_url", "finding"),
)

VARIANTS += (
    Variant("cp-charge-points-reject", ChargePointsRejectEveryProfile,
            tuple(node(CP, test, role, *params) for role in ("cpo", "emsp") for test, params in (
                ("test_request_is_answered_then_its_result_posted", ("GET",)),
                ("test_request_is_answered_then_its_result_posted", ("PUT",)),
                ("test_request_is_answered_then_its_result_posted", ("DELETE",)),
                ("test_set_then_active_profile", ()), ("test_set_again_replaces_the_profile", ()),
                ("test_clear_where_no_profile_was_set", ()))),
            reading="OCPI 2.2.1 §14.6.6 ChargingProfileResultType (REJECTED: the EVSE refused the request)"),
    Variant("cp-no-active-profile", ActiveProfileNotSupported,
            tuple(node(CP, test, role, *params) for role in ("cpo", "emsp") for test, params in (
                ("test_request_is_answered_then_its_result_posted", ("PUT",)),
                ("test_request_is_answered_then_its_result_posted", ("DELETE",)),
                ("test_set_again_replaces_the_profile", ()), ("test_clear_where_no_profile_was_set", ()),
                ("test_changed_active_profile_is_put_after_a_set", ()),
                ("test_changed_active_profile_is_put_after_a_clear", ()))),
            reading="OCPI 2.2.1 §14.6.5 ChargingProfileResponseType (NOT_SUPPORTED: the GET of the "
                    "ActiveChargingProfile is not supported by this CPO)"),
)


# --- cdrs ---
from datetime import timedelta  # noqa: E402  (the cdrs block keeps its imports to itself)

from harness.ocpi.cdrs import CDR, CDRS, CdrRules  # noqa: E402
from harness.ocpi.pagination import page_headers, paginate, parse_query  # noqa: E402
from harness.ocpi.timestamps import parse_datetime  # noqa: E402
from harness.reference.ocpi.cdrs import CdrsReceiver, CdrsSender  # noqa: E402

CDR_PUSH, CDR_PULL = "cdrs/test_OCPI_CDRS_PUSH.py", "cdrs/test_OCPI_CDRS_PULL.py"
CDR_RECEIVER, CDR_FETCH = "cdrs/test_OCPI_CDRS_RECEIVER.py", "cdrs/test_OCPI_CDRS_FETCH.py"


def _cdr_posting(change, name: str) -> type:
    """An OcpiPeer whose CPO POSTs each CDR as ``change(cdr)`` makes it (its own copy stays as made)."""
    class Faulty(CdrsSender):
        async def post(self, cdr):
            return await super().post(change(copy.deepcopy(dict(cdr))))
    return type(name, (OcpiPeer,), {"modules": OcpiPeer.modules.with_handler(Faulty),
                                    "__doc__": f"The CPO's CDR POSTs: {name}."})


def _plus_hour(cdr):
    return {**cdr, "total_time": cdr["total_time"] + 1}


def _with_power(cdr):
    cdr["charging_periods"][0]["dimensions"].append({"type": "POWER", "volume": 11.0})
    return cdr


def _other_token(cdr):
    return {**cdr, "cdr_token": {**cdr["cdr_token"], "uid": "DEADBEEF"}}


def _first_method(cdr):
    return {**cdr, "auth_method": "WHITELIST"} if cdr.get("auth_method") == "COMMAND" else cdr


def _without_reference(cdr):
    return _without(cdr, "authorization_reference")


def _period_early(cdr):
    cdr["charging_periods"][0]["start_date_time"] = "2020-01-01T00:00:00Z"
    return cdr


def _energy_plus(cdr):
    return cdr if cdr.get("credit") else {**cdr, "total_energy": cdr["total_energy"] + 1}


def _in_dollars(cdr):
    return {**cdr, "currency": "USD"}


def _cost_plus(cdr):
    return cdr if cdr.get("credit") else {**cdr, "total_cost": {"excl_vat": cdr["total_cost"]["excl_vat"] + 2}}


def _credit_positive(cdr):
    return {**cdr, "total_cost": {k: abs(v) for k, v in cdr["total_cost"].items()}} if cdr.get("credit") else cdr


def _credit_unreferenced(cdr):
    return _without(cdr, "credit_reference_id") if cdr.get("credit") else cdr


CdrTotalTimeOff = _cdr_posting(_plus_hour, "CdrTotalTimeOff")
CdrWithPowerDimension = _cdr_posting(_with_power, "CdrWithPowerDimension")
CdrWithAnotherToken = _cdr_posting(_other_token, "CdrWithAnotherToken")
CdrWithTheFirstAuthMethod = _cdr_posting(_first_method, "CdrWithTheFirstAuthMethod")
CdrWithoutAuthorizationReference = _cdr_posting(_without_reference, "CdrWithoutAuthorizationReference")
CdrPeriodBeforeItsStart = _cdr_posting(_period_early, "CdrPeriodBeforeItsStart")
CdrEnergyAboveItsPeriods = _cdr_posting(_energy_plus, "CdrEnergyAboveItsPeriods")
CdrInAnotherCurrency = _cdr_posting(_in_dollars, "CdrInAnotherCurrency")
CdrCostAboveItsTariff = _cdr_posting(_cost_plus, "CdrCostAboveItsTariff")
CreditCdrNotNegated = _cdr_posting(_credit_positive, "CreditCdrNotNegated")
CreditCdrWithoutReference = _cdr_posting(_credit_unreferenced, "CreditCdrWithoutReference")
CdrOfAnotherSession = _cdr_posting(lambda cdr: {**cdr, "session_id": f"{cdr['session_id']}-X"}, "CdrOfAnotherSession")
CdrAtAnotherEvse = _cdr_posting(lambda cdr: {**cdr, "cdr_location": {**cdr["cdr_location"], "evse_uid": "EVSE-ELSEWHERE"}},
                                "CdrAtAnotherEvse")
CdrStartedEarlier = _cdr_posting(lambda cdr: {**cdr, "start_date_time": format_datetime(
    parse_datetime(cdr["start_date_time"]) - timedelta(seconds=30))}, "CdrStartedEarlier")
CdrPeriodOfAnUnlistedTariff = _cdr_posting(lambda cdr: {**cdr, "charging_periods": [
    {**p, "tariff_id": "TARIFF-NOWHERE"} for p in cdr["charging_periods"]]}, "CdrPeriodOfAnUnlistedTariff")
CdrInAnotherCity = _cdr_posting(lambda cdr: {**cdr, "cdr_location": {**cdr["cdr_location"], "city": "Atlantis"}},
                                "CdrInAnotherCity")


class _PostsBelowTheEndpoint(CdrsSender):
    async def post(self, cdr):
        url = f"{self.peer.other_url(CDRS).rstrip('/')}/{cdr['country_code']}/{cdr['party_id']}/{cdr['id']}"
        return await self.peer.send("POST", url, token=self.peer.peer_token, module=CDRS,
                                    body=self.peer.outgoing(CDR, cdr))


class PostsCdrsBelowTheEndpoint(OcpiPeer):
    """The CPO POSTs its CDR to {cdrs}/{country_code}/{party_id}/{id}, as if it were a client-owned PUT."""

    modules = OcpiPeer.modules.with_handler(_PostsBelowTheEndpoint)


class _ListsAnObject(CdrsSender):
    async def serve(self, request, rest):
        reply = await super().serve(request, rest)
        reply.body["data"] = (reply.body.get("data") or [None])[0]
        return reply


class ListsOneCdrAsAnObject(OcpiPeer):
    """The CPO's CDR list answers its first CDR as an object, not a list."""

    modules = OcpiPeer.modules.with_handler(_ListsAnObject)


def _cdr_listing(keep) -> type:
    """A CPO's CDRs Sender whose list holds only the CDRs ``keep(sender, cdr)`` keeps."""
    class Lists(CdrsSender):
        async def serve(self, request, rest):
            self.peer.only(request, "GET")
            return self.peer.list_page(request, [c for c in self.store.all() if keep(self, c)], CDR)
    return Lists


class ListsNoPostedCdr(OcpiPeer):
    """The CPO's list holds only the CDRs it had at start, none it posted since."""

    modules = OcpiPeer.modules.with_handler(_cdr_listing(lambda sender, cdr: str(cdr["id"]).startswith("CDR-SAMPLE")))


class _ListsStretchedCdrs(CdrsSender):
    @classmethod
    def stock(cls, identity, profile, *, from_profile):
        return [_plus_hour(cdr) for cdr in super().stock(identity, profile, from_profile=from_profile)]


class ListsCdrsWithTheirTimeOff(OcpiPeer):
    """The CPO's listed CDRs have a total_time an hour longer than their span."""

    modules = OcpiPeer.modules.with_handler(_ListsStretchedCdrs)


# the eMSP's Receiver
class _NoLocation(CdrsReceiver):
    def _created(self, cdr):
        reply = super()._created(cdr)
        return Reply(reply.status, reply.body)


class AnswersCdrPostsWithoutLocation(OcpiPeer):
    """The eMSP creates the CDR but its answer has no Location header."""

    modules = OcpiPeer.modules.with_handler(_NoLocation)


def _changing(method: str) -> type:
    class Changes(CdrsReceiver):
        async def serve(self, request, rest):
            if request.method != method or len(rest) != 1 or self.store.at(rest[0]) is None:
                return await super().serve(request, rest)
            held = self.store.at(rest[0])
            if method == "DELETE":
                self.store._paths.pop(rest[0])
            else:
                held.update({k: v for k, v in json.loads(request.body).items() if v is not None})
            return Reply(200, build())
    return Changes


class ReplacesCdrsOnPut(OcpiPeer):
    """The eMSP takes a PUT at a CDR's URL and replaces the CDR."""

    modules = OcpiPeer.modules.with_handler(_changing("PUT"))


class PatchesCdrs(OcpiPeer):
    """The eMSP takes a PATCH at a CDR's URL and changes the CDR."""

    modules = OcpiPeer.modules.with_handler(_changing("PATCH"))


class DeletesCdrs(OcpiPeer):
    """The eMSP takes a DELETE at a CDR's URL and forgets the CDR."""

    modules = OcpiPeer.modules.with_handler(_changing("DELETE"))


class _ReplacedByASecondPost(CdrsReceiver):
    def _created(self, cdr):
        held = self.store.get(cdr["country_code"], cdr["party_id"], cdr["id"]) if isinstance(cdr, dict) else None
        if held is None:
            return super()._created(cdr)
        held.clear()
        held.update(cdr)
        return Reply(200, build())


class ReplacesCdrsOnASecondPost(OcpiPeer):
    """A second POST of a CDR id the eMSP holds replaces the stored CDR."""

    modules = OcpiPeer.modules.with_handler(_ReplacedByASecondPost)


class _AnswersAnyUrl(CdrsReceiver):
    async def serve(self, request, rest):
        if request.method == "GET" and len(rest) == 1 and self.store.at(rest[0]) is None and self.store.all():
            return Reply(200, build(self.store.all()[-1]))
        return await super().serve(request, rest)


class AnswersAnyCdrUrl(OcpiPeer):
    """A GET at a URL the eMSP never gave answers the last CDR it got."""

    modules = OcpiPeer.modules.with_handler(_AnswersAnyUrl)


class _AnyParty(CdrsReceiver):
    def _created(self, cdr):
        path = self.store.post(cdr)
        return Reply(201, build(), {"Location": f"{self.peer.module_url(CDRS).rstrip('/')}/{path}"})


class TakesCdrsOfAnyParty(OcpiPeer):
    """The eMSP takes a CDR of a party the posting platform never declared."""

    modules = OcpiPeer.modules.with_handler(_AnyParty)


class _ServesWithoutTariffs(CdrsReceiver):
    async def serve(self, request, rest):
        reply = await super().serve(request, rest)
        if request.method == "GET" and isinstance(reply.body.get("data"), dict):
            reply.body["data"] = _without(reply.body["data"], "tariffs")
        return reply


class ServesCdrsWithoutTariffs(OcpiPeer):
    """The eMSP serves a CDR without the Tariffs it was posted with."""

    modules = OcpiPeer.modules.with_handler(_ServesWithoutTariffs)


class _RoundsTotals(CdrsReceiver):
    def _created(self, cdr):
        if isinstance(cdr, dict):
            cdr = {**cdr, **{k: round(cdr[k]) for k in ("total_energy", "total_time") if isinstance(cdr.get(k), float)}}
        return super()._created(cdr)


class KeepsCdrTotalsRounded(OcpiPeer):
    """The eMSP keeps a CDR's total_energy and total_time rounded to whole numbers."""

    modules = OcpiPeer.modules.with_handler(_RoundsTotals)


class _OneUrlForAll(CdrsReceiver):
    def _created(self, cdr):
        reply = super()._created(cdr)
        path = reply.headers["Location"].rstrip("/").rsplit("/", 1)[-1]
        self.store._paths["LATEST"] = self.store._paths[path]
        return Reply(reply.status, reply.body, {"Location": f"{self.peer.module_url(CDRS).rstrip('/')}/LATEST"})


class GivesEveryCdrOneUrl(OcpiPeer):
    """The eMSP answers every CDR POST with one Location, which serves the CDR posted last."""

    modules = OcpiPeer.modules.with_handler(_OneUrlForAll)


class _LowerCaseIds(CdrsReceiver):
    async def serve(self, request, rest):
        reply = await super().serve(request, rest)
        data = reply.body.get("data")
        if request.method == "GET" and isinstance(data, dict):
            reply.body["data"] = {**data, **{k: data[k].lower() for k in ("country_code", "party_id", "id")}}
        return reply


class ServesCdrIdsInLowerCase(OcpiPeer):
    """The eMSP serves a CDR with its ids in lower case."""

    modules = OcpiPeer.modules.with_handler(_LowerCaseIds)


class _CreditReplaces(CdrsReceiver):
    def _created(self, cdr):
        reply = super()._created(cdr)
        if isinstance(cdr, dict) and cdr.get("credit"):
            original = self.store.get(cdr["country_code"], cdr["party_id"], cdr.get("credit_reference_id", ""))
            if original is not None:
                original.update(total_cost=cdr["total_cost"], credit=True)
        return reply


class CreditOverwritesItsCdr(OcpiPeer):
    """A Credit CDR overwrites the total_cost of the CDR it credits."""

    modules = OcpiPeer.modules.with_handler(_CreditReplaces)


class _FetchesOnePage(CdrsReceiver):
    async def act_fetch_cdrs(self, date_from=None):
        query = f"?{urlencode({'date_from': date_from})}" if date_from else ""
        await self.peer.send("GET", f"{self.peer.other_url(CDRS)}{query}", token=self.peer.peer_token, module=CDRS)


class FetchesTheFirstCdrPageOnly(OcpiPeer):
    """The eMSP's pull of the CPO's CDRs stops after the first page."""

    modules = OcpiPeer.modules.with_handler(_FetchesOnePage)


class _FetchesEverything(CdrsReceiver):
    async def act_fetch_cdrs(self, date_from=None):
        await super().act_fetch_cdrs(None)


class FetchesCdrsWithoutItsDate(OcpiPeer):
    """Asked to catch up from a moment, the eMSP pulls the CDR list without date_from."""

    modules = OcpiPeer.modules.with_handler(_FetchesEverything)


CdrIdReused = _cdr_posting(lambda cdr: cdr if cdr.get("credit") else {**cdr, "id": "CDR-ALWAYS-THE-SAME"},
                           "CdrIdReused")
CdrIdTooLong = _cdr_posting(lambda cdr: cdr if cdr.get("credit") else {**cdr, "id": f"{cdr['id']}-{'X' * 36}"[:39]},
                            "CdrIdTooLong")


class _DateToInclusive(CdrsSender):
    async def serve(self, request, rest):
        self.peer.only(request, "GET")
        query = parse_query(request.query, max_limit=self.peer.page_limit)
        if query.date_to is not None:   # one microsecond later: a CDR at date_to itself stays in
            query = dataclasses.replace(query, date_to=query.date_to + timedelta(microseconds=1))
        page = paginate(self.store.all(), query)
        return Reply(200, build(page.items), page_headers(page, query, request.url))


class ListsCdrsUpToDateToInclusive(OcpiPeer):
    """The CPO's CDR list keeps a CDR last updated at date_to itself (date_to read as inclusive)."""

    modules = OcpiPeer.modules.with_handler(_DateToInclusive)


_CDR_HELD_CPO = node(CDR_PUSH, "test_cdr_of_an_ended_session_is_posted_and_held", "cpo", "in_process")
_CDR_HELD_EMSP = node(CDR_PUSH, "test_cdr_of_an_ended_session_is_posted_and_held", "emsp", "in_process")

FAULTS = FAULTS + (
    Fault("cdr-total-time-off", CdrRules.total_time.id, CdrTotalTimeOff,
          (node(CDR_PUSH, "test_cdr_periods_and_totals_agree", "cpo"), _CDR_HELD_CPO), "total_time"),
    Fault("cdr-session-only-dimension", CdrRules.session_only_dimensions.id, CdrWithPowerDimension,
          (node(CDR_PUSH, "test_cdr_periods_and_totals_agree", "cpo"),), "POWER"),
    Fault("cdr-token-not-the-sessions", CdrRules.same_token.id, CdrWithAnotherToken,
          (node(CDR_PUSH, "test_cdr_records_its_session", "cpo"), _CDR_HELD_CPO), "DEADBEEF"),
    Fault("cdr-first-auth-method", CdrRules.auth_method.id, CdrWithTheFirstAuthMethod,
          (node(CDR_PUSH, "test_cdr_records_its_session", "cpo"),), "auth_method WHITELIST"),
    Fault("cdr-authorization-reference-dropped", CdrRules.authorization_reference.id,
          CdrWithoutAuthorizationReference, (node(CDR_PUSH, "test_cdr_records_its_session", "cpo"),),
          "AUTH-CDR-0001"),
    Fault("cdr-period-before-start", CdrRules.dates_ordered.id, CdrPeriodBeforeItsStart,
          (node(CDR_PUSH, "test_cdr_periods_and_totals_agree", "cpo"),), "start outside"),
    Fault("cdr-energy-above-periods", CdrRules.energy_consistent.id, CdrEnergyAboveItsPeriods,
          (node(CDR_PUSH, "test_cdr_periods_and_totals_agree", "cpo"),), "ENERGY dimensions", "finding"),
    Fault("cdr-other-currency", CdrRules.currency.id, CdrInAnotherCurrency,
          (node(CDR_PUSH, "test_cdr_costs_follow_its_tariffs", "cpo"),), "USD", "finding"),
    Fault("cdr-cost-above-tariff", CdrRules.costs.id, CdrCostAboveItsTariff,
          (node(CDR_PUSH, "test_cdr_costs_follow_its_tariffs", "cpo"),), "the Tariff gives", "finding"),
    Fault("cdr-credit-not-negated", CdrRules.credit_negated.id, CreditCdrNotNegated,
          (node(CDR_PUSH, "test_credit_cdr_undoes_a_cdr", "cpo"),), "negated"),
    Fault("cdr-credit-without-reference", CdrRules.credit_reference.id, CreditCdrWithoutReference,
          (node(CDR_PUSH, "test_credit_cdr_undoes_a_cdr", "cpo"),), "credit_reference_id"),
    Fault("cdr-posted-below-endpoint", CdrRules.post_url.id, PostsCdrsBelowTheEndpoint,
          (_CDR_HELD_CPO,), "POSTed"),
    Fault("cdr-location-not-published", CdrRules.location_details.id, CdrInAnotherCity,
          (node(CDR_PUSH, "test_cdr_location_is_the_published_location", "cpo"),), "Atlantis", "finding"),
    Fault("cdr-of-another-session", CdrRules.session_id.id, CdrOfAnotherSession,
          (node(CDR_PUSH, "test_cdr_records_its_session", "cpo"), _CDR_HELD_CPO), "session_id"),
    Fault("cdr-at-another-evse", CdrRules.same_location.id, CdrAtAnotherEvse,
          (node(CDR_PUSH, "test_cdr_location_is_the_published_location", "cpo"),), "EVSE-ELSEWHERE"),
    Fault("cdr-start-not-the-sessions", CdrRules.session_times.id, CdrStartedEarlier,
          (node(CDR_PUSH, "test_cdr_records_its_session", "cpo"),), "start_date_time", "finding"),
    Fault("cdr-period-of-an-unlisted-tariff", CdrRules.tariff_ids.id, CdrPeriodOfAnUnlistedTariff,
          (node(CDR_PUSH, "test_cdr_costs_follow_its_tariffs", "cpo"),), "TARIFF-NOWHERE", "finding"),
    Fault("cdr-list-of-one-object", CdrRules.listed.id, ListsOneCdrAsAnObject,
          (node(CDR_PULL, "test_listed_cdrs_are_consistent", "cpo"),), "holds no list"),
    Fault("cdr-ids-in-lower-case", CdrRules.ids_as_sent.id, ServesCdrIdsInLowerCase,
          (node(CDR_RECEIVER, "test_post_answers_a_location_that_serves_the_cdr", "emsp"),), "another case",
          "finding"),
    Fault("cdr-id-reused", CdrRules.unique_id.id, CdrIdReused,
          (node(CDR_PUSH, "test_each_session_gets_its_own_cdr", "cpo"),), "is held already"),
    Fault("cdr-id-too-long", CdrRules.id_length.id, CdrIdTooLong, (_CDR_HELD_CPO,), "characters"),
    Fault("cdr-list-date-to-inclusive", PaginationRules.date_filters.id, ListsCdrsUpToDateToInclusive,
          (node(CDR_PULL, "test_date_filter_on_last_updated", "cpo", "date_to"),), "date_to"),
    Fault("cdr-posted-not-listed", CdrRules.listed_pushed.id, ListsNoPostedCdr,
          (node(CDR_PULL, "test_posted_cdr_and_its_credit_are_listed", "cpo"), _CDR_HELD_CPO), "lacks the CDR",
          "finding"),
    Fault("cdr-listed-time-off", CdrRules.total_time.id, ListsCdrsWithTheirTimeOff,
          (node(CDR_PULL, "test_listed_cdrs_are_consistent", "cpo"),), "total_time"),
    Fault("cdr-post-without-location", CdrRules.location_header.id, AnswersCdrPostsWithoutLocation,
          (node(CDR_RECEIVER, "test_post_answers_a_location_that_serves_the_cdr", "emsp"), _CDR_HELD_EMSP),
          "no Location header"),
    Fault("cdr-put-replaces", CdrRules.never_changed.id, ReplacesCdrsOnPut,
          (node(CDR_RECEIVER, "test_a_cdr_is_never_changed", "emsp", "PUT"),), "a PUT of a CDR"),
    Fault("cdr-patch-applied", CdrRules.never_changed.id, PatchesCdrs,
          (node(CDR_RECEIVER, "test_a_cdr_is_never_changed", "emsp", "PATCH"),), "a PATCH of a CDR"),
    Fault("cdr-delete-forgets", CdrRules.never_changed.id, DeletesCdrs,
          (node(CDR_RECEIVER, "test_a_cdr_is_never_changed", "emsp", "DELETE"),), "a DELETE of a CDR"),
    Fault("cdr-second-post-replaces", CdrRules.not_replaced.id, ReplacesCdrsOnASecondPost,
          (node(CDR_RECEIVER, "test_second_post_of_a_cdr_id_does_not_replace_it", "emsp"),), "total_cost"),
    Fault("cdr-any-url-answered", CdrRules.unknown_refused.id, AnswersAnyCdrUrl,
          (node(CDR_RECEIVER, "test_get_of_a_cdr_it_never_got_is_refused", "emsp"),), "never got"),
    Fault("cdr-any-party-taken", CdrRules.party_registered.id, TakesCdrsOfAnyParty,
          (node(CDR_RECEIVER, "test_cdr_under_another_party_is_refused", "emsp"),), "never declared", "finding"),
    Fault("cdr-served-without-tariffs", CdrRules.stored.id, ServesCdrsWithoutTariffs,
          (node(CDR_RECEIVER, "test_post_answers_a_location_that_serves_the_cdr", "emsp"), _CDR_HELD_EMSP,
           node(CDR_PUSH, "test_cdr_costs_follow_its_tariffs", "emsp")), "tariffs"),
    Fault("cdr-one-url-for-all", CdrRules.stored.id, GivesEveryCdrOneUrl,
          (node(CDR_PUSH, "test_each_session_gets_its_own_cdr", "emsp"),), "the SUT holds another"),
    Fault("cdr-totals-rounded", CdrRules.stored.id, KeepsCdrTotalsRounded,
          (node(CDR_PUSH, "test_cdr_periods_and_totals_agree", "emsp"),), "total_"),
    Fault("cdr-credit-overwrites", CdrRules.credit_kept.id, CreditOverwritesItsCdr,
          (node(CDR_RECEIVER, "test_credit_cdr_is_kept_beside_its_cdr", "emsp"),
           node(CDR_PUSH, "test_credit_cdr_undoes_a_cdr", "emsp")), "the SUT holds another"),
    Fault("cdr-fetch-one-page", "OCPI_CDRS_FETCH.every_page", FetchesTheFirstCdrPageOnly,
          (node(CDR_FETCH, "test_whole_list_is_fetched_page_by_page", "emsp"),), "last page"),
    Fault("cdr-fetch-without-date", "OCPI_CDRS_FETCH.date_from", FetchesCdrsWithoutItsDate,
          (node(CDR_FETCH, "test_missed_cdrs_are_fetched_from_a_date", "emsp"),), "date_from"),
)


# the legal readings of the cdrs module
class _IgnoresASecondPost(CdrsReceiver):
    def _created(self, cdr):
        held = self.store.get(cdr["country_code"], cdr["party_id"], cdr["id"]) if isinstance(cdr, dict) else None
        return Reply(200, build()) if held is not None else super()._created(cdr)


class IgnoresASecondCdrPost(OcpiPeer):
    """The eMSP answers a second POST of a CDR id it holds with success and keeps the first CDR."""

    modules = OcpiPeer.modules.with_handler(_IgnoresASecondPost)


def _bare(cdr):
    return {k: v for k, v in cdr.items() if k not in ("tariffs", "total_energy_cost", "total_parking_cost",
                                                      "total_parking_time", "invoice_reference_id", "meter_id")}


class _BareCdrs(CdrsSender):
    @classmethod
    def stock(cls, identity, profile, *, from_profile):
        return [_bare(cdr) for cdr in super().stock(identity, profile, from_profile=from_profile)]

    async def post(self, cdr):
        return await super().post(_bare(cdr))

    async def act_send_cdr(self, session_id):
        exchange = await super().act_send_cdr(session_id)
        for cdr in self.store.all():   # keep what was posted, as listed
            for name in [k for k in cdr if k not in _bare(cdr)]:
                del cdr[name]
        return exchange


class PostsBareCdrs(OcpiPeer):
    """The CPO's CDRs carry only the required members: no Tariffs, no cost parts, no parking time."""

    modules = OcpiPeer.modules.with_handler(_BareCdrs)


def _the_askers(sender, cdr) -> bool:
    party = sender.peer.peer_party
    return party is None or party.same_as(hdr.Party(cdr["cdr_token"]["country_code"], cdr["cdr_token"]["party_id"]))


class ListsOnlyTheAskersCdrs(OcpiPeer):
    """The CPO lists to an eMSP only the CDRs of that eMSP's Tokens."""

    modules = OcpiPeer.modules.with_handler(_cdr_listing(_the_askers))


VARIANTS = VARIANTS + (
    Variant("cdrs-second-post-ignored", IgnoresASecondCdrPost, ("suites/ocpi/cdrs",),
            reading="OCPI 2.2.1 §10.1 (a CDR cannot be changed or replaced: the text does not say a second POST "
                    "must be refused, only that the CDR stays)"),
    Variant("cdrs-only-required-members", PostsBareCdrs, ("suites/ocpi/cdrs",),
            reading="OCPI 2.2.1 §10.3.1 (tariffs *, total_energy_cost, total_parking_cost, total_parking_time, "
                    "meter_id, invoice_reference_id ?)"),
    Variant("cdrs-list-only-the-askers", ListsOnlyTheAskersCdrs,
            (node(CDR_PULL, "test_posted_cdr_and_its_credit_are_listed", "cpo"), f"suites/ocpi/{CDR_PUSH}"),
            reading="OCPI 2.2.1 §10.1.3 (the CPO may return only the CDRs relevant to the requesting eMSP)"),
)
# --- tariffs ---
from harness.ocpi.envelope import expect_success  # noqa: E402
from harness.ocpi.tariffs import TARIFFS, TariffRules, TariffStore  # noqa: E402
from harness.reference.ocpi.tariffs import SAMPLE_IDS as SAMPLE_TARIFFS, TariffsReceiver, TariffsSender  # noqa: E402

T_PUSH, T_PULL = "tariffs/test_OCPI_TARIFFS_PUSH.py", "tariffs/test_OCPI_TARIFFS_PULL.py"
T_RECV, T_FETCH = "tariffs/test_OCPI_TARIFFS_RECEIVER.py", "tariffs/test_OCPI_TARIFFS_FETCH.py"


def _tariff_pushing(change):
    """A CPO whose Tariff PUTs carry ``change(tariff)`` (its own copy stays as it was)."""
    class Faulty(TariffsSender):
        async def push(self, tariff):
            return await super().push(change(copy.deepcopy(tariff)))
    return Faulty


def _first_restricted(tariff, change):
    for element in tariff["elements"]:
        if element.get("restrictions"):
            change(element)
            break
    return tariff


class PushesATariffWithoutElements(OcpiPeer):
    """The CPO PUTs a Tariff whose elements list is empty."""

    modules = OcpiPeer.modules.with_handler(_tariff_pushing(lambda t: {**t, "elements": []}))


class PushesAnElementWithoutPrices(OcpiPeer):
    """The CPO PUTs a Tariff with a TariffElement of no PriceComponent (only restrictions)."""

    modules = OcpiPeer.modules.with_handler(_tariff_pushing(lambda t: {**t, "elements": [
        {"price_components": [], "restrictions": {"day_of_week": ["SUNDAY"]}}, *t["elements"]]}))


class PushesALowerCaseCurrency(OcpiPeer):
    """The CPO writes the currency in lower case ("eur"), no ISO-4217 code."""

    modules = OcpiPeer.modules.with_handler(_tariff_pushing(lambda t: {**t, "currency": t["currency"].lower()}))


class WritesTimesWithoutLeadingZeros(OcpiPeer):
    """The CPO writes restriction times without the leading zero (6:00 for 06:00)."""

    modules = OcpiPeer.modules.with_handler(_tariff_pushing(lambda t: _first_restricted(
        t, lambda e: e["restrictions"].update(end_time="6:00") if "end_time" in e["restrictions"] else None)))


class PricesReservationsByEnergy(OcpiPeer):
    """The CPO prices a reservation element by ENERGY too (only FLAT and TIME may)."""

    modules = OcpiPeer.modules.with_handler(_tariff_pushing(lambda t: _first_restricted(
        t, lambda e: e["price_components"].append({"type": "ENERGY", "price": 0.3, "step_size": 1})
        if e["restrictions"].get("reservation") else None)))


class _NoFallback(TariffsSender):
    async def push(self, tariff):
        kept = {**tariff, "elements": [e for e in tariff["elements"] if e.get("restrictions")] or tariff["elements"]}
        self.store.put(*self.owner, kept["id"], kept)
        return await super().push(kept)


class LeavesOutTheFallbackElement(OcpiPeer):
    """The CPO makes Tariffs of restricted elements only: no unrestricted fallback for their dimension."""

    modules = OcpiPeer.modules.with_handler(_NoFallback)


class _KeepsLastUpdated(TariffsSender):
    async def act_update_tariff(self, tariff_id, price=None, alt_text=True):
        before = self.store.owned(tariff_id)["last_updated"]
        held = self.store.owned(tariff_id)
        tariff = {**held, "elements": copy.deepcopy(held["elements"])}
        tariff["elements"][0]["price_components"][0]["price"] = 0.77
        self.store.put(*self.owner, tariff_id, {**tariff, "last_updated": before})
        return await self.push(self.store.owned(tariff_id))


class ChangesTariffsWithoutLastUpdated(OcpiPeer):
    """The CPO PUTs a changed Tariff with the last_updated it had before."""

    modules = OcpiPeer.modules.with_handler(_KeepsLastUpdated)


class _ListsAsFirstPushed(TariffsSender):
    first: dict

    async def push(self, tariff):
        firsts = self.__dict__.setdefault("first", {})
        firsts.setdefault(tariff["id"], copy.deepcopy(tariff))
        return await super().push(tariff)

    async def serve(self, request, rest):
        firsts = self.__dict__.get("first", {})
        held = [{**firsts.get(t["id"], t), "last_updated": t["last_updated"]} for t in self.store.all()]
        self.peer.only(request, "GET")
        return self.peer.list_page(request, held, "tariff")


class ListsTariffsAsFirstPushed(OcpiPeer):
    """The CPO's list serves a Tariff's content as first pushed (its last_updated moves), not its later PUT."""

    modules = OcpiPeer.modules.with_handler(_ListsAsFirstPushed)


class _DeletesOnlyAtTheEmsp(TariffsSender):
    async def act_delete_tariff(self, tariff_id):
        return await self.peer.call("DELETE", TARIFFS, (self.store.owned(tariff_id)["id"],))


class ListsDeletedTariffs(OcpiPeer):
    """The CPO DELETEs a Tariff at the eMSP but still lists it."""

    modules = OcpiPeer.modules.with_handler(_DeletesOnlyAtTheEmsp)


class _PutsUnderAnotherId(TariffsSender):
    async def push(self, tariff):
        return await self.peer.call("PUT", TARIFFS, (f"{tariff['id']}-X",), self.peer.outgoing("tariff", tariff))


class PutsTariffsUnderAnotherId(OcpiPeer):
    """The CPO PUTs a Tariff at a URL whose tariff_id is not the Tariff's id."""

    modules = OcpiPeer.modules.with_handler(_PutsUnderAnotherId)


# the eMSP's Receiver
class _DeleteIgnored(TariffsReceiver):
    async def serve(self, request, rest):
        if request.method == "DELETE":
            return Reply(200, build())
        return await super().serve(request, rest)


class IgnoresTariffDeletes(OcpiPeer):
    """The eMSP answers a DELETE of a Tariff with success and keeps the Tariff."""

    modules = OcpiPeer.modules.with_handler(_DeleteIgnored)


class _MergingTariffs(TariffStore):
    def put(self, country_code, party_id, tariff_id, tariff):
        held = self.get(country_code, party_id, tariff_id)
        return super().put(country_code, party_id, tariff_id, {**(held or {}), **tariff})


class MergesTariffPuts(OcpiPeer):
    """The eMSP merges a PUT into the Tariff it holds: a member left out of the PUT stays."""

    modules = OcpiPeer.modules.with_store(TARIFFS, _MergingTariffs)


class _PatchApplied(TariffsReceiver):
    async def serve(self, request, rest):
        if request.method == "PATCH":
            held = self.store.get(*rest)
            held.update(json.loads(request.body))
            return Reply(200, build())
        return await super().serve(request, rest)


class AppliesTariffPatches(OcpiPeer):
    """The eMSP applies a PATCH of a Tariff (PATCH is not defined for Tariffs in 2.2.1)."""

    modules = OcpiPeer.modules.with_handler(_PatchApplied)


class _UrlIdsTrusted(TariffStore):
    def put(self, country_code, party_id, tariff_id, tariff):
        tariff = {**tariff, "country_code": country_code, "party_id": party_id, "id": tariff_id}
        return super().put(country_code, party_id, tariff_id, tariff)


class StoresTariffsUnderTheUrlIds(OcpiPeer):
    """The eMSP stores a PUT under the URL's ids, whatever the Tariff's own say."""

    modules = OcpiPeer.modules.with_store(TARIFFS, _UrlIdsTrusted)


class _CaseSensitiveTariffs(TariffStore):
    @staticmethod
    def _key(country_code, party_id, tariff_id):
        return country_code, party_id, tariff_id


class KeepsTariffIdsCaseSensitive(OcpiPeer):
    """The eMSP tells Tariff ids apart by case (CiStrings are case-insensitive)."""

    modules = OcpiPeer.modules.with_store(TARIFFS, _CaseSensitiveTariffs)


class _UnknownAsEmptySuccess(TariffsReceiver):
    async def serve(self, request, rest):
        if request.method == "GET" and len(rest) == 3 and self.store.get(*rest) is None:
            return Reply(200, build())
        return await super().serve(request, rest)


class AnswersUnknownTariffsWithSuccess(OcpiPeer):
    """The eMSP answers a GET of a Tariff it does not have with 1000 and no data."""

    modules = OcpiPeer.modules.with_handler(_UnknownAsEmptySuccess)


class _AnyPartysTariffs(TariffsReceiver):
    async def serve(self, request, rest):
        if request.method == "PUT" and len(rest) == 3:
            created = self.store.put(*rest, json.loads(request.body))
            return Reply(201 if created else 200, build())
        return await super().serve(request, rest)


class AcceptsTariffsUnderAnyParty(OcpiPeer):
    """The eMSP stores a Tariff pushed under a party the CPO never declared."""

    modules = OcpiPeer.modules.with_handler(_AnyPartysTariffs)


class _Mismatch2000(TariffsReceiver):
    async def serve(self, request, rest):
        try:
            return await super().serve(request, rest)
        except StatusError as error:
            if error.status_code == StatusCode.INVALID_PARAMETERS and error.rule is TariffRules.put_ids:
                error.status_code = StatusCode.CLIENT_ERROR
            raise


class RefusesMismatchedTariffsWith2000(OcpiPeer):
    """The eMSP refuses a PUT whose URL ids differ from the Tariff's with 2000, not the advised 2001."""

    modules = OcpiPeer.modules.with_handler(_Mismatch2000)


class _ReorderingTariffs(TariffStore):
    def put(self, country_code, party_id, tariff_id, tariff):
        if isinstance(tariff, dict) and isinstance(tariff.get("elements"), list):
            tariff = {**tariff, "elements": sorted(tariff["elements"], key=lambda e: bool(e.get("restrictions")))}
        return super().put(country_code, party_id, tariff_id, tariff)


class ReordersTariffElements(OcpiPeer):
    """The eMSP keeps a Tariff's elements unrestricted first (the order decides which element counts)."""

    modules = OcpiPeer.modules.with_store(TARIFFS, _ReorderingTariffs)


class _FirstPageOnly(TariffsReceiver):
    async def act_fetch_tariffs(self, date_from=None):
        exchange = await self.peer.send("GET", self.peer.other_url(TARIFFS), token=self.peer.peer_token,
                                        module=TARIFFS)
        for tariff in expect_success(exchange.status, exchange.response_body) or []:
            self.store.put(tariff["country_code"], tariff["party_id"], tariff["id"], tariff)


class PullsTheFirstTariffPageOnly(OcpiPeer):
    """The eMSP pulls the first page of the CPO's Tariffs and stops."""

    modules = OcpiPeer.modules.with_handler(_FirstPageOnly)


class _PullsByObject(TariffsReceiver):
    async def act_fetch_tariffs(self, date_from=None):
        await super().act_fetch_tariffs(date_from)
        for tariff in self.store.all():
            await self.peer.send("GET", f"{self.peer.other_url(TARIFFS)}/{tariff['id']}", token=self.peer.peer_token,
                                 module=TARIFFS)


class PullsTariffsByObjectUrl(OcpiPeer):
    """After the list the eMSP GETs each Tariff at an object URL the 2.2.1 Sender does not have."""

    modules = OcpiPeer.modules.with_handler(_PullsByObject)


class _PulledNotKept(TariffsReceiver):
    async def act_fetch_tariffs(self, date_from=None):
        kept = list(self.store.all())
        await super().act_fetch_tariffs(date_from)
        for tariff in self.store.all():
            if tariff not in kept:
                self.store.delete(tariff["country_code"], tariff["party_id"], tariff["id"])


class DropsPulledTariffs(OcpiPeer):
    """The eMSP walks the CPO's Tariff list but keeps nothing of it."""

    modules = OcpiPeer.modules.with_handler(_PulledNotKept)


class _ErrorsInHttp200(TariffsReceiver):
    async def serve(self, request, rest):
        try:
            return await super().serve(request, rest)
        except StatusError as error:
            if error.rule not in (TariffRules.unknown_refused, TariffRules.put_only):
                raise
            return Reply(200, build(status_code=StatusCode.INVALID_PARAMETERS, status_message=str(error)))


class AnswersTariffErrorsInHttp200(OcpiPeer):
    """The eMSP answers a GET of an unknown Tariff and a PATCH with HTTP 200 and status 2001."""

    modules = OcpiPeer.modules.with_handler(_ErrorsInHttp200)


class _NeverPushes(TariffsSender):
    async def push(self, tariff):
        return None


class MakesTariffsWithoutPushing(OcpiPeer):
    """The CPO makes and lists new Tariffs but never PUTs them to the eMSP."""

    modules = OcpiPeer.modules.with_handler(_NeverPushes)


class _PatchesChanges(TariffsSender):
    async def push(self, tariff):
        held = self.__dict__.setdefault("sent", {})
        if tariff["id"] in held:
            change = {"elements": tariff["elements"], "last_updated": tariff["last_updated"]}
            return await self.peer.call("PATCH", TARIFFS, (tariff["id"],), change)
        held[tariff["id"]] = True
        return await super().push(tariff)


class PatchesTariffChanges(OcpiPeer):
    """The CPO sends a changed Tariff as a PATCH of its elements (PATCH is not defined for Tariffs)."""

    modules = OcpiPeer.modules.with_handler(_PatchesChanges)


class _DeletesWithoutParty(TariffsSender):
    async def act_delete_tariff(self, tariff_id):
        self.store.delete(*self.owner, tariff_id)
        endpoint = self.peer.other_url(TARIFFS).rstrip("/").rsplit("/", 2)[0]   # without our party
        return await self.peer.send("DELETE", f"{endpoint}/{tariff_id}", token=self.peer.peer_token, module=TARIFFS)


class DeletesTariffsWithoutTheParty(OcpiPeer):
    """The CPO DELETEs at {tariffs}/{tariff_id}, without its country_code and party_id."""

    modules = OcpiPeer.modules.with_handler(_DeletesWithoutParty)


class _ListsSamplesOnly(TariffsSender):
    async def serve(self, request, rest):
        self.peer.only(request, "GET")
        samples = [t for t in self.store.all() if t["id"] in SAMPLE_TARIFFS]
        return self.peer.list_page(request, samples, "tariff")


class ListsOnlyItsFirstTariffs(OcpiPeer):
    """The CPO's list holds only the Tariffs it started with, none made since."""

    modules = OcpiPeer.modules.with_handler(_ListsSamplesOnly)


class _DeletesWhatItNames(TariffsSender):
    async def act_delete_tariff(self, tariff_id):
        locations = self.peer.store(LOCATIONS)
        location = copy.deepcopy(next(loc for loc in locations.all() if loc.get("evses")))
        location["evses"][0]["connectors"][0]["tariff_ids"] = [tariff_id]
        location["last_updated"] = format_datetime(utcnow())
        await self.peer.call("PUT", LOCATIONS, (location["id"],), location)
        self.store.delete(*self.owner, tariff_id)
        return await self.peer.call("DELETE", TARIFFS, (tariff_id,))


class DeletesTariffsItsConnectorsName(OcpiPeer):
    """The CPO DELETEs a Tariff that a Connector it pushed still names in tariff_ids."""

    modules = OcpiPeer.modules.with_handler(_DeletesWhatItNames)


class _ZeroAsNoPrice(TariffsReceiver):
    async def serve(self, request, rest):
        reply = await super().serve(request, rest)
        data = reply.body.get("data") if request.method == "GET" else None
        for element in (data or {}).get("elements", []):
            element["price_components"] = [{k: v for k, v in c.items() if not (k == "price" and v == 0)}
                                           for c in element["price_components"]]
        return reply


class ServesZeroPricesAsAbsent(OcpiPeer):
    """The eMSP serves a price of 0.00 as no price at all (a free Tariff loses its price)."""

    modules = OcpiPeer.modules.with_handler(_ZeroAsNoPrice)


def _tariff_fault(name, rule, cls, catch, reason, verdict="failed"):
    return Fault(f"tariff-{name}", rule.id, cls, catch, reason, verdict=verdict)


FAULTS = FAULTS + (
    _tariff_fault("pushed-without-elements", TariffRules.elements, PushesATariffWithoutElements,
                  (node(T_PUSH, "test_new_tariff_is_put_and_held", "cpo", "in_process"),), "at least one"),
    _tariff_fault("element-without-prices", TariffRules.price_components, PushesAnElementWithoutPrices,
                  (node(T_PUSH, "test_new_tariff_is_put_and_held", "cpo", "in_process"),), "no PriceComponent"),
    _tariff_fault("currency-lower-case", TariffRules.currency, PushesALowerCaseCurrency,
                  (node(T_PUSH, "test_new_tariff_is_put_and_held", "cpo", "in_process"),), "ISO-4217"),
    _tariff_fault("time-without-leading-zero", TariffRules.restriction_times, WritesTimesWithoutLeadingZeros,
                  (node(T_PUSH, "test_restricted_elements_are_held_in_order", "cpo", "AC-NIGHT"),), "6:00"),
    _tariff_fault("reservation-priced-by-energy", TariffRules.reservation_dimensions, PricesReservationsByEnergy,
                  (node(T_PUSH, "test_restricted_elements_are_held_in_order", "cpo", "DC-RESERVE"),), "ENERGY"),
    _tariff_fault("no-fallback-element", TariffRules.fallback_element, LeavesOutTheFallbackElement,
                  (node(T_PUSH, "test_restricted_elements_are_held_in_order", "cpo", "AC-NIGHT"),),
                  "no unrestricted last element", verdict="finding"),
    _tariff_fault("change-without-later-last-updated", TariffRules.last_updated_moves,
                  ChangesTariffsWithoutLastUpdated,
                  (node(T_PUSH, "test_changed_tariff_is_put_again_with_a_later_last_updated", "cpo"),),
                  "without a later last_updated"),
    _tariff_fault("list-as-first-pushed", TariffRules.listed_as_pushed, ListsTariffsAsFirstPushed,
                  (node(T_PUSH, "test_changed_tariff_is_put_again_with_a_later_last_updated", "cpo"),),
                  "than was pushed"),
    _tariff_fault("deleted-still-listed", TariffRules.deleted_unlisted, ListsDeletedTariffs,
                  (node(T_PUSH, "test_deleted_tariff_is_gone", "cpo"),), "after its DELETE"),
    _tariff_fault("put-under-another-id", TariffRules.put_ids, PutsTariffsUnderAnotherId,
                  (node(T_PUSH, "test_new_tariff_is_put_and_held", "cpo", "in_process"),), "differs from the URL"),
    _tariff_fault("delete-ignored", TariffRules.deleted, IgnoresTariffDeletes,
                  (node(T_PUSH, "test_deleted_tariff_is_gone", "emsp"),
                   node(T_RECV, "test_delete_then_put_again_makes_it_new", "emsp")), "DELETE"),
    _tariff_fault("put-merged", TariffRules.put_replaces, MergesTariffPuts,
                  (node(T_PUSH, "test_member_left_out_of_a_put_is_gone", "emsp"),), "tariff_alt_text"),
    _tariff_fault("patch-applied", TariffRules.patch_refused, AppliesTariffPatches,
                  (node(T_RECV, "test_patch_is_refused_and_changes_nothing", "emsp"),), "PATCH",
                  verdict="finding"),
    _tariff_fault("url-ids-trusted", TariffRules.mismatch_refused, StoresTariffsUnderTheUrlIds,
                  (node(T_RECV, "test_put_whose_url_differs_from_the_body_is_refused", "emsp", "id"),
                   node(T_RECV, "test_put_whose_url_differs_from_the_body_is_refused", "emsp", "party_id")),
                  "differs between URL and body"),
    _tariff_fault("ids-case-sensitive", TariffRules.ids_case_insensitive, KeepsTariffIdsCaseSensitive,
                  (node(T_RECV, "test_ids_in_another_case_name_the_same_tariff", "emsp"),), "was refused"),
    _tariff_fault("unknown-answered-with-success", TariffRules.unknown_refused, AnswersUnknownTariffsWithSuccess,
                  (node(T_RECV, "test_get_of_an_unknown_tariff_is_refused", "emsp"),), "unknown Tariff"),
    _tariff_fault("pushed-under-any-party", TariffRules.party_registered, AcceptsTariffsUnderAnyParty,
                  (node(T_RECV, "test_push_under_another_party_is_refused", "emsp"),), "never declared",
                  verdict="finding"),
    _tariff_fault("mismatch-answered-2000", TariffRules.mismatch_2001, RefusesMismatchedTariffsWith2000,
                  (node(T_RECV, "test_put_whose_url_differs_from_the_body_gets_2001", "emsp"),), "2001",
                  verdict="finding"),
    _tariff_fault("elements-reordered", TariffRules.stored, ReordersTariffElements,
                  (node(T_PUSH, "test_restricted_elements_are_held_in_order", "emsp", "AC-NIGHT"),
                   node(T_PUSH, "test_restricted_elements_are_held_in_order", "emsp", "AC-WEEKEND")), "elements"),
    _tariff_fault("pull-first-page-only", TariffRules.pulled_by_list, PullsTheFirstTariffPageOnly,
                  (node(T_FETCH, "test_tariffs_are_pulled_from_the_list_page_by_page", "emsp"),), "last page"),
    _tariff_fault("pull-by-object-url", TariffRules.pulled_by_list, PullsTariffsByObjectUrl,
                  (node(T_FETCH, "test_tariffs_are_pulled_from_the_list_page_by_page", "emsp"),),
                  "does not offer"),
    _tariff_fault("pulled-not-kept", TariffRules.pulled_kept, DropsPulledTariffs,
                  (node(T_FETCH, "test_pulled_tariffs_are_held_as_listed", "emsp"),), "does not hold"),
    _tariff_fault("never-pushed", TariffRules.pushed, MakesTariffsWithoutPushing,
                  (node(T_PUSH, "test_new_tariff_is_put_and_held", "cpo", "in_process"),), "did not send"),
    _tariff_fault("change-patched", TariffRules.put_only, PatchesTariffChanges,
                  (node(T_PUSH, "test_changed_tariff_is_put_again_with_a_later_last_updated", "cpo"),),
                  "PATCH is not defined"),
    _tariff_fault("deleted-without-party", TariffRules.receiver_url, DeletesTariffsWithoutTheParty,
                  (node(T_PUSH, "test_deleted_tariff_is_gone", "cpo"),), "country_code"),
    _tariff_fault("list-misses-new-tariffs", TariffRules.listed, ListsOnlyItsFirstTariffs,
                  (node(T_PUSH, "test_new_tariff_is_put_and_held", "cpo", "in_process"),
                   node(T_PUSH, "test_changed_tariff_is_put_again_with_a_later_last_updated", "cpo")),
                  "does not hold"),
    _tariff_fault("referenced-deleted", TariffRules.unreferenced_deleted, DeletesTariffsItsConnectorsName,
                  (node(T_PUSH, "test_deleted_tariff_is_gone", "cpo"),), "still name", verdict="finding"),
    _tariff_fault("zero-price-served-absent", SchemaRules.valid, ServesZeroPricesAsAbsent,
                  (node(T_PUSH, "test_free_tariff_is_held_as_free", "emsp"),), "price"),
)

VARIANTS = VARIANTS + (
    Variant("tariffs-errors-in-http-200", AnswersTariffErrorsInHttp200, ("suites/ocpi/tariffs",),
            reading="OCPI 2.2.1 §11.2.2 (the answer to a GET of an unknown Tariff and to a PATCH is not given: "
                    "any error status code, whatever the HTTP status)"),
)

