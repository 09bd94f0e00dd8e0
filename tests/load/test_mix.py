"""The load's schedule on made-up times: what a station does next, and when."""

import random
import statistics

import pytest

from harness.load.mix import Activity, Draws, Mix, Plan, ramp_start


def steps(plan: Plan, until: float, now=lambda step: step.at):
    """Every step up to ``until``, each taken at the time ``now(step)`` says (on time by default)."""
    taken, clock = [], 0.0
    while (step := plan.next(clock)) is not None and step.at <= until:
        taken.append(step)
        clock = now(step)
    return taken


def test_heartbeats_keep_their_period_from_a_random_phase():
    plan = Plan(Mix(heartbeat=30), random.Random(1), start=100.0)
    beats = [s.at for s in steps(plan, 100.0 + 3600)]
    assert 100.0 <= beats[0] < 130.0
    assert {round(b - a, 9) for a, b in zip(beats, beats[1:])} == {30.0}
    assert len(beats) == 120


def test_stations_beat_out_of_step():
    phases = [Plan(Mix(heartbeat=60), random.Random(i), start=0.0).next(0.0).at for i in range(200)]
    assert min(phases) < 6 and max(phases) > 54     # spread over the whole period, not in lockstep
    assert statistics.pstdev(phases) > 10


def test_a_station_that_fell_behind_beats_once_and_starts_its_period_again():
    plan = Plan(Mix(heartbeat=10), random.Random(3), start=0.0)
    first = plan.next(0.0)
    late = first.at + 35.0                     # the CSMS took 35 s to answer that beat
    second = plan.next(late)
    assert second.at == first.at + 10          # due: sent at once, not three missed beats in a burst
    third = plan.next(late)
    assert third.at == late + 10


def test_the_csms_interval_replaces_the_heartbeat_once_known():
    plan = Plan(Mix(), random.Random(5), start=0.0)
    assert plan.next(0.0) is None              # no period until the boot answer gives one
    plan.beat_every(300, now=12.0)
    beats = [plan.next(12.0).at for _ in range(3)]
    assert 12.0 <= beats[0] < 312.0 and beats[1] - beats[0] == beats[2] - beats[1] == 300


def test_a_new_interval_replaces_the_beats_planned_and_0_ends_them_leaving_the_other_steps():
    """A 1.6 charge point's HeartbeatInterval changed (harness.load.station): the beats follow the new period from
    a new phase; 0 (or None) plans none; what else was planned stays; ``peek`` shows the next step and keeps it."""
    plan = Plan(Mix(heartbeat=10, authorize_per_hour=1), random.Random(7), start=0.0)
    authorize = next(s for s in plan._steps if s.activity is Activity.AUTHORIZE)
    plan.beat_every(3, now=50.0)
    beats = [s.at for s in plan._steps if s.activity is Activity.HEARTBEAT]
    assert len(beats) == 1 and 50.0 <= beats[0] < 53.0 and plan.heartbeat == 3
    plan.beat_every(0, now=60.0)
    assert plan.heartbeat is None and [s.activity for s in plan._steps] == [Activity.AUTHORIZE]
    assert plan.peek() is authorize and plan.peek() is authorize
    assert plan.next(60.0) is authorize and plan.peek().activity is Activity.AUTHORIZE   # the next one, planned


def test_authorize_arrives_at_its_rate_per_hour():
    hours = 200
    plan = Plan(Mix(authorize_per_hour=6), random.Random(7), start=0.0)
    count = sum(1 for s in steps(plan, hours * 3600) if s.activity is Activity.AUTHORIZE)
    assert abs(count - 6 * hours) < 4 * (6 * hours) ** 0.5     # Poisson: within four standard deviations


def test_a_transaction_ends_after_its_length_and_the_next_starts_after_it():
    mix = Mix(transactions_per_hour=2, transaction_seconds=900)
    taken = steps(Plan(mix, random.Random(11), start=0.0), 500 * 3600)
    kinds = [s.activity for s in taken]
    assert kinds[::2] == [Activity.START] * len(kinds[::2]) and kinds[1::2] == [Activity.STOP] * len(kinds[1::2])
    lengths = [stop.at - start.at for start, stop in zip(taken[::2], taken[1::2])]
    assert lengths == pytest.approx([900] * len(lengths))
    idle = [start.at - stop.at for stop, start in zip(taken[1::2], taken[2::2])]
    assert statistics.mean(idle) == pytest.approx(1800, rel=0.1)      # 2 an hour: 30 min between sessions


def test_a_mix_is_one_plan_of_every_activity_in_time_order():
    mix = Mix(heartbeat=60, authorize_per_hour=30, transactions_per_hour=10, transaction_seconds=120)
    taken = steps(Plan(mix, random.Random(13), start=0.0), 4 * 3600)
    assert [s.at for s in taken] == sorted(s.at for s in taken)
    assert {s.activity for s in taken} == set(Activity)


def test_the_same_seed_plans_the_same_steps():
    mix = Mix(heartbeat=60, authorize_per_hour=30, transactions_per_hour=10)
    runs = [[(s.at, s.activity) for s in steps(Plan(mix, random.Random("1/42"), start=0.0), 3600)] for _ in range(2)]
    assert runs[0] == runs[1]


def test_a_stations_draws_are_its_seeds_and_spread_as_asked():
    """The load's stations draw from ``Draws`` (16 bytes each, not random.Random's 2.5 KB): the same seed the same
    plan, another seed another one; uniform within its bounds, exponential gaps at their rate."""
    mix = Mix(heartbeat=60, authorize_per_hour=30, transactions_per_hour=10)
    plans = [[(s.at, s.activity) for s in steps(Plan(mix, Draws(seed), start=0.0), 3600)] for seed in ("1/7", "1/7", "1/8")]
    assert plans[0] == plans[1] != plans[2]
    draws = Draws("1/9")
    uniform = [draws.uniform(10, 20) for _ in range(5000)]
    assert all(10 <= u < 20 for u in uniform) and abs(statistics.fmean(uniform) - 15) < 0.2
    gaps = [draws.expovariate(2.0) for _ in range(5000)]
    assert min(gaps) >= 0 and abs(statistics.fmean(gaps) - 0.5) < 0.03


def test_stations_join_at_the_ramp_rate():
    assert [ramp_start(i, per_second=50) for i in (0, 1, 50, 9_999)] == [0.0, 0.02, 1.0, 199.98]


@pytest.mark.parametrize("settings, named", [
    ({"heartbeat": 0}, "heartbeat"), ({"authorize_per_hour": -1}, "authorize_per_hour"),
    ({"transaction_seconds": 0}, "transaction_seconds"), ({"meter_interval": -5}, "meter_interval"),
])
def test_a_mix_out_of_range_is_refused_naming_the_setting(settings, named):
    with pytest.raises(ValueError, match=named):
        Mix(**settings)
