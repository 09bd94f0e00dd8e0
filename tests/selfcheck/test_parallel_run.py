"""A real slice of suites/ under pytest-xdist reports what a serial run does: the controller writes one
conformance summary with every worker's results (before, the last worker to finish overwrote it)."""

import json
from pathlib import Path

import suite_runner

REPO = Path(__file__).resolve().parents[2]
SLICE = ["suites/ocpp2/datatransfer", "suites/ocpp16/datatransfer", "suites/ocpi/transport"]


def run(tmp_path: Path, name: str, *options: str) -> dict:
    """The slice as a session of its own, forked warm (suite_runner.py): its workers under ``-n`` are
    interpreters of their own all the same, started by pytest-xdist as in any run."""
    completed = suite_runner.run(tmp_path / f"{name}-session", [
        *(str(REPO / path) for path in SLICE), "-q", "--reports-dir", str(tmp_path / name), *options], timeout=300)
    assert completed.ret == 0, completed.stdout.str()[-4000:] + completed.stderr.str()[-2000:]
    return json.loads((tmp_path / name / "conformance.json").read_text())


def test_two_workers_report_the_same_summary_as_one_process(tmp_path):
    serial, parallel = run(tmp_path, "serial"), run(tmp_path, "parallel", "-n", "2")
    assert parallel["counts"] == serial["counts"] and serial["counts"]["passed"] == len(serial["results"]) > 60
    assert sorted((r["nodeid"], r["verdict"]) for r in parallel["results"]) == \
        sorted((r["nodeid"], r["verdict"]) for r in serial["results"])
    assert parallel["usecases"] == serial["usecases"]
    assert {r["protocol"] for r in parallel["results"]} == {"ocpp2.0.1", "ocpp2.1", "ocpp1.6", "ocpi2.2.1"}
