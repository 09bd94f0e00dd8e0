"""The WebSocket adapter against peers that misbehave on the wire: every wait ends, and what ends it
says what the peer did (issue #16: the hangs a hostile SUT found, each reproduced here)."""

import asyncio
import contextlib
import json

import pytest
from websockets.asyncio.client import connect
from websockets.asyncio.server import serve

from harness.errors import HarnessError, LimitExceeded, PeerViolation
from harness.ocpp.versions import OcppVersion
from harness.transport.http import MAX_BODY, HttpClient, NoAnswer
from harness.transport.ws import MAX_FRAME, OcppServer, open_station

V201 = OcppVersion.V201
BOUND = 30   # seconds (virtual): far above every timeout in play; reaching it is the hang


async def _raw_csms(behaviour):
    """A CSMS that speaks raw WebSocket: ``behaviour(ws)`` plays it after the upgrade."""
    return await serve(behaviour, "127.0.0.1", 0, subprotocols=[V201.subprotocol], max_size=None,
                       ping_interval=None)


async def _station(server, *, call_timeout=2.0):
    port = server.sockets[0].getsockname()[1]
    handshake = await open_station(f"ws://127.0.0.1:{port}/ocpp", "CS001", versions=[V201], handler=None,
                                   call_timeout=call_timeout)
    return handshake.connection


@contextlib.asynccontextmanager
async def _linked(behaviour, *, call_timeout=2.0):
    """The harness's station connected to a raw CSMS playing ``behaviour``; both closed at the end."""
    server = await _raw_csms(behaviour)
    station = await _station(server, call_timeout=call_timeout)
    try:
        yield station
    finally:
        await station.close()
        server.close()


async def _answer_boot_then(ws, then):
    frame = json.loads(await ws.recv())
    await ws.send(json.dumps([3, frame[1], {"currentTime": "2024-01-01T00:00:00Z", "interval": 60,
                                            "status": "Accepted"}]))
    await then(ws)


BOOT = {"reason": "PowerUp", "chargingStation": {"model": "m", "vendorName": "v"}}


async def test_a_call_on_a_link_the_peer_closed_fails_at_once_and_blames_the_peer():
    async def close_after_boot(ws):
        await _answer_boot_then(ws, lambda ws: ws.close(1000, "bye"))

    async with _linked(close_after_boot) as station:
        await station.call("BootNotification", BOOT)
        assert await station.wait_closed(BOUND)
        with pytest.raises(PeerViolation, match=r"closed the connection \(1000 bye\).*Heartbeat"):
            await asyncio.wait_for(station.call("Heartbeat", {}), BOUND)


async def test_a_call_on_a_link_the_harness_closed_is_a_harness_error():
    async def idle(ws):
        await ws.wait_closed()

    server = await _raw_csms(idle)
    station = await _station(server)
    await station.close()
    with pytest.raises(HarnessError, match="the harness closed"):
        await asyncio.wait_for(station.call("Heartbeat", {}), BOUND)
    server.close()


async def test_a_call_the_peer_closes_the_link_on_fails_naming_the_close():
    async def close_on_next_call(ws):
        await _answer_boot_then(ws, lambda ws: ws.recv())   # then the handler returns: the server closes
    async with _linked(close_on_next_call, call_timeout=20) as station:
        await station.call("BootNotification", BOOT)
        with pytest.raises(PeerViolation, match=r"\[rpc.answered\].*closed the connection.*Heartbeat"):
            await asyncio.wait_for(station.call("Heartbeat", {}), BOUND)


async def test_deeply_nested_json_is_a_frame_violation_and_the_reader_lives_on():
    async def nested_then_answer(ws):
        frame = json.loads(await ws.recv())
        await ws.send("[" * 5000 + "]" * 5000)
        await ws.send(json.dumps([3, frame[1], {"currentTime": "2024-01-01T00:00:00Z"}]))
        await ws.wait_closed()

    async with _linked(nested_then_answer) as station:
        answer = await asyncio.wait_for(station.call("Heartbeat", {}), BOUND)
        assert answer == {"currentTime": "2024-01-01T00:00:00Z"}
        assert any("nested deeper" in str(v) and v.rule.id == "framing.depth" for v in station.violations)
        assert not station.harness_errors


async def test_a_frame_over_the_size_limit_is_reported_as_such():
    async def huge(ws):
        await ws.recv()
        await ws.send("x" * (MAX_FRAME + 1))
        await ws.wait_closed()

    async with _linked(huge) as station:
        with pytest.raises(LimitExceeded, match=f"larger than the harness's limit of {MAX_FRAME} bytes"):
            await asyncio.wait_for(station.call("Heartbeat", {}), BOUND)


async def test_an_answer_with_a_wrong_message_id_is_reported_as_such_not_as_silence():
    async def wrong_id(ws):
        await ws.recv()
        await ws.send(json.dumps([3, "not-your-id", {"currentTime": "2024-01-01T00:00:00Z"}]))
        await ws.wait_closed()

    async with _linked(wrong_id) as station:
        with pytest.raises(PeerViolation) as failure:
            await asyncio.wait_for(station.call("Heartbeat", {}), BOUND)
        assert "silence" not in str(failure.value)
        assert "message id 'not-your-id'" in str(failure.value)


async def test_garbage_instead_of_an_answer_is_reported_as_garbage():
    async def garbage(ws):
        await ws.recv()
        await ws.send("this is not json")
        await ws.send(b"\x00\x01binary")
        await ws.wait_closed()

    async with _linked(garbage) as station:
        with pytest.raises(PeerViolation) as failure:
            await asyncio.wait_for(station.call("Heartbeat", {}), BOUND)
        assert "silence" not in str(failure.value)
        assert "2 frames that are not OCPP-J" in str(failure.value)


async def test_a_reader_that_meets_an_unexpected_error_ends_the_waits_as_a_harness_error(monkeypatch):
    async def idle(ws):
        await ws.recv()
        await ws.send("[3]")
        await ws.wait_closed()

    def explode(text, now):
        raise RuntimeError("bug in the core")

    async with _linked(idle) as station:
        monkeypatch.setattr(station.endpoint, "receive", explode)
        with pytest.raises(HarnessError, match="bug in the core"):
            await asyncio.wait_for(station.call("Heartbeat", {}), BOUND)
        assert station.harness_errors


async def test_a_server_connection_with_a_flooding_peer_keeps_answering_and_the_call_still_times_out():
    """A station that floods CALLs cannot keep the harness's own CALL from timing out."""
    server = await OcppServer(versions=[V201], on_connect=lambda identity, version: (None, None),
                              call_timeout=1.0).start()
    try:
        async with connect(server.url + "/CS001", subprotocols=[V201.subprotocol]) as ws:
            connection = await server.wait_connection(BOUND)

            async def flood():
                for n in range(2000):
                    await ws.send(json.dumps([2, f"f{n}", "Heartbeat", {}]))
            flooding = asyncio.create_task(flood())
            with pytest.raises(PeerViolation, match="no answer to Reset"):
                await asyncio.wait_for(connection.call("Reset", {"type": "Immediate"}), BOUND)
            flooding.cancel()
    finally:
        await server.stop()


# ---------------------------------------------------------------------------- OCPI over HTTP
@contextlib.asynccontextmanager
async def _raw_http(body_chunks):
    """The URL of an HTTP server on a real port that answers 200 and then sends ``body_chunks()`` as its body."""
    async def serve_one(reader, writer):
        await reader.readuntil(b"\r\n\r\n")
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n")
        try:
            async for chunk in body_chunks():
                writer.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
                await writer.drain()
        except (ConnectionError, asyncio.CancelledError):
            pass
        finally:
            writer.close()

    server = await asyncio.start_server(serve_one, "127.0.0.1", 0)
    try:
        yield f"http://127.0.0.1:{server.sockets[0].getsockname()[1]}/ocpi/versions"
    finally:
        server.close()


async def test_an_endless_trickled_body_ends_at_the_request_timeout():
    """Each byte comes well within a read timeout, so only a bound on the whole request ends it."""
    async def trickle():
        while True:
            yield b" "
            await asyncio.sleep(0.1)

    async with _raw_http(trickle) as url:
        with pytest.raises(NoAnswer, match=r"HTTP 200 began but its body did not end within 2 s"):
            await asyncio.wait_for(HttpClient(timeout=2).request("GET", url), BOUND)


async def test_a_huge_body_is_refused_at_the_limit_as_such():
    async def flood():
        chunk = b" " * 65536
        while True:
            yield chunk

    async with _raw_http(flood) as url:
        with pytest.raises(LimitExceeded, match=f"passed the harness's limit of {MAX_BODY} bytes"):
            await asyncio.wait_for(HttpClient(timeout=20).request("GET", url), BOUND)


def test_an_ocpi_body_nested_past_the_parsers_depth_is_not_valid_json_not_a_recursion_error():
    from harness.ocpi.envelope import parse
    with pytest.raises(PeerViolation, match="not valid JSON"):
        parse(b"[" * 100_000 + b"]" * 100_000)


def test_a_huge_sut_value_is_cut_in_the_reason_and_the_failure_log_with_its_size():
    from harness.errors import CLIPPED
    from harness.rules import Rule
    from harness.wire import WireLog

    rule = Rule("hostile.demo", "MUST", "spec 001 demo", "a demo row")   # not registered: a row for this test alone
    reason = str(PeerViolation(rule, "the answer is wrong", expected="small", actual="x" * 50_000_000))
    assert len(reason) < 2 * CLIPPED and "(cut: 50000002 characters in all)" in reason
    log = WireLog()
    log.received("CS001", "y" * 5_000_000)
    assert len(log.render(last=40, width=2000)) < 2200 and "5000000 characters in all" in log.render(last=40, width=2000)


async def test_a_request_body_over_the_limit_is_answered_413_without_reaching_the_handler():
    from harness.transport.http import HttpResponse, InProcessNetwork, asgi_app

    reached = []

    async def handler(request):
        reached.append(request)
        return HttpResponse(200, b"{}")

    network = InProcessNetwork()
    base = network.add("harness", asgi_app(handler))
    answer = await HttpClient(transport=network).request("POST", f"{base}/ocpi/x", body=b" " * (MAX_BODY + 1))
    assert answer.status == 413 and not reached


async def test_a_call_id_holding_a_lone_surrogate_is_echoed_and_the_link_lives_on():
    """A lone UTF-16 surrogate is legal in JSON ("\\ud800"): the harness answers the CALL with the same id, escaped,
    and keeps serving the link."""
    answer = asyncio.get_running_loop().create_future()

    async def surrogate_id(ws):
        await ws.send('[2,"\\ud800","DataTransfer",{"vendorId":"v"}]')
        answer.set_result(json.loads(await ws.recv()))
        await ws.wait_closed()

    server = await _raw_csms(surrogate_id)
    port = server.sockets[0].getsockname()[1]

    async def accepted(call):
        return {"status": "Accepted"}

    handshake = await open_station(f"ws://127.0.0.1:{port}/ocpp", "CS001", versions=[V201], handler=accepted,
                                   call_timeout=2.0)
    station = handshake.connection
    try:
        assert await asyncio.wait_for(answer, BOUND) == [3, "\ud800", {"status": "Accepted"}]
        assert not station.closed and not station.harness_errors
    finally:
        await station.close()
        server.close()


async def test_a_frame_the_harness_cannot_send_ends_the_link_as_the_harnesss_error_not_the_peers():
    """Our own send failing (text with no UTF-8 form) is broken, never a peer violation: the waits on the link end
    with a HarnessError that says so."""
    async def idle(ws):
        await ws.wait_closed()

    async with _linked(idle, call_timeout=20) as station:
        waiting = asyncio.create_task(station.call("Heartbeat", {}))
        await asyncio.sleep(0)
        await station.send_raw('[2,"\ud800","Heartbeat",{}]')
        with pytest.raises(HarnessError, match="could not encode its own frame") as failure:
            await asyncio.wait_for(waiting, BOUND)
        assert not isinstance(failure.value, PeerViolation) and station.harness_errors


@pytest.mark.parametrize("url, headers", [("http://127.0.0.1:9/ocpi/\ud800", {}),
                                          ("http://127.0.0.1:9/ocpi", {"X-Request-ID": "\ud800"})])
async def test_an_http_request_the_harness_cannot_encode_is_its_own_error(url, headers):
    """A URL or header taken from JSON may hold a lone surrogate, which no request can carry: broken, not a
    crash of the client nor a peer that did not answer."""
    client = HttpClient()
    try:
        with pytest.raises(HarnessError, match="cannot put this request on the wire") as failure:
            await client.request("GET", url, headers=headers)
        assert not isinstance(failure.value, (PeerViolation, NoAnswer))
    finally:
        await client.close()
