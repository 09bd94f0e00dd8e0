"""Where blame lives: every error the harness raises says whose fault it is.

- ``PeerViolation``: the other side broke a named rule of the protocol. When the
  other side is the system under test this becomes a *failed* verdict.
- ``HarnessError``: our side could not go on (misuse of an API, bad
  configuration, a bug). Always a *broken* verdict, never blamed on the SUT.
- ``ConfigError``: a profile or option the user must fix before anything runs.

- ``NotApplicable``: the profile or the actuator says the SUT does not do this: *skipped*.

Protocol cores raise these; the plugin and verifiers turn them into verdicts.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from harness.rules import Rule


CLIPPED = 500   # characters of a peer's value a message embeds; the rest is cut, its size stated
KEPT_MESSAGE = 2_000   # characters of a violation's message kept in a ledger (PeerViolation.kept)


def clip(text: str, limit: int = CLIPPED) -> str:
    """``text`` cut to ``limit`` characters, saying how long it was: a SUT's 50 MB answer must not fill
    the failure text, the JUnit file and every report."""
    if isinstance(text, _Shown) or len(text) <= limit:   # a value cut once stays as it was shown
        return text
    return f"{text[:limit]}… (cut: {len(text)} characters in all)"


class _Shown(str):
    """A value replaced by how it is shown (its repr, cut): its own repr is that text, which ``clip`` leaves alone."""

    def __repr__(self) -> str:
        return self


def _bounded(value: Any) -> Any:
    """``value`` itself when its repr fits in a message; otherwise that repr cut (``clip``)."""
    if value is None or isinstance(value, (bool, int, float)):
        return value
    shown = repr(value)
    return value if len(shown) <= CLIPPED else _Shown(clip(shown))


class HarnessError(Exception):
    """Our side failed: the verdict is *broken*, the SUT is not blamed."""


class NoConnection(HarnessError):
    """No connection with the SUT could be made: the message says what happened and the fix, and a
    traceback would add only the WebSocket library's frames (the reports show the message alone)."""


class Refused(NoConnection):
    """The SUT and the harness could not agree on a connection (an HTTP refusal of the upgrade, ``refusals``
    times): a setting of the profile or of the SUT is to fix, which no later test can fix by itself."""

    def __init__(self, message: str, refusals: int = 1):
        super().__init__(message)
        self.refusals = refusals


class ConfigError(HarnessError):
    """A profile key or option is wrong; the message names the key and the fix."""


class PeerViolation(AssertionError):
    """The peer broke a protocol rule (an AssertionError, so Allure reports it *failed*).

    ``rule`` is the row of a rule table (``harness.rules``) that was broken; ``expected`` and
    ``actual`` are what the rule asks for and what the peer did. ``strict`` comes from the rule's
    level (in ``protocol`` when the versions differ): False for a SHOULD, whose break is a
    non-strict finding, not a failure. ``prerequisite`` names the shared step the peer broke it in
    (``Arena.prerequisite``), None when it was broken in the test's own dialogue.
    """

    prerequisite: Prerequisite | None = None

    def __init__(self, rule: "Rule", message: str, *, expected: Any = None, actual: Any = None,
                 protocol: str | None = None):
        super().__init__(message)
        self.rule = rule
        self.expected = expected
        self.actual = actual
        self.strict = rule.strict_in(protocol)

    def kept(self) -> PeerViolation:
        """This violation as a record that may stay for long (a ledger of violations), the same object:
        without its traceback and the exceptions it came from, whose frames hold the peer's whole
        message (up to the size limit) and what was parsed of it; its message (which may quote a
        value: a schema problem names the array that is too long) cut at ``KEPT_MESSAGE`` characters,
        ``expected`` and ``actual`` as a message shows them. A ledger's count then bounds its bytes too."""
        self.__traceback__ = self.__context__ = self.__cause__ = None
        self.args = tuple(clip(arg, KEPT_MESSAGE) if isinstance(arg, str) else arg for arg in self.args)
        self.expected, self.actual = _bounded(self.expected), _bounded(self.actual)
        return self

    def __str__(self) -> str:
        text = f"[{self.rule.id}] {self.args[0]}"
        if self.expected is not None or self.actual is not None:
            text += f"\n  expected: {clip(repr(self.expected))}\n  actual:   {clip(repr(self.actual))}"
        return text


@dataclass(frozen=True)
class Prerequisite:
    """A step that many tests take before what they judge (a registration), and the use case whose
    tests judge it."""
    what: str
    owner: str


class NotApplicable(Exception):
    """The test does not apply to this SUT (undeclared feature, actuator answered 501)."""


class LimitExceeded(HarnessError):
    """The peer went past a bound the harness keeps to stay alive (frame size, HTTP body size): no
    rule of the protocol sets it, so the test is *broken*, and the message says what the peer sent."""
