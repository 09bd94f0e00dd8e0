"""first_match: every wait of the adapters, bounded."""

import asyncio

from harness import clock
from harness.transport.waiting import first_match

# The virtual clock stops exactly at the deadline, but the loop's time is tens of thousands of seconds
# (it starts at the monotonic clock's): a difference of two such floats may come out one unit in the
# last place short of 0.1 (38341.58499851698 - 38341.48499851698 < 0.1 failed a CI run).
ROUNDING = 1e-9


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
    assert 0.1 - ROUNDING <= clock.now() - started < 1


async def test_stops_at_once_when_nothing_more_can_come():
    started = clock.now()
    assert await first_match([], bool, asyncio.Event(), 5, hopeless=lambda: True) is None
    assert clock.now() - started < 1
