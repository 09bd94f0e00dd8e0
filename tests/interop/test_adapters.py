"""The adapters' own code. interop/common.py's entry point: an adapter's class plays the role it is started in,
a station's too (before, `cs` ran the example's own charge point, whose behaviour is ours, instead of the
implementation)."""

import asyncio
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "interop"))

import common
from run import free_ports


async def connected(url: str, server: asyncio.Task):
    """The first connection, once the server listens (it says so on stdout, which the test does not read)."""
    import websockets
    while True:
        try:
            return await websockets.connect(url, subprotocols=["ocpp1.6"], open_timeout=10)
        except OSError:
            if server.done():
                server.result()
            await asyncio.sleep(0.05)


def test_the_adapter_s_class_plays_every_role(monkeypatch):
    seen = {}

    async def main(argv, *, csms=None, station=None, doc=""):
        seen.update(argv=argv, csms=csms, station=station)

    class Implementation:
        pass

    monkeypatch.setattr(common.ocpp_lib_sut, "main", main)
    for role in ("cs", "csms", "cpo"):
        monkeypatch.setattr(sys, "argv", ["adapter.py", role, "--actuator-port", "1"])
        common.run(Implementation, "doc")
        assert seen["csms"] is Implementation and seen["station"] is Implementation
        assert seen["argv"][0] == ("cs" if role == "cs" else "csms")


async def test_ocpp_broker_s_commands_reach_a_charger_that_reconnected_before_its_old_connection_was_cleaned_up(
        monkeypatch):
    """ocpp-broker's cleanup of a connection pops its charger's id, whoever holds it by then: a charger that
    reconnected before that (a reset, or the next test's connection, on a loaded machine) was lost to its command
    API, and the interop replay's Reset test flipped to broken (CI, 2026-11-28). Here the second connection is
    opened before the first closes, which is that order made certain."""
    import websockets
    from ocpp_broker import server
    from ocpp_broker.broker import OcppBroker as Broker
    from ocpp_broker_sut import ORGANIZATION, OcppBroker

    handled = asyncio.Queue()
    original = Broker.handle_charger

    async def handle_charger(self, websocket, path):
        try:
            await original(self, websocket, path)
        finally:
            handled.put_nowait(path)

    monkeypatch.setattr(Broker, "handle_charger", handle_charger)
    adapter = OcppBroker({"station": {"identity": "RECONNECTS"}})
    (port,), stop = free_ports(1), asyncio.Event()
    running = asyncio.create_task(adapter.run(port, stop))
    try:
        url = f"ws://127.0.0.1:{port}/{ORGANIZATION}/RECONNECTS"
        first = await asyncio.wait_for(connected(url, running), 30)
        second = await websockets.connect(url, subprotocols=["ocpp1.6"], open_timeout=10)
        await first.close()
        await asyncio.wait_for(handled.get(), 10)
        assert "RECONNECTS" in server.broker.sessions, "the reconnected charger's session was lost"
        assert server.broker.sessions["RECONNECTS"]._is_charger_connected()
        await second.close()
        await asyncio.wait_for(handled.get(), 10)
        assert "RECONNECTS" not in server.broker.sessions, "a closed connection's session was kept"
    finally:
        stop.set()
        await asyncio.wait_for(running, 30)
