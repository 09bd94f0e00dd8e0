"""The load report's numbers from made-up round trips and times: percentiles, intervals, errors, shipping."""

import json

import pytest

pytest.importorskip("hdrh", reason="the load mode's dependencies are the [load] extra: pip install -e \".[test,load]\"")

from harness.load.recorder import Recorder

RUN = {"url": "ws://127.0.0.1:9/ocpp", "protocol": "ocpp2.0.1", "stations": 2}


def test_percentiles_per_action_are_the_round_trips_to_two_significant_digits():
    recorder = Recorder(interval=5)
    for ms in range(1, 101):                      # 1 ms .. 100 ms, one each
        recorder.round_trip("Heartbeat", ms / 1000, at=1.0)
    recorder.round_trip("BootNotification", 0.250, at=2.0)
    actions = recorder.report(RUN)["actions"]
    heartbeat = actions["Heartbeat"]
    assert heartbeat["count"] == 100
    assert heartbeat["p50_ms"] == pytest.approx(50, rel=0.01)
    assert heartbeat["p90_ms"] == pytest.approx(90, rel=0.01)
    assert heartbeat["p99_ms"] == pytest.approx(99, rel=0.01)
    assert heartbeat["max_ms"] == pytest.approx(100, rel=0.01)
    assert actions["BootNotification"]["p50_ms"] == pytest.approx(250, rel=0.01)


def test_the_timeline_has_one_moment_per_interval_with_that_interval_s_round_trips():
    recorder = Recorder(interval=10)
    recorder.round_trip("Heartbeat", 0.002, at=1000.0)
    recorder.round_trip("Heartbeat", 0.200, at=1025.0)     # two intervals later; the one between is empty
    timeline = recorder.report(RUN)["timeline"]
    assert [m["t"] for m in timeline] == [0, 10, 20]
    assert timeline[0]["actions"]["Heartbeat"]["p99_ms"] == pytest.approx(2, rel=0.01)
    assert timeline[1]["actions"] == {}
    assert timeline[2]["actions"]["Heartbeat"]["p50_ms"] == pytest.approx(200, rel=0.01)
    assert timeline[2]["actions"]["Heartbeat"]["per_second"] == 0.1


def test_errors_are_counted_by_kind_over_the_run_and_per_interval():
    recorder = Recorder(interval=1)
    for at in (0.1, 0.2, 3.5):
        recorder.error("no answer to Heartbeat", at)
    recorder.error("connect refused: HTTP 401", 0.3)
    report = recorder.report(RUN)
    assert report["errors"] == {"no answer to Heartbeat": 3, "connect refused: HTTP 401": 1}
    assert report["summary"]["errors"] == 4
    assert [m["errors"] for m in report["timeline"]] == [3, 0, 0, 1]


def test_connections_held_add_up_over_processes_and_carry_over_a_silent_interval():
    recorder = Recorder(interval=1)
    recorder.gauge(0.5, "worker-0", connected=10, cpu_percent=50.0, rss_mb=100.0)
    recorder.gauge(0.6, "worker-1", connected=5, cpu_percent=40.0, rss_mb=90.0)
    recorder.gauge(1.5, "worker-0", connected=20, cpu_percent=70.0, rss_mb=110.0)   # worker-1 silent here
    report = recorder.report(RUN)
    assert [m["connected"] for m in report["timeline"]] == [15, 25]
    assert report["summary"]["connections_held"] == {"peak": 25, "end": 25}
    assert report["processes"]["worker-0"] == {"cpu_percent_mean": 60.0, "cpu_percent_peak": 70.0,
                                               "rss_mb_first": 100.0, "rss_mb_peak": 110.0, "rss_mb_last": 110.0,
                                               "connected_peak": 20}
    assert report["processes"]["worker-1"]["connected_peak"] == 5      # each worker's own share


def test_what_workers_ship_adds_up_to_what_one_process_would_have_measured():
    one, master = Recorder(interval=5), Recorder(interval=5)
    workers = [Recorder(interval=5), Recorder(interval=5)]
    for i in range(200):
        rtt, at = (i % 37 + 1) / 1000, i * 0.1
        one.round_trip("Authorize", rtt, at)
        workers[i % 2].round_trip("Authorize", rtt, at)
        if i % 50 == 0:
            one.error("CALLERROR InternalError to Authorize", at)
            workers[i % 2].error("CALLERROR InternalError to Authorize", at)
    for worker in workers:
        master.merge(json.loads(json.dumps(worker.drain())))     # as Locust carries it
        assert worker.drain()["latency"] == []                     # drained: shipped once
    assert master.report(RUN) == one.report(RUN)


def test_a_worker_measuring_other_intervals_is_refused_with_the_fix():
    with pytest.raises(ValueError, match="same --interval"):
        Recorder(interval=5).merge(Recorder(interval=1).drain())


def test_the_report_says_what_was_run_and_answers_with_json_only():
    recorder = Recorder(interval=5)
    recorder.round_trip("BootNotification", 0.004, at=0.0)
    recorder.round_trip("Heartbeat", 0.003, at=6.0)
    recorder.gauge(6.0, "local", connected=2, stations=2, cpu_percent=12.5, rss_mb=80.0)
    report = json.loads(json.dumps(recorder.report(RUN)))
    assert set(report) == {"report", "format", "run", "interval_seconds", "seconds", "summary", "actions",
                           "errors", "processes", "timeline"}
    assert report["run"] == RUN and report["seconds"] == 10
    assert set(report["summary"]) == {"connections_held", "calls", "errors", "round_trip_ms",
                                      "round_trip_ms_while_held"}
    assert report["summary"]["round_trip_ms"]["BootNotification"] == {"p50": pytest.approx(4, rel=0.01),
                                                                      "p99": pytest.approx(4, rel=0.01)}
    assert set(report["actions"]["Heartbeat"]) == {"count", "per_second", "p50_ms", "p90_ms", "p99_ms", "max_ms"}
    assert set(report["timeline"][1]) == {"t", "connected", "actions", "errors", "processes"}
    assert report["timeline"][1]["processes"] == {"local": {"cpu_percent": 12.5, "rss_mb": 80.0, "connected": 2}}


def test_a_round_trip_beyond_a_minute_counts_as_a_minute():
    recorder = Recorder(interval=5)
    recorder.round_trip("Heartbeat", 3600.0, at=0.0)
    assert recorder.report(RUN)["actions"]["Heartbeat"]["max_ms"] == pytest.approx(60_000, rel=0.01)


def test_round_trips_while_every_station_is_held_leave_the_ramp_out():
    recorder = Recorder(interval=5)
    recorder.round_trip("Heartbeat", 2.0, at=1.0)          # the ramp: a busy CSMS
    recorder.round_trip("Heartbeat", 0.004, at=12.0)
    assert recorder.report(RUN)["summary"]["round_trip_ms_while_held"] is None
    recorder.held_from = 7.0                                 # the last station started; from the next interval on
    held = recorder.report(RUN)["summary"]["round_trip_ms_while_held"]
    assert held["Heartbeat"]["p99"] == pytest.approx(4, rel=0.01)


def test_a_master_finds_when_its_workers_held_every_station_from_their_summed_gauges():
    recorder = Recorder(interval=1)
    recorder.round_trip("Heartbeat", 1.5, at=100.2)                                  # the ramp
    recorder.gauge(100.5, "worker-0", connected=3, cpu_percent=1.0, rss_mb=50.0)
    recorder.gauge(101.5, "worker-0", connected=5, cpu_percent=1.0, rss_mb=50.0)
    recorder.gauge(101.6, "worker-1", connected=4, cpu_percent=1.0, rss_mb=50.0)   # 9 of 10
    recorder.gauge(102.5, "worker-1", connected=5, cpu_percent=1.0, rss_mb=50.0)   # 10: all held from here
    recorder.round_trip("Heartbeat", 0.9, at=102.7)                                  # still that interval
    recorder.round_trip("Heartbeat", 0.003, at=103.4)
    held = recorder.report(RUN, stations=10)["summary"]["round_trip_ms_while_held"]
    assert held["Heartbeat"]["p99"] == pytest.approx(3, rel=0.01)
    assert recorder.report(RUN, stations=11)["summary"]["round_trip_ms_while_held"] is None
