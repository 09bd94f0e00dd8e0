"""Version-neutral smart-charging model: profiles, schedules, periods, the station they run on.

Numbers that the standards restrict to one fraction digit (limits, minChargingRate) are held as
``Decimal`` so the restriction is judged exactly; ints, floats and Decimals are all accepted and
floats go through ``str`` so ``8.1`` stays 8.1. Times are tz-aware datetimes; the engine never
reads a clock.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timezone
from decimal import Decimal
from enum import Enum
from typing import Any

from harness.errors import HarnessError


class Purpose(str, Enum):
    """chargingProfilePurpose, with the 1.6 and 2.0.1 names folded together (see wire.PURPOSE_NAMES)."""
    STATION_MAX = "STATION_MAX"   # 1.6 ChargePointMaxProfile, 2.0.1 ChargingStationMaxProfile
    TX_DEFAULT = "TX_DEFAULT"     # TxDefaultProfile
    TX = "TX"                     # TxProfile
    EXTERNAL = "EXTERNAL"         # 2.0.1 ChargingStationExternalConstraints


class Kind(str, Enum):
    ABSOLUTE = "Absolute"
    RECURRING = "Recurring"
    RELATIVE = "Relative"


class Recurrency(str, Enum):
    DAILY = "Daily"
    WEEKLY = "Weekly"

    @property
    def seconds(self) -> int:
        return 86_400 if self is Recurrency.DAILY else 7 * 86_400


class RateUnit(str, Enum):
    A = "A"   # current per phase
    W = "W"   # total power


class LimitSource(str, Enum):
    """chargingLimitSource: who installed a profile (2.0.1). A CSMS profile is CSO."""
    CSO = "CSO"
    EMS = "EMS"
    SO = "SO"
    OTHER = "Other"


def to_decimal(value: Any) -> Decimal:
    """A JSON number as an exact Decimal; floats via ``str`` so binary noise never shows."""
    if isinstance(value, bool) or not isinstance(value, (int, float, Decimal)):
        raise HarnessError(f"not a number: {value!r}")
    return value if isinstance(value, Decimal) else Decimal(str(value))


def utc(moment: datetime) -> datetime:
    """The same instant in UTC; a naive datetime is our misuse (time always comes tz-aware)."""
    if moment.tzinfo is None or moment.utcoffset() is None:
        raise HarnessError(f"naive datetime {moment!r}: pass tz-aware UTC times")
    return moment.astimezone(timezone.utc)


def _set(obj: object, name: str, value: Any) -> None:
    object.__setattr__(obj, name, value)


@dataclass(frozen=True)
class SchedulePeriod:
    start_period: int                 # seconds from the start of the schedule
    limit: Decimal                    # in the schedule's rate unit
    number_phases: int | None = None  # absent means 3 (doc 002 ChargingSchedulePeriod)
    phase_to_use: int | None = None   # 2.0.1 only

    def __post_init__(self) -> None:
        _set(self, "limit", to_decimal(self.limit))

    @property
    def phases(self) -> int:
        return 3 if self.number_phases is None else self.number_phases


@dataclass(frozen=True)
class ChargingSchedule:
    rate_unit: RateUnit
    periods: tuple[SchedulePeriod, ...]
    id: int | None = None                   # required in 2.0.1, absent in 1.6
    start_schedule: datetime | None = None
    duration: int | None = None             # seconds; absent: the last period runs on
    min_charging_rate: Decimal | None = None
    sales_tariff: dict[str, Any] | None = None        # 2.0.1 ISO 15118 data, carried opaquely

    def __post_init__(self) -> None:
        _set(self, "rate_unit", RateUnit(self.rate_unit))
        _set(self, "periods", tuple(self.periods))
        if self.start_schedule is not None:
            _set(self, "start_schedule", utc(self.start_schedule))
        if self.min_charging_rate is not None:
            _set(self, "min_charging_rate", to_decimal(self.min_charging_rate))


@dataclass(frozen=True)
class ChargingProfile:
    id: int
    stack_level: int
    purpose: Purpose
    kind: Kind
    schedules: tuple[ChargingSchedule, ...]
    recurrency_kind: Recurrency | None = None
    valid_from: datetime | None = None
    valid_to: datetime | None = None
    transaction_id: str | None = None       # 1.6 integers are held as their decimal text

    def __post_init__(self) -> None:
        _set(self, "purpose", Purpose(self.purpose))
        _set(self, "kind", Kind(self.kind))
        _set(self, "schedules", tuple(self.schedules))
        if self.recurrency_kind is not None:
            _set(self, "recurrency_kind", Recurrency(self.recurrency_kind))
        for name in ("valid_from", "valid_to"):
            if getattr(self, name) is not None:
                _set(self, name, utc(getattr(self, name)))
        if self.transaction_id is not None:
            _set(self, "transaction_id", str(self.transaction_id))


@dataclass(frozen=True)
class Transaction:
    id: str
    started_at: datetime   # anchor of Relative schedules on its EVSE

    def __post_init__(self) -> None:
        _set(self, "id", str(self.id))
        _set(self, "started_at", utc(self.started_at))


@dataclass
class Station:
    """What the engine needs to know about the charging station (1.6: connector = EVSE).

    The limits mirror the discovery keys of doc 002 rule 15 (ChargeProfileMaxStackLevel,
    ChargingScheduleAllowedChargingRateUnit, ChargingScheduleMaxPeriods,
    MaxChargingProfilesInstalled) and their 2.0.1 device-model counterparts. ``rate_units[0]``
    is the unit of a composite schedule requested without one. ``no_limit_current`` (A per
    phase, on ``phases`` phases) is what a composite reports where no profile limits: a period
    needs a limit on the wire, so set it to what the station reports, usually its physical
    maximum. ``transactions`` maps an EVSE id to its running transaction.
    """
    evse_ids: frozenset[int] = frozenset({1})
    rate_units: tuple[RateUnit, ...] = (RateUnit.A, RateUnit.W)
    line_voltage: Decimal = Decimal(230)
    phases: int = 3
    no_limit_current: Decimal = Decimal(32)
    max_profiles: int | None = None
    max_stack_level: int | None = None
    max_periods: int = 1024
    phase_switching: bool = False      # 2.0.1 ACPhaseSwitchingSupported
    smart_charging: bool = True        # the Smart Charging feature profile / SmartChargingCtrlr
    transactions: dict[int, Transaction] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.evse_ids = frozenset(self.evse_ids)
        if 0 in self.evse_ids:
            raise HarnessError("evse_ids lists EVSEs (> 0); id 0 is the station itself")
        self.rate_units = tuple(RateUnit(u) for u in self.rate_units)
        if not self.rate_units:
            raise HarnessError("a station supports at least one rate unit")
        self.line_voltage = to_decimal(self.line_voltage)
        self.no_limit_current = to_decimal(self.no_limit_current)

    def knows(self, evse_id: int) -> bool:
        return evse_id == 0 or evse_id in self.evse_ids


@dataclass(frozen=True)
class CompositeSchedule:
    """The limit an EVSE (0: the station) will follow, periods contiguous from 0."""
    evse_id: int
    schedule_start: datetime
    duration: int
    rate_unit: RateUnit
    periods: tuple[SchedulePeriod, ...]


@dataclass(frozen=True)
class ClearCriteria:
    """ClearChargingProfile selection; None means "any". evse_id 0 is the station level only."""
    profile_id: int | None = None
    evse_id: int | None = None
    purpose: Purpose | None = None
    stack_level: int | None = None


@dataclass(frozen=True)
class ReportCriteria:
    """GetChargingProfiles (2.0.1) selection; None means "any". evse_id 0 is the station level only."""
    request_id: int
    evse_id: int | None = None
    purpose: Purpose | None = None
    stack_level: int | None = None
    profile_ids: frozenset[int] | None = None
    sources: frozenset[LimitSource] | None = None


@dataclass(frozen=True)
class Installed:
    """A profile as the station holds it: where, who set it, and (TxProfile) for which transaction."""
    evse_id: int
    profile: ChargingProfile
    source: LimitSource = LimitSource.CSO
    transaction_id: str | None = None
