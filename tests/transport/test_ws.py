"""The WebSocket adapter over real loopback sockets: timeouts, identity, our own bugs."""

import asyncio

import pytest

from harness import clock
from harness.errors import HarnessError
from harness.ocpp.versions import OcppVersion
from harness.transport.ws import NoAnswer, OcppServer, identity_from_path, open_station, parse_basic_auth

V201 = OcppVersion.V201


async def _pair(server_handler, *, call_timeout=0.5):
    server = await OcppServer(versions=[V201], on_connect=lambda identity, version: (server_handler, None),
                              call_timeout=call_timeout).start()
    handshake = await open_station(server.url, "CS 1/α", versions=[V201], handler=None, call_timeout=call_timeout)
    return server, handshake.connection


async def test_a_call_to_a_silent_peer_times_out_on_an_idle_link():
    """rpc.queue: the call timeout fires even when nothing else moves on the connection."""
    silent = asyncio.Event()

    async def never(call):
        await silent.wait()

    server, station = await _pair(never)
    try:
        started = clock.now()
        with pytest.raises(NoAnswer, match="no answer to Heartbeat within 0.5 s"):
            await asyncio.wait_for(station.call("Heartbeat", {}), 5)
        assert clock.now() - started < 4
    finally:
        await station.close()
        await server.stop()


async def test_our_own_schema_invalid_answer_is_a_harness_error_and_the_peer_gets_internal_error():
    async def bad_answer(call):
        return {"currentTime": 12}   # a number where the schema wants a date-time string

    server, station = await _pair(bad_answer)
    try:
        exchange = await asyncio.wait_for(station.call_exchange("Heartbeat", {}), 5)
        assert exchange.error is not None and exchange.error.code == "InternalError"
        harness_side = server.connections[0]
        assert len(harness_side.harness_errors) == 1 and isinstance(harness_side.harness_errors[0], HarnessError)
    finally:
        await station.close()
        await server.stop()


def test_identity_is_the_percent_decoded_last_segment():
    assert identity_from_path("/ocpp/CS%201%2F%CE%B1") == "CS 1/α"
    assert identity_from_path("/ocpp/v201/CS001/?x=1") == "CS001"


def test_basic_auth_header_parsing():
    assert parse_basic_auth("Basic Q1MwMDE6cMOkc3M=") == ("CS001", "päss".encode())
    assert parse_basic_auth("Basic not-base64!") is None
    assert parse_basic_auth("Bearer abc") is None


@pytest.mark.real_clock("a SUT's server: on the virtual clock a server of the test's own loop takes no proxy")
async def test_the_proxy_websockets_would_take_is_worked_out_once_per_host(monkeypatch):
    """websockets reads the proxy environment on every connect; open_station asks it once per scheme, host and
    port, and passes on what it answered (a real SUT: tests/transport/test_loopback.py has the loop's own)."""
    from harness.transport import ws

    asked = []

    def get_proxy(uri):
        asked.append((uri.secure, uri.host, uri.port))
        return None

    monkeypatch.setattr(ws, "get_proxy", get_proxy)
    ws._proxy_of.cache_clear()
    server = await OcppServer(versions=[V201], on_connect=lambda identity, version: (None, None)).start()
    try:
        for _ in range(3):
            handshake = await open_station(server.url, "CS001", versions=[V201], handler=None)
            await handshake.connection.close()
        assert asked == [(False, "127.0.0.1", server.port)]
    finally:
        await server.stop()
        ws._proxy_of.cache_clear()
