"""Pieces every reference side uses: time stamps, dispatch of CALLs to ``on_<Action>`` methods,
the action registry the in-process actuator drives, background tasks, and the ``Block``
declaration the OCPP references are composed of."""

from __future__ import annotations

import asyncio
import functools
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Protocol

from harness import clock
from harness.errors import HarnessError
from harness.ocpp.framing import Call
from harness.ocpp.versions import OcppVersion
from harness.transport.ws import CallErrorReply

log = logging.getLogger("harness.reference")
# the answers after which what a CALL asked of a SUT took effect and is to be undone
TOOK_EFFECT = ("Accepted", "RebootRequired", "Scheduled")


def took_effect(result: dict[str, Any]) -> bool:
    return result.get("status") in TOOK_EFFECT


@dataclass(frozen=True)
class Undo:
    """What a CALL the harness sends is about to change at a SUT, and how to put it back: the arena runs
    ``step(link)`` on the SUT's link as it is when the test ends, if the answer says it ``took`` effect."""
    what: str
    step: Callable[[Any], Awaitable[Any]]
    took: Callable[[dict[str, Any]], bool] = took_effect

V16 = frozenset({OcppVersion.V16})
V2X = frozenset({OcppVersion.V201, OcppVersion.V21})
EVERY_VERSION = V16 | V2X


def now_iso() -> str:
    return clock.utcnow().isoformat(timespec="milliseconds").replace("+00:00", "Z")


async def woken(event: asyncio.Event, timeout: float | None) -> bool:
    """Wait for ``event`` at most ``timeout`` seconds; True when it was set. (``asyncio.timeout``, not
    ``wait_for``: on 3.11 ``wait_for`` can swallow a cancellation that races the event.)"""
    try:
        async with asyncio.timeout(timeout):
            await event.wait()
        return True
    except TimeoutError:
        return False


class Dispatcher:
    """Answers a CALL with the method ``on_<Action>(session, payload)``; NotSupported otherwise."""

    async def dispatch(self, session: Any, call: Call) -> dict[str, Any]:
        method = getattr(self, f"on_{call.action}", None)
        if method is None:
            raise CallErrorReply("NotSupported", f"{call.action} is not supported by this implementation")
        result = method(session, call.payload)
        return await result if asyncio.iscoroutine(result) else result


class AtTheSut(Protocol):
    """What a block may do, at the end of a test, about what an actuator action left at the SUT
    (``Actions.acted``): the arena's, for the test under way."""
    notes: dict[str, Any]   # what the SUT's blocks keep for the test (which connectors have a cable, ...)
    quiet: float            # how long a wait that blames no one lasts (the profile's quiet timeout)

    def undo(self, what: str, step: Callable[[], Awaitable[Any]]) -> None: ...

    def undone(self, what: str) -> None: ...

    def mark(self) -> int: ...

    async def perform(self, action: str, body: dict[str, Any]) -> Any: ...

    async def call_from_sut(self, action: str, *, within: float, after: int,
                            where: Callable[[dict[str, Any]], bool]) -> Any: ...


@functools.cache
def class_actions(cls: type) -> frozenset[str]:
    """The actions ``act_<action>`` of a class and its bases (``dir`` of a composed reference is long: read once)."""
    return frozenset(name.removeprefix("act_") for name in dir(cls) if name.startswith("act_"))


class Actions:
    """The actuator actions an implementation performs on itself (in-process actuator).

    Methods named ``act_<action>`` take the action's JSON body as keyword arguments and
    only *start* the action: the harness then watches the wire for its effect. ``configurable``
    names the settings a test may change (``arena.configure``); a class's settings are its own
    and every base's, so each block of a reference declares only the settings it reads.

    What outlives a test at a SUT is declared where it is made, and the arena runs the undoing:
    ``undone_by`` maps an actuator action to the action (and body) that undoes it at this side, and a
    method ``undo_<Action>(payload, link)`` of the side that *sends* the CALL ``Action`` reads what it is
    about to change at a SUT and returns its ``Undo`` (or None: nothing to put back).
    """

    configurable: frozenset[str] = frozenset()
    undone_by: dict[str, Callable[[dict[str, Any]], tuple[str, dict[str, Any]]]] = {}
    # actuator actions whose effect at a SUT may reach every station it serves, not only the harness's (a
    # registration answer): a run spread over workers plays their tests alone (harness.parallel)
    csms_wide: frozenset[str] = frozenset()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls.configurable = frozenset().union(*(vars(k).get("configurable", ()) for k in cls.__mro__))
        cls.csms_wide = frozenset().union(*(vars(k).get("csms_wide", ()) for k in cls.__mro__))
        cls.undone_by = {action: undo for k in reversed(cls.__mro__)
                         for action, undo in vars(k).get("undone_by", {}).items()}

    @classmethod
    def acted(cls, action: str, body: dict[str, Any], sut: AtTheSut) -> None:
        """The actuator performed ``action`` with ``body`` at a SUT this class stands for: what it leaves there
        beyond what ``undone_by`` puts back, a block registers with ``sut`` (each override passes it on with
        super()); by default nothing."""

    @classmethod
    def undoing(cls, action: str, body: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        """The actuator action and body that undo ``action`` performed at this side with ``body``; the action
        itself when it leaves nothing behind (or is its own undoing)."""
        return cls.undone_by[action](body) if action in cls.undone_by else (action, body)

    async def undo_at_sut(self, action: str, payload: dict[str, Any], link: Any) -> Undo | None:
        """What this side's CALL ``action`` is about to change at the SUT on ``link``, and its undoing."""
        method = getattr(self, f"undo_{action}", None)
        return None if method is None else await method(payload, link)

    def configure(self, **settings: Any) -> None:
        """How this side behaves for one test: only the names in ``configurable``."""
        unknown = sorted(set(settings) - self.configurable)
        if unknown:
            raise HarnessError(f"{type(self).__name__} has no setting {', '.join(unknown)}; "
                               f"it has {', '.join(sorted(self.configurable)) or 'none'}")
        for name, value in settings.items():
            setattr(self, name, value)

    def supported_actions(self) -> set[str]:
        own = {name.removeprefix("act_") for name in getattr(self, "__dict__", ()) if name.startswith("act_")}
        return own | class_actions(type(self))   # a set the caller may change

    async def perform(self, action: str, body: dict[str, Any]) -> None:
        method = getattr(self, f"act_{action}", None)
        if method is None:
            raise NotImplementedError(action)
        await method(**body)


class Store:
    """A block's piece of state made on first use (see ``store``)."""

    def __init__(self, make: Callable[[], Any] | None, default: Any):
        self.make, self.default = make, default

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, instance: Any, owner: type | None = None) -> Any:
        if instance is None:
            return self
        if self.make is None:
            return self.default   # nothing kept until a value is set
        value = self.make()
        setattr(instance, self.name, value)   # from now on the instance's own (this descriptor sets nothing else)
        return value


def store(make: Callable[[], Any] | None = None, *, default: Any = None) -> Any:
    """A block's state, declared on the class instead of started in ``__init__``: ``make`` (``dict``, ``list``,
    ``set``, ...) makes its first value when the attribute is first read, and it is the instance's own from then
    on; without ``make`` it reads ``default`` (immutable: None, a flag, a string) until a value is set. A station
    of the load holds thousands of these empty, and its instance dictionary stays small: CPython 3.11 shares one
    key table among a class's instances for the keys set while its first instances are made (in ``__init__``),
    up to ~28; an instance given another key later, once many exist, or one past those, takes a dictionary of
    its own (~1.6 KB). So what every instance sets soon anyway (at its first connect) is better started in
    ``__init__``, and a store is for what most instances never touch. Two blocks declaring one name, or one
    declaring it and another starting it in ``__init__``, are refused when the references are composed
    (``compose.blocks_for``), as two ``__init__`` starting it are."""
    return Store(make, default)


class ReconnectsOnLinkEnd:
    """A station block's reconnection, mixed in by the block of each version that owns it: when its link ends the
    station connects again after ``reconnect_delay``, unless another link replaced it, a test turned ``reconnects``
    off, or ``stop()`` is closing it. It is told by a callback on the link's reader (``watch_link``), not by a task
    waiting for the end: thousands of stations of the load hold a link each."""

    reconnect_delay = 0.5   # seconds between attempts to connect again
    reconnects: bool = store(default=True)
    _stopping: bool = store(default=False)   # stop() is closing the link: no reconnecting after it
    connection: Any        # the station's, as its base keeps them (annotations only: nothing set here)
    csms_url: str
    background: "Background"

    def watch_link(self, connection: Any) -> None:
        connection.reader.add_done_callback(self._link_ended)

    def boots_on_reconnect(self) -> bool:
        """Whether the next connection starts with a BootNotification (a 1.6 charge point not yet Accepted)."""
        return False

    async def stop(self) -> None:
        self._stopping = True   # the link's end is told before stop's close returns
        try:
            await super().stop()   # type: ignore[misc]
        finally:
            self._stopping = False

    def _link_ended(self, reader: asyncio.Task) -> None:
        connection = self.connection
        if self.reconnects and not self._stopping and (connection is None or connection.reader is reader):
            self.background.spawn(self._reconnect_after(connection))

    async def _reconnect_after(self, connection: Any) -> None:
        while self.reconnects and self.connection in (connection, None):
            await asyncio.sleep(self.reconnect_delay)
            if not self.reconnects or self.connection not in (connection, None):
                return
            try:
                handshake = await self.connect(self.csms_url, boot=self.boots_on_reconnect())   # type: ignore[attr-defined]
            except HarnessError:
                continue   # nobody listens: try again
            if handshake.connection is not None:
                return


class Block:
    """One functional block of an OCPP reference side, mixed into the reference of each version it serves.

    A block declares the ``versions`` it serves, answers the CALLs of its messages (``on_<Action>``),
    offers its actuator actions (``act_<action>``) and the settings a test may change
    (``configurable``), and names the blocks whose methods it calls (``requires``, by class name) and those
    whose hooks and handlers its own must come before (``precedes``: its decision first, by class name).
    Its state is set up in a cooperative ``__init__`` (``super().__init__(*args, **kwargs)`` first)
    from the profile only, never from another block's state; an empty store or a constant first value is
    declared on the class with ``store`` instead, made on first use. It reacts to other blocks through the
    hooks of the side's base (``transaction_started``, ...), which every override passes on with super().
    """

    versions: frozenset[OcppVersion] = frozenset()
    configurable: frozenset[str] = frozenset()
    requires: tuple[str, ...] = ()
    precedes: tuple[str, ...] = ()

    @classmethod
    def messages(cls) -> set[str]:
        """The actions whose CALLs this block answers."""
        return {name.removeprefix("on_") for name in _names(cls) if name.startswith("on_")}

    @classmethod
    def actions(cls) -> set[str]:
        """The actuator actions this block offers."""
        return {name.removeprefix("act_") for name in _names(cls) if name.startswith("act_")}

    @classmethod
    def undoes(cls) -> set[str]:
        """The CALLs this block sends to a SUT whose effect it knows how to undo (``undo_<Action>``)."""
        return {name.removeprefix("undo_") for name in _names(cls)
                if name.startswith("undo_") and name != "undo_at_sut"}


def _names(block: type) -> set[str]:
    """Every attribute a block defines, its own and its (block) bases'."""
    return {name for k in block.__mro__ if issubclass(k, Block) for name in vars(k)}


class Background:
    """Tasks an implementation starts on its own (a transaction after a card swipe, ...)."""

    def __init__(self) -> None:
        self._tasks: set[asyncio.Task] = set()
        self.failures: list[BaseException] = []   # what the tasks raised, for a test to assert on

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
