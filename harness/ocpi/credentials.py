"""Credentials registration as two sans-I/O state machines: the server that is registered with,
and the client (initiator) that registers.

Both are fed what arrived and answer what to do next: ``Send`` (make this HTTP request and feed
the answer back), ``Respond`` (answer the request being served) or ``Done``. The I/O layer turns
tokens into Authorization headers (``auth.authorization_header``) and serves one credentials
request per peer at a time.

The server answers by the REGISTRATION table below (spec 000 "Credentials registration"): POST
registers, PUT updates, DELETE unregisters, GET shows the server's credentials. Token A is made by
the server and handed over outside OCPI; the client sends token B in its POST body, the server
connects back with B and answers with a new token C, which the client uses from then on.

Two rows are SHOULDs by reading: the text says a PUT replaces token B and that after a DELETE both
parties end automated communication, but not when the client stops accepting the B it replaced
or gave; a client that still accepts it is reported as a finding. Likewise a failed registration
should leave token A usable (it is discarded only once a registration succeeds) so the client
can retry.

Requests that reach the OCPI layer are answered HTTP 200 with the outcome in ``status_code``
(status codes §5); invalid JSON gets HTTP 400.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from enum import Enum
from typing import Any

from harness.cistring import id_key
from harness.errors import HarnessError, PeerViolation
from harness.ocpi import schemas
from harness.ocpi.auth import AuthRules
from harness.ocpi.envelope import EnvelopeRules, StatusCode, StatusError, build, expect_success, read_json
from harness.ocpi.versions import (
    CREDENTIALS, Version, VersionDetails, VersionRules, negotiate, read_details, read_versions)
from harness.rules import Rule, RuleTable, must, should

_REGISTRATION = "spec 000 Credentials registration table, Credentials module, Errors; OCPI 2.2.1 §7"
_TOKENS = "spec 000 Authentication 2-4; facts/ocpi-wire.md Authentication"


class CredentialsRules(RuleTable, namespace="ocpi.credentials"):
    """Registration, token rotation and unregistration between two platforms."""
    post_when_registered = must(_REGISTRATION, "a POST from a registered client gets HTTP 405 and changes nothing")
    not_registered = must(_REGISTRATION, "PUT and DELETE from a client that is not registered get HTTP 405")
    undefined_method = must(_REGISTRATION, "PATCH is not defined on the credentials endpoint: HTTP 405")
    unregister = must(_REGISTRATION, "DELETE ends the registration: the server's token C stops working")
    deleted_b_refused = should(f"{_REGISTRATION}; {_TOKENS}", "after its DELETE the client stops accepting the "
                                                              "token B it gave")
    body = must("spec 000 Credentials, CredentialsRole", "the body is a valid Credentials object whose roles each "
                "have a unique (role, party_id, country_code); otherwise 2001")
    client_discovery = must("spec 000 Versioning 2-4", "before its POST or PUT the client fetches the server's "
                            "versions, then the details of the latest mutual version")
    no_post_without_endpoints = must("spec 000 Errors", "a client that finds no mutual version or no endpoint it "
                                     "needs does not POST")
    connect_back = must(f"{_REGISTRATION}; Versioning 3-4", "serving a POST or PUT, the server fetches the client's "
                        "versions and version details with token B before it answers, even for the same version")
    connect_back_failure = must("spec 000 Errors", "a server that cannot complete its connect-back answers 3001 "
                                "and registers nothing")
    token_a_scope = must(_TOKENS, "token A opens only versions, version details and credentials: HTTP 401 "
                                  "elsewhere")
    token_a_discarded = must(f"{_TOKENS} (token A is then discarded and no longer used)", "token A is discarded "
                             "once a registration succeeds: it opens nothing any more, versions included")
    token_a_kept_on_failure = should(f"{_TOKENS} (discarded once token C is returned); spec 000 Errors",
                                     "a failed registration leaves token A valid for the client's retried "
                                     "registration")
    token_b = must(_TOKENS, "token B, given in the client's body, opens the client's API for the server")
    token_c = must(_TOKENS, "the server answers with a new token C, which opens its API from then on")
    rotation = must(f"{_REGISTRATION} (PUT); {_TOKENS}", "a PUT gives new tokens both ways; the replaced token C "
                                                        "stops working")
    party_as_declared = should("spec 000 Credentials (the roles tell which party_id/country_code a client uses), "
                               "CredentialsRole (CiString); OCPI 2.2.1 §4.1.8 Message routing; facts/ocpi-wire.md "
                               "Other rules (echo CiStrings as sent)", "a platform names the other's party exactly as "
                               "its credentials roles declared it, in the same case (OCPI-to-* headers)")
    replaced_b_refused = should(f"{_REGISTRATION} (PUT); {_TOKENS}", "a client stops accepting the token B its "
                                                                    "PUT replaced")

TOKEN_A_MODULES = frozenset({"versions", "version_details", CREDENTIALS})
Needed = tuple[str, str | None]   # (module identifier, role or None for any role)


class Registration(str, Enum):
    NOT_REGISTERED = "not registered"
    REGISTERED = "registered"


class Action(str, Enum):
    REGISTER = "register"
    UPDATE = "update"
    UNREGISTER = "unregister"
    SHOW = "show"
    REJECT = "reject"     # HTTP 405


@dataclass(frozen=True)
class Row:
    action: Action
    then: Registration    # the state once the action succeeded


_NOT, _REG = Registration.NOT_REGISTERED, Registration.REGISTERED

# The spec's registration table (seen from the server), plus GET.
REGISTRATION: dict[tuple[Registration, str], Row] = {
    (_NOT, "POST"): Row(Action.REGISTER, _REG),
    (_REG, "PUT"): Row(Action.UPDATE, _REG),
    (_REG, "DELETE"): Row(Action.UNREGISTER, _NOT),
    (_REG, "POST"): Row(Action.REJECT, _REG),
    (_NOT, "PUT"): Row(Action.REJECT, _NOT),
    (_NOT, "DELETE"): Row(Action.REJECT, _NOT),
    (_NOT, "GET"): Row(Action.SHOW, _NOT),
    (_REG, "GET"): Row(Action.SHOW, _REG),
}

# The HTTP calls behind each client action, in order.
CLIENT_STEPS: dict[Action, tuple[str, ...]] = {
    Action.REGISTER: ("versions", "details", "POST"),
    Action.UPDATE: ("versions", "details", "PUT"),
    Action.UNREGISTER: ("DELETE",),
}


@dataclass(frozen=True)
class Send:
    """Make this request with ``token`` in the Authorization header, then feed the answer back."""
    method: str
    url: str
    token: str
    body: dict[str, Any] | None = None


@dataclass(frozen=True)
class Respond:
    """Answer the request being served; ``violation`` says what the peer did wrong, if anything."""
    http_status: int
    body: dict[str, Any]
    violation: PeerViolation | None = None


@dataclass(frozen=True)
class Done:
    """The client action is over; ``credentials`` are the peer's (None after DELETE)."""
    credentials: dict[str, Any] | None


def new_token() -> str:
    """43 URL-safe characters: a valid token (``AuthRules.token_chars``) and hard to guess."""
    return secrets.token_urlsafe(32)


def read_credentials(data: Any) -> dict[str, Any]:
    """``data`` as a Credentials object; SchemaViolation or PeerViolation when it is not one."""
    schemas.check("credentials", data)
    seen = set()
    for role in data["roles"]:
        key = (role["role"], id_key(role["party_id"]), id_key(role["country_code"]))
        if key in seen:
            raise PeerViolation(CredentialsRules.body, f"role {key} listed twice", actual=data["roles"])
        seen.add(key)
    credentials: dict[str, Any] = data
    return credentials


class _Party:
    """What both sides know about themselves, and the connect-back steps they share."""

    def __init__(self, *, versions: Iterable[str], url: str, roles: list[dict[str, Any]],
                 needs: Iterable[Needed] = ((CREDENTIALS, None),), token_factory: Callable[[], str] = new_token):
        self.versions = tuple(versions)
        self.url = url
        self.roles = roles
        self.needs = tuple(needs)
        self.token_factory = token_factory

    def own_credentials(self, token: str) -> dict[str, Any]:
        return {"token": token, "url": self.url, "roles": self.roles}

    @staticmethod
    def _latest_version(ours: Iterable[str], http_status: int, body: str | bytes) -> Version:
        """The latest version of ``ours`` in the peer's versions list."""
        return negotiate(ours, read_versions(expect_success(http_status, body)))

    def _read_endpoints(self, version: str, http_status: int, body: str | bytes) -> VersionDetails:
        """The peer's endpoints for ``version``, holding every endpoint we need."""
        details = read_details(expect_success(http_status, body))
        if details.version != version:
            raise PeerViolation(VersionRules.shapes, f"details fetched for {version} describe {details.version}",
                                expected=version, actual=details.version)
        for identifier, role in self.needs:
            details.endpoint(identifier, role)
        return details


@dataclass
class _Call:
    """The server's request in progress while it connects back to the client."""
    row: Row
    version: str
    credentials: dict[str, Any]
    step: str = "versions"


class CredentialsServer(_Party):
    """The server side of one peer's registration."""

    def __init__(self, **party: Any):
        super().__init__(**party)
        self.state = Registration.NOT_REGISTERED
        self.version: str | None = None
        self.token_a: str | None = None
        self.token_c: str | None = None
        self.peer: dict[str, Any] | None = None
        self.peer_endpoints: VersionDetails | None = None
        self._call: _Call | None = None

    @property
    def peer_token(self) -> str | None:
        """Token B: what we present when calling the client."""
        return self.peer["token"] if self.peer else None

    def issue_token_a(self) -> str:
        """A fresh token A, to hand to the client outside OCPI."""
        if self.state is Registration.REGISTERED:
            raise HarnessError("token A is for an unregistered peer: DELETE the registration first")
        self.token_a = self.token_factory()
        return self.token_a

    def permits(self, module: str, token: str | None) -> bool:
        """Whether ``token`` opens ``module``; False means HTTP 401."""
        if token is None:
            return False
        if self.state is Registration.REGISTERED and token == self.token_c:
            return True
        return token == self.token_a and module in TOKEN_A_MODULES

    def handle_request(self, method: str, token: str | None, body: str | bytes | None, *,
                       version: str) -> Send | Respond:
        """A request to our credentials endpoint of ``version``, with the token it presented."""
        if self._call is not None:
            raise HarnessError("a credentials request is still being served for this peer")
        if version not in self.versions:
            raise HarnessError(f"we do not serve credentials for version {version}")
        if token is None or not self.permits(CREDENTIALS, token):
            return _reject(401, AuthRules.header, "unknown credentials token")
        row = REGISTRATION.get((self.state, method.upper()))
        if row is None:
            return _reject(405, CredentialsRules.undefined_method,
                           f"{method} is not defined on the credentials endpoint")
        if row.action is Action.REJECT:
            rule = (CredentialsRules.post_when_registered if method.upper() == "POST"
                    else CredentialsRules.not_registered)
            return _reject(405, rule, f"{method} is not allowed when {self.state.value}")
        if row.action is Action.SHOW:
            return Respond(200, build(self.own_credentials(token)))
        if row.action is Action.UNREGISTER:
            self._forget()
            return Respond(200, build())
        try:
            credentials = read_credentials(read_json(body or b""))
        except ValueError:
            return _reject(400, EnvelopeRules.request_json, "request body is not valid JSON",
                           StatusCode.INVALID_PARAMETERS)
        except PeerViolation as violation:
            return Respond(200, build(status_code=StatusCode.INVALID_PARAMETERS,
                                      status_message=str(violation.args[0])), violation)
        self._call = _Call(row, version, credentials)
        return Send("GET", credentials["url"], credentials["token"])

    def handle_response(self, http_status: int, body: str | bytes) -> Send | Respond:
        """The client's answer to our last ``Send``."""
        call = self._pending()
        try:
            if call.step == "versions":
                call.step = "details"
                listed = self._latest_version([call.version], http_status, body)
                return Send("GET", listed.url, call.credentials["token"])
            details = self._read_endpoints(call.version, http_status, body)
        except StatusError as error:
            return self._fail(error.status_code, error)
        except PeerViolation as violation:
            return self._fail(StatusCode.CLIENT_API_UNUSABLE, violation)
        return self._complete(call, details)

    def handle_failure(self, reason: str) -> Respond:
        """Our last ``Send`` got no HTTP answer (refused, timed out, TLS error...)."""
        self._pending()
        return self._fail(StatusCode.CLIENT_API_UNUSABLE,
                          PeerViolation(CredentialsRules.connect_back_failure,
                                        f"connect-back to the client failed: {reason}"))

    def abandon(self) -> None:
        """The request being served could not be served (a fault of ours, not the client's): it
        holds nothing any more, so the client's next request is served; the registration is as it was."""
        self._call = None

    def _pending(self) -> _Call:
        if self._call is None:
            raise HarnessError("no connect-back is under way")
        return self._call

    def _fail(self, code: StatusCode, violation: PeerViolation) -> Respond:
        self._call = None
        return Respond(200, build(status_code=code, status_message=str(violation.args[0])), violation)

    def _complete(self, call: _Call, details: VersionDetails) -> Respond:
        self._call = None
        self.state = call.row.then
        self.version = call.version
        self.peer = call.credentials
        self.peer_endpoints = details
        self.token_a = None
        self.token_c = self.token_factory()
        return Respond(200, build(self.own_credentials(self.token_c)))

    def _forget(self) -> None:
        self.state = Registration.NOT_REGISTERED
        self.version = self.token_c = self.peer = self.peer_endpoints = None


def _reject(http_status: int, rule: Rule, message: str,
            code: StatusCode = StatusCode.CLIENT_ERROR) -> Respond:
    return Respond(http_status, build(status_code=code, status_message=message), PeerViolation(rule, message))


@dataclass
class _Exchange:
    """A client action in progress; what it learns is kept only if it succeeds."""
    action: Action
    steps: list[str]
    version: str | None = None
    endpoints: VersionDetails | None = None
    offered: str | None = None    # the token B we sent


class CredentialsClient(_Party):
    """The initiator of a registration with one peer.

    Peer faults raise PeerViolation (a SchemaViolation for a malformed object, a StatusError
    carrying 3002/3003 when no version or endpoint fits); the registration is then unchanged.
    """

    def __init__(self, *, versions_url: str, token_a: str, **party: Any):
        super().__init__(**party)
        self.versions_url = versions_url
        self.token: str | None = token_a      # what we present: A, then C
        self.own_token: str | None = None     # B: what the peer presents to us
        self.registered = False
        self.version: str | None = None
        self.peer_endpoints: VersionDetails | None = None
        self._exchange: _Exchange | None = None

    def register(self) -> Send:
        return self._start(Action.REGISTER, registered=False)

    def update(self) -> Send:
        return self._start(Action.UPDATE, registered=True)

    def unregister(self) -> Send:
        return self._start(Action.UNREGISTER, registered=True)

    def _start(self, action: Action, *, registered: bool) -> Send:
        if self._exchange is not None:
            raise HarnessError(f"{self._exchange.action.value} is still under way")
        if self.registered != registered:
            raise HarnessError(f"cannot {action.value} while {'' if self.registered else 'not '}registered")
        token = self._presented()
        if action is not Action.UNREGISTER:
            first = Send("GET", self.versions_url, token)
        elif self.peer_endpoints is None:
            raise HarnessError("registered without the peer's endpoints")
        else:
            first = Send("DELETE", self.peer_endpoints.endpoint(CREDENTIALS).url, token)
        self._exchange = _Exchange(action, list(CLIENT_STEPS[action]), self.version, self.peer_endpoints)
        return first

    def _presented(self) -> str:
        """The token we present (A, then C); an unregistered client has none left: a registration
        afresh takes a new client with a new token A."""
        if self.token is None:
            raise HarnessError("this client unregistered: register afresh with a new CredentialsClient")
        return self.token

    def handle_response(self, http_status: int, body: str | bytes) -> Send | Done:
        """The peer's answer to our last ``Send``."""
        exchange = self._exchange
        if exchange is None:
            raise HarnessError("no credentials exchange is under way")
        try:
            return self._after(exchange, exchange.steps.pop(0), http_status, body)
        except PeerViolation:
            self._exchange = None
            raise

    def _after(self, exchange: _Exchange, step: str, http_status: int, body: str | bytes) -> Send | Done:
        if step == "versions":
            chosen = self._latest_version(self.versions, http_status, body)
            exchange.version = chosen.version
            return Send("GET", chosen.url, self._presented())
        if step == "details":
            if exchange.version is None:
                raise HarnessError("the details of a version asked for before the version was chosen")
            endpoints = exchange.endpoints = self._read_endpoints(exchange.version, http_status, body)
            offered = exchange.offered = self.token_factory()
            return Send(exchange.steps[0], endpoints.endpoint(CREDENTIALS).url, self._presented(),
                        self.own_credentials(offered))
        self._exchange = None
        if step == "DELETE":
            expect_success(http_status, body)
            self.registered = False
            self.token = self.own_token = self.version = self.peer_endpoints = None
            return Done(None)
        credentials = read_credentials(expect_success(http_status, body))
        if credentials["token"] == self.token:
            raise PeerViolation(CredentialsRules.token_c,
                                "the server answered with the token we already use, not a new one",
                                actual=credentials["token"])
        self.registered = True
        self.token, self.own_token = credentials["token"], exchange.offered
        self.version, self.peer_endpoints = exchange.version, exchange.endpoints
        return Done(credentials)
