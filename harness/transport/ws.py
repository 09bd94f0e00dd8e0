"""OCPP-J over WebSocket on ``websockets``' asyncio API: a server, a client, and the
connection object that feeds an ``RpcEndpoint`` and runs the application's handlers.

The upgrade's rules are the table ``Ws`` below (spec 002 Connection and Authentication; OCPP 2.0.1
part 4 §3, part 2 security profile 1). Both ends here keep them: the station's URL is the endpoint,
``/`` and its percent-encoded identity, read back as the percent-decoded last path segment; the
server refuses an unknown identity (404) and wrong Basic-auth credentials (401), picks the first of
its versions that the client offers, and offered none it completes the handshake without
Sec-WebSocket-Protocol and closes at once; compression is never negotiated (1.6 forbids its use; in
2.x it is optional, so a station that merely offers it breaks no rule).

Severity from the texts, the same in every version: 1.6 (spec 002 Connection 3) and 2.0.1/2.1 (part 4
§3.1.1) both word the refusal of an unknown identity as advice — the server SHOULD answer HTTP 404 and
abort — so a server that opens a connection for an identity it does not know is a finding
(``unknown_identity``), and so is another status than the one that names why (``refusal_status``).
Whether a server checks credentials is ``wrong_password``, a MUST. A 1.6 station that offers
compression breaks only a SHOULD (``compression``): the harness declines it, so compression is never
used.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import functools
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass
from http import HTTPStatus
from typing import Any, NoReturn
from urllib.parse import quote, unquote, urlsplit

from websockets.asyncio.client import connect as ws_connect
from websockets.asyncio.server import ServerConnection, serve
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidStatus
from websockets.proxy import get_proxy
from websockets.uri import WebSocketURI, parse_uri

from harness import clock
from harness.errors import HarnessError, LimitExceeded, NoConnection, PeerViolation
from harness.ocpp.answers import judge_error, result_of
from harness.ocpp.framing import Call, CallError, FrameError
from harness.ocpp.rpc import (
    REMEMBERED, CallReceived, CallTimedOut, ErrorReceived, RawReplyReceived, ResultErrorReceived,
    ResultReceived, Rpc, RpcEndpoint, SendReceived, Violation,
)
from harness.ocpp.versions import OcppVersion
from harness.rules import RuleTable, must, should
from harness.transport.ledger import Ledger, Violations
from harness.transport.tls import TlsEnd, offered, subject_problem, tls_failure
from harness.transport.waiting import first_match
from harness.variance import Variance
from harness.wire import REDACTOR, WireLog


class Ws(RuleTable, namespace="ws"):
    """The WebSocket upgrade of an OCPP-J connection, in every version."""
    identity = must("spec 002 Connection 1; OCPP 2.0.1 part 4 §3.1.1",
                    "the station's URL is the CSMS endpoint, a slash and its percent-encoded identity", by="cs")
    known_station = must("spec 002 Connection 1-2 and Authentication 3; OCPP 2.0.1 part 4 §3.1, part 2 A00",
                         "the server upgrades a station it is configured for that presents its credentials", by="csms")
    unknown_identity = should("spec 002 Connection 3 and Errors (handshake errors); OCPP 2.0.1 part 4 §3.1.1",
                              "the server refuses an identity it does not know and opens no connection for it",
                              by="csms")
    refusal_status = should("spec 002 Connection 3; OCPP 2.0.1 part 4 §3.1.1; RFC 7235 §3.1",
                            "a refused upgrade gets the HTTP status that names why: 404 for an unknown identity, "
                            "401 for wrong credentials", by="csms")
    subprotocol_offered = must("spec 002 Connection 4 and Versioning 2; OCPP 2.0.1 part 4 §3.1.2",
                               "the client offers the version's subprotocol in Sec-WebSocket-Protocol", by="cs")
    subprotocol_picked = must("spec 002 Connection 4 and Versioning 2; OCPP 2.0.1 part 4 §3.1.2",
                              "the server picks an offered subprotocol it speaks and names it in its answer", by="csms")
    no_subprotocol = must("spec 002 Connection 4; OCPP 2.0.1 part 4 §3.1.2",
                          "offered no acceptable subprotocol, the server completes the handshake without "
                          "Sec-WebSocket-Protocol and closes the connection at once", by="csms")
    basic_auth = must("spec 002 Authentication 3; OCPP 2.0.1 part 2 A00 (security profile 1)",
                      "the station's upgrade carries HTTP Basic auth: username its identity, password the "
                      "configured one", by="cs")
    wrong_password = must("spec 002 Authentication 3-4; OCPP 2.0.1 part 2 A00 (security profile 1); "
                          "facts ocpp-j.md", "the server refuses an upgrade with a wrong Basic-auth password",
                          by="csms")
    compression = should("spec 002 Connection 5", "a 1.6 station does not offer WebSocket compression, which "
                         "1.6 forbids", by="cs")


HANDSHAKE_TIMEOUT = 10.0   # seconds for an opening or closing handshake where no profile gives [timeouts] connect
MAX_FRAME = 2 ** 20   # bytes of one incoming message; a larger one closes the link with 1009 (websockets' default)
# Memory stays bounded however long a connection or a server lives: a connection keeps its newest
# exchanges (and remembers as many of the peer's CALL ids); a server its newest upgrade requests and
# refusals, and only its open connections. Far above what one test exchanges.
HISTORY_KEPT = REMEMBERED
HANDSHAKES_KEPT = 1_000
VIOLATIONS_KEPT = 1_000   # a connection's newest violations: a flood breaks one rule for as long as it lasts


STRAYS_NAMED = 3   # answers to no CALL of ours that a NoAnswer names (see OcppConnection._note_instead)


class CallErrorReply(Exception):
    """Raised by a handler to answer a CALL with a CALLERROR."""

    def __init__(self, code: str, description: str = "", details: dict | None = None):
        super().__init__(f"{code}: {description}")
        self.code, self.description, self.details = code, description, details or {}


class CallFailed(Exception):
    """The peer answered our CALL with a CALLERROR (not by itself a violation)."""

    def __init__(self, call: Call, error: CallError):
        super().__init__(f"{call.action} answered with CALLERROR {error.code}: {error.description}")
        self.call, self.error = call, error


class NoAnswer(PeerViolation):
    """The peer did not answer a CALL within the call timeout."""


class ConnectionLost(PeerViolation):
    """The peer closed the connection (or let it drop) with a CALL of ours unanswered."""


Handler = Callable[[Call], Awaitable[dict[str, Any]]]
# the CALLs of the peer a connection leaves for the test to answer: by action, those whose payload the predicate
# picks (None: every one)
Held = dict[str, Callable[[dict[str, Any]], bool] | None]


def holds(held: Held, call: Call) -> bool:
    if call.action not in held:
        return False
    where = held[call.action]
    return where is None or where(call.payload)


@dataclass
class Exchange:
    """A CALL and what answered it, as seen on one connection."""
    call: Call
    incoming: bool                    # True: the peer sent the CALL
    response: dict[str, Any] | None = None   # raw: a test reads ``result``, which judges a CALLERROR
    error: CallError | None = None
    answered: bool = False
    version: OcppVersion | None = None        # the connection's, which decides what a CALLERROR means

    @property
    def result(self) -> dict[str, Any] | None:
        """The CALLRESULT payload, or the verdict on the CALLERROR that answered instead (``answers.result_of``):
        not applicable for a legal refusal of an optional message, failed for a required one."""
        return result_of(self.action, self.version, self.response, self.error, incoming=self.incoming)

    def judge_error(self) -> NoReturn:
        """The verdict on the CALLERROR that answered this CALL (``answers.judge_error``)."""
        return judge_error(self.action, self.version, self.error, incoming=self.incoming)

    @property
    def action(self) -> str:
        return self.call.action

    @property
    def request(self) -> dict[str, Any]:
        return self.call.payload


def identity_from_path(path: str) -> str:
    """Ws.identity: the percent-decoded last path segment."""
    return unquote(urlsplit(path).path.rstrip("/").rsplit("/", 1)[-1])


def basic_auth_header(identity: str, password: str | bytes) -> str:
    raw = password if isinstance(password, bytes) else password.encode()
    return "Basic " + base64.b64encode(identity.encode() + b":" + raw).decode()


def parse_basic_auth(header: str | None) -> tuple[str, bytes] | None:
    if not header or not header.lower().startswith("basic "):
        return None
    try:
        decoded = base64.b64decode(header[6:].strip(), validate=True)
    except (binascii.Error, ValueError):
        return None
    user, sep, password = decoded.partition(b":")
    return (user.decode(errors="replace"), password) if sep else None


class OcppConnection:
    """One live OCPP-J connection: the socket, its RpcEndpoint, its history and handlers.

    ``history`` holds the newest ``kept`` exchanges, numbered for ever (a ``Ledger``: ``len()`` is a mark);
    ``violations`` the newest ``VIOLATIONS_KEPT`` of the peer's, and how many older ones it let go.
    """

    def __init__(self, ws, version: OcppVersion, *, identity: str, handler: Handler | None,
                 call_timeout: float, wirelog: WireLog | None, name: str | None = None, kept: int = HISTORY_KEPT,
                 variance: Variance | None = None):
        self.ws = ws
        self.version = version
        self.identity = identity
        self.handler = handler
        self.endpoint = RpcEndpoint(version, call_timeout=call_timeout, remember=kept, variance=variance)
        self.variance = variance   # a stand-in's legal variance: it may answer late
        self.wirelog = wirelog
        self.name = name or identity
        self.history: Ledger[Exchange] = Ledger(kept)
        self._awaiting: dict[str, Exchange] = {}   # our CALLs not answered yet, by id
        self.violations = Violations(VIOLATIONS_KEPT)
        self.harness_errors: list[BaseException] = []
        self.held: Held = {}
        # told of each CALL of the peer as this end answers it (a server shares one list with all its connections)
        self.on_answered: list[Callable[[Exchange], None]] = []
        self._waiters: dict[str, asyncio.Future] = {}
        self._raw_waiters: dict[str, asyncio.Future] = {}
        self._changed: asyncio.Event | None = None   # made by the first waiter (an Event is 0.9 KB a link)
        self._expiry: asyncio.TimerHandle | None = None   # at the next deadline of ours (see _expire)
        self._tasks: set[asyncio.Task] = set()
        self._closing = False                     # close() was called: an end from here on is ours
        self._end: tuple[str, str] | None = None  # (who ended the link: peer, limit, harness; how), once ended
        self._strays: list[str] = []              # answers to no CALL of ours while ours in flight waits
        self._garbage = 0                         # frames that are not OCPP-J, meanwhile
        self._reader = asyncio.create_task(self._read(), name=f"ocpp-reader-{self.name}")
        if wirelog is not None:
            wirelog.connections.append(self)

    # ---------------------------------------------------------------- sending
    async def call(self, action: str, payload: dict[str, Any], *, validate: bool | None = None) -> dict[str, Any]:
        """Send a CALL (queued behind ours in flight) and return the CALLRESULT payload.

        Raises CallFailed on a CALLERROR, NoAnswer when the peer stays silent, and the
        peer's violation when its answer breaks the schema.
        """
        exchange = await self.call_exchange(action, payload, validate=validate)
        if exchange.error is not None:
            raise CallFailed(exchange.call, exchange.error)
        return exchange.response

    async def call_exchange(self, action: str, payload: dict[str, Any], *, validate: bool | None = None) -> Exchange:
        if self.closed:   # nothing would ever answer: fail at once, blaming whoever ended the link
            raise self._ended_error(action, sent=False)
        call = self.endpoint.call(action, payload, clock.now(), validate=validate)
        exchange = Exchange(call, incoming=False, version=self.version)
        self.history.append(exchange)
        self._awaiting[call.id] = exchange
        future = asyncio.get_running_loop().create_future()
        self._waiters[call.id] = future
        self._schedule_expiry()
        await self._flush()
        result = await future
        if isinstance(result, BaseException):
            raise result
        return exchange

    async def send_raw(self, text: str, *, reply_id: str | None = None, timeout: float | None = None):
        """Send any text as is (a deliberately malformed frame); return the reply frame or None."""
        if self.closed:
            return None
        future = None
        if reply_id is not None:
            future = asyncio.get_running_loop().create_future()
            self._raw_waiters[reply_id] = future
        self.endpoint.send_raw(text, clock.now(), reply_id=reply_id)
        self._schedule_expiry()
        await self._flush()
        if future is None:
            return None
        try:
            return await asyncio.wait_for(future, timeout or self.endpoint.call_timeout)
        except TimeoutError:
            return None
        finally:
            self._raw_waiters.pop(reply_id, None)

    def answer(self, exchange: Exchange, payload: dict[str, Any] | None = None, *,
               error: CallErrorReply | None = None, validate: bool | None = None) -> None:
        """Answer a held CALL by hand (see ``held``)."""
        if error is not None:
            self.endpoint.answer_error(exchange.call, error.code, error.description, error.details)
            exchange.error = CallError(exchange.call.id, error.code, error.description, error.details)
        else:
            self.endpoint.answer(exchange.call, payload, validate=validate)
            exchange.response = payload
        exchange.answered = True
        for listener in self.on_answered:
            listener(exchange)
        self._spawn(self._flush())
        self._wake()

    async def release(self, exchange: Exchange) -> None:
        """Answer a held CALL as the handler would have answered it."""
        await self._handle(exchange)

    # ---------------------------------------------------------------- waiting
    async def wait_for(self, predicate: Callable[[Exchange], bool], timeout: float, *,
                       answered: bool = True, start: int = 0) -> Exchange | None:
        """The first exchange from ``start`` on matching ``predicate``; None after ``timeout``."""
        return await first_match(self.history, lambda e: predicate(e) and (e.answered or not answered),
                                 self._changes(), timeout, start=start, hopeless=lambda: self.closed)

    def _changes(self) -> asyncio.Event:
        if self._changed is None:
            self._changed = asyncio.Event()
        return self._changed

    def _wake(self) -> None:
        if self._changed is not None:
            self._changed.set()

    async def wait_for_call(self, action: str, timeout: float, *, answered: bool = True,
                            start: int = 0, where: Callable[[dict], bool] | None = None) -> Exchange | None:
        return await self.wait_for(
            lambda e: e.incoming and e.action == action and (where is None or where(e.request)),
            timeout, answered=answered, start=start)

    @property
    def closed(self) -> bool:
        return self._reader.done()

    @property
    def ended(self) -> tuple[str, str] | None:
        """Once the link ended: who ended it ("peer", "limit" or "harness") and how; None while it is open."""
        return self._end if self.closed else None

    @property
    def tls_version(self) -> str | None:
        """The TLS version the connection speaks ("TLSv1.2", "TLSv1.3"); None over plain ws."""
        tls = self.ws.transport.get_extra_info("ssl_object") if self.ws.transport else None
        return tls.version() if tls is not None else None

    def peer_certificate(self) -> bytes | None:
        """The certificate the peer presented (DER); None over plain ws or when it presented none."""
        tls = self.ws.transport.get_extra_info("ssl_object") if self.ws.transport else None
        return tls.getpeercert(binary_form=True) if tls is not None else None

    def offered_suites(self) -> frozenset[str] | None:
        """The mandatory TLS 1.2 cipher suites (``tls.MANDATORY``) the peer offered, read on the server's end of
        its handshake; None over plain ws."""
        return offered(self.ws.transport.get_extra_info("ssl_object") if self.ws.transport else None)

    @property
    def reader(self) -> asyncio.Task:
        """Done when the link has ended (its reader's task: wait on it, never cancel it)."""
        return self._reader

    async def wait_closed(self, timeout: float) -> bool:
        try:
            await asyncio.wait_for(asyncio.shield(self._reader), timeout)
        except TimeoutError:
            return False
        return True

    async def close(self, code: int = 1000) -> None:
        self._closing = True
        try:
            await asyncio.wait_for(self.ws.close(code), HANDSHAKE_TIMEOUT)
        except (TimeoutError, ConnectionClosed):
            pass
        self._reader.cancel()
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(self._reader, *self._tasks, return_exceptions=True)

    # ---------------------------------------------------------------- internals
    def _spawn(self, coro) -> None:
        task = asyncio.create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _flush(self) -> None:
        for text in self.endpoint.outbox():
            if self.wirelog is not None:
                self.wirelog.sent(self.name, text)
            try:   # encoded here: the library would drop the link on a failure and the peer be blamed for it
                data = text.encode()
            except UnicodeEncodeError as bug:
                self._give_up(f"the harness could not encode its own frame as UTF-8 ({bug})", bug)
                return
            try:
                await self.ws.send(data, text=True)
            except ConnectionClosed:
                return

    def _give_up(self, how: str, bug: BaseException) -> None:
        """A failure of ours ends the link, and every wait on it as the harness's error, never the peer's."""
        self.harness_errors.append(bug)
        self._end, self._closing = self._end or ("harness", how), True
        if self.wirelog is not None:
            self.wirelog.event(self.name, how)
        self._spawn(self.ws.close(1011))

    async def _read(self) -> None:
        try:
            while True:
                text = await self.ws.recv()
                if self.wirelog is not None:
                    self.wirelog.received(self.name, text if isinstance(text, str) else repr(text))
                self._dispatch(self.endpoint.receive(text, clock.now()))
                self._schedule_expiry()   # an answer may have let the next CALL go, with a new deadline
                await self._flush()
        except ConnectionClosed as closed:
            if self._end is None:
                self._end = self._who_closed(closed)
                if self.wirelog is not None:
                    self.wirelog.event(self.name, self._end[1])
        except Exception as bug:   # our core failed on what the peer sent: the link is of no more use
            self.harness_errors.append(bug)
            self._end = ("harness", f"the harness's reader failed: {bug!r}")
            if self.wirelog is not None:
                self.wirelog.event(self.name, self._end[1])
            self._spawn(self.ws.close(1011))
        finally:
            if self._end is None:
                self._end = ("harness", "the harness closed the connection")
            if self._expiry is not None:
                self._expiry.cancel()
            for call_id, future in list(self._waiters.items()):
                exchange = self._awaiting.get(call_id)
                if not future.done():
                    future.set_result(self._ended_error(exchange.action if exchange else "a CALL", sent=True))
            for future in self._raw_waiters.values():
                if not future.done():
                    future.set_result(None)
            self._wake()

    def _who_closed(self, closed: ConnectionClosed) -> tuple[str, str]:
        if closed.sent is not None and closed.sent.code == 1009 and not self._closing:
            return ("limit", f"the peer sent a message larger than the harness's limit of {MAX_FRAME} bytes "
                             f"(the harness closed the connection with 1009)")
        if self._closing:
            return ("harness", "the harness closed the connection")
        if closed.rcvd is not None:
            reason = f" {closed.rcvd.reason}" if closed.rcvd.reason else ""
            return ("peer", f"the peer closed the connection ({closed.rcvd.code}{reason})")
        return ("peer", "the connection dropped without a close frame from the peer")

    def _ended_error(self, action: str, *, sent: bool) -> BaseException:
        """Why a CALL of ours gets no answer on a link that ended, with the blame in its type: the peer
        ended it (failed, ``Rpc.answered``), it went past a limit of ours, or the harness ended it (broken)."""
        who, how = self._end or ("harness", "the connection is closed")
        what = f"{how} before answering {action}" if sent else f"{how}; {action} could not be sent"
        if who == "peer":
            return ConnectionLost(Rpc.answered, what, expected="a CALLRESULT or CALLERROR", actual=how,
                                  protocol=self.version.value)
        return (LimitExceeded if who == "limit" else HarnessError)(f"{self.name}: {what}")

    def _schedule_expiry(self) -> None:
        """A timer at the endpoint's next deadline: a timer, not a task per connection, so that an idle
        connection costs no task (a server holds thousands)."""
        if self._expiry is not None:
            self._expiry.cancel()
            self._expiry = None
        deadline = self.endpoint.next_deadline()
        if deadline is not None and not self.closed:
            self._expiry = asyncio.get_running_loop().call_later(max(0.0, deadline - clock.now()), self._expire)

    def _expire(self) -> None:
        """Expire CALLs at their deadline, however quiet the peer is (Rpc.queue: timed out, the next goes)."""
        self._expiry = None
        self._dispatch(self.endpoint.poll(clock.now()))
        self._spawn(self._flush())
        self._schedule_expiry()

    def _dispatch(self, events) -> None:
        for event in events:
            if isinstance(event, CallReceived):
                exchange = Exchange(event.call, incoming=True, version=self.version)
                self.history.append(exchange)
                if self.handler is not None and not holds(self.held, event.call):
                    self._spawn(self._handle(exchange))
            elif isinstance(event, (ResultReceived, ErrorReceived)):
                self._strays, self._garbage = [], 0
                exchange = self._awaiting.pop(event.call.id)
                exchange.answered = True
                if isinstance(event, ResultReceived):
                    exchange.response = event.result.payload
                else:
                    exchange.error = event.error
                for violation in event.violations:
                    self.violations.append(violation)
                self._resolve(event.call.id, event.violations[0] if event.violations else None)
            elif isinstance(event, CallTimedOut):
                self._awaiting.pop(event.call.id, None)
                instead = self._sent_instead()
                self._resolve(event.call.id, NoAnswer(
                    Rpc.answered, f"no answer to {event.call.action} within {self.endpoint.call_timeout:g} s"
                    + ("" if instead == "silence" else f"; the peer sent instead {instead}"),
                    expected="a CALLRESULT or CALLERROR", actual=instead, protocol=self.version.value))
            elif isinstance(event, RawReplyReceived):
                future = self._raw_waiters.get(event.reply_id)
                if future and not future.done():
                    future.set_result(event.frame)
            elif isinstance(event, Violation):
                self.violations.append(event.error)
                self._note_instead(event.error)
            elif isinstance(event, (SendReceived, ResultErrorReceived)):
                if self.wirelog is not None:
                    self.wirelog.event(self.name, type(event).__name__)
        self._wake()

    def _note_instead(self, error: PeerViolation) -> None:
        """What the peer sent that is no answer, while a CALL of ours waits for one (for NoAnswer's reason)."""
        if self.endpoint.in_flight is None:
            return
        if isinstance(error, FrameError):
            self._garbage += 1
        elif error.rule in (Rpc.matches, Rpc.late) and len(self._strays) < STRAYS_NAMED:
            self._strays.append(f"an answer with message id {error.actual!r} (ours was {error.expected!r})")

    def _sent_instead(self) -> str:
        """'silence', or what came instead of the answer: wrong message ids, frames that are not OCPP-J."""
        garbage, strays = self._garbage, self._strays
        self._strays, self._garbage = [], 0
        parts = strays + ([f"{garbage} frame{'s that are' if garbage > 1 else ' that is'} not OCPP-J"]
                          if garbage else [])
        return "; ".join(parts) or "silence"

    def _resolve(self, call_id: str, outcome: BaseException | None) -> None:
        future = self._waiters.pop(call_id, None)
        if future is not None and not future.done():
            future.set_result(outcome)

    async def _handle(self, exchange: Exchange) -> None:
        if self.variance is not None:
            await asyncio.sleep(self.variance.answer_delay(self.endpoint.call_timeout))
        try:
            payload = await self.handler(exchange.call)
        except CallErrorReply as reply:
            self.answer(exchange, error=reply)
            return
        except Exception as bug:  # our own handler failed: the verdict must be broken
            self.harness_errors.append(bug)
            self.answer(exchange, error=CallErrorReply("InternalError", "harness handler failed"))
            return
        try:
            self.answer(exchange, payload)
        except HarnessError as bug:  # our answer breaks its schema: broken, and the peer still gets one
            self.harness_errors.append(bug)
            self.answer(exchange, error=CallErrorReply("InternalError", "harness answer invalid"))


# ====================================================================== server
@dataclass(frozen=True)
class HandshakeSeen:
    """What a station sent in its upgrade request, as the server saw it."""
    identity: str
    subprotocols: tuple[str, ...]       # Sec-WebSocket-Protocol header values, as sent
    username: str | None                # Basic auth username, None without Basic auth
    password_ok: bool | None            # None when not checked
    extensions: str | None              # Sec-WebSocket-Extensions, as sent
    path: str = ""                      # the request's path (its last segment is the identity)


AcceptIdentity = Callable[[str], bool]
CheckPassword = Callable[[str, bytes], bool]
OnConnect = Callable[[OcppConnection], Awaitable[None]]


def security_profile_of(connection: ServerConnection) -> int:
    """The security profile a station connects at: 1 over ws, 3 over TLS with a client certificate, else 2."""
    tls = connection.transport.get_extra_info("ssl_object") if connection.transport else None
    if tls is None:
        return 1
    return 3 if tls.getpeercert(binary_form=True) else 2


class OcppServer:
    """The CSMS side's listener: the upgrade (table ``Ws``), then one OcppConnection per accepted station.

    ``connections`` holds the open connections, numbered in the order they opened (``len()`` counts
    every one ever accepted, the mark ``wait_connection(after=...)`` takes); a closed one is dropped, and
    what must outlive it is told to ``on_answered`` as it happens.
    ``handshakes`` and ``refused`` hold the newest ``HANDSHAKES_KEPT``, oldest first.
    """

    def __init__(self, *, versions: Sequence[OcppVersion],
                 on_connect: Callable[[str, OcppVersion], tuple[Handler, OnConnect | None]],
                 accept_identity: AcceptIdentity | None = None, check_password: CheckPassword | None = None,
                 call_timeout: float = 30.0, wirelog: WireLog | None = None, history_kept: int = HISTORY_KEPT,
                 tls: TlsEnd | None = None, open_timeout: float = HANDSHAKE_TIMEOUT):
        self.versions = list(versions)
        self.open_timeout = open_timeout   # a client's TLS and upgrade must complete within it
        self.variance: Variance | None = None   # a stand-in's legal variance, on every connection it accepts
        self.tls = tls   # serve wss (security profiles 2 and 3); None: ws
        self.tls_context = None
        self.on_connect = on_connect
        self.accept_identity = accept_identity
        self.check_password = check_password
        # told (identity, security profile) of each upgrade past the password check; False refuses it (A05)
        self.accept_profile: Callable[[str, int], bool] | None = None
        self.call_timeout = call_timeout
        self.wirelog = wirelog
        self.history_kept = history_kept
        self.connections: Ledger[OcppConnection] = Ledger()
        self.hold: Held = {}   # the CALLs new connections leave for the test to answer
        # told of each CALL a station sends, as it is answered, on every connection, open or closed since
        self.on_answered: list[Callable[[Exchange], None]] = []
        self.refused: Ledger[tuple[str, int]] = Ledger(HANDSHAKES_KEPT)
        self.handshakes: Ledger[HandshakeSeen] = Ledger(HANDSHAKES_KEPT)
        self._server = None
        self._beside = None   # a second listener, over wss (serve_tls_beside)
        self.beside_context = None
        self._connected = asyncio.Event()

    async def start(self, host: str = "127.0.0.1", port: int = 0) -> "OcppServer":
        self.tls_context = self.tls.server_context() if self.tls is not None else None
        if self.tls_context is not None and self.wirelog is not None:
            self.tls_context.on_refusal = lambda why: self.wirelog.event("tls", f"TLS handshake refused: {why}")
        self._server = await self._listen(host, port, self.tls_context)
        return self

    async def _listen(self, host: str, port: int, context):
        return await serve(self._serve, host, port, process_request=self._process_request, ssl=context,
                           select_subprotocol=self._select_subprotocol, compression=None,
                           open_timeout=self.open_timeout, ping_interval=None, max_size=MAX_FRAME)

    async def serve_tls_beside(self, tls: TlsEnd, host: str = "127.0.0.1") -> int:
        """Also serve wss with ``tls`` on a port of its own, beside the listener ``start`` opened (a station
        moving to a network profile of a higher security profile finds both); the connections of both are
        counted alike. Returns the port."""
        self.beside_context = tls.server_context()
        if self.wirelog is not None:
            self.beside_context.on_refusal = lambda why: self.wirelog.event("tls", f"TLS handshake refused: {why}")
        self._beside = await self._listen(host, 0, self.beside_context)
        return self._beside.sockets[0].getsockname()[1]

    @property
    def port(self) -> int:
        return self._server.sockets[0].getsockname()[1]

    @property
    def url(self) -> str:
        return f"{'ws' if self.tls is None else 'wss'}://127.0.0.1:{self.port}/ocpp"

    def tls_refusals(self) -> list[str]:
        """Why the TLS handshakes this server refused failed, oldest first (see ``tls.RecordingContext``), on
        both its listeners."""
        return [*getattr(self.tls_context, "refusals", ()), *getattr(self.beside_context, "refusals", ())]

    def tls_completed(self) -> int:
        """How many TLS handshakes with this server completed (the client took its certificate), on both its
        listeners."""
        return getattr(self.tls_context, "completed", 0) + getattr(self.beside_context, "completed", 0)

    async def wait_connection(self, timeout: float, *, identity: str | None = None, after: int = 0) -> OcppConnection | None:
        return await first_match(self.connections, lambda c: identity is None or c.identity == identity,
                                 self._connected, timeout, start=after)

    async def stop(self) -> None:
        for connection in self.connections:
            await connection.close()
        for server in (self._server, self._beside):
            if server is not None:
                server.close()
                await server.wait_closed()

    def _refuse(self, connection: ServerConnection, identity: str, status: HTTPStatus, why: str):
        self.refused.append((identity, int(status)))
        if self.wirelog is not None:
            self.wirelog.event(identity, f"handshake refused: HTTP {int(status)} ({why})")
        response = connection.respond(status, why + "\n")
        if status == HTTPStatus.UNAUTHORIZED:
            response.headers["WWW-Authenticate"] = 'Basic realm="OCPP", charset="UTF-8"'
        return response

    def _process_request(self, connection: ServerConnection, request):
        identity = identity_from_path(request.path)
        credentials = parse_basic_auth(request.headers.get("Authorization"))
        self.handshakes.append(HandshakeSeen(
            identity, tuple(request.headers.get_all("Sec-WebSocket-Protocol")),
            credentials[0] if credentials else None,
            None if credentials is None or self.check_password is None else self.check_password(identity, credentials[1]),
            request.headers.get("Sec-WebSocket-Extensions"), request.path))
        if not identity or (self.accept_identity is not None and not self.accept_identity(identity)):
            return self._refuse(connection, identity, HTTPStatus.NOT_FOUND, "unknown charging station identity")
        if self.tls is not None and self.tls.subject is not None:   # security profile 3: whose certificate
            tls = connection.transport.get_extra_info("ssl_object")
            problem = subject_problem(tls.getpeercert(binary_form=True) if tls else None, *self.tls.subject)
            if problem is not None:
                return self._refuse(connection, identity, HTTPStatus.FORBIDDEN, problem)
        if self.check_password is not None:
            if credentials is None or credentials[0] != identity or not self.check_password(identity, credentials[1]):
                return self._refuse(connection, identity, HTTPStatus.UNAUTHORIZED, "wrong or missing Basic credentials")
        if self.accept_profile is not None and not self.accept_profile(identity, security_profile_of(connection)):
            return self._refuse(connection, identity, HTTPStatus.FORBIDDEN,
                                "a lower security profile than the station reached before")
        return None

    def _select_subprotocol(self, connection: ServerConnection, offered: Sequence[str]):
        for version in self.versions:
            if version.subprotocol in offered:
                return version.subprotocol
        return None  # Ws.no_subprotocol: the handshake completes without the header; _serve closes at once

    async def _serve(self, ws: ServerConnection) -> None:
        identity = identity_from_path(ws.request.path)
        if ws.subprotocol is None:
            if self.wirelog is not None:
                self.wirelog.event(identity, "no acceptable subprotocol offered: closing")
            await ws.close(1002, "no acceptable OCPP subprotocol")
            return
        version = OcppVersion.parse(ws.subprotocol)
        handler, after_connect = self.on_connect(identity, version)
        connection = OcppConnection(ws, version, identity=identity, handler=handler, call_timeout=self.call_timeout,
                                    wirelog=self.wirelog, kept=self.history_kept, variance=self.variance)
        connection.held |= self.hold
        connection.on_answered = self.on_answered
        position = self.connections.append(connection)
        self._connected.set()
        if self.wirelog is not None:
            self.wirelog.event(identity, f"station connected, subprotocol {ws.subprotocol}")
        if after_connect is not None:
            connection._spawn(after_connect(connection))
        try:
            await connection._reader
        finally:
            self.connections.forget(position)


# ====================================================================== client
@dataclass
class Handshake:
    """What a client learned from an upgrade attempt, whether or not it succeeded."""
    status: int | None               # HTTP status when refused, None when upgraded
    subprotocol: str | None
    connection: OcppConnection | None
    tls_refused: str | None = None   # the TLS handshake failed: why, as this end saw it


def station_url(base_url: str, identity: str) -> str:
    return base_url.rstrip("/") + "/" + quote(identity, safe="")


def _proxy_for(url: str) -> str | None:
    """The proxy websockets picks for ``url`` (its own ``get_proxy``, from the proxy environment), worked out once
    a process per scheme, host and port: websockets reads the whole environment again for every connect, a tenth
    of the embedded run's cost of opening a connection. None for a plain server of the running loop: that link
    is carried in memory (``harness.loopback``) and never leaves the process."""
    uri = parse_uri(url)
    if not uri.secure and clock.serves_here(uri.host, uri.port):
        return None
    return _proxy_of(uri.secure, uri.host, uri.port)


@functools.lru_cache(maxsize=64)
def _proxy_of(secure: bool, host: str, port: int) -> str | None:
    return get_proxy(WebSocketURI(secure, host, port, "/", ""))


async def open_station(base_url: str, identity: str, *, versions: Iterable[OcppVersion | str],
                       password: str | bytes | None = None, handler: Handler | None,
                       call_timeout: float = 30.0, wirelog: WireLog | None = None,
                       tls: TlsEnd | None = None, variance: Variance | None = None,
                       open_timeout: float = HANDSHAKE_TIMEOUT) -> Handshake:
    """The station side's connect (table ``Ws``), over wss with ``tls``, bounded by ``open_timeout`` seconds.
    Never raises for a refused handshake, at TLS or HTTP; raises NoConnection, in one line, when nothing
    answers at the address or the upgrade does not complete in time."""
    offered = [v.subprotocol if isinstance(v, OcppVersion) else v for v in versions]
    headers = {}
    if password is not None:
        REDACTOR.register(password, identity=identity)
        headers["Authorization"] = basic_auth_header(identity, password)
    url = station_url(base_url, identity)
    if wirelog is not None:
        wirelog.event(identity, f"connect {url} offering {offered}" + (" with Basic auth" if password is not None else ""))
    try:
        ws = await ws_connect(url, subprotocols=offered or None,   # none offered: no header at all, not an empty one
                              proxy=_proxy_for(url),
                              additional_headers=headers, compression=None, ssl=tls and tls.client_context(),
                              open_timeout=open_timeout, ping_interval=None, max_size=MAX_FRAME)
    except InvalidStatus as refused:
        if wirelog is not None:
            wirelog.event(identity, f"handshake refused: HTTP {refused.response.status_code}")
        return Handshake(refused.response.status_code, None, None)
    except (InvalidHandshake, OSError, TimeoutError) as error:
        if tls is not None and not isinstance(error, (ConnectionRefusedError, TimeoutError)):
            why = _tls_refusal(error)
            if wirelog is not None:
                wirelog.event(identity, f"TLS handshake failed: {why}")
            return Handshake(None, None, None, tls_refused=why)
        raise NoConnection(f"cannot open a WebSocket to {url}: {_unopened(error, open_timeout)}") from None
    if ws.subprotocol is None:
        if wirelog is not None:
            wirelog.event(identity, "handshake completed without a subprotocol")
        known = [v for v in OcppVersion if v.subprotocol in offered]
        connection = OcppConnection(ws, known[0] if known else OcppVersion.V201, identity=identity,
                                    handler=handler, call_timeout=call_timeout, wirelog=wirelog)
        return Handshake(None, None, connection)
    if wirelog is not None:
        wirelog.event(identity, f"connected, subprotocol {ws.subprotocol}")
    connection = OcppConnection(ws, OcppVersion.parse(ws.subprotocol), identity=identity, handler=handler,
                                call_timeout=call_timeout, wirelog=wirelog, variance=variance)
    return Handshake(None, ws.subprotocol, connection)


def _unopened(error: BaseException, open_timeout: float) -> str:
    """Why no WebSocket opened, in words and the setting that bounds it (no library traceback)."""
    if isinstance(error, TimeoutError):
        return (f"the connection and its upgrade did not complete within {open_timeout:g} s ([timeouts] connect "
                f"in the profile); check that a WebSocket server answers at this URL")
    if isinstance(error, ConnectionRefusedError):
        return "connection refused: nothing listens there"
    if isinstance(error, OSError) and error.strerror:
        return error.strerror
    return f"{type(error).__name__}: {error}"


def _tls_refusal(error: BaseException) -> str:
    """Why a wss connection failed before its upgrade: OpenSSL's reason when this end refused (a
    certificate it could not verify, and why), else how the server ended the TLS handshake (an alert
    closes the connection: a reset, or no HTTP answer after the handshake in TLS 1.3, whose server
    judges the client certificate after the client finished)."""
    verify = getattr(error, "verify_message", None) or next(
        (getattr(e, "verify_message", None) for e in (error.__cause__, error.__context__) if e is not None), None)
    reason = tls_failure(error)
    if reason is not None:
        return f"{reason} ({verify})" if verify else reason
    return f"the server ended the TLS connection ({type(error).__name__}: {error})".replace(": )", ")")
