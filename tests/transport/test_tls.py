"""wss and https over real loopback sockets: the TLS ends of security profiles 2 and 3 and of OCPI over
HTTPS (harness/transport/tls.py), the refusals each side records, and the harness's PKI kept between runs."""

import asyncio
import ssl
import stat
from pathlib import Path

import pytest

from harness import pki
from harness.errors import HarnessError
from harness.preflight import _websocket_unreachable
from harness.ocpp.versions import OcppVersion
from harness.transport.http import HttpClient, HttpRequest, HttpResponse, HttpServer, NoAnswer, asgi_app
from harness.transport.tls import TlsEnd, only
from harness.transport.ws import OcppServer, open_station

V16 = OcppVersion.V16


async def _ignore(call):
    return {}


@pytest.fixture(scope="module")
def harness_pki(tmp_path_factory):
    return pki.HarnessPki(tmp_path_factory.mktemp("pki"))


@pytest.fixture
async def serve():
    servers = []

    async def start(end: TlsEnd) -> OcppServer:
        server = await OcppServer(versions=[V16], on_connect=lambda identity, version: (_ignore, None),
                                  tls=end).start()
        servers.append(server)
        return server

    yield start
    for server in servers:
        await server.stop()


def _server_end(harness_pki, variant=pki.VALID, **options) -> TlsEnd:
    return TlsEnd(*harness_pki.server(variant, ("127.0.0.1", "localhost")), **options)


async def _connect(server: OcppServer, end: TlsEnd):
    return await open_station(server.url, "CS001", versions=[V16], handler=None, tls=end)


async def test_a_verified_server_gets_a_tls_1_2_or_later_connection_and_shows_its_certificate(serve, harness_pki):
    server = await serve(_server_end(harness_pki))
    assert server.url.startswith("wss://")
    handshake = await _connect(server, TlsEnd(trust=harness_pki.root_path))
    try:
        assert handshake.tls_refused is None
        assert handshake.connection.tls_version in ("TLSv1.2", "TLSv1.3")
        assert handshake.connection.peer_certificate()   # DER of the server's certificate
    finally:
        await handshake.connection.close()


@pytest.mark.parametrize("variant, reason", [
    (pki.EXPIRED, "certificate has expired"), (pki.WRONG_HOST, "IP address mismatch"),
    (pki.OTHER_ROOT, "unable to get local issuer certificate"), (pki.SELF_SIGNED, "self-signed certificate"),
])
async def test_the_client_refuses_a_certificate_it_cannot_verify_and_says_why(serve, harness_pki, variant, reason):
    server = await serve(_server_end(harness_pki, variant))
    handshake = await _connect(server, TlsEnd(trust=harness_pki.root_path))
    assert handshake.connection is None and handshake.status is None
    assert "CERTIFICATE_VERIFY_FAILED" in handshake.tls_refused and reason in handshake.tls_refused


@pytest.mark.parametrize("old", ["TLSv1.0", "TLSv1.1"])
async def test_old_tls_is_refused_in_either_direction_and_the_server_records_why(serve, harness_pki, old):
    server = await serve(_server_end(harness_pki))
    handshake = await _connect(server, TlsEnd(trust=harness_pki.root_path, versions=only(old)))
    assert handshake.connection is None and handshake.tls_refused
    assert server.tls_refusals() == ["UNSUPPORTED_PROTOCOL"]
    old_server = await serve(_server_end(harness_pki, versions=only(old)))
    assert (await _connect(old_server, TlsEnd(trust=harness_pki.root_path))).tls_refused


async def test_an_old_version_is_spoken_when_both_ends_allow_it(serve, harness_pki):
    """The legacy ends really speak TLS 1.0: a refusal in the tests above is the version, not a broken context."""
    server = await serve(_server_end(harness_pki, versions=only("TLSv1.0")))
    handshake = await _connect(server, TlsEnd(trust=harness_pki.root_path, versions=only("TLSv1.0")))
    try:
        assert handshake.connection.tls_version == "TLSv1"
    finally:
        await handshake.connection.close()


@pytest.mark.parametrize("client", [None, pki.EXPIRED, pki.OTHER_ROOT, pki.SELF_SIGNED])
async def test_mutual_tls_refuses_a_missing_or_invalid_client_certificate(serve, harness_pki, client):
    server = await serve(_server_end(harness_pki, trust=harness_pki.root_path))
    own = harness_pki.client(client, "SERIAL-1", "Operator") if client else (None, None)
    handshake = await _connect(server, TlsEnd(*own, trust=harness_pki.root_path))
    assert handshake.connection is None and handshake.tls_refused
    assert server.tls_refusals() == ["PEER_DID_NOT_RETURN_A_CERTIFICATE" if client is None
                                     else "CERTIFICATE_VERIFY_FAILED"]


async def test_mutual_tls_admits_a_valid_client_certificate_the_server_can_read(serve, harness_pki):
    server = await serve(_server_end(harness_pki, trust=harness_pki.root_path))
    handshake = await _connect(server, TlsEnd(*harness_pki.client(pki.VALID, "SERIAL-1", "Operator"),
                                              trust=harness_pki.root_path))
    try:
        accepted = await server.wait_connection(5)
        assert accepted.peer_certificate() and server.tls_refusals() == []
    finally:
        await handshake.connection.close()


async def test_nothing_listening_is_no_tls_refusal_but_a_harness_error(harness_pki):
    server = await OcppServer(versions=[V16], on_connect=lambda identity, version: (_ignore, None)).start()
    url = server.url.replace("ws://", "wss://")
    await server.stop()
    with pytest.raises(HarnessError, match="cannot open a WebSocket"):
        await open_station(url, "CS001", versions=[V16], handler=None, tls=TlsEnd(trust=harness_pki.root_path))


def test_the_harness_root_is_kept_in_its_directory_and_its_key_is_the_owners_alone(tmp_path):
    first = pki.HarnessPki(tmp_path)
    again = pki.HarnessPki(tmp_path)
    assert again.root.certificate == first.root.certificate
    assert stat.S_IMODE((tmp_path / "root.key").stat().st_mode) == 0o600
    certificate, key = again.server(pki.VALID, ("localhost",))
    assert certificate.exists() and stat.S_IMODE(key.stat().st_mode) == 0o600


async def test_https_is_served_with_the_pkis_certificate_and_verified_against_its_root(harness_pki):
    """OCPI over HTTPS: uvicorn serves the certificate, httpx verifies it; a client trusting another root
    gets no answer, with the verification failure named."""
    async def hello(request: HttpRequest) -> HttpResponse:
        return HttpResponse(200, request.url.encode(), {})

    server = await HttpServer(asgi_app(hello), tls=_server_end(harness_pki)).start()
    trusting, stranger = (HttpClient(tls=TlsEnd(trust=root)) for root in
                          (harness_pki.root_path, _other_root(harness_pki)))
    try:
        assert server.url.startswith("https://")
        answer = await trusting.request("GET", f"{server.url}/versions")
        assert (answer.status, answer.response_body) == (200, f"{server.url}/versions".encode())
        with pytest.raises(NoAnswer, match="CERTIFICATE_VERIFY_FAILED"):
            await stranger.request("GET", f"{server.url}/versions")
    finally:
        await trusting.close()
        await stranger.close()
        await server.stop()


def _other_root(harness_pki) -> Path:
    path = harness_pki.directory / "other-root.pem"
    path.write_bytes(pki.Authority.root("Other Root", kind=pki.RSA).certificate_pem())
    return path


async def test_the_preflight_verifies_a_wss_csms_against_sut_ca_and_leaves_client_certificates_to_the_tests(
        serve, harness_pki):
    """A CSMS whose certificate the default trust store cannot verify stops the run, naming [tls] sut_ca; with
    its authority given it passes, even when it asks for a client certificate (profile 3)."""
    server = await serve(_server_end(harness_pki, trust=harness_pki.root_path))
    url = server.url.replace("127.0.0.1", "localhost")
    unverified = await asyncio.to_thread(_websocket_unreachable, url, 5, ssl.create_default_context(), "ocpp1.6")
    assert "cannot verify" in unverified and "[tls] sut_ca" in unverified
    trusted = ssl.create_default_context(cafile=str(harness_pki.root_path))
    assert await asyncio.to_thread(_websocket_unreachable, url, 5, trusted, "ocpp1.6") is None


async def test_the_server_counts_the_handshakes_a_client_completed_whatever_the_upgrade_then_gets(harness_pki):
    """A client that took the server's certificate completed the TLS handshake, even when the upgrade after it is
    refused (no Basic auth: 401); one that refused the certificate completed none."""
    server = await OcppServer(versions=[V16], on_connect=lambda identity, version: (_ignore, None),
                              check_password=lambda identity, password: False,
                              tls=_server_end(harness_pki, pki.EXPIRED)).start()
    try:
        checking = await _connect(server, TlsEnd(trust=harness_pki.root_path))
        assert checking.tls_refused and server.tls_completed() == 0
        unchecking = await _connect(server, TlsEnd())
        assert unchecking.connection is None and unchecking.status == 401 and server.tls_completed() == 1
    finally:
        await server.stop()


@pytest.mark.parametrize("legacy", ["TLSv1.0", "TLSv1.1"])
async def test_the_preflight_names_a_csms_that_speaks_only_old_tls(serve, harness_pki, legacy):
    """A CSMS that speaks only TLS 1.0 or 1.1 is told apart from a certificate problem (issue 25 item 10)."""
    server = await serve(_server_end(harness_pki, versions=only(legacy)))
    trusted = ssl.create_default_context(cafile=str(harness_pki.root_path))
    said = await asyncio.to_thread(_websocket_unreachable, server.url, 5, trusted, "ocpp1.6")
    assert said is not None and "speaks no TLS version the harness accepts (TLS 1.2 or later" in said, said
