"""The plugin as a user meets it: options and their ini pairs, refusals that teach the fix,
the report header, markers, selection, verdict mapping and the summary."""

import json
import textwrap

import pytest
import suite_runner

PROFILE_OK = """
[sut]
name = "Acme CSMS"
[station]
identity = "ACME-1"
password = "acme-password-000001"
[tokens]
valid = { id = "A1", type = "ISO14443", status = "Accepted" }
"""


@pytest.fixture
def csms_url(sut_port):
    """A CSMS that upgrades, so that the run's reachability check lets it start."""
    return f"ws://127.0.0.1:{sut_port}/ocpp"


def _write_profile(pytester, text, name="sut.toml"):
    return pytester.makefile(".toml", **{name.removesuffix(".toml"): textwrap.dedent(text)})


def test_unknown_profile_key_is_refused_naming_the_key_and_the_fix(pytester):
    profile = _write_profile(pytester, PROFILE_OK + '\n[features]\nsmart_chargng = true\n')
    result = pytester.runpytest("--sut-profile", str(profile))
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*unknown key features.smart_chargng*remove it or fix its spelling*smart_charging*"])


def test_wrong_type_in_profile_is_refused(pytester):
    profile = _write_profile(pytester, PROFILE_OK.replace('identity = "ACME-1"', "identity = 7"))
    result = pytester.runpytest("--sut-profile", str(profile))
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*station.identity: write a string, not an integer*"])


def test_missing_token_field_is_refused(pytester):
    profile = _write_profile(pytester, PROFILE_OK.replace(', status = "Accepted"', ""))
    result = pytester.runpytest("--sut-profile", str(profile))
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*tokens.valid.status is missing; add it*"])


@pytest.mark.parametrize("args, message", [
    (["--sut", "csms"], "*--sut needs --sut-profile*example in profiles/*"),
    (["--sut", "csms", "--sut-profile", "{profile}", "--protocol", "ocpp2.0.1"], "*--sut csms needs --sut-url*ws://*"),
    (["--sut", "cs", "--sut-profile", "{profile}"], "*--sut cs needs --protocol*ocpp1.6, ocpp2.0.1, ocpp2.1*"),
    (["--sut", "station", "--sut-profile", "{profile}"], "*--sut 'station' is not a role*csms, cs, cpo, emsp*"),
    (["--protocol", "ocpp3"], "*unknown OCPP version 'ocpp3'*"),
    (["--sut", "cs", "--sut-profile", "{profile}", "--protocol", "ocpp2.0.1", "--listen", "nowhere"],
     "*--listen 'nowhere' is not HOST:PORT*"),
    (["--sut", "cs", "--sut-profile", "builtin:reference", "--protocol", "ocpp1.6"],
     "*--sut-profile builtin:reference is the embedded run's profile: it opts in to the tests that wait a real "
     "day*against the standalone references give builtin:standalone*"),
])
def test_bad_options_are_refused_before_any_test_with_the_fix(pytester, args, message):
    profile = _write_profile(pytester, PROFILE_OK)
    result = pytester.runpytest(*[a.format(profile=profile) for a in args])
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([message])


def test_header_shows_sut_role_protocol_and_profile(pytester, csms_url):
    profile = _write_profile(pytester, PROFILE_OK)
    pytester.makepyfile("def test_nothing():\n    assert True\n")
    result = pytester.runpytest("--sut", "csms", "--sut-url", csms_url, "--protocol", "2.0.1",
                                "--sut-profile", str(profile))
    result.stdout.fnmatch_lines([
        f"*SUT Acme CSMS as csms, protocol ocpp2.0.1, url {csms_url}, actuator none (no terminal for manual: "
        f"actions are not applicable)*",
        f"*profile: {profile}*"])
    assert result.ret == 0


def test_every_option_has_an_ini_equivalent(pytester):
    profile = _write_profile(pytester, PROFILE_OK)
    pytester.makeini(f"""
        [pytest]
        sut = cs
        protocol = ocpp2.1
        sut_profile = {profile}
        listen = 127.0.0.1:9555
        actuator = http
        actuator_url = http://127.0.0.1:9100
    """)
    pytester.makepyfile("def test_settings(sut_settings):\n"
                        "    assert (sut_settings.sut, sut_settings.protocol, sut_settings.listen, sut_settings.actuator,"
                        " sut_settings.actuator_url) == ('cs', 'ocpp2.1', ('127.0.0.1', 9555), 'http', "
                        "'http://127.0.0.1:9100')\n")
    result = pytester.runpytest()
    result.assert_outcomes(passed=1)


def test_command_line_wins_over_ini_and_profile(pytester):
    profile = _write_profile(pytester, PROFILE_OK + '\n[actuator]\nkind = "python"\nclass = "x:Y"\n')
    pytester.makeini("[pytest]\nprotocol = ocpp2.1\n")
    pytester.makepyfile("def test_settings(sut_settings):\n"
                        "    assert sut_settings.protocol == 'ocpp2.0.1'\n"
                        "    assert sut_settings.actuator == 'python'\n")
    result = pytester.runpytest("--protocol", "ocpp2.0.1", "--sut-profile", str(profile))
    result.assert_outcomes(passed=1)


def test_markers_are_registered(pytester):
    result = pytester.runpytest("--markers")
    for line in ("*usecase(id, block, severity)*", "*checks(*rules, certification)*", "*sut_roles(*roles)*",
                 "*requires(feature)*"):
        result.stdout.fnmatch_lines([line])


def test_use_cases_register_themselves_as_markers(pytester):
    """A use case's marker comes from its case() declaration: no hand-kept list of ids."""
    pytester.makepyfile(test_demo=SUITE.format(usecase="ZZ42"))
    result = pytester.runpytest("--strict-markers", "-m", "ZZ42", "-k", "passes")
    result.assert_outcomes(passed=4)


SUITE = """
import pytest
from harness.errors import HarnessError, NotApplicable
from harness.rules import RuleTable, must
from harness.suite import TC, case, checks
from harness.verdict import check_equal

class {usecase}(RuleTable):
    value = must("spec 000 demo", "the value is one")
    status = must("spec 001 demo", "the status is the token's")

pytestmark = case("{usecase}", block="Demo", roles=("csms", "cs"), protocols=("ocpp2.0.1", "ocpp2.1"))

@checks({usecase}.value, csms=TC("TC_X_01_CSMS", "ocpp2.0.1"))
async def test_passes(target):
    check_equal({usecase}.value, "value", 1, 1)

@checks({usecase}.status, {usecase}.value, csms=TC("TC_X_01_CSMS", "ocpp2.0.1"))
async def test_fails(target):
    check_equal({usecase}.status, "idTokenInfo.status", "Blocked", "Accepted")

@checks({usecase}.value)
async def test_broken(target):
    raise HarnessError("harness could not judge")

@checks({usecase}.value)
async def test_not_applicable(target):
    raise NotApplicable("the profile does not declare the feature")
"""


def test_outcomes_map_to_verdicts_in_the_summary(pytester):
    pytester.makepyfile(test_demo=SUITE.format(usecase="DEMO1"))
    result = pytester.runpytest("--reports-dir", "out")
    result.assert_outcomes(passed=4, failed=4, errors=4, skipped=4)   # broken: pytest's errors
    summary = json.loads((pytester.path / "out" / "conformance.json").read_text())
    verdicts = {(r["nodeid"].split("::")[1]): r["verdict"] for r in summary["results"]}
    assert verdicts["test_passes[csms-ocpp2.0.1]"] == "passed"
    assert verdicts["test_fails[cs-ocpp2.0.1]"] == "failed"
    assert verdicts["test_broken[csms-ocpp2.0.1]"] == "broken"
    assert verdicts["test_not_applicable[cs-ocpp2.0.1]"] == "skipped"
    failed = next(r for r in summary["results"] if r["nodeid"].endswith("test_fails[csms-ocpp2.0.1]"))
    assert "DEMO1 [DEMO1.status] idTokenInfo.status is wrong" in failed["reason"]
    assert "rule: the status is the token's (spec 001 demo)" in failed["reason"]
    assert failed["certification"] == "TC_X_01_CSMS" and failed["usecase"] == "DEMO1" and failed["role"] == "csms"
    assert failed["rules"] == ["DEMO1.status", "DEMO1.value"]
    skipped = next(r for r in summary["results"] if r["nodeid"].endswith("test_not_applicable[cs-ocpp2.0.1]"))
    assert skipped["reason"] == "the profile does not declare the feature"
    assert summary["counts"] == {"passed": 4, "failed": 4, "broken": 4, "skipped": 4}
    markdown = (pytester.path / "out" / "conformance.md").read_text()
    assert "| DEMO1 | TC_X_01_CSMS | csms | ocpp2.0.1 | failed | DEMO1.status, DEMO1.value |" in markdown


def test_a_certification_id_is_given_only_in_the_versions_its_listing_covers(pytester):
    pytester.makepyfile(test_demo=SUITE.format(usecase="DEMO2"))
    pytester.runpytest("--reports-dir", "out", "-k", "passes")
    summary = json.loads((pytester.path / "out" / "conformance.json").read_text())
    ids = {r["nodeid"].split("::")[1]: r["certification"] for r in summary["results"]}
    assert ids == {"test_passes[csms-ocpp2.0.1]": "TC_X_01_CSMS", "test_passes[csms-ocpp2.1]": None,
                   "test_passes[cs-ocpp2.0.1]": None, "test_passes[cs-ocpp2.1]": None}


def test_allure_shows_the_rules_a_test_checks(pytester):
    pytester.makepyfile(test_demo=SUITE.format(usecase="DEMO3"))
    pytester.runpytest("--alluredir", "allure", "-k", "fails and csms and 2.0.1")
    results = [json.loads(p.read_text()) for p in (pytester.path / "allure").glob("*-result.json")]
    assert len(results) == 1
    labels = [(label["name"], label["value"]) for label in results[0]["labels"]]
    assert ("rule", "DEMO3.status") in labels and ("rule", "DEMO3.value") in labels
    assert ("certification_id", "TC_X_01_CSMS") in labels and ("story", "DEMO3") in labels
    assert "DEMO3.status (MUST, spec 001 demo): the status is the token's" in results[0]["description"]


def test_a_use_case_test_that_declares_no_rules_is_refused_with_the_fix(pytester):
    pytester.makepyfile(test_demo=SUITE.format(usecase="DEMO4") + "\nasync def test_undeclared(target):\n    pass\n")
    result = pytester.runpytest()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*declares the rules it judges; add @checks(<Table>.<rule>, ...)*test_undeclared*"])


def test_a_rule_defined_twice_is_refused(pytester):
    pytester.makepyfile(test_a=SUITE.format(usecase="DEMO5"),
                        test_b=SUITE.format(usecase="DEMO5").replace('case("DEMO5"', 'case("DEMO6"'))
    result = pytester.runpytest()
    result.stdout.fnmatch_lines(["*DuplicateRule: rule DEMO5.value is defined in*test_a.py and again in*test_b.py*"])
    assert result.ret != pytest.ExitCode.OK


def test_selection_by_usecase_and_certification_id(pytester):
    pytester.makepyfile(test_a=SUITE.format(usecase="SEL01"), test_b=SUITE.format(usecase="PICK02"))
    by_glob = pytester.runpytest("--usecase", "PICK*", "-k", "passes")
    by_glob.assert_outcomes(passed=4)
    by_marker = pytester.runpytest("-m", "SEL01", "-k", "passes")
    by_marker.assert_outcomes(passed=4)
    by_certification = pytester.runpytest("--usecase", "TC_X_01_CSMS", "-k", "passes")
    by_certification.assert_outcomes(passed=2)   # SEL01 and PICK02 on the csms side in 2.0.1 only


def test_real_sut_runs_only_its_role_and_deselects_the_rest_with_the_reason(pytester, csms_url):
    profile = _write_profile(pytester, PROFILE_OK)
    pytester.makepyfile(test_demo=SUITE.format(usecase="ROLE01").replace('roles=("csms", "cs")', 'roles=("cs",)'))
    result = pytester.runpytest("--sut", "csms", "--sut-url", csms_url, "--protocol", "ocpp2.0.1",
                                "--sut-profile", str(profile))
    result.assert_outcomes()
    result.stdout.fnmatch_lines(["4 deselected: their use cases have no side for a SUT playing csms"])


def test_undeclared_feature_is_skipped_with_the_reason(pytester):
    """The reference profile declares every feature: the embedded run here plays one that leaves it out."""
    profile = _write_profile(pytester, PROFILE_OK + "\n[features]\npayment_terminal = false\n")
    pytester.makepyfile(test_demo=SUITE.format(usecase="FEAT01").replace(
        'protocols=("ocpp2.0.1", "ocpp2.1"))', 'protocols=("ocpp2.0.1", "ocpp2.1"), requires=["payment_terminal"])'))
    result = pytester.runpytest("--sut-profile", str(profile), "-k", "passes", "-rs")
    result.assert_outcomes(skipped=4)
    result.stdout.fnmatch_lines(["*does not declare [[]features[]] payment_terminal = true*"])


def test_summary_is_written_when_the_run_is_interrupted(pytester):
    pytester.makepyfile(test_demo=SUITE.format(usecase="STOP01")
                        + "\n@checks(STOP01.value)\nasync def test_z_stop(target):\n    raise KeyboardInterrupt\n")
    result = suite_runner.run(pytester.path, ["--reports-dir", "out"], timeout=120)   # a session of its own
    assert result.ret == pytest.ExitCode.INTERRUPTED
    summary = json.loads((pytester.path / "out" / "conformance.json").read_text())
    assert summary["interrupted"] is True
    assert summary["counts"]["passed"] >= 1
    assert summary["not_run"] == 4   # the interrupted test and the three after it
    assert "INTERRUPTED" in (pytester.path / "out" / "conformance.md").read_text()


def test_findings_of_a_passing_test_reach_the_summary(pytester):
    pytester.makepyfile(test_demo='''
from harness.rules import RuleTable, should
from harness.suite import case, checks
from harness.verdict import violated

class FIND01(RuleTable):
    unknown = should("spec 002 Framing 4", "an unknown action is answered NotImplemented")

pytestmark = case("FIND01", block="Demo", roles=("csms",), protocols=("ocpp2.0.1",))

@checks(FIND01.unknown)
async def test_deviates_from_a_should(target):
    violated(FIND01.unknown, "unknown action answered NotSupported")
''')
    result = pytester.runpytest("--reports-dir", "out")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["*FindingWarning: [[]FIND01.unknown[]] unknown action answered NotSupported*"])
    summary = json.loads((pytester.path / "out" / "conformance.json").read_text())
    assert summary["results"][0]["verdict"] == "passed"
    assert summary["results"][0]["findings"] == ["[FIND01.unknown] unknown action answered NotSupported"]
    assert "[FIND01.unknown] unknown action answered NotSupported" in (pytester.path / "out" / "conformance.md").read_text()


@pytest.mark.parametrize("usecase, side, sut", [("SIDE01", "harness_station", "csms"), ("SIDE02", "harness_cpo", "emsp")])
def test_a_typed_side_asked_by_a_test_of_both_roles_is_refused_with_the_fix(pytester, usecase, side, sut):
    """A harness's side exists in one role only: a test of both roles that asks for one is told which mark it
    needs, before anything connects."""
    pytester.makepyfile(test_demo=SUITE.format(usecase=usecase)
                        + f"\n@checks({usecase}.value)\nasync def test_one_side(target, {side}):\n    pass\n")
    result = pytester.runpytest()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"*test_demo.py::test_one_side asks for {side}*the SUT is a {sut.upper()}*"
                                 f"mark it @pytest.mark.sut_roles(\"{sut}\")*"])
