"""The embedded run's clock (harness.clock): waits keep their length on the loop's clock, the wall
clock moves with it, and the clock never jumps past bytes still on their way over loopback."""

import asyncio
import contextlib
import socket
import threading
import time
from datetime import timedelta

import pytest

from harness import clock
from harness.clock import VirtualClockLoop


def play(coroutine_function):
    loop = VirtualClockLoop()
    try:
        return loop.run_until_complete(coroutine_function())
    finally:
        loop.close()


def test_a_wait_lasts_its_length_on_the_clock_and_the_wall_clock_moves_as_far():
    async def wait_an_hour():
        monotonic, wall = clock.now(), clock.utcnow()
        await asyncio.sleep(3600)
        return clock.now() - monotonic, clock.utcnow() - wall

    waited, on_the_wall = play(wait_an_hour)
    assert waited == pytest.approx(3600, abs=0.01)
    assert on_the_wall == pytest.approx(timedelta(hours=1), abs=timedelta(milliseconds=10))


def test_timers_fire_in_their_order_at_their_time():
    async def three_timers():
        fired = []
        started = clock.now()
        await asyncio.gather(*(asyncio.sleep(delay, result=delay) for delay in (2.0, 0.5, 1.0)))
        for delay in (0.25, 0.5):
            await asyncio.sleep(delay)
            fired.append(round(clock.now() - started, 3))
        return fired

    assert play(three_timers) == [2.25, 2.75]


def test_a_new_loop_goes_on_from_where_the_last_one_stopped():
    async def read():
        return clock.now(), clock.wall()

    async def a_day_later():
        await asyncio.sleep(86400)
        return await read()

    end_of_first = play(a_day_later)
    assert play(read) >= end_of_first


def test_outside_a_loop_the_clocks_are_the_process_clocks():
    assert abs(clock.wall() - clock.utcnow().timestamp()) < 1


@contextlib.asynccontextmanager
async def nagle_link():
    """A loopback link to a server that answers each line in two writes from a socket with Nagle's
    algorithm on (made without IPPROTO_TCP, so asyncio sets no TCP_NODELAY): the second piece waits
    in the kernel for the peer's delayed ACK, ~40 ms of real time. (bench/bench_virtual_time.py too.)"""
    async def answer(reader, writer):
        while await reader.readline():
            writer.write(b"head:")
            await asyncio.sleep(0)
            writer.write(b"body\n")

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    server = await asyncio.start_server(answer, sock=sock)
    reader, writer = await asyncio.open_connection("127.0.0.1", sock.getsockname()[1])
    try:
        yield reader, writer
    finally:
        writer.close()
        server.close()
        await server.wait_closed()


def test_the_clock_waits_for_bytes_the_kernel_still_holds():
    """The loop must wait for the held piece in real time, not jump to the 5 s timeout as if the
    peer were silent."""
    async def round_trips():
        async with nagle_link() as (reader, writer):
            for _ in range(3):
                writer.write(b"ping\n")
                async with asyncio.timeout(5):
                    assert await reader.readline() == b"head:body\n"

    play(round_trips)


def test_the_clock_waits_for_a_thread_of_the_loop():
    """While a thread of the loop's executor works, the clock moves only by the real time waited:
    the 5 s timeout does not fire."""
    async def in_a_thread():
        started = clock.now()
        async with asyncio.timeout(5):
            await asyncio.get_running_loop().run_in_executor(None, time.sleep, 0.05)
        return clock.now() - started

    assert 0 < play(in_a_thread) < 5


def test_the_clock_waits_for_a_connect_on_its_way():
    """A connect the world outside has not answered yet (no bytes queued: nothing for SIOCOUTQ to show) is
    answered in real time: the clock must not jump to the next timer meanwhile (M06's OCSP connect, answered
    late on a busy machine, once lost the station's 5 s call timeout that way). A listener whose accept queue
    is full drops the SYN; a thread accepts, and the client's retried SYN gets through."""
    listener = socket.create_server(("127.0.0.1", 0), backlog=0)
    address = listener.getsockname()
    waiting = [socket.create_connection(address, timeout=5)]   # the accept queue (backlog 0: one) is full now

    def accept_later():
        time.sleep(0.05)
        for _ in range(3):
            with contextlib.suppress(OSError):
                listener.accept()[0].close()

    async def connect_while_a_timer_waits():
        loop = asyncio.get_running_loop()
        timer = loop.create_future()
        loop.call_later(5, timer.set_result, "the 5 s timer")
        client = socket.socket()
        client.setblocking(False)
        threading.Thread(target=accept_later, daemon=True).start()
        connected = asyncio.ensure_future(loop.sock_connect(client, address))
        done, _ = await asyncio.wait([timer, connected], return_when=asyncio.FIRST_COMPLETED)
        client.close()
        return [f is connected for f in done]

    try:
        assert play(connect_while_a_timer_waits) == [True], "the clock jumped to the timer before the connect"
    finally:
        for sock in (*waiting, listener):
            sock.close()
