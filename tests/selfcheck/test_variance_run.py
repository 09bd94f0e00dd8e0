"""Self-check 3 (design 'Self-checking'): every suite passes against stand-ins that take, at random, every
freedom the texts give a correct implementation (``pytest suites --variance SEED``), and every modelled
row of the table really changed the wire in those runs. ``bench/variance_seeds.py`` plays many more seeds."""

import json
from pathlib import Path

import pytest
import suite_runner

from harness.variance import FREEDOMS

REPO = Path(__file__).resolve().parents[2]
SEEDS = (101, 202)   # the bench plays 1..N: these are others


@pytest.fixture(scope="module")
def variance_runs(tmp_path_factory):
    """`pytest suites --variance SEED` for each seed, side by side, each a session of its own (suite_runner.py)."""
    runs = {}
    for seed in SEEDS:
        out = tmp_path_factory.mktemp(f"variance-{seed}")
        runs[seed] = out, suite_runner.start(out / "session", [str(REPO / "suites"), "-q", f"--variance={seed}",
                                                               "--reports-dir", str(out / "reports")], timeout=600)
    return {seed: (future.result()[0], out) for seed, (out, future) in runs.items()}


@pytest.mark.parametrize("seed", SEEDS)
def test_every_suite_passes_under_legal_variance(variance_runs, seed):
    completed, out = variance_runs[seed]
    summary = json.loads((out / "reports" / "conformance.json").read_text())
    blamed = [f"{r['nodeid']}: {r['verdict']}: {r['reason'][:300]}" for r in summary["results"]
              if r["verdict"] in ("failed", "broken")]
    assert not blamed, f"seed {seed}:\n" + "\n".join(blamed)
    assert completed == 0, (out / "session" / "stdout.txt").read_text()[-3000:]
    assert summary["variance"]["seed"] == seed
    assert summary["counts"]["passed"] > 0.9 * len(summary["results"]) > 900


def test_every_modelled_freedom_changes_the_wire(variance_runs):
    taken: set[str] = set()
    for _, out in variance_runs.values():
        summary = json.loads((out / "reports" / "conformance.json").read_text())
        taken |= set(summary["variance"]["freedoms_taken"])
    silent = sorted(row.id for row in FREEDOMS if row.modelled and row.id not in taken)
    assert not silent, f"modelled freedoms that never fired in seeds {SEEDS}: {silent}"
    assert taken <= {row.id for row in FREEDOMS}


def test_a_refused_action_is_not_applicable_with_its_seed(variance_runs):
    """The legal refusal (the stand-in's actuator answers 501) is a skip that names the variance, never a failure."""
    reasons = [r["reason"] for _, out in variance_runs.values()
               for r in json.loads((out / "reports" / "conformance.json").read_text())["results"]
               if r["verdict"] == "skipped"]
    assert any("legal variance, seed" in reason for reason in reasons)
