"""Validation of OCPI objects against the JSON Schemas in ``schemas/ocpi`` (draft 2020-12).

The schemas were written for this project from the specification (see ``schemas/README.md``).
Every file is checked against the meta-schema and compiled once; ``$ref`` between files
resolves through a ``referencing`` registry keyed by each file's ``$id``.

Readings applied here, on top of the schemas:
- an object member whose value is ``null`` counts as absent (OCPI 2.2.1 transport and format,
  GET: unspecified fields may be taken as null), so a null *required* field is reported as
  ``required`` and a null optional one passes;
- unknown members are never an error (2.3.0 receivers must not reject them; we apply the same
  tolerance to 2.2.1 objects);
- ``pattern`` is read as JSON Schema means it (ECMA-262): a final ``$`` is the very end of the
  text. Python's ``$`` also matches before a final newline, which would let a token ending in a
  newline through; the validator here closes that gap.

Whatever breaks a schema breaks one row, ``SchemaRules.valid``; the message names the field.

Two validators per schema, each compiled once, as for OCPP payloads: ``compiled`` (jsonschema-rs)
judges every object and only says yes or no (~100x faster); an object it rejects is walked again by
``detailed`` (jsonschema), which names every fault, and whose verdict stands. They apply the same
rules (tests/unit/ocpi/test_ocpi_schema_agreement.py): jsonschema-rs reads ``pattern`` as ECMA-262
does, and asserts no ``format`` in draft 2020-12, as ``detailed`` does.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from collections.abc import Iterable, Iterator
from functools import lru_cache
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Any

import jsonschema_rs
from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError
from jsonschema.protocols import Validator
from jsonschema.validators import extend
from referencing import Registry
from referencing.jsonschema import DRAFT202012

from harness import cistring
from harness.errors import HarnessError, PeerViolation
from harness.rules import RuleTable, must


class SchemaRules(RuleTable, namespace="ocpi.schemas"):
    """What every OCPI object the peer sends must be."""
    valid = must("spec 000 Resources and their fields, Limits; schemas/ocpi", "an object has every required field, "
                 "each of its type, length and allowed values")


def schema_dir() -> Traversable:
    """The one place that knows where the schema files live: ``schemas/ocpi`` in the
    repository, or the ``harness.ocpi_schemas`` package data of an installed wheel. The package
    has no ``__init__.py``, so ``resources.files`` may answer a ``MultiplexedPath``: it is read
    through the ``Traversable`` API only (``str()`` of it is no file system path)."""
    in_repository = Path(__file__).resolve().parents[2] / "schemas" / "ocpi"
    if in_repository.is_dir():
        return in_repository
    return resources.files("harness.ocpi_schemas")


@dataclass(frozen=True)
class Violation:
    """One broken rule: where (a JSON path such as ``evses[0].uid``) and which."""
    path: str
    rule: str

    def __str__(self) -> str:
        return f"{self.path or '(object)'}: {self.rule}"


class SchemaViolation(PeerViolation):
    """The peer sent an object that breaks its schema; ``violations`` lists every fault."""

    def __init__(self, name: str, violations: list[Violation], actual: Any):
        more = f" (and {len(violations) - 1} more)" if len(violations) > 1 else ""
        super().__init__(SchemaRules.valid, f"{violations[0]}{more}",
                         expected=f"a valid {name} (schemas/ocpi/{name}.json)", actual=actual)
        self.violations = violations


@lru_cache(maxsize=None)
def _ecma_pattern(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern[:-1] + r"\Z" if pattern.endswith("$") and not pattern.endswith("\\$") else pattern)


def _pattern(validator: Validator, pattern: str, instance: Any, schema: dict[str, Any]) -> Iterator[ValidationError]:
    """The ``pattern`` keyword with ECMA-262's end of text."""
    if validator.is_type(instance, "string") and not _ecma_pattern(pattern).search(instance):
        yield ValidationError(f"{instance!r} does not match {pattern!r}")


_Validator: type[Draft202012Validator] = extend(  # type: ignore[no-untyped-call]  # untyped in types-jsonschema
    Draft202012Validator, {"pattern": _pattern})


@lru_cache(maxsize=None)
def _schemas() -> dict[str, dict[str, Any]]:
    """The schema files, by name. They ship with the harness; that each is a valid draft 2020-12 schema is checked by
    tests/unit/ocpi/test_ocpi_schemas.py, not at every run (meta-validating the 50 files was ~0.1 s of CPU in every
    process that reads an OCPI body)."""
    loaded = {}
    for entry in sorted(schema_dir().iterdir(), key=lambda e: e.name):
        if not entry.name.endswith(".json"):
            continue
        schema = json.loads(entry.read_text(encoding="utf-8"))
        loaded[entry.name.removesuffix(".json")] = schema
    if not loaded:
        raise HarnessError(f"no OCPI schemas found in {schema_dir()}")
    return loaded


def _unversioned(schema: dict[str, Any]) -> dict[str, Any]:
    """``schema`` without its ``$schema``: jsonschema hands a subschema that names its meta-schema to
    that draft's own validator class, so across a ``$ref`` to another file (an EVSE in a Location, a
    role in Credentials) the ECMA-262 ``pattern`` above was lost, and a text ending in a newline passed."""
    return {key: value for key, value in schema.items() if key != "$schema"}


@lru_cache(maxsize=None)
def _registry() -> Registry:
    return Registry().with_resources(
        (schema["$id"], DRAFT202012.create_resource(_unversioned(schema))) for schema in _schemas().values())


def _schema(name: str) -> dict[str, Any]:
    schemas = _schemas()
    if name not in schemas:
        raise HarnessError(f"no OCPI schema named {name!r}; known: {', '.join(sorted(schemas))}")
    return schemas[name]


@lru_cache(maxsize=None)
def detailed(name: str) -> Draft202012Validator:
    """The validator that names every fault, used only for an object ``compiled`` rejects."""
    return _Validator(_unversioned(_schema(name)), registry=_registry())


@lru_cache(maxsize=None)
def compiled(name: str) -> jsonschema_rs.Validator:
    """The fast validator of schema ``name``: it only says yes or no."""
    registry = jsonschema_rs.Registry([(schema["$id"], schema) for schema in _schemas().values()])
    return jsonschema_rs.validator_for(_schema(name), registry=registry)


def names() -> list[str]:
    return sorted(_schemas())


_CISTRING = "common.json#/$defs/CiString"


def _is_cistring(schema: Any) -> bool:
    """A property schema of a CiString, or of a list of them (``tariff_ids``)."""
    return isinstance(schema, dict) and (schema.get("$ref") == _CISTRING or _is_cistring(schema.get("items")))


@lru_cache(maxsize=None)
def cistring_fields() -> frozenset[str]:
    """The member names that are a CiString in every schema that has them (``id``, ``uid``,
    ``party_id``, ``tariff_ids``, ...): compared ignoring case. A name that is a CiString in one
    object and an enumeration in another (``type``) is compared exactly."""
    kinds: dict[str, set[bool]] = {}

    def visit(node: Any) -> None:
        if isinstance(node, dict):
            for name, member in (node.get("properties") or {}).items():
                kinds.setdefault(name, set()).add(_is_cistring(member))
            for child in node.values():
                visit(child)
        elif isinstance(node, list):
            for child in node:
                visit(child)

    for schema in _schemas().values():
        visit(schema)
    return frozenset(name for name, cistring in kinds.items() if cistring == {True})


def comparable(value: Any) -> Any:
    """An OCPI object in the form every equal reading of it shares: null members dropped (they count
    as absent), CiString members in one case (see ``harness.cistring``)."""
    return cistring.comparable(value, cistring_fields())


def same_object(a: Any, b: Any) -> bool:
    """``a`` and ``b`` are the same OCPI object (or part of one) as the text reads them."""
    return bool(comparable(a) == comparable(b))


def _plain(value: Any) -> bool:
    """Made of JSON's own types only, as parsed off the wire: the values both validators read alike
    (a tuple is an array to jsonschema-rs and no array to jsonschema; a Decimal a number, or not)."""
    kind = type(value)
    if kind is dict:
        return all(type(key) is str and (type(item) in _ATOMS or _plain(item)) for key, item in value.items())
    if kind is list:
        return all(type(item) in _ATOMS or _plain(item) for item in value)
    return kind in _ATOMS


_ATOMS = frozenset({str, int, float, bool, type(None)})


def _path(parts: Iterable[str | int]) -> str:
    text = ""
    for part in parts:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text


_RULES = {
    "type": lambda v: f"must be of type {_listing(v)}",
    "maxLength": lambda v: f"at most {v} characters",
    "minLength": lambda v: f"at least {v} characters",
    "pattern": lambda v: f"must match {v}",
    "enum": lambda v: f"must be one of {_listing(v)}",
    "const": lambda v: f"must be {v!r}",
    "minItems": lambda v: "must not be empty" if v == 1 else f"at least {v} items",
    "maxItems": lambda v: "must be absent or empty" if v == 0 else f"at most {v} items",
    "minimum": lambda v: f"must be >= {v}",
    "maximum": lambda v: f"must be <= {v}",
}


def _listing(value: Any) -> str:
    return ", ".join(map(str, value)) if isinstance(value, list) else str(value)


def _violations(error: ValidationError) -> list[Violation]:
    base = list(error.absolute_path)
    value: Any = error.validator_value   # both set on an error of iter_errors (Unset only in the stubs' union)
    instance: Any = error.instance
    if error.validator == "required":
        return [Violation(_path(base + [key]), "required")
                for key in value if key not in instance]
    if error.validator == "dependentRequired":
        return [Violation(_path(base + [key]), f"required when {trigger} is present")
                for trigger, needed in value.items() if trigger in instance
                for key in needed if key not in instance]
    if error.validator == "anyOf" and error.context:
        wanted = [key for sub in value for key in sub.get("required", [])]
        if wanted:
            return [Violation(_path(base), f"needs at least one of {_listing(wanted)}")]
    rule = _RULES.get(str(error.validator))
    return [Violation(_path(base), rule(value) if rule else error.message)]


def validate(name: str, instance: Any) -> list[Violation]:
    """Every violation of schema ``name`` (file stem, e.g. "location"); empty when valid."""
    instance = cistring.comparable(instance)   # a null member counts as absent
    try:
        if compiled(name).is_valid(instance) and _plain(instance):
            return []
    except ValueError:   # a value jsonschema-rs cannot read (bytes, a lone surrogate): the detailed one judges
        pass
    found: list[Violation] = []
    for error in detailed(name).iter_errors(instance):
        for violation in _violations(error):
            if violation not in found:
                found.append(violation)
    return sorted(found, key=lambda v: v.path)


def check(name: str, instance: Any) -> None:
    """Raise SchemaViolation naming the first faulty field when ``instance`` breaks ``name``."""
    violations = validate(name, instance)
    if violations:
        raise SchemaViolation(name, violations, actual=instance)


def definition(name: str) -> dict[str, Any]:
    """The schema ``name`` as written (file stem, e.g. "session"): what a writer of the object may
    leave out or null (not in ``required``) and the type of each member."""
    return _schema(name)
