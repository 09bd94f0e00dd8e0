"""The tests that play on an arena share the session's event loop (the one loop a link kept from test to test
needs, bench/LEAN.md), and each leaves nothing on it for the next: what it started and left running is cancelled when its
arena closes, as closing a loop of its own did; a test ended by --max-test-time leaves the loop usable; a test
marked for a loop of another scope is refused with the fix."""

import asyncio

import pytest

from demo import suite_head

from harness.clock import VirtualClockLoop, leave_nothing_behind

SUITE = suite_head("LOOP1", roles=("csms",)) + '''
import asyncio
from pathlib import Path
LEFT = {}

@checks(LOOP1.value)
async def test_a_leaves_a_task_and_a_timer(ocpp):
    LEFT["loop"] = asyncio.get_running_loop()
    LEFT["task"] = asyncio.get_running_loop().create_task(asyncio.Event().wait())
    asyncio.get_running_loop().call_later(60, Path("timer-fired").touch)
    check_equal(LOOP1.value, "value", 1, 1)

@checks(LOOP1.value)
async def test_b_finds_neither(ocpp):
    assert asyncio.get_running_loop() is LEFT["loop"]
    assert LEFT["task"].cancelled()
    await asyncio.sleep(120)   # past the timer, on the virtual clock
    assert not Path("timer-fired").exists()
'''


def test_arena_tests_share_the_session_loop_and_leave_nothing_on_it(pytester):
    pytester.makepyfile(test_loop=SUITE)
    result = pytester.runpytest("-p", "no:randomly")
    result.assert_outcomes(passed=2)


HANGS = suite_head("LOOP2", roles=("csms",)) + '''
import asyncio
import pytest

pytestmark = [*pytestmark, pytest.mark.real_clock]

@checks(LOOP2.value)
async def test_a_hangs(ocpp):
    await asyncio.Event().wait()

@checks(LOOP2.value)
async def test_b_plays_after_it(ocpp):
    exchange = await ocpp.exchange("cs", "Heartbeat", {})
    check_equal(LOOP2.value, "currentTime present", True, "currentTime" in exchange.result)
'''


def test_a_test_ended_by_max_test_time_leaves_the_loop_to_the_next(pytester):
    pytester.makepyfile(test_hangs=HANGS)
    result = pytester.runpytest("--max-test-time", "2", "-p", "no:randomly", "--reports-dir", "out")
    result.assert_outcomes(passed=1, errors=1)   # broken: an error in pytest's terms
    result.stdout.fnmatch_lines(["*the test ran past --max-test-time 2 s*", "BROKEN *test_a_hangs*"])


OTHER_SCOPE = '''
import pytest
from harness.suite import case

pytestmark = case("LOOP3", block="Demo", roles=("csms",), protocols=("ocpp2.0.1",))

@pytest.mark.asyncio(loop_scope="function")
async def test_on_a_loop_of_its_own(ocpp):
    pass
'''


def test_an_arena_test_marked_for_another_loop_scope_is_refused_with_the_fix(pytester):
    pytester.makepyfile(test_scope=OTHER_SCOPE)
    result = pytester.runpytest()
    assert result.ret != pytest.ExitCode.OK
    result.stdout.fnmatch_lines(["*test_on_a_loop_of_its_own*session's event loop*loop_scope='function'*drop its "
                                 "loop_scope*"])


OWN_FIXTURE = suite_head("LOOP5", roles=("csms",)) + '''
import pytest_asyncio

@pytest_asyncio.fixture{scope}
async def beat(ocpp):
    yield await ocpp.exchange("cs", "Heartbeat", {})

@checks(LOOP5.value)
async def test_with_a_fixture_of_its_own(beat):
    assert "currentTime" in beat.result
'''


def test_an_own_async_fixture_on_the_arena_must_be_on_the_session_loop(pytester):
    """On a loop of its own, what the fixture awaits of the arena never comes: refused with the fix, not blamed on
    the SUT as silence; declared for the session's loop, it plays."""
    pytester.makeini("[pytest]\nasyncio_default_fixture_loop_scope = function\n")
    pytester.makepyfile(test_own=OWN_FIXTURE.replace("{scope}", ""))
    refused = pytester.runpytest()
    assert refused.ret != pytest.ExitCode.OK
    refused.stdout.fnmatch_lines(["*its async fixture 'beat' plays on the arena*loop_scope 'function'*"
                                  "@pytest_asyncio.fixture(loop_scope=\"session\")*"])
    pytester.makepyfile(test_own=OWN_FIXTURE.replace("{scope}", '(loop_scope="session")'))
    pytester.runpytest().assert_outcomes(passed=1)


def test_leave_nothing_behind_cancels_every_other_task_and_timer():
    loop = VirtualClockLoop()
    fired = []

    async def scenario():
        task = asyncio.create_task(asyncio.Event().wait())
        loop.call_later(5, fired.append, "timer")
        await asyncio.sleep(0)
        await leave_nothing_behind()
        await asyncio.sleep(10)
        return task

    try:
        task = loop.run_until_complete(scenario())
    finally:
        loop.close()
    assert task.cancelled()
    assert fired == []
