"""Rules as namespaced tables: every verifier names a row, ids are unique, severity comes from the row."""

import ast
from pathlib import Path

import pytest

from harness.errors import PeerViolation
from harness.rules import MUST, REGISTRY, SHOULD, DuplicateRule, Registry, Rule, RuleTable, must, should
from harness.suite import load_rule_tables
from harness.verdict import CaseContext, ConformanceFailure, check_equal, enter_case, leave_case, require

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
