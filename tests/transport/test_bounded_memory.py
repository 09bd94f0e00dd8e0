"""Bounded memory: a connection keeps its newest exchanges, a server only its open connections and its
newest handshakes, a wire log its newest entries, and marks stay valid while the oldest go."""

import asyncio

import pytest

from harness.errors import CLIPPED, KEPT_MESSAGE, PeerViolation
from harness.ocpp.rpc import Rpc
from harness.ocpp.versions import OcppVersion
from harness.transport import ws
from harness.transport.ledger import Ledger, Violations
from harness.transport.ws import OcppServer, open_station
from harness.wire import WireLog

V201 = OcppVersion.V201
HEARTBEAT = {"currentTime": "2024-01-01T00:00:00Z"}


# ----------------------------------------------------------------------------- the ledger
def test_positions_count_every_entry_while_only_the_newest_are_kept():
    """A mark taken with len() keeps meaning the same point after older entries are dropped."""
    ledger = Ledger(keep=3)
    for letter in "abcde":
        ledger.append(letter)
    assert (len(ledger), ledger.kept, list(ledger)) == (5, 3, ["c", "d", "e"])
    assert (ledger[2], ledger[4], ledger[-1]) == ("c", "e", "e")
    assert (ledger[3:], ledger[0:], ledger[:4]) == (["d", "e"], ["c", "d", "e"], ["c", "d"])
    assert ledger.index("d") == 3 and list(reversed(ledger)) == ["e", "d", "c"]


def test_an_entry_no_longer_kept_says_why():
    """Reading a dropped position fails with the bound and the fix; a position not reached yet says so."""
    ledger = Ledger(keep=2)
    for n in range(4):
        ledger.append(n)
    with pytest.raises(IndexError, match="entry 1 is no longer kept: only the newest 2 of 4 are"):
        ledger[1]
    with pytest.raises(IndexError, match="no entry 4: 4 so far"):
        ledger[4]
    with pytest.raises(ValueError, match="not among the 2 entries kept"):
        ledger.index(0)


def test_a_forgotten_entry_leaves_the_others_positions_alone():
    """A server forgets a closed connection: the count and the other positions do not move."""
    ledger = Ledger()
    for name in ("first", "second", "third"):
        ledger.append(name)
    ledger.forget(1)
    ledger.forget(1)
    assert (len(ledger), list(ledger), ledger[2], ledger[1:]) == (3, ["first", "third"], "third", ["third"])


def test_iterating_sees_a_snapshot():
    """Entries that come while a caller iterates do not break the iteration."""
    ledger = Ledger(keep=2)
    ledger.append(1)
    for entry in ledger:
        ledger.append(entry + 1)
    assert list(ledger) == [1, 2]


def test_a_ledger_counts_what_its_cap_dropped_but_not_what_its_owner_forgot():
    """``dropped`` is what a report must state as not kept; ``remove`` and ``clear`` are the owner's choice."""
    ledger = Ledger(keep=2)
    for letter in "abcd":
        ledger.append(letter)
    ledger.remove("c")
    assert (list(ledger), ledger.dropped, len(ledger)) == (["d"], 2, 4)
    ledger.clear()
    ledger.append("e")
    assert (list(ledger), ledger.dropped, ledger[4]) == (["e"], 2, "e")


def test_a_ledger_keeps_at_least_one_entry():
    with pytest.raises(ValueError, match="at least one"):
        Ledger(keep=0)


def test_a_kept_violation_holds_no_traceback_and_what_it_shows_cut():
    """A violation raised from deep in the parser holds, through its traceback, every frame's locals (the
    peer's whole message): kept, it holds its message and its values cut as they are shown, and begins the same."""
    huge = {"items": list(range(200_000))}

    def parse(text):
        try:
            raise ValueError(text)
        except ValueError:
            raise PeerViolation(Rpc.schema, f"the payload breaks its schema: {huge} is too long",
                                expected="at most 1024 items", actual=huge) from None

    with pytest.raises(PeerViolation) as caught:
        parse("x" * 1_000_000)
    violation = caught.value
    shown = str(violation)
    violations = Violations(keep=2)
    violations.append(violation)
    kept = violations[0]
    assert kept is violation and str(kept)[:1000] == shown[:1000]
    assert len(str(kept)) < KEPT_MESSAGE + 2 * CLIPPED and len(shown) > 1_000_000
    assert (kept.__traceback__, kept.__context__, kept.__cause__) == (None, None, None)
    assert kept.expected == "at most 1024 items" and len(repr(kept.actual)) < CLIPPED + 60
    assert "cut:" in repr(kept.actual)


def test_a_small_value_is_kept_as_it_is():
    violation = PeerViolation(Rpc.matches, "answer to no CALL of ours", expected="id-1", actual=["a", 2])
    assert Violations().append(violation) == 0 and violation.actual == ["a", 2] and violation.expected == "id-1"


# ----------------------------------------------------------------------------- the wire log
def test_the_wire_log_keeps_its_newest_entries_and_says_what_it_dropped():
    """Within its bounds the log is complete; past them the oldest go and the rendered log says so first."""
    log = WireLog(max_entries=3)
    for n in range(5):
        log.sent("CS1", f"[2,\"{n}\",\"Heartbeat\",{{}}]")
    lines = log.render().splitlines()
    assert len(lines) == 4 and lines[0].startswith("… 2 earlier entries (44 characters) not kept")
    assert "keeps the newest 3 entries" in lines[0] and lines[-1].endswith('[2,"4","Heartbeat",{}]')
    assert log.render(last=2).splitlines()[0].endswith('[2,"3","Heartbeat",{}]')


def test_the_wire_log_is_bounded_in_characters_too():
    """One huge frame pushes older ones out; the newest entry is kept whatever its size."""
    log = WireLog(max_chars=100)
    log.received("CS1", "a" * 60)
    log.received("CS1", "b" * 60)
    log.received("CS1", "c" * 200)
    assert [entry.text[0] for entry in log.entries] == ["c"] and (log.dropped, log.dropped_chars) == (2, 120)


def test_a_log_within_its_bounds_has_no_truncation_line():
    log = WireLog()
    log.event("CS1", "connected")
    assert log.render().count("\n") == 0 and "not kept" not in log.render()


# ----------------------------------------------------------------------------- connections and servers
async def _server(**options) -> OcppServer:
    async def heartbeat(call):
        return HEARTBEAT
    return await OcppServer(versions=[V201], on_connect=lambda identity, version: (heartbeat, None),
                            **options).start()


async def test_a_connection_keeps_its_newest_exchanges_and_still_matches_every_answer():
    """History bounded by count: marks stay valid, and an answer finds its CALL however old the history is."""
    server = await _server(history_kept=2)
    station = (await open_station(server.url, "CS1", versions=[V201], handler=None, call_timeout=5)).connection
    try:
        for _ in range(5):
            assert await asyncio.wait_for(station.call("Heartbeat", {}), 5) == HEARTBEAT
        harness_side = server.connections[0]
        assert (len(harness_side.history), harness_side.history.kept) == (5, 2)
        assert all(e.answered for e in harness_side.history) and harness_side.history[4].action == "Heartbeat"
        assert await harness_side.wait_for_call("Heartbeat", 1, start=3) is harness_side.history[3]
    finally:
        await station.close()
        await server.stop()


async def test_a_server_forgets_closed_connections_and_counts_every_one(monkeypatch):
    """Closed connections leave ``connections``; ``len()`` still counts every one accepted, so
    ``wait_connection(after=n)`` finds the next; handshakes and refusals keep the newest only."""
    monkeypatch.setattr(ws, "HANDSHAKES_KEPT", 2)
    server = await _server(accept_identity=lambda identity: identity != "stranger")
    stations = []
    try:
        for name in ("CS1", "CS2", "CS3"):
            stations.append((await open_station(server.url, name, versions=[V201], handler=None)).connection)
            assert await server.wait_connection(5, after=len(stations) - 1) is not None
        for _ in range(2):
            assert (await open_station(server.url, "stranger", versions=[V201], handler=None)).status == 404
        closing = list(server.connections)[:2]
        for station in stations[:2]:
            await station.close()
        for harness_side in closing:
            assert await harness_side.wait_closed(5)
        assert [c.identity for c in server.connections] == ["CS3"] and len(server.connections) == 3
        later = server.wait_connection(5, after=3)
        stations.append((await open_station(server.url, "CS4", versions=[V201], handler=None)).connection)
        assert (await later).identity == "CS4"
        assert [h.identity for h in server.handshakes] == ["stranger", "CS4"] and len(server.handshakes) == 6
        assert list(server.refused) == [("stranger", 404), ("stranger", 404)]
    finally:
        for station in stations:
            await station.close()
        await server.stop()


async def test_a_connection_keeps_its_newest_violations_and_counts_the_others(monkeypatch):
    """A peer that breaks a rule with every frame cannot grow the connection's violations without bound:
    the newest are kept, the count of the others is what the verdict states."""
    monkeypatch.setattr(ws, "VIOLATIONS_KEPT", 3)
    server = await _server()
    station = (await open_station(server.url, "CS1", versions=[V201], handler=None, call_timeout=5)).connection
    try:
        for n in range(5):
            await station.send_raw(f'[2,"bad{n}","NoSuchAction",{{}}]', reply_id=f"bad{n}")
        harness_side = server.connections[0]
        assert (len(harness_side.violations), harness_side.violations.kept, harness_side.violations.dropped) == (5, 3, 2)
        assert [v.actual for v in harness_side.violations] == ["NoSuchAction"] * 3
    finally:
        await station.close()
        await server.stop()
