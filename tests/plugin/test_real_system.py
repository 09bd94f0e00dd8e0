"""A run against a real system, as its user meets it: an unreachable SUT or a busy port stops the
run in one line; URLs, the profile and the options are refused all at once, with the fix and
without a secret; a CSMS that refuses the profile's station at a test's setup breaks the test
(the profile is to fix), never fails it."""

import asyncio
import base64
import contextlib
import hashlib
import json
import socket
import textwrap
import time
import xml.etree.ElementTree as ET

import pytest
import suite_runner

from harness.errors import HarnessError
from harness.ocpp.versions import OcppVersion
from harness.reference import references_for
from harness.settings import reference_profile
from harness.transport.ws import open_station

PROFILE = """
[sut]
name = "Acme CSMS"
[station]
identity = "ACME-1"
password = "acme-password-000001"
"""


def _profile(pytester, text=PROFILE):
    return str(pytester.makefile(".toml", sut=textwrap.dedent(text)))


def _closed_port() -> int:
    with socket.create_server(("127.0.0.1", 0)) as probe:
        return probe.getsockname()[1]


def _one_line(result) -> str:
    """The run's whole output, which must be one line (pytest-asyncio's deprecation notice aside)."""
    lines = [line for line in result.outlines + result.errlines
             if line.strip() and "asyncio_default_fixture_loop_scope" not in line
             and "loop scope for asynchronous fixtures" not in line and "warnings.warn(" not in line]
    assert len(lines) == 1, lines
    return lines[0]


# ---------------------------------------------------------------------------- unreachable
def test_an_unreachable_csms_stops_the_run_at_once_in_one_line(pytester):
    pytester.makepyfile("def test_one():\n    pass\n\ndef test_two():\n    pass\n")
    url = f"ws://127.0.0.1:{_closed_port()}/ocpp"
    result = pytester.runpytest_subprocess("--sut", "csms", "--sut-url", url, "--protocol", "ocpp2.0.1",
                                           "--sut-profile", _profile(pytester))
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert _one_line(result) == (f"ERROR: the CSMS under test is unreachable at {url}: Connection refused; "
                                 f"start it, or fix --sut-url")


def test_an_unreachable_ocpi_platform_stops_the_run_in_one_line(pytester):
    pytester.makepyfile("def test_one():\n    pass\n")
    url = f"http://127.0.0.1:{_closed_port()}/ocpi/versions"
    result = pytester.runpytest_subprocess("--sut", "cpo", "--sut-url", url, "--sut-profile", _profile(pytester))
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert _one_line(result).startswith(f"ERROR: the OCPI platform under test is unreachable at {url}: ")


def test_a_listen_port_in_use_stops_the_run_in_one_line(pytester):
    pytester.makepyfile("def test_one():\n    pass\n")
    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = taken.getsockname()[1]
        result = pytester.runpytest_subprocess("--sut", "cs", "--listen", f"127.0.0.1:{port}", "--protocol",
                                               "ocpp2.0.1", "--sut-profile", _profile(pytester))
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert _one_line(result) == (f"ERROR: the harness cannot listen on 127.0.0.1:{port}: Address already in use; "
                                 f"free the port, or choose --listen")


def test_collecting_only_does_not_probe_the_sut(pytester):
    pytester.makepyfile("def test_one():\n    pass\n")
    result = pytester.runpytest("--sut", "csms", "--sut-url", f"ws://127.0.0.1:{_closed_port()}/ocpp",
                                "--protocol", "ocpp2.0.1", "--sut-profile", _profile(pytester), "--collect-only")
    assert result.ret == pytest.ExitCode.OK


# ---------------------------------------------------------------------------- refused before the run
@pytest.mark.parametrize("args, message", [
    (["--sut", "csms", "--sut-url", "http://csms.example/ocpp", "--protocol", "ocpp2.0.1"],
     "--sut-url 'http://csms.example/ocpp' is not a ws:// or wss:// URL; write it like ws://csms.example:9000/ocpp"),
    (["--sut", "csms", "--sut-url", "csms.example:9000", "--protocol", "ocpp2.0.1"],
     "--sut-url 'csms.example:9000' is not a ws:// or wss:// URL"),
    (["--sut", "csms", "--sut-url", "ws://csms.example:99999/ocpp", "--protocol", "ocpp2.0.1"],
     "--sut-url 'ws://csms.example:99999/ocpp' has no valid port"),
    (["--sut", "cpo", "--sut-url", "ws://cpo.example/ocpi/versions"],
     "--sut-url 'ws://cpo.example/ocpi/versions' is not a http:// or https:// URL; write it like "
     "https://cpo.example/ocpi/versions"),
    (["--sut", "cs", "--protocol", "ocpp2.0.1", "--actuator", "http", "--actuator-url", "sut-test:9100"],
     "--actuator-url 'sut-test:9100' is not a http:// or https:// URL"),
])
def test_a_wrong_url_is_refused_with_the_fix(pytester, args, message):
    result = pytester.runpytest(*args, "--sut-profile", _profile(pytester))
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert message in result.stderr.str()


def test_a_wrong_url_in_the_profile_is_refused_naming_its_key(pytester):
    profile = _profile(pytester, PROFILE.replace('[sut]', '[sut]\nrole = "csms"\nprotocol = "ocpp2.0.1"\n'
                                                          'url = "https://csms/x"'))
    result = pytester.runpytest("--sut-profile", profile)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "[sut] url in the profile 'https://csms/x' is not a ws:// or wss:// URL" in result.stderr.str()


def test_every_problem_of_the_profile_and_the_options_is_shown_at_once_without_a_secret(pytester):
    profile = _profile(pytester, """
        [station]
        passwrd = "x"
        password = "secret-pw-15chr"
        [timeouts]
        call = 0
        """)
    result = pytester.runpytest("--sut", "csms", "--sut-url", "http://csms/ocpp", "--protocol", "ocpp2.0.1",
                                "--listen", "nowhere", "--sut-profile", profile)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([
        "ERROR: 6 problems stop the run before any test:",
        "  - profile *: unknown key station.passwrd; remove it or fix its spelling (known keys: *)",
        "  - profile *: station.password is too short: write at least 16 characters",
        "  - profile *: timeouts.call: write a number more than 0, not 0",
        "  - --sut-url 'http://csms/ocpp' is not a ws:// or wss:// URL; write it like ws://csms.example:9000/ocpp",
        "  - [[]station[]] identity is missing: the station the harness plays, as the CSMS under test knows it; "
        "add identity = \"...\" under [[]station[]] in the profile",
        "  - --listen 'nowhere' is not HOST:PORT; write it like 127.0.0.1:9000"])
    assert "secret-pw-15chr" not in result.stderr.str() + result.stdout.str()


@pytest.mark.parametrize("role", ["csms", "cs"])
def test_a_real_station_needs_its_identity(pytester, role):
    """No CS001 stands in for a missing identity: the CSMS under test would not know it."""
    profile = _profile(pytester, "[sut]\nname = \"x\"\n")
    result = pytester.runpytest("--sut", role, "--sut-url", "ws://csms.example/ocpp", "--protocol", "ocpp2.0.1",
                                "--sut-profile", profile)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "[station] identity is missing" in result.stderr.str()


def test_a_16_profile_with_a_password_instead_of_the_authorization_key_is_refused(pytester):
    result = pytester.runpytest("--sut", "csms", "--sut-url", "ws://csms.example/ocpp", "--protocol", "ocpp1.6",
                                "--sut-profile", _profile(pytester))
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*[[]station[]] password is not how OCPP 1.6 authenticates: its Basic-auth "
                                 "password is the AuthorizationKey, 20 bytes; write it as [[]station[]] "
                                 "authorization_key = \"<40 hex digits>\"*"])
    assert "acme-password-000001" not in result.stderr.str()


# ---------------------------------------------------------------------------- refused at a test's setup
SETUP_SUITE = """
from harness.rules import RuleTable, must
from harness.suite import case, checks


class SETUP(RuleTable):
    linked = must("spec 000 demo", "the harness's station is connected")


pytestmark = case("SETUP", block="Demo", roles=("csms",), protocols=("ocpp2.0.1", "ocpp1.6"))


@checks(SETUP.linked)
async def test_setup_connects(ocpp):
    pass
"""

REFERENCE = reference_profile()
RUN_LIMIT = 120.0   # seconds for one run, however it goes


@pytest.mark.parametrize("protocol, station, reason", [
    ("ocpp2.0.1", f'identity = "{REFERENCE.identity}"\npassword = "not-the-reference-password"',
     f"the CSMS refused the password from [station] {REFERENCE.identity} (HTTP 401); check [station] password "
     f"in the profile"),
    ("ocpp2.0.1", f'identity = "{REFERENCE.identity}"',
     f"the CSMS asks station {REFERENCE.identity} for a password (HTTP 401) and the profile gives none; add "
     f"[station] password to the profile"),
    ("ocpp2.0.1", f'identity = "CS404"\npassword = "{REFERENCE.password}"',
     "the CSMS does not know station CS404 at ws://"),
    ("ocpp1.6", f'identity = "{REFERENCE.identity}"\nauthorization_key = "{"0f" * 20}"',
     f"the CSMS refused the password from [station] {REFERENCE.identity} (HTTP 401); check [station] "
     f"authorization_key in the profile"),
], ids=["wrong password", "no password", "unknown identity", "wrong 1.6 key"])
async def test_a_station_the_csms_refuses_at_setup_is_broken_with_the_fix(pytester, protocol, station, reason):
    csms = await references_for(OcppVersion.parse(protocol))[0](REFERENCE, [OcppVersion.parse(protocol)]).start()
    try:
        pytester.makepyfile(test_setup=SETUP_SUITE)
        profile = _profile(pytester, f"[station]\n{station}\n[actuator]\nkind = \"http\"\n"
                                     f"base_url = \"http://127.0.0.1:1\"\n")
        # a session forked warm (suite_runner.py), on the real clock of the CSMS this process serves
        await asyncio.to_thread(suite_runner.run, pytester.path, [
            "--sut", "csms", "--sut-url", csms.url, "--protocol", protocol, "--sut-profile", profile,
            "--reports-dir", "out"], RUN_LIMIT, suite_runner.REAL_CLOCK)
    finally:
        await csms.stop()
    summary = json.loads((pytester.path / "out" / "conformance.json").read_text())
    [verdict] = summary["results"]
    assert verdict["verdict"] == "broken", verdict
    assert reason in verdict["reason"]


# ---------------------------------------------------------------------------- a station the harness refuses
STATION_SUITE = """
from harness.rules import RuleTable, must
from harness.suite import case, checks


class LINKED(RuleTable):
    linked = must("spec 000 demo", "the station under test is connected", by="cs")


pytestmark = case("LINKED", block="Demo", roles=("cs",), protocols=("ocpp2.0.1",))


@checks(LINKED.linked)
async def test_first(ocpp):
    pass


@checks(LINKED.linked)
async def test_second(ocpp):
    pass


@checks(LINKED.linked)
async def test_third(ocpp):
    pass
"""
RETRY_EVERY = 0.2   # seconds between a refused station's attempts (real stations back off longer)


async def _station_with_a_wrong_password(url: str) -> None:
    """A station under test whose password is not the profile's: it retries for as long as it runs."""
    while True:
        try:
            handshake = await open_station(url, "ACME-1", versions=[OcppVersion.V201], handler=None,
                                           password="not-the-profile-password")
        except HarnessError:   # the harness does not listen yet
            handshake = None
        if handshake is not None and handshake.connection is not None:
            await handshake.connection.close()
        await asyncio.sleep(RETRY_EVERY)


async def test_a_station_the_harness_refuses_is_named_with_the_fix_and_stops_the_run(pytester):
    """Not "no station connected" for every test, each after the connect timeout: the refusal, its status and
    why, and the run stops once the station was refused REFUSALS_BEFORE_STOP times in a row."""
    port = _closed_port()
    pytester.makepyfile(test_linked=STATION_SUITE)
    profile = _profile(pytester, PROFILE + "[timeouts]\nconnect = 2\n[actuator]\nkind = \"http\"\n"
                                           "base_url = \"http://127.0.0.1:1\"\n")
    station = asyncio.create_task(_station_with_a_wrong_password(f"ws://127.0.0.1:{port}/ocpp"))
    try:
        result = await asyncio.to_thread(suite_runner.run, pytester.path, [
            "--sut", "cs", "--listen", f"127.0.0.1:{port}", "--protocol", "ocpp2.0.1", "--sut-profile", profile,
            "--reports-dir", "out"], RUN_LIMIT, suite_runner.REAL_CLOCK)
    finally:
        station.cancel()
    summary = json.loads((pytester.path / "out" / "conformance.json").read_text())
    [verdict] = summary["results"]
    assert verdict["verdict"] == "broken", verdict
    assert verdict["reason"].startswith("prerequisite failed: the harness refused station ACME-1 ")
    assert verdict["reason"].endswith(" (HTTP 401): its Basic-auth password is not the profile's [station] password; "
                                      "give the station and [station] password in the profile the same password")
    assert summary["interrupted"] is True and summary["not_run"] == 2
    result.stdout.fnmatch_lines(["*Interrupted: the run stops: * connections refused in a row, and every test left "
                                 "would break alike; the harness refused station ACME-1 *"])
    assert "not-the-profile-password" not in result.stdout.str() + json.dumps(summary)


# ---------------------------------------------------------------------------- bounded waits
async def _stall_upgrades_with_credentials(reader, writer):
    """A CSMS whose upgrades hang once a station presents itself; a probe without credentials is upgraded.
    Either way it holds the connection until the client goes."""
    try:
        head = await reader.readuntil(b"\r\n\r\n")
    except asyncio.IncompleteReadError:   # a probe of the port alone
        writer.close()
        return
    headers = dict(line.split(": ", 1) for line in head.decode().split("\r\n")[1:] if ": " in line)
    if "Authorization" not in headers:
        accept = base64.b64encode(hashlib.sha1(headers["Sec-WebSocket-Key"].encode()
                                               + b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11").digest()).decode()
        writer.write(f"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                     f"Sec-WebSocket-Accept: {accept}\r\nSec-WebSocket-Protocol: ocpp2.0.1\r\n\r\n".encode())
    with contextlib.suppress(ConnectionError):
        await reader.read()
    writer.close()


async def test_a_csms_that_never_completes_the_handshake_costs_the_connect_timeout_in_one_line(pytester):
    """Not a hard-coded 10 s and the WebSocket library's traceback per test: [timeouts] connect, and the
    reason alone in JUnit."""
    pytester.makepyfile(test_setup=SETUP_SUITE.replace("async def test_setup_connects(ocpp):\n    pass",
                                                       "async def test_setup_connects(ocpp):\n    pass\n\n\n"
                                                       "@checks(SETUP.linked)\nasync def test_again(ocpp):\n"
                                                       "    pass"))
    profile = _profile(pytester, PROFILE + "[timeouts]\nconnect = 1\n[actuator]\nkind = \"http\"\n"
                                           "base_url = \"http://127.0.0.1:1\"\n")
    async with await asyncio.start_server(_stall_upgrades_with_credentials, "127.0.0.1", 0) as csms:
        url = f"ws://127.0.0.1:{csms.sockets[0].getsockname()[1]}/ocpp"
        started = time.monotonic()
        await asyncio.to_thread(suite_runner.run, pytester.path, [
            "--sut", "csms", "--sut-url", url, "--protocol", "ocpp2.0.1", "--sut-profile", profile,
            "--reports-dir", "out", "--junitxml", "junit.xml"], RUN_LIMIT, suite_runner.REAL_CLOCK)
        took = time.monotonic() - started
    reason = (f"cannot open a WebSocket to {url}/ACME-1: the connection and its upgrade did not complete within 1 s "
              f"([timeouts] connect in the profile); check that a WebSocket server answers at this URL")
    summary = json.loads((pytester.path / "out" / "conformance.json").read_text())
    assert [(r["verdict"], r["reason"]) for r in summary["results"]] == [("broken", reason)] * 2
    errors = list(ET.parse(pytester.path / "junit.xml").getroot().iter("error"))
    assert [(e.get("message"), e.text) for e in errors] == [(reason, reason)] * 2
    assert took < 10, f"two tests took {took:.1f} s"


HANGS = """
import asyncio
import time

import pytest


def test_sleeps():
    time.sleep(60)


@pytest.mark.asyncio
@pytest.mark.real_clock("waits for what never comes")
async def test_waits_for_ever():
    await asyncio.Event().wait()


def test_passes():
    pass
"""


def test_max_test_time_ends_a_hanging_test_as_broken_and_the_run_goes_on(pytester):
    pytester.makepyfile(test_hangs=HANGS)
    pytester.makeini("[pytest]\nmax_test_time = 1\n")
    started = time.monotonic()
    result = pytester.runpytest_subprocess("--reports-dir", "out", "--junitxml", "junit.xml", timeout=RUN_LIMIT)
    assert time.monotonic() - started < 30
    result.assert_outcomes(passed=1, errors=2)
    reason = ("the test ran past --max-test-time 1 s and was ended; raise the limit if the SUT needs longer, else its "
              "wire log shows what the test waited for")
    cases = {c.get("name"): c for c in ET.parse(pytester.path / "junit.xml").getroot().iter("testcase")}
    for name in ("test_sleeps", "test_waits_for_ever"):
        [error] = [child for child in cases[name] if child.tag in ("error", "failure")]
        assert (error.tag, error.get("message")) == ("error", reason), name


def test_a_max_test_time_that_is_no_duration_is_refused(pytester):
    result = pytester.runpytest("--max-test-time", "soon")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "--max-test-time 'soon' is not a number of seconds above 0; write it like 300" in result.stderr.str()


# ---------------------------------------------------------------------------- a preflight that speaks the protocol
def _accept(head: bytes) -> str:
    key = next(line.split(b": ", 1)[1] for line in head.split(b"\r\n") if line.lower().startswith(b"sec-websocket-key"))
    return base64.b64encode(hashlib.sha1(key + b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11").digest()).decode()


def _plain_http(head: bytes) -> list[bytes]:
    return [b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"]


def _huge_header(head: bytes) -> list[bytes]:
    return [b"HTTP/1.1 101 Switching Protocols\r\nX-Padding: " + b"a" * 2 ** 20 + b"\r\n\r\n"]


def _no_subprotocol(head: bytes) -> list[bytes]:
    return [f"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            f"Sec-WebSocket-Accept: {_accept(head)}\r\n\r\n".encode()]


def _trickled_body(head: bytes) -> list[bytes]:
    return [b"HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n"] + [b"{"] * 100


def _huge_http_header(head: bytes) -> list[bytes]:
    return [b"HTTP/1.1 200 OK\r\nX-Padding: " + b"a" * 2 ** 20 + b"\r\nContent-Length: 2\r\n\r\n{}"]


def _silence(head: bytes) -> list[bytes]:
    return []


def _serving(answer):
    async def serve_one(reader, writer):
        with contextlib.suppress(ConnectionError, asyncio.IncompleteReadError):
            head = await reader.readuntil(b"\r\n\r\n")
            for part in answer(head):
                writer.write(part)
                await writer.drain()
                await asyncio.sleep(0.2)   # a trickle, when the answer comes in parts
            await reader.read()
        writer.close()
    return serve_one


@pytest.mark.parametrize("answer, role, scheme, line", [
    (_plain_http, "csms", "ws", "answered the WebSocket upgrade with HTTP 200 and did not upgrade: is it plain HTTP?"),
    (_huge_header, "csms", "ws", "sent an oversized HTTP header in its answer"),
    (_no_subprotocol, "csms", "ws", "upgraded without the subprotocol ocpp2.0.1: it does not serve that version there"),
    (_trickled_body, "cpo", "http", "did not finish its versions answer within 1 s"),
    (_huge_http_header, "cpo", "http", "sent an oversized HTTP header in its versions answer"),
    (_silence, "csms", "wss", "accepted the connection but did not complete the TLS handshake within 1 s"),
    (_silence, "csms", "ws", "accepted the connection but did not complete the WebSocket upgrade within 1 s"),
], ids=["plain HTTP", "1 MB header", "no subprotocol", "trickled OCPI body", "1 MB OCPI header", "stalled TLS",
        "stalled upgrade"])
async def test_the_preflight_names_what_the_sut_answered_in_one_line(pytester, answer, role, scheme, line):
    pytester.makepyfile("def test_one():\n    pass\n")
    profile = _profile(pytester, PROFILE + "[timeouts]\nconnect = 1\n")
    async with await asyncio.start_server(_serving(answer), "127.0.0.1", 0) as sut:
        url = f"{scheme}://127.0.0.1:{sut.sockets[0].getsockname()[1]}/" + ("ocpp" if role == "csms" else "versions")
        options = ["--protocol", "ocpp2.0.1"] if role == "csms" else ["--listen", f"127.0.0.1:{_closed_port()}"]
        result = await asyncio.to_thread(pytester.runpytest_subprocess, "--sut", role, "--sut-url", url, *options,
                                         "--sut-profile", profile, timeout=RUN_LIMIT)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    shown = _one_line(result)
    assert shown.startswith("ERROR: the ") and f" at {url} " in shown and line in shown, shown


def _stations_only(head: bytes) -> list[bytes]:
    """A CSMS routing only <url>/<identity> (arthexis: ws/ocpp/<identity>/): an error on its bare URL, 401 where a
    station without credentials connects."""
    path = head.split(b" ", 2)[1]
    if path.endswith(b"/ACME-1"):
        return [b"HTTP/1.1 401 Unauthorized\r\nContent-Length: 0\r\n\r\n"]
    return [b"HTTP/1.1 500 Internal Server Error\r\nContent-Length: 0\r\n\r\n"]


async def test_the_preflight_probes_where_the_station_connects(pytester):
    """Found by the interop ledger (interop/LEDGER.md, arthexis): the probe upgraded at the bare --sut-url, a path
    no station uses, and a CSMS routing only <url>/<identity> was refused as "plain HTTP"."""
    pytester.makepyfile("def test_one():\n    pass\n")
    profile = _profile(pytester, PROFILE + "[timeouts]\nconnect = 1\n")
    async with await asyncio.start_server(_serving(_stations_only), "127.0.0.1", 0) as sut:
        url = f"ws://127.0.0.1:{sut.sockets[0].getsockname()[1]}/ocpp"
        result = await asyncio.to_thread(pytester.runpytest_subprocess, "--sut", "csms", "--sut-url", url,
                                         "--protocol", "ocpp2.0.1", "--sut-profile", profile, timeout=RUN_LIMIT)
    assert result.ret == pytest.ExitCode.OK, result.stdout.str()[-2000:]
