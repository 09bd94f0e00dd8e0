"""--plan: before any connection, what a SUT profile will play per certification profile, what does not apply
and why; and the plan is what a run with that profile then plays (the built-in profile, and Core only)."""

import json
from pathlib import Path

import pytest
import suite_runner

REPO = Path(__file__).resolve().parents[2]

DEMO = '''
import pytest
from harness.rules import RuleTable, must
from harness.suite import OCPP2, TC, case, checks

class {usecase}(RuleTable):
    value = must("spec 001 demo", "the value is right")

pytestmark = case("{usecase}", block="Smart charging", roles=("csms", "cs"), protocols=OCPP2)

@checks({usecase}.value, csms=TC("TC_K_01_CSMS", "ocpp2.0.1"))
async def test_plain(target):
    pass

@pytest.mark.requires("smart_charging")
@checks({usecase}.value)
async def test_needs_the_feature(target):
    pass
'''


def test_plan_prints_per_certification_profile_and_runs_nothing(pytester):
    pytester.makepyfile(test_demo=DEMO.format(usecase="K01"))
    profile = pytester.makefile(".toml", sut='base = "builtin:core-only"\n[tls]\nsecurity_profiles = []\n')
    # a CSMS URL nothing listens at: a plan connects to nothing, so no reachability check refuses it
    result = pytester.runpytest("--plan", "--sut", "csms", "--protocol", "ocpp2.0.1", "--sut-url",
                                "ws://127.0.0.1:9/ocpp", "--sut-profile", str(profile), "--reports-dir", "out")
    assert result.ret == pytest.ExitCode.OK
    result.assert_outcomes()
    result.stdout.fnmatch_lines([
        "certification plan: reference implementation (Core only) as csms, ocpp2.0.1",
        "== OCPP 2.x · Smart Charging: 1 to play, 1 not applicable, 1 certification case",
        "  play  test_demo.py::test_plain[[]csms-ocpp2.0.1[]]  [[]TC_K_01_CSMS[]]",
        "  n/a   test_demo.py::test_needs_the_feature[[]csms-ocpp2.0.1[]]: the profile does not declare "
        "[[]features[]] smart_charging = true",
        "*plan written to*plan.json; nothing was connected to, no test ran"])
    plan = json.loads((pytester.path / "out" / "plan.json").read_text())
    assert [t["plays"] for t in plan["tests"]] == [True, False]
    assert not (pytester.path / "out" / "conformance.json").exists()


def test_plan_from_the_ini_even_with_xdist_workers_asked_for(pytester):
    pytester.makepyfile(test_demo=DEMO.format(usecase="K02"))
    pytester.makeini("[pytest]\nplan = true\n")
    result = pytester.runpytest("--reports-dir", "out", "-n", "2")   # collected here: workers would print nothing
    result.assert_outcomes()
    result.stdout.fnmatch_lines(["== OCPP 2.x · Smart Charging: 8 to play, 0 not applicable, 1 certification case"])


def test_readiness_per_certification_profile_after_a_run(pytester):
    pytester.makepyfile(test_demo=DEMO.format(usecase="K03"))
    pytester.runpytest("--reports-dir", "out")
    summary = json.loads((pytester.path / "out" / "conformance.json").read_text())
    assert summary["readiness"] == [{
        "profile": "OCPP 2.x · Smart Charging", "source": summary["readiness"][0]["source"],
        "tests": {"passed": 8, "failed": 0, "broken": 0, "skipped": 0},
        "cases": {"passed": ["TC_K_01_CSMS"], "failed": [], "not_run": []}}]
    html = (pytester.path / "out" / "conformance.html").read_text()
    assert "Certification readiness" in html and "TC_K_01_CSMS" in html
    assert "| OCPP 2.x · Smart Charging | 8 | 0 | 0 | 0 | TC_K_01_CSMS | - | - |" in (
        pytester.path / "out" / "conformance.md").read_text()


# every certification profile of every family, a few use cases each: the comparison is of the same selection
SELECTION = "C01,C1[3-6],C07,C2[45],K0[15],K15,SP3,O01,AUTH16,RESERVE16,SC16,FIRMWARE16,TRIGGER16,LOCALLIST16,SP2," \
            "OCPI_SESSIONS_PULL,OCPI_AUTH"


@pytest.mark.parametrize("profile", [None, "builtin:core-only"], ids=["built-in", "core-only"])
def test_the_plan_is_what_the_run_then_plays(tmp_path, profile):
    options = ["--usecase", SELECTION, *(["--sut-profile", profile] if profile else [])]
    suites = str(REPO / "suites")
    planning = suite_runner.run(tmp_path / "plan", ["--plan", "--reports-dir", str(tmp_path / "p"), *options, suites],
                                timeout=300)
    playing = suite_runner.run(tmp_path / "run", ["--reports-dir", str(tmp_path / "r"), *options, suites], timeout=300)
    plan = json.loads((tmp_path / "p" / "plan.json").read_text())["tests"]
    results = json.loads((tmp_path / "r" / "conformance.json").read_text())
    planned = {t["nodeid"]: t["reason"] if not t["plays"] else None for t in plan}
    ran = {r["nodeid"]: r["reason"] if r["verdict"] == "skipped" else None for r in results["results"]}
    assert planned == ran, planning.stdout.str()[-2000:] + playing.stdout.str()[-2000:]
    assert results["counts"]["failed"] == results["counts"]["broken"] == 0
    not_applicable = sum(1 for reason in planned.values() if reason)
    assert (not_applicable > 100) if profile else (not_applicable == 0)
    readiness = {row["profile"]: row for row in results["readiness"]}
    if profile:   # nothing of a profile the SUT does not claim is passed
        assert readiness["OCPP 2.x · Smart Charging"]["cases"]["passed"] == []
        assert readiness["OCPP 2.x · Smart Charging"]["tests"]["passed"] == 0


def test_a05_upgrades_are_not_applicable_to_a_csms_set_up_for_security_profile_1_alone(tmp_path):
    """builtin:standalone (the references on their own, what bench/parallel_real_run.py plays) lists no security
    profile above 1: the upgrade to profile 2 is not applicable there, not broken on a missing [tls] sut_ca."""
    options = ["--plan", "--reports-dir", str(tmp_path / "p"), "--sut", "csms", "--sut-url", "ws://127.0.0.1:9/ocpp",
               "--protocol", "ocpp2.0.1", "--sut-profile", "builtin:standalone"]
    planning = suite_runner.run(tmp_path / "plan", [*options, str(REPO / "suites/ocpp2/security/test_A05.py")],
                                timeout=300)
    plan = {t["nodeid"].split("::")[1]: t for t in json.loads((tmp_path / "p" / "plan.json").read_text())["tests"]}
    upgrade = plan["test_old_profile_refused_after_reboot[csms-ocpp2.0.1]"]
    assert not upgrade["plays"], planning.stdout.str()[-2000:]
    assert "[tls] security_profiles does not list 2" in upgrade["reason"]
