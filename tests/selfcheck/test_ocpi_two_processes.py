"""OCPI between two processes over real HTTP: the reference peer started on its own
(``python -m harness.reference.ocpi``) is the SUT; the harness registers with it from this test
process, then the OCPI suites run against it as a real system (``--sut``, the http actuator the
standalone peer serves)."""

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from harness.reference.ocpi import EMSP, OcpiPeer, PeerIdentity
from harness.transport.http import HttpClient, HttpServer

REPO = Path(__file__).resolve().parents[2]
TOKEN_A = "two-process-token-a-0001"
RUN_TIMEOUT = 300


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


@pytest.mark.parametrize("role", ["cpo", "emsp"])
def test_ocpi_suites_pass_against_the_standalone_peer(role, tmp_path, standalone):
    """The OCPI suites, run against the standalone peer as a real SUT, all pass."""
    with standalone(*peer_args(role), last="versions URL") as urls:
        versions_url = urls["versions URL"]
        base = versions_url.removesuffix("/ocpi/versions")
        completed = subprocess.run(
            [sys.executable, "-m", "pytest", "suites/ocpi", "-q", "-p", "no:cacheprovider", "--sut", role,
             "--sut-url", versions_url, "--sut-profile", str(REPO / "harness" / "profiles" / "reference.toml"),
             "--actuator", "http", "--actuator-url", f"{base}/actuator", "--reports-dir", str(tmp_path)],
            cwd=REPO, capture_output=True, text=True, timeout=RUN_TIMEOUT,
            env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"})
    assert completed.returncode == 0, completed.stdout[-4000:] + completed.stderr[-2000:]
    summary = json.loads((tmp_path / "conformance.json").read_text())
    assert summary["counts"]["failed"] == summary["counts"]["broken"] == 0
    assert summary["counts"]["passed"] >= 25 and {r["role"] for r in summary["results"]} == {role}
