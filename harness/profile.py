"""The SUT profile: one TOML file describing the system under test.

Like a certification lab's configured values and feature list: identity and credentials,
the EVSE layout, the test data the SUT already knows (idTokens with the status each must
get, the DataTransfer vendors it implements), the features it supports, timeouts.
The file is checked against ``PROFILE_SCHEMA`` before any test runs; every unknown key, wrong
type or missing value is refused at once, each with the key's path and the fix (a bound is
stated, the value of a secret never shown).
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

from harness.errors import ConfigError
from harness.wire import REDACTOR

if TYPE_CHECKING:   # imported when a profile is checked, not by every process that reads this module's types
    import jsonschema

TOKEN_STATUSES = ("Accepted", "Blocked", "Expired", "Invalid", "ConcurrentTx", "NoCredit",
                  "NotAllowedTypeEVSE", "NotAtThisLocation", "NotAtThisTime", "Unknown")

# TxStartPoint / TxStopPoint values (OCPP 2.x TxCtrlr)
TX_POINTS = ("ParkingBayOccupancy", "EVConnected", "Authorized", "DataSigned", "PowerPathClosed", "EnergyTransfer")

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
        "balance": {"type": "number"},   # a prepaid token's remaining credit (spec 001 moves, C17)
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
# one station identity of a parallel run: what differs from [station] (its password or key, its EVSEs) and the
# [tokens] it presents instead (by name: a CSMS that refuses a token already charging elsewhere, ConcurrentTx,
# needs each station's own)
_IDENTITY = {   # a string (the identity alone) or a table (a string's bounds and a table's keys each apply to its kind)
    "type": ["string", "object"], "minLength": 1, "maxLength": 48, "additionalProperties": False,
    "required": ["identity"],
    "properties": {
        "identity": {"type": "string", "minLength": 1, "maxLength": 48},
        "password": {"type": "string", "minLength": 16, "maxLength": 64},
        "authorization_key": {"type": "string", "pattern": "^[0-9A-Fa-f]{40}$",
                              "hint": "write the 20-byte key as 40 hex digits"},
        "evse": {"type": "array", "items": _EVSE, "minItems": 1},
        "tokens": {"type": "object", "additionalProperties": _TOKEN},
    },
}
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
        "private": {"type": "boolean", "hint": "true for a Location not meant for public charging, which the CPO "
                                               "must never publish"},
    },
}

PROFILE_SCHEMA: dict[str, Any] = {
    "type": "object", "additionalProperties": False,
    "properties": {
        "sut": {**_SECTION, "properties": {
            "name": {"type": "string"}, "vendor": {"type": "string"}, "version": {"type": "string"},
            "role": {"enum": ["csms", "cs", "cpo", "emsp"]},
            "protocol": {"type": "string"}, "listen": {"type": "string"},
            "url": {"type": "string"},   # its scheme depends on the role: harness.settings checks it
        }},
        "station": {**_SECTION, "properties": {
            "identity": {"type": "string", "minLength": 1, "maxLength": 48},
            "password": {"type": "string", "minLength": 16, "maxLength": 64},
            "authorization_key": {"type": "string", "pattern": "^[0-9A-Fa-f]{40}$",
                                  "hint": "write the 20-byte key as 40 hex digits"},
            "security_profile": {"enum": [0, 1, 2, 3]},   # what every test's connection uses (2, 3: [tls])
            "registered": {"type": "boolean"},
            "vendor": {"type": "string", "maxLength": 50}, "model": {"type": "string", "maxLength": 20},
            # OCPP 1.6: the measurands the charge point can sample (spec 002 Measurand, behaviour rule 14)
            "measurands": {"type": "array", "items": {"type": "string", "minLength": 1, "maxLength": 50}},
            # OCPP 2.x: the type of the station's connectors (ConnectorEnumType), for a reservation by type (H01)
            "connector_type": {"type": "string", "minLength": 1, "maxLength": 20},
            "evse": {"type": "array", "items": _EVSE, "minItems": 1},
            # a run spread over xdist workers (-n N): worker i plays the i-th of these stations, each known to
            # the CSMS under test; an identity alone, or a table with what differs from [station] and [tokens]
            "identities": {"type": "array", "minItems": 1, "uniqueItems": True, "items": _IDENTITY},
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
                "iso15118", "payment_terminal", "remote_start", "data_transfer", "remote_trigger",
                "firmware_management", "plug_and_charge", "web_payment", "display_messages", "advanced_security")
        }},
        "ocpi": {**_SECTION, "properties": {
            "versions_url": {"type": "string", "pattern": "^https?://[^/\\s]",
                             "hint": "write the SUT's versions URL, such as https://cpo.example/ocpi/versions"},
            "token_a": {"type": "string", "pattern": "^[!-~]{1,64}$",
                        "hint": "token A is 1 to 64 printable ASCII characters, no spaces"},
            "country_code": {"type": "string", "minLength": 2, "maxLength": 2},
            "party_id": {"type": "string", "minLength": 3, "maxLength": 3},
            "business_name": {"type": "string", "minLength": 1, "maxLength": 100},
            "token_encoding": {"enum": ["base64", "raw", "either"]},
            "harness_country_code": {"type": "string", "minLength": 2, "maxLength": 2},
            "harness_party_id": {"type": "string", "minLength": 3, "maxLength": 3},
            "public_url": {"type": "string", "pattern": "^https?://[^/\\s]",
                           "hint": "write the base URL the SUT reaches the harness at, such as "
                                   "http://harness.example:9100"},
            "locations": {"type": "array", "items": _OCPI_LOCATION},
            **{name: {"type": "string", "pattern": "^[^/]+/[^/]+$", "hint": "write it as location_id/evse_uid"}
               for name in ("preferences_evse", "no_preferences_evse")},
        }},
        # the station's authorization settings as the tests find them (spec 001 Configuration variables named)
        "authorization": {**_SECTION, "properties": {
            "offline_tx_for_unknown_id": {"type": "boolean"},   # OfflineTxForUnknownIdEnabled
            "stop_tx_on_invalid_id": {"type": "boolean"},       # StopTxOnInvalidId
            "tx_stop_point": {"type": "array", "items": {"enum": list(TX_POINTS)}},   # TxStopPoint
            "max_energy_on_invalid_id": {"type": "integer", "minimum": 0},   # MaxEnergyOnInvalidId, Wh; 0: unset
            "master_pass_group_id": {"type": "string", "minLength": 1, "maxLength": 255},   # MasterPassGroupId
            # the station has a UI where a master pass holder selects the transactions to stop (C16.FR.01)
            "master_pass_ui": {"type": "boolean"},
            # OCPP 1.6: how many identifiers the Authorization Cache holds (spec 002 names no key for it;
            # CACHE16's eviction tests need it)
            "authorization_cache_entries": {"type": "integer", "minimum": 1},
        }},
        # the station's smart charging as the tests find it (spec 001 Errors: UnsupportedRateUnit)
        "smart_charging": {**_SECTION, "properties": {
            # SmartChargingCtrlr.RateUnit: the chargingRateUnits the station supports (default both)
            "charging_rate_units": {"type": "array", "minItems": 1, "uniqueItems": True, "items": {"enum": ["A", "W"]}},
        }},
        # the QR code of C25 (2.1) as the SUT generates or checks it: the choices spec 001 leaves open
        "qr_code": {**_SECTION, "required": ["totp_secret"], "properties": {
            "totp_secret": {"type": "string", "minLength": 16, "maxLength": 255},   # the HMAC-SHA256 key
            "interval": {"type": "integer", "minimum": 1},         # seconds a TOTP is valid (default 30)
            "length": {"type": "integer", "minimum": 4, "maximum": 20},   # base62 characters (default 8)
            "url": {"type": "string", "pattern": "^https?://[^/\\s]",
                    "hint": "write the payment page the QR code opens, such as https://pay.example/qr"},
            "version": {"type": "string", "minLength": 1, "maxLength": 8},   # the URL's version parameter
        }},
        # Plug and Charge (C07): the V2G root the SUT trusts, which the harness issues the run's contracts under
        "plug_and_charge": {**_SECTION, "required": ["root_certificate", "root_key"], "properties": {
            "root_certificate": {"type": "string", "minLength": 1},   # PEM file, relative to the profile
            "root_key": {"type": "string", "minLength": 1},           # its unencrypted PEM private key (EC)
        }},
        # the payment terminal of C18-C23 (2.1): what it authorizes, the card it reads, the settings of
        # PaymentCtrlr as the SUT has them, the VAT numbers the CSMS knows
        "payment_terminal": {**_SECTION, "properties": {
            "amount": {"type": "number", "exclusiveMinimum": 0},   # authorized on the card (default 50)
            "card": {"type": "array", "minItems": 1, "items": {   # the card details, as additionalInfo
                "type": "object", "additionalProperties": False, "required": ["type", "value"],
                "properties": {"type": {"type": "string", "minLength": 1, "maxLength": 50},
                               "value": {"type": "string", "minLength": 1, "maxLength": 255},
                               "secret": {"type": "boolean", "hint": "true keeps the value out of every log "
                                                                     "and report"}}}},
            "receipt_by_csms": {"type": "boolean"},   # ReceiptByCSMS: the CSMS answers Settled with a receiptUrl
            "vat_number": {"type": "object", "additionalProperties": False,   # one the CSMS validates, its company
                           "required": ["number", "name", "address1", "city", "country"],
                           "properties": {"number": {"type": "string", "minLength": 1, "maxLength": 20},
                                          "name": {"type": "string", "maxLength": 50},
                                          "address1": {"type": "string", "maxLength": 100},
                                          "city": {"type": "string", "maxLength": 100},
                                          "postalCode": {"type": "string", "maxLength": 20},
                                          "country": {"type": "string", "maxLength": 50}}},
            "unknown_vat_number": {"type": "string", "minLength": 1, "maxLength": 20},   # one it rejects
        }},
        # tests that wait hours or a day on the real clock against a real SUT, each played only when opted in
        # here (the embedded run plays them on its virtual clock, where the wait costs nothing)
        "long_tests": {**_SECTION, "properties": {
            "heartbeat_per_day": {"type": "boolean"},   # HEARTBEAT16: waits up to a day for a 1.6 Heartbeat
        }},
        # TLS: security profiles 2 and 3 (OCPP over wss) and OCPI over HTTPS (harness/transport/tls.py)
        "tls": {**_SECTION, "properties": {
            # the security profiles the SUT is set up to be tested at: their tests apply
            "security_profiles": {"type": "array", "uniqueItems": True, "items": {"enum": [2, 3]}},
            # where the harness keeps its test root (root.pem, installed at the SUT as trusted; root.key)
            # and the certificates it issues from it; made on first use
            "harness_pki": {"type": "string", "minLength": 1},
            # the authority that signed the SUT's certificate (a CSMS's server certificate, a station's
            # client certificate), PEM
            "sut_ca": {"type": "string", "minLength": 1},
            # the names the harness's server certificate carries (default: the listen host and localhost)
            "server_names": {"type": "array", "minItems": 1, "items": {"type": "string", "minLength": 1}},
            "serial_number": {"type": "string", "minLength": 1, "maxLength": 64},   # client certificate CN
            "operator": {"type": "string", "minLength": 1, "maxLength": 64},        # client certificate O
            # A05: the SUT may be left at the higher security profile an upgrade test moves it to (no message
            # takes it back); the upgrade's reboot is played only then
            "upgrade_kept": {"type": "boolean"},
            # A05, a CSMS under test: where it serves security profile 2 (default: --sut-url over wss)
            "sut_upgrade_url": {"type": "string", "pattern": "^wss://[^/\\s]",
                                "hint": "write the wss:// URL the CSMS serves security profile 2 at"},
        }},
        # a charge point's own signed firmware (SIGNEDFIRMWARE16): the image, its manufacturer's signing
        # certificate and the signature over it; without them the harness signs a stand-in with its own PKI
        "firmware": {**_SECTION, "properties": {
            "signed_file": {"type": "string", "minLength": 1},           # the image, relative to the profile
            "signing_certificate": {"type": "string", "minLength": 1},   # PEM, relative to the profile
            "signature": {"type": "string", "minLength": 1, "maxLength": 800},   # base64, SignedUpdateFirmware's
        }},
        "actuator": {**_SECTION, "properties": {
            "kind": {"enum": ["manual", "http", "python"]},
            "base_url": {"type": "string", "pattern": "^https?://[^/\\s]",
                         "hint": "write the http actuator's base URL, such as http://sut-test:9100"},
            "class": {"type": "string", "pattern": r"^[\w.]+:\w+$", "hint": "write it as module.path:ClassName"},
        }},
        "timeouts": {**_SECTION, "properties": {
            name: {"type": "number", "exclusiveMinimum": 0}
            for name in ("call", "action", "quiet", "connect", "operator")
        }},
    },
}

SECRET_KEYS = frozenset({"password", "authorization_key", "token_a", "totp_secret"})   # their values never reach a message
_KINDS = {"string": "a string", "integer": "an integer", "number": "a number", "boolean": "true or false",
          "object": "a table", "array": "an array"}


def _kind(value: Any) -> str:
    """What TOML calls the type of ``value``."""
    names = {bool: "true or false", str: "a string", int: "an integer", float: "a number", dict: "a table",
             list: "an array"}
    return names.get(type(value), f"a {type(value).__name__}")


def _problem(error: jsonschema.ValidationError) -> str:
    """One schema error as the fix, written from the schema alone: never the value of a secret key (a
    token's id may be a PIN), and every bound stated."""
    path = ".".join(str(p) for p in error.absolute_path)
    key = error.absolute_path[-1] if error.absolute_path else None
    secret = key in SECRET_KEYS or (len(error.absolute_path) == 3 and error.absolute_path[0] == "tokens"
                                    and key == "id")
    bound, where = error.validator_value, path or "the profile"
    match error.validator:
        case "additionalProperties":
            known = sorted(error.schema.get("properties", {}))
            extra = sorted(set(error.instance) - set(known))
            prefix = f"{path}." if path else ""
            return (f"unknown key {', '.join(prefix + k for k in extra)}; remove it or fix its spelling"
                    + (f" (known keys: {', '.join(known)})" if known else ""))
        case "required":
            missing = [f"{path}.{k}" if path else k for k in bound if k not in error.instance]
            return f"{', '.join(missing)} is missing; add it"
        case "type":
            kinds = " or ".join(_KINDS.get(kind, kind) for kind in ([bound] if isinstance(bound, str) else bound))
            return f"{where}: write {kinds}, not {_kind(error.instance)}"
        case "enum":
            given = "this value" if secret else repr(error.instance)
            return f"{where}: {given} is not allowed; use one of {', '.join(map(repr, bound))}"
        case "minLength":
            return f"{where} is too short: write at least {bound} character{'s' * (bound != 1)}"
        case "maxLength":
            return f"{where} is too long: write at most {bound} characters"
        case "minItems":
            return f"{where}: give at least {bound} item{'s' * (bound != 1)}"
        case "minimum" | "maximum" | "exclusiveMinimum" | "exclusiveMaximum":
            words = {"minimum": "at least", "maximum": "at most", "exclusiveMinimum": "more than",
                     "exclusiveMaximum": "less than"}[error.validator]
            return f"{where}: write a number {words} {bound}" + ("" if secret else f", not {error.instance!r}")
        case "pattern":
            return f"{where}: {error.schema['hint']}"   # a key with a pattern says its form (a test checks it)
    return f"{where}: not the form the profile expects ({error.validator}); see the example profiles in profiles/"


def problems(data: dict[str, Any], source: str = "<profile>") -> list[str]:
    """Every way ``data`` departs from ``PROFILE_SCHEMA``, each a line that names the key and the fix."""
    import jsonschema
    errors = jsonschema.Draft202012Validator(PROFILE_SCHEMA).iter_errors(data)
    found = [f"profile {source}: {_problem(e)}"
             for e in sorted(errors, key=lambda e: (list(map(str, e.absolute_path)), e.validator))]
    listed = data.get("station", {}).get("identities", []) if isinstance(data.get("station"), dict) else []
    names = [_entry(e).get("identity") for e in listed if isinstance(e, (str, dict))] if isinstance(listed, list) else []
    twice = sorted({str(n) for n in names if names.count(n) > 1})
    if twice:
        found.append(f"profile {source}: station.identities lists {', '.join(twice)} more than once; give each "
                     f"station once (each xdist worker plays one of them)")
    return found


def refusal(found: list[str]) -> ConfigError:
    """One ConfigError for every problem found: a run is refused once, with all its fixes."""
    if len(found) == 1:
        return ConfigError(found[0])
    return ConfigError(f"{len(found)} problems stop the run before any test:\n" + "\n".join(f"  - {p}" for p in found))


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
    balance: float | None = None   # prepaid: the remaining credit; None: not a prepaid token

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
    operator: float = 120.0  # an operator performing a manual step (manual actuator)


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
    rotated_password: dict[str, str] = field(default_factory=dict, compare=False, repr=False)   # 2.x, A01

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
    def identities(self) -> tuple[str, ...]:
        """[station] identities: the stations of a run spread over xdist workers (worker i plays the i-th);
        none when the profile lists none."""
        return tuple(_entry(e)["identity"] for e in self.get("station.identities", ()))

    def _listed(self, identity: str) -> dict[str, Any]:
        """The [station] identities entry of ``identity`` (an empty table for one it does not list)."""
        return next((_entry(e) for e in self.get("station.identities", ()) if _entry(e)["identity"] == identity), {})

    def as_identity(self, identity: str) -> Profile:
        """This profile as its station ``identity`` (one of ``identities``) plays it: that identity, its own
        password, key and EVSEs where its entry gives them, its tokens in place of those of the same name."""
        entry = self._listed(identity)
        station = {**self.data.get("station", {}), **{k: v for k, v in entry.items() if k != "tokens"}}
        data = {**self.data, "station": station, "tokens": {**self.data.get("tokens", {}), **entry.get("tokens", {})}}
        return from_dict(data, self.source)

    def known_identities(self) -> tuple[str, ...]:
        """Every station this profile describes: [station] identity, then [station] identities."""
        return tuple(dict.fromkeys((self.identity, *self.identities)))

    def all_tokens(self) -> list[Token]:
        """The tokens of every station this profile describes (a CSMS knows them all)."""
        overrides = [_tokens(self._listed(i).get("tokens", {})) for i in self.identities]
        return list({(t.id, t.type): t for ts in (self.tokens, *overrides) for t in ts.values()}.values())

    @property
    def registered(self) -> bool:
        """[station] registered: the CSMS under test knows the station and must accept its boot (without it,
        Pending or Rejected is the CSMS's right, and a test that needs the boot accepted cannot go on)."""
        return bool(self.get("station.registered", False))

    @property
    def password(self) -> str | None:
        """The 2.x Basic-auth password; once a BasicAuthPassword update in this run was accepted, the new one."""
        return self.password_of(self.identity)

    def password_of(self, identity: str) -> str | None:
        """The 2.x Basic-auth password of the station ``identity`` of this profile (rotated or configured)."""
        if identity in self.rotated_password:
            return self.rotated_password[identity]
        return self._listed(identity).get("password", self.get("station.password"))

    def password_rotated(self, password: str) -> None:
        """The station accepted ``password`` as its BasicAuthPassword (A01): from now on it is the password."""
        self.rotated_password[self.identity] = password

    @property
    def authorization_key(self) -> bytes | None:
        """OCPP 1.6 Basic-auth password: the 20-byte AuthorizationKey, written as 40 hex digits; once a
        key rotation in this run was accepted, the new key."""
        return self.authorization_key_of(self.identity)

    def authorization_key_of(self, identity: str) -> bytes | None:
        """The 1.6 AuthorizationKey of the station ``identity`` of this profile (rotated or configured)."""
        if identity in self.rotated_key:
            return self.rotated_key[identity]
        key = self._listed(identity).get("authorization_key", self.get("station.authorization_key"))
        return bytes.fromhex(key) if key else None

    def key_rotated(self, key: bytes) -> None:
        """The station accepted ``key`` as its AuthorizationKey (Authentication 4): from now on it is the key."""
        self.rotated_key[self.identity] = key

    @property
    def security_profile(self) -> int:
        """The security profile of every test's connection ([station] security_profile; default 1)."""
        return self.get("station.security_profile", 1)

    def tls_path(self, key: str) -> Path | None:
        """A path of [tls] (``harness_pki``, ``sut_ca``), relative to the profile file's directory."""
        return self.file_path(f"tls.{key}")

    def file_path(self, dotted: str) -> Path | None:
        """The path a key gives (``tls.sut_ca``, ``firmware.signed_file``), relative to the profile file's
        directory."""
        value = self.get(dotted)
        if value is None:
            return None
        path = Path(value)
        return path if path.is_absolute() or self.source.startswith("<") else Path(self.source).parent / path

    @property
    def serial_number(self) -> str:
        """The station's serial number: the CN of its client certificate ([tls] serial_number; default the
        identity)."""
        return self.get("tls.serial_number", self.identity)

    def feature(self, name: str) -> bool:
        return bool(self.get(f"features.{name}", False))

    @property
    def charging_rate_units(self) -> tuple[str, ...]:
        """The chargingRateUnits the station supports ([smart_charging] charging_rate_units; default A and W)."""
        return tuple(self.get("smart_charging.charging_rate_units", ("A", "W")))

    def authorization(self, name: str, default: Any = None) -> Any:
        """A setting of the station's authorization ([authorization] in the profile), or ``default``."""
        return self.get(f"authorization.{name}", default)

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
        return {k: ("«redacted»" if (k in SECRET_KEYS or (secret and k in ("id", "value"))) else _mask(v))
                for k, v in value.items()}
    if isinstance(value, list):
        return [_mask(v) for v in value]
    return value


def _entry(listed: str | dict[str, Any]) -> dict[str, Any]:
    """A [station] identities entry as a table: an identity alone is ``{"identity": ...}``."""
    return {"identity": listed} if isinstance(listed, str) else listed


def _tokens(tables: dict[str, Any]) -> dict[str, Token]:
    """[tokens] as Tokens; a secret one's id is registered with the redactor before it can be logged."""
    tokens = {name: Token(name=name, id=t["id"], type=t["type"], status=t["status"], group=t.get("group"),
                          evse_ids=tuple(t.get("evse_ids", ())), current=t.get("current"),
                          stations=tuple(t.get("stations", ())), secret=t.get("secret", t["type"] == "KeyCode"),
                          also=tuple(t.get("also", ())), balance=t.get("balance"))
              for name, t in tables.items()}
    for token in tokens.values():
        if token.secret:
            REDACTOR.register(token.id)
    return tokens


def from_dict(data: dict[str, Any], source: str = "<profile>") -> Profile:
    found = problems(data, source)
    if found:
        raise refusal(found)
    tokens = _tokens(data.get("tokens", {}))
    REDACTOR.register(data.get("ocpi", {}).get("token_a"))
    REDACTOR.register(data.get("qr_code", {}).get("totp_secret"))
    for card in data.get("payment_terminal", {}).get("card", ()):
        if card.get("secret"):
            REDACTOR.register(card["value"])
    station = data.get("station", {})
    for entry in (station, *map(_entry, station.get("identities", ()))):
        _tokens(entry.get("tokens", {}))   # a listed station's own secret tokens: registered
        identity = entry.get("identity", station.get("identity"))
        if entry.get("password"):
            REDACTOR.register(entry["password"], identity=identity)
        if entry.get("authorization_key"):
            REDACTOR.register(bytes.fromhex(entry["authorization_key"]), identity=identity)
    evses = tuple(Evse(e["id"], tuple(e.get("connectors", (1,))), e.get("current", "AC"), e.get("phases", 3))
                  for e in data.get("station", {}).get("evse", ({"id": 1},)))
    return Profile(source, data, tokens, evses, Timeouts(**data.get("timeouts", {})))


BUILTIN = "builtin:"   # --sut-profile builtin:NAME names a profile shipped in harness/profiles/NAME.toml


def builtin_names() -> list[str]:
    return sorted(p.name.removesuffix(".toml") for p in (resources.files("harness") / "profiles").iterdir()
                  if p.name.endswith(".toml"))


def _text(path: str | Path) -> str:
    name = str(path).removeprefix(BUILTIN)
    if str(path).startswith(BUILTIN):
        if name not in builtin_names():
            raise ConfigError(f"there is no built-in profile {path}; the built-in profiles are "
                              f"{', '.join(BUILTIN + n for n in builtin_names())}")
        return (resources.files("harness") / "profiles" / f"{name}.toml").read_text(encoding="utf-8")
    try:
        return Path(path).read_text(encoding="utf-8")
    except OSError as error:
        raise ConfigError(f"cannot read the SUT profile {path}: {error.strerror}; "
                          f"pass an existing file with --sut-profile") from None


def read(path: str | Path) -> dict[str, Any]:
    """The profile file, or the built-in profile ``builtin:NAME``, as data, not yet checked. A profile that
    starts from a built-in one (``base = "builtin:NAME"``) overrides its tables key by key."""
    try:
        data = tomllib.loads(_text(path))
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"profile {path} is not valid TOML: {error}") from None
    base = data.pop("base", None)
    if base is None:
        return data
    if not isinstance(base, str) or not base.startswith(BUILTIN):
        raise ConfigError(f"profile {path}: base = {base!r} is not a built-in profile; write it like "
                          f"base = \"builtin:reference\" (the built-in profiles are "
                          f"{', '.join(BUILTIN + n for n in builtin_names())})")
    return _overridden(read(base), data)


def _overridden(base: dict[str, Any], own: dict[str, Any]) -> dict[str, Any]:
    """``base`` with ``own``'s values: a table key by key, anything else (a value, an array) whole."""
    merged = dict(base)
    for key, value in own.items():
        both_tables = isinstance(value, dict) and isinstance(base.get(key), dict)
        merged[key] = _overridden(base[key], value) if both_tables else value
    return merged


def load(path: str | Path) -> Profile:
    return from_dict(read(path), str(path))
