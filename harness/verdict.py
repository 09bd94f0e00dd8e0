"""Verifiers: checks that blame the SUT only for a rule of a table, with expected vs actual.

Every check names a ``Rule`` (``harness.rules``) and the rule's level decides what a break is:
a MUST/SHALL raises ``ConformanceFailure`` (a PeerViolation, hence an AssertionError: Allure shows
it *failed*); a SHOULD is a ``Finding``: recorded, shown in the report, never a failure. The level
is read in the running test's protocol version, so one row serves every version. Anything else a
test raises is *broken*.

Blame only what the SUT sent: a row names the side it binds (``by``); a broken row of the side the
harness plays is a self-check that failed (``SelfCheckFailed``, *broken*), whatever its level.

Every violation a test saw is reported, in one failure (``combine``): the test's own first (the one
it raised, then those of the rules it declares), then the background ones the connections recorded.
"""

from __future__ import annotations

import contextvars
import operator
import warnings
from collections import Counter
from collections.abc import Callable, Container
from dataclasses import dataclass, field
from typing import Any, TypeGuard

from harness.errors import HarnessError, NotApplicable, PeerViolation, clip
from harness.rules import Rule

SIDE_NAMES = {"cs": "charging station", "csms": "CSMS", "cpo": "CPO platform", "emsp": "eMSP platform"}


@dataclass
class CaseContext:
    """What the running test is about; set by the plugin for every test."""
    usecase: str | None = None
    sut_role: str | None = None
    protocol: str | None = None
    findings: list["Finding"] = field(default_factory=list)


_CURRENT: contextvars.ContextVar[CaseContext] = contextvars.ContextVar("case")


def current() -> CaseContext:
    """The running test's context; outside a test a fresh one each time (what is recorded there belongs to no
    test, and is not kept for the process's life)."""
    context = _CURRENT.get(None)
    return context if context is not None else CaseContext()


def enter_case(context: CaseContext) -> contextvars.Token[CaseContext]:
    return _CURRENT.set(context)


def leave_case(token: contextvars.Token[CaseContext]) -> None:
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


class SelfCheckFailed(HarnessError):
    """A row that binds the harness's own side was broken: the harness's reference (or what the SUT
    did before made it) did not do what the row asks. Never the SUT's failure."""

    def __init__(self, rule: Rule, message: str, *, expected: Any = None, actual: Any = None):
        side = SIDE_NAMES.get(rule.by or "", rule.by)
        super().__init__(f"self-check: [{rule.id}] binds the {side}, which the harness plays in this test: "
                         f"{message} (expected {expected!r}, actual {actual!r}). The SUT is not blamed for the "
                         f"harness's own side; the wire log shows what led to it")
        self.rule = rule


def _by_the_harness(rule: Rule) -> bool:
    """``rule`` binds the side the harness plays in the running test."""
    role = current().sut_role
    return rule.by is not None and role is not None and rule.by != role


def violated(rule: Rule, message: str, *, expected: Any = None, actual: Any = None) -> None:
    """The SUT broke ``rule``: a failure when the rule is a MUST in this test's protocol, else a finding
    (the call then returns, and the test goes on). A rule of the harness's own side was broken by the
    harness: ``SelfCheckFailed``."""
    if not isinstance(rule, Rule):
        raise TypeError(f"a verifier takes a Rule from a rule table, not {rule!r}")
    if _by_the_harness(rule):
        raise SelfCheckFailed(rule, message, expected=expected, actual=actual)
    if rule.strict_in(current().protocol):
        raise ConformanceFailure(rule, message, expected=expected, actual=actual)
    detail = "" if expected is None and actual is None else f" (expected {expected!r}, actual {actual!r})"
    record_finding(rule, message + detail)


def require(condition: bool, rule: Rule, message: str, *, expected: Any = None, actual: Any = None) -> bool:
    """``condition`` holds, or ``rule`` is broken; returns ``condition`` (a SHOULD lets the test go on)."""
    if not condition:
        violated(rule, message, expected=expected, actual=actual)
    return bool(condition)


def check_equal(rule: Rule, what: str, expected: Any, actual: Any, *,
                same: Callable[[Any, Any], bool] = operator.eq) -> bool:
    """``actual`` is ``expected``, as ``same`` judges it (``harness.cistring`` for what the OCPI texts
    compare ignoring case or nulls, ``harness.ocpp.equivalence.same`` for OCPP payloads); a failure
    shows both as they are."""
    return require(same(expected, actual), rule, f"{what} is wrong", expected=expected, actual=actual)


def check_in(rule: Rule, what: str, allowed: Container[Any], actual: Any) -> bool:
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


# ---------------------------------------------------------------------------- every violation at once
class ConformanceFailures(PeerViolation):
    """Several rules broken in one test: each with expected vs actual, the test's own first."""

    def __init__(self, violations: list[PeerViolation], note: str = ""):
        first = violations[0]
        super().__init__(first.rule, f"{len(violations)} rules broken", expected=first.expected, actual=first.actual)
        self.violations, self.note = violations, note
        self.strict = True

    def __str__(self) -> str:
        if len(self.violations) == 1:
            lines = [_one(self.violations[0], "  ")]
        else:
            counts = Counter(v.rule.id for v in self.violations)
            lines = [f"{len(self.violations)} violations: " + ", ".join(
                rule if n == 1 else f"{rule} ×{n}" for rule, n in counts.items())]
            lines += [f"{number}. {_one(v, '   ')}" for number, v in enumerate(self.violations[:LISTED], 1)]
            if len(self.violations) > LISTED:
                lines.append(f"… and {len(self.violations) - LISTED} more")
        return "\n".join(lines + ([self.note] if self.note else []))


def _borrowed(violation: BaseException | None, declared: tuple[Rule, ...],
              usecase: str | None) -> TypeGuard[PeerViolation]:
    return (isinstance(violation, PeerViolation) and violation.prerequisite is not None
            and violation.prerequisite.owner != usecase and violation.rule not in declared)


def _prerequisite_failed(borrowed: list[PeerViolation]) -> str:
    first, step = borrowed[0], borrowed[0].prerequisite
    assert step is not None   # _borrowed keeps only violations broken in a prerequisite
    more = f" (and {len(borrowed) - 1} more)" if len(borrowed) > 1 else ""
    return (f"prerequisite failed: [{first.rule.id}] {first.args[0]}{more}, during the {step.what}; "
            f"the tests of {step.owner} judge it")


LISTED = 10   # violations a failure spells out; the rest are counted (a flood breaks one rule a thousand times)


def _one(violation: PeerViolation, indent: str) -> str:
    text = f"[{violation.rule.id}] {violation.args[0]}"
    if violation.expected is not None or violation.actual is not None:
        text += (f"\n{indent}expected: {clip(repr(violation.expected))}"
                 f"\n{indent}actual:   {clip(repr(violation.actual))}")
    return text


def combine(own: BaseException | None, background: list[PeerViolation], declared: tuple[Rule, ...] = (),
            *, dropped: int = 0, usecase: str | None = None) -> BaseException | None:
    """The one outcome of a test that ended with ``own`` (None: its body passed) while its connections
    recorded the strict ``background`` violations: every violation, the test's own first — the one it
    raised, then the background ones of the rules it ``declared`` (in their order), then the others as
    they came. Without a background violation the test's own outcome stands; a test that could not go
    on (broken, not applicable) after violations fails with them and says why it stopped. ``dropped``
    counts the older violations the connections recorded and let go (each keeps only its newest).

    A violation broken in a shared prerequisite (``Arena.prerequisite``) of a rule the test does not
    declare belongs to the prerequisite's owner (``usecase`` is the running test's): it is left out
    here, and a test that found nothing else of its own is not applicable ("prerequisite failed: …")."""
    borrowed = [v for v in [own, *background] if _borrowed(v, declared, usecase)]
    if borrowed:
        outcome = combine(None if own in borrowed else own, [v for v in background if v not in borrowed], declared,
                          dropped=dropped)
        return outcome if isinstance(outcome, PeerViolation) else NotApplicable(_prerequisite_failed(borrowed))
    raised = own if isinstance(own, PeerViolation) and own.strict else None
    rest = [v for v in background if v is not raised and v not in getattr(raised, "violations", ())]
    if not rest:
        return own
    rank = {rule: position for position, rule in enumerate(declared)}
    rest.sort(key=lambda v: rank.get(v.rule, len(rank)))
    violations = ([*raised.violations] if isinstance(raised, ConformanceFailures) else [raised] if raised else [])
    violations += rest
    note = ""
    if own is None and not any(v.rule in rank for v in rest):
        note = "the rules this test checks held; the violations above were recorded on its connections"
    elif own is not None and raised is None:
        note = f"after them the test could not go on: {type(own).__name__}: {own}"
    if dropped:
        note = "\n".join(filter(None, [note, f"… and {dropped} earlier violations its connections recorded "
                                              f"but did not keep (each keeps only its newest)"]))
    return violations[0] if len(violations) == 1 and not note else ConformanceFailures(violations, note)
