"""Validation of OCPP payloads against the Open Charge Alliance's official JSON schemas.

The schemas are loaded at run time from the installed ``ocpp`` package (never copied into
this repository): ``ocpp/v16/schemas/<Action>.json`` and ``<Action>Response.json`` (draft-04),
``ocpp/v201|v21/schemas/<Action>Request.json`` and ``<Action>Response.json`` (draft-06).
Every class in them is closed (``additionalProperties: false``) except ``CustomDataType``.

Schemas are parsed with ``Decimal`` numbers so ``multipleOf: 0.1`` (1.6 charging limits)
is judged exactly. Each validator is compiled once per (version, action, direction).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
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


@lru_cache(maxsize=None)
def _validator(version: OcppVersion, action: str, direction: Direction):
    path = _schema_folder(version) / _file_name(version, action, direction)
    if direction == "request" and not path.is_file():
        path = _schema_folder(version) / f"{action}.json"  # 2.1 SEND-only, e.g. NotifyPeriodicEventStream.json
    schema = json.loads(path.read_text(encoding="utf-8"), parse_float=Decimal)
    cls = jsonschema.Draft4Validator if version is OcppVersion.V16 else jsonschema.Draft6Validator
    return cls(schema)


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
