"""The one way the adapters wait for something to show up: with a deadline, never forever."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from typing import TypeVar

from harness import clock

T = TypeVar("T")


async def first_match(items: Sequence[T], predicate: Callable[[T], bool], changed: asyncio.Event, timeout: float,
                      *, start: int = 0, hopeless: Callable[[], bool] = lambda: False) -> T | None:
    """The first of ``items[start:]`` matching ``predicate``; ``changed`` is set whenever ``items``
    may have grown. None once ``timeout`` seconds pass or ``hopeless()`` says nothing more will come."""
    deadline = clock.now() + timeout
    while True:
        for item in items[start:]:
            if predicate(item):
                return item
        remaining = deadline - clock.now()
        if remaining <= 0 or hopeless():
            return None
        changed.clear()
        try:
            await asyncio.wait_for(changed.wait(), remaining)
        except TimeoutError:
            pass
