"""The OCPI load on loopback: a registration storm of a few eMSP peers against the reference platform of
parties, then list pulls at a rate, and the report. Real HTTP on 127.0.0.1, small N, every wait bounded."""

import base64

import httpx
import pytest

pytest.importorskip("hdrh", reason="the load mode's dependencies are the [load] extra: pip install -e \".[test,load]\"")

from harness.load import report
from harness.load.ocpi import OcpiLoad, OcpiSettings, verdict
from harness.load.ocpi_platform import platform
from harness.load.ocpi_roster import OcpiRoster
from harness.load.recorder import Recorder
from harness.ocpi.locations import Target
from harness.reference.ocpi import EMSP
from harness.transport.http import HttpServer

TIMEOUT = 10.0


async def served(parties: int):
    platform_ = platform(parties, 1, page_limit=50, call_timeout=5)
    server = await HttpServer(platform_.app, "127.0.0.1", 0).start()
    platform_.bind(server.url, (p.token_a for p in OcpiRoster(1, parties).parties))
    return platform_, server


async def play(parties, peers: int, *, hold: float, client: str = "lean"):
    settings = OcpiSettings(url=parties.versions_url, peers=peers, storm=3, rate=20, hold=hold, page_limit=2,
                            in_flight=20, call_timeout=TIMEOUT, interval=1, client=client)
    recorder = Recorder(settings.interval)
    load = OcpiLoad(settings, recorder)
    await load.run(progress=None)
    return recorder.report(settings.describe()), load


async def run(peers: int, known: int | None = None, *, hold: float = 1.0, client: str = "lean"):
    """``peers`` eMSPs against a platform that knows the roster's first ``known`` parties (all by default)."""
    parties, server = await served(known or peers)
    try:
        written, load = await play(parties, peers, hold=hold, client=client)
    finally:
        await server.stop()
        await parties.stop()
    return written, load, parties


@pytest.mark.parametrize("client", ["lean", "httpx"])
async def test_every_peer_registers_with_its_own_token_and_pulls_both_lists_page_by_page(client, tmp_path, capsys):
    written, load, parties = await run(4, client=client)

    assert parties.registered == 4, "use case: registration storm; every party of the platform registered"
    tokens_c = [peer.token_c for peer in load.peers]
    assert all(tokens_c) and len(set(tokens_c)) == 4, "each peer got a token C of its own"
    for peer in load.peers:   # the platform keeps each party's credentials under that party's token C
        party = parties.party_of(peer.token_c)
        assert party is not None, f"{peer!r}: its token C reaches no party"
        role = party.server.peer["roles"][0]
        assert (role["country_code"], role["party_id"]) == (peer.party.country_code, peer.party.party_id)
        assert party.server.peer_token == peer.token_b, f"{peer!r}: the platform keeps another peer's token B"
        assert peer.connect_backs == 2, f"{peer!r}: versions and details fetched back with its token B"
    assert parties.violations() == 0, [str(v) for p in parties.peers for v in p.violations]

    actions = written["actions"]
    for kind in ("GET versions", "GET version details", "POST credentials"):
        assert actions[kind]["count"] == 4, f"{kind}: one per peer, got {actions[kind]['count']}"
    assert actions["GET locations"]["count"] >= 2 and actions["GET sessions"]["count"] >= 2
    assert written["errors"] == {} and verdict(written, 4) == 0
    assert written["summary"]["round_trip_ms"]["GET locations"]["p99"] is not None
    assert written["summary"]["connections_held"]["peak"] == 4, "the report's gauge counts registered peers"
    assert written["processes"]["local"]["rss_mb_peak"] > 0

    data, picture = report.write(written, tmp_path)
    text = data.read_text() + report.headline(written) + capsys.readouterr().err
    secrets = [p.token_a for p in load.roster.parties] + tokens_c + [peer.token_b for peer in load.peers]
    leaked = [n for n, s in enumerate(secrets) if s in text or base64.b64encode(s.encode()).decode() in text]
    assert leaked == [], "a token is in the report or the output"
    assert picture.stat().st_size > 0 and "4 peers" in report.headline(written)


async def test_the_lists_are_followed_to_their_last_page_and_started_again():
    written, load, parties = await run(1, hold=2.0)   # ~20 GETs of the platform's 5 locations, 2 a page
    assert written["errors"] == {}
    asked = [served.exchange.url for served in parties.peers[0].served if served.module == "locations"]
    pages = [dict(part.split("=", 1) for part in url.split("?", 1)[1].split("&")).get("offset", "0") for url in asked]
    assert {"0", "2", "4"} <= set(pages), f"the Link of each page is followed to the last one: {pages}"
    assert pages.count("0") >= 2, f"after the last page the list starts again: {pages}"


async def test_credentials_are_kept_per_party_and_a_token_opens_only_its_own():
    parties, server = await served(3)
    roster = OcpiRoster(1, 3)
    try:
        _, load = await play(parties, 2, hold=0)   # the first two parties register, the third does not
        async with httpx.AsyncClient(timeout=TIMEOUT) as http:
            async def status(method, url, token, body=None):
                headers = {"Authorization": "Token " + base64.b64encode(token.encode()).decode(),
                           "X-Request-ID": "r", "X-Correlation-ID": "c"}
                return (await http.request(method, url, headers=headers, json=body)).status_code

            versions, locations = parties.versions_url, parties.peers[0].module_url("locations")
            credentials = parties.peers[0].module_url("credentials")
            assert await status("GET", versions, roster[2].token_a) == 200, "an unregistered party's token A opens"
            assert await status("GET", versions, roster[0].token_a) == 401, "a registered party's token A is spent"
            assert await status("GET", locations, roster[2].token_a) == 401, "token A opens no functional module"
            assert await status("GET", versions, "not-a-token-of-any-party") == 401
            for n, peer in enumerate(load.peers):
                assert parties.party_of(peer.token_c) is parties.peers[n], f"peer {n}'s token C reaches party {n}"
                assert await status("GET", locations, peer.token_c) == 200
                assert await status("POST", credentials, peer.token_c, {}) == 405, "registered: POST is refused"
            assert parties.party_of(roster[2].token_a) is parties.peers[2]
            assert [p.server_registered for p in parties.peers] == [True, True, False]
    finally:
        await server.stop()
        await parties.stop()


async def test_peers_the_platform_does_not_know_fail_the_run_and_are_named():
    written, load, parties = await run(3, known=2, hold=0.5)
    assert parties.registered == 2
    assert written["errors"] == {"GET versions: HTTP 401": 1}, written["errors"]
    messages = []

    class Out:
        def write(self, text):
            messages.append(text)
    assert verdict(written, 3, out=Out()) == 1
    assert "1 of 3 peers never registered" in "".join(messages) and "GET versions: HTTP 401" in "".join(messages)


async def test_cpo_peers_push_locations_and_sessions_each_under_its_own_party():
    parties = platform(3, 1, call_timeout=5, role=EMSP)
    server = await HttpServer(parties.app, "127.0.0.1", 0).start()
    parties.bind(server.url, (p.token_a for p in OcpiRoster(1, 3).parties))
    settings = OcpiSettings(url=parties.versions_url, peers=3, storm=3, rate=20, hold=1.0, in_flight=20,
                            call_timeout=TIMEOUT, interval=1, role="cpo")
    recorder = Recorder(settings.interval)
    load = OcpiLoad(settings, recorder)
    try:
        await load.run(progress=None)
    finally:
        await server.stop()
        await parties.stop()
    written = recorder.report(settings.describe())
    assert written["errors"] == {} and verdict(written, 3) == 0
    assert written["actions"]["PUT locations"]["count"] >= 3 and written["actions"]["PUT sessions"]["count"] >= 3
    assert parties.violations() == 0, [str(v) for p in parties.peers for v in p.violations]
    for n, peer in enumerate(load.peers):   # each party's Receiver holds what its own peer pushed, under its party
        party = parties.party_of(peer.token_c)
        assert party is parties.peers[n]
        stored = party.store("locations").get(peer.party.country_code, peer.party.party_id, Target(("LOC-0001",)))
        assert stored is not None, f"{peer!r}: its first Location is not in its party's store"
        others = [p for m, p in enumerate(load.peers) if m != n]
        assert all(party.store("locations").get(o.party.country_code, o.party.party_id, Target(("LOC-0001",))) is None
                   for o in others), "a party's store holds another peer's Location"


def test_the_command_line_runs_against_the_platform_process_and_exits_1_naming_the_failed_peers(tmp_path, capsys):
    """``ocpi-platform`` in a process of its own (127.0.0.1, any free port), ``ocpi-run`` with one peer more
    than it knows: the report is written, the exit status is 1 and the unknown peer is named."""
    import os
    import selectors
    import subprocess
    import sys
    from pathlib import Path

    from harness.load.__main__ import main

    repo = Path(__file__).resolve().parents[2]
    env = {**os.environ, "PYTHONPATH": str(repo)}
    platform_process = subprocess.Popen(
        [sys.executable, "-m", "harness.load", "ocpi-platform", "--peers", "2", "--port", "0", "--seconds", "120"],
        cwd=repo, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        with selectors.DefaultSelector() as selector:
            selector.register(platform_process.stdout, selectors.EVENT_READ)
            assert selector.select(timeout=60), "the platform did not start within 60 s"
        line = platform_process.stdout.readline()
        assert "versions URL: " in line, line
        url = line.rsplit("versions URL: ", 1)[1].strip()
        status = main(["ocpi-run", "--url", url, "--peers", "3", "--rate", "10", "--hold", "0.5", "--interval", "1",
                       "--storm", "3", "--call-timeout", "10", "--report", str(tmp_path)])
    finally:
        platform_process.terminate()
        platform_process.wait(30)
    err = capsys.readouterr().err
    assert status == 1 and "1 of 3 peers never registered" in err and "GET versions: HTTP 401" in err, err
    assert (tmp_path / "load.json").exists() and (tmp_path / "load.png").exists()
