"""The embedded run's links in memory (harness.loopback): a connect from the virtual-clock loop to a plain
server of the same loop is a loopback pair that behaves as a socket pair does for its protocols, the
whole wire still spoken over it; TLS, closed servers and the world outside keep real sockets."""

import asyncio
import socket

import pytest
import websockets
from websockets.asyncio.server import serve

from harness import clock
from harness.clock import VirtualClockLoop
from harness.loopback import LoopbackTransport
from harness.transport.tls import TlsEnd


def play(coroutine_function):
    loop = VirtualClockLoop()
    try:
        return loop.run_until_complete(coroutine_function(loop))
    finally:
        loop.close()


class Recorder(asyncio.Protocol):
    """A protocol that keeps what happens to it."""

    def __init__(self, keep_open_on_eof: bool = False):
        self.events: list = []
        self.keep_open_on_eof = keep_open_on_eof
        self.lost = asyncio.get_running_loop().create_future()
        self.transport = None

    def connection_made(self, transport):
        self.transport = transport

    def data_received(self, data):
        self.events.append(data)

    def eof_received(self):
        self.events.append("eof")
        return self.keep_open_on_eof

    def pause_writing(self):
        self.events.append("pause")

    def resume_writing(self):
        self.events.append("resume")

    def connection_lost(self, exc):
        self.lost.set_result(exc)


async def recorder_pair(loop, **server_kwargs) -> tuple[Recorder, Recorder]:
    accepted: list[Recorder] = []

    def factory():
        accepted.append(Recorder(**server_kwargs))
        return accepted[-1]

    server = await loop.create_server(factory, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    _, client = await loop.create_connection(lambda: Recorder(), "127.0.0.1", port)
    return client, accepted[0]


def test_a_websocket_to_a_server_of_the_loop_runs_in_memory_with_every_frame_and_the_closing_handshake():
    """The HTTP upgrade, masked frames both ways and the close handshake, all over the loopback pair; the
    virtual clock stands still meanwhile (no real time waited for a kernel)."""
    async def echo(ws):
        async for message in ws:
            await ws.send(message.upper())

    async def session(loop):
        async with serve(echo, "127.0.0.1", 0, subprotocols=["ocpp2.0.1"]) as server:
            port = server.sockets[0].getsockname()[1]
            started = clock.now()
            async with websockets.connect(f"ws://127.0.0.1:{port}/ocpp/CS1", subprotocols=["ocpp2.0.1"],
                                          proxy=None) as ws:
                assert isinstance(ws.transport, LoopbackTransport)
                assert ws.subprotocol == "ocpp2.0.1"
                assert ws.remote_address == ("127.0.0.1", port)
                answers = []
                for n in range(200):
                    await ws.send(f"frame {n}")
                    answers.append(await ws.recv())
            assert answers == [f"FRAME {n}" for n in range(200)]
            assert ws.close_code == 1000
            return loop.loopback_connections, clock.now() - started

    connections, elapsed = play(session)
    assert connections == 1
    assert elapsed == 0


def test_bytes_arrive_in_order_and_the_end_of_stream_one_way_leaves_the_other_open():
    async def session(loop):
        client, server = await recorder_pair(loop, keep_open_on_eof=True)
        for piece in (b"a", b"b", b"c"):
            client.transport.write(piece)
        client.transport.write_eof()
        await asyncio.sleep(0)
        await asyncio.sleep(0)
        server.transport.write(b"still open")
        await asyncio.sleep(0)
        await asyncio.sleep(0)
        return b"".join(e for e in server.events if isinstance(e, bytes)), server.events[-1], client.events

    received, last, client_saw = play(session)
    assert received == b"abc" and last == "eof"
    assert client_saw == [b"still open"]


def test_a_close_delivers_what_was_written_then_ends_both_protocols():
    async def session(loop):
        client, server = await recorder_pair(loop)
        client.transport.write(b"last words")
        client.transport.close()
        assert client.transport.is_closing()
        return await asyncio.wait_for(client.lost, 1), await asyncio.wait_for(server.lost, 1), server.events

    client_error, server_error, server_saw = play(session)
    assert client_error is None and server_error is None
    assert server_saw == [b"last words", "eof"]


def test_an_abort_resets_the_peer():
    async def session(loop):
        client, server = await recorder_pair(loop)
        client.transport.write(b"never delivered")
        client.transport.abort()
        return await asyncio.wait_for(client.lost, 1), await asyncio.wait_for(server.lost, 1), server.events

    client_error, server_error, server_saw = play(session)
    assert client_error is None
    assert isinstance(server_error, ConnectionResetError)
    assert server_saw == []


def test_a_reader_that_pauses_makes_its_writer_pause_past_the_high_water_mark_and_resume_once_read():
    async def session(loop):
        client, server = await recorder_pair(loop)
        client.transport.set_write_buffer_limits(high=10, low=0)
        server.transport.pause_reading()
        client.transport.write(b"12345")
        client.transport.write(b"6789012")
        held = client.transport.get_write_buffer_size()
        await asyncio.sleep(0)
        paused_events, server_events = list(client.events), list(server.events)
        server.transport.resume_reading()
        await asyncio.sleep(0)
        return held, paused_events, server_events, client.events, server.events, client.transport

    held, paused, unread, client_saw, server_saw, transport = play(session)
    assert held == 12 and paused == ["pause"] and unread == []
    assert client_saw == ["pause", "resume"] and server_saw == [b"123456789012"]
    assert transport.get_write_buffer_size() == 0


def test_a_server_that_stopped_refuses_as_its_socket_does():
    async def session(loop):
        server = await loop.create_server(asyncio.Protocol, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        server.close()
        await server.wait_closed()
        with pytest.raises(ConnectionRefusedError):
            await loop.create_connection(asyncio.Protocol, "127.0.0.1", port)
        return loop.loopback_connections

    assert play(session) == 0


def test_the_world_outside_reaches_the_server_on_its_real_socket():
    """Another process (here a thread) connects to the port the server listens on, as a SUT or a browser does."""
    async def session(loop):
        client, server = await recorder_pair(loop)
        port = server.transport.get_extra_info("sockname")[1]

        def outside():
            with socket.create_connection(("127.0.0.1", port), timeout=5) as sock:
                sock.sendall(b"from outside")

        await asyncio.wait_for(loop.run_in_executor(None, outside), 5)
        return loop.loopback_connections

    assert play(session) == 1


def test_tls_keeps_its_socket(tmp_path):
    """The TLS tests judge the real handshake: a server or a connect with ssl is never carried in memory."""
    from harness.pki import HarnessPki, VALID

    pki = HarnessPki(tmp_path)
    server_end = TlsEnd(*pki.server(VALID, ("127.0.0.1",)))
    client_end = TlsEnd(None, None, trust=pki.root_path)

    async def echo(ws):
        async for message in ws:
            await ws.send(message)

    async def session(loop):
        async with serve(echo, "127.0.0.1", 0, ssl=server_end.server_context()) as server:
            port = server.sockets[0].getsockname()[1]
            async with websockets.connect(f"wss://127.0.0.1:{port}/", ssl=client_end.client_context(),
                                          proxy=None) as ws:
                await ws.send("over TLS")
                answer = await ws.recv()
                tls = ws.transport.get_extra_info("ssl_object")
        return answer, tls is not None, loop.loopback_connections

    assert play(session) == ("over TLS", True, 0)


def test_a_link_to_a_server_of_the_loop_never_takes_the_environment_s_proxy(monkeypatch):
    """A proxy in the environment applies to a SUT elsewhere, not to a link that never leaves the process."""
    from harness.transport.ws import _proxy_for

    monkeypatch.setenv("http_proxy", "http://proxy.invalid:3128")
    monkeypatch.delenv("no_proxy", raising=False)
    monkeypatch.delenv("NO_PROXY", raising=False)

    async def session(loop):
        server = await loop.create_server(asyncio.Protocol, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        here = _proxy_for(f"ws://127.0.0.1:{port}/ocpp")
        server.close()
        await server.wait_closed()
        return here, _proxy_for(f"ws://127.0.0.1:{port}/ocpp")

    here, once_stopped = play(session)
    assert here is None
    assert once_stopped == "http://proxy.invalid:3128"
