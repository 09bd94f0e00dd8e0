"""OCPP-J message frames: parse text into frames and frames into text.

The frame rules are the table ``Framing`` below (spec 002 Framing; OCPP 2.0.1/2.1 part 4 §4). The
frames: CALL ``[2, id, action, payload]``, CALLRESULT ``[3, id, payload]``, CALLERROR
``[4, id, code, description, details]``; 2.1 adds CALLRESULTERROR ``[5, id, code, description,
details]`` and SEND ``[6, id, action, payload]``. A broken frame raises ``FrameError`` with the row
it breaks and the CALLERROR owed for it: a broken CALL is answered with the format code of the
version; text without a usable id is answered (2.x) RpcFrameworkError with id "-1" (1.6, which has
no such code, gets FormationViolation); an unknown message type MessageTypeNotSupported (2.x).

Numbers are parsed as ``Decimal`` so that the "at most one decimal" and ``multipleOf`` rules
are judged on the digits the peer sent, not on a binary float.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, Union

from harness.errors import PeerViolation
from harness.ocpp.errors import FRAME, NOT_A_FRAME, UNKNOWN_TYPE, canonical_code
from harness.ocpp.versions import OcppVersion
from harness.rules import Rule, RuleTable, must, should


MAX_ID_LENGTH = 36
UNKNOWN_ID = "-1"
MAX_DEPTH = 64   # levels of arrays and objects in one message: the deepest schema has about ten


class Framing(RuleTable, namespace="framing"):
    """What every OCPP-J message looks like, in every version."""
    text = must("spec 002 Framing 1; OCPP 2.0.1 part 4 §4.1", "a message is valid JSON sent as UTF-8 text")
    frame = must("spec 002 Framing (frame table); OCPP 2.0.1 part 4 §4.2, 2.1 part 4 §4.2",
                 "a message is an array that starts with a message type of the version and has that type's length")
    message_id = must("spec 002 Framing 2 and Limits", "a message id is a non-empty string of at most 36 characters")
    elements = must("spec 002 Framing 3", "the action, error code and description are strings; the payload and "
                    "the error details are JSON objects")
    framework_error = should("OCPP 2.0.1 part 4 §4.2.3 (RpcFrameworkError); facts ocpp-j.md",
                             "2.x: text that is no frame, or has no usable message id, is answered CALLERROR "
                             "RpcFrameworkError with message id \"-1\"")
    depth = must("spec 002 Resources and Messages; OCPP 2.0.1/2.1 JSON schemas (facts ocpp-j.md)",
                 f"a message nests no deeper than its schema allows: no OCPP message nests {MAX_DEPTH} levels "
                 f"deep, the most the harness reads")
    type_not_supported = should("OCPP 2.0.1 part 4 §4.2.3 (MessageTypeNotSupported); facts ocpp-j.md",
                                "2.x: a message of a type the receiver does not support is answered CALLERROR "
                                "MessageTypeNotSupported with its message id")



CALL, CALLRESULT, CALLERROR, CALLRESULTERROR, SEND = 2, 3, 4, 5, 6


@dataclass(frozen=True)
class Call:
    id: str
    action: str
    payload: dict[str, Any]
    type_number = CALL

    def to_list(self) -> list[Any]:
        return [CALL, self.id, self.action, self.payload]


@dataclass(frozen=True)
class Send:
    """2.1 unconfirmed message: never answered."""
    id: str
    action: str
    payload: dict[str, Any]
    type_number = SEND

    def to_list(self) -> list[Any]:
        return [SEND, self.id, self.action, self.payload]


@dataclass(frozen=True)
class CallResult:
    id: str
    payload: dict[str, Any]
    type_number = CALLRESULT

    def to_list(self) -> list[Any]:
        return [CALLRESULT, self.id, self.payload]


@dataclass(frozen=True)
class CallError:
    id: str
    code: str
    description: str = ""
    details: dict[str, Any] = field(default_factory=dict)
    type_number = CALLERROR

    def to_list(self) -> list[Any]:
        return [self.type_number, self.id, self.code, self.description, self.details]


@dataclass(frozen=True)
class CallResultError(CallError):
    """2.1: an error about a CALLRESULT we received."""
    type_number = CALLRESULTERROR


Frame = Union[Call, Send, CallResult, CallError, CallResultError]


class FrameError(PeerViolation):
    """The peer sent text that is not a valid frame.

    ``reply`` is the CALLERROR we owe the peer for it, or ``None`` when the rules
    say nothing is to be answered (a broken CALLRESULT, a broken SEND).
    """

    def __init__(self, rule: Rule, message: str, *, reply: CallError | None, version: OcppVersion, actual: Any = None):
        super().__init__(rule, message, actual=actual, protocol=version.value)
        self.reply = reply


def _decimal_default(value: Any) -> Any:
    if isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    raise TypeError(f"{type(value).__name__} is not JSON serializable")


_LONE_SURROGATE = re.compile(r"[\ud800-\udfff]")


def dumps(value: Any) -> str:
    """JSON text as OCPP peers expect it: compact, UTF-8, Decimals as numbers. A lone UTF-16 surrogate (legal in
    JSON, "\\ud800") has no UTF-8 form, so it stays escaped: whatever the parser took can be sent back."""
    text = json.dumps(value, separators=(",", ":"), ensure_ascii=False, default=_decimal_default)
    return _LONE_SURROGATE.sub(lambda match: f"\\u{ord(match.group()):04x}", text)


_DECODER = json.JSONDecoder(parse_float=Decimal)   # built once: json.loads(text, parse_float=...) builds one a call


def loads(text: str) -> Any:
    return _DECODER.decode(text)


def serialize(frame: Frame) -> str:
    return dumps(frame.to_list())


def _framework_error(version: OcppVersion, message_id: str, description: str) -> CallError:
    code = canonical_code(version, NOT_A_FRAME)
    return CallError(message_id, code, description, {})


def parse(text: str | bytes, version: OcppVersion) -> Frame:
    """Parse one WebSocket text message; raise FrameError naming the broken rule."""
    def broken(rule: Rule, message: str, reply: CallError | None, actual: Any) -> FrameError:
        return FrameError(rule, message, reply=reply, version=version, actual=actual)

    if isinstance(text, bytes):
        raise broken(Framing.text, "binary WebSocket frame: OCPP-J messages are text",
                     _framework_error(version, UNKNOWN_ID, "binary frame"), text[:64])
    try:
        message = loads(text)
    except ValueError:
        raise broken(Framing.text, "message is not valid JSON",
                     _framework_error(version, UNKNOWN_ID, "invalid JSON"), text[:200]) from None
    except RecursionError:   # deeper than the parser's own stack allows: far past MAX_DEPTH
        message = _TOO_DEEP
    if message is _TOO_DEEP or (text.count("[") + text.count("{") > MAX_DEPTH and deeper_than(message, MAX_DEPTH)):
        raise broken(Framing.depth, f"message nested deeper than {MAX_DEPTH} levels",
                     _framework_error(version, UNKNOWN_ID, "message nested too deep"), text[:200])
    if not isinstance(message, list) or len(message) < 3 or not isinstance(message[0], int) or isinstance(message[0], bool):
        raise broken(Framing.frame, "message is not an array starting with a message type number",
                     _framework_error(version, UNKNOWN_ID, "not an OCPP-J frame"), message)
    kind, message_id = message[0], message[1]
    if not isinstance(message_id, str) or not message_id:
        raise broken(Framing.message_id, "message id is not a non-empty string",
                     _framework_error(version, UNKNOWN_ID, "message id must be a string"), message_id)
    if len(message_id) > MAX_ID_LENGTH:
        raise broken(Framing.message_id, f"message id longer than {MAX_ID_LENGTH} characters",
                     _framework_error(version, message_id, "message id too long") if kind == CALL else None,
                     message_id)
    if kind not in version.message_types:
        reply = CallError(message_id, canonical_code(version, UNKNOWN_TYPE), f"message type {kind}", {})
        raise broken(Framing.frame, f"message type {kind} does not exist in {version.value}", reply, message)
    return _build(kind, message_id, message, version)


_TOO_DEEP = object()


def deeper_than(value: Any, limit: int) -> bool:
    """Whether ``value`` nests arrays and objects more than ``limit`` levels deep (iterative, a level at a time: a
    deep value must not exhaust the stack that judges it)."""
    level, current = 0, [value]
    while True:
        nested = [item for item in current if isinstance(item, (list, dict))]
        if not nested:
            return False
        level += 1
        if level > limit:
            return True
        current = [child for item in nested for child in (item.values() if isinstance(item, dict) else item)]


_LENGTH = {CALL: 4, SEND: 4, CALLRESULT: 3, CALLERROR: 5, CALLRESULTERROR: 5}
# the type each element after the id must have, by message type
_ELEMENTS = {CALL: (str, dict), SEND: (str, dict), CALLRESULT: (dict,), CALLERROR: (str, str, dict),
             CALLRESULTERROR: (str, str, dict)}


def _build(kind: int, message_id: str, message: list[Any], version: OcppVersion) -> Frame:
    reply = CallError(message_id, canonical_code(version, FRAME), "malformed frame", {}) if kind == CALL else None
    if len(message) != _LENGTH[kind]:
        raise FrameError(Framing.frame, f"message type {kind} frame has {len(message)} elements, not {_LENGTH[kind]}",
                         reply=reply, version=version, actual=message)
    if not all(isinstance(item, wanted) for item, wanted in zip(message[2:], _ELEMENTS[kind])):
        raise FrameError(Framing.elements, f"message type {kind} frame has an element of the wrong type",
                         reply=reply, version=version, actual=message)
    if kind in (CALL, SEND):
        return (Call if kind == CALL else Send)(message_id, message[2], message[3])
    if kind == CALLRESULT:
        return CallResult(message_id, message[2])
    cls = CallError if kind == CALLERROR else CallResultError
    return cls(message_id, message[2], message[3], message[4])
