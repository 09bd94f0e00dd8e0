"""The tokens module (2.2.1) as rules and a sans-I/O store: the eMSP owns its Tokens and pushes them
to the CPO's Receiver (PUT, PATCH), serves them as a paginated list (Sender GET) and answers real-time
authorization (POST ``{token_uid}/authorize``); the CPO keeps what was pushed to it and reads it back.

A Token is a Client Owned Object identified by the URL's country_code, party_id and token_uid together
with its type (the ``type`` URL parameter, RFID when absent): the same uid under another type is another
Token (OCPI 2.2.1 §12.3.2, "the combination of uid and type"). CiStrings are compared ignoring case and
echoed as stored. A PATCH changes the fields it carries and must carry last_updated; a Token is never
deleted: the eMSP invalidates it (valid false). The store raises ``StatusError`` with the status code to
answer; the reference peer serves it over HTTP and the use cases judge a SUT by the same rows.

Readings where the text is silent (docs/requirements/ocpi-tokens.md): the answer to a Receiver GET or
PATCH of a Token the CPO does not have is not given; any error passes, the reference answers 2004
(unknown Token) with HTTP 404. An unknown ``type`` value in the URL is answered 2001.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from harness.cistring import id_key, same_id
from harness.ocpi.envelope import StatusCode, StatusError, json_copy
from harness.ocpi.locations import checked, invalid
from harness.rules import Rule, RuleTable, must, should

TOKENS = "tokens"
AUTHORIZE = "authorize"
RFID, APP_USER, AD_HOC_USER, OTHER = "RFID", "APP_USER", "AD_HOC_USER", "OTHER"
TOKEN_TYPES = (AD_HOC_USER, APP_USER, OTHER, RFID)
ALWAYS, ALLOWED_WHITELIST, ALLOWED_OFFLINE, NEVER = "ALWAYS", "ALLOWED", "ALLOWED_OFFLINE", "NEVER"
ALLOWED, BLOCKED, EXPIRED, NO_CREDIT, NOT_ALLOWED = "ALLOWED", "BLOCKED", "EXPIRED", "NO_CREDIT", "NOT_ALLOWED"
IDS = ("country_code", "party_id", "uid")
OCPP16_GROUP_ID = 20   # the longest group_id (parentIdTag) OCPP 1.5/1.6 take

_MOD = "OCPI 2.2.1 §12"
_RECEIVER = f"{_MOD}.2.1 Receiver interface"
_SENDER = f"{_MOD}.2.2 Sender interface"
_POST = f"{_MOD}.2.2.2 POST (real-time authorization)"


class TokenRules(RuleTable, namespace="ocpi.tokens"):
    """The tokens module: the eMSP's pushes, list and authorization answers; the CPO's Receiver."""
    pushed = must(f"{_MOD}.1.1 Push model; {_RECEIVER} (PUT new or updated Token, PATCH partial updates)",
                  "the eMSP pushes a new Token with PUT and every change with PUT or PATCH", by="emsp")
    receiver_url = must(f"{_RECEIVER} (endpoint {{tokens}}/{{country_code}}/{{party_id}}/{{token_uid}}[?type=])"
                        "; OCPI 2.2.1 §4.1.8 Client Owned Object push", "the eMSP pushes to {tokens}/{its "
                        "country_code}/{its party_id}/{token_uid}, with ?type= for a Token that is no RFID",
                        by="emsp")
    put_ids = must(f"{_RECEIVER} PUT request parameters (country_code and party_id SHALL equal the pushed "
                   "Token's)", "a PUT's URL country_code, party_id, token_uid and type equal the Token's",
                   by="emsp")
    stored = must(f"{_RECEIVER} GET (response data: the requested Token, Card. 1, as stored in the CPO system); "
                  f"{_MOD}.1.1 (the eMSP validates with a GET)", "the CPO stores the Token pushed to it and a "
                  "GET answers that Token as stored", by="cpo")
    ids_as_sent = should("OCPI 2.2.1 §16.1 CiString; facts/ocpi-wire.md Other rules (compare ignoring case, echo "
                         "as sent)", "a Token's ids come back as they were pushed, in the same case", by="cpo")
    type_identifies = must(f"{_RECEIVER} GET, PUT request parameters (type: the Token.type of the Token, RFID when "
                           "omitted); §12.3.2 (uid and type together identify a Token)", "the CPO keeps a Token "
                           "per uid and type: a PUT with ?type=APP_USER does not replace the RFID Token of that "
                           "uid, and a GET with ?type= answers that type's Token", by="cpo")
    unknown_refused = must(f"{_RECEIVER} GET (the requested Token, Card. 1); OCPI 2.2.1 §5 status codes (2004 "
                           "unknown Token; the code to answer is not shown: any error)", "a GET or PATCH of a "
                           "Token the CPO does not have is not answered with success", by="cpo")
    mismatch_refused = must(f"{_RECEIVER} PUT (the URL's country_code and party_id SHALL equal the Token's); "
                            "OCPI 2.2.1 §4.1.8.1 Errors (a URL id other than the object's: 2001 advised)",
                            "a PUT whose URL ids differ from the Token's is refused", by="cpo")
    mismatch_2001 = should("OCPI 2.2.1 §4.1.8.1 Errors (server implementations are advised to return 2001)",
                           "a PUT whose URL ids differ from the Token's is answered 2001", by="cpo")
    patch_last_updated = must(f"{_RECEIVER} PATCH (any PATCH SHALL contain last_updated)", "the eMSP's PATCH "
                              "carries last_updated", by="emsp")
    patch_refused_without_last_updated = must(f"{_RECEIVER} PATCH; OCPI 2.2.1 §5 status codes (2001: missing "
                                              "last_updated in a PATCH)", "a PATCH without last_updated is "
                                              "answered 2001 and changes nothing", by="cpo")
    patch_applied = must(f"{_RECEIVER} PATCH (fields not present are considered unchanged)", "a PATCH changes "
                         "the fields it carries and leaves the others as they were", by="cpo")
    patch_only_changed = should(f"{_RECEIVER} PATCH (only the fields that have to be updated have to be "
                                "present)", "a PATCH carries only the changed fields besides last_updated",
                                by="emsp")
    invalidated = must(f"{_MOD}.1.1 Push model (deleting is not possible: the eMSP pushes the Token with valid "
                       "false)", "a Token the eMSP invalidates is pushed with valid false, never deleted",
                       by="emsp")
    never_deleted = must(f"{_RECEIVER} (DELETE n/a: Tokens cannot be removed)", "a DELETE of a Token is refused "
                         "and the Token stays", by="cpo")
    party_registered = should("OCPI 2.2.1 §4.1.8.1 Errors (a URL party none of the credentials roles declares "
                              "may be answered HTTP 404)", "a push under a party that is none of the pushing "
                              "platform's roles is refused", by="cpo")
    listed = must(f"{_SENDER} GET (the list of Tokens, paginated, filtered on last_updated: date_from inclusive, "
                  "date_to exclusive); §12.1.2 Pull model", "the eMSP lists its Tokens, paginated and filtered on "
                  "last_updated; a Token it pushed is in the list", by="emsp")
    listed_as_pushed = must(f"{_SENDER} GET; {_MOD}.1.1 (the eMSP owns the Token; the CPO's copy equals it)",
                            "the list holds a pushed Token as it was pushed, a later change too", by="emsp")
    authorize_known = must(f"{_POST} response data (a Token known by the Sender: the response SHALL contain an "
                           "AuthorizationInfo)", "a real-time authorization of a known Token is answered with "
                           "an AuthorizationInfo holding the complete Token", by="emsp")
    authorize_unknown = must(f"{_POST} (an unknown Token SHALL be answered HTTP 404; the response SHALL contain "
                             "status code 2004 and no data)", "a real-time authorization of an unknown Token is "
                             "answered HTTP 404 with status 2004 and no data", by="emsp")
    authorize_needs_location = must(f"{_POST} (too little information, no LocationReferences, to decide: the "
                                    "eMSP SHALL answer 2002)", "an eMSP that cannot decide without "
                                    "LocationReferences answers 2002, not a verdict", by="emsp")
    authorize_location = must(f"{_POST} request body (the eMSP SHALL validate the Token at the given Location and "
                              "which of its EVSEs; the valid Location and EVSEs are returned); §12.3.1 location "
                              "(only the EVSEs the driver may use)", "the AuthorizationInfo's location names the "
                              "Location asked about and only EVSEs that were asked about", by="emsp")
    authorize_not_by_status = must(f"{_MOD}.1.3 Real-time authorization (the eMSP SHALL NOT validate on opening "
                                   "hours or EVSE status)", "the answer does not change when only the EVSE's status "
                                   "changed", by="emsp")
    authorize_consistent = should(f"{_MOD}.3.1 AuthorizationInfo (allowed: the status of the Token; token: the "
                                  "complete Token)", "an invalid Token is not answered ALLOWED, and the Token "
                                  "answered is the one the eMSP serves", by="emsp")
    authorize_sent = must(f"{_MOD}.4.5 WhitelistType (NEVER: the CPO always sends a real-time authorization; a "
                          "Token with valid false whose whitelist requires it: the CPO SHALL authorize in real "
                          "time)", "the CPO asks the eMSP in real time before it lets a NEVER Token charge",
                          by="cpo")
    always_local = should(f"{_MOD}.4.5 WhitelistType (ALWAYS: real-time authorization is not possible or "
                          "allowed; the CPO allows any use of the Token)", "the CPO lets an ALWAYS Token charge "
                          "without a real-time authorization", by="cpo")
    authorize_url = must(f"{_POST} (endpoint {{tokens}}/{{token_uid}}/authorize[?type=]; the /authorize is "
                         "required)", "the CPO POSTs to the eMSP's {tokens}/{token_uid}/authorize, with ?type= for "
                         "a Token that is no RFID, its body a LocationReferences or nothing", by="cpo")
    app_tokens_never = should(f"{_MOD}.4.4 TokenType (AD_HOC_USER and APP_USER Tokens are RECOMMENDED with "
                              "whitelist NEVER)", "an APP_USER or AD_HOC_USER Token is pushed with whitelist NEVER",
                              by="emsp")
    group_id_short = should(f"{_MOD}.3.2 Token group_id (OCPP 1.5/1.6 take at most 20 characters: advised not "
                            "longer)", "a Token's group_id is at most 20 characters", by="emsp")


# ------------------------------------------------------------------------------ helpers
def token_type(query: Iterable[tuple[str, str]], rule: Rule = TokenRules.receiver_url) -> str:
    """The ``type`` URL parameter of a request (RFID when absent); 2001 for a value TokenType lacks."""
    value = dict(query).get("type") or RFID
    if value not in TOKEN_TYPES:
        raise StatusError(rule, f"type={value} is no TokenType", status_code=StatusCode.INVALID_PARAMETERS,
                          actual=value)
    return value


def unknown_token(ids: Sequence[str], kind: str, rule: Rule = TokenRules.unknown_refused) -> StatusError:
    """A request naming a Token that is not there: HTTP 404, 2004 (unknown Token), no data."""
    return StatusError(rule, f"unknown Token {'/'.join(ids)} of type {kind}", status_code=StatusCode.UNKNOWN_TOKEN,
                       http_status=404, actual=[*ids, kind])


def location_problem(asked: Mapping[str, Any] | None, answered: Mapping[str, Any] | None) -> str | None:
    """Why the AuthorizationInfo's ``answered`` location does not fit the LocationReferences ``asked``
    (None when it does, or when it names none)."""
    if answered is None:
        return None
    if asked is None:
        return "a location in the answer to a request that named none"
    if not same_id(answered.get("location_id"), asked.get("location_id")):
        return f"the answer names Location {answered.get('location_id')}, the request {asked.get('location_id')}"
    wanted = {id_key(uid) for uid in asked.get("evse_uids") or []}
    extra = [uid for uid in answered.get("evse_uids") or [] if id_key(uid) not in wanted]
    if extra:
        return f"the answer allows EVSEs the request did not name: {extra}"
    return None


def push_problems(token: Mapping[str, Any]) -> list[tuple[Rule, str]]:
    """The advice a pushed Token departs from (SHOULD rows): app Tokens not NEVER, a long group_id."""
    found = []
    if token.get("type") in (APP_USER, AD_HOC_USER) and token.get("whitelist") != NEVER:
        found.append((TokenRules.app_tokens_never, f"a {token.get('type')} Token with whitelist "
                                                   f"{token.get('whitelist')}"))
    group = token.get("group_id")
    if isinstance(group, str) and len(group) > OCPP16_GROUP_ID:
        found.append((TokenRules.group_id_short, f"group_id of {len(group)} characters"))
    return found


# ------------------------------------------------------------------------------ the store
Key = tuple[str, str, str, str]


class TokenStore:
    """Tokens by (country_code, party_id, uid, type), ids compared ignoring case (CiStrings). The eMSP
    keeps its own here, the CPO what was pushed to it."""

    def __init__(self, tokens: Iterable[Mapping[str, Any]] = ()):
        self._tokens: dict[Key, dict[str, Any]] = {}
        for token in tokens:
            self._tokens[self._key(token["country_code"], token["party_id"], token["uid"], token["type"])] = \
                json_copy(dict(token))

    @staticmethod
    def _key(country_code: str, party_id: str, uid: str, kind: str) -> Key:
        return id_key(country_code), id_key(party_id), id_key(uid), kind

    def all(self) -> list[dict[str, Any]]:
        return list(self._tokens.values())

    def get(self, country_code: str, party_id: str, uid: str, kind: str = RFID) -> dict[str, Any] | None:
        return self._tokens.get(self._key(country_code, party_id, uid, kind))

    def owned(self, uid: str, kind: str = RFID) -> dict[str, Any] | None:
        """A Token by uid and type alone (the eMSP's view: they are all its own)."""
        return next((t for t in self._tokens.values() if same_id(t["uid"], uid) and t["type"] == kind), None)

    def put(self, country_code: str, party_id: str, uid: str, kind: str, token: Any) -> bool:
        """Store ``token`` whole; True when it is new. The URL's ids and type must be the Token's."""
        token = checked("token", token)
        for name, value in zip(IDS, (country_code, party_id, uid)):
            if not same_id(token[name], value):
                raise invalid(TokenRules.put_ids, f"the Token's {name} differs from the URL's",
                              actual={"url": value, "body": token[name]})
        if token["type"] != kind:
            raise invalid(TokenRules.put_ids, "the Token's type differs from the URL's type parameter",
                          actual={"url": kind, "body": token["type"]})
        key = self._key(country_code, party_id, uid, kind)
        new = key not in self._tokens
        self._tokens[key] = json_copy(token)
        return new

    def patch(self, country_code: str, party_id: str, uid: str, kind: str, changes: Any) -> dict[str, Any]:
        """Apply ``changes`` to the stored Token; the Token after it."""
        if not isinstance(changes, dict):
            raise invalid(TokenRules.pushed, "a PATCH body is a JSON object", changes)
        if changes.get("last_updated") is None:
            raise invalid(TokenRules.patch_last_updated, "the PATCH has no last_updated", sorted(changes))
        held = self.get(country_code, party_id, uid, kind)
        if held is None:
            raise unknown_token((country_code, party_id, uid), kind, TokenRules.pushed)
        for name in (*IDS, "type"):
            if name in changes and changes[name] is not None and not same_id(changes[name], held[name]):
                raise invalid(TokenRules.put_ids, f"the PATCH changes the Token's {name}",
                              actual={"stored": held[name], "body": changes[name]})
        merged = checked("token", {**held, **{k: v for k, v in changes.items() if v is not None}})
        held.clear()
        held.update(merged)
        return held


def unchanged_fields(held: Mapping[str, Any], changes: Mapping[str, Any]) -> list[str]:
    """The fields of a PATCH that change nothing of ``held`` (ids, type and last_updated aside)."""
    return sorted(name for name, value in changes.items()
                  if name not in (*IDS, "type", "last_updated") and held.get(name) == value)
