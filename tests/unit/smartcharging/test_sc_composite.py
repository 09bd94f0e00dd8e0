"""Composite schedules worked out by hand, each case citing the rule (engine docstring, C1-C10).

Station: EVSEs 1 and 2, 230 V, 3 phases, no_limit_current 32 A (so "nothing limits" reads 32 A
or 32 x 230 x 3 = 22080 W). Window starts at T0 unless a case says otherwise.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import timedelta
from decimal import Decimal as D

import pytest

from harness.errors import HarnessError
from harness.ocpp.schemas import validate as schema_validate
from harness.smartcharging import (
    ChargingSchedule, Kind, ProfileStore, Purpose, Recurrency, answer_get_composite_schedule,
    composite_from_wire, composite_schedule, composite_to_wire,
)
from sc_builders import DAY, HOUR, T0, V16, V201, at, periods, profile, station, with_tx

MAX, TXD, TX, EXT = Purpose.STATION_MAX, Purpose.TX_DEFAULT, Purpose.TX, Purpose.EXTERNAL
REL, REC = Kind.RELATIVE, Kind.RECURRING
DAILY, WEEKLY = Recurrency.DAILY, Recurrency.WEEKLY


@dataclass
class Case:
    rule: str
    installs: list                  # (evse, profile)
    expected: list                  # (startPeriod, limit) by hand
    evse: int = 1
    duration: int = HOUR
    unit: str | None = "A"
    start: float = 0
    tx_started: float | None = None  # transaction "tx-1" on EVSE 1
    station: dict = field(default_factory=dict)


CASES = {
    "C1 higher stack leads, lower one resumes after its duration": Case(
        "C1", [(1, profile(1, TXD, (0, 16))), (1, profile(2, TXD, (0, 10), stack=1, duration=1800))],
        [(0, 10), (1800, 16)]),
    "C1 highest stack without duration never falls back": Case(
        "C1", [(1, profile(1, TXD, (0, 6))), (1, profile(2, TXD, (0, 10), stack=1))], [(0, 10)]),
    "C1 the leader wins even when it is higher than the one below": Case(
        "C1", [(1, profile(1, TXD, (0, 6))), (1, profile(2, TXD, (0, 20), stack=1))], [(0, 20)]),
    "C5 TxDefault at 0 and at the EVSE stack together: stack 2 at 0 beats stack 1 here": Case(
        "C5", [(0, profile(1, TXD, (0, 20), stack=2)), (1, profile(2, TXD, (0, 10), stack=1))], [(0, 20)]),
    "C4 minimum across purposes": Case(
        "C4", [(0, profile(1, MAX, (0, 20))), (1, profile(2, TXD, (0, 25), (600, 12)))], [(0, 20), (600, 12)]),
    "C4 TxProfile replaces TxDefault while active, then TxDefault resumes": Case(
        "C4", [(1, profile(1, TXD, (0, 6))), (1, profile(2, TX, (0, 20), duration=1800, tx="tx-1"))],
        [(0, 20), (1800, 6)], tx_started=0),
    "C5 station max caps a TxProfile": Case(
        "C5", [(0, profile(1, MAX, (0, 10))), (1, profile(2, TX, (0, 20), tx="tx-1"))], [(0, 10)], tx_started=0),
    "C5 EVSE 0 view: station max, TxDefault at 0; an EVSE's TxProfile is not in it": Case(
        "C5", [(0, profile(1, MAX, (0, 10))), (0, profile(2, TXD, (0, 8))), (1, profile(3, TX, (0, 5), tx="tx-1"))],
        [(0, 8)], evse=0, tx_started=0),
    "C5 external limits at 0 and at the EVSE both cap (EVSE 1)": Case(
        "C5", [(0, profile(1, EXT, (0, 14))), (1, profile(2, EXT, (0, 12))), (0, profile(3, TXD, (0, 16)))],
        [(0, 12)]),
    "C5 external limit at EVSE 1 does not reach EVSE 2": Case(
        "C5", [(0, profile(1, EXT, (0, 14))), (1, profile(2, EXT, (0, 12))), (0, profile(3, TXD, (0, 16)))],
        [(0, 14)], evse=2),
    "C3/C8 Absolute starting later: nothing limits before it": Case(
        "C3", [(1, profile(1, TXD, (0, 10), start=600))], [(0, 32), (600, 10)]),
    "C3 duration ends the schedule (started before the window)": Case(
        "C3", [(1, profile(1, TXD, (0, 10), start=-600, duration=1800))], [(0, 10), (1200, 32)]),
    "C3 Recurring Daily with duration, two days": Case(
        "C3", [(1, profile(1, TXD, (0, 10), (7200, 16), kind=REC, recurrency=DAILY, start=HOUR, duration=3 * HOUR))],
        [(0, 32), (3600, 10), (10800, 16), (14400, 32), (90000, 10), (97200, 16), (100800, 32)], duration=2 * DAY),
    "C3 Recurring is not active before its startSchedule": Case(
        "C3", [(1, profile(1, TXD, (0, 10), kind=REC, recurrency=DAILY, start=DAY + HOUR, duration=HOUR))],
        [(0, 32), (DAY + HOUR, 10), (DAY + 2 * HOUR, 32)], duration=2 * DAY),
    "C3 Recurring without duration: the last period runs to the next recurrence": Case(
        "C3", [(1, profile(1, TXD, (0, 10), (12 * HOUR, 16), kind=REC, recurrency=DAILY, start=-DAY))],
        [(0, 10), (6 * HOUR, 16), (18 * HOUR, 10), (30 * HOUR, 16), (42 * HOUR, 10)], start=6 * HOUR, duration=2 * DAY),
    "C3 Recurring duration longer than the cycle: each day restarts it": Case(
        "C3", [(1, profile(1, TXD, (0, 10), (20 * HOUR, 16), kind=REC, recurrency=DAILY, start=0, duration=30 * HOUR))],
        [(0, 10), (20 * HOUR, 16), (24 * HOUR, 10), (44 * HOUR, 16)], duration=2 * DAY),
    "C3 Recurring Weekly over 8 days": Case(
        "C3", [(1, profile(1, TXD, (0, 10), (HOUR, 16), kind=REC, recurrency=WEEKLY, start=0, duration=2 * HOUR))],
        [(0, 32), (6 * DAY, 10), (6 * DAY + HOUR, 16), (6 * DAY + 2 * HOUR, 32)], start=DAY, duration=8 * DAY),
    "C3 Relative runs from the transaction start": Case(
        "C3", [(0, profile(1, TXD, (0, 6), (1200, 16), kind=REL))], [(0, 6), (600, 16)], tx_started=-600),
    "C3 Relative without transaction runs from the requested start": Case(
        "C3", [(0, profile(1, TXD, (0, 6), (1200, 16), kind=REL))], [(0, 6), (1200, 16)], evse=2,
        tx_started=-600),
    "C2 validFrom/validTo bound a profile; the one below shows around it": Case(
        "C2", [(1, profile(1, TXD, (0, 16))), (1, profile(2, TXD, (0, 10), stack=1, valid_from=300, valid_to=900))],
        [(0, 16), (300, 10), (900, 16)]),
    "C6 A to W, 3 phases: 16 x 230 x 3": Case("C6", [(1, profile(1, TXD, (0, 16, 3)))], [(0, 11040)], unit="W"),
    "C6 A to W, 1 phase: 16 x 230": Case("C6", [(1, profile(1, TXD, (0, 16, 1)))], [(0, 3680)], unit="W"),
    "C6 W to A, 3 phases: 7400 / 690 = 10.72.. floored": Case(
        "C6", [(1, profile(1, TXD, (0, 7400), unit="W"))], [(0, D("10.7"))]),
    "C6 W to A, 1 phase: 3000 / 230 = 13.04.. floored": Case(
        "C6", [(1, profile(1, TXD, (0, 3000, 1), unit="W"))], [(0, 13)]),
    "C6 W to A floors, never rounds up: 4000 / 230 = 17.39..": Case(
        "C6", [(1, profile(1, TXD, (0, 4000, 1), unit="W"))], [(0, D("17.3"))]),
    "C6 line voltage 120: 16 A x 120 x 1": Case(
        "C6", [(1, profile(1, TXD, (0, 16, 1)))], [(0, 1920)], unit="W", station={"line_voltage": 120}),
    "C6 mixed units in A: 11000 W / 690 = 15.94.. under 16 A": Case(
        "C6", [(0, profile(1, MAX, (0, 11000), unit="W")), (1, profile(2, TXD, (0, 16)))], [(0, D("15.9"))]),
    "C6 mixed units in W: 11000 under 16 x 690 = 11040": Case(
        "C6", [(0, profile(1, MAX, (0, 11000), unit="W")), (1, profile(2, TXD, (0, 16)))], [(0, 11000)], unit="W"),
    "C8 no unit asked: the station's first unit (W)": Case(
        "C8", [(1, profile(1, TXD, (0, 10)))], [(0, 6900)], unit=None, station={"rate_units": ("W", "A")}),
    "C8 nothing limits: no_limit_current 40 A on 1 phase, in W": Case(
        "C8", [], [(0, 9200)], unit="W", station={"no_limit_current": 40, "phases": 1}),
    "C9 equal neighbours inside a profile merge": Case(
        "C9", [(1, profile(1, TXD, (0, 16), (300, 16), (600, 10)))], [(0, 16), (600, 10)]),
    "C9 equal limits across a fallback merge": Case(
        "C9", [(1, profile(1, TXD, (0, 16))), (1, profile(2, TXD, (0, 16), stack=1, duration=600))], [(0, 16)]),
    "C7 only the first of several 2.0.1 schedules counts": Case(
        "C7", [(1, profile(1, TX, (0, 10), tx="tx-1", extra_schedules=(
            ChargingSchedule("A", periods((0, 20)), id=2, start_schedule=T0),)))], [(0, 10)], tx_started=0),
    "C10 a window starting at a fraction of a second starts at the whole second": Case(
        "C10", [(1, profile(1, TXD, (0, 10), (600, 12)))], [(0, 10), (600, 12)], start=0.7),
}


def build(case: Case):
    st = station(**case.station)
    if case.tx_started is not None:
        with_tx(st, 1, "tx-1", case.tx_started)
    store = ProfileStore()
    for evse, p in case.installs:
        d = store.install_external(st, evse, p) if p.purpose is EXT else store.install(st, evse, p, V201)
        assert d.accepted, d
    return store, st


@pytest.mark.parametrize("name", CASES)
def test_composite_case(name):
    case = CASES[name]
    store, st = build(case)
    c = composite_schedule(store, st, case.evse, at(case.start), case.duration, case.unit)
    assert [(p.start_period, p.limit) for p in c.periods] == [(s, D(v)) for s, v in case.expected]
    assert c.schedule_start == T0 + timedelta(seconds=int(case.start))
    assert c.duration == case.duration and c.evse_id == case.evse


def test_numberphases_and_phase_to_use_of_the_winning_period():
    # C8: the reported numberPhases/phaseToUse are those of the period setting the minimum.
    st = station(phase_switching=True)
    store = ProfileStore()
    store.install(st, 0, profile(1, MAX, (0, 20)), V201)
    store.install(st, 1, profile(2, TXD, (0, 10, 1, 2), (600, 25, 1, 2)), V201)
    c = composite_schedule(store, st, 1, T0, HOUR, "A")
    assert [(p.start_period, p.limit, p.number_phases, p.phase_to_use) for p in c.periods] == [
        (0, D(10), 1, 2), (600, D(20), 3, None)]


def test_1_6_tie_between_connector_0_and_connector_resolves_to_the_lower_limit():
    # C1 ties (possible only in 1.6, where stackLevels of connector 0 and 1 may be equal).
    for order in ((0, 1), (1, 0)):
        st, store = station(), ProfileStore()
        limits = {0: 10, 1: 16}
        for evse in order:
            assert store.install(st, evse, profile(evse + 1, TXD, (0, limits[evse]), stack=1), V16).accepted
        assert [(p.start_period, p.limit) for p in composite_schedule(store, st, 1, T0, HOUR).periods] == [(0, 10)]


def test_ended_transaction_leaves_the_txdefault():
    # tx-ends + C4: once the TxProfile is deleted the TxDefault governs again.
    st = with_tx(station(), 1, "tx-1")
    store = ProfileStore()
    store.install(st, 1, profile(1, TXD, (0, 6)), V201)
    store.install(st, 1, profile(2, TX, (0, 20), tx="tx-1"), V201)
    assert composite_schedule(store, st, 1, T0, HOUR).periods[0].limit == 20
    store.end_transaction(st, 1)
    assert composite_schedule(store, st, 1, T0, HOUR).periods[0].limit == 6


def test_zero_duration_reports_the_limit_at_the_start():
    st, store = station(), ProfileStore()
    store.install(st, 1, profile(1, TXD, (0, 10)), V201)
    c = composite_schedule(store, st, 1, T0, 0)
    assert [(p.start_period, p.limit) for p in c.periods] == [(0, 10)] and c.duration == 0


def test_misuse_is_ours():
    st, store = station(rate_units=("A",)), ProfileStore()
    for evse, unit, duration in ((3, "A", 60), (1, "W", 60), (1, "A", -1)):
        with pytest.raises(HarnessError):
            composite_schedule(store, st, evse, T0, duration, unit)


@pytest.mark.parametrize("version", [V16, V201])
def test_wire_answers_match_the_official_schemas(version):
    store, st = build(CASES["C6 W to A, 3 phases: 7400 / 690 = 10.72.. floored"])
    evse_key = "connectorId" if version is V16 else "evseId"
    answer = answer_get_composite_schedule(store, st, {evse_key: 1, "duration": 600, "chargingRateUnit": "A"},
                                           version, at(0.5))
    assert not schema_validate(version, "GetCompositeSchedule", "response", answer)
    body = answer["chargingSchedule"] if version is V16 else answer["schedule"]
    assert body["chargingSchedulePeriod"] == [{"startPeriod": 0, "limit": D("10.7"), "numberPhases": 3}]
    assert body["chargingRateUnit"] == "A" and body["duration"] == 600
    start = answer["scheduleStart"] if version is V16 else body["scheduleStart"]
    assert start == "2024-01-01T00:00:00Z"
    assert (answer["connectorId"] if version is V16 else body["evseId"]) == 1
    assert composite_from_wire(answer, version) == composite_schedule(store, st, 1, at(0), 600, "A")


@pytest.mark.parametrize("version,payload,reason", [
    (V201, {"evseId": 5, "duration": 60}, "UnknownEVSE"),
    (V201, {"evseId": 1, "duration": 60, "chargingRateUnit": "W"}, "UnsupportedRateUnit"),
    (V16, {"connectorId": 5, "duration": 60}, None),
    (V16, {"connectorId": 1, "duration": 60, "chargingRateUnit": "W"}, None),
])
def test_composite_requests_that_cannot_be_answered_are_rejected(version, payload, reason):
    answer = answer_get_composite_schedule(ProfileStore(), station(rate_units=("A",)), payload, version, T0)
    assert answer == ({"status": "Rejected"} if reason is None
                      else {"status": "Rejected", "statusInfo": {"reasonCode": reason}})
    assert not schema_validate(version, "GetCompositeSchedule", "response", answer)
    assert composite_from_wire(answer, version) is None


def test_composite_to_wire_in_1_6_cannot_carry_phase_to_use():
    st = station(phase_switching=True)
    store = ProfileStore()
    store.install(st, 1, profile(1, TXD, (0, 10, 1, 2)), V201)
    c = composite_schedule(store, st, 1, T0, 60)
    assert composite_to_wire(c, V201)["schedule"]["chargingSchedulePeriod"][0]["phaseToUse"] == 2
    with pytest.raises(HarnessError):
        composite_to_wire(c, V16)
