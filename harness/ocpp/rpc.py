"""One end of an OCPP-J connection as a plain object: text in, events and text out.

The rules of the exchange are the table ``Rpc`` below (spec 002 Framing; OCPP 2.0.1 part 4 §4.1.1
and §4.2). The endpoint keeps them itself and reports the peer's breaks as ``Violation`` events
carrying the row (its level read in the connection's version):
- ``queue``: we never send a CALL while one of ours is unanswered and not timed out; later CALLs
  wait (answers and CALLERRORs to the peer go out at once);
- ``matches`` / ``late``: an answer is matched to our CALL by id; a CALLERROR with id "-1" (the framework
  error of a frame its receiver could not read) answers the oldest raw frame still awaiting a reply;
- ``schema``: every payload is checked against the official schema in both directions: an invalid
  payload of ours is a harness bug (HarnessError), an invalid one of the peer's is a violation,
  and an invalid peer CALL is answered with the version's code for the fault (``refused``);
- ``one_at_a_time``, ``unique_id``, ``known_action`` judge the peer's CALLs; ``ocpp.errors.known``
  the codes of its CALLERRORs.

Time is passed in (``now``, seconds on any monotonic clock); the object never sleeps. Its memory is
bounded however long the connection lives: ``unique_id`` is judged over the peer's last ``remember``
CALL ids (a conformance test sends far fewer on one connection).
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from harness.errors import HarnessError, PeerViolation
from harness.ocpp import schemas
from harness.ocpp.errors import ERROR_CODES, UNKNOWN_ACTION, Errors, canonical_code, is_known_code
from harness.ocpp.framing import (
    UNKNOWN_ID, Call, CallError, CallResult, CallResultError, Frame, FrameError, Send, parse, serialize,
)
from harness.ocpp.versions import OcppVersion
from harness.rules import SHOULD, Rule, RuleTable, must, should

if TYPE_CHECKING:
    from harness.variance import Variance


class Rpc(RuleTable, namespace="rpc"):
    """How the two ends of an OCPP-J connection exchange CALLs and their answers."""
    queue = must("spec 002 Framing 4; OCPP 2.0.1 part 4 §4.1.1",
                 "a CALL held back behind an unanswered one goes out once that one is answered or timed out")
    answered = must("spec 002 Framing 2; OCPP 2.0.1 part 4 §4.1.1",
                    "every CALL is answered, by a CALLRESULT or CALLERROR with its id, within the call timeout")
    matches = must("spec 002 Framing 2", "an answer carries the id of a CALL that awaits it")
    late = should("spec 002 Framing 4; OCPP 2.0.1 part 4 §4.1.1",
                  "an answer comes before its CALL timed out (a late one is dropped)")
    schema = must("spec 002 Resources and Messages; OCPP 2.0.1/2.1 JSON schemas (facts ocpp-j.md)",
                  "every payload conforms to the official JSON schema of its action in the version")
    refused = must("spec 002 Errors; OCPP 2.0.1 part 4 §4.2.3",
                   "a CALL the receiver cannot take (an unknown action, a payload that breaks its schema or "
                   "the frame) is answered with a CALLERROR")
    one_at_a_time = must("OCPP 2.0.1 part 4 §4.1.1 (SHALL); spec 002 Framing 4 (SHOULD in 1.6)",
                         "a side sends no new CALL before its earlier CALLs are answered or timed out",
                         levels={"ocpp1.6": SHOULD})
    unique_id = must("spec 002 Framing 2", "a sender's CALL ids are unique on the connection")
    known_action = must("spec 002 Operations by direction; OCPP 2.0.1 part 4 §4.2.3 (NotImplemented)",
                        "a CALL names an action of the negotiated version")


# ----------------------------------------------------------------------------- events
@dataclass
class CallReceived:
    """The peer asks something; the application answers with ``answer`` or ``answer_error``."""
    call: Call


@dataclass
class SendReceived:
    send: Send


@dataclass
class ResultReceived:
    call: Call
    result: CallResult
    violations: list[PeerViolation] = field(default_factory=list)


@dataclass
class ErrorReceived:
    call: Call
    error: CallError
    violations: list[PeerViolation] = field(default_factory=list)


@dataclass
class CallTimedOut:
    call: Call


@dataclass
class RawReplyReceived:
    """The answer to a frame the test sent with ``send_raw``: delivered as is, never judged."""
    reply_id: str
    frame: Frame


@dataclass
class ResultErrorReceived:
    """2.1: the peer says a CALLRESULT of ours was bad."""
    error: CallResultError


@dataclass
class Violation:
    """The peer broke a rule. Any reply the rule demands is already in the outbox."""
    error: PeerViolation
    text: str


Event = (CallReceived | SendReceived | ResultReceived | ErrorReceived | CallTimedOut
         | RawReplyReceived | ResultErrorReceived | Violation)


@dataclass
class _InFlight:
    call: Call
    deadline: float


class _Recent:
    """A set of the newest ``size`` members: older ones are forgotten."""

    def __init__(self, size: int):
        self.size = size
        self._members: dict[str, None] = {}

    def add(self, member: str) -> None:
        self._members[member] = None
        if len(self._members) > self.size:
            del self._members[next(iter(self._members))]

    def __contains__(self, member: object) -> bool:
        return member in self._members


REMEMBERED = 1_000   # CALL ids of the peer (and of ours that timed out) an endpoint remembers
DESCRIPTION_LENGTH = 255   # characters of a CALLERROR's ErrorDescription (OCPP 2.0.1 part 4 §4.2.3: string[0..255])


def described(text: str) -> str:
    """An ErrorDescription we send: ``text`` cut to ``DESCRIPTION_LENGTH`` (a schema fault's message quotes
    the value it judges, which may be the peer's whole 1 MiB array)."""
    return text if len(text) <= DESCRIPTION_LENGTH else text[:DESCRIPTION_LENGTH - 1] + "…"


class RpcEndpoint:
    """Frames for one connection, from one side's point of view."""

    def __init__(self, version: OcppVersion, *, call_timeout: float = 30.0, validate: bool = True,
                 remember: int = REMEMBERED, variance: Variance | None = None):
        self.version = version
        self.variance = variance   # a stand-in's legal variance (harness.variance): ids, values, JSON form
        self.call_timeout = call_timeout
        self.validate = validate
        self._outbox: list[str] = []
        self._queue: list[Call] = []   # one CALL at a time: a short list (an empty deque is 760 bytes)
        self._in_flight: _InFlight | None = None
        self._timed_out = _Recent(remember)
        self._raw_pending: dict[str, float] = {}
        self._peer_unanswered: dict[str, Call] = {}
        self._peer_ids = _Recent(remember)

    # ------------------------------------------------------------------ what we send
    def call(self, action: str, payload: dict[str, Any], now: float, *, validate: bool | None = None) -> Call:
        """Queue a CALL (Rpc.queue). ``validate=False`` lets a test send a schema-invalid payload."""
        payload = self._varied(action, "request", payload, validate)
        if validate if validate is not None else self.validate:
            self._check_ours(action, "request", payload)
        call = Call(self._new_id(), action, payload)
        self._queue.append(call)
        self._pump(now)
        return call

    def send_unconfirmed(self, action: str, payload: dict[str, Any]) -> Send:
        """2.1 SEND: goes out at once and is never answered."""
        if self.version is not OcppVersion.V21:
            raise HarnessError(f"SEND frames do not exist in {self.version.value}")
        self._check_ours(action, "request", payload)
        send = Send(self._new_id(), action, payload)
        self._outbox.append(self._text(send))
        return send

    def answer(self, call: Call, payload: dict[str, Any], *, validate: bool | None = None) -> None:
        payload = self._varied(call.action, "response", payload, validate)
        if validate if validate is not None else self.validate:
            self._check_ours(call.action, "response", payload)
        self._settle_peer_call(call.id)
        self._outbox.append(self._text(CallResult(call.id, payload)))

    def answer_error(self, call: Call, code: str, description: str = "", details: dict[str, Any] | None = None) -> None:
        if not is_known_code(self.version, code):
            raise HarnessError(f"{code} is not a CALLERROR code of {self.version.value}")
        self._settle_peer_call(call.id)
        self._outbox.append(self._text(CallError(call.id, code, described(description), details or {})))

    def send_raw(self, text: str, now: float, *, reply_id: str | None = None) -> None:
        """Send any text, bypassing every rule; a reply with ``reply_id`` comes back as RawReplyReceived."""
        if reply_id is not None:
            self._raw_pending[reply_id] = now + self.call_timeout
        self._outbox.append(text)

    def _new_id(self) -> str:
        return self.variance.message_id() if self.variance is not None else str(uuid.uuid4())

    def _varied(self, action: str, direction: schemas.Direction, payload: dict[str, Any],
                validate: bool | None) -> dict[str, Any]:
        """``payload`` as a stand-in under variance writes it (a payload meant to be invalid stays as it is)."""
        if self.variance is None or validate is False or action not in schemas.known_actions(self.version):
            return payload
        return self.variance.ocpp_payload(self.version, action, direction, payload)

    def _text(self, frame: Frame) -> str:
        if self.variance is None:
            return serialize(frame)
        if isinstance(frame, CallError):
            frame = self.variance.call_error(frame)
        return self.variance.frame_text(frame)

    def outbox(self) -> list[str]:
        """Frames to write to the socket, in order; drains the outbox."""
        frames, self._outbox = self._outbox, []
        return frames

    # ------------------------------------------------------------------ what we receive
    def receive(self, text: str | bytes, now: float) -> list[Event]:
        try:
            frame = parse(text, self.version)
        except FrameError as error:
            reply = self.frame_error_reply(error)
            if reply is not None:
                self._outbox.append(self._text(reply))
            return [Violation(error, _preview(text))]
        if frame.id in self._raw_pending and not isinstance(frame, (Call, Send)):
            del self._raw_pending[frame.id]
            return [RawReplyReceived(frame.id, frame)]
        if frame.id == UNKNOWN_ID and type(frame) is CallError and self._raw_pending:
            reply_id = next(iter(self._raw_pending))
            del self._raw_pending[reply_id]
            return [RawReplyReceived(reply_id, frame)]
        if isinstance(frame, Call):
            return self._receive_call(frame, text)
        if isinstance(frame, Send):
            return self._receive_send(frame, text)
        if isinstance(frame, CallResultError):
            return [ResultErrorReceived(frame)]
        return self._receive_answer(frame, text, now)

    def poll(self, now: float) -> list[Event]:
        """Expire our CALL if its time is up, and let the next one go (Rpc.queue)."""
        events: list[Event] = []
        if self._in_flight and now >= self._in_flight.deadline:
            call = self._in_flight.call
            self._timed_out.add(call.id)
            self._in_flight = None
            events.append(CallTimedOut(call))
            self._pump(now)
        for reply_id, deadline in list(self._raw_pending.items()):
            if now >= deadline:
                del self._raw_pending[reply_id]
        return events

    def next_deadline(self) -> float | None:
        deadlines = list(self._raw_pending.values())
        if self._in_flight:
            deadlines.append(self._in_flight.deadline)
        return min(deadlines, default=None)

    @property
    def in_flight(self) -> Call | None:
        return self._in_flight.call if self._in_flight else None

    @property
    def queued(self) -> tuple[Call, ...]:
        return tuple(self._queue)

    @property
    def unanswered_peer_calls(self) -> tuple[Call, ...]:
        return tuple(self._peer_unanswered.values())

    def frame_error_reply(self, error: FrameError) -> CallError | None:
        """The CALLERROR we answer a broken frame with (None: the rules say nothing is answered)."""
        return error.reply

    def payload_error_code(self, problems: list[schemas.SchemaViolation]) -> str:
        """The CALLERROR code we answer a schema-invalid CALL with."""
        return schemas.error_code(self.version, problems)

    # ------------------------------------------------------------------ internals
    def _pump(self, now: float) -> None:
        if self._in_flight is None and self._queue:
            call = self._queue.pop(0)
            self._in_flight = _InFlight(call, now + self.call_timeout)
            self._outbox.append(self._text(call))

    def _check_ours(self, action: str, direction: schemas.Direction, payload: Any) -> None:
        try:
            problems = schemas.validate(self.version, action, direction, payload)
        except KeyError:
            raise HarnessError(f"{action} is not an action of {self.version.value}") from None
        if problems:
            raise HarnessError(f"our own {action} {direction} breaks its schema: {problems[0]}")

    def _settle_peer_call(self, call_id: str) -> None:
        if self._peer_unanswered.pop(call_id, None) is None:
            raise HarnessError(f"no unanswered CALL {call_id!r} from the peer to answer")

    def _violation(self, rule: Rule, message: str, *, expected: Any = None, actual: Any = None) -> PeerViolation:
        """The peer broke ``rule``: strict or not as the row says in this connection's version."""
        return PeerViolation(rule, message, expected=expected, actual=actual, protocol=self.version.value)

    def _receive_call(self, call: Call, text: str | bytes) -> list[Event]:
        events: list[Event] = []
        if call.id in self._peer_ids:
            events.append(Violation(self._violation(
                Rpc.unique_id, "the peer reused a CALL id on this connection", actual=call.id), _preview(text)))
        self._peer_ids.add(call.id)
        if self._peer_unanswered:
            earlier = next(iter(self._peer_unanswered.values()))
            events.append(Violation(self._violation(
                Rpc.one_at_a_time, f"the peer sent CALL {call.action} before its CALL {earlier.action} was answered",
                expected="one CALL at a time", actual=f"{earlier.action} then {call.action}"), _preview(text)))
        if call.action not in schemas.known_actions(self.version):
            code = canonical_code(self.version, UNKNOWN_ACTION)
            self._outbox.append(self._text(CallError(call.id, code, described(f"unknown action {call.action}"), {})))
            events.append(Violation(self._violation(
                Rpc.known_action, f"{call.action} is not an action of {self.version.value}", actual=call.action),
                _preview(text)))
            return events
        if self.validate:
            problems = schemas.validate(self.version, call.action, "request", call.payload)
            if problems:
                code = self.payload_error_code(problems)
                self._outbox.append(self._text(CallError(call.id, code, described(str(problems[0])), {})))
                events.append(Violation(self._violation(
                    Rpc.schema, f"{call.action} request breaks its schema: {problems[0]}",
                    actual=call.payload), _preview(text)))
                return events
        self._peer_unanswered[call.id] = call
        events.append(CallReceived(call))
        return events

    def _receive_send(self, send: Send, text: str | bytes) -> list[Event]:
        if self.validate and send.action in schemas.known_actions(self.version):
            problems = schemas.validate(self.version, send.action, "request", send.payload)
            if problems:
                return [Violation(self._violation(Rpc.schema, f"{send.action} SEND breaks its schema: {problems[0]}",
                                                  actual=send.payload), _preview(text))]
        return [SendReceived(send)]

    def _receive_answer(self, frame: CallResult | CallError, text: str | bytes, now: float) -> list[Event]:
        if self._in_flight is None or self._in_flight.call.id != frame.id:
            late = frame.id in self._timed_out
            return [Violation(self._violation(
                Rpc.late if late else Rpc.matches,
                "answer to a CALL that had already timed out" if late else "answer to no CALL of ours",
                expected=self._in_flight.call.id if self._in_flight else None, actual=frame.id), _preview(text))]
        call = self._in_flight.call
        self._in_flight = None
        self._pump(now)
        violations: list[PeerViolation] = []
        if isinstance(frame, CallError):
            if not is_known_code(self.version, frame.code):
                violations.append(self._violation(
                    Errors.known, f"CALLERROR code {frame.code!r} does not exist in {self.version.value}",
                    expected=sorted(ERROR_CODES[self.version]), actual=frame.code))
            return [ErrorReceived(call, frame, violations)]
        if self.validate and call.action in schemas.known_actions(self.version):
            problems = schemas.validate(self.version, call.action, "response", frame.payload)
            if problems:
                violations.append(self._violation(
                    Rpc.schema, f"{call.action} response breaks its schema: {problems[0]}", actual=frame.payload))
        return [ResultReceived(call, frame, violations)]


def _preview(text: str | bytes) -> str:
    return text if isinstance(text, str) else repr(text[:200])
