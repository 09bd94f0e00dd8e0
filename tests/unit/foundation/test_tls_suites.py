"""The TLS ends' cipher suites, the client certificate's subject and the alert a refusing server lets out:
real TLS handshakes between ``TlsEnd`` contexts over memory BIOs (no socket)."""

import ssl

import pytest
from cryptography import x509
from cryptography.hazmat.primitives.serialization import Encoding

from harness import pki
from harness.transport import tls
from harness.transport.tls import MANDATORY, STATION_PAIRS, TLS12, TlsEnd, can_offer, offered, only, subject_problem

HOST = "localhost"


@pytest.fixture(scope="module")
def run_pki(tmp_path_factory):
    return pki.HarnessPki(tmp_path_factory.mktemp("pki"), organization="Test CPO")


def handshake(server: TlsEnd, client: TlsEnd):
    """Drives a handshake between ``server`` and ``client``; returns (server's object, client's object), or raises
    the ssl.SSLError of the side that failed."""
    pipes = [ssl.MemoryBIO() for _ in range(4)]
    tls_client = client.client_context().wrap_bio(pipes[0], pipes[1], server_hostname=HOST)
    tls_server = server.server_context().wrap_bio(pipes[2], pipes[3], server_side=True)
    done = {"client": False, "server": False}
    for _ in range(10):
        for side, end, outgoing, peer_in in (("client", tls_client, pipes[1], pipes[2]),
                                             ("server", tls_server, pipes[3], pipes[0])):
            if not done[side]:
                try:
                    end.do_handshake()
                    done[side] = True
                except ssl.SSLWantReadError:
                    pass
            peer_in.write(outgoing.read())
        if all(done.values()):
            return tls_server, tls_client
    raise AssertionError("the handshake neither finished nor failed")


def server_end(run_pki, **options) -> TlsEnd:
    """The harness's server: an RSA certificate and an ECDSA one beside it."""
    return TlsEnd(*run_pki.server(pki.VALID, (HOST,)), extra=(run_pki.server(pki.VALID, (HOST,), kind=pki.EC),),
                  **options)


@pytest.mark.parametrize("suite", tuple(MANDATORY))
def test_a_server_with_both_certificates_completes_each_mandatory_suite_offered_alone(run_pki, suite):
    assert can_offer(suite)
    server, client = handshake(server_end(run_pki), TlsEnd(trust=run_pki.root_path, versions=(TLS12, TLS12),
                                                           ciphers=MANDATORY[suite]))
    assert client.cipher()[0] == MANDATORY[suite] and client.version() == "TLSv1.2"
    assert offered(server) == {suite}
    key = x509.load_der_x509_certificate(client.getpeercert(binary_form=True)).public_key()
    assert ("RSA" in type(key).__name__) == ("_RSA_WITH_" in suite)   # the certificate the suite needs


def test_python_s_default_server_refuses_the_static_rsa_suites_the_csms_must_support(run_pki):
    """What the fault 'a CSMS without the static-RSA pair' is: the ECDHE suites alone."""
    with pytest.raises(ssl.SSLError):
        handshake(server_end(run_pki, ciphers="ECDHE+AESGCM"), TlsEnd(trust=run_pki.root_path, versions=(TLS12, TLS12),
                                                                     ciphers=MANDATORY[tls.RSA_128]))


def test_a_server_without_an_ecdsa_certificate_refuses_the_ecdsa_suites(run_pki):
    with pytest.raises(ssl.SSLError):
        handshake(TlsEnd(*run_pki.server(pki.VALID, (HOST,))), TlsEnd(trust=run_pki.root_path, versions=(TLS12, TLS12),
                                                                     ciphers=MANDATORY[tls.ECDSA_128]))


def test_the_server_reads_the_mandatory_suites_a_client_offered_over_tls_1_3_too(run_pki):
    server, client = handshake(server_end(run_pki), TlsEnd(trust=run_pki.root_path))
    assert client.version() == "TLSv1.3" and set(STATION_PAIRS[0]) <= offered(server)
    server, _ = handshake(server_end(run_pki), TlsEnd(trust=run_pki.root_path, ciphers="ECDHE-RSA-AES128-GCM-SHA256"))
    assert offered(server) == frozenset()
    server, _ = handshake(server_end(run_pki), TlsEnd(trust=run_pki.root_path, ciphers="AES128-GCM-SHA256:"
                                                      "AES256-GCM-SHA384"))
    assert offered(server) == set(STATION_PAIRS[1])
    assert offered(None) is None


def test_a_refusing_server_lets_its_protocol_version_alert_out_before_it_fails(run_pki):
    """A TLS 1.0 server facing a TLS 1.2+ client: the client reads the alert (not a reset), the server records why."""
    server = TlsEnd(*run_pki.server(pki.VALID, (HOST,)), versions=only("TLSv1.0"))
    context = server.server_context()
    pipes = [ssl.MemoryBIO() for _ in range(4)]
    tls_client = TlsEnd(trust=run_pki.root_path).client_context().wrap_bio(pipes[0], pipes[1], server_hostname=HOST)
    tls_server = context.wrap_bio(pipes[2], pipes[3], server_side=True)
    with pytest.raises(ssl.SSLWantReadError):
        tls_client.do_handshake()
    pipes[2].write(pipes[1].read())
    with pytest.raises(ssl.SSLWantReadError):   # the alert is pending: it goes out first
        tls_server.do_handshake()
    assert list(context.refusals) == ["UNSUPPORTED_PROTOCOL"]
    pipes[0].write(pipes[3].read())
    with pytest.raises(ssl.SSLError, match="ALERT_PROTOCOL_VERSION"):
        tls_client.do_handshake()
    with pytest.raises(ssl.SSLError, match="UNSUPPORTED_PROTOCOL"):   # and the failure follows
        tls_server.do_handshake()
    assert list(context.refusals) == ["UNSUPPORTED_PROTOCOL"]


def test_a_client_certificate_is_judged_by_its_cn_and_its_o(run_pki):
    def der(variant):
        return x509.load_pem_x509_certificate(run_pki.client(variant, "SERIAL-1", "Test CPO")[0].read_bytes()) \
            .public_bytes(Encoding.DER)

    assert subject_problem(der(pki.VALID), "SERIAL-1", "Test CPO") is None
    assert subject_problem(der(pki.VALID), "SERIAL-1", None) is None
    assert "O (the operator) is Unrelated Operator Ltd" in subject_problem(der(pki.OTHER_OPERATOR), "SERIAL-1",
                                                                          "Test CPO")
    assert "CN (the station's serial number) is OTHER-STATION-0002" in subject_problem(der(pki.OTHER_STATION),
                                                                                    "SERIAL-1", "Test CPO")
    assert subject_problem(None, "SERIAL-1", None) == "no client certificate"


def test_no_other_operator_or_station_when_the_profile_s_names_are_part_of_them(run_pki):
    with pytest.raises(ValueError, match="no other operator"):
        run_pki.client(pki.OTHER_OPERATOR, "SERIAL-1", "Operator")
    with pytest.raises(ValueError, match="no other station"):
        run_pki.client(pki.OTHER_STATION, "STATION", "Test CPO")
