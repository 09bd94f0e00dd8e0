"""The contract PKI of Plug and Charge: OCSP request data checked against RFC 6960's CertID computed by
hand, and the OCSP responder's answers (over loopback HTTP) read and verified as a CSMS would."""

import base64
import errno
import hashlib
import socket
from urllib.parse import quote

import httpx
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509 import ocsp as x509_ocsp

from harness import contract_pki, pki
from harness.errors import ConfigError
from harness.transport import ocsp

EMAID = "NLTST0000000001"


@pytest.fixture(scope="module")
def run():
    pki_of_the_module = contract_pki.ContractPki()
    yield pki_of_the_module
    pki_of_the_module.close()


@pytest.mark.parametrize("algorithm", ["SHA256", "SHA384", "SHA512"])
def test_hash_data_is_the_certid_of_the_contract_certificate(run, algorithm):
    contract = run.contract(EMAID)
    issuer = contract.issuer
    digest = getattr(hashlib, algorithm.lower())
    # RFC 6960 4.1.1: the hash of the issuer's DER name, and of the value of its subjectPublicKey BIT STRING
    # (for an EC key: the uncompressed point, without tag, length and unused-bits octet)
    point = issuer.public_key().public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
    assert contract.hash_data(algorithm) == {
        "hashAlgorithm": algorithm,
        "issuerNameHash": digest(contract.certificate.issuer.public_bytes()).hexdigest(),
        "issuerKeyHash": digest(point).hexdigest(),
        "serialNumber": format(contract.certificate.serial_number, "x"),
        "responderURL": run.responder_url,
    }
    assert issuer.subject == contract.certificate.issuer
    assert len(contract.hash_data(algorithm)["serialNumber"]) <= 40   # spec 001 Limits


def test_contracts_are_issued_once_for_their_emaid_and_kind(run):
    assert run.contract(EMAID) is run.contract(EMAID)
    assert contract_pki.emaid_of(run.contract(EMAID, "revoked").certificate) == EMAID
    assert run.contract(EMAID, "revoked").certificate.serial_number in run.mo_ca.revoked
    with pytest.raises(ValueError, match="one of valid, expired, revoked, unverifiable"):
        run.contract(EMAID, "stolen")


def test_the_chain_is_judged_as_a_verifier_would(run):
    roots = [run.root.certificate]
    assert contract_pki.chain_problem(contract_pki.load_chain(run.contract(EMAID).chain_pem()), roots) is None
    assert contract_pki.chain_problem(contract_pki.load_chain(run.contract(EMAID, "expired").chain_pem()),
                                      roots) == "CertificateExpired"
    assert contract_pki.chain_problem(contract_pki.load_chain(run.contract(EMAID, "unverifiable").chain_pem()),
                                      roots) == "CertChainError"
    valid = contract_pki.load_chain(run.contract(EMAID).chain_pem())
    assert contract_pki.chain_problem(valid[:1], roots) == "CertChainError"   # its sub-CAs left out


async def _asked(run, contract):
    responder = await ocsp.OcspResponder(run.ocsp_response, run.port).start()
    try:
        return await ocsp.ask(run.responder_url, contract_pki.ocsp_request(contract.hash_data()))
    finally:
        await responder.stop()


async def test_the_responder_port_stays_the_run_s_between_tests(run):
    """The responder URL is in every contract certificate: between two tests' responders no other process may take
    the port (a variance run beside the embedded run once did), a connect there is refused as to no responder, and
    the next test's responder serves there again."""
    await _asked(run, run.contract(EMAID))   # one test's responder, stopped
    with socket.socket() as probe, pytest.raises(OSError) as taken:   # what a port probe or an ephemeral port does
        probe.bind(("127.0.0.1", run.port))
    assert taken.value.errno == errno.EADDRINUSE
    with pytest.raises(ConnectionRefusedError):
        socket.create_connection(("127.0.0.1", run.port), timeout=5).close()
    answer = await _asked(run, run.contract(EMAID))
    assert x509_ocsp.load_der_ocsp_response(answer).response_status == x509_ocsp.OCSPResponseStatus.SUCCESSFUL


@pytest.mark.parametrize("kind, status", [("valid", "good"), ("revoked", "revoked")])
async def test_the_responder_answers_the_status_signed_by_the_issuer(run, kind, status):
    contract = run.contract(EMAID, kind)
    answer = await _asked(run, contract)
    response = x509_ocsp.load_der_ocsp_response(answer)
    assert response.response_status == x509_ocsp.OCSPResponseStatus.SUCCESSFUL
    assert response.certificate_status.name.lower() == status
    assert response.serial_number == contract.certificate.serial_number
    # the signature holds under the responder's certificate (the issuing sub-CA, RFC 6960 4.2.2.2)
    assert response.certificates == [contract.issuer]
    contract.issuer.public_key().verify(response.signature, response.tbs_response_bytes,
                                        ec.ECDSA(response.signature_hash_algorithm))
    trusted = [a.certificate for a in run.authorities]
    assert contract_pki.ocsp_status(answer, contract.hash_data(), trusted) == status


async def test_a_serial_the_issuer_never_issued_is_unknown_and_a_stranger_is_refused(run):
    unrecorded = contract_pki.Contract(EMAID, "valid", run.mo_ca.issue(EMAID, ocsp_url=run.responder_url))
    answer = await _asked(run, unrecorded)
    assert x509_ocsp.load_der_ocsp_response(answer).certificate_status == x509_ocsp.OCSPCertStatus.UNKNOWN
    stranger = run.contract(EMAID, "unverifiable")
    answer = await _asked(run, stranger)
    assert x509_ocsp.load_der_ocsp_response(answer).response_status == x509_ocsp.OCSPResponseStatus.UNAUTHORIZED
    assert contract_pki.ocsp_status(answer, stranger.hash_data(), [run.root.certificate]) == "unverified"


def test_an_answer_signed_by_an_untrusted_key_is_unverified(run):
    contract = run.contract(EMAID, "revoked")
    answer = run.ocsp_response(contract_pki.ocsp_request(contract.hash_data()))
    assert contract_pki.ocsp_status(answer, contract.hash_data(), [run.root.certificate]) == "unverified"
    assert contract_pki.ocsp_status(None, contract.hash_data(), [contract.issuer]) == "unverified"
    other = run.contract(EMAID)
    assert contract_pki.ocsp_status(answer, other.hash_data(), [contract.issuer]) == "unverified"   # another serial


async def test_the_responder_takes_get_and_refuses_garbage(run):
    """RFC 6960 A.1: GET with the URL-encoded base64 of the request after the responder's URL."""
    request = contract_pki.ocsp_request(run.contract(EMAID, "revoked").hash_data())
    responder = await ocsp.OcspResponder(run.ocsp_response, run.port).start()
    try:
        async with httpx.AsyncClient(trust_env=False) as client:
            got = await client.get(f"{run.responder_url}/{quote(base64.b64encode(request).decode(), safe='')}")
            garbage = await client.post(run.responder_url, content=b"not an OCSP request")
    finally:
        await responder.stop()
    assert x509_ocsp.load_der_ocsp_response(got.content).certificate_status == x509_ocsp.OCSPCertStatus.REVOKED
    assert x509_ocsp.load_der_ocsp_response(garbage.content).response_status == \
        x509_ocsp.OCSPResponseStatus.MALFORMED_REQUEST


async def test_an_unreachable_responder_is_no_answer(run):
    assert await ocsp.ask(run.responder_url, b"") is None   # nothing listens


def test_a_root_the_sut_trusts_is_loaded_from_the_profile_files(tmp_path):
    root = pki.Authority.root("Operator V2G Root")
    cert_path, key_path = root.issued.write(tmp_path, "v2g-root")
    loaded = contract_pki.ContractPki(root=contract_pki.load_root(cert_path, key_path))
    loaded.close()   # its responder's port is not needed here
    chain = contract_pki.load_chain(loaded.contract(EMAID).chain_pem())
    assert contract_pki.chain_problem(chain, [root.certificate]) is None
    other = pki.Authority.root("Another Root")
    _, wrong_key = other.issued.write(tmp_path, "other")
    with pytest.raises(ConfigError, match="is not the EC key of root_certificate"):
        contract_pki.load_root(cert_path, wrong_key)
    with pytest.raises(ConfigError, match="unencrypted PEM key"):
        contract_pki.load_root(tmp_path / "missing.pem", key_path)
