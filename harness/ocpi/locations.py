"""The locations module (2.3.0) as rules and a sans-I/O store: what a Sender serves and what a
Receiver keeps of the Locations, EVSEs and Connectors pushed to it.

Object ids are CiStrings: compared ignoring case, echoed as stored. An EVSE is removed by status
REMOVED, never deleted. The store applies the Receiver's rules (PUT and PATCH checks, the parents'
``last_updated``) and raises ``StatusError`` with the status code to answer when a request breaks
one; the reference peer serves it over HTTP, the use cases judge a SUT by the same rows.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from harness.cistring import id_key, same_id
from harness.errors import HarnessError, PeerViolation
from harness.ocpi import schemas
from harness.ocpi.envelope import StatusCode, StatusError, json_copy
from harness.ocpi.timestamps import parse_datetime
from harness.rules import Rule, RuleTable, must, should

LOCATIONS = "locations"
_MODULE = "spec 000 Locations module"


class LocationRules(RuleTable, namespace="ocpi.locations"):
    """The locations module: the Sender's list and objects, the Receiver's PUT, PATCH and GET."""
    listed = must(f"{_MODULE}, Sender interface GET list", "the Sender lists its Locations, paginated and "
                                                           "filtered on last_updated")
    object_by_ids = must(f"{_MODULE}, Sender interface GET object", "a GET by ids answers exactly that Location, "
                         "EVSE or Connector; an unknown one is status 2003, not a success")
    not_found = should("facts/ocpi-wire.md HTTP status rules (a GET of a missing object)", "an unknown object is "
                                                                                        "answered HTTP 404")
    receiver_url = must(f"{_MODULE}, Receiver interface", "Receiver URLs are {locations}/{country_code}/{party_id}/"
                        "{location_id}[/{evse_uid}[/{connector_id}]]")
    put = must(f"{_MODULE}, Receiver interface PUT", "a PUT stores the whole object; the URL's country_code, "
               "party_id and ids equal the object's, and a new object has every required field (else 2001)")
    patch = must(f"{_MODULE}, Receiver interface PATCH", "a PATCH changes the fields it carries, never an id, and "
                 "leaves the others as they were; its object must exist (2003)")
    patch_last_updated = must(f"{_MODULE}, Receiver interface PATCH; facts/ocpi-wire.md", "a PATCH contains "
                              "last_updated; without it the Receiver answers 2001 and changes nothing")
    propagation = must("spec 000 Location and EVSE tables; Receiver PUT and PATCH", "a changed Connector sets the "
                       "last_updated of its EVSE and Location, a changed EVSE that of its Location")
    removal = must("spec 000 Operating rules for Locations 4, EVSE removal", "an EVSE is removed by status REMOVED "
                   "and stays readable; DELETE is not defined (HTTP 405)")
    stored = must(f"{_MODULE}, Receiver interface GET", "the Receiver answers an object as it was stored")
    version_offered = should("spec 000 Versioning 1 (locations at 2.3.0; the version is part of each module "
                             "endpoint URL), Endpoints (URLs from the version details)", "the platform lists version "
                             "2.3.0, whose details list its locations endpoint")
    parking_reference = must("spec 000 EVSE parking (references to parking spaces usable at this EVSE), Parking id "
                             "(unique among the Parking objects of the same Location)", "every parking reference of "
                             "an EVSE names a Parking object of its Location, and a Location's Parking ids are "
                             "unique", by="cpo")
    private_unpublished = must("spec 000 Operating rules for Locations 6 (private Locations not meant for public "
                               "charging SHALL NOT be published); Location publish", "a Location the CPO declares "
                               "private is never published: wherever it is served, its publish is false", by="cpo")
    unpublished_kept = must("spec 000 Location publish, publish_allowed_to and its Rules (publish = false: shown only "
                            "to owners of a Token matching all set fields of one publish_allowed_to entry, also by "
                            "eMSPs that do not own that Token); Receiver interface GET (as stored)", "the Receiver "
                            "keeps a Location's publish = false and every publish_allowed_to entry as pushed (PUT or "
                            "PATCH): they decide who may be shown it", by="emsp")
    expired = must("spec 000 Operating rules for Locations 4 (a Location without any valid EVSE is expired; Locations, "
                   "EVSEs and Connectors are never deleted); EVSE removal table", "when every EVSE of a Location is "
                   "REMOVED the Location is expired, not deleted: it and each of its EVSEs still answer by their ids, "
                   "every EVSE REMOVED")
    coordinates = must("spec 000 AdditionalGeoLocation latitude, longitude (decimal degrees, WGS 84, dot separator, "
                       "optional minus, 1-2 or 1-3 integer digits, 5-7 decimals); GeoLocation (latitude and longitude "
                       "as strings)", "every latitude and longitude (Location, EVSE, related locations) is a decimal "
                       "degree string of that form within WGS 84 (latitude to 90, longitude to 180), kept as sent")
    ids_as_sent = should("spec 000 Notation (CiString), Location (id never changed), EVSE (uid never changed); "
                         "facts/ocpi-wire.md Other rules (compare CiStrings ignoring case, echo them as sent)",
                         "a Location's country_code, party_id and id, an EVSE's uid and a Connector's id come back "
                         "as they were sent, in the same case")


KINDS = ("location", "evse", "connector")
_ID_FIELD = {"location": "id", "evse": "uid", "connector": "id"}


def invalid(rule: Rule, message: str, actual: Any = None) -> StatusError:
    return StatusError(rule, message, status_code=StatusCode.INVALID_PARAMETERS, actual=actual)


def unknown(what: str, ids: Sequence[str]) -> StatusError:
    return StatusError(LocationRules.object_by_ids, f"unknown {what} {'/'.join(ids)}",
                       status_code=StatusCode.UNKNOWN_LOCATION, http_status=404, actual=list(ids))


def checked(kind: str, obj: Any) -> dict[str, Any]:
    """``obj`` without its null members when it is a valid ``kind`` (a null member counts as absent,
    spec 000 Pagination: what a store keeps and walks has no nulls); 2001 naming the first faulty field
    otherwise."""
    try:
        schemas.check(kind, obj)
    except PeerViolation as violation:
        raise invalid(violation.rule, f"{kind} {violation.args[0]}", obj) from None
    kept: dict[str, Any] = without_nulls(obj)
    return kept


def without_nulls(value: Any) -> Any:
    """``value`` with the object members that are null left out, at every depth."""
    if isinstance(value, dict):
        return {key: without_nulls(member) for key, member in value.items() if member is not None}
    if isinstance(value, list):
        return [without_nulls(item) for item in value]
    return value


def _later(a: str, b: str) -> str:
    return b if parse_datetime(b) > parse_datetime(a) else a


def last_updated(obj: Mapping[str, Any]) -> datetime:
    return parse_datetime(obj["last_updated"])


def parking_problems(location: Mapping[str, Any]) -> list[str]:
    """What is wrong with a Location's Parking places and its EVSEs' references to them."""
    ids = [id_key(place.get("id")) for place in location.get("parking_places") or []]
    problems = [f"Parking id {name} repeats" for name in sorted({i for i in ids if ids.count(i) > 1})]
    for evse in location.get("evses") or []:
        problems += [f"EVSE {evse.get('uid')} references Parking {ref.get('parking_id')}, which the Location lacks"
                     for ref in evse.get("parking") or [] if id_key(ref.get("parking_id")) not in ids]
    return problems


_DEGREES = {"latitude": (re.compile(r"-?[0-9]{1,2}\.[0-9]{5,7}\Z"), 90),
            "longitude": (re.compile(r"-?[0-9]{1,3}\.[0-9]{5,7}\Z"), 180)}


def coordinate_problems(location: Mapping[str, Any]) -> list[str]:
    """What is wrong with the latitudes and longitudes of a Location, its related locations and its
    EVSEs: each a string of the decimal-degree form, within WGS 84's range."""
    points = [("coordinates", location.get("coordinates"))]
    points += [(f"related_locations[{i}]", point) for i, point in enumerate(location.get("related_locations") or [])]
    points += [(f"EVSE {evse.get('uid')} coordinates", evse.get("coordinates")) for evse in location.get("evses") or []
               if evse.get("coordinates") is not None]
    problems = []
    for where, point in points:
        for axis, (form, bound) in _DEGREES.items():
            value = (point or {}).get(axis)
            if not isinstance(value, str) or not form.match(value):
                problems.append(f"{where}.{axis} {value!r} is not a decimal-degree string")
            elif abs(float(value)) > bound:
                problems.append(f"{where}.{axis} {value} is beyond +-{bound} degrees")
    return problems


# ------------------------------------------------------------------------------ the store
@dataclass(frozen=True)
class Target:
    """The object a URL names: a Location, an EVSE of it, or a Connector of that EVSE."""
    ids: tuple[str, ...]

    def __post_init__(self) -> None:
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
                json_copy(dict(location))

    @staticmethod
    def _key(country_code: str, party_id: str, location_id: str) -> tuple[str, str, str]:
        return id_key(country_code), id_key(party_id), id_key(location_id)

    def all(self) -> list[dict[str, Any]]:
        return list(self._locations.values())

    def owned(self, location_id: str) -> dict[str, Any] | None:
        """A Location by id alone (the Sender's view: they are all its own)."""
        return next((loc for loc in self._locations.values() if same_id(loc["id"], location_id)), None)

    def chain(self, location: dict[str, Any] | None, target: Target) -> list[dict[str, Any]] | None:
        """[Location, EVSE, Connector][:depth] along ``target``, or None where one is missing."""
        found = [location] if location is not None else None
        for ids_field, child_id in (("evses", 1), ("connectors", 2)):
            if found is None or len(target.ids) <= child_id:
                break
            key = _ID_FIELD[KINDS[child_id]]
            child = next((c for c in found[-1].get(ids_field, []) if same_id(c[key], target.ids[child_id])), None)
            found = found + [child] if child is not None else None
        return found

    def get(self, country_code: str, party_id: str, target: Target) -> dict[str, Any] | None:
        found = self.chain(self._locations.get(self._key(country_code, party_id, target.ids[0])), target)
        return found[-1] if found else None

    def get_owned(self, target: Target) -> dict[str, Any]:
        """The Sender's object, or 2003."""
        found = self.chain(self.owned(target.ids[0]), target)
        if not found:
            raise unknown(target.kind, target.ids)
        return found[-1]

    # -------------------------------------------------------------- Receiver: PUT and PATCH
    def put(self, country_code: str, party_id: str, target: Target, obj: Any) -> bool:
        """Store ``obj`` at ``target``; True when it is new."""
        obj = checked(target.kind, obj)
        id_field = _ID_FIELD[target.kind]
        if not same_id(obj[id_field], target.ids[-1]):
            raise invalid(LocationRules.put, f"the {target.kind} {id_field} differs from the URL",
                          actual={"url": target.ids[-1], "body": obj[id_field]})
        if target.kind == "location":
            for name, value in (("country_code", country_code), ("party_id", party_id)):
                if not same_id(obj[name], value):
                    raise invalid(LocationRules.put, f"the Location's {name} differs from the URL's",
                                  actual={"url": value, "body": obj[name]})
            key = self._key(country_code, party_id, target.ids[0])
            created = key not in self._locations
            self._locations[key] = json_copy(obj)
            return created
        chain = self._parents(country_code, party_id, target)
        children = chain[-1].setdefault("evses" if target.kind == "evse" else "connectors", [])
        index = next((i for i, c in enumerate(children) if same_id(c[id_field], target.ids[-1])), None)
        if index is None:
            children.append(json_copy(obj))
        else:
            children[index] = json_copy(obj)
        self._propagate(chain, obj["last_updated"])
        return index is None

    def patch(self, country_code: str, party_id: str, target: Target, changes: Any) -> None:
        """Apply the changed fields to the stored object."""
        if not isinstance(changes, dict):
            raise invalid(LocationRules.patch, "a PATCH body is a JSON object", changes)
        if changes.get("last_updated") is None:
            raise invalid(LocationRules.patch_last_updated, "the PATCH has no last_updated", sorted(changes))
        id_field = _ID_FIELD[target.kind]
        if id_field in changes and not same_id(changes[id_field], target.ids[-1]):
            raise invalid(LocationRules.patch, f"the PATCH changes the {target.kind} {id_field}",
                          actual={"url": target.ids[-1], "body": changes[id_field]})
        location = self._locations.get(self._key(country_code, party_id, target.ids[0]))
        chain = self.chain(location, target)
        if not chain:
            raise unknown(target.kind, target.ids)
        merged = checked(target.kind, {**chain[-1], **{k: v for k, v in changes.items() if v is not None}})
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
        """The parents are at least as new as the changed child."""
        for parent in parents:
            parent["last_updated"] = _later(parent["last_updated"], last_updated)
