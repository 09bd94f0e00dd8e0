"""The harness's one clock, and the event loop that fast-forwards it in the embedded run.

Every time the harness reads goes through here: ``now()`` (monotonic seconds, for deadlines and
intervals) is the running event loop's own clock, the one asyncio's sleeps, timeouts and timers
already use; ``utcnow()`` (a wall-clock datetime, for time stamps in payloads) and ``wall()``
(epoch seconds, for the wire log) are read off the same clock. Outside an event loop they are the
process's clocks. The sans-I/O cores never read a clock: they are given ``now()``.

``VirtualClockLoop`` is the embedded run's event loop (no ``--sut``: reference against
reference, one process). Its clock stands still while anything can run, and when the loop would
otherwise sleep until its next timer it jumps there at once, so a ``quiet`` second, a retry
interval or a call timeout keeps its meaning (the same order of events, the same durations on the
clock) and costs no wall time. It never jumps past work in flight: it polls its sockets first
(bytes a peer in this process sent over loopback are readable at once, and so is a callback a
thread handed over with ``call_soon_threadsafe``); while a socket of the loop holds bytes its
peer has not acknowledged (not sent yet: Nagle's algorithm waiting for an ACK; or sent and not
delivered yet: loopback delivers in a softirq that a busy machine defers), or waits to become
writable (a connect on its way, which a busy machine answers late), or a thread of its executor
runs, it waits in real time and moves its clock by what it waited. An ACK that a peer
merely delays (the bytes are delivered: it waits for more to answer with) is asked for at once,
with TCP_QUICKACK, so only bytes truly on their way cost real time. What it
cannot see coming is another process or a thread of its own: a test that waits on one runs on the
real clock (``real_clock``). A real SUT always runs on asyncio's own loop, on the real clock.

The tests that play on an arena share one loop for the session (the plugin marks them so): 0.13 ms of CPU a test
less than a loop made and closed per test, and the one loop a link kept from test to test needs (bench/LEAN.md).
Closing a test's loop used to end whatever the test left running; ``leave_nothing_behind`` does that now, last in
the fixture that opened the test's sides, and a test's span on the clock is the difference of two
``VirtualClockLoop.elapsed()`` readings, the running loop's included.
"""

from __future__ import annotations

import asyncio
import selectors
import socket
import time
import weakref
from collections.abc import Callable
from concurrent.futures import Executor
from datetime import datetime, timezone
from typing import Any, TypeVar, TypeVarTuple, Unpack

from harness.loopback import Listeners, pair

try:
    import fcntl
except ImportError:       # not a POSIX system: no look into the kernel's send queues (see _unacknowledged)
    HAS_FCNTL = False
else:
    HAS_FCNTL = True

_T = TypeVar("_T")
_P = TypeVar("_P", bound=asyncio.BaseProtocol)
_Ts = TypeVarTuple("_Ts")
_Events = list[tuple[selectors.SelectorKey, int]]

SIOCOUTQ = 0x5411         # Linux <asm/ioctls.h> TIOCOUTQ: bytes in a socket's send queue the peer has not ACKed
IN_FLIGHT_POLL = 0.001    # seconds of real time between looks while bytes are on their way


def now() -> float:
    """Monotonic seconds on the running event loop's clock (``time.monotonic()`` outside a loop)."""
    try:
        return asyncio.get_running_loop().time()
    except RuntimeError:
        return time.monotonic()


def wall() -> float:
    """Seconds since the epoch on the same clock as ``now()``: the real wall clock, except on a
    ``VirtualClockLoop``, whose wall clock starts at the real one and moves with its virtual time."""
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        return time.time()
    return loop.wall() if isinstance(loop, VirtualClockLoop) else time.time()


def serves_here(host: str, port: int) -> bool:
    """A connect to ``host``:``port`` from the running loop is carried in memory: the loop is a
    ``VirtualClockLoop`` and a plain server of its own listens there."""
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        return False
    return isinstance(loop, VirtualClockLoop) and loop.serves(host, port)


async def leave_nothing_behind(patience: float = 5.0) -> None:
    """The end of a test on a loop that runs on into the next: what the test started and left running (a task,
    a timer) is cancelled, as closing a loop of its own would have done, so that nothing of it acts in the next
    test. Called last in the fixture that opened the test's sides; ``patience``: seconds for the cancelled tasks
    to finish."""
    loop = asyncio.get_running_loop()
    current = asyncio.current_task()
    left = [task for task in asyncio.all_tasks(loop) if task is not current]
    for task in left:
        task.cancel()
    if left:
        await asyncio.wait(left, timeout=patience)
    for timer in list(getattr(loop, "_scheduled", ())):   # asyncio's heap of timers (BaseEventLoop)
        timer.cancel()


def utcnow() -> datetime:
    """The current UTC datetime on the same clock as ``now()``: what time stamps on the wire carry."""
    return datetime.fromtimestamp(wall(), timezone.utc)


class VirtualClockLoop(asyncio.SelectorEventLoop):
    """An event loop whose clock jumps to its next timer instead of sleeping until it (see the module).

    The clock is the process's monotonic clock when the first loop starts, and each new loop goes
    on from where the last one stopped, so the wall clock the run shows never runs backwards."""

    _resume_at = 0.0   # where the last closed loop's clock stood
    _closed_spans = 0.0   # seconds on the clock of every closed loop, summed
    _open: weakref.WeakSet[VirtualClockLoop] = weakref.WeakSet()
    _wall_offset = time.time() - time.monotonic()   # once per process: every loop's wall clock agrees

    def __init__(self) -> None:
        self._selector_of_loop = _AnsweredSelector()
        super().__init__(self._selector_of_loop)
        self._virtual = self._started = max(time.monotonic(), VirtualClockLoop._resume_at)
        self._real_select = self._selector_of_loop.real_select
        self._selector_of_loop.answer = self._fast_forward
        self._threads: set[asyncio.Future[Any]] = set()
        self._listeners = Listeners()
        self.loopback_connections = 0   # connections carried in memory (harness.loopback): for tests and bench/
        self.jumps = 0            # how often the clock jumped, and how far in all: for bench/
        self.skipped = 0.0
        VirtualClockLoop._open.add(self)

    @classmethod
    def elapsed(cls) -> float:
        """Seconds on the clock of every loop of the process, open or closed, summed: a test's span is the
        difference between two readings, whether its loop closed at its end or runs on into the next test."""
        return cls._closed_spans + sum(loop._virtual - loop._started for loop in cls._open)

    def time(self) -> float:
        return self._virtual

    def wall(self) -> float:
        return self._virtual + self._wall_offset

    def run_in_executor(self, executor: Executor | None, func: Callable[[Unpack[_Ts]], _T],
                        *args: Unpack[_Ts]) -> asyncio.Future[_T]:
        future = super().run_in_executor(executor, func, *args)
        self._threads.add(future)
        future.add_done_callback(self._threads.discard)
        return future

    async def create_server(self, protocol_factory: Callable[[], asyncio.BaseProtocol],
                            host: Any = None, port: Any = None, **kwargs: Any) -> asyncio.Server:
        """A server as asyncio makes it, on its socket; a plain one is also reached in memory from this loop."""
        server = await super().create_server(protocol_factory, host, port, **kwargs)
        if kwargs.get("ssl") is None and kwargs.get("sock") is None:
            self._listeners.add(server, protocol_factory)
        return server

    def serves(self, host: str, port: int) -> bool:
        """A plain server of this loop listens at ``host``:``port``: a connect there is a loopback pair."""
        return self._listeners.find(host, port) is not None

    async def create_connection(self, protocol_factory: Callable[[], _P], host: Any = None, port: Any = None,
                                **kwargs: Any) -> tuple[asyncio.Transport, _P]:
        """A plain connect to a server of this loop is a loopback pair (``harness.loopback``); any other
        (TLS, another process, a given socket or local address) goes through a socket."""
        plain = all(value in (None, 0) for key, value in kwargs.items() if key != "server_hostname")
        serving = self._listeners.find(host, port) if plain else None
        if serving is None:
            return await super().create_connection(protocol_factory, host, port, **kwargs)
        client, server = protocol_factory(), serving()
        near, far = pair(self, client, server, (host, port))
        server.connection_made(far)
        client.connection_made(near)
        self.loopback_connections += 1
        return near, client

    def close(self) -> None:
        if not self.is_closed():
            VirtualClockLoop._closed_spans += self._virtual - self._started
            VirtualClockLoop._open.discard(self)
        VirtualClockLoop._resume_at = max(VirtualClockLoop._resume_at, self._virtual)
        super().close()

    def _fast_forward(self, timeout: float | None) -> _Events:
        """The selector's ``select`` as ``_run_once`` calls it: ``timeout`` is 0 while callbacks are
        ready, the time to the next timer when only timers are left, None when nothing is scheduled."""
        events = self._real_select(0)
        if events or timeout == 0:
            return events
        if timeout is None or self._threads:
            return self._wait_for_real(timeout)
        if self._unacknowledged():
            self._ask_for_acks()
            if self._unacknowledged():
                return self._wait_for_real(timeout)
            events = self._real_select(0)   # acknowledged means delivered: what just landed is readable now
            if events:
                return events
        self._virtual += timeout      # nothing can happen before the next timer: go there at once
        self.jumps += 1
        self.skipped += timeout
        return []

    def _wait_for_real(self, timeout: float | None) -> _Events:
        """Only the world outside the loop can wake it: wait for it in real time (in short steps while
        bytes are on their way, so the loop notices when they land) and move the clock as far."""
        started = time.monotonic()
        events = self._real_select(timeout if timeout is None or self._threads else min(timeout, IN_FLIGHT_POLL))
        self._virtual += time.monotonic() - started
        return events

    def _ask_for_acks(self) -> None:
        """An ACK a socket of the loop merely delays (its bytes are delivered) goes out at once."""
        for key in self._selector_of_loop.get_map().values():
            _ask_for_ack(key.fd)

    def _unacknowledged(self) -> bool:
        """A socket of this loop holds bytes its peer has not acknowledged (see the module), or waits to
        become writable (a connect on its way: its refusal or its handshake comes in real time; a full send
        buffer): either may land in this process later, in real time."""
        if any(key.events & selectors.EVENT_WRITE for key in self._selector_of_loop.get_map().values()):
            return True
        if not HAS_FCNTL:
            return False
        for key in self._selector_of_loop.get_map().values():
            try:
                if fcntl.ioctl(key.fd, SIOCOUTQ, b"\0\0\0\0") != b"\0\0\0\0":
                    return True
            except OSError:       # not a connected TCP socket (a listener, the loop's own pipe)
                continue
        return False


class _AnsweredSelector(selectors.DefaultSelector):
    """The loop's selector: its ``select``, as ``_run_once`` calls it, is answered by the loop
    (``VirtualClockLoop._fast_forward``), which looks at the sockets with ``real_select``."""

    def __init__(self) -> None:
        super().__init__()
        self.answer: Callable[[float | None], _Events] = self.real_select

    def select(self, timeout: float | None = None) -> _Events:
        return self.answer(timeout)

    def real_select(self, timeout: float | None = None) -> _Events:
        return super().select(timeout)


def _ask_for_ack(fd: int) -> None:
    """Linux sends the ACK it is delaying on a TCP socket as soon as TCP_QUICKACK is set on it."""
    try:
        sock = socket.socket(fileno=fd)  # borrows the descriptor: detached below, never closed
    except OSError:                      # not a socket (a pipe)
        return
    try:
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_QUICKACK, 1)
    except OSError:                      # not a TCP socket (the loop's own socket pair)
        pass
    finally:
        sock.detach()
