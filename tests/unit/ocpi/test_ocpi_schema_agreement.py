"""The compiled OCPI validator and the detailed one agree (harness/ocpi/schemas.py).

The compiled validator (jsonschema-rs) decides alone when it accepts, so it must never accept what the
detailed one (jsonschema, which names the field) rejects, nor reject what it accepts without the detailed
one being asked. Objects are the realistic examples with one part replaced by any JSON value (strings
with control characters, newlines and non-ASCII text, numbers of any size, nulls, arrays, objects) or
removed, as a peer could send them.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import ocpi_examples
from harness import cistring
from harness.ocpi import schemas

EXAMPLES = {"location": ocpi_examples.location, "session": ocpi_examples.session,
            "credentials": ocpi_examples.credentials}
JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=12) | st.from_regex(r"[0-9A-Za-z\-:.T+]{0,30}\n?", fullmatch=True)
    | st.sampled_from(["52.370216", "2024-03-01T09:15:00Z", "AVAILABLE", "SOCKET", "23:59", "", "\n"]),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=8)


def _paths(value: Any, at: tuple = ()) -> list[tuple]:
    """Every place in ``value``: object members and array items, at every depth."""
    found = [at]
    if isinstance(value, dict):
        for key, item in value.items():
            found += _paths(item, at + (key,))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found += _paths(item, at + (index,))
    return found


def _agree(name: str, instance: Any) -> None:
    """``validate`` finds a fault when the detailed validator does; on JSON as parsed, the compiled
    validator alone gives the same verdict (so valid objects never need the detailed one)."""
    stripped = cistring.comparable(instance)
    found = list(schemas.detailed(name).iter_errors(stripped))
    assert (schemas.validate(name, instance) == []) == (not found), f"{name} {instance!r}: {found[:1]}"
    if schemas._plain(stripped):
        assert schemas.compiled(name).is_valid(stripped) == (not found), f"{name} {instance!r}: {found[:1]}"


@pytest.mark.parametrize("name", EXAMPLES)
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_a_part_replaced_or_removed_gets_one_verdict_from_both(name, data):
    instance = EXAMPLES[name]()
    path = data.draw(st.sampled_from(_paths(instance)[1:]))
    parent = instance
    for step in path[:-1]:
        parent = parent[step]
    if isinstance(parent, dict) and data.draw(st.booleans()):
        del parent[path[-1]]
    else:
        parent[path[-1]] = data.draw(JSON)
    _agree(name, instance)


@pytest.mark.parametrize("name", EXAMPLES)
def test_the_examples_and_their_parts_pass_both(name):
    instance = EXAMPLES[name]()
    _agree(name, instance)
    assert schemas.validate(name, instance) == []


def test_values_no_json_parser_gives_are_judged_by_the_detailed_validator():
    """jsonschema-rs reads a tuple as an array and ``Decimal("230")`` as an integer, jsonschema neither; bytes and a
    lone surrogate it cannot read: the detailed validator's verdict stands."""
    location = ocpi_examples.location()
    location["evses"] = tuple(location["evses"])
    assert [str(v) for v in schemas.validate("location", location)] == ["evses: must be of type array"]
    connector = ocpi_examples.location()["evses"][0]["connectors"][0]
    connector["max_voltage"] = Decimal("230")
    assert [str(v) for v in schemas.validate("connector", connector)] == ["max_voltage: must be of type integer"]
    for value in (b"bytes", "\ud800"):
        location["evses"] = value
        assert [str(v) for v in schemas.validate("location", location)] == ["evses: must be of type array"]


def test_a_text_ending_in_a_newline_fails_in_an_object_of_another_file_too():
    """ECMA-262's ``$`` in the detailed validator also across a ``$ref`` to another file (found by the
    agreement above: a role's party_id "\\n" in Credentials passed jsonschema, not jsonschema-rs)."""
    credentials = ocpi_examples.credentials()
    credentials["roles"][0]["party_id"] = "EM\n"
    location = ocpi_examples.location()
    location["evses"][0]["uid"] = "3256\n"
    assert [str(v) for v in schemas.validate("credentials", credentials)] == ["roles[0].party_id: must match ^[ -~]*$"]
    assert [str(v) for v in schemas.validate("location", location)] == ["evses[0].uid: must match ^[ -~]*$"]
