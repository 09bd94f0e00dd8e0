"""Interop: the harness against an OCPP implementation this project did not write.

examples/ocpp_lib_sut.py runs the `ocpp` library (mobilityhouse) as a CSMS and as a charging
station; the harness runs suites/ocpp2 against each over loopback, driving it through the
example's HTTP actuator. Every test passes, or fails only with a deviation listed here; no test
is broken, and none is skipped for want of an actuator action.
"""

import json
import os
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "ocpp_lib_sut.py"
PROTOCOL = "ocpp2.0.1"

# Real deviations of the library (or of the websockets setup its own examples use), by role and
# test (its node id below suites/ocpp2/): a substring of the failure's reason.
DEVIATIONS = {
    # OCPP-J §3.1.2 (OCPP version): a CSMS that agrees to none of the offered subprotocols completes
    # the handshake without Sec-WebSocket-Protocol, then closes. websockets' serve(subprotocols=...)
    # refuses the upgrade with HTTP 400 instead.
    "csms": {"connection/test_CONN.py::test_csms_without_acceptable_subprotocol_upgrades_then_closes"
             f"[csms-{PROTOCOL}]": "actual:   'HTTP 400'"},
    "cs": {},
}

# SHOULD-level deviations the harness must report as findings, in both roles.
FINDINGS = {
    # a missing required field: the library answers ProtocolError, not OccurrenceConstraintViolation
    "rpc/test_RPC.py::test_invalid_payload_is_answered_with_a_callerror[{role}-" + PROTOCOL + "]":
        "the SUT said ProtocolError",
    # part 4 §4.3: an unknown action is NotImplemented; the library swaps the two codes' meanings
    # (ocpp/exceptions.py) and answers NotSupported
    "rpc/test_RPC.py::test_unknown_action_is_answered_not_implemented[{role}-" + PROTOCOL + "]":
        "got NotSupported",
    # text that is not JSON: the library logs it and answers nothing
    "rpc/test_RPC.py::test_text_that_is_not_json_does_not_break_the_connection[{role}-" + PROTOCOL + "]":
        "should be answered with CALLERROR RpcFrameworkError",
}


@dataclass
class Run:
    role: str
    results: dict[str, dict]            # test (below suites/ocpp2/) → its conformance.json entry
    harness_output: str
    sut_output: str
    sut_returncode: int | None

    def where(self, verdict: str) -> dict[str, dict]:
        return {test: r for test, r in self.results.items() if r["verdict"] == verdict}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for_port(port: int, process: subprocess.Popen, timeout: float = 15.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the example SUT exited with {process.returncode} before port {port} opened")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return
        except OSError:
            time.sleep(0.05)
    raise TimeoutError(f"the example SUT did not open port {port} within {timeout:g} s")


def stop(process: subprocess.Popen) -> None:
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def example_command(role: str, ocpp_port: int, actuator_port: int) -> list[str]:
    where = ["--port", str(ocpp_port)] if role == "csms" else ["--csms-url", f"ws://127.0.0.1:{ocpp_port}/ocpp"]
    return [sys.executable, str(EXAMPLE), role, *where, "--actuator-port", str(actuator_port),
            "--profile", str(REPO / "profiles" / f"example-{role}.toml")]


def harness_command(role: str, ocpp_port: int, actuator_port: int, reports: Path) -> list[str]:
    where = ["--sut-url", f"ws://127.0.0.1:{ocpp_port}/ocpp"] if role == "csms" else \
        ["--listen", f"127.0.0.1:{ocpp_port}"]
    return [sys.executable, "-m", "pytest", "suites/ocpp2", "-q", "-p", "no:cacheprovider",
            "--sut", role, *where, "--protocol", PROTOCOL, "--sut-profile", f"profiles/example-{role}.toml",
            "--actuator", "http", "--actuator-url", f"http://127.0.0.1:{actuator_port}", "--reports-dir", str(reports)]


@pytest.fixture(scope="module", params=["csms", "cs"])
def run(request, tmp_path_factory) -> Run:
    """Start the example SUT, run suites/ocpp2 against it, stop it with SIGTERM."""
    role = request.param
    tmp = tmp_path_factory.mktemp(f"interop-{role}")
    ocpp_port, actuator_port = free_port(), free_port()
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    with open(tmp / "sut.log", "w+") as sut_log:
        process = subprocess.Popen(example_command(role, ocpp_port, actuator_port), cwd=REPO,
                                   stdout=sut_log, stderr=subprocess.STDOUT, text=True)
        try:
            # the CSMS listens on both ports; the station only on its actuator port (it connects out)
            for port in ([ocpp_port] if role == "csms" else []) + [actuator_port]:
                wait_for_port(port, process)
            harness = subprocess.run(harness_command(role, ocpp_port, actuator_port, tmp / "reports"),
                                     cwd=REPO, capture_output=True, text=True, timeout=120, env=env)
        finally:
            stop(process)
        sut_log.seek(0)
        sut_output = sut_log.read()
    output = harness.stdout + harness.stderr
    summary = tmp / "reports" / "conformance.json"
    assert summary.exists(), f"the harness wrote no conformance summary:\n{output[-4000:]}"
    results = {r["nodeid"].removeprefix("suites/ocpp2/"): r for r in json.loads(summary.read_text())["results"]}
    return Run(role, results, output, sut_output, process.returncode)


def test_no_test_is_broken(run):
    broken = {test: r["reason"][:300] for test, r in run.where("broken").items()}
    assert not broken, f"{run.role}: broken verdicts against the ocpp library: {json.dumps(broken, indent=1)}"


def test_failures_are_the_known_deviations(run):
    known = DEVIATIONS[run.role]
    unexpected = {test: r["reason"][:400] for test, r in run.where("failed").items()
                  if test not in known or known[test] not in r["reason"]}
    assert not unexpected, f"{run.role}: failures that are not a known deviation: {json.dumps(unexpected, indent=1)}"
    for test, reason in DEVIATIONS[run.role].items():
        assert test in run.results, f"{run.role}: the test {test} no longer exists; update DEVIATIONS"
        assert run.results[test]["verdict"] == "failed" and reason in run.results[test]["reason"], \
            f"{run.role}: {test} no longer fails with {reason!r}: the library changed; update DEVIATIONS"


def test_every_action_the_suites_need_is_implemented(run):
    """Skips are 'not applicable' per the profile, never the actuator's 501."""
    for_actuator = {test: r["reason"] for test, r in run.where("skipped").items() if "actuator" in r["reason"]}
    assert not for_actuator, f"{run.role}: skipped for want of an actuator action: {for_actuator}"
    assert len(run.where("passed")) >= 20, f"{run.role}: too few tests ran:\n{run.harness_output[-3000:]}"


def test_the_library_deviations_are_reported_as_findings(run):
    for pattern, text in FINDINGS.items():
        test = pattern.format(role=run.role)
        findings = run.results.get(test, {}).get("findings", [])
        assert any(text in f for f in findings), \
            f"{run.role}: {test} did not report the finding {text!r}; it reported {findings}"


def test_the_example_prints_its_urls_and_stops_cleanly(run):
    assert "actuator listening on http://127.0.0.1:" in run.sut_output, run.sut_output[-2000:]
    assert ("CSMS listening on ws://127.0.0.1:" if run.role == "csms" else "connecting to ws://127.0.0.1:") \
        in run.sut_output, run.sut_output[-2000:]
    assert run.sut_returncode == 0 and run.sut_output.rstrip().endswith("stopped"), \
        f"SIGTERM did not stop the example cleanly (exit {run.sut_returncode}):\n{run.sut_output[-2000:]}"
