"""The OCPI response envelope, and the status codes it carries.

Status codes (OCPI 2.2.1 status codes §5; shared/facts/ocpi-wire.md): 1xxx success, 2xxx the
client's fault, 3xxx the server's, 4xxx a hub's. ``data`` may be absent or null after an error,
and in 2.3.0 wherever the standard does not say what it holds. We send no ``null`` members: what
has no value is left out.

``outcome()`` reads what an answer said (HTTP status and status_code) without judging it: the
arena's one verifier of answers (``harness.arena.ocpi.check_answer``) and the reference peer
both build on it.
"""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass
from datetime import datetime
from enum import IntEnum
from typing import Any, TypeVar, cast

from harness import clock
from harness.errors import PeerViolation
from harness.ocpi.timestamps import format_datetime, parse_datetime
from harness.ocpp.framing import MAX_DEPTH, deeper_than
from harness.rules import Rule, RuleTable, must, should

_FORMAT = "OCPI 2.2.1 transport and format §4.1.6 Response format"


class EnvelopeRules(RuleTable, namespace="ocpi.envelope"):
    """What every OCPI answer looks like."""
    json_object = must(_FORMAT, "a response body is one JSON object")
    required_fields = must(_FORMAT, "status_code (an integer) and timestamp (a DateTime) are present")
    optional_fields = must(_FORMAT, "status_message is a string; data is an array, an object or a string "
                                    "(either may be absent)")
    success = must(f"{_FORMAT}; status codes §5", "a call that had to succeed answers HTTP 2xx with a 1xxx "
                                                 "status_code")
    request_json = must("spec 000 Notation (all bodies are JSON); facts/ocpi-wire.md HTTP status rules",
                        "a request body is valid JSON; invalid JSON is answered HTTP 400")
    content_type = should("OCPI 2.2.1 transport and format, Response format; facts/ocpi-wire.md Other rules",
                          "an answer is labelled Content-Type: application/json")


class StatusCode(IntEnum):
    SUCCESS = 1000
    CLIENT_ERROR = 2000
    INVALID_PARAMETERS = 2001
    NOT_ENOUGH_INFORMATION = 2002
    UNKNOWN_LOCATION = 2003
    UNKNOWN_TOKEN = 2004
    SERVER_ERROR = 3000
    CLIENT_API_UNUSABLE = 3001
    UNSUPPORTED_VERSION = 3002
    NO_MATCHING_ENDPOINTS = 3003
    HUB_ERROR = 4000
    UNKNOWN_RECEIVER = 4001
    HUB_TIMEOUT = 4002
    HUB_CONNECTION_PROBLEM = 4003


_MEANINGS: dict[int, str] = {
    StatusCode.SUCCESS: "success",
    StatusCode.CLIENT_ERROR: "generic client error",
    StatusCode.INVALID_PARAMETERS: "invalid or missing parameters",
    StatusCode.NOT_ENOUGH_INFORMATION: "not enough information",
    StatusCode.UNKNOWN_LOCATION: "unknown Location",
    StatusCode.UNKNOWN_TOKEN: "unknown Token",
    StatusCode.SERVER_ERROR: "generic server error",
    StatusCode.CLIENT_API_UNUSABLE: "unable to use the client's API",
    StatusCode.UNSUPPORTED_VERSION: "unsupported version",
    StatusCode.NO_MATCHING_ENDPOINTS: "no matching endpoints",
    StatusCode.HUB_ERROR: "generic hub error",
    StatusCode.UNKNOWN_RECEIVER: "unknown receiver",
    StatusCode.HUB_TIMEOUT: "timeout on forwarded request",
    StatusCode.HUB_CONNECTION_PROBLEM: "connection problem at the hub",
}
_RANGES = {1: "success", 2: "client error", 3: "server error", 4: "hub error"}


def is_success(code: int) -> bool:
    return 1000 <= code <= 1999


def meaning(code: int) -> str:
    """What a status code says, for messages: the defined meaning, else its range."""
    if code in _MEANINGS:
        return _MEANINGS[code]
    if 1000 <= code <= 4999:
        return _RANGES[code // 1000]
    return "not an OCPI status code"


class StatusError(PeerViolation):
    """A peer fault with a known answer: the OCPI status code (and HTTP status) we reply with."""

    def __init__(self, rule: Rule, message: str, *, status_code: StatusCode, http_status: int = 200,
                 expected: Any = None, actual: Any = None):
        super().__init__(rule, message, expected=expected, actual=actual)
        self.status_code = status_code
        self.http_status = http_status

    def envelope(self, now: datetime | None = None) -> dict[str, Any]:
        return build(status_code=self.status_code, status_message=self.args[0], now=now)


@dataclass(frozen=True)
class Outcome:
    """What an answer said: its HTTP status and, when its body is an envelope, its status_code."""
    http_status: int
    status_code: int | None

    @property
    def ok(self) -> bool:
        """HTTP 2xx with a 1xxx status_code: the request succeeded."""
        return 200 <= self.http_status <= 299 and self.status_code is not None and is_success(self.status_code)

    def __str__(self) -> str:
        if self.status_code is None:
            return f"HTTP {self.http_status}, no status_code"
        return f"HTTP {self.http_status}, status_code {self.status_code} ({meaning(self.status_code)})"


def outcome(http_status: int, body: str | bytes) -> Outcome:
    """What an answer said, never raising: a body that is no envelope has no status_code."""
    try:
        code = parse(body).status_code
    except PeerViolation:
        code = None
    return Outcome(http_status, code)


@dataclass(frozen=True)
class Envelope:
    status_code: int
    timestamp: datetime
    status_message: str | None = None
    data: Any = None

    @property
    def ok(self) -> bool:
        return is_success(self.status_code)


def build(data: Any = None, status_code: int = StatusCode.SUCCESS, status_message: str | None = None,
          *, now: datetime | None = None) -> dict[str, Any]:
    """A response body ready for ``json.dumps``; members without a value are left out."""
    body: dict[str, Any] = {}
    if data is not None:
        body["data"] = data
    body["status_code"] = int(status_code)
    if status_message is not None:
        body["status_message"] = status_message
    body["timestamp"] = format_datetime(now or clock.utcnow())
    return body


def read_json(body: str | bytes) -> Any:
    """A body's JSON value; ValueError when it is not JSON or nests deeper than MAX_DEPTH levels (no
    OCPI object comes near it, and a deeper one would exhaust the stack of the schema validator)."""
    try:
        value = json.loads(body)
    except RecursionError:
        raise ValueError("nested past the JSON parser's depth") from None
    opened = body.count("[") + body.count("{") if isinstance(body, str) else body.count(b"[") + body.count(b"{")
    if opened > MAX_DEPTH and deeper_than(value, MAX_DEPTH):   # fewer brackets than levels: none too deep
        raise ValueError(f"nested deeper than {MAX_DEPTH} levels")
    return value


def parse(body: str | bytes) -> Envelope:
    """A received response body as an Envelope; PeerViolation names the first fault."""
    try:
        value = read_json(body)
    except ValueError as error:
        text = body if isinstance(body, str) else body[:200].decode("utf-8", "replace")
        raise PeerViolation(EnvelopeRules.json_object, f"response body is not valid JSON ({error})",
                            actual=text[:200]) from None
    if not isinstance(value, dict):
        raise PeerViolation(EnvelopeRules.json_object, "response body is not a JSON object", expected="object",
                            actual=type(value).__name__)
    code = value.get("status_code")
    if code is None:
        raise PeerViolation(EnvelopeRules.required_fields, "status_code is missing", actual=sorted(value))
    if not isinstance(code, int) or isinstance(code, bool):
        raise PeerViolation(EnvelopeRules.required_fields, "status_code is not an integer", expected="int", actual=code)
    stamp = value.get("timestamp")
    if stamp is None:
        raise PeerViolation(EnvelopeRules.required_fields, "timestamp is missing", actual=sorted(value))
    try:
        timestamp = parse_datetime(stamp)
    except ValueError as error:
        raise PeerViolation(EnvelopeRules.required_fields, f"timestamp is not a DateTime: {error}",
                            actual=stamp) from None
    message = value.get("status_message")
    if message is not None and not isinstance(message, str):
        raise PeerViolation(EnvelopeRules.optional_fields, "status_message is not a string", expected="string",
                            actual=message)
    data = value.get("data")
    if data is not None and not isinstance(data, (list, dict, str)):
        raise PeerViolation(EnvelopeRules.optional_fields, "data is neither an array, an object nor a string",
                            actual=type(data).__name__)
    return Envelope(code, timestamp, message, data)


def expect_success(http_status: int, body: str | bytes) -> Any:
    """The ``data`` of a response that had to succeed; PeerViolation otherwise."""
    if not 200 <= http_status <= 299:
        raise PeerViolation(EnvelopeRules.success, f"HTTP {http_status} where a successful response was due",
                            expected="HTTP 2xx", actual=http_status)
    envelope = parse(body)
    if not envelope.ok:
        raise PeerViolation(EnvelopeRules.success,
                            f"status_code {envelope.status_code} ({meaning(envelope.status_code)}) "
                            "where a success was due", expected=StatusCode.SUCCESS.value,
                            actual=envelope.status_code)
    return envelope.data


J = TypeVar("J")
_ATOMS = frozenset({str, int, float, bool, type(None)})   # kept as they are: immutable


def json_copy(value: J) -> J:
    """A deep copy of JSON-shaped data (dicts, lists, text, numbers), several times quicker than ``copy.deepcopy``
    (the stores copy every object they take); anything else in it is deep-copied as usual. A member or item that is
    text, a number or null is taken as it is without a call of its own (most of a JSON object's values)."""
    kind = type(value)
    if kind is dict:
        return cast(J, {key: item if type(item) in _ATOMS else json_copy(item)
                        for key, item in cast("dict[Any, Any]", value).items()})
    if kind is list:
        return cast(J, [item if type(item) in _ATOMS else json_copy(item) for item in cast("list[Any]", value)])
    if kind in _ATOMS:
        return value
    return copy.deepcopy(value)
