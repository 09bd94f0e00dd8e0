"""The arena hands back what a station under test started, whatever became of the connection it started on:
a transaction remote-started before the station rebooted is stopped, when the test ends, on the connection
the station opened after (the embedded reference station, over loopback)."""

import asyncio
from pathlib import Path

from harness import profile as profiles
from harness.arena.ocpp import ArenaOptions, OcppArena, Target
from harness.wire import WireLog

REFERENCE = Path(__file__).resolve().parents[2] / "harness" / "profiles" / "reference.toml"


async def test_a_transaction_started_before_a_reboot_is_stopped_on_the_new_connection():
    arena = await OcppArena(Target("cs", "ocpp2.0.1"), profiles.load(REFERENCE), WireLog(), ArenaOptions()).open()
    try:
        start = arena.mark()
        answer = await arena.call_sut("RequestStartTransaction", {
            "remoteStartId": 1, "evseId": 1, "idToken": {"idToken": "HANDBACK01", "type": "Central"}})
        assert answer.response["status"] == "Accepted"
        started = await arena.link.wait_for_call("TransactionEvent", 5, start=start)
        transaction_id = started.request["transactionInfo"]["transactionId"]
        first = arena.link
        await arena.standin.connection.close()   # the station reboots: a new connection, the old one is gone
        assert await arena.harness.server.wait_connection(5, after=arena.connections()) is not None
        assert first.closed and arena.link is first
    finally:
        await asyncio.wait_for(arena.tidy(), 30)
    try:
        stop = [e for e in arena.link.history if not e.incoming and e.action == "RequestStopTransaction"]
        assert arena.link is not first and [e.request["transactionId"] for e in stop] == [transaction_id]
        assert all(evse.transaction is None for evse in arena.standin.evses.values())
    finally:
        await arena.close()
