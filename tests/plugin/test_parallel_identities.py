"""A run against a real CSMS spread over xdist workers (harness.parallel): worker i plays the profile's i-th
station identity, its actuator's bodies name that station, more workers than identities are refused with the
fix, and a csms_wide test overlaps no other test of the run."""

import json
import textwrap

import pytest

PROFILE = """
[sut]
name = "Acme CSMS"
[station]
identity = "ACME-0"
authorization_key = "{key}"
identities = ["ACME-1", {{ identity = "ACME-2", authorization_key = "{other}" }}]
"""

WHO = """
import json, os

def _record(profile, sut_actuator, tag):
    with open(os.environ["WHO_LOG"], "a") as log:
        log.write(json.dumps({"worker": os.environ.get("PYTEST_XDIST_WORKER", "serial"), "identity": profile.identity,
                              "key": profile.authorization_key.hex(),
                              "station": getattr(sut_actuator, "identity", None), "test": tag}) + "\\n")

""" + "".join(f"def test_{i}(profile, sut_actuator):\n    _record(profile, sut_actuator, {i})\n\n" for i in range(6))


def _profile(pytester, text=PROFILE):
    return str(pytester.makefile(".toml", sut=textwrap.dedent(text).format(key="ab" * 20, other="cd" * 20)))


def _run(pytester, sut_port, *args, profile=None):
    return pytester.runpytest_subprocess(
        "-p", "no:cacheprovider", "--sut", "csms", "--sut-url", f"ws://127.0.0.1:{sut_port}/ocpp", "--protocol",
        "ocpp1.6", "--sut-profile", profile or _profile(pytester), "--actuator", "http",
        "--actuator-url", "http://127.0.0.1:1", "--reports-dir", "out", *args)


def _records(path):
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_each_worker_plays_its_own_identity_and_a_serial_run_the_station_s(pytester, sut_port, monkeypatch):
    pytester.makepyfile(test_who=WHO)
    monkeypatch.setenv("WHO_LOG", str(pytester.path / "who.jsonl"))
    monkeypatch.delenv("PYTEST_XDIST_WORKER", raising=False)   # this test's own xdist worker: not the inner run's
    _run(pytester, sut_port, "-n", "2").assert_outcomes(passed=6)
    seen = {(r["worker"], r["identity"], r["key"], r["station"]) for r in _records(pytester.path / "who.jsonl")}
    assert seen == {("gw0", "ACME-1", "ab" * 20, "ACME-1"), ("gw1", "ACME-2", "cd" * 20, "ACME-2")}, seen
    (pytester.path / "who.jsonl").unlink()
    _run(pytester, sut_port).assert_outcomes(passed=6)
    assert {(r["worker"], r["identity"], r["station"]) for r in _records(pytester.path / "who.jsonl")} \
        == {("serial", "ACME-0", "ACME-0")}


@pytest.mark.parametrize("workers, profile, fix", [
    ("3", PROFILE, 'list at least 3 stations the CSMS under test knows, e.g. identities = ["CS001", "CS002", "CS003"] '
                   "under [station] (a table per station gives its own password, authorization_key, evse or tokens), "
                   "or run with -n 2"),
    ("2", PROFILE.replace("identities = [", "# ["), "lists 0 ([station] identities); list at least 2 stations"),
], ids=["fewer identities", "none"])
def test_more_workers_than_identities_is_refused_before_any_test_with_the_fix(pytester, sut_port, workers, profile,
                                                                             fix):
    pytester.makepyfile("def test_one():\n    pass\n")
    result = _run(pytester, sut_port, "-n", workers, profile=_profile(pytester, profile))
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert f"-n {workers} spreads the run over {workers} xdist workers, each playing a station identity of its own" \
        in result.stderr.str()
    assert fix in result.stderr.str()


# Each test notes when it starts and ends; while it runs, an ordinary test waits (a bounded while) for the
# csms_wide test to start, and the csms_wide one for any other test to start: without the lock they overlap.
GROUPED = """
import json, os, time
import pytest

WAIT = 1.5   # seconds a test watches for the one it must not overlap

def _note(what, name):
    with open(os.environ["ORDER_LOG"], "a") as log:
        log.write(json.dumps([what, name]) + "\\n")

def _others_started(name, wide_only):
    with open(os.environ["ORDER_LOG"]) as log:
        notes = [json.loads(line) for line in log]
    return [n for w, n in notes if w == "start" and n != name and (n == "wide" or not wide_only)]

def _watch(name, wide_only):
    _note("start", name)
    before = len(_others_started(name, wide_only))
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline and len(_others_started(name, wide_only)) == before:
        time.sleep(0.05)
    _note("end", name)

@pytest.mark.csms_wide("the registration answer of every station")
def test_wide():
    _watch("wide", wide_only=False)

""" + "".join(f"def test_plain_{i}():\n    _watch('plain_{i}', wide_only=True)\n\n" for i in range(5))


def test_a_csms_wide_test_overlaps_no_other_test_of_the_run(pytester, sut_port, monkeypatch):
    pytester.makepyfile(test_grouped=GROUPED)
    log = pytester.path / "order.jsonl"
    log.write_text("")
    monkeypatch.setenv("ORDER_LOG", str(log))
    _run(pytester, sut_port, "-n", "2").assert_outcomes(passed=6)
    notes = _records(log)
    running, overlapped, together = set(), [], 0
    for what, name in notes:
        if what == "start":
            if "wide" in running or (name == "wide" and running):
                overlapped.append((name, sorted(running)))
            running.add(name)
            together = max(together, len(running))
        else:
            running.discard(name)
    assert len(notes) == 12 and not overlapped, notes
    assert together == 2, f"the ordinary tests never ran side by side: {notes}"   # the run was parallel


@pytest.mark.parametrize("sut, dist, chunk, scheduled", [
    ("csms", "load", None, 1),         # -n against a SUT: one test at a time to each worker
    ("csms", "load", 8, 8),            # the user's --maxschedchunk stands
    ("csms", "worksteal", None, None),   # and so does another --dist
    (None, "load", None, None),        # the embedded run: xdist's default
])
def test_a_parallel_run_against_a_sut_hands_each_worker_one_test_at_a_time(sut, dist, chunk, scheduled):
    from types import SimpleNamespace

    from harness.parallel import scheduling
    config = SimpleNamespace(option=SimpleNamespace(dist=dist, maxschedchunk=chunk),
                             getoption=lambda name, default=None: sut, getini=lambda name: "")
    scheduling(config)
    assert config.option.maxschedchunk == scheduled


def test_the_csms_wide_tests_are_played_first_then_the_longest_of_the_last_run_of_the_same_sut(tmp_path):
    from types import SimpleNamespace

    from harness.parallel import first

    def item(name, wide=False):
        return SimpleNamespace(name=name, nodeid=f"t.py::{name}",
                               get_closest_marker=lambda marker: marker == "csms_wide" and wide or None)

    items = [item("a"), item("wide1", True), item("b"), item("c"), item("wide2", True)]
    assert [i.name for i in first(items)] == ["wide1", "wide2", "a", "b", "c"]
    last = tmp_path / "conformance.json"
    last.write_text(json.dumps({"sut": {"role": "csms", "protocol": "ocpp2.0.1"}, "results": [
        {"nodeid": "t.py::c", "duration": 30.0}, {"nodeid": "t.py::b", "duration": 0.5},
        {"nodeid": "t.py::wide2", "duration": 3.0}]}))
    this_sut = {"role": "csms", "protocol": "ocpp2.0.1"}
    # the longest and the shortest in turn: xdist starts each worker on two consecutive tests
    assert [i.name for i in first(items, last, this_sut)] == ["wide2", "wide1", "c", "a", "b"]
    for other in ({"role": "csms", "protocol": "ocpp1.6"}, {"role": "cs", "protocol": "ocpp2.0.1"}):
        assert [i.name for i in first(items, last, other)] == ["wide1", "wide2", "a", "b", "c"]
    last.write_text("{not json")
    assert [i.name for i in first(items, last, this_sut)] == ["wide1", "wide2", "a", "b", "c"]


def test_a_first_run_plays_the_longest_on_the_embedded_run_s_clock_first(tmp_path):
    """No run of one's own yet: the tests that wait longest on the embedded run's clock (harness/clock_durations.json:
    the 2.x clock-aligned meter values, J01, wait a minute) go first, after the csms_wide ones; a run of one's own
    then says better."""
    from types import SimpleNamespace

    from harness.parallel import clock_durations, first

    waits = clock_durations()
    suite = "suites/ocpp2/metervalues/test_J01.py::test_no_clock_aligned_values_at_interval_zero[cs-ocpp2.0.1]"
    assert waits[suite] >= 60 and len(waits) > 50

    def item(nodeid, wide=False):
        return SimpleNamespace(nodeid=nodeid, get_closest_marker=lambda marker: marker == "csms_wide" and wide or None)

    quick, long_, wide = item("t.py::quick"), item(suite), item("t.py::wide", True)
    assert first([quick, long_, wide], tmp_path / "none.json", {"role": "cs", "protocol": "ocpp2.0.1"}) == \
        [wide, long_, quick]
    last = tmp_path / "conformance.json"
    last.write_text(json.dumps({"sut": {"role": "cs", "protocol": "ocpp2.0.1"}, "results": [
        {"nodeid": "t.py::quick", "duration": 90.0}, {"nodeid": suite, "duration": 61.0}]}))
    assert first([quick, long_, wide], last, {"role": "cs", "protocol": "ocpp2.0.1"}) == [wide, quick, long_]


def test_two_long_tests_never_start_one_worker_s_share(monkeypatch):
    """xdist starts each worker on two consecutive tests of the order: the longest and the shortest go in turn, so
    that the four longest of a run land on four workers, not two of them on one (the 1.6 run's SIGNEDFIRMWARE16 20 s
    and METER16 11 s did, one after the other)."""
    from types import SimpleNamespace

    from harness import parallel

    took = {f"t.py::long{n}": 40.0 - n for n in range(4)}
    monkeypatch.setattr(parallel, "clock_durations", lambda: took)
    items = [SimpleNamespace(nodeid=nodeid, get_closest_marker=lambda marker: None)
             for nodeid in [f"t.py::short{n}" for n in range(8)] + list(took)]
    order = [item.nodeid for item in parallel.first(items)]
    starts = [order[i:i + 2] for i in range(0, 8, 2)]   # four workers' first two tests
    assert sorted(sum(nodeid.startswith("t.py::long") for nodeid in pair) for pair in starts) == [1, 1, 1, 1], starts
    assert sorted(order) == sorted(item.nodeid for item in items)


def test_a_test_starts_once_the_run_s_csms_wide_tests_were_played(tmp_path):
    """A worker's first test would otherwise start as the run begins and a csms_wide test on another worker wait for
    it at the lock, every worker idle behind the two: a test that is not csms_wide waits until each was played
    (whatever its verdict), and past its patience starts anyway (the lock still keeps them apart)."""
    import threading

    from harness import parallel

    lock = parallel.new_lock()
    wide = frozenset({"t.py::wide1", "t.py::wide2"})
    parallel.played(lock, "t.py::wide1")
    later = threading.Timer(0.2, parallel.played, (lock, "t.py::wide2"))
    later.start()
    parallel.after_the_wide_ones(lock, wide, patience=30)
    assert all(parallel._played_mark(lock, nodeid).exists() for nodeid in wide)
    later.join()

    other = parallel.new_lock()
    parallel.after_the_wide_ones(other, wide, patience=0)   # none played on this run: past its patience, it starts
    assert not any(parallel._played_mark(other, nodeid).exists() for nodeid in wide)
    for path in (lock, other):
        parallel.cleaned(path)
        assert not path.parent.exists()
