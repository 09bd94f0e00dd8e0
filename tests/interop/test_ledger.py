"""The interop ledger replayed (issue 27): every target of interop/targets.py, an implementation nobody here
wrote, installed by the [interop] extra, is started and played again, and every test's verdict must be the one
interop/ledger.json holds. A verdict that changes (the harness judges differently, or the implementation
changed) fails here until the ledger is regenerated on purpose: ``python interop/run.py``, then read the diff of
interop/LEDGER.md and judge every new failure in interop/triage.toml.

The targets run side by side on the real clock (each a SUT of its own process, the harness a pytest of its
own); the replay takes as long as the longest, arthexis 1.6.
"""

import importlib.util
import json
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "interop"))

import ledger  # noqa: E402
import run as interop_run  # noqa: E402
from targets import TARGETS  # noqa: E402

RECORDED = json.loads(ledger.LEDGER_JSON.read_text(encoding="utf-8"))
PACKAGES = {"ocpp-csms": "ocpp_csms", "ocpp-broker": "ocpp_broker", "arthexis": "arthexis", "python-ocpi": "ocpi"}


def test_the_implementations_are_installed():
    """Installed by the project's own files (pip install -e ".[interop]", as .ci/run does): never skipped."""
    missing = sorted(name for name, module in PACKAGES.items() if importlib.util.find_spec(module) is None)
    assert not missing, f"the interop implementations {missing} are not installed: pip install -e \".[interop]\""
    assert set(PACKAGES) == {t.implementation for t in TARGETS}


def test_every_target_is_in_the_ledger_and_every_failure_is_judged():
    assert list(RECORDED["targets"]) == [t.key for t in TARGETS], "interop/ledger.json is stale: python interop/run.py"
    assert not RECORDED["untriaged"], f"untriaged failures (judge them in interop/triage.toml): {RECORDED['untriaged']}"
    for key, entry in RECORDED["targets"].items():
        for failure in entry["failures"]:
            assert failure["judgement"] == "deviation" and failure["spec"], \
                f"{key}: {failure['test']} [{failure['rule']}] is judged without the spec line it breaks"


def test_the_ledger_is_rendered_from_its_json_and_the_triage():
    """LEDGER.md is ledger.json with triage.toml's judgements as they are now: a judgement edited by hand in
    either, or a triage entry changed without regenerating, fails."""
    again = ledger.build({}, RECORDED)
    assert again["targets"] == RECORDED["targets"], "triage.toml changed since the ledger was written: " \
                                                    "python interop/ledger.py"
    assert ledger.LEDGER_MD.read_text(encoding="utf-8") == ledger.render(RECORDED), \
        "interop/LEDGER.md is not what interop/ledger.json renders: python interop/ledger.py"


@pytest.fixture(scope="module")
def replayed(tmp_path_factory) -> dict[str, dict]:
    return interop_run.play_all(TARGETS, tmp_path_factory.mktemp("interop"))


@pytest.mark.parametrize("implementation", TARGETS, ids=lambda t: t.key.replace(" ", "-"))
def test_the_verdicts_are_the_ledger_s(replayed, implementation):
    target = implementation
    recorded = RECORDED["targets"][target.key]["verdicts"]
    now = {r["nodeid"].removeprefix("suites/"): r for r in replayed[target.key]["results"]}
    changed = {test: f"ledger {recorded.get(test, 'absent')}, now {r['verdict']}: {r['reason'][:300]}"
               for test, r in now.items() if recorded.get(test) != r["verdict"]}
    changed |= {test: f"ledger {verdict}, now absent" for test, verdict in recorded.items() if test not in now}
    assert not changed, (f"{target.key}: verdicts that are not the ledger's (python interop/run.py regenerates it, "
                         f"on purpose): {json.dumps(changed, indent=1)}")
