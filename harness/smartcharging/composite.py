"""The composite schedule: what limit an EVSE (or the station, EVSE 0) follows over a window.

Implements rules C1-C10 listed in ``harness.smartcharging.engine``. Each installed profile is cut
into segments (absolute whole seconds, clipped to the window and its validity); a sweep over
segment edges gives, per purpose group, the leading profile's level at every instant; the groups
are then combined (TX over TX_DEFAULT, the minimum with the caps) and equal neighbours merged.
Cost: O(n log n) in the number of segments, independent of the window length.
"""

from __future__ import annotations

from bisect import bisect_right
from datetime import datetime, timedelta, timezone
from decimal import ROUND_FLOOR, Decimal
from typing import TYPE_CHECKING, Any, Iterable, NamedTuple

from harness.errors import HarnessError
from harness.smartcharging.model import (
    ChargingProfile, CompositeSchedule, Installed, Kind, Purpose, RateUnit, SchedulePeriod, Station, utc,
)

if TYPE_CHECKING:
    from harness.smartcharging.engine import ProfileStore

_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)
_SECOND = timedelta(seconds=1)
_TENTH = Decimal("0.1")
_FOREVER = 1 << 62


class _Level(NamedTuple):
    value: Decimal             # exact, in the requested unit
    phases: int
    phase_to_use: int | None


Segment = tuple[int, int, _Level]   # [start, end) in epoch seconds
Step = list[tuple[int, "_Level | None"]]   # breakpoints: level from each time to the next


def seconds(moment: datetime) -> int:
    """Epoch seconds, floored (C10: the engine works in whole seconds)."""
    return (utc(moment) - _EPOCH) // _SECOND


def convert(limit: Decimal, unit_from: RateUnit, unit_to: RateUnit, phases: int, voltage: Decimal) -> Decimal:
    """C6: W = A x line voltage x phases, exactly; flooring happens once, at the end."""
    if unit_from is unit_to:
        return limit
    return limit * voltage * phases if unit_to is RateUnit.W else limit / (voltage * phases)


def _restrictiveness(level: _Level) -> tuple[Any, ...]:
    """Order of preference among levels: lower limit, then fewer phases (deterministic ties)."""
    return level.value, level.phases, level.phase_to_use or 0


def _segments(entry: Installed, lo: int, hi: int, relative_anchor: int, unit: RateUnit,
              voltage: Decimal) -> list[Segment]:
    """C2, C3, C7: where in [lo, hi) the profile's first schedule is active, and at which level."""
    profile, schedule = entry.profile, entry.profile.schedules[0]
    if profile.valid_from is not None:
        lo = max(lo, seconds(profile.valid_from))
    if profile.valid_to is not None:
        hi = min(hi, seconds(profile.valid_to))
    if lo >= hi:
        return []
    if profile.kind is Kind.RECURRING:
        if profile.recurrency_kind is None or schedule.start_schedule is None:
            raise _not_validated(profile)
        cycle = profile.recurrency_kind.seconds
        first = seconds(schedule.start_schedule)
        anchors: Iterable[int] = range(first + max(0, (lo - first) // cycle) * cycle, hi, cycle)
        span = cycle if schedule.duration is None else min(schedule.duration, cycle)
    elif profile.kind is Kind.RELATIVE:
        anchors = [relative_anchor]
        span = _FOREVER if schedule.duration is None else schedule.duration
    else:
        if schedule.start_schedule is None:
            raise _not_validated(profile)
        anchors = [seconds(schedule.start_schedule)]
        span = _FOREVER if schedule.duration is None else schedule.duration
    starts = [p.start_period for p in schedule.periods]
    levels: dict[int, _Level] = {}
    out: list[Segment] = []
    for anchor in anchors:
        begin, end = max(lo, anchor), min(hi, anchor + span)
        i = bisect_right(starts, begin - anchor) - 1
        while begin < end:
            stop = end if i + 1 == len(starts) else min(end, anchor + starts[i + 1])
            if i not in levels:
                p = schedule.periods[i]
                levels[i] = _Level(convert(p.limit, schedule.rate_unit, unit, p.phases, voltage),
                                   p.phases, p.phase_to_use)
            out.append((begin, stop, levels[i]))
            begin, i = stop, i + 1
    return out


def _not_validated(profile: ChargingProfile) -> HarnessError:
    return HarnessError(f"profile {profile.id} was installed without the engine's rules: its {profile.kind.value} "
                        "schedule lacks a startSchedule or a recurrencyKind")


def _leading(profiles: list[tuple[int, list[Segment]]], start: int) -> Step:
    """C1: per instant, the active profile with the highest stack level (ties: the lower limit)."""
    events = sorted(((t, is_start, p, level)
                     for p, (_, segments) in enumerate(profiles)
                     for t0, t1, level in segments
                     for t, is_start in ((t0, True), (t1, False))),
                    key=lambda e: (e[0], e[1]))   # at one instant, ends before starts
    rank = {p: -stack for p, (stack, _) in enumerate(profiles)}

    def key(p: int) -> tuple[Any, ...]:
        return rank[p], *_restrictiveness(active[p])

    out: Step = [(start, None)]
    active: dict[int, _Level] = {}
    leader: int | None = None
    i = 0
    while i < len(events):
        t, stale = events[i][0], False
        while i < len(events) and events[i][0] == t:
            _, is_start, p, level = events[i]
            i += 1
            if is_start:
                active[p] = level
                stale = stale or leader is None or p == leader or key(p) < key(leader)
            else:
                del active[p]
                stale = stale or p == leader
        if stale:
            leader = min(active, key=key) if active else None
        leading = None if leader is None else active[leader]
        if t == start:
            out[0] = (start, leading)
        elif leading != out[-1][1]:
            out.append((t, leading))
    return out


def _combine(tx: Step, default: Step, caps: list[Step], fill: _Level) -> list[tuple[int, _Level]]:
    """C4, C5: TX replaces TX_DEFAULT where a TX profile is active; caps bound the result."""
    steps = [tx, default, *caps]
    cursor = [0] * len(steps)
    out: list[tuple[int, _Level]] = []
    for t in sorted({t for step in steps for t, _ in step}):
        values = []
        for k, step in enumerate(steps):
            while cursor[k] + 1 < len(step) and step[cursor[k] + 1][0] <= t:
                cursor[k] += 1
            values.append(step[cursor[k]][1])
        base = values[0] if values[0] is not None else values[1]
        candidates = [v for v in (base, *values[2:]) if v is not None]
        out.append((t, min(candidates, key=_restrictiveness) if candidates else fill))
    return out


def composite_schedule(store: ProfileStore, station: Station, evse_id: int, start: datetime, duration_s: int,
                       unit: RateUnit | str | None = None, *, station_defaults: bool = True) -> CompositeSchedule:
    """The composite for ``evse_id`` over [start, start + duration_s), in ``unit``.

    ``station_defaults``: the TxDefaultProfiles installed at EVSE 0 bound EVSE 0's own composite (C5); False
    takes the other reading the texts leave open, where they are only the defaults of the EVSEs' transactions
    and EVSE 0 reports its caps alone. An EVSE above 0 stacks them either way.

    Asking for an unknown EVSE or an unsupported unit is our misuse
    here; ``engine.answer_get_composite_schedule`` turns those into Rejected answers.
    """
    if not station.knows(evse_id):
        raise HarnessError(f"EVSE {evse_id} is not part of the station model")
    unit = station.rate_units[0] if unit is None else RateUnit(unit)   # C8
    if unit not in station.rate_units:
        raise HarnessError(f"the station does not support unit {unit.value}")
    if duration_s < 0:
        raise HarnessError(f"negative duration {duration_s}")
    begin = seconds(start)
    end = begin + max(duration_s, 1)   # a zero-length window still reports the limit at its start
    transaction = station.transactions.get(evse_id) if evse_id else None
    anchor = begin if transaction is None else seconds(transaction.started_at)

    def group(purposes: set[Purpose], evses: set[int]) -> Step:
        members = [e for e in store.installed() if e.profile.purpose in purposes and e.evse_id in evses
                   and (e.profile.purpose is not Purpose.TX or transaction is not None
                        and e.transaction_id == transaction.id)]
        return _leading([(e.profile.stack_level, _segments(e, begin, end, anchor, unit, station.line_voltage))
                         for e in members], begin)

    here = {0, evse_id} if evse_id or station_defaults else set()
    caps = [group({Purpose.STATION_MAX}, {0}), group({Purpose.EXTERNAL}, {0})]
    if evse_id:
        caps.append(group({Purpose.EXTERNAL}, {evse_id}))
    fill = _Level(convert(station.no_limit_current, RateUnit.A, unit, station.phases, station.line_voltage),
                  station.phases, None)
    steps = _combine(group({Purpose.TX}, {evse_id}), group({Purpose.TX_DEFAULT}, here), caps, fill)
    periods: list[SchedulePeriod] = []
    for t, level in steps:
        if t >= end:   # segment ends at the window's edge
            break
        period = SchedulePeriod(t - begin, level.value.quantize(_TENTH, rounding=ROUND_FLOOR),
                                level.phases, level.phase_to_use)
        if not periods or (period.limit, period.number_phases, period.phase_to_use) != (
                periods[-1].limit, periods[-1].number_phases, periods[-1].phase_to_use):
            periods.append(period)
    return CompositeSchedule(evse_id, _EPOCH + begin * _SECOND, duration_s, unit, tuple(periods))
