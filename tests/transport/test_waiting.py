"""first_match: every wait of the adapters, bounded."""

import asyncio

from harness import clock
from harness.transport.waiting import first_match


async def test_finds_an_item_that_arrives_later():
    items, changed = [1], asyncio.Event()

    async def add():
        await asyncio.sleep(0.05)
        items.append(42)
        changed.set()

    asyncio.get_running_loop().create_task(add())
    assert await first_match(items, lambda x: x > 10, changed, 2) == 42


async def test_gives_up_at_the_timeout_and_respects_start():
    started = clock.now()
    assert await first_match([42], lambda x: x > 10, asyncio.Event(), 0.1, start=1) is None
    assert 0.1 <= clock.now() - started < 1


async def test_stops_at_once_when_nothing_more_can_come():
    started = clock.now()
    assert await first_match([], bool, asyncio.Event(), 5, hopeless=lambda: True) is None
    assert clock.now() - started < 1
