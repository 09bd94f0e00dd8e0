"""OCPI between two processes over real HTTP: the reference peer started on its own
(``python -m harness.reference.ocpi``) is the SUT; the harness registers with it from this test
process, then the OCPI suites run against it as a real system (``--sut``, the http actuator the
standalone peer serves). A real SUT runs on the real clock: the two roles' runs mostly wait, so
they run side by side."""

import asyncio
import json
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

import pytest
import suite_runner

from harness.reference.ocpi import EMSP, OcpiPeer, PeerIdentity
from harness.transport.http import HttpClient, HttpServer

REPO = Path(__file__).resolve().parents[2]
TOKEN_A = "two-process-token-a-0001"
RUN_TIMEOUT = 300
ROLES = ("cpo", "emsp")


def peer_args(role: str) -> tuple[str, ...]:
    """The reference peer in its own process (see conftest.standalone); it prints its versions URL."""
    return "harness.reference.ocpi", "--role", role, "--port", "0", "--token-a", TOKEN_A


async def _register(versions_url: str) -> None:
    harness = OcpiPeer(PeerIdentity(EMSP, "NL", "HAR", "harness"), http=HttpClient(timeout=10))
    server = await HttpServer(harness.app).start()
    harness.bind(server.url)
    try:
        credentials = await harness.register_with(versions_url, TOKEN_A)
        token_b, token_c = harness.own_token, harness.peer_token
        assert token_c == credentials["token"] and token_c != TOKEN_A
        assert token_b and token_b not in (token_c, TOKEN_A)
        assert [(s.module, s.token) for s in harness.served] == [("versions", token_b), ("version_details", token_b)], \
            "the SUT did not connect back with token B"
        url = harness.peer_endpoints.endpoint("credentials").url
        assert (await harness.send("GET", url, token=TOKEN_A)).status == 401, "token A still works"
        assert (await harness.send("GET", url, token=token_c)).status == 200, "token C does not work"
        assert not harness.violations, harness.violations
        await harness.unregister_from()
        assert (await harness.send("GET", url, token=token_c)).status == 401, "token C survived the DELETE"
    finally:
        await harness.stop()
        await server.stop()


def test_registration_between_two_processes(standalone):
    """Tokens B and C are exchanged over real HTTP, and token A is refused afterwards."""
    with standalone(*peer_args("cpo"), last="versions URL") as urls:
        asyncio.run(_register(urls["versions URL"]))


def play_suites_against_the_standalone_peer(standalone, role: str, reports: Path,
                                            session: Path) -> pytest.RunResult:
    """The OCPI suites with the standalone peer playing ``role`` as a real SUT (on the real clock). The peer
    is a process of its own; the harness's run only a session of its own, forked warm (suite_runner.py)."""
    with standalone(*peer_args(role), last="versions URL") as urls:
        versions_url = urls["versions URL"]
        base = versions_url.removesuffix("/ocpi/versions")
        return suite_runner.run(session, [
            str(REPO / "suites" / "ocpi"), "-q", "--sut", role, "--sut-url", versions_url,
            "--sut-profile", str(REPO / "harness" / "profiles" / "reference.toml"), "--actuator", "http",
            "--actuator-url", f"{base}/actuator", "--reports-dir", str(reports)],
            timeout=RUN_TIMEOUT, niceness=suite_runner.REAL_CLOCK)


@pytest.fixture(scope="module")
def suite_runs(tmp_path_factory, standalone) -> dict[str, tuple[Future, Path]]:
    """Both roles' runs, started together: each mostly waits on the real clock, so they overlap."""
    with ThreadPoolExecutor(len(ROLES)) as pool:
        runs = {}
        for role in ROLES:
            reports = tmp_path_factory.mktemp(f"ocpi-{role}")
            runs[role] = pool.submit(play_suites_against_the_standalone_peer, standalone, role, reports,
                                     tmp_path_factory.mktemp(f"ocpi-{role}-session")), reports
        yield runs


@pytest.mark.parametrize("role", ROLES)
def test_ocpi_suites_pass_against_the_standalone_peer(role, suite_runs):
    """The OCPI suites, run against the standalone peer as a real SUT, all pass."""
    future, reports = suite_runs[role]
    completed = future.result()
    assert completed.ret == 0, completed.stdout.str()[-4000:] + completed.stderr.str()[-2000:]
    summary = json.loads((reports / "conformance.json").read_text())
    assert summary["counts"]["failed"] == summary["counts"]["broken"] == 0
    assert summary["counts"]["passed"] >= 25 and {r["role"] for r in summary["results"]} == {role}
    passed = {r["usecase"] for r in summary["results"] if r["verdict"] == "passed"}
    assert {"OCPI_SESSIONS_PUSH", "OCPI_LOCATIONS_PUSH"} <= passed, f"sessions or locations did not pass: {passed}"
