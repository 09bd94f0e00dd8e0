"""A run stopped from outside leaves a truthful record (issue #16): SIGTERM (what ``timeout``, CI
cancellation and ``docker stop`` send), one Ctrl-C, or two in quick succession all leave a valid
summary and JUnit file marked interrupted, naming the signal, the test that was running and the
count not run. Real processes and real signals: the run is on the real clock."""

import json
import signal
import subprocess
import sys
import time
import xml.etree.ElementTree as ET

import pytest

HANGS = '''
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
    Path("hanging").touch()
    time.sleep(120)

@checks({uc}.value)
def test_c_never_runs(target):
    pass

@checks({uc}.value)
def test_d_never_runs(target):
    pass
'''
STARTED_WITHIN = 60   # seconds for the run to reach the hanging test (a cold interpreter on a busy machine)
ENDED_WITHIN = 30     # seconds for it to end once signalled


@pytest.mark.parametrize("signals", [("SIGTERM",), ("SIGINT",), ("SIGINT", "SIGINT")],
                         ids=["sigterm", "sigint", "sigint-twice"])
def test_a_signalled_run_leaves_a_summary_and_junit_marked_interrupted(pytester, signals):
    uc = "SIG" + "".join(s[3] for s in signals) + str(len(signals))
    pytester.makepyfile(test_hangs=HANGS.format(uc=uc))
    run = subprocess.Popen([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:randomly",
                            "--reports-dir", "out", "--junitxml", "junit.xml"],
                           cwd=pytester.path, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        deadline = time.monotonic() + STARTED_WITHIN
        while not (pytester.path / "hanging").exists():
            assert run.poll() is None and time.monotonic() < deadline, "the run never reached the hanging test"
            time.sleep(0.05)
        for name in signals:
            run.send_signal(getattr(signal, name))
            time.sleep(0.05)
        output, _ = run.communicate(timeout=ENDED_WITHIN)
    finally:
        run.kill()
    assert "INTERNALERROR" not in output, output[-3000:]
    summary = json.loads((pytester.path / "out" / "conformance.json").read_text())
    hanging = "test_hangs.py::test_b_hangs[csms-ocpp2.0.1]"
    assert summary["interrupted"] is True and summary["interrupted_by"] == signals[0]
    assert summary["running_when_interrupted"] == [hanging]
    assert summary["not_run"] == 3 and summary["counts"]["passed"] == 1
    assert f"INTERRUPTED by {signals[0]}" in (pytester.path / "out" / "conformance.md").read_text()
    suite = ET.parse(pytester.path / "junit.xml").getroot().find("testsuite")
    properties = {p.get("name"): p.get("value") for p in suite.find("properties")}
    assert properties["interrupted"] == "true" and properties["interrupted_by"] == signals[0]
    assert properties["running_when_interrupted"] == hanging and properties["not_run"] == "3"
