"""The reference OCPI peer: a CPO or an eMSP platform. It plays the harness's side when the SUT
is the other role, and stands in as the SUT in the embedded run.

The protocol cores decide (harness/ocpi: envelope, auth, headers, versions, credentials,
pagination, locations, schemas); this class moves what they decide on and off HTTP
(``harness/transport/http.py``). It knows the modules every platform has, versions and
credentials; each functional module is a handler with its store, registered per (module, role)
in ``modules.py`` (see ``handler.py``). Behaviour:
- versions at ``{base}/ocpi/versions``, details of 2.2.1 at ``{base}/ocpi/2.2.1``: the
  credentials endpoint and, per registered handler, its module as SENDER or RECEIVER; details of
  2.3.0 (the locations module's version) at ``{base}/ocpi/2.3.0``: credentials and the handlers
  listed there (``listed_at``), served by the same handlers. Our client negotiates 2.2.1 (the version of
  credentials and sessions); our server accepts credentials at either version;
- credentials: a platform that registers with this one meets the ``CredentialsServer``, whose
  connect-back goes out over HTTP; registering with another platform drives a
  ``CredentialsClient``. One relationship at a time: PUT and DELETE are accepted from the platform
  that registered with this one; the platform this one registered with gets 405 for them (it may
  GET the credentials);
- authentication: the Authorization header is read under the profile's encoding policy; a missing
  or unknown token, or token A on a functional module, gets HTTP 401;
- every answer, errors included, is an envelope with X-Request-ID and X-Correlation-ID echoed and,
  on functional modules, the routing headers swapped.

What the other platform sends is judged by the rows of the core tables: its requests (token form,
request ids, routing headers, bodies by schema) and its answers (envelope, echoed ids). The faults
land in ``violations`` (a SHOULD row's as a finding; our own bugs in ``harness_errors``); the
plugin turns them into verdicts when this peer plays the harness's side of a test.
"""

from __future__ import annotations

import asyncio
import functools
import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from harness.errors import HarnessError, PeerViolation
from harness.ocpi import auth, headers as hdr
from harness.ocpi.auth import AuthRules, Policy, PresentedToken, TokenForm
from harness.ocpi.credentials import (
    CredentialsClient, CredentialsRules, CredentialsServer, Registration, Send, new_token)
from harness.ocpi.envelope import StatusCode, StatusError, build, parse
from harness.ocpi.headers import HeaderRules
from harness.ocpi.pagination import page_headers, paginate, parse_query
from harness.ocpi.versions import CREDENTIALS, RECEIVER, SENDER, VersionDetails, VersionRules
from harness.reference.common import Actions, Background
from harness.reference.ocpi.handler import CPO, EMSP, Later, Module, ModuleHandler, ModuleRegistry, Reply
from harness.reference.ocpi.modules import MODULES
from harness.transport.http import (
    HttpClient, HttpExchange, HttpRequest, HttpResponse, NoAnswer, Served, asgi_app)
from harness.transport.ledger import Ledger, Violations
from harness.transport.waiting import first_match
from harness.variance import Variance
from harness.wire import REDACTOR, WireLog

VERSION = "2.2.1"                  # the version of every relationship: credentials, sessions, locations
LOCATIONS_VERSION = "2.3.0"        # also offered: its details list credentials and the locations module
OFFERED = (VERSION, LOCATIONS_VERSION)
_UNSET = object()
CREDENTIALS_REQUESTS = 4          # the most requests one credentials action makes: versions, details, POST/PUT, GET
KEPT = 1_000   # served requests and violations a peer keeps, the newest: a long run's memory stays flat


def secret_token() -> str:
    """A new credentials token, masked in every log and report from now on."""
    token = new_token()
    REDACTOR.register(token)
    return token


@dataclass(frozen=True)
class PeerIdentity:
    """Who a peer is, and how it writes and reads credentials tokens."""
    role: str                          # CPO or EMSP
    country_code: str
    party_id: str
    name: str
    token_encoding: Policy = "base64"  # how the other side's tokens are read; "raw": ours are sent raw too

    @property
    def party(self) -> hdr.Party:
        return hdr.Party(self.country_code, self.party_id)

    @property
    def other_role(self) -> str:
        return EMSP if self.role == CPO else CPO

    @property
    def token_form(self) -> TokenForm:
        return TokenForm.RAW if self.token_encoding == "raw" else TokenForm.BASE64

    def credentials_role(self) -> dict[str, Any]:
        return {"role": self.role, "business_details": {"name": self.name},
                "party_id": self.party_id, "country_code": self.country_code}


def _below(url: str, *segments: str) -> str:
    """``url`` as published, followed by ``segments``: ``…/locations`` and ``…/locations/`` both lead
    to ``…/locations/LOC-1``; with no segments, ``url`` itself."""
    if not segments:
        return url
    return url + ("" if url.endswith("/") else "/") + "/".join(segments)


def _routed(module: str | None) -> bool:
    """Functional modules carry routing headers; versions and details are not one."""
    return module not in (None, "versions", "version_details") and hdr.needs_routing(module, VERSION)


def _stocked(module: Module, stock: Mapping[str, Iterable[Any]]) -> Any:
    """``module``'s store, holding its objects of ``stock`` (none when it has no entry)."""
    return module.store(stock.get(module.handler.module, ()))


class OcpiPeer(Actions):
    """One OCPI platform of role CPO or EMSP; ``bind(base_url)`` once it is served.

    ``stock`` gives the objects each module's store starts with, by module identifier.
    """

    modules: ModuleRegistry = MODULES
    configurable = frozenset({"page_limit"})   # a test may make our lists page sooner

    def __init__(self, identity: PeerIdentity, *, http: HttpClient,
                 stock: Mapping[str, Iterable[Any]] | None = None, wirelog: WireLog | None = None,
                 channel: str = "ocpi", page_limit: int = 50,
                 actuator_endpoint: bool = False, call_timeout: float = 10.0):
        self.identity = identity
        self.http = http
        stock = stock or {}
        self.handlers: dict[str, ModuleHandler] = {   # each store made, from its stock, when first used
            module.handler.module: module.handler(self, Later(functools.partial(_stocked, module, stock)))
            for module in self.modules.for_role(identity.role)}
        self.wirelog = wirelog
        self.channel = channel
        self.page_limit = page_limit
        self.actuator_endpoint = actuator_endpoint
        self.call_timeout = call_timeout
        self.app = asgi_app(self.handle, wirelog=lambda: self.wirelog, channel=channel)
        self.background = Background()
        self.base_url: str | None = None
        self.server: CredentialsServer | None = None
        self.variance: Variance | None = None   # a stand-in's legal variance (see vary)
        self.client: CredentialsClient | None = None
        self.served: Ledger[Served] = Ledger(KEPT)
        self.canned: dict[str, tuple[int, bytes]] = {}
        self.violations = Violations(KEPT)
        self.harness_errors: list[BaseException] = []
        self._peer_credentials: dict[str, Any] | None = None
        self._credentials_lock = asyncio.Lock()   # one client credentials action at a time, in order
        self._credentials_actions: set[asyncio.Task] = set()   # asked for by the actuator, not finished yet
        self._serving_credentials = asyncio.Lock()   # one credentials request served at a time, in order
        self._offered: str | None = None          # token B our client offers while its POST or PUT runs
        self._changed = asyncio.Event()
        if wirelog is not None:
            wirelog.connections.append(self)

    # ------------------------------------------------------------------ where it is served
    def vary(self, variance: Variance) -> None:
        """Stand in with legal variance (``harness.variance``): the freedoms of the OCPI rows."""
        self.variance = variance

    def bind(self, base_url: str, *, token_a: str | None = None) -> "OcpiPeer":
        self.base_url = base_url.rstrip("/")
        self.server = CredentialsServer(versions=OFFERED, url=self.versions_url,
                                        roles=[self.identity.credentials_role()], token_factory=secret_token)
        if token_a is not None:
            self.accept_token_a(token_a)
        return self

    @property
    def versions_url(self) -> str:
        return self._published(f"{self._base()}/ocpi/versions")

    @property
    def details_url(self) -> str:
        return self._published(f"{self._base()}/ocpi/{VERSION}")

    def module_url(self, module: str) -> str:
        return self._published(f"{self._base()}/ocpi/{VERSION}/{module}")

    def _published(self, url: str) -> str:
        """One of our URLs as we publish it: with a trailing slash when a stand-in under variance
        chose that form (the form is the publisher's; we serve both, see ``_redirect``)."""
        return url + "/" if self.variance is not None and self.variance.slashed else url

    def _base(self) -> str:
        if self.base_url is None:
            raise HarnessError("the OCPI peer is not served yet: bind it to its base URL first")
        return self.base_url

    def endpoints(self, version: str = VERSION) -> list[dict[str, str]]:
        """What our details of ``version`` list: credentials, then every module we play at that version."""
        credentials = self.at_version(version, self.module_url(CREDENTIALS))
        return [{"identifier": CREDENTIALS, "role": SENDER, "url": credentials}] + [
            {"identifier": handler.module, "role": handler.interface,
             "url": self.at_version(version, self.module_url(handler.module))}
            for handler in self.handlers.values() if version in handler.listed_at]

    @staticmethod
    def at_version(version: str, url: str) -> str:
        """One of our URLs of the relationship's version, moved to ``version``."""
        return url.replace(f"/ocpi/{VERSION}", f"/ocpi/{version}", 1)

    def store(self, module: str) -> Any:
        """The objects we keep for ``module``."""
        return self._handler(module).store

    def _handler(self, module: str) -> ModuleHandler:
        if module not in self.handlers:
            raise HarnessError(f"this {self.identity.role} plays no {module} module")
        return self.handlers[module]

    def can(self, name: str, status: int, body: Any) -> str:
        """A canned answer at ``{base}/canned/<name>`` (any method, no authentication): its URL."""
        self.canned[name] = (status, body if isinstance(body, bytes) else json.dumps(body).encode())
        return f"{self._base()}/canned/{name}"

    async def stop(self) -> None:
        """Stop what runs in the background and the HTTP client (the server is its owner's)."""
        await self.background.cancel_all()
        await self.http.close()

    # ------------------------------------------------------------------ the relationship
    @property
    def client_registered(self) -> bool:
        return self.client is not None and self.client.registered

    @property
    def server_registered(self) -> bool:
        return self.server is not None and self.server.state is Registration.REGISTERED

    @property
    def registered(self) -> bool:
        return self.client_registered or self.server_registered

    @property
    def peer_token(self) -> str | None:
        """What we present to the other platform: C when we registered with it, else its B."""
        if self.client_registered:
            return self.client.token
        return self.server.peer_token if self.server_registered else None

    @property
    def own_token(self) -> str | None:
        """What the other platform presents to us: our B when we registered with it, else C."""
        if self.client_registered:
            return self.client.own_token
        return self.server.token_c if self.server_registered else None

    @property
    def peer_endpoints(self) -> VersionDetails | None:
        if self.client_registered:
            return self.client.peer_endpoints
        return self.server.peer_endpoints if self.server_registered else None

    @property
    def peer_party(self) -> hdr.Party | None:
        """The other platform's party in its role, from the credentials it gave us."""
        credentials = self.server.peer if self.server_registered else self._peer_credentials
        for role in (credentials or {}).get("roles", []):
            if role.get("role") == self.identity.other_role:
                return hdr.Party(role["country_code"], role["party_id"])
        return None

    def accept_token_a(self, token: str) -> None:
        """``token`` opens our versions, details and credentials for one new registration."""
        problem = auth.token_problem(token)
        if problem:
            raise HarnessError(f"token A refused: {problem}")
        if self.server_registered:
            raise HarnessError("token A is for an unregistered platform: unregister first")
        REDACTOR.register(token)
        self.server.token_a = token

    def issue_token_a(self) -> str:
        return self.server.issue_token_a()

    def _client_tokens(self) -> set[str]:
        """What the platform we registered with presents: our B, and the B we are offering."""
        return {t for t in (self.client.own_token if self.client_registered else None, self._offered) if t}

    def _known_tokens(self) -> set[str]:
        return {t for t in (self.server.token_a, self.server.token_c) if t} | self._client_tokens()

    def _permits(self, module: str, token: str) -> bool:
        return self.server.permits(module, token) or token in self._client_tokens()

    # ------------------------------------------------------------------ sending
    def other_url(self, module: str, *ids: str, endpoints: VersionDetails | None = None) -> str:
        """The other platform's URL of ``module`` for the object ``ids``, from ``endpoints`` (by default
        those of the registration): its credentials endpoint; its Sender by ids; its Receiver by our
        party and ids (client-owned objects). StatusError 3003 when it lists no such endpoint.

        The endpoint URL is used exactly as published: a platform that publishes ``…/locations/``
        is asked at ``…/locations/`` and ``…/locations/{id}``, never at a URL it may redirect."""
        endpoints = endpoints or self.peer_endpoints
        if endpoints is None:
            raise HarnessError("not registered: the other platform's endpoints are unknown")
        if module == CREDENTIALS:
            return endpoints.endpoint(CREDENTIALS).url
        theirs = RECEIVER if self._handler(module).interface == SENDER else SENDER
        if theirs == SENDER or not self._handler(module).client_owned:
            return _below(endpoints.endpoint(module, theirs).url, *ids)
        owned = (self.identity.country_code, self.identity.party_id, *ids)   # our objects: spelled as we store them
        if self.variance is not None:
            owned = tuple(self.variance.ocpi_id(value) for value in owned)
        return _below(endpoints.endpoint(module, theirs).url, *owned)

    def list_page(self, request: HttpRequest, objects: list[dict[str, Any]], name: str, *,
                  date_from_required: bool = False) -> Reply:
        """The page of our ``objects`` (of schema ``name``) a list GET asks for, with its headers. Under
        variance a stand-in may cap pages below ``page_limit`` and writes the Link in any legal form."""
        variance = self.variance
        limit = self.page_limit if variance is None else variance.page_cap(self.page_limit)
        query = parse_query(request.query, max_limit=limit, date_from_required=date_from_required)
        page = paginate(objects, query)
        if limit < self.page_limit:
            uncapped = parse_query(request.query, max_limit=self.page_limit, date_from_required=date_from_required)
            if len(page.items) < len(paginate(objects, uncapped).items):
                variance.took("ocpi.page_size")   # the cap cut this page short
        return Reply(200, build(self.outgoing(name, page.items)),
                     page_headers(page, query, request.url, link=variance and variance.next_link))

    async def call(self, method: str, module: str, ids: tuple[str, ...] = (), body: Any = None) -> HttpExchange:
        """One request of the relationship to the other platform's ``module`` (see ``other_url``), once
        a registration, update or unregistration the actuator asked for before it has finished: a push
        asked for right after ``register`` goes to the endpoints that registration brings."""
        await self._credentials_settled()
        return await self.send(method, self.other_url(module, *ids), token=self.peer_token, module=module, body=body)

    async def send(self, method: str, url: str, *, token: str | None = None, body: Any = None,
                   module: str | None = None, authorization: Any = _UNSET,
                   raw_body: bytes | None = None) -> HttpExchange:
        """One request to the other platform; its answer is judged (envelope, echoed ids) and returned."""
        headers = self.tracking_headers()
        if authorization is _UNSET:
            if token is None:
                raise HarnessError(f"{method} {url}: no token to present")
            headers["Authorization"] = auth.authorization_header(token, self.identity.token_form)
        elif authorization is not None:
            headers["Authorization"] = authorization
        content = raw_body if raw_body is not None else (self._text(body).encode() if body is not None else b"")
        if content:
            headers["Content-Type"] = "application/json"
        if _routed(module):
            other = self.peer_party or hdr.Party("XX", "XXX")
            headers.update(hdr.routing_headers(hdr.Route(self.identity.party, other)))
        exchange = await self.http.request(method, url, headers=headers, body=content, timeout=self.call_timeout)
        self._judge_answer(exchange)
        return exchange

    def _text(self, value: Any) -> str:
        """A body as JSON text: under variance in a form chosen at random (``Variance.render``)."""
        return json.dumps(value) if self.variance is None else self.variance.render(value)

    def outgoing(self, name: str, value: Any, *, whole: bool = True, owned: bool = True) -> Any:
        """An object of schema ``name`` (or a list of them) as we write it: under variance with the value
        freedoms of the OCPI rows taken (``Variance.ocpi_object``); as it is otherwise."""
        if self.variance is None or value is None:
            return value
        return self.variance.ocpi_object(name, value, whole=whole, owned=owned)

    @staticmethod
    def tracking_headers() -> dict[str, str]:
        """X-Request-ID and X-Correlation-ID of one new request."""
        return hdr.tracking_headers()

    def _judge_answer(self, exchange: HttpExchange) -> None:
        for check in (lambda: parse(exchange.response_body),
                      lambda: hdr.check_echo(exchange.request_headers, exchange.response_headers)):
            try:
                check()
            except PeerViolation as violation:
                self.violations.append(violation)

    # ------------------------------------------------------------------ registering with another platform
    async def register_with(self, versions_url: str, token_a: str) -> dict[str, Any]:
        """Versions, details, POST; the other platform's credentials."""
        async with self._credentials_lock:
            if self.registered:
                raise HarnessError("already registered: one relationship at a time")
            REDACTOR.register(token_a)
            self.client = CredentialsClient(versions_url=versions_url, token_a=token_a, versions=(VERSION,),
                                            url=self.versions_url, roles=[self.identity.credentials_role()],
                                            token_factory=self._offer)
            return await self._drive(self.client.register())

    async def update_registration(self, version: str | None = None) -> dict[str, Any]:
        """Versions, details, PUT: new tokens both ways; at ``version`` when given (a switch of the
        relationship's version: the other platform must list it), else at the latest mutual one."""
        async with self._credentials_lock:
            client = self._registered_client()
            if version is not None:
                client.versions = (version,)
            return await self._drive(client.update())

    async def unregister_from(self) -> None:
        async with self._credentials_lock:
            await self._drive(self._registered_client().unregister())

    def _registered_client(self) -> CredentialsClient:
        if not self.client_registered:
            raise HarnessError("this platform did not register with the other one")
        return self.client

    def _offer(self) -> str:
        """The token B we offer; the server connects back with it before our POST is answered."""
        self._offered = secret_token()
        return self._offered

    async def _drive(self, effect) -> dict[str, Any] | None:
        try:
            while isinstance(effect, Send):
                exchange = await self.send(effect.method, effect.url, token=effect.token,
                                           body=self.outgoing("credentials", effect.body))
                effect = self.client.handle_response(exchange.status, exchange.response_body)
        finally:
            self._offered = None
        if effect.credentials is not None:
            REDACTOR.register(effect.credentials.get("token"))
        self._peer_credentials = effect.credentials
        return effect.credentials

    # ------------------------------------------------------------------ serving
    def _route(self, path: str) -> tuple[str, list[str]] | None:
        parts = [p for p in path.strip("/").split("/") if p]
        if parts[:1] == ["canned"] and len(parts) == 2:
            return "canned", parts[1:]
        if parts[:1] == ["actuator"] and len(parts) == 2 and self.actuator_endpoint:
            return "actuator", parts[1:]
        if parts == ["ocpi", "versions"]:
            return "versions", []
        if parts[:1] == ["ocpi"] and len(parts) >= 2 and parts[1] in OFFERED:
            if len(parts) == 2:
                return "version_details", [parts[1]]
            if parts[2] == CREDENTIALS or parts[1] in getattr(self.handlers.get(parts[2]), "listed_at", ()):
                return parts[2], parts[3:]
        return None

    async def handle(self, request: HttpRequest) -> HttpResponse:
        route = self._route(request.path)
        if route is not None and route[0] == "canned":
            status, body = self.canned.get(route[1][0], (404, b"no such canned answer"))
            response = HttpResponse(status, body, self._answer_headers(request, None))
            self._note(request, response, "canned", None)
            return response
        if route is not None and route[0] == "actuator":
            return await self._actuate(request, route[1][0])
        redirect = self._redirect(request)
        if redirect is not None:
            return redirect
        module, presented = (route[0] if route else None), None
        try:
            if route is None:
                raise StatusError(VersionRules.listed_endpoint, f"no OCPI endpoint at {request.path}",
                                  status_code=StatusCode.CLIENT_ERROR, http_status=404)
            presented = self._authenticate(request, module)
            self._check_request_headers(request, module)
            reply = await self._serve(request, module, route[1], presented)
        except StatusError as error:
            self.violations.append(error)
            reply = Reply(error.http_status, error.envelope())
        except Exception as bug:   # our own fault: the verdict must be broken, never failed
            self.harness_errors.append(bug)
            reply = Reply(500, build(status_code=StatusCode.SERVER_ERROR, status_message=f"internal error: {bug!r}"))
        headers = self._answer_headers(request, module) | (reply.headers or {})
        if self.variance is not None:
            headers = self.variance.header_names(headers)
        response = HttpResponse(reply.status, self._text(self._stamped(reply.body)).encode(), headers)
        self._note(request, response, module, presented)
        return response

    def _stamped(self, envelope: Any) -> Any:
        """An envelope with its timestamp in our form (``Variance.ocpi_timestamp``) under variance."""
        if self.variance is None or not isinstance(envelope, dict) or "timestamp" not in envelope:
            return envelope
        return {**envelope, "timestamp": self.variance.ocpi_timestamp(envelope["timestamp"])}

    def _redirect(self, request: HttpRequest) -> HttpResponse | None:
        """A 307 to the published form of one of our URLs asked in its other form (without the trailing
        slash we publish), as a stand-in under variance answers; None for any other request."""
        if self.variance is None or not self.variance.slashed or request.path.endswith("/"):
            return None
        published = {urlsplit(url).path for url in self._published_urls()}
        if request.path + "/" not in published:
            return None
        parts = urlsplit(request.url)
        target = urlunsplit((parts.scheme, parts.netloc, parts.path + "/", parts.query, ""))
        self.variance.took("ocpi.trailing_slash")
        response = HttpResponse(307, b"", self._answer_headers(request, None) | {"Location": target})
        self._note(request, response, None, None)
        return response

    def _published_urls(self) -> list[str]:
        """Every URL we publish: versions, the details of each version, the endpoints they list."""
        return [self.versions_url] + [self.at_version(version, self.details_url) for version in OFFERED] + [
            endpoint["url"] for version in OFFERED for endpoint in self.endpoints(version)]

    def _note(self, request: HttpRequest, response: HttpResponse, module: str | None,
              presented: PresentedToken | None) -> None:
        exchange = HttpExchange(request.method, request.url, request.headers, request.body, response.status,
                                tuple(response.headers.items()), response.body)
        self.served.append(Served(exchange, module, presented))
        self._changed.set()

    @property
    def token_policy(self) -> Policy:
        """The forms in which we read the other platform's tokens: the profile's encoding."""
        return self.identity.token_encoding

    def _authenticate(self, request: HttpRequest, module: str) -> PresentedToken:
        """The presented token must open ``module``; StatusError 401 otherwise."""
        presented = auth.decode_authorization(request.header("Authorization"), self.token_policy,
                                              self._known_tokens())
        if presented.is_deviation_for(VERSION):
            self.violations.append(PeerViolation(
                AuthRules.raw_token, f"raw credentials token to a {VERSION} platform (base64 is due since 2.2)",
                expected="Token <base64>", actual="Token <raw token>"))
        if not self._permits(module, presented.token):
            if presented.token == self.server.token_a:
                rule = CredentialsRules.token_a_scope
                what = "token A opens only versions, version details and credentials"
            else:
                rule, what = AuthRules.header, "unknown credentials token"
            raise StatusError(rule, what, status_code=StatusCode.CLIENT_ERROR, http_status=401)
        return presented

    def _check_request_headers(self, request: HttpRequest, module: str) -> None:
        for name in hdr.missing_ids(request.by_name):
            self.violations.append(PeerViolation(HeaderRules.request_ids, f"request without {name}",
                                                 expected=name, actual=sorted(request.by_name)))
        if _routed(module):
            try:
                hdr.read_route(request.by_name)
            except PeerViolation as violation:   # a SHOULD row: recorded as a finding
                self.violations.append(violation)

    def _answer_headers(self, request: HttpRequest, module: str | None) -> dict[str, str]:
        """The request ids echoed; on functional modules the route swapped."""
        answer = {"Content-Type": "application/json"}
        for name in (hdr.REQUEST_ID, hdr.CORRELATION_ID):
            if request.header(name):
                answer[name] = request.header(name)
        if _routed(module):
            try:
                route = hdr.read_route(request.by_name)
                answer |= hdr.routing_headers(hdr.Route(route.receiver, route.sender))
            except PeerViolation:
                if self.peer_party is not None:
                    answer |= hdr.routing_headers(hdr.Route(self.identity.party, self.peer_party))
        return answer

    async def _serve(self, request: HttpRequest, module: str, rest: list[str], presented: PresentedToken) -> Reply:
        if module in ("versions", "version_details") and self.variance is not None and self.variance.slashed:
            self.variance.took("ocpi.trailing_slash")   # the URLs these bodies publish end with a slash
        if module == "versions":
            self.only(request, "GET")
            return Reply(200, build([{"version": version, "url": self.at_version(version, self.details_url)}
                                     for version in OFFERED]))
        if module == "version_details":
            self.only(request, "GET")
            return Reply(200, build({"version": rest[0], "endpoints": self.endpoints(rest[0])}))
        if module != CREDENTIALS:
            return await self.handlers[module].serve(request, rest)
        if rest:
            raise StatusError(VersionRules.listed_endpoint, f"no OCPI endpoint at {request.path}",
                              status_code=StatusCode.CLIENT_ERROR, http_status=404)
        return await self._serve_credentials(request, presented.token)

    @staticmethod
    def only(request: HttpRequest, *methods: str) -> None:
        """StatusError 405 unless the request uses one of ``methods``."""
        if request.method not in methods:
            raise StatusError(VersionRules.listed_endpoint, f"{request.method} is not defined here "
                              f"({', '.join(methods)} only)", status_code=StatusCode.CLIENT_ERROR, http_status=405)

    # ------------------------------------------------------------------ credentials
    async def _serve_credentials(self, request: HttpRequest, token: str) -> Reply:
        if token in self._client_tokens():
            self.only(request, "GET")
            return Reply(200, build(self.outgoing("credentials", self.server.own_credentials(token))))
        self._remember_secret(request.body)
        version = request.path.split("/ocpi/", 1)[-1].split("/", 1)[0]   # the credentials endpoint's version
        async with self._serving_credentials:   # one that comes during another's connect-back waits for it
            try:
                effect = self.server.handle_request(request.method, token, request.body, version=version)
                while isinstance(effect, Send):
                    try:
                        exchange = await self.send(effect.method, effect.url, token=effect.token)
                    except NoAnswer as failure:
                        effect = self.server.handle_failure(failure.reason)
                    else:
                        effect = self.server.handle_response(exchange.status, exchange.response_body)
            except BaseException:   # not served (answered 500 by ``handle``, cancelled): release the request
                self.server.abandon()
                raise
        if effect.violation is not None:
            self.violations.append(effect.violation)
        if self.server_registered:   # the token the registration kept is masked for good
            REDACTOR.register(self.server.peer_token)
        body = effect.body
        if isinstance(body, dict) and isinstance(body.get("data"), dict):
            body = {**body, "data": self.outgoing("credentials", body["data"])}
        return Reply(effect.http_status, body)

    @staticmethod
    def _remember_secret(body: bytes) -> None:
        """Mask the token a credentials request names, kept or not: masked in passing (the newest are
        kept) until a registration keeps it."""
        try:
            value = json.loads(body or b"null")
        except (ValueError, RecursionError):
            return
        if isinstance(value, dict) and isinstance(value.get("token"), str):
            REDACTOR.register(value["token"], passing=True)

    # ------------------------------------------------------------------ actuator actions
    async def act_issue_token_a(self, token: str) -> None:
        self.accept_token_a(token)

    async def act_register(self, versions_url: str, token_a: str) -> None:
        self._credentials_action(self.register_with(versions_url, token_a))

    async def act_update_credentials(self) -> None:
        self._credentials_action(self.update_registration())

    async def act_unregister(self) -> None:
        self._credentials_action(self.unregister_from())

    def _credentials_action(self, coro) -> None:
        """In the background (the actuator answers at once, as a real platform's would), remembered
        until it ends so that module pushes wait for it (``call``)."""
        task = self.background.spawn(coro)
        self._credentials_actions.add(task)
        task.add_done_callback(self._credentials_actions.discard)

    async def _credentials_settled(self) -> None:
        """Wait for the pending credentials actions; each of their requests is bounded by
        ``call_timeout`` (versions, details, credentials, and the update's or delete's one more)."""
        if self._credentials_actions:
            await asyncio.wait(set(self._credentials_actions), timeout=CREDENTIALS_REQUESTS * self.call_timeout)

    def supported_actions(self) -> set[str]:
        """Ours (credentials) and those of the modules we play."""
        offered = {name for handler in self.handlers.values() for name in handler.actions()}
        return super().supported_actions() | offered

    async def perform(self, action: str, body: dict[str, Any]) -> Any:
        """What the module's action answers (a handler's push: its exchange)."""
        for handler in self.handlers.values():
            offered = handler.actions()
            if action in offered:
                return await offered[action](**body)
        return await super().perform(action, body)

    async def _actuate(self, request: HttpRequest, action: str) -> HttpResponse:
        """The http actuator contract (docs/actuators.md), for a peer run on its own."""
        if request.method != "POST":
            return HttpResponse(405, b"POST only")
        if action not in self.supported_actions():
            return HttpResponse(501, f"action {action} is not implemented".encode())
        try:
            await self.perform(action, json.loads(request.body or b"{}"))
        except Exception as error:
            return HttpResponse(500, f"{action} failed: {error!r}".encode())
        return HttpResponse(200, b"{}", {"Content-Type": "application/json"})

    # ------------------------------------------------------------------ waiting
    async def wait_served(self, predicate: Callable[[Served], bool], timeout: float, *,
                          start: int = 0) -> Served | None:
        """The first served request from ``start`` on matching ``predicate``; None after ``timeout``."""
        return await first_match(self.served, predicate, self._changed, timeout, start=start)
