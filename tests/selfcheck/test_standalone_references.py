"""The OCPP references run on their own as a real SUT: ``python -m harness.reference.csms`` and
``python -m harness.reference.station`` (``--version``) are started as processes, and one suite test
is run against each over real sockets, driving it through the http actuator it serves."""

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
PROFILE = str(REPO / "harness" / "profiles" / "reference.toml")   # the profile the references play by default

# (SUT role, version, a test in which the SUT acts through its actuator: it initiates the DataTransfer)
CASES = [
    ("csms", "ocpp2.0.1", "suites/ocpp2/datatransfer/test_P01.py::test_data_transfer_to_station[csms-ocpp2.0.1-accepted]"),
    ("csms", "ocpp1.6", "suites/ocpp16/datatransfer/test_DATA16.py::"
                        "test_data_transfer_to_charge_point[csms-ocpp1.6-unknown_vendor]"),
    ("cs", "ocpp2.1", "suites/ocpp2/datatransfer/test_P02.py::test_data_transfer_to_csms[cs-ocpp2.1-accepted]"),
    ("cs", "ocpp1.6", "suites/ocpp16/datatransfer/test_DATA16.py::"
                      "test_data_transfer_to_central_system[cs-ocpp1.6-rejected]"),
]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.parametrize("role, version, test", CASES, ids=[f"{r}-{v}" for r, v, _ in CASES])
def test_a_suite_test_passes_against_the_standalone_reference(role, version, test, standalone, tmp_path):
    listen = free_port()
    if role == "csms":
        command, where = ("harness.reference.csms", "--version", version), []
    else:
        command = ("harness.reference.station", "--version", version, "--csms-url", f"ws://127.0.0.1:{listen}/ocpp")
        where = ["--listen", f"127.0.0.1:{listen}"]
    with standalone(*command) as urls:
        if role == "csms":
            where = ["--sut-url", urls["OCPP URL"]]
        completed = subprocess.run(
            [sys.executable, "-m", "pytest", test, "-q", "-p", "no:cacheprovider", "--sut", role, *where,
             "--protocol", version, "--sut-profile", PROFILE, "--actuator", "http",
             "--actuator-url", urls["actuator URL"], "--reports-dir", str(tmp_path)],
            cwd=REPO, capture_output=True, text=True, timeout=120, env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"})
    assert completed.returncode == 0, completed.stdout[-4000:] + completed.stderr[-2000:]
    results = json.loads((tmp_path / "conformance.json").read_text())["results"]
    assert [(r["nodeid"], r["verdict"]) for r in results] == [(test, "passed")]
