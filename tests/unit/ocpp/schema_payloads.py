"""Hypothesis strategies for OCPP payloads read off the official schemas: valid ones, and ones with faults.

The schemas use few keywords (type, properties, required, additionalProperties, enum, maxLength,
minimum, maximum, multipleOf, items, minItems, maxItems, format date-time, $ref into definitions),
so the generator is written from them directly (hypothesis-jsonschema does not run on the
Hypothesis this project uses, nor resolve the 2.1 schemas' ``$id`` references). Numbers come as
ints, floats and Decimals, as a payload the harness builds and one parsed off the wire hold them.
A faulty node breaks one keyword of its schema, or is a borderline value a correct validator may
accept (a Decimal 2.0 where draft 6 wants an integer, a leap second); the caller decides what to assert.
"""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal
from typing import Any

from hypothesis import strategies as st

from harness.ocpp.versions import OcppVersion

CHILDREN = 2            # at most this many items beyond minItems: payloads stay small
OPTIONAL_DEPTH = 3      # deeper objects carry only their required properties
FAULT_ODDS = 6          # a node is faulty about once in this many when faults are wanted
JSON_SCALARS = st.one_of(st.none(), st.booleans(), st.integers(), st.text(max_size=5),
                         st.decimals(allow_nan=False, allow_infinity=False, places=2))
ANY_JSON = st.recursive(JSON_SCALARS, lambda inner: st.lists(inner, max_size=2)
                        | st.dictionaries(st.text(max_size=3), inner, max_size=2), max_leaves=4)


def _date_times(version: OcppVersion) -> st.SearchStrategy[str]:
    """Date-times as the version writes them: RFC 3339 in 2.x; ISO 8601 with an optional zone in 1.6."""
    stamps = st.datetimes(min_value=datetime(1970, 1, 1), max_value=datetime(2100, 1, 1))
    zones = st.sampled_from(["Z", "z", "+00:00", "-05:30", "+14:00"]
                            + (["", "+0200", "-0830"] if version is OcppVersion.V16 else []))
    fractions = st.sampled_from(["", ".0", ".123", ".123456789"])

    def write(stamp: datetime, zone: str, fraction: str, leap: bool) -> str:
        text = stamp.strftime("%Y-%m-%dT%H:%M:") + ("60" if leap else stamp.strftime("%S"))
        return text + fraction + zone
    return st.builds(write, stamps, zones, fractions, st.booleans())


BAD_DATE_TIMES = st.sampled_from([
    "2024-01-01 00:00:00Z", "2024-13-01T00:00:00Z", "2024-02-30T00:00:00Z", "2024-01-01T24:00:00Z",
    "2024-01-01T00:00:61Z", "2024-01-01T00:00:00+24:00", "2024-01-01T00:00:00", "2024-01-01T00:00:00+0200",
    "2024-01-01", "yesterday", "", "2024-01-01T00:00:00.Z", "2024-1-01T00:00:00Z"])


class PayloadStrategies:
    """Strategies for the payloads of one schema (``root``, with its ``definitions``)."""

    def __init__(self, root: dict, version: OcppVersion):
        self.root, self.version = root, version
        # a node's faulty strategy, built once: hypothesis validates each strategy object it meets, and
        # building the node's anew at every draw (its whole subtree) was most of a test's time
        self._faulty: dict[tuple[int, int], st.SearchStrategy[Any]] = {}

    def resolve(self, node: dict) -> dict:
        while "$ref" in node:
            node = self.root["definitions"][node["$ref"].rsplit("/", 1)[-1]]
        return node

    def payload(self, *, faults: bool) -> st.SearchStrategy[Any]:
        return self.node(self.root, faults, 0)

    def node(self, node: dict, faults: bool, depth: int) -> st.SearchStrategy[Any]:
        node = self.resolve(node)
        valid = self.valid(node, faults, depth)
        if not faults:
            return valid
        key = (id(node), depth)
        if key not in self._faulty:
            self._faulty[key] = self.faulty(node, depth)
        faulty = self._faulty[key]
        return st.integers(1, FAULT_ODDS).flatmap(lambda n: faulty if n == 1 else valid)

    # ------------------------------------------------------------------ valid
    def valid(self, node: dict, faults: bool, depth: int) -> st.SearchStrategy[Any]:
        kind = node.get("type")
        if kind is None:       # DataTransfer data: any JSON value
            return ANY_JSON
        if kind == "object":
            properties = node.get("properties", {})
            required = set(node.get("required", ()))
            optional = set(properties) - required if depth < OPTIONAL_DEPTH else set()
            fixed = st.fixed_dictionaries(
                {name: self.node(properties[name], faults, depth + 1) for name in properties if name in required},
                optional={name: self.node(properties[name], faults, depth + 1) for name in properties
                          if name in optional})
            if node.get("additionalProperties", True) is False:
                return fixed
            extra = st.dictionaries(st.text(min_size=1, max_size=5).filter(lambda k: k not in properties),
                                    JSON_SCALARS, max_size=2)
            return st.tuples(fixed, extra).map(lambda both: {**both[1], **both[0]})
        if kind == "array":
            low = node.get("minItems", 0)
            high = min(node.get("maxItems", low + CHILDREN), low + CHILDREN)
            return st.lists(self.node(node["items"], faults, depth + 1), min_size=low, max_size=high)
        if kind == "string":
            if "enum" in node:
                return st.sampled_from(node["enum"])
            if node.get("format") == "date-time":
                return _date_times(self.version)
            longest = node.get("maxLength")
            return st.text(max_size=8) if longest is None else st.text(max_size=min(longest, 8)) | st.just("é" * longest)
        if kind == "boolean":
            return st.booleans()
        low, high = node.get("minimum"), node.get("maximum")
        if kind == "integer":
            return st.integers(low, high)
        if "multipleOf" in node:
            step = Decimal(str(node["multipleOf"]))
            steps = st.integers(None if low is None else int(Decimal(str(low)) / step),
                                None if high is None else int(Decimal(str(high)) / step))
            return st.one_of(steps.map(lambda n: n * step), steps.map(lambda n: float(n * step)))
        as_float = {"min_value": None if low is None else float(low), "max_value": None if high is None else float(high)}
        return st.one_of(st.decimals(low, high, allow_nan=False, allow_infinity=False),
                         st.floats(allow_nan=False, allow_infinity=False, **as_float),
                         st.integers(None if low is None else int(low), None if high is None else int(high)))

    # ------------------------------------------------------------------ faulty
    def faulty(self, node: dict, depth: int) -> st.SearchStrategy[Any]:
        """A value that breaks one keyword of ``node``, or a borderline one."""
        kind = node.get("type")
        if kind is None:
            return ANY_JSON
        options = [self.wrong_type(kind)]
        if kind == "object":
            valid = self.valid(node, False, depth)
            if node.get("required"):
                options.append(st.tuples(valid, st.sampled_from(node["required"])).map(
                    lambda pair: {k: v for k, v in pair[0].items() if k != pair[1]}))
            if node.get("additionalProperties", True) is False:
                options.append(valid.map(lambda payload: {**payload, "unknownField": 1}))
        elif kind == "array":
            item = self.node(node["items"], False, depth + 1)
            if node.get("maxItems", CHILDREN + 1) <= CHILDREN:
                options.append(st.lists(item, min_size=node["maxItems"] + 1, max_size=node["maxItems"] + 1))
            if node.get("minItems", 0) > 0:
                options.append(st.just([]))
        elif kind == "string":
            if "enum" in node:
                options.append(st.sampled_from(node["enum"]).map(lambda v: v + "x" if len(v) % 2 else v.lower()))
            elif node.get("format") == "date-time":
                options.append(BAD_DATE_TIMES)
            if "maxLength" in node:
                over = node["maxLength"]
                options.append(st.text(min_size=1, max_size=3).map(lambda tail: "é" * over + tail))
        elif kind in ("integer", "number"):
            if "minimum" in node:
                options.append(st.sampled_from([node["minimum"] - 1, Decimal(str(node["minimum"])) - Decimal("0.001")]))
            if "maximum" in node:
                options.append(st.sampled_from([node["maximum"] + 1, Decimal(str(node["maximum"])) + Decimal("1E-20")]))
            if kind == "integer":   # draft 6 takes a number with a zero fraction as an integer, draft 4 does not
                options.append(st.sampled_from([Decimal("2.0"), Decimal("1E+2"), 3.0, Decimal("2.5"), 2**70]))
            if "multipleOf" in node:
                step = Decimal(str(node["multipleOf"]))
                options.append(st.integers(0, 1000).map(lambda n: n * step + step / 2))
                options.append(st.sampled_from([Decimal("16.1000000000000000001"), Decimal("1E+400"),
                                                Decimal("1E-400"), 0.30000000000000004]))
        return st.one_of(options)

    @staticmethod
    def wrong_type(kind: str) -> st.SearchStrategy[Any]:
        values = {"object": {}, "array": [], "string": "7", "integer": 7, "number": Decimal("7.5"),
                  "boolean": True, "null": None}
        allowed = {kind} | ({"integer"} if kind == "number" else set())
        return st.sampled_from([value for name, value in values.items() if name not in allowed])
