"""OCPP-J message frames: parse text into frames and frames into text.

Rules (OCPP 1.6 JSON spec §4; OCPP 2.0.1 part 4 §4; shared/facts/ocpp-j.md):
- F1  a message is one JSON array in UTF-8 text;
- F2  CALL ``[2, id, action, payload]``, CALLRESULT ``[3, id, payload]``,
      CALLERROR ``[4, id, code, description, details]``;
      2.1 adds CALLRESULTERROR ``[5, id, code, description, details]`` and SEND ``[6, id, action, payload]``;
- F3  the id is a string of at most 36 characters;
- F4  payload and error details are JSON objects; the action is a string;
- F5  a message that cannot be parsed, or has no usable id, is answered (2.x) with
      RpcFrameworkError and message id "-1"; an unknown message type with MessageTypeNotSupported.

Numbers are parsed as ``Decimal`` so that the "at most one decimal" and ``multipleOf`` rules
are judged on the digits the peer sent, not on a binary float.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, Union

from harness.errors import PeerViolation
from harness.ocpp.errors import FORMAT, canonical_code
from harness.ocpp.versions import OcppVersion

MAX_ID_LENGTH = 36
UNKNOWN_ID = "-1"

CALL, CALLRESULT, CALLERROR, CALLRESULTERROR, SEND = 2, 3, 4, 5, 6


@dataclass(frozen=True)
class Call:
    id: str
    action: str
    payload: dict[str, Any]
    type_number = CALL

    def to_list(self) -> list:
        return [CALL, self.id, self.action, self.payload]


@dataclass(frozen=True)
class Send:
    """2.1 unconfirmed message: never answered."""
    id: str
    action: str
    payload: dict[str, Any]
    type_number = SEND

    def to_list(self) -> list:
        return [SEND, self.id, self.action, self.payload]


@dataclass(frozen=True)
class CallResult:
    id: str
    payload: dict[str, Any]
    type_number = CALLRESULT

    def to_list(self) -> list:
        return [CALLRESULT, self.id, self.payload]


@dataclass(frozen=True)
class CallError:
    id: str
    code: str
    description: str = ""
    details: dict[str, Any] = field(default_factory=dict)
    type_number = CALLERROR

    def to_list(self) -> list:
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

    def __init__(self, rule: str, message: str, *, reply: CallError | None, actual: Any = None):
        super().__init__(rule, message, actual=actual)
        self.reply = reply


def _decimal_default(value: Any) -> Any:
    if isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    raise TypeError(f"{type(value).__name__} is not JSON serializable")


def dumps(value: Any) -> str:
    """JSON text as OCPP peers expect it: compact, UTF-8, Decimals as numbers."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False, default=_decimal_default)


def loads(text: str) -> Any:
    return json.loads(text, parse_float=Decimal)


def serialize(frame: Frame) -> str:
    return dumps(frame.to_list())


def _framework_error(version: OcppVersion, message_id: str, description: str) -> CallError:
    code = "RpcFrameworkError" if version.is_2x else canonical_code(version, FORMAT)
    return CallError(message_id, code, description, {})


def parse(text: str | bytes, version: OcppVersion) -> Frame:
    """Parse one WebSocket text message; raise FrameError naming the broken rule."""
    if isinstance(text, bytes):
        raise FrameError("F1", "binary WebSocket frame: OCPP-J messages are text",
                         reply=_framework_error(version, UNKNOWN_ID, "binary frame"), actual=text[:64])
    try:
        message = loads(text)
    except ValueError:
        raise FrameError("F1", "message is not valid JSON",
                         reply=_framework_error(version, UNKNOWN_ID, "invalid JSON"), actual=text[:200]) from None
    if not isinstance(message, list) or len(message) < 3 or not isinstance(message[0], int) or isinstance(message[0], bool):
        raise FrameError("F2", "message is not an array starting with a message type number",
                         reply=_framework_error(version, UNKNOWN_ID, "not an OCPP-J frame"), actual=message)
    kind, message_id = message[0], message[1]
    if not isinstance(message_id, str) or not message_id:
        raise FrameError("F3", "message id is not a non-empty string",
                         reply=_framework_error(version, UNKNOWN_ID, "message id must be a string"), actual=message_id)
    if len(message_id) > MAX_ID_LENGTH:
        raise FrameError("F3", f"message id longer than {MAX_ID_LENGTH} characters",
                         reply=_framework_error(version, message_id, "message id too long") if kind == CALL else None,
                         actual=message_id)
    if kind not in version.message_types:
        reply = (CallError(message_id, "MessageTypeNotSupported", f"message type {kind}", {})
                 if version.is_2x else _framework_error(version, message_id, f"message type {kind}"))
        raise FrameError("F2", f"message type {kind} does not exist in {version.value}", reply=reply, actual=message)
    return _build(kind, message_id, message, version)


def _build(kind: int, message_id: str, message: list, version: OcppVersion) -> Frame:
    shape_error = FrameError(
        "F2/F4", f"message type {kind} frame has the wrong shape",
        reply=CallError(message_id, canonical_code(version, FORMAT), "malformed frame", {}) if kind == CALL else None,
        actual=message)
    if kind in (CALL, SEND):
        if len(message) != 4 or not isinstance(message[2], str):
            raise shape_error
        if not isinstance(message[3], dict):
            raise shape_error
        return (Call if kind == CALL else Send)(message_id, message[2], message[3])
    if kind == CALLRESULT:
        if len(message) != 3 or not isinstance(message[2], dict):
            raise shape_error
        return CallResult(message_id, message[2])
    if len(message) != 5 or not isinstance(message[2], str) or not isinstance(message[3], str) \
            or not isinstance(message[4], dict):
        raise shape_error
    cls = CallError if kind == CALLERROR else CallResultError
    return cls(message_id, message[2], message[3], message[4])
