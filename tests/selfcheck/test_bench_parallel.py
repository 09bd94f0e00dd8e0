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


def test_each_run_has_a_temporary_directory_of_its_own(tmp_path):
    """Else pytest ends a run by deleting the oldest numbered directory any earlier run left (3.6 s of one run's end
    went to an interop replay's 31,744 files), and a run's wall depends on what the machine ran before it."""
    urls = {"OCPP URL": "ws://127.0.0.1:9/ocpp", "actuator URL": "http://127.0.0.1:9/actuator"}
    serial, parallel = (parallel_real_run.pytest_command("ocpp1.6", workers, "suites/ocpp16", tmp_path / f"n{workers}",
                                                         urls) for workers in (0, 4))
    temporary = {command[command.index("--basetemp") + 1] for command in (serial, parallel)}
    assert temporary == {str(tmp_path / "n0-tmp"), str(tmp_path / "n4-tmp")}
    assert "-n" not in serial and parallel[-2:] == ["-n", "4"]


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
    assert names.index("session finish") < names.index("session finished") < names.index("unconfigured")
    assert [event["t"] for event in events] == sorted(event["t"] for event in events)
    table = timeline.summary(pytester.path / "timeline").splitlines()
    assert table[1].split()[0] == "controller" and table[1].split()[-2] == "2"   # its two tests


LEFT_TO_THEIR_USERS = ("faker", "jinja2")   # a Faker's builder, the reports' writer: an xdist worker of a 1.6 run is neither


def test_a_worker_of_a_1_6_run_against_a_csms_imports_neither_faker_nor_jinja2(pytester):
    """What each xdist worker of a parallel run against a CSMS does before its first test (start, collect the 1.6
    suites) imports neither: every worker paid for them at start (~0.1 s of CPU), bench/PARALLEL.md."""
    pytester.makeconftest("import sys\n\ndef pytest_collection_finish(session):\n"
                          f"    print('LOADED', sorted(m for m in {LEFT_TO_THEIR_USERS!r} if m in sys.modules))\n")
    repo = BENCH.parent
    result = pytester.runpytest_subprocess(
        str(repo / "suites/ocpp16"), str(repo / "suites/ocpp"), "--co", "-q", "-p", "no:cacheprovider",
        f"--rootdir={repo}", "--confcutdir", str(pytester.path), "-p", "conftest", "--sut", "csms", "--sut-url",
        "ws://127.0.0.1:9/ocpp", "--protocol", "ocpp1.6", "--sut-profile", "builtin:standalone")
    assert "LOADED []" in result.stdout.str(), result.stdout.str()[-3000:] + result.stderr.str()[-2000:]


def test_the_reversed_run_plays_the_collected_tests_last_first(pytester, monkeypatch):
    """bench/reverse_order.py (``--again``'s third run): the order after every other plugin's, reversed."""
    pytester.makepyfile("ORDER = []\n\ndef test_a():\n    assert ORDER == ['c', 'b']\n\n"
                        "def test_b():\n    ORDER.append('b')\n\ndef test_c():\n    ORDER.append('c')\n")
    monkeypatch.setenv("PYTHONPATH", str(BENCH))
    pytester.runpytest_subprocess("-p", "reverse_order", "-p", "no:cacheprovider").assert_outcomes(passed=3)
    pytester.runpytest_subprocess("-p", "no:cacheprovider").assert_outcomes(passed=2, failed=1)   # as collected
    urls = {"OCPP URL": "ws://127.0.0.1:9/ocpp", "actuator URL": "http://127.0.0.1:9/actuator"}
    command = parallel_real_run.pytest_command("ocpp1.6", 0, "suites/ocpp16", pytester.path / "r", urls, reverse=True)
    assert command[-2:] == ["-p", "reverse_order"] and "-n" not in command


def test_differences_name_the_runs():
    assert parallel_real_run.differences({"t": "passed"}, {"t": "broken"}, ("first", "again")) == \
        ["t: passed first, broken again"]
    assert parallel_real_run.differences({"t": "passed"}, {}) == ["t: passed serially, not run in parallel"]
