"""Verifiers: checks that blame the SUT only for a rule of a table, with expected vs actual.

Every check names a ``Rule`` (``harness.rules``) and the rule's level decides what a break is:
a MUST/SHALL raises ``ConformanceFailure`` (a PeerViolation, hence an AssertionError: Allure shows
it *failed*); a SHOULD is a ``Finding``: recorded, shown in the report, never a failure. The level
is read in the running test's protocol version, so one row serves every version. Anything else a
test raises is *broken*.
"""

from __future__ import annotations

import contextvars
import warnings
from collections.abc import Container
from dataclasses import dataclass, field
from typing import Any

from harness.errors import PeerViolation
from harness.rules import Rule


@dataclass
class CaseContext:
    """What the running test is about; set by the plugin for every test."""
    usecase: str | None = None
    sut_role: str | None = None
    protocol: str | None = None
    findings: list["Finding"] = field(default_factory=list)


_CURRENT: contextvars.ContextVar[CaseContext] = contextvars.ContextVar("case", default=CaseContext())


def current() -> CaseContext:
    return _CURRENT.get()


def enter_case(context: CaseContext) -> contextvars.Token:
    return _CURRENT.set(context)


def leave_case(token: contextvars.Token) -> None:
    _CURRENT.reset(token)


class ConformanceFailure(PeerViolation):
    """The SUT broke a MUST rule of a use case."""

    def __init__(self, rule: Rule, message: str, *, expected: Any = None, actual: Any = None):
        super().__init__(rule, message, expected=expected, actual=actual, protocol=current().protocol)
        self.usecase = current().usecase

    def __str__(self) -> str:
        prefix = f"{self.usecase} " if self.usecase else ""
        text = f"{prefix}[{self.rule.id}] {self.args[0]}\n  rule: {self.rule.text} ({self.rule.ref})"
        return text + f"\n  expected: {self.expected!r}\n  actual:   {self.actual!r}"


class FindingWarning(UserWarning):
    """A non-strict finding: the SUT deviated from a SHOULD or from the canonical form."""


@dataclass(frozen=True)
class Finding:
    rule: Rule
    message: str

    def __str__(self) -> str:
        return f"[{self.rule.id}] {self.message}"


def record_finding(rule: Rule, message: str) -> None:
    """A SHOULD-level deviation: shown in Allure and the summary, not a failure."""
    item = Finding(rule, message)
    current().findings.append(item)
    warnings.warn(FindingWarning(str(item)), stacklevel=3)


def violated(rule: Rule, message: str, *, expected: Any = None, actual: Any = None) -> None:
    """The SUT broke ``rule``: a failure when the rule is a MUST in this test's protocol, else a finding
    (the call then returns, and the test goes on)."""
    if not isinstance(rule, Rule):
        raise TypeError(f"a verifier takes a Rule from a rule table, not {rule!r}")
    if rule.strict_in(current().protocol):
        raise ConformanceFailure(rule, message, expected=expected, actual=actual)
    detail = "" if expected is None and actual is None else f" (expected {expected!r}, actual {actual!r})"
    record_finding(rule, message + detail)


def require(condition: bool, rule: Rule, message: str, *, expected: Any = None, actual: Any = None) -> bool:
    """``condition`` holds, or ``rule`` is broken; returns ``condition`` (a SHOULD lets the test go on)."""
    if not condition:
        violated(rule, message, expected=expected, actual=actual)
    return bool(condition)


def check_equal(rule: Rule, what: str, expected: Any, actual: Any) -> bool:
    return require(actual == expected, rule, f"{what} is wrong", expected=expected, actual=actual)


def check_in(rule: Rule, what: str, allowed: Container, actual: Any) -> bool:
    if actual in allowed:
        return True
    listed = sorted(allowed, key=repr) if isinstance(allowed, (set, frozenset)) else allowed
    return require(False, rule, f"{what} is not one of the accepted values", expected=listed, actual=actual)


def dig(payload: Any, path: str, default: Any = None) -> Any:
    """``dig(resp, "idTokenInfo.status")``: a field of a payload, or ``default`` when absent."""
    value = payload
    for part in path.split("."):
        if not isinstance(value, dict) or part not in value:
            return default
        value = value[part]
    return value
