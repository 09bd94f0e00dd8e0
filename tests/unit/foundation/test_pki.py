"""The test PKI's certificates as OpenSSL judges them: real TLS handshakes over memory BIOs (no socket)."""

import ssl
import stat

import pytest
from cryptography.hazmat.primitives.asymmetric import rsa

from harness import pki


def handshake(tmp_path, server: pki.Issued, trusted: pki.Authority, *, host: str = "localhost",
              client: pki.Issued | None = None, client_trust: pki.Authority | None = None) -> None:
    """Drive a TLS 1.2+ handshake between two in-memory endpoints; raises ssl.SSLError on refusal."""
    server_ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    server_ctx.load_cert_chain(*server.write(tmp_path, "server"))
    if client_trust:
        server_ctx.verify_mode = ssl.CERT_REQUIRED
        server_ctx.load_verify_locations(cadata=client_trust.certificate_pem().decode())
    client_ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    client_ctx.load_verify_locations(cadata=trusted.certificate_pem().decode())
    if client:
        client_ctx.load_cert_chain(*client.write(tmp_path, "client"))
    pipes = [ssl.MemoryBIO() for _ in range(4)]
    tls_client = client_ctx.wrap_bio(pipes[0], pipes[1], server_hostname=host)
    tls_server = server_ctx.wrap_bio(pipes[2], pipes[3], server_side=True)
    done = {"client": False, "server": False}
    for _ in range(10):
        for side, tls, outgoing, peer_in in (("client", tls_client, pipes[1], pipes[2]),
                                             ("server", tls_server, pipes[3], pipes[0])):
            if not done[side]:
                try:
                    tls.do_handshake()
                    done[side] = True
                except ssl.SSLWantReadError:
                    pass
            peer_in.write(outgoing.read())
        if all(done.values()):
            tls_client.write(b"ping")            # TLS 1.3 client certificates are judged after the handshake
            pipes[2].write(pipes[1].read())
            assert tls_server.read(4) == b"ping"
            return
    raise AssertionError("the handshake neither finished nor failed")


@pytest.fixture(scope="module")
def root():
    return pki.Authority.root("Test Root", "EVSE Conformance")


def test_a_server_certificate_from_the_trusted_root_is_accepted_for_its_hosts(tmp_path, root):
    server = root.issue("csms", server_names=("localhost", "127.0.0.1"))
    handshake(tmp_path, server, root, host="localhost")
    handshake(tmp_path, server, root, host="127.0.0.1")


@pytest.mark.parametrize("variant, refusal", [
    ("expired", "certificate has expired"),
    ("wrong_host", "Hostname mismatch"),
    ("self_signed", "self-signed certificate"),
    ("other_root", "unable to get local issuer certificate"),
])
def test_each_broken_server_certificate_is_refused_by_a_verifying_client(tmp_path, root, variant, refusal):
    server = {
        "expired": lambda: root.issue("csms", server_names=("localhost",), expired=True),
        "wrong_host": lambda: root.issue("csms", server_names=("csms.example.org",)),
        "self_signed": lambda: pki.self_signed("csms", server_names=("localhost",)),
        "other_root": lambda: pki.Authority.root("Other Root").issue("csms", server_names=("localhost",)),
    }[variant]()
    with pytest.raises(ssl.SSLCertVerificationError, match=refusal):
        handshake(tmp_path, server, root)


def test_a_client_certificate_under_a_sub_ca_is_accepted_with_its_chain_and_names_the_station(tmp_path, root):
    operator = root.sub_ca("Operator CA", "Example CPO")
    station = operator.issue("SERIAL-0001", "Example CPO", client=True)
    assert station.certificate.subject.rfc4514_string() == "O=Example CPO,CN=SERIAL-0001"
    assert station.chain == (operator.certificate,)
    handshake(tmp_path, root.issue("csms", server_names=("localhost",)), root, client=station, client_trust=root)


@pytest.mark.parametrize("client", ["expired", "other_root"])
def test_a_broken_client_certificate_is_refused_by_a_server_that_requires_one(tmp_path, root, client):
    station = {"expired": lambda: root.issue("SERIAL-0001", client=True, expired=True),
               "other_root": lambda: pki.Authority.root("Other").issue("SERIAL-0001", client=True)}[client]()
    with pytest.raises(ssl.SSLError):
        handshake(tmp_path, root.issue("csms", server_names=("localhost",)), root,
                  client=station, client_trust=root)


def test_rsa_certificates_keep_within_the_1_6_limit():
    authority = pki.Authority.root("1.6 Root", kind=pki.RSA)
    leaf = authority.issue("cp", server_names=("localhost",))
    assert isinstance(leaf.key, rsa.RSAPrivateKey) and leaf.key.key_size == 2048
    assert len(leaf.certificate.public_bytes(pki.serialization.Encoding.DER)) <= 2048


def test_a_key_never_shows_in_a_repr_and_its_file_is_readable_by_the_owner_only(tmp_path, root):
    issued = root.issue("cp", client=True)
    assert "key=" not in repr(issued) and "PRIVATE" not in repr(issued)
    _, key_path = issued.write(tmp_path, "cp")
    assert stat.S_IMODE(key_path.stat().st_mode) == 0o600
    assert key_path.read_bytes().startswith(b"-----BEGIN PRIVATE KEY-----")


def test_revocation_is_recorded_by_serial_and_the_ocsp_address_reaches_the_certificate(root):
    contract = root.issue("EMAID0001", ocsp_url="http://127.0.0.1:9/ocsp")
    access = contract.certificate.extensions.get_extension_for_class(pki.x509.AuthorityInformationAccess)
    assert [d.access_location.value for d in access.value] == ["http://127.0.0.1:9/ocsp"]
    root.revoke(contract)
    assert contract.serial in root.revoked


def test_a_csr_is_signed_for_its_own_key_and_a_broken_one_is_told():
    key = pki.new_key()
    csr = pki.make_csr(key, "CS-SERIAL-1", "Operator")
    assert pki.csr_problem(csr) is None
    root = pki.Authority.root("Test Root")
    chain = pki.load_chain(root.chain_pem(root.sign_csr(csr.encode())))
    assert pki.same_public_key(chain[0].public_key(), key.public_key())
    chain[0].verify_directly_issued_by(root.certificate)
    assert "not a PEM" in pki.csr_problem("-----BEGIN CERTIFICATE REQUEST-----\nAAAA\n-----END CERTIFICATE REQUEST-----\n")


def test_hash_data_names_one_certificate_in_each_algorithm():
    root = pki.Authority.root("Test Root").certificate
    other = pki.Authority.root("Test Root").certificate   # same name, another key and serial
    for algorithm in pki.HASHES:
        data = pki.hash_data(root, root.public_key(), algorithm)
        assert data["hashAlgorithm"] == algorithm
        assert pki.same_hash_data(data, data | {"issuerNameHash": data["issuerNameHash"].upper(),
                                                "serialNumber": "00" + data["serialNumber"]})
        assert not pki.same_hash_data(data, pki.hash_data(other, other.public_key(), algorithm))
