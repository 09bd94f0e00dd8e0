"""Property-based checks of the composite schedule against a brute-force evaluator.

Every generated time (startSchedule, validity, transaction start, window start, startPeriods,
durations) is a multiple of G = 15 minutes, so the true limit is constant between grid points:
evaluating the brute force at every grid point of the window checks the whole composite.
The brute force reads each profile directly at one instant (no segments, no sweep).
"""

from __future__ import annotations

import dataclasses
from datetime import datetime, timedelta
from decimal import ROUND_FLOOR, Decimal
from functools import lru_cache

from hypothesis import given, settings, strategies as st

from harness.smartcharging import (
    ChargingProfile, ChargingSchedule, ClearCriteria, Kind, LimitSource, ProfileStore, Purpose, RateUnit, Recurrency,
    SchedulePeriod, Station, Transaction, composite_schedule,
)
from sc_builders import T0, V201, at

G = 900
MAX, TXD, TX, EXT = Purpose.STATION_MAX, Purpose.TX_DEFAULT, Purpose.TX, Purpose.EXTERNAL
FAST = settings(max_examples=150, deadline=None, database=None)
EVSES = st.sampled_from([0, 1, 1, 2])   # EVSE 1 is where a transaction may run
# Strategies are built once, here or cached: hypothesis validates and labels each strategy object it
# meets, and building them anew inside every draw was most of these tests' time (the same draws either way).
PHASES = st.sampled_from([None, 1, 2, 3])
UNITS = st.sampled_from("AW")
RECURRENCIES = st.sampled_from(Recurrency)
ORDERS = st.permutations(range(8))


@lru_cache(maxsize=None)
def grid(lo: int, hi: int):
    return st.integers(lo, hi).map(lambda k: k * G)


NO_DURATION_OR_GRID = st.one_of(st.none(), st.none(), grid(1, 192))
VALIDITY = st.one_of(st.none(), st.none(), st.none(), grid(-288, 864))
WINDOW = st.one_of(grid(1, 96), grid(97, 768))
PURPOSES = {False: st.sampled_from([MAX, TXD, TXD, EXT]), True: st.sampled_from([MAX, TXD, TXD, EXT, TX, TX])}
EVSES_OF = {TXD: st.sampled_from([0, 1, 2]), EXT: st.sampled_from([0, 1])}
KINDS = {True: st.sampled_from([Kind.ABSOLUTE, Kind.RECURRING]),
         False: st.sampled_from([Kind.ABSOLUTE, Kind.RECURRING, Kind.RELATIVE])}


@lru_cache(maxsize=None)
def schedules(kind: Kind, unit: str):
    return _schedules(kind, unit)


@st.composite
def _schedules(draw, kind: Kind, unit: str) -> ChargingSchedule:
    starts = [0]
    for _ in range(draw(st.integers(0, 3))):
        starts.append(starts[-1] + draw(grid(1, 48)))
    top = 630 if unit == "A" else 440_000
    periods = []
    for s in starts:
        phases = draw(PHASES)
        periods.append(SchedulePeriod(s, Decimal(draw(st.integers(0, top))) / 10, phases,
                                      draw(PHASES) if phases == 1 else None))
    first = grid(-960, 192) if kind is Kind.RECURRING else grid(-192, 192)
    return ChargingSchedule(unit, tuple(periods), id=1,
                            start_schedule=None if kind is Kind.RELATIVE else at(draw(first)),
                            duration=draw(NO_DURATION_OR_GRID))


@st.composite
def scenarios(draw):
    """(station, [(evse, profile)], window start, window duration): all installable, no conflicts."""
    station = Station(evse_ids={1, 2}, phase_switching=True)
    start = draw(grid(-96, 192))
    if draw(st.integers(0, 3)):
        station.transactions[1] = Transaction("tx-1", at(start - draw(grid(0, 192))))
    stacks = {p: iter(draw(ORDERS)) for p in Purpose}   # distinct per purpose: no clashes
    installs = []
    for i in range(draw(st.integers(0, 7))):
        purpose = draw(PURPOSES[bool(station.transactions)])
        evse = {MAX: 0, TX: 1}.get(purpose, draw(EVSES_OF[TXD if purpose is TXD else EXT]))
        kind = draw(KINDS[purpose is MAX])
        valid = [draw(VALIDITY) for _ in range(2)]
        installs.append((evse, ChargingProfile(
            i + 1, next(stacks[purpose]), purpose, kind, (draw(schedules(kind, draw(UNITS))),),
            draw(RECURRENCIES) if kind is Kind.RECURRING else None,
            *(None if v is None else at(v) for v in valid), "tx-1" if purpose is TX else None)))
    duration = draw(WINDOW)
    return station, installs, at(start), duration


def fill(store: ProfileStore, station: Station, installs) -> ProfileStore:
    for evse, p in installs:
        d = store.install_external(station, evse, p) if p.purpose is EXT else store.install(station, evse, p, V201)
        assert d.accepted, d
    return store


# ---- brute force ------------------------------------------------------------------------------

def level_at(p: ChargingProfile, t: datetime, anchor: datetime, unit: RateUnit, volts: Decimal):
    """(exact limit in unit, phases, phaseToUse) of one profile at instant t, or None if inactive."""
    if p.valid_from is not None and t < p.valid_from or p.valid_to is not None and t >= p.valid_to:
        return None
    s = p.schedules[0]
    if p.kind is Kind.RELATIVE:
        origin = anchor
    elif p.kind is Kind.ABSOLUTE:
        origin = s.start_schedule
    else:
        if t < s.start_schedule:
            return None
        cycle = timedelta(days=1 if p.recurrency_kind is Recurrency.DAILY else 7)
        origin = s.start_schedule + ((t - s.start_schedule) // cycle) * cycle
    elapsed = (t - origin).total_seconds()
    if elapsed < 0 or s.duration is not None and elapsed >= s.duration:
        return None
    period = [q for q in s.periods if q.start_period <= elapsed][-1]
    phases = period.number_phases or 3
    value = period.limit
    if s.rate_unit is not unit:
        value = value * volts * phases if unit is RateUnit.W else value / (volts * phases)
    return value, phases, period.phase_to_use


def restrictive(level) -> tuple:
    return level[0], level[1], level[2] or 0


def truth(station: Station, installs, evse: int, t: datetime, start: datetime, unit: RateUnit):
    """What the rules say the limit is at t: (leading level per group, caps, final level)."""
    tx = station.transactions.get(evse) if evse else None
    anchor = tx.started_at if tx else start

    def lead(purpose: Purpose, evses: set[int]):
        active = [(p.stack_level, lv) for e, p in installs if p.purpose is purpose and e in evses
                  and (lv := level_at(p, t, anchor, unit, station.line_voltage)) is not None]
        return min(active, key=lambda a: (-a[0], *restrictive(a[1])))[1] if active else None

    caps = [lead(MAX, {0}), lead(EXT, {0})] + ([lead(EXT, {evse})] if evse else [])
    base = (lead(TX, {evse}) if tx else None) or lead(TXD, {0, evse})
    found = [c for c in [base, *caps] if c is not None]
    if not found:
        volts = station.line_voltage
        limit = station.no_limit_current * (volts * station.phases if unit is RateUnit.W else 1)
        return caps, (limit, station.phases, None)
    return caps, min(found, key=restrictive)


def floor(value: Decimal) -> Decimal:
    return value.quantize(Decimal("0.1"), rounding=ROUND_FLOOR)


def period_at(composite, offset: int) -> SchedulePeriod:
    return [p for p in composite.periods if p.start_period <= offset][-1]


# ---- properties -------------------------------------------------------------------------------

@FAST
@given(scenarios(), EVSES, st.sampled_from([None, "A", "W"]))
def test_composite_equals_minimum_over_purposes_of_the_leaders(scenario, evse, unit):
    station, installs, start, duration = scenario
    c = composite_schedule(fill(ProfileStore(), station, installs), station, evse, start, duration, unit)
    assert c.rate_unit is (station.rate_units[0] if unit is None else RateUnit(unit))
    for offset in range(0, duration, G):
        _, (value, phases, to_use) = truth(station, installs, evse, start + timedelta(seconds=offset), start,
                                           c.rate_unit)
        got = period_at(c, offset)
        assert (got.limit, got.number_phases, got.phase_to_use) == (floor(value), phases, to_use), offset


@FAST
@given(scenarios(), EVSES, st.sampled_from(["A", "W"]))
def test_composite_never_exceeds_a_cap_and_is_well_formed(scenario, evse, unit):
    station, installs, start, duration = scenario
    c = composite_schedule(fill(ProfileStore(), station, installs), station, evse, start, duration, unit)
    starts = [p.start_period for p in c.periods]
    assert starts[0] == 0 and starts == sorted(set(starts)) and starts[-1] < duration
    assert all(s % G == 0 for s in starts), "every change happens on a boundary of some profile"
    keys = [(p.limit, p.number_phases, p.phase_to_use) for p in c.periods]
    assert all(a != b for a, b in zip(keys, keys[1:])), "equal neighbours are merged"
    for offset in range(0, duration, G):
        caps, _ = truth(station, installs, evse, start + timedelta(seconds=offset), start, RateUnit(unit))
        for cap in caps:
            assert cap is None or period_at(c, offset).limit <= floor(cap[0])


@FAST
@given(scenarios(), st.randoms(use_true_random=False))
def test_installation_order_does_not_matter(scenario, rng):
    station, installs, start, duration = scenario
    shuffled = list(installs)
    rng.shuffle(shuffled)
    a, b = fill(ProfileStore(), station, installs), fill(ProfileStore(), station, shuffled)
    assert a.installed() == b.installed()
    for evse in (0, 1, 2):
        assert composite_schedule(a, station, evse, start, duration) == composite_schedule(b, station, evse, start,
                                                                                            duration)


@FAST
@given(scenarios(), st.data())
def test_replacing_by_id_equals_removing_then_adding(scenario, data):
    station, installs, start, duration = scenario
    csms = [(e, p) for e, p in installs if p.purpose is not EXT]
    evse, old = data.draw(st.sampled_from(csms)) if csms else (0, None)
    if old is None:
        return
    new = dataclasses.replace(old, schedules=(data.draw(schedules(old.kind, "A")),))
    replaced = fill(ProfileStore(), station, installs)
    assert replaced.install(station, evse, new, V201).replaces == (old.id,)
    rebuilt = fill(ProfileStore(), station, installs)
    assert [e.profile for e in rebuilt.clear(ClearCriteria(profile_id=old.id)).removed] == [old]
    assert rebuilt.install(station, evse, new, V201).accepted
    assert replaced.installed() == rebuilt.installed()
    for e in (0, 1, 2):
        assert composite_schedule(replaced, station, e, start, duration) == composite_schedule(
            rebuilt, station, e, start, duration)


def test_the_brute_force_agrees_with_a_hand_computed_point():
    # Guard for the oracle itself: Daily from T0+1h, 10 A for 2 h; at T0+1d+1h30 it reads 10 A.
    p = ChargingProfile(1, 0, TXD, Kind.RECURRING, (ChargingSchedule(
        "A", (SchedulePeriod(0, 10),), id=1, start_schedule=at(3600), duration=7200),), Recurrency.DAILY)
    station = Station()
    assert truth(station, [(1, p)], 1, at(86400 + 5400), T0, RateUnit.A)[1] == (10, 3, None)
    assert truth(station, [(1, p)], 1, at(86400 + 3 * 3600), T0, RateUnit.A)[1] == (32, 3, None)


@FAST
@given(scenarios(), EVSES)
def test_releasing_an_external_limit_equals_never_installing_it(scenario, evse):
    """K4: releasing the EMS limit at an EVSE leaves what installing everything else would have."""
    station, installs, start, duration = scenario
    released = fill(ProfileStore(), station, installs)
    gone = {e.profile.id for e in released.release_external(evse, LimitSource.EMS)}
    rest = [(e, p) for e, p in installs if p.id not in gone]
    assert all(p.purpose is EXT and e == evse for e, p in installs if p.id in gone)
    never = fill(ProfileStore(), station, rest)
    assert released.installed() == never.installed()
    for e in (0, 1, 2):
        assert composite_schedule(released, station, e, start, duration) == composite_schedule(
            never, station, e, start, duration)


@given(st.sampled_from([("A",), ("W",), ("A", "W")]), st.sampled_from(["A", "W"]), st.sampled_from([0, 1]))
@FAST
def test_a_profile_in_an_unsupported_unit_is_refused_for_that_alone(units, unit, evse):
    """K01 Errors (UnsupportedRateUnit): a profile the rules otherwise take is refused exactly when its unit is
    not among the station's rate units, and then with UnsupportedRateUnit."""
    station = Station(evse_ids={1, 2}, rate_units=units)
    profile = ChargingProfile(1, 0, TXD, Kind.ABSOLUTE, (ChargingSchedule(unit, (SchedulePeriod(0, Decimal(10)),),
                                                                          id=1, start_schedule=at(0)),))
    decision = ProfileStore().validate(station, evse, profile, V201)
    supported = RateUnit(unit) in station.rate_units
    assert decision.accepted is supported
    assert supported or decision.rule.reason_code == "UnsupportedRateUnit"
