"""Validation of OCPP payloads against the Open Charge Alliance's official JSON schemas.

The schemas are loaded at run time from the installed ``ocpp`` package (never copied into
this repository): ``ocpp/v16/schemas/<Action>.json`` and ``<Action>Response.json`` (draft-04),
``ocpp/v201|v21/schemas/<Action>Request.json`` and ``<Action>Response.json`` (draft-06).
Every class in them is closed (``additionalProperties: false``) except ``CustomDataType``.

Schemas are parsed with ``Decimal`` numbers so ``multipleOf: 0.1`` (1.6 charging limits)
is judged exactly. Each validator is compiled once per (version, action, direction).

``format: date-time`` is asserted (jsonschema only annotates formats unless given a checker):
- 2.x: RFC 3339 §5.6, the meaning of ``date-time`` in the draft-06 schemas: date, ``T``, time,
  optional fraction, and a zone (``Z`` or ±hh:mm);
- 1.6: ISO 8601 notation (spec 002 rule 9: receivers handle fractional seconds and zone offsets;
  UTC is only recommended), so the zone may be absent and an offset may drop its colon.
A value that is not such a time is a property fault (PropertyConstraintViolation). ``format: uri``
(two 2.x fields) stays unchecked.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from functools import lru_cache
from importlib import resources
from typing import Any, Literal

import jsonschema
from jsonschema.exceptions import best_match

from harness.ocpp.errors import FORMAT, KEYWORD_KIND, canonical_code
from harness.ocpp.versions import OcppVersion

Direction = Literal["request", "response"]


@dataclass(frozen=True)
class SchemaViolation:
    """One way a payload breaks its schema, in terms a reader can act on."""
    path: str        # JSON path of the field, e.g. "idToken.type"
    keyword: str     # the schema keyword that failed, e.g. "maxLength"
    message: str

    @property
    def kind(self) -> str:
        return KEYWORD_KIND.get(self.keyword, FORMAT)

    def __str__(self) -> str:
        return f"{self.path or '(payload)'}: {self.message} [{self.keyword}]"


def _file_name(version: OcppVersion, action: str, direction: Direction) -> str:
    if version is OcppVersion.V16:
        return f"{action}.json" if direction == "request" else f"{action}Response.json"
    return f"{action}{'Request' if direction == 'request' else 'Response'}.json"


@lru_cache(maxsize=None)
def _schema_folder(version: OcppVersion):
    return resources.files("ocpp") / version.schema_package / "schemas"


@lru_cache(maxsize=None)
def known_actions(version: OcppVersion) -> frozenset[str]:
    """Actions that have a request schema in this version."""
    names = set()
    for entry in _schema_folder(version).iterdir():
        stem = entry.name.removesuffix(".json")
        if stem.endswith("Response"):
            continue
        names.add(stem.removesuffix("Request") if version.is_2x else stem)
    return frozenset(names)


_DATE_TIME = re.compile(r"(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?"
                        r"(?P<zone>[Zz]|[+-](\d{2}):?(\d{2}))?")


def is_date_time(version: OcppVersion, value: str) -> bool:
    """``value`` is a date-time as this version writes them (see the module docstring)."""
    match = _DATE_TIME.fullmatch(value)
    if match is None:
        return False
    year, month, day, hour, minute, second = (int(match[n]) for n in range(1, 7))
    try:   # RFC 3339 allows a leap second: 60
        datetime(year, month, day, hour, minute, min(second, 59))
    except ValueError:
        return False
    zone = match["zone"]
    if second > 60:
        return False
    if zone is None:
        return not version.is_2x
    if zone in ("Z", "z"):
        return True
    return int(match[9]) <= 23 and int(match[10]) <= 59 and (":" in zone or not version.is_2x)


@lru_cache(maxsize=None)
def _format_checker(version: OcppVersion) -> jsonschema.FormatChecker:
    checker = jsonschema.FormatChecker(formats=())
    checker.checks("date-time")(lambda value: not isinstance(value, str) or is_date_time(version, value))
    return checker


@lru_cache(maxsize=None)
def _validator(version: OcppVersion, action: str, direction: Direction):
    path = _schema_folder(version) / _file_name(version, action, direction)
    if direction == "request" and not path.is_file():
        path = _schema_folder(version) / f"{action}.json"  # 2.1 SEND-only, e.g. NotifyPeriodicEventStream.json
    schema = json.loads(path.read_text(encoding="utf-8"), parse_float=Decimal)
    cls = jsonschema.Draft4Validator if version is OcppVersion.V16 else jsonschema.Draft6Validator
    return cls(schema, format_checker=_format_checker(version))


def _exact(value: Any) -> Any:
    """Floats as the Decimal of their shortest repr: ``multipleOf`` is a Decimal, and float % Decimal is a TypeError."""
    if isinstance(value, float):
        return Decimal(repr(value))
    if isinstance(value, dict):
        return {key: _exact(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_exact(item) for item in value]
    return value


def validate(version: OcppVersion, action: str, direction: Direction, payload: Any) -> list[SchemaViolation]:
    """All violations of ``payload``, most relevant first; empty when valid.

    Raises KeyError for an action the version does not define.
    """
    if action not in known_actions(version):
        raise KeyError(action)
    validator = _validator(version, action, direction)
    errors = list(validator.iter_errors(_exact(payload)))
    if not errors:
        return []
    first = best_match(errors)
    ordered = [first] + [e for e in errors if e is not first]
    return [SchemaViolation(e.json_path.removeprefix("$").lstrip("."), str(e.validator), e.message)
            for e in ordered]


def error_code(version: OcppVersion, violations: list[SchemaViolation]) -> str:
    """The CALLERROR code this harness sends for a schema-invalid request."""
    return canonical_code(version, violations[0].kind)
