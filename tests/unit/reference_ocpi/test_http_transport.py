"""harness/transport/http.py: the client logs both directions and reports no-answer as NoAnswer,
apps are reached in-process by host name or served by uvicorn on a real port (port 0)."""

import asyncio
import socket

import pytest

from harness.errors import HarnessError
from harness.transport.http import (
    HttpClient, HttpRequest, HttpResponse, HttpServer, InProcessNetwork, NoAnswer, asgi_app)
from harness.wire import WireLog


async def echo(request: HttpRequest) -> HttpResponse:
    if request.path == "/slow":
        await asyncio.sleep(1)
    return HttpResponse(201, request.body or request.method.encode(),
                        {"X-Query": ",".join(f"{k}={v}" for k, v in request.query)})


async def test_in_process_round_trip_is_logged_once_per_direction_by_each_side():
    client_log, server_log = WireLog(), WireLog()
    network = InProcessNetwork()
    base = network.add("echo", asgi_app(echo, wirelog=lambda: server_log, channel="srv"))
    client = HttpClient(transport=network, wirelog=client_log, channel="cli")
    exchange = await client.request("PUT", f"{base}/x?a=1&b=", headers={"X-Id": "7"}, body=b'{"k":\n1}')
    assert (exchange.status, exchange.response_body, exchange.header("x-query")) == (201, b'{"k":\n1}', "a=1,b=")
    assert exchange.request_header("x-id") == "7" and exchange.path == "/x"
    assert [e.direction for e in client_log.entries] == ["→", "←"]
    assert [e.direction for e in server_log.entries] == ["←", "→"]
    assert all("\n" not in e.text for e in client_log.entries + server_log.entries)
    assert client_log.entries[0].text.startswith(f"PUT {base}/x?a=1&b= {{X-Id: 7")


async def cookie_setter(request: HttpRequest) -> HttpResponse:
    return HttpResponse(200, (request.header("cookie") or "none").encode(), {"Set-Cookie": "sid=1; Path=/"})


async def test_in_process_peers_keep_no_cookie_and_a_real_sut_s_cookie_is_sent_back():
    """In-process the client keeps no cookie (no embedded peer sets one); the answer's Set-Cookie is still on the
    wire as received. Against a server on a real port httpx's jar keeps it and sends it back, as before."""
    network = InProcessNetwork()
    base = network.add("cookies", asgi_app(cookie_setter))
    client = HttpClient(transport=network)
    first = await client.request("GET", f"{base}/a")
    assert first.header("set-cookie") == "sid=1; Path=/"
    assert (await client.request("GET", f"{base}/b")).response_body == b"none"
    server = await HttpServer(asgi_app(cookie_setter)).start()
    try:
        real = HttpClient(timeout=5)
        await real.request("GET", f"{server.url}/a")
        assert (await real.request("GET", f"{server.url}/b")).response_body == b"sid=1"
        await real.close()
    finally:
        await server.stop()


async def test_unknown_in_process_host_is_no_answer():
    client = HttpClient(transport=InProcessNetwork(), wirelog=WireLog())
    with pytest.raises(NoAnswer, match="no in-process host nowhere.invalid"):
        await client.request("GET", "http://nowhere.invalid/")
    assert client.wirelog.entries[-1].direction == "·"


async def test_in_process_host_names_are_unique():
    network = InProcessNetwork()
    network.add("a", asgi_app(echo))
    with pytest.raises(HarnessError):
        network.add("a", asgi_app(echo))


async def test_real_port_round_trip_and_timeout():
    server = await HttpServer(asgi_app(echo)).start()
    try:
        assert server.port > 0 and server.url == f"http://127.0.0.1:{server.port}"
        client = HttpClient(timeout=5)
        assert (await client.request("POST", f"{server.url}/x", body=b"hi")).response_body == b"hi"
        with pytest.raises(NoAnswer, match="no answer within 0.2 s"):
            await client.request("GET", f"{server.url}/slow", timeout=0.2)
        await client.close()
    finally:
        await server.stop()
    with pytest.raises(NoAnswer):
        await HttpClient(timeout=2).request("GET", f"{server.url}/x")   # stopped: refused


async def test_a_taken_port_is_a_harness_error():
    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen()
    try:
        with pytest.raises(HarnessError, match="cannot listen"):
            await HttpServer(asgi_app(echo), "127.0.0.1", taken.getsockname()[1]).start()
    finally:
        taken.close()
