"""Rules as namespaced tables: every verifier names a row, ids are unique, severity comes from the row."""

import ast
from pathlib import Path

import pytest

from harness.errors import HarnessError, NotApplicable, PeerViolation, Prerequisite
from harness.rules import MUST, REGISTRY, SHOULD, DuplicateRule, Registry, Rule, RuleTable, must, should
from harness.suite import checks, load_rule_tables, rules_of
from harness.verdict import (
    CaseContext, ConformanceFailure, ConformanceFailures, SelfCheckFailed, check_equal, combine, enter_case, leave_case,
    require,
)

REPO = Path(__file__).resolve().parents[2]
SUITE_FILES = sorted((REPO / "suites").rglob("test_*.py"))
# the calls that judge the SUT, and the position of their rule argument
VERIFIERS = {"violated": 0, "require": 1, "check_equal": 0, "check_in": 0}
RULE_KEYWORD_CALLS = {"exchange", "expect", "expect_none", "expect_request"}


def test_rule_ids_are_unique_across_the_project():
    load_rule_tables(REPO / "suites")   # a second definition of an id raises DuplicateRule on import
    ids = [rule.id for rule in REGISTRY]
    assert len(ids) == len(set(ids)) and len(ids) > 0
    assert all(rule.level in (MUST, SHOULD) and rule.ref and rule.text for rule in REGISTRY)


def test_a_second_definition_of_an_id_is_refused():
    registry = Registry()
    rule = Rule("X.one", MUST, "spec", "text")
    registry.add(rule, "a.py")
    registry.add(rule, "a.py")   # the same file imported twice is one definition
    with pytest.raises(DuplicateRule, match="X.one is defined in a.py and again in b.py"):
        registry.add(rule, "b.py")


def test_a_table_names_its_rows_by_namespace():
    class Demo(RuleTable, namespace="demo.table"):
        strict = must("spec 999 §1", "a MUST row")
        soft = should("spec 999 §2", "a SHOULD row", levels={"ocpp2.1": MUST})

    assert Demo.strict.id == "demo.table.strict" and Demo.strict.strict
    assert not Demo.soft.strict and Demo.soft.strict_in("ocpp2.1") and not Demo.soft.strict_in("ocpp1.6")
    assert Demo.rules() == [Demo.strict, Demo.soft] and REGISTRY.get("demo.table.soft") is Demo.soft


class Severity(RuleTable, namespace="test.severity"):
    strict = must("spec 999 §3", "breaking it fails")
    soft = should("spec 999 §4", "breaking it is a finding", levels={"ocpp2.0.1": MUST})


@pytest.mark.parametrize("protocol, fails", [("ocpp1.6", False), ("ocpp2.0.1", True)])
def test_severity_comes_from_the_row_in_the_tests_protocol(protocol, fails):
    context = CaseContext(usecase="DEMO", protocol=protocol)
    token = enter_case(context)
    try:
        with pytest.warns(UserWarning) if not fails else pytest.raises(ConformanceFailure) as caught:
            assert check_equal(Severity.soft, "a field", 1, 2) is False
        if fails:
            assert "DEMO [test.severity.soft]" in str(caught.value) and "breaking it is a finding" in str(caught.value)
        else:
            assert [str(f) for f in context.findings] == ["[test.severity.soft] a field is wrong (expected 1, actual 2)"]
        with pytest.raises(ConformanceFailure):
            require(False, Severity.strict, "always a failure")
    finally:
        leave_case(token)


def test_a_core_violation_takes_its_strictness_from_the_row():
    assert PeerViolation(Severity.strict, "x").strict
    assert not PeerViolation(Severity.soft, "x").strict
    assert PeerViolation(Severity.soft, "x", protocol="ocpp2.0.1").strict


def _rule_arguments(path: Path):
    """(line, rule argument) of every verifier call and every ``rule=`` keyword in ``path``."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(node, ast.Call):
            continue
        name = getattr(node.func, "attr", getattr(node.func, "id", None))
        if name in VERIFIERS and len(node.args) > VERIFIERS[name]:
            yield node.lineno, node.args[VERIFIERS[name]]
        for keyword in node.keywords:
            if keyword.arg == "rule":
                yield node.lineno, keyword.value


SOURCES = SUITE_FILES + sorted((REPO / "harness").rglob("*.py"))


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(REPO)))
def test_every_verifier_call_names_a_rule_not_a_string(path):
    literal = [line for line, arg in _rule_arguments(path)
               if isinstance(arg, (ast.Constant, ast.JoinedStr, ast.BinOp))]
    assert not literal, f"{path.relative_to(REPO)}: a rule given as text at lines {literal}; name a row of a RuleTable"


@pytest.mark.parametrize("path", sorted((REPO / "suites").rglob("*.py")), ids=lambda p: str(p.relative_to(REPO)))
def test_a_suite_judges_through_its_rules_never_a_bare_assert(path):
    """A bare assert fails a test without a rule id (and the fault catalogs play the suites without
    assertion rewriting: tests/faults/suite_runner.py VERDICTS_ONLY)."""
    asserts = [node.lineno for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))) if isinstance(node, ast.Assert)]
    assert not asserts, f"{path.relative_to(REPO)}: assert at lines {asserts}; judge through a verifier and a rule"


# ---------------------------------------------------------------------------- blame only what the SUT sent
class Sides(RuleTable, namespace="test.sides"):
    station = must("spec 999 §5", "the station accepts", by="cs")
    station_advice = should("spec 999 §6", "the station should accept", by="cs")
    csms = must("spec 999 §7", "the CSMS answers", by="csms")


@pytest.mark.parametrize("rule", [Sides.station, Sides.station_advice])
def test_a_broken_row_of_the_harness_side_is_a_self_check_not_a_failure(rule):
    """SUT = CSMS: a row that binds the station judges the harness's own station. Breaking it (a MUST or a
    SHOULD) is SelfCheckFailed, a HarnessError (*broken*), never the SUT's failure or finding."""
    context = CaseContext(usecase="DEMO", sut_role="csms", protocol="ocpp2.0.1")
    token = enter_case(context)
    try:
        with pytest.raises(SelfCheckFailed) as caught:
            check_equal(rule, "RequestStopTransactionResponse status", "Accepted", "Rejected")
        assert isinstance(caught.value, HarnessError) and not isinstance(caught.value, AssertionError)
        assert f"[{rule.id}] binds the charging station, which the harness plays" in str(caught.value)
        assert not context.findings
        with pytest.raises(ConformanceFailure):   # the CSMS's own row still blames the SUT
            check_equal(Sides.csms, "status", "Accepted", "Rejected")
    finally:
        leave_case(token)


def test_every_row_of_an_ocpp_use_case_names_the_side_it_binds():
    """A use case of suites/ocpp16 and suites/ocpp2 is played from either side: each row says whose behaviour it
    judges (by=CS or by=CSMS), so that the harness's own side is never blamed on the SUT."""
    load_rule_tables(REPO / "suites")
    use_cases = [REPO / "suites" / "ocpp16", REPO / "suites" / "ocpp2"]
    unbound = [rule.id for rule in REGISTRY if rule.by is None
               and any(Path(REGISTRY.origin(rule.id)).is_relative_to(folder) for folder in use_cases)]
    assert not unbound, f"name the side each row binds (by=CS or by=CSMS): {unbound}"


def test_the_rules_a_test_is_reported_with_are_those_of_the_sut_side():
    item = type("Item", (), {"get_closest_marker": lambda self, name: checks(Sides.station, Sides.csms,
                                                                                Severity.strict).mark})()
    assert rules_of(item, "csms") == (Sides.csms, Severity.strict)
    assert rules_of(item) == (Sides.station, Sides.csms, Severity.strict)


# ---------------------------------------------------------------------------- every violation, own first
def _violation(rule, text):
    return PeerViolation(rule, text, expected="x", actual="y")


def test_every_violation_is_reported_in_one_failure_the_tests_own_first():
    own = _violation(Sides.csms, "the test's own check")
    background = [_violation(Severity.strict, "a schema fault elsewhere"), _violation(Sides.station, "declared")]
    outcome = combine(own, background, (Sides.station,))
    assert isinstance(outcome, ConformanceFailures)
    assert [v.rule for v in outcome.violations] == [Sides.csms, Sides.station, Severity.strict]
    text = str(outcome)
    assert text.startswith("3 violations: test.sides.csms, test.sides.station, test.severity.strict")
    assert "1. [test.sides.csms] the test's own check\n   expected: 'x'\n   actual:   'y'" in text


def test_background_violations_fail_a_test_whose_own_rules_held_and_say_so():
    outcome = combine(None, [_violation(Severity.strict, "X-Request-ID not echoed")], (Sides.csms,))
    assert isinstance(outcome, ConformanceFailures) and "the rules this test checks held" in str(outcome)
    assert combine(None, [], ()) is None


def test_a_test_that_stops_after_violations_fails_with_them_and_says_why_it_stopped():
    stopped = HarnessError("the harness's station could not go on")
    outcome = combine(stopped, [_violation(Severity.strict, "schema fault")])
    assert isinstance(outcome, ConformanceFailures) and "could not go on: HarnessError" in str(outcome)
    assert combine(stopped, []) is stopped


def test_violations_the_connections_did_not_keep_are_counted_in_the_failure():
    outcome = combine(None, [_violation(Severity.strict, "flooded")], (Sides.csms,), dropped=4000)
    assert "… and 4000 earlier violations its connections recorded but did not keep" in str(outcome)
    assert "the rules this test checks held" in str(outcome)


def test_the_violation_a_test_raised_is_not_reported_twice():
    raised = _violation(Sides.csms, "raised and recorded")
    assert combine(raised, [raised], ()) is raised


def test_a_violation_in_a_shared_prerequisite_fails_only_its_owner_and_the_tests_that_declare_it():
    def in_registration(text):
        violation = _violation(Severity.strict, text)
        violation.prerequisite = Prerequisite("registration", "OWNER")
        return violation

    borrowed = in_registration("X-Request-ID not echoed")
    outcome = combine(None, [borrowed], (Sides.csms,), usecase="OTHER")
    assert isinstance(outcome, NotApplicable)
    assert str(outcome).startswith("prerequisite failed: [test.severity.strict] X-Request-ID not echoed, during "
                                   "the registration; the tests of OWNER judge it")
    assert combine(None, [borrowed], (), usecase="OWNER").violations == [borrowed]
    assert combine(None, [borrowed], (Severity.strict,), usecase="OTHER") is borrowed
    raised = in_registration("the POST was refused")
    assert isinstance(combine(raised, [], (Sides.csms,), usecase="OTHER"), NotApplicable)
    own = _violation(Sides.csms, "the test's own check")   # a fault of its own still fails it
    assert combine(own, [borrowed], (Sides.csms,), usecase="OTHER") is own
