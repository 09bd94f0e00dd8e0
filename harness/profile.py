"""The SUT profile: one TOML file describing the system under test.

Like a certification lab's configured values and feature list: identity and credentials,
the EVSE layout, the test data the SUT already knows (idTokens with the status each must
get, the DataTransfer vendors it implements), the features it supports, timeouts.
The file is checked against ``PROFILE_SCHEMA`` before any test runs; an unknown key, a
wrong type or a missing value is refused with the key's path and the fix.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jsonschema

from harness.errors import ConfigError
from harness.wire import REDACTOR

TOKEN_STATUSES = ("Accepted", "Blocked", "Expired", "Invalid", "ConcurrentTx", "NoCredit",
                  "NotAllowedTypeEVSE", "NotAtThisLocation", "NotAtThisTime", "Unknown")

_TOKEN = {
    "type": "object", "additionalProperties": False, "required": ["id", "type", "status"],
    "properties": {
        "id": {"type": "string", "minLength": 1, "maxLength": 255},
        "type": {"type": "string", "maxLength": 20},
        "status": {"enum": list(TOKEN_STATUSES)},
        "group": {"type": "string", "maxLength": 255},
        "evse_ids": {"type": "array", "items": {"type": "integer", "minimum": 1}},
        "current": {"enum": ["AC", "DC"]},
        "stations": {"type": "array", "items": {"type": "string"}},
        "secret": {"type": "boolean"},
        "also": {"type": "array", "items": {"enum": list(TOKEN_STATUSES)}},
    },
}
_EVSE = {
    "type": "object", "additionalProperties": False, "required": ["id"],
    "properties": {
        "id": {"type": "integer", "minimum": 1},
        "connectors": {"type": "array", "items": {"type": "integer", "minimum": 1}, "minItems": 1},
        "current": {"enum": ["AC", "DC"]},
        "phases": {"type": "integer", "minimum": 1, "maximum": 3},
    },
}
_SECTION = {"type": "object", "additionalProperties": False}
_OCPI_LOCATION = {  # a Location the OCPI SUT serves as a CPO (spec 000 Limits: ids of 36 characters)
    "type": "object", "additionalProperties": False, "required": ["id"],
    "properties": {
        "id": {"type": "string", "minLength": 1, "maxLength": 36},
        "last_updated": {"type": "string", "pattern": r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$",
                         "hint": "write a UTC date-time such as 2024-03-01T09:00:00Z"},
        "evses": {"type": "array", "items": {
            "type": "object", "additionalProperties": False, "required": ["uid"],
            "properties": {"uid": {"type": "string", "minLength": 1, "maxLength": 36},
                           "connectors": {"type": "array", "minItems": 1,
                                          "items": {"type": "string", "minLength": 1, "maxLength": 36}}}}},
    },
}

PROFILE_SCHEMA: dict[str, Any] = {
    "type": "object", "additionalProperties": False,
    "properties": {
        "sut": {**_SECTION, "properties": {
            "name": {"type": "string"}, "vendor": {"type": "string"}, "version": {"type": "string"},
            "role": {"enum": ["csms", "cs", "cpo", "emsp"]},
            "protocol": {"type": "string"}, "url": {"type": "string"}, "listen": {"type": "string"},
        }},
        "station": {**_SECTION, "properties": {
            "identity": {"type": "string", "minLength": 1, "maxLength": 48},
            "password": {"type": "string", "minLength": 16, "maxLength": 64},
            "authorization_key": {"type": "string", "pattern": "^[0-9A-Fa-f]{40}$",
                                  "hint": "write the 20-byte key as 40 hex digits"},
            "security_profile": {"enum": [0, 1]},
            "registered": {"type": "boolean"},
            "vendor": {"type": "string", "maxLength": 50}, "model": {"type": "string", "maxLength": 20},
            "evse": {"type": "array", "items": _EVSE, "minItems": 1},
        }},
        "tokens": {"type": "object", "additionalProperties": _TOKEN},
        "data_transfer": {**_SECTION, "required": ["vendor_id"], "properties": {
            "vendor_id": {"type": "string", "maxLength": 255},
            "message_id": {"type": "string", "maxLength": 50},
            "rejected_message_id": {"type": "string", "maxLength": 50},
        }},
        "features": {**_SECTION, "properties": {
            name: {"type": "boolean"} for name in (
                "authorization_cache", "local_list", "smart_charging", "reservations",
                "iso15118", "payment_terminal", "remote_start", "data_transfer")
        }},
        "ocpi": {**_SECTION, "properties": {
            "versions_url": {"type": "string", "pattern": "^https?://",
                             "hint": "write the SUT's versions URL, such as https://cpo.example/ocpi/versions"},
            "token_a": {"type": "string", "pattern": "^[!-~]{1,64}$",
                        "hint": "token A is 1 to 64 printable ASCII characters, no spaces"},
            "country_code": {"type": "string", "minLength": 2, "maxLength": 2},
            "party_id": {"type": "string", "minLength": 3, "maxLength": 3},
            "business_name": {"type": "string", "minLength": 1, "maxLength": 100},
            "token_encoding": {"enum": ["base64", "raw", "either"]},
            "harness_country_code": {"type": "string", "minLength": 2, "maxLength": 2},
            "harness_party_id": {"type": "string", "minLength": 3, "maxLength": 3},
            "public_url": {"type": "string", "pattern": "^https?://",
                           "hint": "write the base URL the SUT reaches the harness at, such as "
                                   "http://harness.example:9100"},
            "locations": {"type": "array", "items": _OCPI_LOCATION},
        }},
        "actuator": {**_SECTION, "properties": {
            "kind": {"enum": ["manual", "http", "python"]},
            "base_url": {"type": "string"}, "class": {"type": "string", "pattern": r"^[\w.]+:\w+$",
                                                       "hint": "write it as module.path:ClassName"},
        }},
        "timeouts": {**_SECTION, "properties": {
            name: {"type": "number", "exclusiveMinimum": 0}
            for name in ("call", "action", "quiet", "connect")
        }},
    },
}

_HINTS = {
    "additionalProperties": "remove it or fix its spelling",
    "required": "add it",
    "type": "give a value of the right type",
    "enum": "use one of the values listed",
    "minLength": "make it longer", "maxLength": "make it shorter",
}  # a ``pattern`` says its own form: every key with one carries its "hint"


@dataclass(frozen=True)
class Token:
    name: str
    id: str
    type: str
    status: str
    group: str | None = None
    evse_ids: tuple[int, ...] = ()
    current: str | None = None
    stations: tuple[str, ...] = ()
    secret: bool = False
    also: tuple[str, ...] = ()   # other conditions it meets; ``status`` is what the order of checks picks

    def wire(self) -> dict[str, str]:
        """As an OCPP 2.x IdTokenType."""
        return {"idToken": self.id, "type": self.type}


@dataclass(frozen=True)
class Evse:
    id: int
    connectors: tuple[int, ...] = (1,)
    current: str = "AC"
    phases: int = 3


@dataclass(frozen=True)
class Timeouts:
    call: float = 10.0      # answer to a CALL
    action: float = 15.0    # a message the SUT must send after an actuator action
    quiet: float = 1.5      # how long we watch to see that nothing is sent
    connect: float = 15.0   # a station under test connecting to the harness


@dataclass(frozen=True)
class Profile:
    source: str
    data: dict[str, Any]
    tokens: dict[str, Token] = field(default_factory=dict)
    evses: tuple[Evse, ...] = ()
    timeouts: Timeouts = Timeouts()
    # The AuthorizationKey a 1.6 key rotation of this run gave the station. The SUT keeps it after
    # the test that rotated it, so every later test must use it (see authorization_key).
    rotated_key: dict[str, bytes] = field(default_factory=dict, compare=False, repr=False)

    def get(self, dotted: str, default: Any = None) -> Any:
        value: Any = self.data
        for part in dotted.split("."):
            if not isinstance(value, dict) or part not in value:
                return default
            value = value[part]
        return value

    @property
    def identity(self) -> str:
        return self.get("station.identity", "CS001")

    @property
    def registered(self) -> bool:
        """[station] registered: the CSMS under test knows the station and must accept its boot (without it,
        Pending or Rejected is the CSMS's right, and a test that needs the boot accepted cannot go on)."""
        return bool(self.get("station.registered", False))

    @property
    def password(self) -> str | None:
        return self.get("station.password")

    @property
    def authorization_key(self) -> bytes | None:
        """OCPP 1.6 Basic-auth password: the 20-byte AuthorizationKey, written as 40 hex digits; once a
        key rotation in this run was accepted, the new key."""
        if self.identity in self.rotated_key:
            return self.rotated_key[self.identity]
        key = self.get("station.authorization_key")
        return bytes.fromhex(key) if key else None

    def key_rotated(self, key: bytes) -> None:
        """The station accepted ``key`` as its AuthorizationKey (Authentication 4): from now on it is the key."""
        self.rotated_key[self.identity] = key

    def feature(self, name: str) -> bool:
        return bool(self.get(f"features.{name}", False))

    def token(self, name: str) -> Token:
        try:
            return self.tokens[name]
        except KeyError:
            raise ConfigError(f"profile {self.source}: [tokens.{name}] is missing; "
                              f"add it with id, type and status") from None

    def tokens_with(self, status: str) -> list[Token]:
        return [t for t in self.tokens.values() if t.status == status]

    def redacted(self) -> dict[str, Any]:
        """The profile as data, with every secret masked (for reports)."""
        return _mask(self.data)


def _mask(value: Any) -> Any:
    if isinstance(value, dict):
        secret = value.get("secret") is True or value.get("type") == "KeyCode"
        return {k: ("«redacted»" if (k in ("password", "authorization_key", "token_a") or (secret and k == "id")) else _mask(v))
                for k, v in value.items()}
    if isinstance(value, list):
        return [_mask(v) for v in value]
    return value


def _error_message(source: str, error: jsonschema.ValidationError) -> str:
    path = ".".join(str(p) for p in error.absolute_path) or "(top level)"
    hint = error.schema.get("hint") or _HINTS.get(error.validator, "see the example profiles in profiles/")
    if error.validator == "additionalProperties":
        known = sorted(error.schema.get("properties", {}))
        extra = sorted(set(error.instance) - set(known)) if isinstance(error.instance, dict) else []
        where = f"{path}." if path != "(top level)" else ""
        return (f"profile {source}: unknown key {where}{extra[0] if extra else '?'}; "
                f"{hint}" + (f" (known keys: {', '.join(known)})" if known else ""))
    return f"profile {source}: {path}: {error.message}; {hint}"


def from_dict(data: dict[str, Any], source: str = "<profile>") -> Profile:
    errors = sorted(jsonschema.Draft202012Validator(PROFILE_SCHEMA).iter_errors(data),
                    key=lambda e: list(map(str, e.absolute_path)))
    if errors:
        raise ConfigError(_error_message(source, errors[0]))
    tokens = {name: Token(name=name, id=t["id"], type=t["type"], status=t["status"], group=t.get("group"),
                          evse_ids=tuple(t.get("evse_ids", ())), current=t.get("current"),
                          stations=tuple(t.get("stations", ())), secret=t.get("secret", t["type"] == "KeyCode"),
                          also=tuple(t.get("also", ())))
              for name, t in data.get("tokens", {}).items()}
    for token in tokens.values():
        if token.secret:
            REDACTOR.register(token.id)
    REDACTOR.register(data.get("ocpi", {}).get("token_a"))
    password = data.get("station", {}).get("password")
    if password:
        REDACTOR.register(password, identity=data.get("station", {}).get("identity"))
    key = data.get("station", {}).get("authorization_key")
    if key:
        REDACTOR.register(bytes.fromhex(key), identity=data.get("station", {}).get("identity"))
    evses = tuple(Evse(e["id"], tuple(e.get("connectors", (1,))), e.get("current", "AC"), e.get("phases", 3))
                  for e in data.get("station", {}).get("evse", ({"id": 1},)))
    return Profile(source, data, tokens, evses, Timeouts(**data.get("timeouts", {})))


def load(path: str | Path) -> Profile:
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        raise ConfigError(f"cannot read the SUT profile {path}: {error.strerror}; "
                          f"pass an existing file with --sut-profile") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"profile {path} is not valid TOML: {error}") from None
    return from_dict(data, str(path))
