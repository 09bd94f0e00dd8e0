"""Locations of the reference OCPI peer: a CPO's own objects (Sender) and the objects a Receiver
stores, with the rules of the locations module (2.3.0).

Rules (spec 000 "Locations module", "Operating rules for Locations", the Location, EVSE and
Connector tables and "EVSE removal"; facts/ocpi-wire.md):
- L1  Sender GET list: the Locations, paginated (P1-P8 in harness/ocpi/pagination.py) and
      filtered on ``last_updated`` (date_from inclusive, date_to exclusive);
- L2  Sender GET object: exactly one Location, EVSE or Connector named by its ids; ids are
      CiStrings (compared ignoring case, echoed as stored); an unknown object gets status 2003
      (HTTP 404, as advised);
- L3  Receiver PUT of a Location, EVSE or Connector, new or replacing: country_code and party_id
      of the URL SHALL equal the Location's, the URL's ids the object's; a new object needs
      every required field; a body that breaks this gets 2001;
- L4  Receiver PATCH: only the changed fields, and it SHALL contain ``last_updated`` (2001
      without); unspecified fields stay as they are; the object must exist (2003, HTTP 404);
- L5  a changed Connector sets the ``last_updated`` of its EVSE and Location, a changed EVSE
      that of its Location;
- L6  nothing is deleted: an EVSE is removed by status REMOVED, DELETE is not defined (HTTP 405);
- L7  Receiver GET: the object as stored.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import Any

from harness.errors import HarnessError, PeerViolation
from harness.ocpi import schemas
from harness.ocpi.envelope import StatusCode, StatusError
from harness.ocpi.timestamps import format_datetime, parse_datetime

KINDS = ("location", "evse", "connector")
_ID_FIELD = {"location": "id", "evse": "uid", "connector": "id"}


def invalid(rule: str, message: str, actual: Any = None) -> StatusError:
    return StatusError(rule, message, status_code=StatusCode.INVALID_PARAMETERS, actual=actual)


def unknown(what: str, ids: Sequence[str]) -> StatusError:
    return StatusError("L2", f"unknown {what} {'/'.join(ids)}", status_code=StatusCode.UNKNOWN_LOCATION,
                       http_status=404, actual=list(ids))


def checked(kind: str, obj: Any) -> dict[str, Any]:
    """``obj`` when it is a valid ``kind`` (L3); 2001 naming the first faulty field otherwise."""
    try:
        schemas.check(kind, obj)
    except PeerViolation as violation:
        raise invalid(violation.rule, f"{kind} {violation.args[0]}", obj) from None
    return obj


def _same(a: str, b: str) -> bool:
    return str(a).lower() == str(b).lower()


def _later(a: str, b: str) -> str:
    return b if parse_datetime(b) > parse_datetime(a) else a


# ------------------------------------------------------------------------------ test data
def build_location(country_code: str, party_id: str, location_id: str,
                   evses: Iterable[tuple[str, Sequence[str]]], last_updated: str) -> dict[str, Any]:
    """A complete, valid Location with AC connectors on each EVSE."""
    def connector(connector_id: str) -> dict[str, Any]:
        return {"id": connector_id, "standard": "IEC_62196_T2", "format": "SOCKET", "power_type": "AC_3_PHASE",
                "max_voltage": 230, "max_amperage": 32, "tariff_ids": ["AC-STANDARD"], "last_updated": last_updated}

    return {
        "country_code": country_code, "party_id": party_id, "id": location_id, "publish": True,
        "name": f"Reference site {location_id}", "address": "Stationsplein 1", "city": "Utrecht",
        "postal_code": "3511 ED", "country": "NLD",
        "coordinates": {"latitude": "52.089444", "longitude": "5.110278"},
        "parking_type": "PARKING_LOT", "time_zone": "Europe/Amsterdam",
        "evses": [{"uid": uid, "status": "AVAILABLE", "capabilities": ["RFID_READER"],
                   "connectors": [connector(c) for c in connectors], "last_updated": last_updated}
                  for uid, connectors in evses],
        "last_updated": last_updated,
    }


def sample_locations(country_code: str, party_id: str, count: int = 5,
                     first: datetime = datetime(2024, 3, 1, 9, 0, tzinfo=timezone.utc)) -> list[dict[str, Any]]:
    """``count`` Locations a day apart, each with two EVSEs of one connector."""
    return [build_location(country_code, party_id, f"LOC-{n:04d}",
                           [(f"EVSE-{n:04d}-{e}", ["1"]) for e in (1, 2)],
                           format_datetime(first + timedelta(days=n - 1)))
            for n in range(1, count + 1)]


def profile_locations(country_code: str, party_id: str, entries: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Locations built from the profile's ``[[ocpi.locations]]`` entries."""
    return [build_location(country_code, party_id, entry["id"],
                           [(evse["uid"], evse.get("connectors", ["1"])) for evse in entry.get("evses", [])],
                           entry.get("last_updated", "2024-03-01T09:00:00Z"))
            for entry in entries]


# ------------------------------------------------------------------------------ the store
@dataclass(frozen=True)
class Target:
    """The object a URL names: a Location, an EVSE of it, or a Connector of that EVSE."""
    ids: tuple[str, ...]

    def __post_init__(self):
        if not 1 <= len(self.ids) <= 3 or not all(self.ids):
            raise HarnessError(f"a locations target is 1 to 3 non-empty ids, not {self.ids}")

    @property
    def kind(self) -> str:
        return KINDS[len(self.ids) - 1]


class LocationStore:
    """Locations by (country_code, party_id, id); every id compared ignoring case (CiStrings)."""

    def __init__(self, locations: Iterable[Mapping[str, Any]] = ()):
        self._locations: dict[tuple[str, str, str], dict[str, Any]] = {}
        for location in locations:
            self._locations[self._key(location["country_code"], location["party_id"], location["id"])] = \
                copy.deepcopy(dict(location))

    @staticmethod
    def _key(country_code: str, party_id: str, location_id: str) -> tuple[str, str, str]:
        return country_code.lower(), party_id.lower(), location_id.lower()

    def all(self) -> list[dict[str, Any]]:
        return list(self._locations.values())

    def owned(self, location_id: str) -> dict[str, Any] | None:
        """A Location by id alone (the Sender's view: they are all its own)."""
        return next((loc for loc in self._locations.values() if _same(loc["id"], location_id)), None)

    def chain(self, location: dict[str, Any] | None, target: Target) -> list[dict[str, Any]] | None:
        """[Location, EVSE, Connector][:depth] along ``target``, or None where one is missing."""
        found = [location] if location is not None else None
        for ids_field, child_id in (("evses", 1), ("connectors", 2)):
            if found is None or len(target.ids) <= child_id:
                break
            key = _ID_FIELD[KINDS[child_id]]
            child = next((c for c in found[-1].get(ids_field, []) if _same(c[key], target.ids[child_id])), None)
            found = found + [child] if child is not None else None
        return found

    def get(self, country_code: str, party_id: str, target: Target) -> dict[str, Any] | None:
        found = self.chain(self._locations.get(self._key(country_code, party_id, target.ids[0])), target)
        return found[-1] if found else None

    def get_owned(self, target: Target) -> dict[str, Any]:
        """L2: the Sender's object, or 2003."""
        found = self.chain(self.owned(target.ids[0]), target)
        if not found:
            raise unknown(target.kind, target.ids)
        return found[-1]

    # -------------------------------------------------------------- Receiver: PUT and PATCH
    def put(self, country_code: str, party_id: str, target: Target, obj: Any) -> bool:
        """L3/L5: store ``obj`` at ``target``; True when it is new."""
        obj = checked(target.kind, obj)
        id_field = _ID_FIELD[target.kind]
        if not _same(obj[id_field], target.ids[-1]):
            raise invalid("L3", f"the {target.kind} {id_field} differs from the URL",
                          actual={"url": target.ids[-1], "body": obj[id_field]})
        if target.kind == "location":
            for name, value in (("country_code", country_code), ("party_id", party_id)):
                if not _same(obj[name], value):
                    raise invalid("L3", f"the Location's {name} differs from the URL's",
                                  actual={"url": value, "body": obj[name]})
            key = self._key(country_code, party_id, target.ids[0])
            created = key not in self._locations
            self._locations[key] = copy.deepcopy(obj)
            return created
        chain = self._parents(country_code, party_id, target)
        children = chain[-1].setdefault("evses" if target.kind == "evse" else "connectors", [])
        index = next((i for i, c in enumerate(children) if _same(c[id_field], target.ids[-1])), None)
        if index is None:
            children.append(copy.deepcopy(obj))
        else:
            children[index] = copy.deepcopy(obj)
        self._propagate(chain, obj["last_updated"])
        return index is None

    def patch(self, country_code: str, party_id: str, target: Target, changes: Any) -> None:
        """L4/L5: apply the changed fields to the stored object."""
        if not isinstance(changes, dict):
            raise invalid("L4", "a PATCH body is a JSON object", changes)
        if changes.get("last_updated") is None:
            raise invalid("L4", "the PATCH has no last_updated", sorted(changes))
        id_field = _ID_FIELD[target.kind]
        if id_field in changes and not _same(changes[id_field], target.ids[-1]):
            raise invalid("L4", f"the PATCH changes the {target.kind} {id_field}",
                          actual={"url": target.ids[-1], "body": changes[id_field]})
        location = self._locations.get(self._key(country_code, party_id, target.ids[0]))
        chain = self.chain(location, target)
        if not chain:
            raise unknown(target.kind, target.ids)
        merged = {**chain[-1], **{k: v for k, v in changes.items() if v is not None}}
        checked(target.kind, merged)
        chain[-1].clear()
        chain[-1].update(merged)
        self._propagate(chain[:-1], merged["last_updated"])

    def _parents(self, country_code: str, party_id: str, target: Target) -> list[dict[str, Any]]:
        parent = Target(target.ids[:-1])
        location = self._locations.get(self._key(country_code, party_id, target.ids[0]))
        chain = self.chain(location, parent)
        if not chain:
            raise unknown(parent.kind, parent.ids)
        return chain

    @staticmethod
    def _propagate(parents: list[dict[str, Any]], last_updated: str) -> None:
        """L5: the parents are at least as new as the changed child."""
        for parent in parents:
            parent["last_updated"] = _later(parent["last_updated"], last_updated)
