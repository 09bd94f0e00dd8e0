"""Interop: the harness against an OCPP implementation this project did not write.

examples/ocpp_lib_sut.py (2.0.1) and examples/ocpp16_lib_sut.py (1.6) run the `ocpp` library
(mobilityhouse) as a CSMS / central system and as a charging station / charge point; the harness
runs suites/ocpp2 or suites/ocpp16 against each over loopback, driving it through the example's HTTP
actuator. Every test passes, or fails only with a deviation listed here; no test is broken, and
none is skipped for want of an actuator action.
"""

import json
import os
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class Target:
    """One protocol version of the example: its script, suite, profiles and the library's deviations."""
    protocol: str
    example: str
    suite: str
    profile: str                  # profiles/<profile with {role}>
    deviations: dict[str, dict[str, str]]   # role → test (below the suite) → a substring of its failure
    findings: dict[str, dict[str, str]] = field(default_factory=dict)   # role → test → a substring of a finding

    def profile_of(self, role: str) -> str:
        return "profiles/" + self.profile.format(role=role)


def node(target_protocol: str, path: str, role: str) -> str:
    return f"{path}[{role}-{target_protocol}]"


def in_both_roles(findings: dict[str, str]) -> dict[str, dict[str, str]]:
    """Findings expected whichever role the library plays: test patterns with {role}."""
    return {role: {test.format(role=role): text for test, text in findings.items()} for role in ("csms", "cs")}


# OCPP-J (§3.1.2 in 2.0.1, spec 002 Connection 4 in 1.6): a CSMS that agrees to none of the offered
# subprotocols completes the handshake without Sec-WebSocket-Protocol, then closes. websockets'
# serve(subprotocols=...), as the library's own examples set it up, refuses the upgrade with HTTP 400.
SUBPROTOCOL_400 = "actual:   'HTTP 400'"

OCPP201 = Target(
    "ocpp2.0.1", "ocpp_lib_sut.py", "suites/ocpp2", "example-{role}.toml",
    deviations={
        "csms": {node("ocpp2.0.1", "connection/test_CONN.py::test_csms_without_acceptable_subprotocol_upgrades_then_closes",
                      "csms"): SUBPROTOCOL_400},
        "cs": {},
    },
    findings=in_both_roles({
        # a missing required field: the library answers ProtocolError, not OccurrenceConstraintViolation
        "rpc/test_RPC.py::test_invalid_payload_is_answered_with_a_callerror[{role}-ocpp2.0.1]":
            "the SUT said ProtocolError",
        # part 4 §4.3: an unknown action is NotImplemented; the library swaps the two codes' meanings
        # (ocpp/exceptions.py) and answers NotSupported
        "rpc/test_RPC.py::test_unknown_action_is_answered_not_implemented[{role}-ocpp2.0.1]": "got NotSupported",
        # text that is not JSON: the library logs it and answers nothing
        "rpc/test_RPC.py::test_text_that_is_not_json_does_not_break_the_connection[{role}-ocpp2.0.1]":
            "should be answered with CALLERROR RpcFrameworkError",
    }))

# spec 002 Errors: the 1.6 code for a payload not conforming to the PDU's structure is FormationViolation.
# The library answers an additional property with its 2.x FormatViolationError on every version
# (ocpp/messages.py validate_payload; its own docstring calls that "not strict OCPP 1.6").
FORMAT_VIOLATION_ON_16 = "FormatViolation is not a 1.6 CALLERROR code"
EXTRA_FIELD = "transport/test_TRANSPORT16.py::test_malformed_call_is_answered_with_a_16_code"

OCPP16 = Target(
    "ocpp1.6", "ocpp16_lib_sut.py", "suites/ocpp16", "example-{role}-ocpp16.toml",
    deviations={
        "csms": {node("ocpp1.6", "transport/test_TRANSPORT16.py::test_csms_without_acceptable_subprotocol_upgrades_then_closes",
                      "csms"): SUBPROTOCOL_400,
                 f"{EXTRA_FIELD}[csms-ocpp1.6-extra]": FORMAT_VIOLATION_ON_16},
        "cs": {f"{EXTRA_FIELD}[cs-ocpp1.6-extra]": FORMAT_VIOLATION_ON_16},
    },
    findings=in_both_roles({
        # the same library mapping as in 2.0.1: a missing field is ProtocolError, an unknown action NotSupported;
        # a too long string is TypeConstraintViolation (it maps maxLength there), and so is a payload that is
        # an array (the schema's type keyword), where 1.6 names these PropertyConstraintViolation and
        # FormationViolation
        EXTRA_FIELD + "[{role}-ocpp1.6-missing]": "the SUT said ProtocolError",
        EXTRA_FIELD + "[{role}-ocpp1.6-unknown]": "the SUT said NotSupported",
        EXTRA_FIELD + "[{role}-ocpp1.6-property]": "the SUT said TypeConstraintViolation",
        EXTRA_FIELD + "[{role}-ocpp1.6-formation]": "the SUT said TypeConstraintViolation",
    }))

TARGETS = {(t.protocol, role): t for t in (OCPP201, OCPP16) for role in ("csms", "cs")}


@dataclass
class Run:
    target: Target
    role: str
    results: dict[str, dict]            # test (below the suite's folder) → its conformance.json entry
    harness_output: str
    sut_output: str
    sut_returncode: int | None

    def where(self, verdict: str) -> dict[str, dict]:
        return {test: r for test, r in self.results.items() if r["verdict"] == verdict}

    def __str__(self) -> str:
        return f"{self.target.protocol} {self.role}"


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


def example_command(target: Target, role: str, ocpp_port: int, actuator_port: int) -> list[str]:
    where = ["--port", str(ocpp_port)] if role == "csms" else ["--csms-url", f"ws://127.0.0.1:{ocpp_port}/ocpp"]
    return [sys.executable, str(REPO / "examples" / target.example), role, *where,
            "--actuator-port", str(actuator_port), "--profile", str(REPO / target.profile_of(role))]


def harness_command(target: Target, role: str, ocpp_port: int, actuator_port: int, reports: Path) -> list[str]:
    where = ["--sut-url", f"ws://127.0.0.1:{ocpp_port}/ocpp"] if role == "csms" else \
        ["--listen", f"127.0.0.1:{ocpp_port}"]
    return [sys.executable, "-m", "pytest", target.suite, "-q", "-p", "no:cacheprovider",
            "--sut", role, *where, "--protocol", target.protocol, "--sut-profile", target.profile_of(role),
            "--actuator", "http", "--actuator-url", f"http://127.0.0.1:{actuator_port}", "--reports-dir", str(reports)]


@pytest.fixture(scope="module", params=list(TARGETS), ids=[f"{p}-{r}" for p, r in TARGETS])
def run(request, tmp_path_factory) -> Run:
    """Start the example SUT, run the version's suites against it, stop it with SIGTERM."""
    protocol, role = request.param
    target = TARGETS[request.param]
    tmp = tmp_path_factory.mktemp(f"interop-{protocol}-{role}")
    ocpp_port, actuator_port = free_port(), free_port()
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    with open(tmp / "sut.log", "w+") as sut_log:
        process = subprocess.Popen(example_command(target, role, ocpp_port, actuator_port), cwd=REPO,
                                   stdout=sut_log, stderr=subprocess.STDOUT, text=True)
        try:
            # the CSMS listens on both ports; the station only on its actuator port (it connects out)
            for port in ([ocpp_port] if role == "csms" else []) + [actuator_port]:
                wait_for_port(port, process)
            harness = subprocess.run(harness_command(target, role, ocpp_port, actuator_port, tmp / "reports"),
                                     cwd=REPO, capture_output=True, text=True, timeout=240, env=env)
        finally:
            stop(process)
        sut_log.seek(0)
        sut_output = sut_log.read()
    output = harness.stdout + harness.stderr
    summary = tmp / "reports" / "conformance.json"
    assert summary.exists(), f"the harness wrote no conformance summary:\n{output[-4000:]}"
    results = {r["nodeid"].removeprefix(target.suite + "/"): r for r in json.loads(summary.read_text())["results"]}
    return Run(target, role, results, output, sut_output, process.returncode)


def test_no_test_is_broken(run):
    broken = {test: r["reason"][:300] for test, r in run.where("broken").items()}
    assert not broken, f"{run}: broken verdicts against the ocpp library: {json.dumps(broken, indent=1)}"


def test_failures_are_the_known_deviations(run):
    known = run.target.deviations[run.role]
    unexpected = {test: r["reason"][:400] for test, r in run.where("failed").items()
                  if test not in known or known[test] not in r["reason"]}
    assert not unexpected, f"{run}: failures that are not a known deviation: {json.dumps(unexpected, indent=1)}"
    for test, reason in known.items():
        assert test in run.results, f"{run}: the test {test} no longer exists; update the deviations"
        assert run.results[test]["verdict"] == "failed" and reason in run.results[test]["reason"], \
            f"{run}: {test} no longer fails with {reason!r}: the library changed; update the deviations"


def test_every_action_the_suites_need_is_implemented(run):
    """Skips are 'not applicable' per the profile or the role, never the actuator's 501."""
    for_actuator = {test: r["reason"] for test, r in run.where("skipped").items() if "actuator" in r["reason"]}
    assert not for_actuator, f"{run}: skipped for want of an actuator action: {for_actuator}"
    assert len(run.where("passed")) >= 20, f"{run}: too few tests ran:\n{run.harness_output[-3000:]}"


def test_the_library_deviations_are_reported_as_findings(run):
    for test, text in run.target.findings.get(run.role, {}).items():
        findings = run.results.get(test, {}).get("findings", [])
        assert any(text in f for f in findings), f"{run}: {test} did not report the finding {text!r}; it reported {findings}"


def test_the_example_prints_its_urls_and_stops_cleanly(run):
    assert "actuator listening on http://127.0.0.1:" in run.sut_output, run.sut_output[-2000:]
    assert ("CSMS listening on ws://127.0.0.1:" if run.role == "csms" else "connecting to ws://127.0.0.1:") \
        in run.sut_output, run.sut_output[-2000:]
    assert run.sut_returncode == 0 and run.sut_output.rstrip().endswith("stopped"), \
        f"SIGTERM did not stop the example cleanly (exit {run.sut_returncode}):\n{run.sut_output[-2000:]}"
