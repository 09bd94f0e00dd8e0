"""HTTP for OCPI, both ways, on httpx (client), Starlette (app) and uvicorn (server).

- ``HttpClient`` sends one request with httpx and returns the ``HttpExchange``: what was sent and
  what came back, or why nothing came back (``NoAnswer``). Every request and response is written
  to the test's ``WireLog``, one line each, timestamped; secrets are masked when the log is read.
- ``asgi_app(handler)`` turns ``async handler(HttpRequest) -> HttpResponse`` into an ASGI app and
  writes what the app received and answered to the WireLog.
- ``Served`` is a request such an app answered, with what the app read from it (module, token);
- ``InProcessNetwork`` reaches such apps without sockets (``httpx.ASGITransport`` per host name);
  ``HttpServer`` serves one on a real port with uvicorn (port 0: the bound port is read back).

This module moves bytes and records them; which request to send and what an answer means is
decided by the callers (the protocol cores and the reference peer).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import importlib.util
import json
import socket
import ssl
import sys
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl, urljoin, urlsplit

import httpx
import uvicorn
from starlette.requests import Request
from starlette.responses import Response

from harness import clock
from harness.errors import HarnessError, LimitExceeded
from harness.ocpi.auth import PresentedToken
from harness.ocpi.headers import header_map
from harness.transport.tls import TlsEnd
from harness.wire import WireLog

# httpx's ASGI transport and httpcore ask for sniffio (is this trio?) at every request; where it is not installed
# each ask is a failed import that searches the whole path again (a quarter of an in-process OCPI request's CPU).
# Marked absent once, the same ImportError comes at once; installed, it is imported as before.
if "sniffio" not in sys.modules and importlib.util.find_spec("sniffio") is None:
    sys.modules["sniffio"] = None  # type: ignore[assignment]  # typeshed leaves out the None the import system honours

DEFAULT_TIMEOUT = 10.0
START_TIMEOUT = 10.0
STOP_TIMEOUT = 5.0
MAX_REDIRECTS = 3   # same-origin 307/308 answers followed in a row; the next one is returned as it is
MAX_BODY = 8 * 2 ** 20   # bytes of an answer's body the client reads; a longer one is refused (LimitExceeded)
_LOGGED_BODY = 4000   # characters of a body written to the wire log
_PLUMBING = frozenset({"accept", "accept-encoding", "connection", "user-agent", "host", "content-length"})

Pairs = tuple[tuple[str, str], ...]


class NoAnswer(HarnessError):
    """The request got no HTTP answer: refused, timed out, unknown host (``reason`` says which)."""

    def __init__(self, method: str, url: str, reason: str):
        super().__init__(f"{method} {url}: no HTTP answer ({reason})")
        self.reason = reason


@dataclass
class HttpExchange:
    """One request and its answer, as seen on the wire."""
    method: str
    url: str
    request_headers: Pairs
    request_body: bytes
    status: int
    response_headers: Pairs
    response_body: bytes
    at: float = field(default_factory=clock.wall)

    def request_header(self, name: str) -> str | None:
        return header_map(self.request_headers).get(name.lower())

    def header(self, name: str) -> str | None:
        """A response header (names compared ignoring case)."""
        return header_map(self.response_headers).get(name.lower())

    @property
    def path(self) -> str:
        return urlsplit(self.url).path

    @property
    def text(self) -> str:
        return self.response_body.decode("utf-8", "replace")

    def json(self):
        """The response body as JSON, or None when it is not JSON."""
        return _json_or_none(self.response_body)

    def request_json(self):
        """The request body as JSON, or None when it is empty or not JSON."""
        return _json_or_none(self.request_body)


@dataclass
class _Partial:
    """How far an answer got: its status once the headers came, the body bytes so far."""
    status: int | None = None
    received: int = 0


def _json_or_none(body: bytes):
    try:
        return json.loads(body or b"null")
    except (ValueError, RecursionError):
        return None


@dataclass
class Served:
    """A request an app served, how it answered, the module it addressed and the token it presented."""
    exchange: HttpExchange
    module: str | None
    presented: PresentedToken | None

    @property
    def method(self) -> str:
        return self.exchange.method

    @property
    def token(self) -> str | None:
        return self.presented.token if self.presented else None

    def body(self):
        return self.exchange.request_json()


@dataclass(frozen=True)
class HttpRequest:
    """A request as a served app sees it."""
    method: str
    url: str                 # as the client asked for it (scheme, host, path, query)
    headers: Pairs
    body: bytes

    @property
    def path(self) -> str:
        return urlsplit(self.url).path

    @property
    def query(self) -> Pairs:
        return tuple(parse_qsl(urlsplit(self.url).query, keep_blank_values=True))

    @functools.cached_property
    def by_name(self) -> dict[str, str]:
        """The headers by lower-case name, made once: a served request is read header by header."""
        return header_map(self.headers)

    def header(self, name: str) -> str | None:
        return self.by_name.get(name.lower())


@dataclass
class HttpResponse:
    status: int
    body: bytes = b""
    headers: dict[str, str] = field(default_factory=dict)


Handler = Callable[[HttpRequest], Awaitable[HttpResponse]]


# ---------------------------------------------------------------------------- wire log lines
def _one_line(body: bytes) -> str:
    text = body.decode("utf-8", "replace").replace("\r", "\\r").replace("\n", "\\n")
    return text if len(text) <= _LOGGED_BODY else text[:_LOGGED_BODY] + f"… ({len(text)} characters)"


def _headers_text(headers: Iterable[tuple[str, str]]) -> str:
    """``{name: value, ...}`` without the plumbing headers; the closing brace also ends a
    masked Authorization value (see wire.Redactor)."""
    return "{" + ", ".join(f"{name}: {value}" for name, value in headers if name.lower() not in _PLUMBING) + "}"


def request_line(method: str, url: str, headers: Iterable[tuple[str, str]], body: bytes) -> str:
    text = f"{method} {url} {_headers_text(headers)}"
    return text + (f" {_one_line(body)}" if body else "")


def response_line(status: int, headers: Iterable[tuple[str, str]], body: bytes) -> str:
    text = f"HTTP {status} {_headers_text(headers)}"
    return text + (f" {_one_line(body)}" if body else "")


# ---------------------------------------------------------------------------- client
def _same_origin_redirect(exchange: HttpExchange) -> str | None:
    """Where a 307 or 308 answer sends the request, when it stays on the scheme and host asked; else None."""
    location = exchange.header("Location")
    if exchange.status not in (307, 308) or not location:
        return None
    target = urljoin(exchange.url, location)
    here, there = urlsplit(exchange.url), urlsplit(target)
    return target if (here.scheme, here.netloc) == (there.scheme, there.netloc) and target != exchange.url else None


@functools.cache
def default_trust() -> ssl.SSLContext:
    """httpx's default trust (certifi's CA bundle), loaded once per process, not once per client
    (loading it is ~60 ms of CPU)."""
    return httpx.create_ssl_context()


class _NoCookies(httpx.Cookies):
    """A cookie jar that stays empty: no Set-Cookie is kept, so none is sent back."""

    def extract_cookies(self, response: httpx.Response) -> None:
        return None


class _CookielessClient(httpx.AsyncClient):
    """httpx's client keeping no cookies, for the in-process peers: OCPI uses none and no embedded peer sets one,
    so nothing on the wire changes, and httpx's reading of every answer for them (a urllib request and response
    made each time) was ~30 % of an in-process request's CPU (0.22 ms → 0.15 ms). Against a real SUT the client
    keeps them."""

    def __init__(self, **options: Any):
        super().__init__(**options)
        self._cookies = _NoCookies()


class HttpClient:
    """Sends requests and logs both directions: the request as sent (→), the answer as received (←)."""

    def __init__(self, *, transport: httpx.AsyncBaseTransport | None = None, wirelog: WireLog | None = None,
                 channel: str = "ocpi", timeout: float = DEFAULT_TIMEOUT, tls: TlsEnd | None = None):
        self.transport = transport
        self.tls = tls   # whom an https server's certificate must come from; None: the default trust store
        self.wirelog = wirelog
        self.channel = channel
        self.timeout = timeout
        self._client: httpx.AsyncClient | None = None

    def _http(self) -> httpx.AsyncClient:
        if self._client is None:
            if isinstance(self.transport, InProcessNetwork):   # no TLS in-process: no trust store to load
                self._client = _CookielessClient(transport=self.transport, timeout=self.timeout,
                                                 follow_redirects=False, trust_env=False)
            else:
                verify = default_trust() if self.tls is None else self.tls.client_context()
                self._client = httpx.AsyncClient(transport=self.transport, timeout=self.timeout, verify=verify,
                                                 follow_redirects=False, trust_env=False)
        return self._client

    async def request(self, method: str, url: str, *, headers: dict[str, str] | None = None,
                      body: bytes = b"", timeout: float | None = None) -> HttpExchange:
        """Send one request; NoAnswer when no HTTP answer came within the timeout. A 307 or 308 to the same
        scheme and host is followed with the same method, headers and body (RFC 9110 §15.4.8-9 let a
        client redirect these without changing the request), at most ``MAX_REDIRECTS`` times: a server
        may move a URL to the form it publishes (a trailing slash); the exchange returned is the last."""
        exchange = await self._request(method, url, headers=headers, body=body, timeout=timeout)
        for _ in range(MAX_REDIRECTS):
            target = _same_origin_redirect(exchange)
            if target is None:
                break
            self._log_event(f"{method} {exchange.url}: HTTP {exchange.status} to {target}, followed")
            exchange = await self._request(method, target, headers=headers, body=body, timeout=timeout)
        return exchange

    async def _request(self, method: str, url: str, *, headers: dict[str, str] | None,
                       body: bytes, timeout: float | None) -> HttpExchange:
        http = self._http()
        try:
            request = http.build_request(method, url, headers=headers or {}, content=body or None,
                                         timeout=timeout or self.timeout)
        except UnicodeEncodeError as error:   # e.g. a lone surrogate, legal in JSON, taken into a URL: ours to say
            raise HarnessError(f"{method} {url!r}: the harness cannot put this request on the wire ({error})") from None
        sent = tuple((k.decode("latin-1"), v.decode("latin-1")) for k, v in request.headers.raw
                     if k.decode("latin-1").lower() not in _PLUMBING)
        if self.wirelog is not None:
            self.wirelog.sent(self.channel, request_line(method, url, sent, body))
        limit = timeout or self.timeout
        partial = _Partial()
        try:   # the whole request is bounded, not each read: a body trickled for ever ends at the limit too
            async with asyncio.timeout(limit):   # in this task (no task per request: in-process order stays)
                response, content = await self._send(http, request, partial)
        except (TimeoutError, httpx.TimeoutException):
            reason = (f"HTTP {partial.status} began but its body did not end within {limit:g} s "
                      f"({partial.received} bytes came)" if partial.status is not None
                      else f"no answer within {limit:g} s")
            self._log_event(f"{method} {url}: {reason}")
            raise NoAnswer(method, url, reason) from None
        except LimitExceeded as too_long:
            self._log_event(str(too_long))
            raise
        except httpx.HTTPError as error:
            reason = f"{type(error).__name__}: {error}"
            self._log_event(f"{method} {url}: {reason}")
            raise NoAnswer(method, url, reason) from None
        received = tuple((k.decode("latin-1"), v.decode("latin-1")) for k, v in response.headers.raw)
        if self.wirelog is not None:
            self.wirelog.received(self.channel, response_line(response.status_code, received, content))
        return HttpExchange(method, url, sent, body, response.status_code, received, content)

    @staticmethod
    async def _send(http: httpx.AsyncClient, request: httpx.Request, partial: "_Partial") -> tuple[httpx.Response, bytes]:
        """The response and its body, read up to ``MAX_BODY`` bytes (``partial`` tells how far it got)."""
        response = await http.send(request, stream=True)
        partial.status = response.status_code
        chunks = []
        try:
            async for chunk in response.aiter_bytes():
                partial.received += len(chunk)
                if partial.received > MAX_BODY:
                    raise LimitExceeded(f"{request.method} {request.url}: the body of the HTTP {response.status_code} "
                                        f"answer passed the harness's limit of {MAX_BODY} bytes; the SUT sent more")
                chunks.append(chunk)
        finally:
            await response.aclose()
        return response, b"".join(chunks)

    def _log_event(self, text: str) -> None:
        if self.wirelog is not None:
            self.wirelog.event(self.channel, text)

    async def close(self) -> None:
        if self._client is not None:
            await self._client.aclose()
            self._client = None


# ---------------------------------------------------------------------------- served apps
def asgi_app(handler: Handler, *, wirelog: Callable[[], WireLog | None] = lambda: None,
             channel: str = "ocpi"):
    """An ASGI app calling ``handler``; what it received is logged ←, what it answered →."""

    async def app(scope, receive, send) -> None:
        if scope["type"] != "http":   # lifespan and websocket scopes are not served
            return
        starlette_request = Request(scope, receive)
        headers = tuple((k.decode("latin-1"), v.decode("latin-1")) for k, v in scope["headers"])
        body = bytearray()
        async for chunk in starlette_request.stream():   # read up to MAX_BODY bytes: a peer cannot fill our memory
            body += chunk
            if len(body) > MAX_BODY:
                log = wirelog()
                if log is not None:
                    log.event(channel, f"{scope['method']} {starlette_request.url}: request body over the harness's "
                                       f"limit of {MAX_BODY} bytes, answered 413")
                await Response(f"request body over {MAX_BODY} bytes".encode(), status_code=413)(scope, receive, send)
                return
        body = bytes(body)
        request = HttpRequest(scope["method"], str(starlette_request.url), headers, body)
        log = wirelog()
        if log is not None:
            log.received(channel, request_line(request.method, request.url, headers, body))
        answer = await handler(request)
        response = Response(answer.body, status_code=answer.status, headers=answer.headers)
        response.raw_headers = _names_as_given(response.raw_headers, answer.headers)
        if log is not None:
            log.sent(channel, response_line(answer.status, response.headers.items(), answer.body))
        await response(scope, receive, send)

    return app


def _names_as_given(raw: list[tuple[bytes, bytes]], given: dict[str, str]) -> list[tuple[bytes, bytes]]:
    """Starlette lower-cases header names; the handler's spelling goes on the wire instead (names are
    case-insensitive, RFC 9110 §5.1: how a peer spells them is its own)."""
    spelled = {name.lower().encode("latin-1"): name.encode("latin-1") for name in given}
    return [(spelled.get(name, name), value) for name, value in raw]


class InProcessNetwork(httpx.AsyncBaseTransport):
    """Host names served in-process by ASGI apps; any other host gets a connection error."""

    def __init__(self) -> None:
        self._hosts: dict[str, httpx.ASGITransport] = {}

    def add(self, name: str, app) -> str:
        """Serve ``app`` as ``http://<name>.invalid`` (RFC 6761: never a real host); its base URL."""
        host = f"{name}.invalid"
        if host in self._hosts:
            raise HarnessError(f"in-process host {host} is already taken")
        self._hosts[host] = httpx.ASGITransport(app=app)
        return f"http://{host}"

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        transport = self._hosts.get(request.url.host)
        if transport is None:
            raise httpx.ConnectError(f"no in-process host {request.url.host}", request=request)
        return await transport.handle_async_request(request)


class _Server(uvicorn.Server):
    """uvicorn without its signal handlers (the test process keeps its own), and without its fixed pauses at a
    stop: uvicorn looks whether to stop every 0.1 s, pauses 0.1 s after asking its connections to close and looks
    again every 0.1 s whether they did. On the real clock (a SUT of its own process) that was ~0.2 s a test, for the
    harness's OCPI peer that serves each test: most of a two-process OCPI run. Here a stop wakes the server at
    once, and it looks every 5 ms whether its connections closed (at most ``timeout_graceful_shutdown``)."""

    STEP = 0.005

    def capture_signals(self):
        return contextlib.nullcontext()

    def stop_now(self) -> None:
        self.should_exit = True
        if getattr(self, "_wake", None) is not None:
            self._wake.set()

    async def main_loop(self) -> None:
        self._wake = asyncio.Event()
        tick = 0
        while not await self.on_tick(tick):   # on_tick: the Date header once a second (every 10th), should_exit
            tick = (tick + 1) % 864000
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), 0.1)

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        for server in self.servers:
            server.close()
        for sock in sockets or []:
            sock.close()
        for connection in list(self.server_state.connections):
            connection.shutdown()   # an idle keep-alive connection closes now, a busy one after its response
        waited = 0.0
        while (self.server_state.connections or self.server_state.tasks) and not self.force_exit \
                and waited < self.config.timeout_graceful_shutdown:
            await asyncio.sleep(self.STEP)
            waited += self.STEP
        for task in self.server_state.tasks:
            task.cancel()
        for server in self.servers:
            await server.wait_closed()
        if not self.force_exit:
            await self.lifespan.shutdown()


class _Config(uvicorn.Config):
    """uvicorn's settings, serving https with a context of ours (``TlsEnd.server_context``) when given."""
    tls_context: ssl.SSLContext | None = None

    def load(self) -> None:
        super().load()
        if self.tls_context is not None:
            self.ssl = self.tls_context


class HttpServer:
    """An ASGI app on a real TCP port of ``host``; port 0 picks a free one (see ``port``); https with ``tls``."""

    def __init__(self, app, host: str = "127.0.0.1", port: int = 0, *, tls: TlsEnd | None = None):
        self.app, self.host, self.requested_port = app, host, port
        self.tls = tls
        self._socket: socket.socket | None = None
        self._port: int | None = None
        self._server: _Server | None = None
        self._task: asyncio.Task | None = None

    async def start(self, timeout: float = START_TIMEOUT) -> "HttpServer":
        family = socket.AF_INET6 if ":" in self.host else socket.AF_INET
        sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)   # asyncio sets TCP_NODELAY then
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((self.host, self.requested_port))
        except OSError as error:
            sock.close()
            raise HarnessError(f"cannot listen on {self.host}:{self.requested_port}: {error.strerror}; "
                               f"pick another --listen address") from None
        self._socket, self._port = sock, sock.getsockname()[1]
        config = _Config(self.app, log_level="warning", lifespan="off", access_log=False,
                         timeout_graceful_shutdown=2)
        config.tls_context = self.tls.server_context() if self.tls is not None else None
        self._server = _Server(config)
        self._task = asyncio.create_task(self._server.serve(sockets=[sock]), name=f"http-server-{self.port}")
        deadline = clock.now() + timeout
        while not self._server.started:
            if self._task.done() or clock.now() > deadline:
                await self.stop()
                raise HarnessError(f"the HTTP server on {self.host}:{self.port} did not start within {timeout:g} s")
            await asyncio.sleep(0.01)
        return self

    @property
    def port(self) -> int:
        if self._port is None:
            raise HarnessError("the HTTP server is not started")
        return self._port

    @property
    def url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{'http' if self.tls is None else 'https'}://{host}:{self.port}"

    async def stop(self, timeout: float = STOP_TIMEOUT) -> None:
        if self._server is None or self._task is None:
            return
        self._server.stop_now()
        try:
            await asyncio.wait_for(asyncio.shield(self._task), timeout)
        except (TimeoutError, asyncio.CancelledError):
            self._server.force_exit = True
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
        except BaseException:   # the server itself failed: nothing left to stop
            pass
        self._server = self._task = None
