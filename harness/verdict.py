"""Verifiers: checks that blame the SUT only for a named rule, with expected vs actual.

A check that fails raises ``ConformanceFailure`` (a PeerViolation, hence an AssertionError:
Allure shows it *failed*). Anything else a test raises is *broken*. A SHOULD-level deviation
is a ``finding``: recorded, shown in the report, never a failure.
"""

from __future__ import annotations

import contextvars
import warnings
from collections.abc import Container
from dataclasses import dataclass, field
from typing import Any

from harness.errors import PeerViolation


@dataclass
class CaseContext:
    """What the running test is about; set by the plugin for every test."""
    usecase: str | None = None
    sut_role: str | None = None
    findings: list["Finding"] = field(default_factory=list)


_CURRENT: contextvars.ContextVar[CaseContext] = contextvars.ContextVar("case", default=CaseContext())


def current() -> CaseContext:
    return _CURRENT.get()


def enter_case(context: CaseContext) -> contextvars.Token:
    return _CURRENT.set(context)


def leave_case(token: contextvars.Token) -> None:
    _CURRENT.reset(token)


class ConformanceFailure(PeerViolation):
    """The SUT broke a named rule of a use case."""

    def __init__(self, rule: str, message: str, *, expected: Any = None, actual: Any = None):
        super().__init__(rule, message, expected=expected, actual=actual)
        self.usecase = current().usecase

    def __str__(self) -> str:
        prefix = f"{self.usecase} " if self.usecase else ""
        text = f"{prefix}[{self.rule}] {self.args[0]}"
        return text + f"\n  expected: {self.expected!r}\n  actual:   {self.actual!r}"


class FindingWarning(UserWarning):
    """A non-strict finding: the SUT deviated from a SHOULD or from the canonical form."""


@dataclass(frozen=True)
class Finding:
    rule: str
    message: str

    def __str__(self) -> str:
        return f"[{self.rule}] {self.message}"


def finding(rule: str, message: str) -> None:
    """Record a SHOULD-level deviation: shown in Allure and the summary, not a failure."""
    item = Finding(rule, message)
    current().findings.append(item)
    warnings.warn(FindingWarning(str(item)), stacklevel=2)


def fail(rule: str, message: str, *, expected: Any = None, actual: Any = None) -> None:
    raise ConformanceFailure(rule, message, expected=expected, actual=actual)


def check_equal(rule: str, what: str, expected: Any, actual: Any) -> None:
    if actual != expected:
        fail(rule, f"{what} is wrong", expected=expected, actual=actual)


def check_in(rule: str, what: str, allowed: Container, actual: Any) -> None:
    if actual not in allowed:
        fail(rule, f"{what} is not one of the accepted values",
             expected=sorted(allowed) if isinstance(allowed, (set, frozenset)) else allowed, actual=actual)


def require(condition: bool, rule: str, message: str, *, expected: Any = None, actual: Any = None) -> None:
    if not condition:
        fail(rule, message, expected=expected, actual=actual)


def dig(payload: Any, path: str, default: Any = None) -> Any:
    """``dig(resp, "idTokenInfo.status")``: a field of a payload, or ``default`` when absent."""
    value = payload
    for part in path.split("."):
        if not isinstance(value, dict) or part not in value:
            return default
        value = value[part]
    return value
