"""What every arena does the same way, whatever the protocol: which role the SUT plays and which the
harness, making either side act, one dialogue started by either side, the verdict on a SUT that
stays silent or sends what it must not, and closing both sides.

A protocol's arena (``harness.arena.ocpp.OcppArena``, ``harness.arena.ocpi.OcpiArena``) subclasses ``Arena``, names its
two ``roles``, builds ``harness`` (its reference playing the other role) and, in the embedded run,
``standin`` (a reference playing the SUT, driven by the in-process actuator), and defines
``mark()``: a point in what the harness has seen, from which a wait for the SUT starts.

A test leaves the SUT as it found it: whatever a verb creates at the SUT registers its undoing
(``undo``), and ``close`` runs what is registered, newest first, when the test ends — passed,
failed, broken or skipped (the fixture closes the arena in every case). The test's own code never
cleans up; a step that fails is logged in the wire log, never blamed.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any, TypeVar

from harness.actuators import ActionUnsupported
from harness.errors import HarnessError, LimitExceeded, PeerViolation, Prerequisite
from harness.profile import Profile
from harness.roles import Role
from harness.rules import Rule
from harness.verdict import violated
from harness.wire import WireLog

T = TypeVar("T")
S = TypeVar("S")
Trigger = tuple[str, dict[str, Any]]   # (actuator action, its body)
CLEANUP_TIMEOUT = 5.0   # seconds for one undo step at the end of a test


class Arena:
    roles: tuple[str, str] = ("", "")   # the two roles of the protocol, e.g. ("csms", "cs")

    def __init__(self, target: Any, profile: Profile, wirelog: WireLog, options: Any):
        if target.role not in self.roles:
            raise HarnessError(f"{type(self).__name__} serves the roles {' and '.join(self.roles)}, not {target.role}")
        self.target = target
        self.sut_role: str = target.role
        self.profile = profile
        self.wirelog = wirelog
        self.options = options
        self.actuator = options.actuator
        self.harness: Any = None   # the harness's own reference, playing ``harness_role``
        self.standin: Any = None   # the embedded run's reference playing the SUT
        self._undo: list[tuple[str, Callable[[], Awaitable[Any]]]] = []
        self.left_at_sut = LeftAtSut(self)

    @property
    def harness_role(self) -> str:
        return self.roles[1] if self.sut_role == self.roles[0] else self.roles[0]

    @property
    def timeouts(self):
        return self.profile.timeouts

    def is_sut(self, role: str) -> bool:
        return role == self.sut_role

    def _side(self, side: Callable[[Any], S], name: str, sut: Role) -> S:
        """The harness's typed side ``side`` (the fixture ``name``), which exists when the SUT plays ``sut``."""
        if not self.is_sut(sut):
            raise HarnessError(f"the harness plays {Role(self.harness_role).spoken} in this test: {name} serves "
                               f"tests where the SUT is {sut.spoken} (mark the test @pytest.mark.sut_roles(\"{sut}\"), "
                               f"or branch on arena.is_sut)")
        return side(self)

    def mark(self) -> int:
        """A point in what the harness has seen, for the waits that start after it."""
        raise NotImplementedError

    @property
    def sut_reference(self) -> type:
        """The reference class of the role the SUT plays: it declares how its actuator actions are undone."""
        raise NotImplementedError

    # ------------------------------------------------------------------ acting
    async def act(self, role: str, action: str, **body: Any) -> Any:
        """Something happens at ``role``'s end that the protocol cannot cause (a card presented, an
        operator's command): the SUT's actuator when ``role`` is the SUT, the harness's own reference
        otherwise. Returns what the SUT's actuator returned (see ``Actuator.perform``), or what the
        harness's reference did (an OCPI push: its exchange)."""
        if role not in self.roles:
            raise HarnessError(f"act: {role!r} is none of the roles {', '.join(self.roles)}")
        if not self.is_sut(role):
            return await self.harness.perform(action, body)
        if action in self.sut_reference.csms_wide and getattr(self.options, "shared", False):
            raise HarnessError(f"{action} may change what the SUT does for every station, and this run's other "
                               f"workers play other stations meanwhile: mark the test "
                               f"@pytest.mark.csms_wide(\"why\") so that it runs alone")
        if self.actuator is None:
            raise ActionUnsupported(f"no actuator performs {action!r} at the SUT in this run (no terminal for an "
                                f"operator, none configured); give --actuator http --actuator-url URL, or "
                                f"[actuator] in the profile")
        result = await self.actuator.perform(action, body)
        self._undone(f"{action} {body}")
        undo_action, undo_body = self.sut_reference.undoing(action, body)
        if (undo_action, undo_body) != (action, body):   # set_registration Accepted is its own undoing
            self.undo(f"{undo_action} {undo_body}", lambda: self.act(role, undo_action, **undo_body))
        self.sut_reference.acted(action, body, self.left_at_sut)
        return result

    async def elapse(self, seconds: float) -> None:
        """Scenario time passes with nothing asked of either side: a test that needs a duration itself (an
        interval to wait out, samples to accrue, an expiry to reach) says so here. The run's clock: virtual in
        the embedded run, costing no wall time; real against a SUT."""
        await asyncio.sleep(seconds)

    # ------------------------------------------------------------------ shared prerequisites
    @contextlib.asynccontextmanager
    async def prerequisite(self, what: str, *, owner: str) -> AsyncIterator[None]:
        """A step the test takes before what it judges (``what``: a registration), judged by the tests
        of the use case ``owner``. What the SUT breaks meanwhile, raised or recorded on the connections,
        is marked as broken in it: a test of another use case that does not declare the rule is then
        not applicable ("prerequisite failed: ..."), not failed again (``verdict.combine``)."""
        step = Prerequisite(what, owner)
        before = {id(v) for connection in self.wirelog.connections for v in connection.violations}
        try:
            yield
        except PeerViolation as violation:
            violation.prerequisite = violation.prerequisite or step   # a step within a step: the inner one's
            raise
        finally:
            for connection in self.wirelog.connections:
                for violation in connection.violations:
                    if id(violation) not in before:
                        violation.prerequisite = violation.prerequisite or step

    # ------------------------------------------------------------------ leaving the SUT as it was
    def undo(self, what: str, step: Callable[[], Awaitable[Any]]) -> None:
        """``step`` puts back what the test changed at the SUT; it runs when the test ends, whatever its
        outcome, newest first (``what`` names it: registered once, and a later act that does the same
        cancels it)."""
        if all(name != what for name, _ in self._undo):
            self._undo.append((what, step))

    def _undone(self, what: str) -> None:
        """The test did ``what`` itself: a registered step that does the same is no longer due."""
        self._undo = [(name, step) for name, step in self._undo if name != what]

    async def tidy(self) -> None:
        """Run every registered undo step, newest first, each bounded; a step that fails is logged."""
        steps, self._undo = self._undo, []
        for what, step in reversed(steps):
            try:
                await asyncio.wait_for(step(), CLEANUP_TIMEOUT)
            except Exception as error:   # cleanup never changes the verdict
                self.wirelog.event(f"cleanup {self.sut_role}", f"could not {what}: {error!r}")

    def configure(self, **settings: Any) -> None:
        """Set how the harness's own side behaves for this test (the settings its reference lists in
        ``configurable``); the harness's side is made anew for every test, so nothing carries over."""
        self.harness.configure(**settings)

    async def initiated(self, initiator: str, what: str, *, send: Callable[[], Awaitable[T]],
                        trigger: Trigger | None, await_sut: Callable[[int], Awaitable[T]]) -> T:
        """One dialogue started by ``initiator``: ``send()`` when that is the harness; otherwise the
        actuator performs ``trigger`` and ``await_sut(mark)`` waits for the SUT's ``what`` from the
        mark taken before the trigger."""
        if not self.is_sut(initiator):
            return await send()
        if trigger is None:
            raise HarnessError(f"the SUT sends {what}: give the actuator action that makes it")
        start = self.mark()
        await self.act(initiator, trigger[0], **trigger[1])
        return await await_sut(start)

    # ------------------------------------------------------------------ verdicts on what the SUT sent
    @staticmethod
    def silent(rule: Rule, what: str, waited: float, why: str = "", *, ended: tuple[str, str] | None = None,
               refused: str | None = None) -> None:
        """The SUT did not send ``what`` within ``waited`` seconds: ``rule`` is broken. When the link ``ended``
        meanwhile (who ended it: "peer", "limit" or "harness"; and how) the verdict says so, not that time ran
        out: the SUT's close breaks ``rule``, a close of the harness's or a limit of its own is broken. When it
        sent ``what`` only in a form the harness refused (``refused``: why, as that violation says), the verdict
        says that, not "nothing"."""
        if ended is None:
            said = f"the SUT did not send {what} within {waited:g} s {why}".rstrip()
            violated(rule, f"{said}; it sent one that was refused: {refused}" if refused else said, expected=what,
                     actual=f"refused: {refused}" if refused else "nothing")
            return
        who, how = ended
        if who != "peer":
            raise (LimitExceeded if who == "limit" else HarnessError)(f"{how} before the SUT sent {what} {why}".rstrip())
        violated(rule, f"{how.replace('the peer', 'the SUT', 1)} before it sent {what} {why}".rstrip(), expected=what,
                 actual=how)

    @staticmethod
    def unwanted(rule: Rule, what: str, actual: Any) -> None:
        """The SUT sent ``what`` although it must not: ``rule`` is broken."""
        violated(rule, f"the SUT sent {what} when it must not", expected=f"no {what}", actual=actual)

    # ------------------------------------------------------------------ closing
    async def close(self) -> None:
        """Undo what the test changed at the SUT, then stop both sides."""
        try:
            await self.tidy()
        finally:
            for side in (self.standin, self.harness):
                if side is not None:
                    await side.stop()


class LeftAtSut:
    """The arena's side of ``harness.reference.common.AtTheSut``: what the SUT's blocks keep and register, in one
    test, about what an actuator action left at the SUT beyond its ``undone_by`` (``Actions.acted``)."""

    def __init__(self, arena: Arena) -> None:
        self._arena = arena
        self.notes: dict[str, Any] = {}

    @property
    def quiet(self) -> float:
        return self._arena.timeouts.quiet

    def undo(self, what: str, step: Callable[[], Awaitable[Any]]) -> None:
        self._arena.undo(what, step)

    def undone(self, what: str) -> None:
        self._arena._undone(what)

    def mark(self) -> int:
        return self._arena.mark()

    async def perform(self, action: str, body: dict[str, Any]) -> Any:
        """The SUT's actuator performs ``action``, registering nothing (an undo step's own action)."""
        return await self._arena.actuator.perform(action, body)

    async def call_from_sut(self, action: str, *, within: float, after: int,
                            where: Callable[[dict[str, Any]], bool]) -> Any:
        """The SUT's CALL ``action`` from ``after`` on whose payload ``where`` accepts; None after ``within`` s."""
        return await self._arena.next_call(action, sender=self._arena.sut_role, within=within, after=after,
                                           where=where)
