"""Pieces both reference sides use: time stamps, dispatch of CALLs to ``on_<Action>`` methods,
and the action registry the in-process actuator drives."""

from __future__ import annotations

import asyncio
import logging
from datetime import datetime, timezone
from typing import Any

from harness.errors import HarnessError
from harness.ocpp.framing import Call
from harness.transport.ws import CallErrorReply

log = logging.getLogger("harness.reference")


def now_iso() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


class Dispatcher:
    """Answers a CALL with the method ``on_<Action>(session, payload)``; NotSupported otherwise."""

    async def dispatch(self, session: Any, call: Call) -> dict[str, Any]:
        method = getattr(self, f"on_{call.action}", None)
        if method is None:
            raise CallErrorReply("NotSupported", f"{call.action} is not supported by this implementation")
        result = method(session, call.payload)
        return await result if asyncio.iscoroutine(result) else result


class Actions:
    """The actuator actions an implementation performs on itself (in-process actuator).

    Methods named ``act_<action>`` take the action's JSON body as keyword arguments and
    only *start* the action: the harness then watches the wire for its effect.
    """

    configurable: frozenset[str] = frozenset()   # the settings a test may change (arena.configure)

    def configure(self, **settings: Any) -> None:
        """How this side behaves for one test: only the names in ``configurable``."""
        unknown = sorted(set(settings) - self.configurable)
        if unknown:
            raise HarnessError(f"{type(self).__name__} has no setting {', '.join(unknown)}; "
                               f"it has {', '.join(sorted(self.configurable)) or 'none'}")
        for name, value in settings.items():
            setattr(self, name, value)

    def supported_actions(self) -> set[str]:
        return {name.removeprefix("act_") for name in dir(self) if name.startswith("act_")}

    async def perform(self, action: str, body: dict[str, Any]) -> None:
        method = getattr(self, f"act_{action}", None)
        if method is None:
            raise NotImplementedError(action)
        await method(**body)


class Background:
    """Tasks an implementation starts on its own (a transaction after a card swipe, ...)."""

    def __init__(self) -> None:
        self._tasks: set[asyncio.Task] = set()
        self.failures: list[BaseException] = []

    def spawn(self, coro) -> asyncio.Task:
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._done)
        return task

    def _done(self, task: asyncio.Task) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            self.failures.append(task.exception())
            log.info("background task failed: %r", task.exception())

    async def cancel_all(self) -> None:
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
