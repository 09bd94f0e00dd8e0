"""A small real run: simulated stations against the reference CSMS on loopback, a few seconds each."""

import asyncio
import collections
import gc
import json
import os
import re
import signal
import socket
import subprocess
import sys
import warnings

import psutil
import pytest

pytest.importorskip("hdrh", reason="the load mode's dependencies are the [load] extra: pip install -e \".[test,load]\"")

from harness.load import report
from harness.load.__main__ import _verdict, main
from harness.load.csms import roster_csms
from harness.load.fleet import Fleet, LoadSettings
from harness.load.mix import Mix
from harness.load.recorder import Recorder
from harness.load.roster import Roster
from harness.load.station import FrameQueue, StationRunner
from harness.ocpp.versions import OcppVersion

BUSY = Mix(heartbeat=0.5, authorize_per_hour=3600, transactions_per_hour=3600, transaction_seconds=1.5,
           meter_interval=0.5)   # 1.6 keeps whole seconds: it beats and samples every second


async def run(version, *, stations, csms_seed=1, hold=2.5, mix=BUSY, known=None):
    """``known``: the CSMS knows only the roster's first ``known`` stations (all by default)."""
    csms = await roster_csms(version, Roster(csms_seed, known or stations), call_timeout=5).start()
    settings = LoadSettings(url=csms.url, stations=stations, version=version, mix=mix, ramp=40, hold=hold,
                            seed=1, call_timeout=5, interval=1)
    recorder = Recorder(settings.interval)
    try:
        await Fleet(settings, recorder).run(progress=None)
    finally:
        await csms.stop()
    return recorder.report(settings.describe()), csms


@pytest.mark.parametrize("version, transaction_messages", [
    (OcppVersion.V201, {"TransactionEvent"}),
    (OcppVersion.V16, {"StartTransaction", "StopTransaction", "MeterValues"}),
])
async def test_every_station_connects_boots_and_keeps_to_its_mix(version, transaction_messages, tmp_path):
    written, csms = await run(version, stations=20)
    assert written["errors"] == {}
    assert written["summary"]["connections_held"]["peak"] == 20
    assert set(csms.sessions) == {card.identity for card in Roster(1, 20).cards}
    actions = written["actions"]
    assert actions["connect"]["count"] == actions["BootNotification"]["count"] == 20
    assert actions["StatusNotification"]["count"] >= 20 * (1 if version.is_2x else 2)   # a connector (1.6: and 0)
    assert {"Heartbeat", "Authorize"} <= set(actions) and transaction_messages <= set(actions)
    assert written["processes"]["local"]["rss_mb_peak"] > 0
    data, picture = report.write(written, tmp_path)
    assert json.loads(data.read_text()) == json.loads(json.dumps(written))
    assert picture.read_bytes().startswith(b"\x89PNG")


async def test_a_run_whose_round_trips_all_round_to_0_ms_is_plotted_without_a_warning(tmp_path):
    """A CSMS on loopback answers within the millisecond: a log scale has nothing to draw then, and matplotlib
    warned in every run of the test above."""
    written, _ = await run(OcppVersion.V201, stations=2, hold=0.5, mix=Mix(heartbeat=0.5))
    for moment in written["timeline"]:
        for action in moment["actions"].values():
            action["p50_ms"] = action["p99_ms"] = 0
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _, picture = report.write(written, tmp_path)
    assert picture.read_bytes().startswith(b"\x89PNG")


async def test_stations_the_csms_does_not_know_are_refused_and_counted():
    written, _ = await run(OcppVersion.V201, stations=3, csms_seed=2, hold=0.2, mix=Mix(heartbeat=1))
    assert written["errors"] == {"connect refused: HTTP 404": 3}
    assert written["summary"]["connections_held"]["peak"] == 0


async def test_round_trips_while_all_held_begin_once_every_station_is_connected():
    """The steady state is measured from the moment all stations are connected, not from the last start:
    a fleet the CSMS only partly knows never has one."""
    written, _ = await run(OcppVersion.V201, stations=4, hold=2.5)
    assert {"Heartbeat", "Authorize"} <= set(written["summary"]["round_trip_ms_while_held"])
    assert "while all 4 held: " in report.headline(written)
    partly, _ = await run(OcppVersion.V201, stations=4, hold=2.5, known=2)
    assert partly["errors"] == {"connect refused: HTTP 404": partly["errors"]["connect refused: HTTP 404"]}
    assert partly["summary"]["round_trip_ms_while_held"] is None
    assert "never all 4 stations held at once" in report.headline(partly)


def test_a_run_whose_stations_never_all_connect_exits_non_zero(tmp_path, capsys):
    with socket.create_server(("127.0.0.1", 0)) as probe:
        url = f"ws://127.0.0.1:{probe.getsockname()[1]}/ocpp"   # closed once the block ends
    code = main(["run", "--url", url, "--stations", "2", "--ramp", "20", "--hold", "0.3", "--heartbeat", "1",
                 "--report", str(tmp_path)])
    assert code == 1
    assert "FAILED: the 2 stations were never all connected at once (peak 0): " in capsys.readouterr().err


def test_a_run_whose_stations_failed_exits_non_zero(capsys):
    """All held at once is not enough: a station that never booted, or any error, fails the run."""
    held = {"summary": {"round_trip_ms_while_held": {"Heartbeat": {"p50": 1.0, "p99": 2.0}}},
            "actions": {"BootNotification": {"count": 3}}, "errors": {}}
    assert _verdict(held, 3) == 0
    assert _verdict({**held, "errors": {"boot answered Rejected": 1}}, 3) == 1
    assert "FAILED: stations failed: 1 × boot answered Rejected" in capsys.readouterr().err
    assert _verdict({**held, "actions": {"BootNotification": {"count": 2}}}, 3) == 1
    assert "1 of 3 stations never booted" in capsys.readouterr().err


def test_help_lists_every_subcommand(capsys):
    with pytest.raises(SystemExit) as done:
        main(["--help"])
    assert done.value.code == 0
    assert "{run,csms,locust,roster,ocpi-locust,ocpi-run,ocpi-platform,ocpi-roster}" in capsys.readouterr().out


async def test_stations_share_several_urls_out_one_each_in_turn():
    csms = [await roster_csms(OcppVersion.V201, Roster(1, 6), call_timeout=5).start() for _ in range(2)]
    settings = LoadSettings(url=f"{csms[0].url}, {csms[1].url}", stations=6, mix=Mix(heartbeat=1), ramp=40,
                            hold=0.5, call_timeout=5, interval=1)
    recorder = Recorder(settings.interval)
    try:
        await Fleet(settings, recorder).run(progress=None)
    finally:
        for one in csms:
            await one.stop()
    cards = Roster(1, 6).cards
    assert recorder.report(settings.describe())["errors"] == {}
    assert set(csms[0].sessions) == {card.identity for card in cards[0::2]}
    assert set(csms[1].sessions) == {card.identity for card in cards[1::2]}


def test_a_url_in_the_list_that_is_no_websocket_url_is_refused_by_name():
    with pytest.raises(ValueError, match="'http://127.0.0.1:9/ocpp' is no WebSocket URL"):
        LoadSettings(url="ws://127.0.0.1:9/ocpp,http://127.0.0.1:9/ocpp", stations=2)


def test_a_csms_of_two_processes_serves_both_ports_and_stops_the_other_with_itself(tmp_path):
    """``csms --processes 2``: one line naming both URLs once both listen; a fleet held over both; SIGTERM to
    the first process ends the second too."""
    csms = subprocess.Popen([sys.executable, "-m", "harness.load", "csms", "--stations", "4", "--port", "0",
                             "--processes", "2", "--seconds", "60"], stdout=subprocess.PIPE, text=True,
                            env={**os.environ, "PYTHONPATH": os.getcwd()})
    try:
        line = csms.stdout.readline()
        urls = line.rsplit(" listening on ", 1)[1].strip()
        ports = re.fullmatch(r"ws://127\.0\.0\.1:(\d+)/ocpp,ws://127\.0\.0\.1:(\d+)/ocpp", urls).groups()
        assert len(set(ports)) == 2 and "0" not in ports, line
        second = psutil.Process(csms.pid).children()
        assert len(second) == 1
        code = main(["run", "--url", urls, "--stations", "4", "--ramp", "40", "--hold", "0.5", "--heartbeat", "1",
                     "--report", str(tmp_path)])
        assert code == 0
        csms.send_signal(signal.SIGTERM)
        assert csms.wait(30) == 0
        second[0].wait(30)       # psutil: gone, or raises TimeoutExpired
        assert not second[0].is_running()
    finally:
        if csms.poll() is None:
            csms.kill()


@pytest.mark.parametrize("version", [OcppVersion.V16, OcppVersion.V201, OcppVersion.V21])
async def test_a_connected_load_station_keeps_its_attributes_in_the_shared_key_table(version):
    """CPython shares one key table among a class's instances for up to ~30 attributes set in the same order; one
    more, and every station takes a dictionary of its own (~1.3 KB more, on ~19 KB a station). A block adding
    state a connected station holds has to fit (``common.store`` for what most stations never touch)."""
    csms = await roster_csms(version, Roster(1, 6), call_timeout=5).start()
    settings = LoadSettings(url=csms.url, stations=6, version=version, mix=Mix(heartbeat=1), ramp=100, hold=3,
                            call_timeout=5, interval=1)
    fleet = Fleet(settings, Recorder(settings.interval))
    run_task = asyncio.create_task(fleet.run(progress=None))
    try:
        async with asyncio.timeout(10):
            while fleet.connected < 6:
                await asyncio.sleep(0.05)
        await asyncio.sleep(0.3)                 # booted and reported: what a held station has set by now
        # type(), not isinstance(): a dead weakref proxy among the process's objects raises on isinstance
        stations = [o.station for o in gc.get_objects() if issubclass(type(o), StationRunner)]
        sizes = {len(vars(s)): sys.getsizeof(vars(s)) for s in stations}
        assert len(stations) == 6 and all(size < 1024 for size in sizes.values()), (
            f"a station's own dictionary (attributes: bytes): {sizes}")
        queues = {type(s.connection.ws.recv_messages.frames.queue).__name__ for s in stations}
        assert queues == {"FrameQueue"}, f"websockets' queue of incoming frames is a {queues} (~0.7 KB a deque)"
    finally:
        await run_task
        await csms.stop()


@pytest.mark.parametrize("ops", [
    [("append", 1), ("append", 2), ("popleft",), ("append", 3), ("popleft",), ("popleft",)],
    [("append", 1), ("extendleft", [7, 8, 9]), ("popleft",), ("append", 2), ("extendleft", (5,)), ("popleft",)],
    [("extendleft", reversed([1, 2, 3])), ("popleft",), ("extendleft", reversed([4])), ("popleft",), ("popleft",)],
])
def test_the_frame_queue_of_a_load_station_is_what_a_deque_is_for_websockets(ops):
    """websockets' SimpleQueue appends, pops from the left, puts frames back with ``extendleft(reversed(...))``,
    and reads its length; the list a load station gives it in place of a deque does the same."""
    ours, theirs = FrameQueue(), collections.deque()
    for name, *args in ops:
        copied = [list(a) if not isinstance(a, int) else a for a in args]   # a reversed() iterator is read once
        assert getattr(ours, name)(*copied) == getattr(theirs, name)(*copied)
        assert list(ours) == list(theirs) and len(ours) == len(theirs) and bool(ours) == bool(theirs)
