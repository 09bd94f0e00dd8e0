"""Certification ids on tests: several per test (a case per version, per parameter), each one selectable."""

import json

SUITE = '''
import pytest
from harness.rules import RuleTable, must
from harness.suite import OCPP2, TC, case, checks

class {usecase}(RuleTable):
    value = must("spec 001 demo", "the value is right")

pytestmark = case("{usecase}", block="Demo", roles=("csms", "cs"), protocols=OCPP2)

@pytest.mark.parametrize("kind", ["Hard", "Soft"])
@checks({usecase}.value, csms=(TC("TC_X_01_CSMS", "ocpp2.0.1", when="Hard"), TC("TC_X_02_CSMS", "ocpp2.0.1", when="Soft"),
                               TC("TC_X_09_CSMS", "ocpp2.1")),
        cs=TC("TC_X_01_CS"))
async def test_reset(target, kind):
    pass
'''


def _ids(pytester) -> dict[str, str | None]:
    summary = json.loads((pytester.path / "out" / "conformance.json").read_text())
    return {r["nodeid"].split("::")[1]: r["certification"] for r in summary["results"]}


def test_each_parameter_and_version_gets_its_own_id(pytester):
    pytester.makepyfile(test_demo=SUITE.format(usecase="CERT1"))
    pytester.runpytest("--reports-dir", "out").assert_outcomes(passed=8)
    assert _ids(pytester) == {
        "test_reset[csms-ocpp2.0.1-Hard]": "TC_X_01_CSMS", "test_reset[csms-ocpp2.0.1-Soft]": "TC_X_02_CSMS",
        "test_reset[csms-ocpp2.1-Hard]": "TC_X_09_CSMS", "test_reset[csms-ocpp2.1-Soft]": "TC_X_09_CSMS",
        "test_reset[cs-ocpp2.0.1-Hard]": "TC_X_01_CS", "test_reset[cs-ocpp2.0.1-Soft]": "TC_X_01_CS",
        "test_reset[cs-ocpp2.1-Hard]": "TC_X_01_CS", "test_reset[cs-ocpp2.1-Soft]": "TC_X_01_CS"}


def test_usecase_selects_the_tests_of_one_certification_id(pytester):
    pytester.makepyfile(test_demo=SUITE.format(usecase="CERT2"))
    result = pytester.runpytest("--reports-dir", "out", "--usecase", "TC_X_02_CSMS")
    result.assert_outcomes(passed=1)
    assert _ids(pytester) == {"test_reset[csms-ocpp2.0.1-Soft]": "TC_X_02_CSMS"}
    pytester.runpytest("--usecase", "TC_X_0?_CSMS").assert_outcomes(passed=4)


def test_allure_labels_every_id_of_a_test(pytester):
    pytester.makepyfile(test_demo=SUITE.format(usecase="CERT3").replace(
        'TC("TC_X_09_CSMS", "ocpp2.1")', 'TC("TC_X_03_CSMS", "ocpp2.0.1", when="Hard")'))
    pytester.runpytest("--alluredir", "allure", "-k", "csms and 2.0.1 and Hard")
    results = [json.loads(p.read_text()) for p in (pytester.path / "allure").glob("*-result.json")]
    labels = {(label["name"], label["value"]) for label in results[0]["labels"]}
    assert {("certification_id", "TC_X_01_CSMS"), ("certification_id", "TC_X_03_CSMS")} <= labels
