"""Sans-I/O charging-profile engine for OCPP 1.6 and 2.0.1: may a profile be installed, what
composite schedule results, which profiles a Clear or GetChargingProfiles request selects.

No sockets, no asyncio, no clock: every time is passed in (tz-aware). Documents: "doc 001" is
shared/spec/001 (2.0.1 smart charging), "doc 002" is shared/spec/002 (1.6); K01.FR.nn are the
numbered requirements of OCPP 2.0.1 part 2 that the documents leave out.

Validation (data: ``RULES``, checked in that order; the first broken rule is the answer)
  not-supported       A station without smart charging takes no profile: 1.6 NotSupported,
                      2.0.1 a CALLERROR NotSupported. doc 002 feature profiles and
                      ChargingProfileStatus; K01.FR.29.
  external-from-csms  A CSMS never sets ChargingStationExternalConstraints. doc 001
                      SetChargingProfile rule 1; K01.FR.22. reasonCode InvalidProfile: the
                      purpose, a profile field, is not the CSMS's to use; the schedule itself may
                      be fine (so not InvalidSchedule) and nothing is duplicated.
  unknown-evse        The EVSE (1.6 connector) exists; 0 is the station. doc 001 Errors; K01.FR.28.
  station-max-evse    The station-max purpose only at EVSE 0. doc 001 rule 3; doc 002 rule 11.
  station-max-relative 2.0.1: the station max is never Relative. doc 001 rule 3; K01.FR.38.
                      (1.6 has no such rule: such a profile is anchored like any Relative one.)
  tx-evse             TxProfile only at an EVSE above 0. doc 001 rule 2; doc 002 rule 11; K01.FR.16.
  tx-id-required      2.0.1: a TxProfile names its transaction. doc 001 rule 2; K01.FR.03.
                      (1.6: optional, doc 002 ChargingProfile class.)
  tx-id-purpose       Only a TxProfile carries a transactionId. doc 002 ChargingProfile class;
                      the 2.0.1 schema's description of transactionId.
  stack-level         stackLevel from 0 to the station's ChargeProfileMaxStackLevel. doc 002
                      ChargingProfile class and rule 15.
  schedule-count      2.0.1: 1 to 3 schedules; 1.6: exactly one. doc 001 Limits; doc 002
                      ChargingProfile class.
  rate-unit           Each schedule's unit is one the station supports. doc 001 Errors
                      (UnsupportedRateUnit); doc 002 rule 15; K01.FR.26.
  period-count        1 to 1024 periods, at most ChargingScheduleMaxPeriods. doc 001 Limits;
                      doc 002 rule 15.
  first-period        The first startPeriod is 0. doc 001 rule 5; doc 002 ChargingSchedulePeriod;
                      K01.FR.31.
  period-order        startPeriods strictly increase (each one ends the one before). doc 002
                      ChargingSchedulePeriod; K01.FR.35.
  one-decimal         limit and minChargingRate have at most one fraction digit, judged on the
                      value (8.10 is fine). doc 001 and doc 002 Limits; facts/ocpp-j.md.
  non-negative        limits, minChargingRate and duration are not negative: they are rates and
                      elapsed seconds, and neither version defines discharging. doc 002
                      ChargingSchedule and ChargingSchedulePeriod.
  number-phases       numberPhases, when given, is 1 to 3 (an AC supply). doc 002
                      ChargingSchedulePeriod; K01.FR.49.
  phase-to-use        phaseToUse (1 to 3) only with numberPhases 1 and on a station that can
                      switch phases. doc 001 Errors (phase conflict) and Limits; K01.FR.19/20.
  start-schedule      Absolute and Recurring schedules have a startSchedule, Relative ones do
                      not. doc 002 ChargingSchedule; K01.FR.40/41.
  recurrency-kind     recurrencyKind with Recurring and only with it. doc 002 RecurrencyKindType.
  tx-not-found        A TxProfile needs a running transaction on its EVSE, and a transactionId,
                      when given, must be that one. doc 001 Errors; doc 002 TxProfile moves;
                      K01.FR.09/33.
  external-id         A CSMS cannot replace an ExternalConstraints profile by reusing its id.
                      K01.FR.05 (2025 errata note). reasonCode DuplicateProfile: the id clashes.
  duplicate           2.0.1, not TxProfile: no other profile (other id) with the same stackLevel,
                      purpose and EVSE whose [validFrom, validTo) overlaps. doc 001 rule 4; K01.FR.06.
  duplicate-tx        2.0.1 TxProfile: no other TxProfile with the same stackLevel for the same
                      transaction, whatever the validity. K01.FR.39.
  duplicate-tx-default 2.0.1 TxDefaultProfile: none at EVSE 0 and another at an EVSE > 0 with the
                      same stackLevel and overlapping validity. K01.FR.52/53.
  capacity            No more installed profiles than MaxChargingProfilesInstalled. doc 002 rule 15.
  2.0.1 answers Rejected with the rule's reasonCode; doc 001 lists six codes for this message, so
  stack-level, capacity and the profile-shape rules use InvalidProfile and say the specific cause
  in additionalInfo. 1.6 answers Rejected (NotSupported for not-supported).

Installing (not refusals)
  replace-id          A profile with an installed id replaces it, wherever it was. doc 001 rule 6;
                      K01.FR.05.
  replace-stack       1.6 only: the same stackLevel and purpose on the same connector replaces
                      the installed profile, whatever its validity. doc 002 rule 11 and "Profile
                      with future validFrom" move. (2.0.1 refuses instead: duplicate*.)
  tx-ends             When a transaction ends its TxProfiles are deleted. doc 001 rule 7 and
                      moves; doc 002 TxProfile moves. ``ProfileStore.end_transaction``.
  absent validFrom    means valid from any time: a profile is only ever evaluated after receipt.

Composite schedule (``composite.composite_schedule``)
  C1 Within a purpose the active profile with the highest stackLevel leads; outside its
     validity or schedule duration the next one down does. doc 002 rule 11; doc 001 moves
     (expired TxProfile falls back). Equal levels (possible only across EVSE 0 and an EVSE in
     1.6) resolve to the lower limit, so order never matters.
  C2 A profile is valid on [validFrom, validTo). doc 002 ChargingProfile class.
  C3 Absolute runs from startSchedule; Recurring restarts every 24 h (Daily) or 7 days (Weekly)
     from startSchedule onwards and is not active before it; Relative runs from the start of the
     transaction on the EVSE, or from the requested start when there is none. Without duration
     the last period runs on (until the next recurrence). doc 002 ChargingSchedule and
     RecurrencyKindType.
  C4 Across purposes the minimum applies; a TxProfile, where active, replaces TxDefaultProfile.
     doc 002 rule 11; doc 001 GetCompositeSchedule.
  C5 Caps: STATION_MAX (EVSE 0) and EXTERNAL at EVSE 0 bound every EVSE; EXTERNAL at an EVSE
     bounds it. TxDefaultProfiles at 0 and at the EVSE stack together. EVSE 0 reports the
     station view: min(STATION_MAX, EXTERNAL at 0, TX_DEFAULT at 0) — or, a reading the texts
     leave open too, min(STATION_MAX, EXTERNAL at 0) (``station_defaults=False``). How a station shares its
     max among EVSEs is its own business; one EVSE's composite never exceeds it. doc 001
     rules 8 and 12; doc 002 rule 11.
  C6 A<->W: W = A x line voltage x numberPhases (3 when absent), per period. doc 002
     ChargingRateUnitType; K01.FR.49/50. Comparisons are exact; the result is floored to 0.1
     (never above a limit, one fraction digit on the wire).
  C7 A 2.0.1 profile's alternatives (ISO 15118, up to 3 schedules): the first one counts.
     doc 001 rule 13.
  C8 No unit asked: the station's first supported unit. Where nothing limits: the station's
     ``no_limit_current`` on its ``phases``. numberPhases and phaseToUse are those of the
     period that sets the minimum (ties: fewer phases). minChargingRate is not carried: it
     describes the EV and has no defined minimum across purposes; 2.0.1 has no field for it.
  C9 Periods are contiguous from 0 and neighbours with equal limit and phases are merged.
  C10 Times are floored to whole seconds (periods are whole seconds on the wire).

Clear and report
  K1 Clear: an id selects that profile only; otherwise every given criterion must match; evseId
     0 is the station level only, absent means every EVSE. ClearChargingProfile schemas; doc 001.
  K2 ExternalConstraints profiles are never cleared by the CSMS; nothing cleared answers Unknown.
     doc 001 ClearChargingProfile; doc 002 ClearChargingProfileStatus.
  K4 A released external limit (ClearedChargingLimit, K13) removes the station's
     ExternalConstraints profiles of that source at that EVSE, and nothing else. doc 001 Smart
     charging messages (ClearedChargingLimitRequest); rule 12.
  K3 GetChargingProfiles: every given criterion filters (the schema describes each as a filter);
     one ReportChargingProfiles per (evseId, chargingLimitSource), tbc on all but the last;
     a CSMS-installed profile has source CSO. doc 001; ReportChargingProfilesRequest schema.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal
from itertools import groupby
from typing import Any, Callable

from harness.errors import HarnessError
from harness.ocpp.versions import OcppVersion
from harness.smartcharging.composite import composite_schedule
from harness.smartcharging.model import (
    ChargingProfile, ChargingSchedule, ClearCriteria, Installed, Kind, LimitSource, Purpose, ReportCriteria,
    SchedulePeriod, Station,
)
from harness.smartcharging.wire import (
    clear_criteria, composite_request, composite_to_wire, set_request, shape, to_v201,
)

V16, V201 = OcppVersion.V16, OcppVersion.V201
_BOTH = frozenset({V16, V201})


@dataclass(frozen=True)
class Rule:
    """One validation rule: what it says, where it comes from, how each version answers it."""
    id: str
    source: str
    summary: str
    reason_code: str | None            # 2.0.1 statusInfo.reasonCode; None: a CALLERROR instead
    v16_status: str = "Rejected"
    versions: frozenset[OcppVersion] = _BOTH
    csms_only: bool = False            # not applied to station-side (external) limits


@dataclass(frozen=True)
class _Ctx:
    store: ProfileStore
    station: Station
    evse_id: int
    profile: ChargingProfile
    version: OcppVersion
    replaces: tuple[int, ...]

    @property
    def schedules(self) -> tuple[ChargingSchedule, ...]:
        return self.profile.schedules

    @property
    def periods(self) -> list[SchedulePeriod]:
        return [p for s in self.profile.schedules for p in s.periods]

    def others(self, purpose: Purpose) -> list[Installed]:
        return [e for e in self.store.installed() if e.profile.purpose is purpose and e.profile.id != self.profile.id]


def _overlap(a: ChargingProfile, b: ChargingProfile) -> bool:
    """Do [validFrom, validTo) windows share an instant (absent ends are open)?"""
    return ((a.valid_from is None or b.valid_to is None or a.valid_from < b.valid_to)
            and (b.valid_from is None or a.valid_to is None or b.valid_from < a.valid_to))


def _tenths(value: Decimal) -> bool:
    return (value * 10) % 1 == 0


def _when(broken: bool, detail: str) -> str | None:
    return detail if broken else None


def _tx_not_found(c: _Ctx) -> str | None:
    if c.profile.purpose is not Purpose.TX:
        return None
    running = c.station.transactions.get(c.evse_id)
    if running is None:
        return f"no transaction runs on EVSE {c.evse_id}"
    return _when(c.profile.transaction_id not in (None, running.id),
                 f"transaction {c.profile.transaction_id} is not the one on EVSE {c.evse_id} ({running.id})")


def _duplicate(c: _Ctx) -> str | None:
    if c.profile.purpose is Purpose.TX:
        return None
    clash = [e.profile.id for e in c.others(c.profile.purpose) if e.evse_id == c.evse_id
             and e.profile.stack_level == c.profile.stack_level and _overlap(e.profile, c.profile)]
    return _when(bool(clash), f"profile {clash[:1]} has the same stackLevel, purpose and EVSE and overlaps")


def _duplicate_tx(c: _Ctx) -> str | None:
    if c.profile.purpose is not Purpose.TX:
        return None
    running = c.station.transactions[c.evse_id]   # tx-not-found ran first
    clash = [e.profile.id for e in c.others(Purpose.TX)
             if e.transaction_id == running.id and e.profile.stack_level == c.profile.stack_level]
    return _when(bool(clash), f"TxProfile {clash[:1]} has the same stackLevel for this transaction")


def _duplicate_tx_default(c: _Ctx) -> str | None:
    if c.profile.purpose is not Purpose.TX_DEFAULT:
        return None
    clash = [e.profile.id for e in c.others(Purpose.TX_DEFAULT) if 0 in (e.evse_id, c.evse_id) and e.evse_id != c.evse_id
             and e.profile.stack_level == c.profile.stack_level and _overlap(e.profile, c.profile)]
    return _when(bool(clash), f"TxDefaultProfile {clash[:1]} at the other level has the same stackLevel")


def _capacity(c: _Ctx) -> str | None:
    limit = c.station.max_profiles
    count = len(c.store.installed()) - len(c.replaces) + 1
    return _when(limit is not None and count > limit, f"{count} profiles exceed MaxChargingProfilesInstalled {limit}")


_BAD_PROFILE, _BAD_SCHEDULE = "InvalidProfile", "InvalidSchedule"

# (rule, check): a check returns what is wrong, or None. Order is the order of evaluation.
RULES: tuple[tuple[Rule, Callable[[_Ctx], str | None]], ...] = (
    (Rule("not-supported", "doc 002 feature profiles; K01.FR.29", "smart charging must be supported", None,
           v16_status="NotSupported", csms_only=True),
     lambda c: _when(not c.station.smart_charging, "the station does not support smart charging")),
    (Rule("external-from-csms", "doc 001 SetChargingProfile rule 1; K01.FR.22",
           "a CSMS never sets ChargingStationExternalConstraints", _BAD_PROFILE, csms_only=True),
     lambda c: _when(c.profile.purpose is Purpose.EXTERNAL, "external constraints are set by the station side")),
    (Rule("unknown-evse", "doc 001 Errors; K01.FR.28", "the EVSE must exist", "UnknownEVSE"),
     lambda c: _when(not c.station.knows(c.evse_id), f"EVSE {c.evse_id} does not exist")),
    (Rule("station-max-evse", "doc 001 rule 3; doc 002 rule 11", "station max only at EVSE 0", _BAD_PROFILE),
     lambda c: _when(c.profile.purpose is Purpose.STATION_MAX and c.evse_id != 0,
                     f"station max profile at EVSE {c.evse_id}")),
    (Rule("station-max-relative", "doc 001 rule 3; K01.FR.38", "station max is never Relative", _BAD_PROFILE,
           versions=frozenset({V201})),
     lambda c: _when(c.profile.purpose is Purpose.STATION_MAX and c.profile.kind is Kind.RELATIVE,
                     "station max profile of kind Relative")),
    (Rule("tx-evse", "doc 001 rule 2; doc 002 rule 11; K01.FR.16", "TxProfile only above EVSE 0", _BAD_PROFILE),
     lambda c: _when(c.profile.purpose is Purpose.TX and c.evse_id == 0, "TxProfile at EVSE 0")),
    (Rule("tx-id-required", "doc 001 rule 2; K01.FR.03", "a 2.0.1 TxProfile has a transactionId", _BAD_PROFILE,
           versions=frozenset({V201})),
     lambda c: _when(c.profile.purpose is Purpose.TX and c.profile.transaction_id is None,
                     "TxProfile without transactionId")),
    (Rule("tx-id-purpose", "doc 002 ChargingProfile class; 2.0.1 schema", "transactionId only on a TxProfile",
           _BAD_PROFILE),
     lambda c: _when(c.profile.purpose is not Purpose.TX and c.profile.transaction_id is not None,
                     f"transactionId on a {c.profile.purpose.value} profile")),
    (Rule("stack-level", "doc 002 ChargingProfile class and rule 15", "0 <= stackLevel <= the station's maximum",
           _BAD_PROFILE),
     lambda c: _when(c.profile.stack_level < 0 or c.station.max_stack_level is not None
                     and c.profile.stack_level > c.station.max_stack_level,
                     f"stackLevel {c.profile.stack_level} outside 0..{c.station.max_stack_level}")),
    (Rule("schedule-count", "doc 001 Limits; doc 002 ChargingProfile class",
           "2.0.1: 1 to 3 schedules; 1.6: one", _BAD_SCHEDULE),
     lambda c: _when(not 1 <= len(c.schedules) <= (3 if c.version is V201 else 1),
                     f"{len(c.schedules)} schedules")),
    (Rule("rate-unit", "doc 001 Errors; doc 002 rule 15; K01.FR.26", "a unit the station supports",
           "UnsupportedRateUnit"),
     lambda c: _when(any(s.rate_unit not in c.station.rate_units for s in c.schedules),
                     f"units {sorted({s.rate_unit.value for s in c.schedules})} vs supported "
                     f"{[u.value for u in c.station.rate_units]}")),
    (Rule("period-count", "doc 001 Limits; doc 002 rule 15", "1 to 1024 periods, at most the station's maximum",
           _BAD_SCHEDULE),
     lambda c: _when(any(not 1 <= len(s.periods) <= min(1024, c.station.max_periods) for s in c.schedules),
                     f"period counts {[len(s.periods) for s in c.schedules]}, maximum {c.station.max_periods}")),
    (Rule("first-period", "doc 001 rule 5; doc 002 ChargingSchedulePeriod; K01.FR.31", "the first startPeriod is 0",
           _BAD_SCHEDULE),
     lambda c: _when(any(s.periods[0].start_period != 0 for s in c.schedules), "first startPeriod is not 0")),
    (Rule("period-order", "doc 002 ChargingSchedulePeriod; K01.FR.35", "startPeriods strictly increase",
           _BAD_SCHEDULE),
     lambda c: _when(any(a.start_period >= b.start_period for s in c.schedules
                         for a, b in zip(s.periods, s.periods[1:])), "startPeriods do not increase")),
    (Rule("one-decimal", "doc 001 Limits; doc 002 Limits", "limit and minChargingRate: one fraction digit at most",
           _BAD_SCHEDULE),
     lambda c: _when(not all(_tenths(v) for v in [p.limit for p in c.periods] + [
         s.min_charging_rate for s in c.schedules if s.min_charging_rate is not None]),
                     "a limit or minChargingRate has more than one fraction digit")),
    (Rule("non-negative", "doc 002 ChargingSchedule and ChargingSchedulePeriod",
           "limits, minChargingRate and duration are not negative", _BAD_SCHEDULE),
     lambda c: _when(any(p.limit < 0 for p in c.periods) or any(
         (s.min_charging_rate or 0) < 0 or (s.duration or 0) < 0 for s in c.schedules),
                     "a negative limit, minChargingRate or duration")),
    (Rule("number-phases", "doc 002 ChargingSchedulePeriod; K01.FR.49", "numberPhases is 1 to 3", _BAD_SCHEDULE),
     lambda c: _when(any(p.number_phases is not None and not 1 <= p.number_phases <= 3 for p in c.periods),
                     "numberPhases outside 1..3")),
    (Rule("phase-to-use", "doc 001 Errors and Limits; K01.FR.19; K01.FR.20",
           "phaseToUse 1..3, only with numberPhases 1 on a phase-switching station", _BAD_SCHEDULE),
     lambda c: _when(any(p.phase_to_use is not None and (p.phases != 1 or not 1 <= p.phase_to_use <= 3
                                                          or not c.station.phase_switching) for p in c.periods),
                     "phaseToUse without numberPhases 1, out of 1..3, or without phase switching")),
    (Rule("start-schedule", "doc 002 ChargingSchedule; K01.FR.40; K01.FR.41",
           "startSchedule for Absolute and Recurring, none for Relative", _BAD_SCHEDULE),
     lambda c: _when(any((s.start_schedule is None) != (c.profile.kind is Kind.RELATIVE) for s in c.schedules),
                     f"startSchedule does not fit kind {c.profile.kind.value}")),
    (Rule("recurrency-kind", "doc 002 RecurrencyKindType", "recurrencyKind with Recurring only", _BAD_PROFILE),
     lambda c: _when((c.profile.kind is Kind.RECURRING) != (c.profile.recurrency_kind is not None),
                     f"recurrencyKind does not fit kind {c.profile.kind.value}")),
    (Rule("tx-not-found", "doc 001 Errors; doc 002 TxProfile moves; K01.FR.09; K01.FR.33",
           "a TxProfile belongs to the running transaction of its EVSE", "TxNotFound"),
     _tx_not_found),
    (Rule("external-id", "K01.FR.05", "a CSMS cannot replace an external constraints profile", "DuplicateProfile",
           csms_only=True),
     lambda c: _when(any(e.profile.id == c.profile.id and e.profile.purpose is Purpose.EXTERNAL
                         for e in c.store.installed()), f"id {c.profile.id} is an external constraints profile")),
    (Rule("duplicate", "doc 001 rule 4; K01.FR.06", "no overlapping twin (stackLevel, purpose, EVSE)",
           "DuplicateProfile", versions=frozenset({V201}), csms_only=True), _duplicate),
    (Rule("duplicate-tx", "K01.FR.39", "no twin TxProfile (stackLevel, transaction)", "DuplicateProfile",
           versions=frozenset({V201}), csms_only=True), _duplicate_tx),
    (Rule("duplicate-tx-default", "K01.FR.52; K01.FR.53", "no TxDefaultProfile twin across EVSE 0 and an EVSE",
           "DuplicateProfile", versions=frozenset({V201}), csms_only=True), _duplicate_tx_default),
    (Rule("capacity", "doc 002 rule 15", "at most MaxChargingProfilesInstalled profiles", _BAD_PROFILE),
     _capacity),
)


@dataclass(frozen=True)
class Decision:
    """The verdict on one profile: which rule refused it (None: accepted) and what it replaces."""
    version: OcppVersion
    rule: Rule | None = None
    detail: str = ""
    replaces: tuple[int, ...] = ()

    @property
    def accepted(self) -> bool:
        return self.rule is None

    @property
    def call_error(self) -> str | None:
        """2.0.1 answers 'not supported' with this CALLERROR code instead of a response."""
        return "NotSupported" if self.version is V201 and self.rule is not None and not self.rule.reason_code else None

    def response(self) -> dict[str, Any]:
        """SetChargingProfile.conf (1.6) or SetChargingProfileResponse (2.0.1)."""
        if self.call_error:
            raise HarnessError(f"answer with a CALLERROR {self.call_error}, not a response: {self.detail}")
        if self.rule is None:   # accepted
            return {"status": "Accepted"}
        if self.version is V16:
            return {"status": self.rule.v16_status}
        return {"status": "Rejected",
                "statusInfo": {"reasonCode": self.rule.reason_code, "additionalInfo": self.detail[:512]}}


class _Outcome:
    """An answer whose status only tells whether anything was selected."""
    found, none = "Accepted", "Unknown"

    def _selected(self) -> tuple[Any, ...]:
        raise NotImplementedError

    @property
    def status(self) -> str:
        return self.found if self._selected() else self.none

    def response(self) -> dict[str, Any]:
        return {"status": self.status}


@dataclass(frozen=True)
class ClearResult(_Outcome):
    """ClearChargingProfile outcome: Accepted when something was removed, else Unknown."""
    removed: tuple[Installed, ...]

    def _selected(self) -> tuple[Any, ...]:
        return self.removed


@dataclass(frozen=True)
class ProfileReport(_Outcome):
    """GetChargingProfilesResponse status and the ReportChargingProfilesRequests that follow it."""
    requests: tuple[dict[str, Any], ...]
    none = "NoProfiles"

    def _selected(self) -> tuple[Any, ...]:
        return self.requests


@dataclass
class ProfileStore:
    """The profiles a station holds, by id (ids are unique on a station)."""
    _by_id: dict[int, Installed] = field(default_factory=dict)

    def installed(self) -> tuple[Installed, ...]:
        return tuple(sorted(self._by_id.values(), key=lambda e: (e.evse_id, e.profile.id)))

    def validate(self, station: Station, evse_id: int, profile: ChargingProfile, version: OcppVersion,
                 from_csms: bool = True) -> Decision:
        """Judge a profile without installing it; rules in ``RULES`` order, first failure wins."""
        shape(version)
        replaces = tuple(sorted(e.profile.id for e in self._by_id.values() if e.profile.id == profile.id or (
            version is V16 and e.evse_id == evse_id and e.profile.purpose is profile.purpose
            and e.profile.stack_level == profile.stack_level)))
        ctx = _Ctx(self, station, evse_id, profile, version, replaces)
        for rule, check in RULES:
            if version in rule.versions and (from_csms or not rule.csms_only):
                detail = check(ctx)
                if detail is not None:
                    return Decision(version, rule, detail)
        return Decision(version, replaces=replaces)

    def install(self, station: Station, evse_id: int, profile: ChargingProfile, version: OcppVersion) -> Decision:
        """Validate a profile from the CSMS and, when accepted, install it (replacing as decided)."""
        return self._apply(self.validate(station, evse_id, profile, version), station, evse_id, profile,
                           LimitSource.CSO)

    def install_external(self, station: Station, evse_id: int, profile: ChargingProfile,
                         source: LimitSource = LimitSource.EMS) -> Decision:
        """Install a station-side external limit (K11-K14): schedule rules apply, CSMS rules do not."""
        if profile.purpose is not Purpose.EXTERNAL or LimitSource(source) is LimitSource.CSO:
            raise HarnessError("install_external takes EXTERNAL profiles from a source other than CSO")
        return self._apply(self.validate(station, evse_id, profile, V201, from_csms=False), station, evse_id,
                           profile, LimitSource(source))

    def _apply(self, decision: Decision, station: Station, evse_id: int, profile: ChargingProfile,
               source: LimitSource) -> Decision:
        if decision.accepted:
            for old in decision.replaces:
                del self._by_id[old]
            running = station.transactions.get(evse_id) if profile.purpose is Purpose.TX else None
            self._by_id[profile.id] = Installed(evse_id, profile, source, running.id if running else None)
        return decision

    def end_transaction(self, station: Station, evse_id: int) -> tuple[ChargingProfile, ...]:
        """The transaction on ``evse_id`` ended: forget it and delete its TxProfiles (tx-ends)."""
        if evse_id not in station.transactions:
            raise HarnessError(f"no transaction runs on EVSE {evse_id}")
        ended = station.transactions.pop(evse_id)
        gone = [e for e in self._by_id.values() if e.profile.purpose is Purpose.TX and e.transaction_id == ended.id]
        for e in gone:
            del self._by_id[e.profile.id]
        return tuple(e.profile for e in gone)

    def clear(self, criteria: ClearCriteria) -> ClearResult:
        """K1, K2: remove what the criteria select, never external constraints."""
        def selected(e: Installed) -> bool:
            if criteria.profile_id is not None:
                return e.profile.id == criteria.profile_id
            return _criteria_match(e, criteria.evse_id, criteria.purpose, criteria.stack_level)

        removed = tuple(e for e in self.installed() if e.profile.purpose is not Purpose.EXTERNAL and selected(e))
        for e in removed:
            del self._by_id[e.profile.id]
        return ClearResult(removed)

    def release_external(self, evse_id: int, source: LimitSource) -> tuple[Installed, ...]:
        """K4: the external limit of ``source`` at ``evse_id`` is released; what it removed."""
        released = tuple(e for e in self.installed() if e.profile.purpose is Purpose.EXTERNAL
                         and e.evse_id == evse_id and e.source is LimitSource(source))
        for e in released:
            del self._by_id[e.profile.id]
        return released

    def report(self, criteria: ReportCriteria) -> ProfileReport:
        """K3: the ReportChargingProfilesRequest payloads answering a GetChargingProfilesRequest."""
        chosen = [e for e in self.installed()
                  if _criteria_match(e, criteria.evse_id, criteria.purpose, criteria.stack_level)
                  and (criteria.profile_ids is None or e.profile.id in criteria.profile_ids)
                  and (criteria.sources is None or e.source in criteria.sources)]
        chosen.sort(key=lambda e: (e.evse_id, e.source.value, e.profile.id))
        requests = [{"requestId": criteria.request_id, "chargingLimitSource": source.value, "evseId": evse_id,
                     "chargingProfile": [to_v201(e.profile) for e in group], "tbc": True}
                    for (evse_id, source), group in groupby(chosen, key=lambda e: (e.evse_id, e.source))]
        if requests:
            requests[-1]["tbc"] = False
        return ProfileReport(tuple(requests))


def _criteria_match(e: Installed, evse_id: int | None, purpose: Purpose | None, stack_level: int | None) -> bool:
    return ((evse_id is None or e.evse_id == evse_id) and (purpose is None or e.profile.purpose is purpose)
            and (stack_level is None or e.profile.stack_level == stack_level))


def answer_set_charging_profile(store: ProfileStore, station: Station, payload: Any,
                                version: OcppVersion) -> Decision:
    """SetChargingProfile request in, Decision out (``.response()`` is the answer payload)."""
    evse_id, profile = set_request(payload, version)
    return store.install(station, evse_id, profile, version)


def answer_clear_charging_profile(store: ProfileStore, payload: Any, version: OcppVersion) -> dict[str, Any]:
    return store.clear(clear_criteria(payload, version)).response()


def answer_get_composite_schedule(store: ProfileStore, station: Station, payload: Any, version: OcppVersion,
                                  now: datetime, *, station_defaults: bool = True) -> dict[str, Any]:
    """GetCompositeSchedule request in, answer payload out; unknown EVSE or unit is Rejected
    (``station_defaults``: see ``composite.composite_schedule``)."""
    evse_id, duration, unit = composite_request(payload, version)
    reason = ("UnknownEVSE" if not station.knows(evse_id)
              else "UnsupportedRateUnit" if unit is not None and unit not in station.rate_units else None)
    if reason is None:
        return composite_to_wire(composite_schedule(store, station, evse_id, now, duration, unit,
                                                    station_defaults=station_defaults), version)
    return {"status": "Rejected"} if version is V16 else {"status": "Rejected", "statusInfo": {"reasonCode": reason}}
