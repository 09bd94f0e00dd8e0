"""The tokens module of the reference peer: the eMSP's Sender (its own Tokens, listed, pushed, and its
real-time authorization) and the CPO's Receiver (what was pushed to it, and a driver presenting a Token
at one of its chargers).

The rules and the store are the core's (``harness/ocpi/tokens.py``); these handlers move them on and
off HTTP. Test data is drawn from faker seeded with ``SEED``; the uids of Tokens an action creates
carry a random suffix so that Tokens pushed to a real CPO in one run never collide with an earlier run's.

The reference eMSP's real-time authorization (the text leaves the decision to the eMSP): an invalid
Token is BLOCKED; a fleet Token (group_id ``FLEET-…``) may charge only at Locations the CPO pushed to
this eMSP, so it needs LocationReferences (2002 without them) and is NOT_ALLOWED elsewhere; any other
valid Token is ALLOWED wherever it is asked (a private charger too), with the EVSEs it was asked about
that the eMSP does not know to be elsewhere. EVSE status and opening hours never count.

The reference CPO facing a driver's Token (``present_token``): a Token whose whitelist is ALWAYS, or
ALLOWED and valid, is let in from its cache; NEVER, ALLOWED_OFFLINE, an invalid one (unless ALWAYS) and
an unknown one are authorized in real time with the Location and EVSE as LocationReferences.
"""

from __future__ import annotations

import functools
import secrets
from collections.abc import Mapping
from datetime import timedelta
from typing import TYPE_CHECKING, Any
from urllib.parse import urlencode

from harness.cistring import same_id
from harness.clock import utcnow
from harness.ocpi.envelope import StatusCode, StatusError, build
from harness.ocpi.headers import Party
from harness.ocpi.locations import LOCATIONS, checked
from harness.ocpi.timestamps import format_datetime, parse_datetime
from harness.ocpi.tokens import (
    ALLOWED, ALLOWED_OFFLINE, ALWAYS, APP_USER, AUTHORIZE, AD_HOC_USER, BLOCKED, NEVER, NOT_ALLOWED, RFID, TOKENS,
    TokenRules, TokenStore, token_type, unknown_token)
from harness.ocpi.versions import RECEIVER, SENDER
from harness.profile import Profile
from harness.reference.ocpi.handler import CPO, EMSP, ModuleHandler, check_pushing_party, Peer, Reply
from harness.reference.ocpi.locations import drawn_once, own_faker, seeded_faker
from harness.reference.ocpi.sessions import _json_body
from harness.transport.http import HttpExchange, HttpRequest

if TYPE_CHECKING:   # imported where a Faker is built (locations._faker)
    from faker import Faker

SEED = 1212
TOKEN = "token"   # the schema of a Token
FLEET = "FLEET-"  # the group_id prefix of a fleet Token: it charges only at Locations the CPO pushed
# (type, whitelist, valid, fleet) of the sample Tokens, a few hours apart
SAMPLES = ((RFID, ALLOWED, True, False), (RFID, ALWAYS, True, False), (RFID, NEVER, True, False),
           (RFID, ALLOWED, False, False), (APP_USER, NEVER, True, False), (RFID, ALLOWED_OFFLINE, True, False),
           (RFID, NEVER, True, True), (AD_HOC_USER, NEVER, True, False))


def build_token(fake: Faker, owner: tuple[str, str], uid: str, kind: str = RFID, whitelist: str = ALLOWED, *,
                valid: bool = True, fleet: bool = False, stamp: str | None = None) -> dict[str, Any]:
    """A Token of the eMSP ``owner`` (country_code, party_id): an RFID card with its printed number,
    or an app's user id."""
    token: dict[str, Any] = {
        "country_code": owner[0], "party_id": owner[1], "uid": uid, "type": kind,
        "contract_id": f"{owner[0]}-{owner[1]}-C{fake.numerify('########')}"[:36],
        "issuer": fake.company()[:64], "valid": valid, "whitelist": whitelist,
        "language": fake.random_element(("nl", "en", "de", "fr")),
        "last_updated": stamp or format_datetime(utcnow())}
    if kind == RFID:
        token["visual_number"] = fake.numerify("####-####-####-####")
    if fleet:
        token["group_id"] = f"{FLEET}{fake.bothify('??##').upper()}"
    return token


def new_uid(fake: Faker, kind: str) -> str:
    """A new Token uid: an RFID card's hidden id, or an app user's id (with a random part)."""
    if kind == RFID:
        return f"{fake.hexify('^^^^^^', upper=True)}{secrets.token_hex(4).upper()}"
    return f"{kind.split('_')[0]}-{fake.bothify('????').upper()}-{secrets.token_hex(6).upper()}"


@drawn_once
def sample_tokens(owner: tuple[str, str]) -> list[dict[str, Any]]:
    """The eMSP's sample Tokens, last updated a few hours apart (for the list's date filters)."""
    fake, tokens = seeded_faker(SEED), []
    stamp = parse_datetime("2024-02-01T09:00:00Z")
    for n, (kind, whitelist, valid, fleet) in enumerate(SAMPLES):
        uid = f"{fake.hexify('^^^^^^^^', upper=True)}" if kind == RFID else f"{kind.split('_')[0]}-SAMPLE-{n + 1:03d}"
        tokens.append(build_token(fake, owner, uid, kind, whitelist, valid=valid, fleet=fleet,
                                  stamp=format_datetime(stamp + timedelta(hours=3 * n))))
    return tokens


def with_type(url: str, kind: str) -> str:
    """``url`` with the ``type`` parameter a Token that is no RFID needs (an RFID one goes without)."""
    return url if kind == RFID else f"{url}?{urlencode({'type': kind})}"


async def token_request(peer: Peer, method: str, kind: str, ids: tuple[str, ...], body: Any) -> HttpExchange:
    """One tokens request to the other platform: through ``call`` for an RFID Token, else at the URL with
    its ``type`` parameter."""
    if kind == RFID:
        return await peer.call(method, TOKENS, ids, body)
    return await peer.send(method, with_type(peer.other_url(TOKENS, *ids), kind), token=peer.peer_token,
                           module=TOKENS, body=body)


# ------------------------------------------------------------------------------ the eMSP: Sender
class TokensSender(ModuleHandler):
    """The eMSP's own Tokens: listed, pushed as they are issued and changed; real-time authorization."""

    module, role, interface = TOKENS, EMSP, SENDER
    store: TokenStore

    @functools.cached_property
    def fake(self) -> Faker:
        return own_faker(SEED + 1)

    @classmethod
    def stock(cls, identity, profile: Profile, *, from_profile: bool) -> list[dict[str, Any]]:
        return sample_tokens((identity.country_code, identity.party_id))

    @property
    def owner(self) -> tuple[str, str]:
        return self.peer.identity.country_code, self.peer.identity.party_id

    async def serve(self, request: HttpRequest, rest: list[str]) -> Reply:
        if request.method == "POST" and len(rest) == 2 and rest[1] == AUTHORIZE:
            kind = token_type(request.query, TokenRules.authorize_url)
            return self._authorize(rest[0], kind, _json_body(request) if request.body.strip() else None)
        self.peer.only(request, "GET")
        if rest:
            raise StatusError(TokenRules.listed, f"no tokens object at {request.path}: the Sender interface is "
                              "the list and {token_uid}/authorize", status_code=StatusCode.CLIENT_ERROR,
                              http_status=404)
        return self.peer.list_page(request, self.store.all(), TOKEN)

    # -------------------------------------------------------------- real-time authorization
    def _authorize(self, uid: str, kind: str, where: Any) -> Reply:
        token = self.store.owned(uid, kind)
        if token is None:   # a CPO may ask about a Token it does not hold (another eMSP's): 2004, nobody's fault
            return Reply(404, build(status_code=StatusCode.UNKNOWN_TOKEN, status_message=f"unknown Token {uid} of "
                                    f"type {kind}"))
        if where is not None:
            where = checked("location_references", where)
        info: dict[str, Any] = {"allowed": self.allowed(token, where), "token": token}
        if info["allowed"] == ALLOWED:
            info["authorization_reference"] = f"AUTH-{secrets.token_hex(8).upper()}"
            if where is not None:
                info["location"] = where
        return Reply(200, build(self.peer.outgoing("authorization_info", info)))

    def allowed(self, token: Mapping[str, Any], where: Mapping[str, Any] | None) -> str:
        """The reference eMSP's decision (see the module docstring); 2002 when it cannot decide."""
        if not token["valid"]:
            return BLOCKED
        if not str(token.get("group_id") or "").startswith(FLEET):
            return ALLOWED
        if where is None:
            raise StatusError(TokenRules.authorize_url, f"the fleet Token {token['uid']} charges only at some "
                              "Locations: the request names none", status_code=StatusCode.NOT_ENOUGH_INFORMATION)
        pushed = self.peer.store(LOCATIONS).all()   # what the CPOs pushed to us
        return ALLOWED if any(same_id(loc["id"], where["location_id"]) for loc in pushed) else NOT_ALLOWED

    # -------------------------------------------------------------- issuing and changing Tokens, then pushing
    async def push(self, method: str, token: Mapping[str, Any], body: Mapping[str, Any]) -> HttpExchange:
        """PUT a whole Token or PATCH a change of ours to the CPO's Receiver."""
        sent = self.peer.outgoing(TOKEN, body, whole=method == "PUT")
        return await token_request(self.peer, method, token["type"], (token["uid"],), sent)

    async def act_push_token(self, uid: str | None = None, type: str = RFID, whitelist: str | None = None,
                             valid: bool = True) -> HttpExchange:
        """A new Token issued (a card handed out, an app user signed up), or one of ours pushed again
        whole (``uid`` of a Token we have): a PUT."""
        held = self.store.owned(uid, type) if uid else None
        if held is None:
            chosen = whitelist or (NEVER if type in (APP_USER, AD_HOC_USER) else ALLOWED)
            token = build_token(self.fake, self.owner, uid or new_uid(self.fake, type), type, chosen, valid=valid)
        else:
            token = {**held, "last_updated": format_datetime(utcnow())}
            if whitelist is not None:
                token["whitelist"] = whitelist
        self.store.put(*self.owner, token["uid"], type, token)
        return await self.push("PUT", token, token)

    async def act_update_token(self, uid: str, type: str = RFID, valid: bool | None = None,
                               whitelist: str | None = None, language: str | None = None) -> HttpExchange:
        """A Token changes (invalidated: ``valid`` false; its whitelist; its owner's language): a PATCH with
        only what changed and last_updated."""
        held = self.store.owned(uid, type)
        if held is None:
            raise StatusError(TokenRules.pushed, f"no Token {uid} of type {type} here",
                              status_code=StatusCode.CLIENT_ERROR)
        wanted = {"valid": valid, "whitelist": whitelist, "language": language}
        changes = {k: v for k, v in wanted.items() if v is not None and held.get(k) != v}
        changes["last_updated"] = format_datetime(utcnow())
        self.store.patch(*self.owner, held["uid"], type, changes)
        return await self.push("PATCH", held, changes)


# ------------------------------------------------------------------------------ the CPO: Receiver
class TokensReceiver(ModuleHandler):
    """What eMSPs pushed to the CPO, by their party: stored by PUT, changed by PATCH, read by GET."""

    module, role, interface = TOKENS, CPO, RECEIVER
    store: TokenStore

    async def serve(self, request: HttpRequest, rest: list[str]) -> Reply:
        if len(rest) != 3:
            raise StatusError(TokenRules.receiver_url, "Receiver URLs are {tokens}/{country_code}/{party_id}/"
                              "{token_uid}", status_code=StatusCode.INVALID_PARAMETERS, http_status=404)
        country_code, party_id, uid = rest
        kind = token_type(request.query)
        self._check_party(country_code, party_id)
        if request.method == "GET":
            found = self.store.get(country_code, party_id, uid, kind)
            if found is None:
                raise unknown_token(rest, kind)
            return Reply(200, build(self.peer.outgoing(TOKEN, found, owned=False)))
        if request.method == "DELETE":
            raise StatusError(TokenRules.receiver_url, "Tokens are never deleted: the eMSP pushes valid false",
                              status_code=StatusCode.CLIENT_ERROR, http_status=405)
        self.peer.only(request, "GET", "PUT", "PATCH")
        body = _json_body(request)
        if request.method == "PUT":
            created = self.store.put(country_code, party_id, uid, kind, body)
            return Reply(201 if created else 200, build())
        self.store.patch(country_code, party_id, uid, kind, body)
        return Reply(200, build())

    def _check_party(self, country_code: str, party_id: str) -> None:
        """The URL's party is the pushing eMSP's, as its credentials roles declare it."""
        check_pushing_party(self.peer, country_code, party_id, TokenRules.receiver_url, "eMSP")

    def needs_realtime(self, token: Mapping[str, Any] | None) -> bool:
        """Whether the reference CPO asks the eMSP before letting ``token`` charge (module docstring)."""
        if token is None:
            return True
        if token["whitelist"] == ALWAYS:
            return False
        return not (token["whitelist"] == ALLOWED and token["valid"])

    async def act_present_token(self, uid: str, type: str = RFID, location_id: str | None = None,
                                evse_uid: str | None = None) -> HttpExchange | None:
        """A driver presents a Token at one of our EVSEs: let in from the cache, or authorized in real
        time at the eMSP (POST {tokens}/{uid}/authorize with the Location and EVSE); the POST, or None."""
        party = self.peer.peer_party
        held = next((t for t in self.store.all() if same_id(t["uid"], uid) and t["type"] == type
                     and (party is None or party.same_as(Party(t["country_code"], t["party_id"])))), None)
        if not self.needs_realtime(held):
            return None
        where: dict[str, Any] | None = None
        if location_id is not None:
            where = {"location_id": location_id, "evse_uids": [evse_uid] if evse_uid else []}
        return await token_request(self.peer, "POST", type, (held["uid"] if held else uid, AUTHORIZE), where)

