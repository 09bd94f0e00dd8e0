"""One timer for a whole fleet of simulated stations.

Between two steps of its plan a station waits until a time or until its link ends, whichever comes first.
With a loop timer per station that is thousands of ``TimerHandle``s (each with its context and its place in
the loop's heap); here the stations' deadlines share one heap and the loop holds one timer, set for the
earliest of them.
"""

from __future__ import annotations

import asyncio
import functools
import heapq
import itertools


def _wake(waiter: asyncio.Future, _: object = None) -> None:
    if not waiter.done():
        waiter.set_result(None)


class Wheel:
    """The fleet's one timer: ``until(future, delay)`` returns when ``future`` is done or ``delay`` seconds have
    passed, whichever is first; ``future`` is never cancelled."""

    def __init__(self) -> None:
        self._due: list[tuple[float, int, asyncio.Future]] = []   # (loop time, tie-break, the waiter)
        self._order = itertools.count()
        self._timer: asyncio.TimerHandle | None = None

    def __len__(self) -> int:
        """The deadlines held (a wait that ended early keeps its entry until its time)."""
        return len(self._due)

    async def until(self, future: asyncio.Future, delay: float | None = None, *,
                    waiter: asyncio.Future | None = None) -> None:
        """``waiter``: the future this wait is (made here if not given); its owner may end the wait early by
        setting its result."""
        if future.done():
            if waiter is not None and not waiter.done():
                waiter.set_result(None)
            return
        loop = asyncio.get_running_loop()
        waiter = waiter if waiter is not None else loop.create_future()
        wake = functools.partial(_wake, waiter)
        future.add_done_callback(wake)
        if delay is not None:
            at = loop.time() + max(0.0, delay)
            heapq.heappush(self._due, (at, next(self._order), waiter))
            if self._timer is None or at < self._timer.when():
                self._arm(loop)
        try:
            await waiter
        finally:
            future.remove_done_callback(wake)

    def _arm(self, loop: asyncio.AbstractEventLoop) -> None:
        if self._timer is not None:
            self._timer.cancel()
        self._timer = loop.call_at(self._due[0][0], self._fire, loop) if self._due else None

    def _fire(self, loop: asyncio.AbstractEventLoop) -> None:
        now = loop.time()
        while self._due and self._due[0][0] <= now:
            _wake(heapq.heappop(self._due)[2])
        self._timer = None
        self._arm(loop)
