"""Self-check 1 for what the built-in reference profile cannot give: the tests that need a variant of it
(``needs(..., variant=True)``), left out of the embedded run, pass in an embedded run with the variant
profile in harness/profiles/ — played, not skipped. It is also the control run of the fault catalog's
records that name a profile (tests/faults/catalog, ``Fault.profile``)."""

import json
from pathlib import Path

import pytest
import suite_runner

REPO = Path(__file__).resolve().parents[2]
K01 = "suites/ocpp2/smartcharging/test_K01.py::test_profile_in_an_unsupported_unit_is_rejected"
C15 = "suites/ocpp2/authorization/test_C15.py::test_refused_offline_start_from_the_cache_moves_as_configured"
# variant profile → the tests only it makes applicable, each in every version it is played in
VARIANTS = {
    "harness/profiles/one-rate-unit.toml": tuple(f"{K01}[cs-{version}]" for version in ("ocpp2.0.1", "ocpp2.1")),
    "harness/profiles/max-energy-on-invalid-id.toml": tuple(f"{C15}[cs-{version}-MaxEnergyOnInvalidId]"
                                                            for version in ("ocpp2.0.1", "ocpp2.1")),
    "harness/profiles/keep-on-invalid-id.toml": tuple(f"{C15}[cs-{version}-neither]" for version in ("ocpp2.0.1", "ocpp2.1")),
}


def _run(tmp_path: Path, *tests: str, profile: str | None = None) -> tuple[pytest.RunResult, dict]:
    """An embedded run of ``tests`` (below the repository), a session of its own forked warm."""
    options = [f"--sut-profile={REPO / profile}"] if profile else []
    completed = suite_runner.run(tmp_path / "session", ["--reports-dir", str(tmp_path / "reports"), *options,
                                                        *(str(REPO / test) for test in tests)], timeout=300)
    conformance = tmp_path / "reports" / "conformance.json"
    assert conformance.exists(), completed.stdout.str()[-3000:] + completed.stderr.str()[-2000:]
    return completed, json.loads(conformance.read_text(encoding="utf-8"))


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_variant_tests_pass_with_their_profile(tmp_path, variant):
    """With the variant profile the tests it is for are played and pass (none skipped)."""
    nodes = VARIANTS[variant]
    completed, summary = _run(tmp_path, *nodes, profile=variant)
    verdicts = {r["nodeid"]: r["verdict"] for r in summary["results"]}
    assert verdicts == dict.fromkeys(nodes, "passed"), completed.stdout.str()[-4000:]


def test_the_built_in_embedded_run_leaves_them_out(tmp_path):
    """Without the variant the embedded run deselects those tests: nothing of them is played or skipped."""
    nodes = [node for variant in VARIANTS.values() for node in variant]
    completed, summary = _run(tmp_path, *{node.partition("::")[0] for node in nodes})
    played = {r["nodeid"] for r in summary["results"]}
    assert played and not played & set(nodes), completed.stdout.str()[-3000:]
    assert summary["counts"]["skipped"] == 0, completed.stdout.str()[-3000:]
