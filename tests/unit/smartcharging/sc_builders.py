"""Terse builders for smart-charging tests: times are seconds after T0, limits plain numbers."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from harness.ocpp.versions import OcppVersion
from harness.smartcharging import (
    ChargingProfile, ChargingSchedule, Kind, Purpose, SchedulePeriod, Station, Transaction,
)

V16, V201 = OcppVersion.V16, OcppVersion.V201
T0 = datetime(2024, 1, 1, tzinfo=timezone.utc)   # a Monday, 00:00 UTC
HOUR, DAY = 3600, 86400


def at(seconds: float) -> datetime:
    return T0 + timedelta(seconds=seconds)


def periods(*spec) -> tuple[SchedulePeriod, ...]:
    """(start, limit) or (start, limit, numberPhases) or (start, limit, numberPhases, phaseToUse)."""
    return tuple(SchedulePeriod(*p) for p in spec)


def profile(id: int, purpose: Purpose, *spec, stack: int = 0, kind: Kind = Kind.ABSOLUTE, start: float | None = 0,
            unit: str = "A", duration: int | None = None, recurrency=None, valid_from: float | None = None,
            valid_to: float | None = None, tx: str | None = None, min_rate=None,
            extra_schedules: tuple[ChargingSchedule, ...] = ()) -> ChargingProfile:
    """A profile with one schedule (id 1); ``start`` is ignored for Relative profiles."""
    schedule = ChargingSchedule(unit, periods(*(spec or [(0, 16)])), id=1,
                                start_schedule=None if kind is Kind.RELATIVE or start is None else at(start),
                                duration=duration, min_charging_rate=min_rate)
    return ChargingProfile(id, stack, purpose, kind, (schedule, *extra_schedules), recurrency,
                           None if valid_from is None else at(valid_from),
                           None if valid_to is None else at(valid_to), tx)


def station(**kw) -> Station:
    kw.setdefault("evse_ids", {1, 2})
    return Station(**kw)


def with_tx(st: Station, evse: int = 1, tx: str = "tx-1", started: float = 0) -> Station:
    st.transactions[evse] = Transaction(tx, at(started))
    return st


def limits(composite) -> list[tuple]:
    """(startPeriod, limit) pairs of a composite, limits as plain Decimals."""
    return [(p.start_period, p.limit) for p in composite.periods]
