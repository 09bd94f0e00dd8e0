"""A run stopped from outside leaves a truthful record (issue #16): SIGTERM (what ``timeout``, CI
cancellation and ``docker stop`` send), one Ctrl-C, or two in quick succession all leave a valid
summary and JUnit file marked interrupted, naming the signal, the test that was running and the
count not run. Real processes and real signals: the run is a session forked warm (suite_runner.py), on
the real clock; its hanging test names the process to signal."""

import json
import os
import signal
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
import suite_runner

HANGS = '''
import os
import time
from pathlib import Path

from harness.rules import RuleTable, must
from harness.suite import case, checks
from harness.verdict import check_equal

class {uc}(RuleTable):
    value = must("spec 001 demo", "the value is the one asked for")

pytestmark = case("{uc}", block="Demo", roles=("csms",), protocols=("ocpp2.0.1",))

@checks({uc}.value)
def test_a_passes(target):
    check_equal({uc}.value, "value", 1, 1)

@checks({uc}.value)
def test_b_hangs(target):
    Path("hanging").write_text(str(os.getpid()))
    time.sleep(120)

@checks({uc}.value)
def test_c_never_runs(target):
    pass

@checks({uc}.value)
def test_d_never_runs(target):
    pass
'''
STARTED_WITHIN = 60   # seconds for the run to reach the hanging test (on a busy machine)
ENDED_WITHIN = 30     # seconds for it to end once signalled


@pytest.mark.parametrize("signals", [("SIGTERM",), ("SIGINT",), ("SIGINT", "SIGINT")],
                         ids=["sigterm", "sigint", "sigint-twice"])
def test_a_signalled_run_leaves_a_summary_and_junit_marked_interrupted(pytester, signals):
    uc = "SIG" + "".join(s[3] for s in signals) + str(len(signals))
    pytester.makepyfile(test_hangs=HANGS.format(uc=uc))
    run = suite_runner.start(pytester.path, ["--reports-dir", "out", "--junitxml", "junit.xml"],
                             STARTED_WITHIN + ENDED_WITHIN, suite_runner.REAL_CLOCK)
    hanging, deadline = pytester.path / "hanging", time.monotonic() + STARTED_WITHIN
    while not (hanging.exists() and hanging.read_text()):
        assert not run.done() and time.monotonic() < deadline, "the run never reached the hanging test"
        time.sleep(0.05)
    for name in signals:
        os.kill(int(hanging.read_text()), getattr(signal, name))
        time.sleep(0.05)
    run.result(timeout=ENDED_WITHIN)
    output = (pytester.path / "stdout.txt").read_text() + (pytester.path / "stderr.txt").read_text()
    assert "INTERNALERROR" not in output, output[-3000:]
    summary = json.loads((pytester.path / "out" / "conformance.json").read_text())
    running = "test_hangs.py::test_b_hangs[csms-ocpp2.0.1]"
    assert summary["interrupted"] is True and summary["interrupted_by"] == signals[0]
    assert summary["running_when_interrupted"] == [running]
    assert summary["not_run"] == 3 and summary["counts"]["passed"] == 1
    assert f"INTERRUPTED by {signals[0]}" in (pytester.path / "out" / "conformance.md").read_text()
    suite = ET.parse(pytester.path / "junit.xml").getroot().find("testsuite")
    properties = {p.get("name"): p.get("value") for p in suite.find("properties")}
    assert properties["interrupted"] == "true" and properties["interrupted_by"] == signals[0]
    assert properties["running_when_interrupted"] == running and properties["not_run"] == "3"


# Two Ctrl-C in quick succession, as an operator's fingers give them, to a pytest of its own process: the run
# above is a warm fork whose caller catches a KeyboardInterrupt that escapes pytest, so it could not see one.
# The second signal lands wherever pytest is in ending the run for the first (unwinding, reporting the
# interrupt, tearing down, writing the reports): the gaps put it in different places.
REPO = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("gap", [0, 0.005, 0.05, 0.2], ids=lambda gap: f"{gap * 1000:g}ms")
def test_two_ctrl_c_in_quick_succession_end_the_run_as_interrupted_without_a_traceback(pytester, gap):
    pytester.makepyfile(test_hangs=HANGS.format(uc="SIGTWICE"))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, (str(REPO), os.environ.get("PYTHONPATH"))))}
    with open(pytester.path / "stdout.txt", "wb") as out, open(pytester.path / "stderr.txt", "wb") as err:
        run = subprocess.Popen([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:randomly",
                                "--reports-dir", "out", "test_hangs.py"], cwd=pytester.path, env=env,
                               stdin=subprocess.DEVNULL, stdout=out, stderr=err)
    try:
        hanging, deadline = pytester.path / "hanging", time.monotonic() + STARTED_WITHIN
        while not (hanging.exists() and hanging.read_text()):
            assert run.poll() is None and time.monotonic() < deadline, "the run never reached the hanging test"
            time.sleep(0.02)
        run.send_signal(signal.SIGINT)
        time.sleep(gap)
        run.send_signal(signal.SIGINT)
        code = run.wait(timeout=ENDED_WITHIN)
    finally:
        if run.poll() is None:
            run.kill()
            run.wait()
    output = (pytester.path / "stdout.txt").read_text() + (pytester.path / "stderr.txt").read_text()
    assert "Traceback" not in output and "SystemError" not in output, output[-3000:]
    assert code == pytest.ExitCode.INTERRUPTED, (code, output[-3000:])
    summary = json.loads((pytester.path / "out" / "conformance.json").read_text())
    assert summary["interrupted"] is True and summary["interrupted_by"] == "SIGINT"
    assert summary["running_when_interrupted"] == ["test_hangs.py::test_b_hangs[csms-ocpp2.0.1]"]
