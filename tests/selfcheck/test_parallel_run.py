"""A real slice of suites/ under pytest-xdist reports what a serial run does: the controller writes one
conformance summary with every worker's results (before, the last worker to finish overwrote it)."""

import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SLICE = ["suites/ocpp2/datatransfer", "suites/ocpp16/datatransfer", "suites/ocpi/transport"]


def run(tmp_path: Path, name: str, *options: str) -> dict:
    completed = subprocess.run(
        [sys.executable, "-m", "pytest", *SLICE, "-q", "-p", "no:cacheprovider", "--reports-dir", str(tmp_path / name),
         *options], cwd=REPO, capture_output=True, text=True, timeout=300,
        env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"})
    assert completed.returncode == 0, completed.stdout[-4000:] + completed.stderr[-2000:]
    return json.loads((tmp_path / name / "conformance.json").read_text())


def test_two_workers_report_the_same_summary_as_one_process(tmp_path):
    serial, parallel = run(tmp_path, "serial"), run(tmp_path, "parallel", "-n", "2")
    assert parallel["counts"] == serial["counts"] and serial["counts"]["passed"] == len(serial["results"]) > 60
    assert sorted((r["nodeid"], r["verdict"]) for r in parallel["results"]) == \
        sorted((r["nodeid"], r["verdict"]) for r in serial["results"])
    assert parallel["usecases"] == serial["usecases"]
    assert {r["protocol"] for r in parallel["results"]} == {"ocpp2.0.1", "ocpp2.1", "ocpp1.6", "ocpi2.2.1"}
