"""Composite-schedule cost on a busy station (pytest-benchmark; no timed assertion).

Run: ``pytest bench/ --benchmark-only``. Two loads, each 20 installed profiles of 1024 periods:
Absolute profiles of mixed purposes and units over 24 hours, and Recurring Weekly ones over 7 days.
"""

from __future__ import annotations

import random
from datetime import datetime, timedelta, timezone
from decimal import Decimal

import pytest

from harness.ocpp.versions import OcppVersion
from harness.smartcharging import (
    ChargingProfile, ChargingSchedule, Kind, ProfileStore, Purpose, Recurrency, SchedulePeriod, Station,
    Transaction, composite_schedule,
)

T0 = datetime(2024, 1, 1, tzinfo=timezone.utc)
DAY, WEEK = 86_400, 7 * 86_400
# 20 profiles: (purpose, evse); stack levels are distinct per purpose so nothing clashes.
LAYOUT = ([(Purpose.STATION_MAX, 0)] * 3 + [(Purpose.EXTERNAL, 0), (Purpose.EXTERNAL, 1)]
          + [(Purpose.TX_DEFAULT, 0)] * 5 + [(Purpose.TX_DEFAULT, 1)] * 5 + [(Purpose.TX, 1)] * 5)


def busy_station(kind: Kind, span: int) -> tuple[ProfileStore, Station]:
    rng = random.Random(20240101)
    station = Station(evse_ids={1, 2}, transactions={1: Transaction("tx-1", T0 - timedelta(hours=1))})
    store = ProfileStore()
    stacks: dict[Purpose, int] = {}
    step = span // 1024
    for i, (purpose, evse) in enumerate(LAYOUT):
        stacks[purpose] = stacks.get(purpose, -1) + 1
        unit = rng.choice("AW")
        top = 630 if unit == "A" else 440_000
        periods = tuple(SchedulePeriod(k * step, Decimal(rng.randint(0, top)) / 10, rng.choice([None, 1, 3]))
                        for k in range(1024))
        schedule = ChargingSchedule(unit, periods, id=1, start_schedule=T0 - timedelta(seconds=rng.randint(0, 3600)),
                                    duration=rng.choice([None, span - 7200]))
        profile = ChargingProfile(i + 1, stacks[purpose], purpose, kind, (schedule,),
                                  Recurrency.WEEKLY if kind is Kind.RECURRING else None,
                                  transaction_id="tx-1" if purpose is Purpose.TX else None)
        decision = (store.install_external(station, evse, profile) if purpose is Purpose.EXTERNAL
                    else store.install(station, evse, profile, OcppVersion.V201))
        assert decision.accepted, decision
    return store, station


@pytest.mark.parametrize("unit", ["A", "W"])
def test_composite_24h_20_absolute_profiles_of_1024_periods(benchmark, unit):
    store, station = busy_station(Kind.ABSOLUTE, DAY)
    result = benchmark(composite_schedule, store, station, 1, T0, DAY, unit)
    assert result.periods[0].start_period == 0 and len(result.periods) > 1024


def test_composite_7_days_20_weekly_profiles_of_1024_periods(benchmark):
    store, station = busy_station(Kind.RECURRING, WEEK)
    start = T0 + timedelta(days=3, hours=5)   # straddles the weekly restart
    result = benchmark(composite_schedule, store, station, 1, start, WEEK, "A")
    assert result.periods[0].start_period == 0 and len(result.periods) > 1024
