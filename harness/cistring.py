"""Sameness as the texts define it, in one place: identifiers they make case-insensitive, and
objects in which a null member means the same as an absent one.

- Case-insensitive ids: OCPI's CiString fields (country_code, party_id, object ids, tariff ids,
  token uids, ``#NA``; spec 000 "Notation") and OCPP's idToken/idTag (case-insensitive
  identifiers). A platform may store one in another case and still mean the same id, so the
  harness compares them only through ``same_id`` / ``id_key``; whether an echo keeps the case
  is a rule of its own, judged where that rule lives.
- Null is absent: an OCPI object's unspecified fields count as null (spec 000 "Pagination"), so
  ``{"meter_id": null}`` and ``{}`` describe the same Session (``same_object``).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from typing import Any


def id_key(value: Any) -> str:
    """The form of a case-insensitive id that two spellings of it share."""
    return str(value).casefold()


def same_id(a: Any, b: Any) -> bool:
    """``a`` and ``b`` name the same case-insensitive id."""
    return id_key(a) == id_key(b)


def id_keys(values: Iterable[Any] | None) -> list[str]:
    """The ids of ``values`` in their shared form, sorted: two lists of the same ids compare equal."""
    return sorted(id_key(value) for value in values or ())


def same_ids(a: Iterable[Any] | None, b: Iterable[Any] | None) -> bool:
    """``a`` and ``b`` list the same case-insensitive ids, in any order (None: none)."""
    return id_keys(a) == id_keys(b)


def comparable(value: Any, ci_fields: Collection[str] = ()) -> Any:
    """``value`` in the form two equal readings share: object members that are null dropped, the
    strings of members named in ``ci_fields`` (and of their lists) in their shared case; recursively."""
    if isinstance(value, dict):
        return {name: (_ci(member) if name in ci_fields else member if type(member) in _ATOMS
                       else comparable(member, ci_fields))
                for name, member in value.items() if member is not None}
    if isinstance(value, list):
        return [item if type(item) in _ATOMS else comparable(item, ci_fields) for item in value]
    return value


_ATOMS = frozenset({str, int, float, bool, type(None)})   # what ``comparable`` leaves as it is (no call per member)


def _ci(member: Any) -> Any:
    if isinstance(member, str):
        return id_key(member)
    if isinstance(member, list):
        return [id_key(item) if isinstance(item, str) else item for item in member]
    return member


def same_object(a: Any, b: Any, ci_fields: Collection[str] = ()) -> bool:
    """``a`` and ``b`` are the same once null members count as absent and ``ci_fields`` ignore case."""
    return bool(comparable(a, ci_fields) == comparable(b, ci_fields))
