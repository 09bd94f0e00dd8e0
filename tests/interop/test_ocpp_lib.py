"""Interop: the harness against an OCPP implementation this project did not write.

examples/ocpp_lib_sut.py (2.0.1) and examples/ocpp16_lib_sut.py (1.6) run the `ocpp` library
(mobilityhouse) as a CSMS / central system and as a charging station / charge point; the harness
runs suites/ocpp2 or suites/ocpp16, and the transport suite of every version (suites/ocpp/transport),
against each over loopback, driving it through the example's HTTP
actuator. Every test passes, or fails only with a deviation listed here; no test is broken, and
none is skipped for want of an actuator action. The SUT is another process, so the harness runs on
the real clock; the runs mostly wait, and go side by side.
"""

import json
import subprocess
import sys
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import suite_runner

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "interop"))

from run import by_name, free_ports, stop, uncovered, wait_for_port  # noqa: E402  (interop/run.py: the ledger's runner)


@dataclass(frozen=True)
class Target:
    """One protocol version of the example: its script, suites, profiles and the library's deviations."""
    protocol: str
    example: str
    suites: tuple[str, ...]       # folders under suites/
    profile: str                  # profiles/<profile with {role}>
    deviations: dict[str, dict[str, str]]   # role → test (below suites/) → a substring of its failure
    findings: dict[str, dict[str, str]] = field(default_factory=dict)   # role → test → a substring of a finding
    # the suites in runs side by side, each against an example SUT of its own: on the real clock a run takes
    # as long as its waits add up (the 1.6 charge point's ~100 s in one run); () is one run of ``suites``. A shard
    # names folders or files under suites/, or tests of a file by name (``by_name``)
    shards: tuple[tuple[str, ...], ...] = ()

    @property
    def runs(self) -> tuple[tuple[str, ...], ...]:
        return self.shards or (self.suites,)

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

NO_SUBPROTOCOL = "ocpp/transport/test_CONN.py::test_csms_without_acceptable_subprotocol_upgrades_then_closes"
MALFORMED = "ocpp/transport/test_RPC.py::test_malformed_call_is_refused_with_the_code_for_its_fault"
# the library's codes for malformed CALLs, the same in every version (ocpp/messages.py, ocpp/exceptions.py):
# a missing required field is ProtocolError; an unknown action NotSupported (it swaps the two codes' meanings);
# a too long string is TypeConstraintViolation (it maps maxLength there), and so is a payload that is an array
# (the schema's type keyword), where the texts name these PropertyConstraintViolation and Format(ion)Violation
LIBRARY_CODES = {"missing": "the SUT said ProtocolError", "unknown": "the SUT said NotSupported",
                 "property": "the SUT said TypeConstraintViolation",
                 "formation": "the SUT said TypeConstraintViolation"}


def malformed_findings(protocol: str) -> dict[str, str]:
    """In 1.6 ProtocolError is the text's own word for an incomplete payload (a missing field): no finding."""
    return {f"{MALFORMED}[{{role}}-{protocol}-{fault}]": text for fault, text in LIBRARY_CODES.items()
            if not (protocol == "ocpp1.6" and fault == "missing")}


OCPP201 = Target(
    "ocpp2.0.1", "ocpp_lib_sut.py", ("ocpp2", "ocpp/transport"), "example-{role}.toml",
    deviations={"csms": {node("ocpp2.0.1", NO_SUBPROTOCOL, "csms"): SUBPROTOCOL_400}, "cs": {}},
    findings=in_both_roles({
        **malformed_findings("ocpp2.0.1"),
        # text that is not JSON: the library logs it and answers nothing
        "ocpp/transport/test_RPC.py::test_text_that_is_not_json_does_not_break_the_connection[{role}-ocpp2.0.1]":
            "should be answered with CALLERROR RpcFrameworkError",
    }),
    # runs side by side since the B-M blocks joined the 2.x suites: one run against the example CSMS outlived its
    # 240 s. The clock-aligned and periodic meter values wait 20-40 s a test on the real clock (J01 150 s, J02 100 s
    # against the example CSMS, one test after another): their tests go in shards of ~60 s, as long as the others
    shards=(("ocpp2/authorization", "ocpp2/smartcharging", "ocpp2/transactions", "ocpp2/security", "ocpp/transport"),
            ("ocpp2/availability", "ocpp2/datatransfer", "ocpp2/displaymessage", "ocpp2/provisioning",
             "ocpp2/remotecontrol", "ocpp2/reservation"),
            by_name("ocpp2/metervalues/test_J01.py", "test_clock_aligned_meter_values_without_a_transaction",
                  "test_clock_aligned_meter_values_during_a_transaction"),
            by_name("ocpp2/metervalues/test_J01.py", "test_signed_clock_aligned_meter_values",
                  "test_signed_clock_aligned_values_during_a_transaction"),
            by_name("ocpp2/metervalues/test_J01.py", "test_clock_aligned_values_are_on_the_clock",
                  "test_no_clock_aligned_values_at_interval_zero"),
            by_name("ocpp2/metervalues/test_J02.py", "test_periodic_samples_during_a_transaction",
                  "test_signed_periodic_samples", "test_samples_stop_with_the_transaction"),
            by_name("ocpp2/metervalues/test_J02.py", "test_the_register_never_goes_down",
                  "test_started_and_ended_carry_the_configured_measurands", "test_signed_started_and_ended_values",
                  "test_started_and_ended_values_name_their_context", "test_no_periodic_samples_at_interval_zero")))

# spec 002 Errors: the 1.6 code for a payload not conforming to the PDU's structure is FormationViolation.
# The library answers an additional property with its 2.x FormatViolationError on every version
# (ocpp/messages.py validate_payload; its own docstring calls that "not strict OCPP 1.6").
FORMAT_VIOLATION_ON_16 = "CALLERROR code 'FormatViolation' does not exist in ocpp1.6"

OCPP16 = Target(
    "ocpp1.6", "ocpp16_lib_sut.py", ("ocpp16", "ocpp/transport"), "example-{role}-ocpp16.toml",
    deviations={
        "csms": {node("ocpp1.6", NO_SUBPROTOCOL, "csms"): SUBPROTOCOL_400,
                 f"{MALFORMED}[csms-ocpp1.6-extra]": FORMAT_VIOLATION_ON_16},
        "cs": {f"{MALFORMED}[cs-ocpp1.6-extra]": FORMAT_VIOLATION_ON_16},
    },
    findings=in_both_roles(malformed_findings("ocpp1.6")),
    # against the example central system meter values (~45 s) and remote control (~30 s) wait longest: one a shard
    shards=(("ocpp16/transactions", "ocpp/transport", "ocpp16/boot", "ocpp16/unlock", "ocpp16/security",
             "ocpp16/firmware", "ocpp16/reservation", "ocpp16/smartcharging", "ocpp16/trigger", "ocpp16/remote"),
            ("ocpp16/datatransfer", "ocpp16/availability", "ocpp16/authorization", "ocpp16/configuration",
             "ocpp16/reset", "ocpp16/meter")))

TARGETS = {(t.protocol, role): t for t in (OCPP201, OCPP16) for role in ("csms", "cs")}


@dataclass
class Run:
    target: Target
    role: str
    results: dict[str, dict]            # test (below suites/) → its conformance.json entry
    harness_output: str
    sut_outputs: list[str]              # of each example SUT (one per shard)
    sut_returncodes: list[int | None]

    @classmethod
    def joined(cls, shards: list["Run"]) -> "Run":
        first = shards[0]
        return cls(first.target, first.role, {test: r for run in shards for test, r in run.results.items()},
                   "\n".join(run.harness_output for run in shards), [o for run in shards for o in run.sut_outputs],
                   [c for run in shards for c in run.sut_returncodes])

    def where(self, verdict: str) -> dict[str, dict]:
        return {test: r for test, r in self.results.items() if r["verdict"] == verdict}

    def __str__(self) -> str:
        return f"{self.target.protocol} {self.role}"


def example_command(target: Target, role: str, ocpp_port: int, actuator_port: int) -> list[str]:
    where = ["--port", str(ocpp_port)] if role == "csms" else ["--csms-url", f"ws://127.0.0.1:{ocpp_port}/ocpp"]
    return [sys.executable, str(REPO / "examples" / target.example), role, *where,
            "--actuator-port", str(actuator_port), "--profile", str(REPO / target.profile_of(role))]


def harness_args(target: Target, role: str, folders: tuple[str, ...], ocpp_port: int, actuator_port: int,
                 reports: Path) -> list[str]:
    where = ["--sut-url", f"ws://127.0.0.1:{ocpp_port}/ocpp"] if role == "csms" else \
        ["--listen", f"127.0.0.1:{ocpp_port}"]
    suites = [str(REPO / "suites" / folder) for folder in folders]
    return [*suites, "-q", "--sut", role, *where, "--protocol", target.protocol,
            "--sut-profile", str(REPO / target.profile_of(role)), "--actuator", "http",
            "--actuator-url", f"http://127.0.0.1:{actuator_port}", "--reports-dir", str(reports)]


def play(target: Target, role: str, folders: tuple[str, ...], tmp: Path) -> Run:
    """Start the example SUT, run the version's suites in ``folders`` against it, stop it with SIGTERM. The
    example is a process of its own; the harness's run only a session of its own, forked warm (suite_runner.py).
    Its ports are picked as it starts: picked for all the runs at once, a port could be taken (by another run's
    connection) before its run bound it."""
    ocpp_port, actuator_port = free_ports(2)
    with open(tmp / "sut.log", "w+") as sut_log:
        process = subprocess.Popen(example_command(target, role, ocpp_port, actuator_port), cwd=REPO,
                                   stdout=sut_log, stderr=subprocess.STDOUT, text=True)
        try:
            # the CSMS listens on both ports; the station only on its actuator port (it connects out)
            for port in ([ocpp_port] if role == "csms" else []) + [actuator_port]:
                wait_for_port(port, process)
            harness = suite_runner.run(tmp / "session", harness_args(target, role, folders, ocpp_port, actuator_port,
                                                                     tmp / "reports"),
                                       timeout=240, niceness=suite_runner.REAL_CLOCK)
        finally:
            stop(process)
        sut_log.seek(0)
        sut_output = sut_log.read()
    output = harness.stdout.str() + harness.stderr.str()
    summary = tmp / "reports" / "conformance.json"
    assert summary.exists(), f"the harness wrote no conformance summary:\n{output[-4000:]}"
    results = {r["nodeid"].removeprefix("suites/"): r for r in json.loads(summary.read_text())["results"]}
    return Run(target, role, results, output, [sut_output], [process.returncode])


# Runs side by side: a real SUT keeps the harness on the real clock, where a run mostly waits. All of them
# at once (each shard ~25-65 s; four at a time, the module took 3.5 minutes): the harness's runs are forked warm
# (suite_runner.REAL_CLOCK_RUNS at a time), so only the example SUTs start interpreters (each waits up to 15 s
# for its ports). The longest first, should fewer go at once.
PARALLEL = sum(len(target.runs) for target in TARGETS.values())
LONGEST_FIRST = [("ocpp2.0.1", "csms"), ("ocpp1.6", "cs"), ("ocpp1.6", "csms"), ("ocpp2.0.1", "cs")]


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict[tuple[str, str], list[Future]]:
    """Every (version, role) run, in its shards, all submitted at once (see PARALLEL)."""
    with ThreadPoolExecutor(PARALLEL) as pool:
        yield {(protocol, role): [pool.submit(play, TARGETS[protocol, role], role, folders,
                                              tmp_path_factory.mktemp(f"interop-{protocol}-{role}-{shard}"))
                                  for shard, folders in enumerate(TARGETS[protocol, role].runs)]
               for protocol, role in LONGEST_FIRST}


@pytest.fixture(scope="module", params=list(TARGETS), ids=[f"{p}-{r}" for p, r in TARGETS])
def run(request, runs) -> Run:
    return Run.joined([shard.result() for shard in runs[request.param]])


@pytest.mark.parametrize("example", [OCPP201, OCPP16], ids=lambda example: example.protocol)
def test_the_shards_play_every_suite_test_once(example):
    """Every test function of the version's suite files is in exactly one shard (as a folder, a file or by name)."""
    assert not uncovered(example.runs, example.suites)


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
    for sut_output, sut_returncode in zip(run.sut_outputs, run.sut_returncodes):
        assert "actuator listening on http://127.0.0.1:" in sut_output, sut_output[-2000:]
        assert ("CSMS listening on ws://127.0.0.1:" if run.role == "csms" else "connecting to ws://127.0.0.1:") \
            in sut_output, sut_output[-2000:]
        assert sut_returncode == 0 and sut_output.rstrip().endswith("stopped"), \
            f"SIGTERM did not stop the example cleanly (exit {sut_returncode}):\n{sut_output[-2000:]}"
