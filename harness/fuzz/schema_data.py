"""Payloads from the official OCPP JSON schemas: valid ones, and ones broken in exactly one way.

``valid(schema, rng)`` builds a payload the schema accepts (every required field, some optional ones);
``largest(schema)`` the largest of them (every optional field, each array and string as long as ``valid``
makes it).
``mutate(schema, payload, rng)`` breaks it once — a required field removed, a field retyped, a string
lengthened past its ``maxLength``, a value outside its enum or range, a date-time that is none, a
property the class does not define, an array outside its item counts — and says which kind of fault
it made (``Mutation.kind``). The kind is what the fuzzer's oracle expects the receiver's CALLERROR to
name, so it comes from the mutation made, never from a validator's reading of the result.
"""

from __future__ import annotations

import copy
import json
import random
import string
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from harness.ocpp.schemas import resolved

# The kinds of fault, as the CALLERROR codes of the OCPP texts name them (see harness/fuzz/ocpp.py).
OCCURRENCE, TYPE, PROPERTY, FORMAT = "occurrence", "type", "property", "format"

_TEXT = string.ascii_letters + string.digits
_JSON_TYPES = ("string", "integer", "number", "boolean", "object", "array", "null")
_SAMPLES = {"string": "fuzz", "integer": 7, "number": 7, "boolean": True, "object": {"fuzz": 1},
            "array": [1], "null": None}
_DATE_TIME = "2024-05-01T12:00:00Z"
_NOT_DATE_TIMES = ("yesterday", "2024-13-01T00:00:00Z", "2024-02-30T10:00:00Z", "12:00", "2024-05-01 25:61")
OPTIONAL = 0.3   # the chance an optional property is present
DEEPEST = 6      # levels of optional objects a valid payload goes into
TOO_MANY = "too many items"


def _types(schema: dict) -> tuple[str, ...]:
    kind = schema.get("type", "object" if "properties" in schema else None)
    return tuple(kind) if isinstance(kind, list) else ((kind,) if kind else ())


def valid(root: dict, rng: random.Random, schema: dict | None = None, depth: int = 0) -> Any:
    """A value ``schema`` (default: the whole ``root``) accepts."""
    schema = resolved(root, root if schema is None else schema)
    if "enum" in schema:
        return rng.choice(schema["enum"])
    kind = (_types(schema) or ("string",))[0]
    if kind == "object":
        required = schema.get("required", [])
        return {name: valid(root, rng, sub, depth + 1) for name, sub in schema.get("properties", {}).items()
                if name in required or (depth < DEEPEST and rng.random() < OPTIONAL)}
    if kind == "array":
        low = schema.get("minItems", 0)
        high = min(schema.get("maxItems", low + 2), low + 2)
        return [valid(root, rng, schema.get("items", {}), depth + 1) for _ in range(rng.randint(max(low, 1), max(high, 1)))]
    if kind == "string":
        if schema.get("format") == "date-time":
            return _DATE_TIME
        return "".join(rng.choices(_TEXT, k=rng.randint(1, min(schema.get("maxLength", 20), 20))))
    if kind in ("integer", "number"):
        low, high = schema.get("minimum", 0), schema.get("maximum", 100)
        return rng.randint(int(low), int(high)) if high >= low else int(low)
    if kind == "boolean":
        return rng.random() < 0.5
    return None


def largest(root: dict, schema: dict | None = None, depth: int = 0) -> Any:
    """The largest value ``valid`` can build for ``schema``: every optional property (to ``DEEPEST`` levels),
    each array and string as long as ``valid`` makes them, the longest enum value, the highest number."""
    schema = resolved(root, root if schema is None else schema)
    if "enum" in schema:
        return max(schema["enum"], key=lambda value: len(str(value)))
    kind = (_types(schema) or ("string",))[0]
    if kind == "object":
        required = schema.get("required", [])
        return {name: largest(root, sub, depth + 1) for name, sub in schema.get("properties", {}).items()
                if name in required or depth < DEEPEST}
    if kind == "array":
        low = schema.get("minItems", 0)
        count = max(min(schema.get("maxItems", low + 2), low + 2), 1)
        return [largest(root, schema.get("items", {}), depth + 1) for _ in range(count)]
    if kind == "string":
        return _DATE_TIME if schema.get("format") == "date-time" else "x" * min(schema.get("maxLength", 20), 20)
    if kind in ("integer", "number"):
        low, high = schema.get("minimum", 0), schema.get("maximum", 100)
        return int(max(low, high))
    return False if kind == "boolean" else None


@dataclass(frozen=True)
class Mutation:
    """One fault put into a payload: what was done where, and the kind of fault it is."""
    kind: str
    what: str
    path: str


@dataclass
class _Site:
    """A place in the payload: the container holding it, its key there, its schema."""
    parent: Any
    key: Any
    schema: dict
    path: str


def _sites(root: dict, payload: Any) -> list[_Site]:
    """Every value in ``payload`` with its schema (the payload itself has parent None)."""
    sites, stack = [], [_Site(None, None, resolved(root, root), "")]
    while stack:
        site = stack.pop()
        sites.append(site)
        value = payload if site.parent is None else site.parent[site.key]
        if isinstance(value, dict):
            for name in value:
                sub = site.schema.get("properties", {}).get(name)
                if sub is not None:
                    stack.append(_Site(value, name, resolved(root, sub), f"{site.path}.{name}".lstrip(".")))
        elif isinstance(value, list) and isinstance(site.schema.get("items"), dict):
            for index in range(len(value)):
                stack.append(_Site(value, index, resolved(root, site.schema["items"]), f"{site.path}[{index}]"))
    return sites


def _options(root: dict, site: _Site, value: Any) -> list[tuple[str, str]]:
    """The mutations that break the value at ``site`` for sure: (kind, name)."""
    schema, found = site.schema, []
    types = _types(schema)
    if site.parent is not None and types:
        found.append((TYPE, "retype"))
    if isinstance(value, dict):
        if any(name in value for name in schema.get("required", [])):
            found.append((OCCURRENCE, "remove required"))
        if schema.get("additionalProperties") is False:
            found.append((FORMAT, "unknown property"))
    if isinstance(value, list):
        if "maxItems" in schema:
            found.append((OCCURRENCE, TOO_MANY))
        if schema.get("minItems", 0) >= 1:
            found.append((OCCURRENCE, "no items"))
    if isinstance(value, str):
        if "maxLength" in schema:
            found.append((PROPERTY, "lengthen"))
        if "enum" in schema:
            found.append((PROPERTY, "not in enum"))
        if schema.get("format") == "date-time":
            found.append((PROPERTY, "not a date-time"))
    if isinstance(value, int) and not isinstance(value, bool) and ("minimum" in schema or "maximum" in schema):
        found.append((PROPERTY, "out of range"))
    return found


def mutate(root: dict, payload: dict, rng: random.Random, *, null: bool = True) -> tuple[dict, Mutation] | None:
    """A copy of the valid ``payload`` broken in one way, and how (None: nothing in it can be broken).
    ``null=False``: a field is never retyped to null (where null counts as absent, as in OCPI)."""
    payload = copy.deepcopy(payload)
    choices = _choices(root, payload)
    return _break(payload, *rng.choice(choices), rng, null) if choices else None


def overlong(root: dict, payload: dict, rng: random.Random) -> Iterator[tuple[dict, Mutation]]:
    """Copies of the valid ``payload``, each with another of its arrays that have a ``maxItems`` one item too
    long (its first item repeated), made one at a time: the one that lengthens the payload most first."""
    def growth(site: _Site) -> int:
        items = site.parent[site.key] if site.parent is not None else payload
        return (site.schema["maxItems"] + 1 - len(items)) * (len(json.dumps(items[0], default=str)) + 2)
    arrays = [site for site, (_, name) in _choices(root, payload) if name == TOO_MANY]
    for index in sorted(range(len(arrays)), key=lambda index: -growth(arrays[index])):
        copied = copy.deepcopy(payload)
        yield _break(copied, *[choice for choice in _choices(root, copied) if choice[1][1] == TOO_MANY][index], rng)


def _choices(root: dict, payload: Any) -> list[tuple[_Site, tuple[str, str]]]:
    return [(site, option) for site in _sites(root, payload)
            for option in _options(root, site, payload if site.parent is None else site.parent[site.key])]


def _break(payload: Any, site: _Site, option: tuple[str, str], rng: random.Random,
           null: bool = True) -> tuple[dict, Mutation]:
    """``payload`` with the value at ``site`` broken as ``option`` (kind, name) says, in place."""
    kind, name = option
    value = payload if site.parent is None else site.parent[site.key]
    schema = site.schema
    if name == "retype":
        allowed = set(_types(schema)) | ({"number"} if "integer" in _types(schema) else set())
        wrong = rng.choice([t for t in _JSON_TYPES if t not in allowed and not (t == "integer" and "number" in allowed)
                            and (null or t != "null")])
        site.parent[site.key] = copy.deepcopy(_SAMPLES[wrong])
        what = f"{wrong} where the schema wants {'/'.join(_types(schema))}"
    elif name == "remove required":
        field = rng.choice([n for n in schema["required"] if n in value])
        del value[field]
        return payload, Mutation(kind, f"required {field} removed", f"{site.path}.{field}".lstrip("."))
    elif name == "unknown property":
        field = "fuzz" + "".join(rng.choices(string.ascii_lowercase, k=6))
        value[field] = rng.choice(list(_SAMPLES.values()))
        return payload, Mutation(kind, f"undefined property {field}", site.path)
    elif name == TOO_MANY:
        value.extend([value[0]] * (schema["maxItems"] + 1 - len(value)))
        what = f"{len(value)} items, at most {schema['maxItems']}"
    elif name == "no items":
        value.clear()
        what = f"no items, at least {schema['minItems']}"
    elif name == "lengthen":
        longer = value + "".join(rng.choices(_TEXT, k=schema["maxLength"] + rng.randint(1, 50) - len(value)))
        site.parent[site.key] = longer
        what = f"{len(longer)} characters, at most {schema['maxLength']}"
    elif name == "not in enum":
        site.parent[site.key] = "Fuzz" + "".join(rng.choices(string.ascii_letters, k=4))
        what = f"{site.parent[site.key]!r} is none of the enum"
    elif name == "not a date-time":
        site.parent[site.key] = rng.choice(_NOT_DATE_TIMES)
        what = f"{site.parent[site.key]!r} is no date-time"
    else:   # out of range
        if "minimum" in schema and ("maximum" not in schema or rng.random() < 0.5):
            site.parent[site.key] = int(schema["minimum"]) - rng.randint(1, 1000)
        else:
            site.parent[site.key] = int(schema["maximum"]) + rng.randint(1, 1000)
        what = f"{site.parent[site.key]} outside [{schema.get('minimum', '')}, {schema.get('maximum', '')}]"
    return payload, Mutation(kind, what, site.path)
