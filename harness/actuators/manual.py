"""The manual actuator: an operator at the test bench performs the step the harness asks for.

pytest captures a test's output and input, so an instruction written to stderr shows only after
the test, too late to act on. The operator is asked through pytest's own terminal instead, with
capture suspended (``PytestTerminal``): the SUT, the action, its parameters and a countdown. Enter
confirms the step is done; ``s`` then Enter skips it (the test does not apply); no answer within
``[timeouts] operator`` seconds breaks the test ("operator did not act"), never fails it: the SUT
was never asked. ``issue_token_a`` asks for the token A the operator created at the SUT, read
without echo and masked from then on.

The harness's connections keep running while the operator is asked: stdin is read by the event
loop (``add_reader``), never by a blocking call, so the SUT's messages are answered meanwhile.
"""

from __future__ import annotations

import asyncio
import math
import os
import sys
from collections.abc import Iterator, Mapping
from contextlib import AbstractContextManager, contextmanager, nullcontext
from typing import Any, Protocol

from harness.actuators import ActionUnsupported, ActuatorFailed
from harness.profile import Token
from harness.wire import REDACTOR

SKIP = "s"


class Terminal(Protocol):
    """Where the operator is: text written shows at once, ``input_fd`` reads what they type."""
    input_fd: int

    def operator(self) -> AbstractContextManager[None]:
        """While the operator is asked: output shown at once, ``input_fd`` readable."""

    def write(self, text: str) -> None: ...


class PytestTerminal:
    """pytest's terminal with output and input capture suspended while the operator is asked."""
    input_fd = 0

    def __init__(self, config: Any):
        self.config = config

    @contextmanager
    def operator(self) -> Iterator[None]:
        capture = self.config.pluginmanager.getplugin("capturemanager")
        if capture is not None:
            capture.suspend(in_=True)
        try:
            yield
        finally:
            if capture is not None:
                capture.resume()

    def write(self, text: str) -> None:
        reporter = self.config.pluginmanager.getplugin("terminalreporter")
        if reporter is None:
            sys.stdout.write(text)
            sys.stdout.flush()
        else:
            reporter.write(text, flush=True)


class ManualActuator:
    """Asks the operator at ``terminal`` to perform each action at ``who`` (how the SUT is named to
    them) and waits ``timeout`` seconds for Enter (done) or ``s`` (skip). ``tokens``: the profile's
    tokens by id, so that a card or a PIN is named as the profile names it."""

    def __init__(self, terminal: Terminal, *, who: str, timeout: float, tokens: Mapping[str, Token] | None = None):
        self.terminal = terminal
        self.who = who
        self.timeout = timeout
        self.tokens = tokens or {}   # the profile's tokens by id: how the operator finds the card or PIN

    async def perform(self, action: str, body: dict[str, Any]) -> str | None:
        """Returns None once the operator confirmed the step; for ``issue_token_a``, the token A they
        typed (the SUT accepts it for one registration)."""
        with self.terminal.operator():
            _discard_typed_ahead(self.terminal.input_fd)
            self.terminal.write(f"\n>>> MANUAL ACTION at {self.who}: {action.replace('_', ' ')}\n")
            if action == "issue_token_a":
                return await self._token_a()
            self.terminal.write(f"    {_parameters(body, self.tokens)}\n")
            answer = await self._line(action, f"    Enter when done, {SKIP} then Enter to skip")
        if answer.lower() == SKIP:
            raise ActionUnsupported(f"the operator skipped the manual action {action}")
        return None

    async def _token_a(self) -> str:
        token = await self._line("issue_token_a", "    create a token A for one registration at the SUT, type "
                                 "it (not shown) and Enter; Enter alone to skip", secret=True)
        if not token:
            raise ActionUnsupported("the operator gave no token A (manual action issue_token_a)")
        REDACTOR.register(token)
        return token

    async def _line(self, action: str, prompt: str, *, secret: bool = False) -> str:
        """The line the operator types, under a countdown; broken when none comes in time."""
        loop, fd = asyncio.get_running_loop(), self.terminal.input_fd
        typed: asyncio.Future[str] = loop.create_future()
        buffer = bytearray()

        def readable() -> None:
            chunk = os.read(fd, 1024)
            buffer.extend(chunk)
            if typed.done():
                return
            if b"\n" in buffer:
                typed.set_result(buffer.split(b"\n", 1)[0].decode(errors="replace").strip())
            elif not chunk:
                typed.set_exception(ActuatorFailed(f"stdin ended: no operator can perform the manual action "
                                                 f"{action}; run in a terminal or choose --actuator http"))

        loop.add_reader(fd, readable)
        deadline = loop.time() + self.timeout
        try:
            with _echo_off(fd) if secret else nullcontext():
                while not typed.done() and (left := deadline - loop.time()) > 0:
                    self.terminal.write(f"\r{prompt} ({math.ceil(left)} s left) ")
                    await asyncio.wait([typed], timeout=min(1.0, left))
        finally:
            loop.remove_reader(fd)
            self.terminal.write("\n")
        if not typed.done():
            raise ActuatorFailed(f"operator did not act within {self.timeout:g} s (manual action {action}); "
                               f"raise [timeouts] operator in the profile if the step takes longer")
        return typed.result()


def _parameters(body: dict[str, Any], tokens: Mapping[str, Token]) -> str:
    """The action's parameters as the operator needs them: a token by its value and its name in the
    profile (``tokens``, by id), a PIN or a secret token by its name only."""
    shown = []
    for key, value in body.items():
        token_id, kind = (value.get("idToken"), value.get("type")) if isinstance(value, dict) and "idToken" in value \
            else (value, None) if isinstance(value, str) and value in tokens else (None, None)
        if token_id is not None:
            token = tokens.get(token_id)
            name = f"[tokens.{token.name}]" if token else None
            if kind == "KeyCode" or (token is not None and token.secret):
                value = f"the secret {name or 'PIN'} of the profile (not shown)"
            else:
                value = f"{kind + ' ' if kind else ''}{token_id!r}" + (f" ({name})" if name else "")
        elif isinstance(value, str):
            value = repr(value)
        shown.append(f"{key} = {value}")
    return REDACTOR.redact(", ".join(shown) or "no parameters")


def _discard_typed_ahead(fd: int) -> None:
    """Keys pressed before the prompt (an extra Enter) must not answer it."""
    if os.isatty(fd):
        import termios
        termios.tcflush(fd, termios.TCIFLUSH)


@contextmanager
def _echo_off(fd: int) -> Iterator[None]:
    """What the operator types is not shown (like getpass), when stdin is a terminal."""
    if not os.isatty(fd):
        yield
        return
    import termios
    before = termios.tcgetattr(fd)
    quiet = list(before)
    quiet[3] &= ~termios.ECHO
    termios.tcsetattr(fd, termios.TCSANOW, quiet)
    try:
        yield
    finally:
        termios.tcsetattr(fd, termios.TCSANOW, before)
