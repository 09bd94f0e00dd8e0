"""bench/parallel_real_run.py runs pytest as a lab machine does (byte code written, to a cache of the bench's own),
and bench/timeline.py writes what each pytest process did when (bench/PARALLEL.md)."""

import json
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "bench"
if str(BENCH) not in sys.path:
    sys.path.insert(0, str(BENCH))

import parallel_real_run  # noqa: E402
import timeline  # noqa: E402


def test_the_runs_write_byte_code_to_the_bench_s_cache_unless_told_to_run_as_the_environment_is(monkeypatch):
    monkeypatch.setenv("PYTHONDONTWRITEBYTECODE", "1")
    monkeypatch.delenv("PYTHONPYCACHEPREFIX", raising=False)
    written = parallel_real_run.environment("written")
    assert "PYTHONDONTWRITEBYTECODE" not in written
    assert written["PYTHONPYCACHEPREFIX"] == str(parallel_real_run.PYCACHE)
    as_is = parallel_real_run.environment("as-is")
    assert as_is["PYTHONDONTWRITEBYTECODE"] == "1" and "PYTHONPYCACHEPREFIX" not in as_is


def test_a_timeline_run_loads_the_plugin_beside_what_the_user_gave(monkeypatch, tmp_path):
    monkeypatch.setenv("PYTEST_ADDOPTS", "-x")
    env = parallel_real_run.environment("written", tmp_path / "timeline")
    assert env["TIMELINE"] == str(tmp_path / "timeline")
    assert env["PYTEST_ADDOPTS"] == "-x -p timeline"
    assert env["PYTHONPATH"].split(":")[0] == str(BENCH)


def test_the_timeline_has_each_process_s_start_collection_tests_and_exit(pytester, monkeypatch):
    pytester.makepyfile("def test_one():\n    pass\n\ndef test_two():\n    pass\n")
    monkeypatch.setenv("TIMELINE", str(pytester.path / "timeline"))
    monkeypatch.setenv("PYTHONPATH", str(BENCH))
    pytester.runpytest_subprocess("-p", "timeline", "-p", "no:cacheprovider").assert_outcomes(passed=2)
    events = [json.loads(line) for line in (pytester.path / "timeline" / "controller.jsonl").read_text().splitlines()]
    names = [event["event"] for event in events]
    assert names[:4] == ["process", "plugin imported", "configure", "collected"]
    assert names.count("test start") == names.count("test end") == 2 and names[-1] == "exit"
    assert [event["t"] for event in events] == sorted(event["t"] for event in events)
    table = timeline.summary(pytester.path / "timeline").splitlines()
    assert table[1].split()[0] == "controller" and table[1].split()[-2] == "2"   # its two tests
