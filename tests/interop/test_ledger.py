"""The interop ledger replayed (issue 27): every target of interop/targets.py, an implementation nobody here
wrote, installed by the [interop] extra, is started and played again, and every test's verdict must be the one
interop/ledger.json holds. A verdict that changes (the harness judges differently, or the implementation
changed) fails here until the ledger is regenerated on purpose: ``python interop/run.py``, then read the diff of
interop/LEDGER.md and judge every new failure in interop/triage.toml.

The targets run side by side on the real clock (each a SUT of its own process, the harness a pytest of its
own), each in its shards (interop/run.py SHARDS); the replay takes as long as the longest shard.
"""

import importlib.util
import json
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "interop"))

import ledger  # noqa: E402
import npm_install  # noqa: E402
import run as interop_run  # noqa: E402
from targets import TARGETS  # noqa: E402

RECORDED = json.loads(ledger.LEDGER_JSON.read_text(encoding="utf-8"))
PACKAGES = {"ocpp-csms": "ocpp_csms", "ocpp-broker": "ocpp_broker", "arthexis": "arthexis", "python-ocpi": "ocpi"}


def test_the_implementations_are_installed():
    """Installed by the project's own files (pip install -e ".[interop]", as .ci/run does; interop/npm by npm ci,
    as interop/run.py does): never skipped."""
    missing = sorted(name for name, module in PACKAGES.items() if importlib.util.find_spec(module) is None)
    assert not missing, f"the interop implementations {missing} are not installed: pip install -e \".[interop]\""
    assert set(PACKAGES) == {t.implementation for t in TARGETS if t.registry == "pypi"}
    npm_install.install()
    pinned = json.loads((npm_install.PINS / "package.json").read_text())["dependencies"]
    for target in TARGETS:
        if target.registry == "npm":
            assert pinned.get(target.implementation) == target.version, f"interop/npm pins {target.key} otherwise"
            npm_install.package_dir(target.implementation)


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


def changed_verdicts(key: str, summary: dict) -> dict[str, str]:
    """Each test whose verdict against ``key`` is not the ledger's, with both verdicts and the reason now."""
    recorded = RECORDED["targets"][key]["verdicts"]
    now = {r["nodeid"].removeprefix("suites/"): r for r in summary["results"]}
    changed = {test: f"ledger {recorded.get(test, 'absent')}, now {r['verdict']}: {r['reason'][:300]}"
               for test, r in now.items() if recorded.get(test) != r["verdict"]}
    return changed | {test: f"ledger {verdict}, now absent" for test, verdict in recorded.items() if test not in now}


@pytest.mark.parametrize("suites", sorted(interop_run.SHARDS))
def test_the_shards_play_every_suite_test_once(suites):
    """A target's shards (interop/run.py SHARDS) hold every test function of its suites, each once."""
    assert not interop_run.uncovered(interop_run.SHARDS[suites], suites)


@pytest.fixture(scope="module")
def replayed(tmp_path_factory) -> dict[str, dict]:
    """Every target played once, side by side; a target whose verdicts differ from the ledger's is played once
    more on its own (the real clock on a busy machine) and judged by that second run."""
    runs = interop_run.play_all(TARGETS, tmp_path_factory.mktemp("interop"))
    for target in TARGETS:
        if changed_verdicts(target.key, runs[target.key]):
            runs[target.key] = interop_run.play(target, tmp_path_factory.mktemp("interop-again"))
    return runs


@pytest.mark.parametrize("implementation", TARGETS, ids=lambda t: t.key.replace(" ", "-"))
def test_the_verdicts_are_the_ledger_s(replayed, implementation):
    changed = changed_verdicts(implementation.key, replayed[implementation.key])
    assert not changed, (f"{implementation.key}: verdicts that are not the ledger's, in two runs (python "
                         f"interop/run.py regenerates it, on purpose): {json.dumps(changed, indent=1)}")
