"""The OCPP references run on their own as a real SUT: ``python -m harness.reference.csms`` and
``python -m harness.reference.station`` (``--version``) are started as processes, and one suite test
is run against each over real sockets, driving it through the http actuator it serves."""

import json
import socket
from pathlib import Path

import pytest
import suite_runner
from reference_variant import write_reference_variant

REPO = Path(__file__).resolve().parents[2]

# (SUT role, version, a test in which the SUT acts through its actuator: it initiates the DataTransfer)
CASES = [
    ("csms", "ocpp2.0.1", "suites/ocpp2/datatransfer/test_P01.py::test_data_transfer_to_station[csms-ocpp2.0.1-accepted]"),
    ("csms", "ocpp1.6", "suites/ocpp16/datatransfer/test_DATA16.py::"
                        "test_data_transfer_to_charge_point[csms-ocpp1.6-unknown_vendor]"),
    ("cs", "ocpp2.1", "suites/ocpp2/datatransfer/test_P02.py::test_data_transfer_to_csms[cs-ocpp2.1-accepted]"),
    ("cs", "ocpp1.6", "suites/ocpp16/datatransfer/test_DATA16.py::"
                      "test_data_transfer_to_central_system[cs-ocpp1.6-rejected]"),
]


def play(tmp_path: Path, args: list[str], timeout: float) -> None:
    """The harness's run against the reference: the reference is a process of its own, the run only a
    session of its own, forked warm (suite_runner.py), on the real clock (the SUT is another process)."""
    completed = suite_runner.run(tmp_path / "session", ["-q", *args], timeout, niceness=suite_runner.REAL_CLOCK)
    assert completed.ret == 0, completed.stdout.str()[-4000:] + completed.stderr.str()[-2000:]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.parametrize("role, version, test", CASES, ids=[f"{r}-{v}" for r, v, _ in CASES])
def test_a_suite_test_passes_against_the_standalone_reference(role, version, test, standalone, tmp_path):
    """As the README says it: the reference with its default profile, the harness given the same built-in one
    by name (no file of the repository: an installed harness has none)."""
    listen = free_port()
    if role == "csms":
        command, where = ("harness.reference.csms", "--version", version), []
    else:
        command = ("harness.reference.station", "--version", version, "--csms-url", f"ws://127.0.0.1:{listen}/ocpp")
        where = ["--listen", f"127.0.0.1:{listen}"]
    with standalone(*command) as urls:
        if role == "csms":
            where = ["--sut-url", urls["OCPP URL"]]
        play(tmp_path, [str(REPO / test), "--sut", role, *where, "--protocol", version, "--sut-profile", "builtin:standalone",
                        "--actuator", "http", "--actuator-url", urls["actuator URL"], "--reports-dir", str(tmp_path)],
             timeout=120)
    results = json.loads((tmp_path / "conformance.json").read_text())["results"]
    assert [(r["nodeid"], r["verdict"]) for r in results] == [(test, "passed")]


# security profile 3 against a reference run on its own: both ends' certificates from one kept PKI
TLS_CASES = [("csms", "ocpp2.0.1"), ("cs", "ocpp1.6")]


@pytest.mark.parametrize("role, version", TLS_CASES, ids=[f"{r}-{v}" for r, v in TLS_CASES])
def test_security_profile_3_passes_against_the_standalone_reference(role, version, standalone, tmp_path):
    """The reference serves (CSMS) or connects (station) over mutual TLS with certificates from the profile's
    [tls] harness_pki; the harness, given the same profile and sut_ca = its root.pem, plays SP3 in that role."""
    pki = tmp_path / "pki"
    profile = write_reference_variant(
        tmp_path / "sp3.toml", ("security_profile = 1", "security_profile = 3"),
        ("security_profiles = [2, 3]", f'security_profiles = [3]\nharness_pki = "{pki}"\nsut_ca = "{pki / "root.pem"}"'))
    listen = free_port()
    if role == "csms":
        command, where = ("harness.reference.csms", "--version", version, "--profile", str(profile)), []
    else:
        command = ("harness.reference.station", "--version", version, "--profile", str(profile),
                   "--csms-url", f"wss://127.0.0.1:{listen}/ocpp")
        where = ["--listen", f"127.0.0.1:{listen}"]
    with standalone(*command) as urls:
        if role == "csms":
            assert urls["OCPP URL"].startswith("wss://")
            where = ["--sut-url", urls["OCPP URL"]]
        play(tmp_path, [str(REPO / "suites" / "ocpp" / "security" / "test_SP3.py"), "--sut", role, *where,
                        "--protocol", version, "--sut-profile", str(profile),
                        "--reports-dir", str(tmp_path / "reports")], timeout=300)
    results = json.loads((tmp_path / "reports" / "conformance.json").read_text())["results"]
    verdicts = {r["nodeid"]: r["verdict"] for r in results}
    passed = [nodeid for nodeid, verdict in verdicts.items() if verdict == "passed"]
    assert len(passed) == (11 if role == "csms" else 2) and set(verdicts.values()) <= {"passed", "skipped"}, verdicts


# (version, the test that rotates the station's Basic-auth password at the CSMS)
ROTATIONS = [("ocpp1.6", "suites/ocpp16/security/test_SECURITY16.py::"
                         "test_central_system_rotates_the_authorization_key[csms-ocpp1.6]"),
             ("ocpp2.0.1", "suites/ocpp2/security/test_A01.py::test_password_updated[csms-ocpp2.0.1]")]


@pytest.mark.parametrize("version, test", ROTATIONS, ids=[v for v, _ in ROTATIONS])
def test_a_second_run_finds_the_password_the_first_found(version, test, standalone, tmp_path):
    """Leave the SUT as you found it: a test that rotates the station's password at a CSMS run on its own puts it
    back when it ends (the actuator's set_authorization_key, set_basic_auth_password), so a second run against the
    same process connects with the profile's password and passes again, where it was refused at its first
    connection (bench/PARALLEL.md "Running twice")."""
    with standalone("harness.reference.csms", "--version", version) as urls:
        for run in ("first", "second"):
            play(tmp_path / run, [str(REPO / test), "--sut", "csms", "--sut-url", urls["OCPP URL"], "--protocol",
                                  version, "--sut-profile", "builtin:standalone", "--actuator", "http",
                                  "--actuator-url", urls["actuator URL"], "--reports-dir", str(tmp_path / run)],
                 timeout=120)
            results = json.loads((tmp_path / run / "conformance.json").read_text())["results"]
            assert [(r["nodeid"], r["verdict"]) for r in results] == [(test, "passed")], run
