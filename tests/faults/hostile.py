"""The hostile-SUT gallery's peers: systems under test that break the wire, not a rule of a use case.

Each is a small server (a CSMS, an OCPI platform) or client (a station) that the embedded run puts
where the SUT stands (``--embedded-sut hostile:<Class>``), in the run's process and so on its virtual
clock: a peer that sleeps, trickles or waits costs no wall time. ``test_hostile_gallery.py`` plays
a slice of the suites against each and asserts that the run ends by itself, that nothing of the
harness escapes, and that each test it affects ends failed or broken with a reason naming what the
peer did. The peers speak raw WebSocket (or raw ASGI): none of the harness's own code plays them.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json

from websockets.asyncio.client import connect as ws_connect
from websockets.asyncio.server import serve
from websockets.exceptions import ConnectionClosed

from harness.reference.common import Background
from harness.reference.ocpi import OcpiPeer
from harness.transport.ws import basic_auth_header, station_url

STOP_TIMEOUT = 5.0
NOW = "2024-01-01T00:00:00Z"
BOOT_ANSWER = {"currentTime": NOW, "interval": 300, "status": "Accepted"}
DEEP = "[" * 5000 + "]" * 5000   # far past any parser's patience for nesting
HUGE = 10 * 2 ** 20              # bytes: a 10 MB frame


def _frame(text: str | bytes) -> list | None:
    try:
        frame = json.loads(text)
    except (ValueError, TypeError, RecursionError):
        return None
    return frame if isinstance(frame, list) and len(frame) >= 3 else None


def _answer(call_id: str, payload: dict) -> str:
    return json.dumps([3, call_id, payload])


class _Inert:
    """No actuator actions: a test that needs one is not applicable, never blamed on the peer."""

    def supported_actions(self) -> set[str]:
        return set()

    async def perform(self, action: str, body: dict) -> None:   # pragma: no cover - never offered
        raise NotImplementedError(action)


# ====================================================================== SUT = CSMS
class HostileCsms(_Inert):
    """A CSMS under test serving WebSocket on a port of its own; ``play(ws)`` is what it does with
    each station that connects. It agrees on the version the station offers and checks nothing."""

    def __init__(self, profile, versions):
        self.versions = list(versions)
        self._server = None

    async def start(self) -> "HostileCsms":
        self._server = await serve(self._serve, "127.0.0.1", 0, subprotocols=[v.subprotocol for v in self.versions],
                                   max_size=None, ping_interval=None, compression=None)
        return self

    @property
    def url(self) -> str:
        return f"ws://127.0.0.1:{self._server.sockets[0].getsockname()[1]}/ocpp"

    async def _serve(self, ws) -> None:
        with contextlib.suppress(ConnectionClosed):
            await self.play(ws)

    async def play(self, ws) -> None:
        raise NotImplementedError

    async def stop(self) -> None:
        self._server.close()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._server.wait_closed(), STOP_TIMEOUT)

    @staticmethod
    async def calls(ws):
        """The station's CALLs, as (id, action) pairs; whatever else it sends is ignored."""
        async for text in ws:
            frame = _frame(text)
            if frame and frame[0] == 2:
                yield frame[1], frame[2]


class SilentCsms(HostileCsms):
    """Accepts the handshake and never answers."""

    async def play(self, ws):
        async for _ in ws:
            pass


class BootThenCloseCsms(HostileCsms):
    """Answers BootNotification, then closes the connection on the next CALL."""

    async def play(self, ws):
        async for call_id, action in self.calls(ws):
            if action != "BootNotification":
                await ws.close(1011, "going away mid-dialogue")
                return
            await ws.send(_answer(call_id, BOOT_ANSWER))


class AnswersTwiceCsms(HostileCsms):
    """Answers every CALL twice (the boot's answer stands; the second is an answer to no CALL)."""

    async def play(self, ws):
        async for call_id, action in self.calls(ws):
            answer = _answer(call_id, BOOT_ANSWER if action == "BootNotification" else {})
            await ws.send(answer)
            await ws.send(answer)


class WrongIdCsms(HostileCsms):
    """Answers the boot, then every CALL with a message id of its own making."""

    async def play(self, ws):
        async for call_id, action in self.calls(ws):
            if action == "BootNotification":
                await ws.send(_answer(call_id, BOOT_ANSWER))
            else:
                await ws.send(_answer("x" + call_id[1:], {}))


class CallErrorCsms(HostileCsms):
    """Answers every CALL, the boot too, with a CALLERROR."""

    async def play(self, ws):
        async for call_id, _ in self.calls(ws):
            await ws.send(json.dumps([4, call_id, "InternalError", "no", {}]))


class GarbageCsms(HostileCsms):
    """Answers the boot, then every CALL with text that is not JSON, a binary frame and a bare array."""

    async def play(self, ws):
        async for call_id, action in self.calls(ws):
            if action == "BootNotification":
                await ws.send(_answer(call_id, BOOT_ANSWER))
                continue
            await ws.send("}{ not json at all")
            await ws.send(b"\x00\xffbinary\x00")
            await ws.send("[]")


class HugeFrameCsms(HostileCsms):
    """Answers the boot, then every CALL with a 10 MB frame."""

    async def play(self, ws):
        async for call_id, action in self.calls(ws):
            if action == "BootNotification":
                await ws.send(_answer(call_id, BOOT_ANSWER))
            else:
                await ws.send(_answer(call_id, {"data": "x" * HUGE}))


class DeepJsonCsms(HostileCsms):
    """Answers the boot, then every CALL with JSON nested thousands of levels deep."""

    async def play(self, ws):
        async for call_id, action in self.calls(ws):
            await ws.send(_answer(call_id, BOOT_ANSWER) if action == "BootNotification" else DEEP)


class FloodCsms(HostileCsms):
    """Answers every CALL, and floods the station with CALLs: bursts of a hundred, none awaited."""

    BURST, PAUSE = 100, 0.5

    async def play(self, ws):
        flood = asyncio.create_task(self._flood(ws))
        try:
            async for call_id, action in self.calls(ws):
                await ws.send(_answer(call_id, BOOT_ANSWER if action == "BootNotification" else {}))
        finally:
            flood.cancel()

    async def _flood(self, ws):
        numbers = itertools.count()
        with contextlib.suppress(ConnectionClosed):
            while True:
                for _ in range(self.BURST):
                    await ws.send(json.dumps([2, f"flood-{next(numbers)}", "ClearCache", {}]))
                await asyncio.sleep(self.PAUSE)


class PipelineCsms(HostileCsms):
    """Answers the boot, then sends five CALLs back to back before any is answered, after every CALL."""

    async def play(self, ws):
        numbers = itertools.count()
        async for call_id, action in self.calls(ws):
            await ws.send(_answer(call_id, BOOT_ANSWER if action == "BootNotification" else {}))
            for _ in range(5):
                await ws.send(json.dumps([2, f"pipe-{next(numbers)}", "ClearCache", {}]))


class NoHandshakeCsms(HostileCsms):
    """Accepts the TCP connection and never completes the WebSocket handshake."""

    async def start(self) -> "NoHandshakeCsms":
        self._server = await asyncio.start_server(self._hold, "127.0.0.1", 0)
        return self

    @staticmethod
    async def _hold(reader, writer):
        with contextlib.suppress(ConnectionError):
            while await reader.read(4096):
                pass
        writer.close()


# ====================================================================== SUT = station
class HostileStation(_Inert):
    """A station under test connecting to the harness's CSMS with the profile's identity and
    credentials; ``play(ws)`` is what it does on each connection."""

    def __init__(self, profile, version):
        self.profile, self.version = profile, version
        self.background = Background()

    async def connect(self, csms_url: str) -> None:
        password = self.profile.authorization_key if self.version.value == "ocpp1.6" else self.profile.password
        headers = {"Authorization": basic_auth_header(self.profile.identity, password)} if password else {}
        async with ws_connect(station_url(csms_url, self.profile.identity), subprotocols=[self.version.subprotocol],
                              additional_headers=headers, max_size=None, ping_interval=None) as ws:
            with contextlib.suppress(ConnectionClosed):
                await self.play(ws)

    async def play(self, ws) -> None:
        raise NotImplementedError

    async def stop(self) -> None:
        await self.background.cancel_all()

    def boot(self) -> str:
        payload = ({"chargePointVendor": "hostile", "chargePointModel": "gallery"} if self.version.value == "ocpp1.6"
                   else {"reason": "PowerUp", "chargingStation": {"vendorName": "hostile", "model": "gallery"}})
        return json.dumps([2, "boot-1", "BootNotification", payload])


class SilentStation(HostileStation):
    """Connects and is silent: no boot, no answer."""

    async def play(self, ws):
        async for _ in ws:
            pass


class ReconnectLoopStation(HostileStation):
    """Boots, then disconnects and reconnects, over and over, as long as the run lets it."""

    async def connect(self, csms_url: str) -> None:
        while True:
            with contextlib.suppress(OSError, ConnectionClosed):
                await super().connect(csms_url)
            await asyncio.sleep(0.2)

    async def play(self, ws):
        await ws.send(self.boot())
        await ws.recv()
        await ws.close()


class SchemaInvalidStation(HostileStation):
    """Boots with a payload that breaks its schema, and answers every CALL with one that breaks its own."""

    async def play(self, ws):
        await ws.send(json.dumps([2, "boot-1", "BootNotification", {"reason": 42}]))
        async for text in ws:
            frame = _frame(text)
            if frame and frame[0] == 2:
                await ws.send(_answer(frame[1], {"status": 7, "unexpected": ["field"]}))


class DeepJsonStation(HostileStation):
    """Sends JSON nested thousands of levels deep, instead of a boot and instead of every answer."""

    async def play(self, ws):
        await ws.send(DEEP)
        async for text in ws:
            if (_frame(text) or [None])[0] == 2:
                await ws.send(DEEP)


# ====================================================================== SUT = OCPI platform
class HostileOcpi(OcpiPeer):
    """An OCPI platform under test whose every answer is ``respond(send)`` (raw ASGI), whatever was asked."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.app = self._app

    async def _app(self, scope, receive, send) -> None:
        if scope["type"] == "http":
            await self.respond(scope, send)

    async def respond(self, scope, send) -> None:
        raise NotImplementedError

    @staticmethod
    async def start(send, status: int, content_type: str = "application/json", headers=()) -> None:
        await send({"type": "http.response.start", "status": status,
                    "headers": [(b"content-type", content_type.encode()), *headers]})


class SleepyOcpi(HostileOcpi):
    """Sleeps a minute before every answer."""

    async def respond(self, scope, send):
        await asyncio.sleep(60)
        await self.start(send, 200)
        await send({"type": "http.response.body", "body": b"{}"})


class Html500Ocpi(HostileOcpi):
    """Answers everything HTTP 500 with an HTML page."""

    async def respond(self, scope, send):
        await self.start(send, 500, "text/html")
        await send({"type": "http.response.body", "body": b"<html><body><h1>500 Internal Server Error</h1></body></html>"})


class HugeBodyOcpi(HostileOcpi):
    """Answers everything with a 20 MB body."""

    async def respond(self, scope, send):
        await self.start(send, 200)
        await send({"type": "http.response.body", "body": b'{"data": "' + b"x" * (2 * HUGE) + b'"}'})


class EndlessBodyOcpi(HostileOcpi):
    """Answers 200 and sends its body for ever, a kilobyte at a time."""

    async def respond(self, scope, send):
        await self.start(send, 200)
        while True:
            await send({"type": "http.response.body", "body": b" " * 1024, "more_body": True})
            await asyncio.sleep(0.05)


class RedirectLoopOcpi(HostileOcpi):
    """Redirects every request to the same URL."""

    async def respond(self, scope, send):
        location = (scope.get("path") or "/").encode()
        await self.start(send, 302, headers=[(b"location", location)])
        await send({"type": "http.response.body", "body": b""})


class SlowDripOcpi(HostileOcpi):
    """Answers a correct-looking envelope one byte every second."""

    async def respond(self, scope, send):
        await self.start(send, 200)
        for byte in json.dumps({"status_code": 1000, "data": [], "timestamp": NOW}).encode():
            await send({"type": "http.response.body", "body": bytes([byte]), "more_body": True})
            await asyncio.sleep(1)
        await send({"type": "http.response.body", "body": b""})
