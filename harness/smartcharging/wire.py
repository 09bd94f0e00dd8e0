"""Wire shapes of smart charging in OCPP 1.6 and 2.0.1, to and from the neutral model.

Field names were checked against the official schemas shipped with the ``ocpp`` package
(v16: SetChargingProfile, GetCompositeScheduleResponse, ClearChargingProfile; v201:
SetChargingProfileRequest, GetCompositeScheduleResponse, ClearChargingProfileRequest,
GetChargingProfilesRequest, ReportChargingProfilesRequest). What differs between the versions
is data (``_Shape``), not code. Payloads come from the peer, so a malformed one is a
``PeerViolation`` of the row ``sc.payload``; asking 1.6 to carry what it cannot (phaseToUse, three
schedules) is our misuse, a ``HarnessError``. Numbers stay ``Decimal`` (parse JSON with ``parse_float=Decimal``).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone
from decimal import Decimal
from typing import Any, Literal, TypeVar, overload

from harness.errors import HarnessError, PeerViolation
from harness.ocpp.versions import OcppVersion
from harness.rules import RuleTable, must
from harness.smartcharging.model import (
    ChargingProfile, ChargingSchedule, ClearCriteria, CompositeSchedule, Kind, LimitSource,
    Purpose, RateUnit, Recurrency, ReportCriteria, SchedulePeriod, to_decimal,
)


class SmartChargingWire(RuleTable, namespace="sc"):
    """What the smart-charging core blames a peer for: a payload it cannot read."""
    payload = must("spec 001 Smart charging types and messages; spec 002 ChargingProfile class and "
                   "SetChargingProfile, GetCompositeSchedule, ClearChargingProfile payloads",
                   "a smart-charging payload has the fields, types and values its version defines")


@dataclass(frozen=True)
class _Shape:
    version: OcppVersion
    purposes: dict[Purpose, str]
    profile_id: str            # key of the profile id
    schedule_list: bool        # 2.0.1: a list of 1-3 schedules; 1.6: one object
    transaction_int: bool      # 1.6 transactionId is an integer, 2.0.1 a string
    phase_to_use: bool         # only 2.0.1 periods have phaseToUse
    evse_key: str              # connectorId / evseId in requests and composites


_COMMON_PURPOSES = {Purpose.TX_DEFAULT: "TxDefaultProfile", Purpose.TX: "TxProfile"}
_S16 = _Shape(OcppVersion.V16, {Purpose.STATION_MAX: "ChargePointMaxProfile", **_COMMON_PURPOSES},
              "chargingProfileId", False, True, False, "connectorId")
_S201 = _Shape(OcppVersion.V201, {Purpose.STATION_MAX: "ChargingStationMaxProfile", **_COMMON_PURPOSES,
                                  Purpose.EXTERNAL: "ChargingStationExternalConstraints"},
               "id", True, False, True, "evseId")


def shape(version: OcppVersion) -> _Shape:
    """The wire differences of a version; 2.1 is refused (its profiles carry more than modelled)."""
    if version is OcppVersion.V16:
        return _S16
    if version is OcppVersion.V201:
        return _S201
    raise HarnessError(f"smart charging is modelled for OCPP 1.6 and 2.0.1, not {version.label}")


def iso(moment: datetime) -> str:
    """RFC 3339 text in UTC with a Z, fractions only when there are any."""
    return moment.astimezone(timezone.utc).isoformat().replace("+00:00", "Z")


_M = TypeVar("_M")   # a member of the enumeration a _Reader reads (its names: the texts on the wire)


class _Reader:
    """Typed access to one JSON object of a peer's payload; faults name the JSON path."""

    _TYPES = {"integer": int, "string": str, "object": dict, "array": list}

    def __init__(self, data: Any, path: str, version: OcppVersion):
        self.path, self.version = path, version
        if not isinstance(data, dict):
            raise self._fail(path, "an object", data)
        self.data = data

    def _fail(self, path: str, wanted: str, actual: Any) -> PeerViolation:
        return PeerViolation(SmartChargingWire.payload,
                             f"{self.version.label}: {path or '(payload)'} must be {wanted}",
                             expected=wanted, actual=actual, protocol=self.version.value)

    def get(self, key: str, kind: str, required: bool = False) -> Any:
        path = self._key_path(key)
        if key not in self.data:
            if required:
                raise self._fail(path, f"present ({kind})", None)
            return None
        value = self.data[key]
        if kind == "date-time":
            return self._time(path, value)
        if kind == "number":
            if isinstance(value, bool) or not isinstance(value, (int, float, Decimal)):
                raise self._fail(path, "a number", value)
            return to_decimal(value)
        if isinstance(value, bool) or not isinstance(value, self._TYPES[kind]):
            raise self._fail(path, f"of type {kind}", value)
        return value

    def _time(self, path: str, value: Any) -> datetime:
        try:
            moment = datetime.fromisoformat(value)
        except (TypeError, ValueError):
            moment = None
        if moment is None or moment.utcoffset() is None:
            raise self._fail(path, "an RFC 3339 date-time with a zone offset", value)
        return moment.astimezone(timezone.utc)

    def _key_path(self, key: str) -> str:
        return f"{self.path}.{key}".lstrip(".")

    def _member(self, path: str, names: dict[_M, str], text: Any) -> _M:
        for member, name in names.items():
            if name == text:
                return member
        raise self._fail(path, f"one of {sorted(names.values())}", text)

    @overload
    def enum(self, key: str, names: dict[_M, str], required: Literal[True]) -> _M: ...
    @overload
    def enum(self, key: str, names: dict[_M, str], required: bool = False) -> _M | None: ...

    def enum(self, key: str, names: dict[_M, str], required: bool = False) -> _M | None:
        text = self.get(key, "string", required)
        return None if text is None else self._member(self._key_path(key), names, text)

    def enums(self, key: str, names: dict[_M, str]) -> frozenset[_M] | None:
        values = self.get(key, "array")
        if values is None:
            return None
        return frozenset(self._member(f"{self._key_path(key)}[{i}]", names, v) for i, v in enumerate(values))

    def integers(self, key: str) -> frozenset[int] | None:
        values = self.get(key, "array")
        if values is not None and any(isinstance(v, bool) or not isinstance(v, int) for v in values):
            raise self._fail(self._key_path(key), "a list of integers", values)
        return None if values is None else frozenset(values)

    def child(self, key: str, data: Any, index: int | None = None) -> _Reader:
        path = self._key_path(key) + ("" if index is None else f"[{index}]")
        return _Reader(data, path, self.version)


_KINDS = {k: k.value for k in Kind}
_RECURRENCIES = {r: r.value for r in Recurrency}
_UNITS = {u: u.value for u in RateUnit}


def _period_from(r: _Reader, s: _Shape) -> SchedulePeriod:
    return SchedulePeriod(r.get("startPeriod", "integer", True), r.get("limit", "number", True),
                          r.get("numberPhases", "integer"),
                          r.get("phaseToUse", "integer") if s.phase_to_use else None)


def _schedule_from(r: _Reader, s: _Shape) -> ChargingSchedule:
    periods = r.get("chargingSchedulePeriod", "array", True)
    return ChargingSchedule(
        rate_unit=r.enum("chargingRateUnit", _UNITS, True),
        periods=tuple(_period_from(r.child("chargingSchedulePeriod", p, i), s) for i, p in enumerate(periods)),
        id=r.get("id", "integer", True) if s.schedule_list else None,
        start_schedule=r.get("startSchedule", "date-time"),
        duration=r.get("duration", "integer"),
        min_charging_rate=r.get("minChargingRate", "number"),
        sales_tariff=r.get("salesTariff", "object") if s.schedule_list else None,
    )


def _profile_from(payload: Any, s: _Shape) -> ChargingProfile:
    r = _Reader(payload, "", s.version)
    if s.schedule_list:
        raw = r.get("chargingSchedule", "array", True)
        schedules = tuple(_schedule_from(r.child("chargingSchedule", x, i), s) for i, x in enumerate(raw))
    else:
        schedules = (_schedule_from(r.child("chargingSchedule", r.get("chargingSchedule", "object", True)), s),)
    transaction = r.get("transactionId", "integer" if s.transaction_int else "string")
    return ChargingProfile(
        id=r.get(s.profile_id, "integer", True),
        stack_level=r.get("stackLevel", "integer", True),
        purpose=r.enum("chargingProfilePurpose", s.purposes, True),
        kind=r.enum("chargingProfileKind", _KINDS, True),
        schedules=schedules,
        recurrency_kind=r.enum("recurrencyKind", _RECURRENCIES),
        valid_from=r.get("validFrom", "date-time"),
        valid_to=r.get("validTo", "date-time"),
        transaction_id=None if transaction is None else str(transaction),
    )


def from_v16(payload: Any) -> ChargingProfile:
    """A 1.6 ``chargingProfile`` / ``csChargingProfiles`` object."""
    return _profile_from(payload, _S16)


def from_v201(payload: Any) -> ChargingProfile:
    """A 2.0.1 ``chargingProfile`` object."""
    return _profile_from(payload, _S201)


def _put(out: dict[str, Any], key: str, value: Any) -> None:
    if value is not None:
        out[key] = iso(value) if isinstance(value, datetime) else value


def _period_to(p: SchedulePeriod, s: _Shape) -> dict[str, Any]:
    if p.phase_to_use is not None and not s.phase_to_use:
        raise HarnessError("OCPP 1.6 periods cannot carry phaseToUse")
    out = {"startPeriod": p.start_period, "limit": p.limit}
    _put(out, "numberPhases", p.number_phases)
    _put(out, "phaseToUse", p.phase_to_use)
    return out


def _schedule_to(c: ChargingSchedule, s: _Shape) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if s.schedule_list:
        if c.id is None:
            raise HarnessError("a 2.0.1 charging schedule needs an id")
        out["id"] = c.id
    elif c.sales_tariff is not None:
        raise HarnessError("OCPP 1.6 schedules cannot carry a salesTariff")
    _put(out, "startSchedule", c.start_schedule)
    _put(out, "duration", c.duration)
    out["chargingRateUnit"] = c.rate_unit.value
    out["chargingSchedulePeriod"] = [_period_to(p, s) for p in c.periods]
    _put(out, "minChargingRate", c.min_charging_rate)
    _put(out, "salesTariff", c.sales_tariff)
    return out


def _profile_to(p: ChargingProfile, s: _Shape) -> dict[str, Any]:
    if p.purpose not in s.purposes:
        raise HarnessError(f"{s.version.label} has no {p.purpose.value} purpose")
    out: dict[str, Any] = {s.profile_id: p.id, "stackLevel": p.stack_level,
                           "chargingProfilePurpose": s.purposes[p.purpose], "chargingProfileKind": p.kind.value}
    _put(out, "recurrencyKind", None if p.recurrency_kind is None else p.recurrency_kind.value)
    _put(out, "validFrom", p.valid_from)
    _put(out, "validTo", p.valid_to)
    if s.schedule_list:
        out["chargingSchedule"] = [_schedule_to(c, s) for c in p.schedules]
    elif len(p.schedules) == 1:
        out["chargingSchedule"] = _schedule_to(p.schedules[0], s)
    else:
        raise HarnessError("an OCPP 1.6 profile carries exactly one schedule")
    if p.transaction_id is not None:
        if s.transaction_int and not p.transaction_id.isdigit():
            raise HarnessError(f"OCPP 1.6 transaction ids are integers, not {p.transaction_id!r}")
        out["transactionId"] = int(p.transaction_id) if s.transaction_int else p.transaction_id
    return out


def to_v16(profile: ChargingProfile) -> dict[str, Any]:
    return _profile_to(profile, _S16)


def to_v201(profile: ChargingProfile) -> dict[str, Any]:
    return _profile_to(profile, _S201)


def composite_to_wire(composite: CompositeSchedule, version: OcppVersion) -> dict[str, Any]:
    """The Accepted GetCompositeSchedule answer: 1.6 ``.conf`` or 2.0.1 ``Response``."""
    s = shape(version)
    periods = [_period_to(p, s) for p in composite.periods]
    start = iso(composite.schedule_start)
    if s is _S16:
        return {"status": "Accepted", "connectorId": composite.evse_id, "scheduleStart": start,
                "chargingSchedule": {"duration": composite.duration, "startSchedule": start,
                                     "chargingRateUnit": composite.rate_unit.value,
                                     "chargingSchedulePeriod": periods}}
    return {"status": "Accepted",
            "schedule": {"evseId": composite.evse_id, "duration": composite.duration, "scheduleStart": start,
                         "chargingRateUnit": composite.rate_unit.value, "chargingSchedulePeriod": periods}}


def composite_from_wire(payload: Any, version: OcppVersion) -> CompositeSchedule | None:
    """A station's GetCompositeSchedule answer as a model (None when it is Rejected), for verifiers."""
    s = shape(version)
    r = _Reader(payload, "", version)
    if r.enum("status", {"Accepted": "Accepted", "Rejected": "Rejected"}, True) == "Rejected":
        return None
    if s is _S16:
        evse_id, start = r.get("connectorId", "integer", True), r.get("scheduleStart", "date-time", True)
        body = r.child("chargingSchedule", r.get("chargingSchedule", "object", True))
        duration = body.get("duration", "integer", True)
    else:
        body = r.child("schedule", r.get("schedule", "object", True))
        evse_id, start = body.get("evseId", "integer", True), body.get("scheduleStart", "date-time", True)
        duration = body.get("duration", "integer", True)
    periods = body.get("chargingSchedulePeriod", "array", True)
    return CompositeSchedule(evse_id, start, duration, body.enum("chargingRateUnit", _UNITS, True),
                             tuple(_period_from(body.child("chargingSchedulePeriod", p, i), s)
                                   for i, p in enumerate(periods)))


def clear_criteria(payload: Any, version: OcppVersion) -> ClearCriteria:
    """ClearChargingProfile request: 1.6 flat fields, 2.0.1 id plus chargingProfileCriteria."""
    s = shape(version)
    r = _Reader(payload, "", version)
    if s is _S16:
        return ClearCriteria(r.get("id", "integer"), r.get("connectorId", "integer"),
                             r.enum("chargingProfilePurpose", s.purposes), r.get("stackLevel", "integer"))
    raw = r.get("chargingProfileCriteria", "object")
    c = r.child("chargingProfileCriteria", {} if raw is None else raw)
    return ClearCriteria(r.get("chargingProfileId", "integer"), c.get("evseId", "integer"),
                         c.enum("chargingProfilePurpose", s.purposes), c.get("stackLevel", "integer"))


def report_criteria(payload: Any) -> ReportCriteria:
    """2.0.1 GetChargingProfilesRequest (1.6 has no such message)."""
    r = _Reader(payload, "", OcppVersion.V201)
    c = r.child("chargingProfile", r.get("chargingProfile", "object", True))
    return ReportCriteria(
        request_id=r.get("requestId", "integer", True),
        evse_id=r.get("evseId", "integer"),
        purpose=c.enum("chargingProfilePurpose", _S201.purposes),
        stack_level=c.get("stackLevel", "integer"),
        profile_ids=c.integers("chargingProfileId"),
        sources=c.enums("chargingLimitSource", {x: x.value for x in LimitSource}),
    )


def set_request(payload: Any, version: OcppVersion) -> tuple[int, ChargingProfile]:
    """SetChargingProfile request: (evse id, profile). 1.6 names them connectorId/csChargingProfiles."""
    s = shape(version)
    r = _Reader(payload, "", version)
    key = "chargingProfile" if s is _S201 else "csChargingProfiles"
    return r.get(s.evse_key, "integer", True), _profile_from(r.get(key, "object", True), s)


def composite_request(payload: Any, version: OcppVersion) -> tuple[int, int, RateUnit | None]:
    """GetCompositeSchedule request: (evse id, duration in seconds, requested unit or None)."""
    s = shape(version)
    r = _Reader(payload, "", version)
    return r.get(s.evse_key, "integer", True), r.get("duration", "integer", True), r.enum("chargingRateUnit", _UNITS)
