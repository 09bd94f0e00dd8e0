"""Plug and Charge's PKI (ISO 15118 contract certificates) and its OCSP answers, without I/O.

One ``ContractPki`` per run (``for_run(profile)``): a V2G root — the one a real SUT trusts, named by
the profile's [plug_and_charge], else one of its own —, two MO sub-CAs under it, and contract
certificates issued on demand for an eMAID (the certificate's common name) in four kinds — valid,
expired, revoked (its serial in the issuing sub-CA's revoked set) and unverifiable (issued under
another root, which nobody trusts). Every contract certificate names the run's OCSP responder
(``responder_url``, on loopback) in its Authority Information Access. Keys are EC P-256 (ISO 15118's
curve); the verifier here reads ECDSA signatures only.

``hash_data`` is the OCSPRequestDataType of an AuthorizeRequest (spec 001 AuthorizeRequest
iso15118CertificateHashData): the CertID of RFC 6960 4.1.1 — issuerNameHash, the hash of the DER of
the issuer's distinguished name; issuerKeyHash, the hash of the issuer's public key (the value of the
subjectPublicKey BIT STRING, without tag, length and unused-bits octet); serialNumber — as lowercase
hex, with the responderURL to ask. ``ocsp_response`` answers a DER OCSP request for the responder the
transport layer serves: good, revoked or unknown (a serial its issuer never issued), signed by the
issuing authority (RFC 6960 4.2.2.2: the CA itself may sign), or unauthorized for an issuer it does
not serve.
"""

from __future__ import annotations

import atexit
import socket
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path

from cryptography import x509
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509 import ocsp
from cryptography.x509.oid import AuthorityInformationAccessOID, NameOID

from harness import clock, pki
from harness.errors import ConfigError
from harness.profile import Profile

HASHES = {"SHA256": hashes.SHA256, "SHA384": hashes.SHA384, "SHA512": hashes.SHA512}
KINDS = ("valid", "expired", "revoked", "unverifiable")
NEXT_UPDATE = timedelta(hours=1)   # how long a verifier may cache an OCSP answer


@dataclass(frozen=True)
class Contract:
    """A contract certificate as the EV presents it: the certificate, the chain of sub-CAs above it."""
    emaid: str
    kind: str
    issued: pki.Issued

    @property
    def certificate(self) -> x509.Certificate:
        return self.issued.certificate

    @property
    def issuer(self) -> x509.Certificate:
        return self.issued.chain[0]

    def chain_pem(self) -> str:
        """The PEM chain of AuthorizeRequest ``certificate``: the contract certificate first, then its sub-CAs."""
        return self.issued.certificate_pem().decode()

    def hash_data(self, algorithm: str = "SHA256") -> dict[str, str]:
        return hash_data(self.certificate, self.issuer, algorithm)


def emaid_of(certificate: x509.Certificate) -> str:
    """The eMAID a contract certificate is for: its subject's common name."""
    return certificate.subject.get_attributes_for_oid(NameOID.COMMON_NAME)[0].value


def responder_url(certificate: x509.Certificate) -> str | None:
    """The OCSP responder the certificate's Authority Information Access names, if any."""
    try:
        access = certificate.extensions.get_extension_for_class(x509.AuthorityInformationAccess).value
    except x509.ExtensionNotFound:
        return None
    return next((d.access_location.value for d in access if d.access_method == AuthorityInformationAccessOID.OCSP),
                None)


def hash_data(certificate: x509.Certificate, issuer: x509.Certificate, algorithm: str = "SHA256") -> dict[str, str]:
    """The OCSPRequestDataType of ``certificate`` issued by ``issuer`` (RFC 6960 CertID, hex)."""
    request = ocsp.OCSPRequestBuilder().add_certificate(certificate, issuer, HASHES[algorithm]()).build()
    return {"hashAlgorithm": algorithm, "issuerNameHash": request.issuer_name_hash.hex(),
            "issuerKeyHash": request.issuer_key_hash.hex(), "serialNumber": f"{certificate.serial_number:x}",
            "responderURL": responder_url(certificate) or ""}


def ocsp_request(item: dict[str, str]) -> bytes:
    """The DER OCSP request for one OCSPRequestDataType (what a CSMS posts to its responderURL)."""
    return ocsp.OCSPRequestBuilder().add_certificate_by_hash(
        bytes.fromhex(item["issuerNameHash"]), bytes.fromhex(item["issuerKeyHash"]), int(item["serialNumber"], 16),
        HASHES[item["hashAlgorithm"]]()).build().public_bytes(serialization.Encoding.DER)


def load_chain(pem: str) -> list[x509.Certificate]:
    return x509.load_pem_x509_certificates(pem.encode())


def _reserved(port: int) -> socket.socket:
    """The responder's port, held for the run by a bound socket that does not listen: the responder URL is in every
    contract certificate, and a port let go between two tests could be taken meanwhile by another process of the
    machine (a variance run beside the embedded run once took it). Nobody listens between the tests (a connect is
    refused, as to no responder at all); each test's responder listens there beside it (SO_REUSEADDR, both)."""
    reservation = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    reservation.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    reservation.bind(("127.0.0.1", port))
    return reservation


class ContractPki:
    """The run's contract PKI and the OCSP decisions of its responder."""

    def __init__(self, port: int | None = None, root: pki.Authority | None = None) -> None:
        self.reservation = _reserved(port or 0)
        self.port = self.reservation.getsockname()[1]
        self.responder_url = f"http://127.0.0.1:{self.port}/ocsp"
        self.root = root or pki.Authority.root("V2G Root CA (test)", "evse-conformance")
        sub_ca1 = self.root.sub_ca("MO Sub-CA 1 (test)", "evse-conformance")
        self.mo_ca = sub_ca1.sub_ca("MO Sub-CA 2 (test)", "evse-conformance")
        self.stranger = pki.Authority.root("Unknown Root CA", "nobody").sub_ca("Unknown MO Sub-CA", "nobody")
        self.authorities = (self.root, sub_ca1, self.mo_ca)   # those the responder answers for
        self.issued_serials = {id(self.root): {sub_ca1.issued.serial}, id(sub_ca1): {self.mo_ca.issued.serial},
                               id(self.mo_ca): set()}
        self._contracts: dict[tuple[str, str], Contract] = {}

    def close(self) -> None:
        """The responder's port let go (the run's PKI keeps it until the process ends)."""
        self.reservation.close()

    def contract(self, emaid: str, kind: str = "valid") -> Contract:
        """The contract certificate of ``kind`` for ``emaid`` (issued once per run)."""
        if kind not in KINDS:
            raise ValueError(f"contract kind {kind!r}: one of {', '.join(KINDS)}")
        key = (emaid, kind)
        if key not in self._contracts:
            authority = self.stranger if kind == "unverifiable" else self.mo_ca
            issued = authority.issue(emaid, "evse-conformance", expired=kind == "expired", ocsp_url=self.responder_url)
            if authority is self.mo_ca:
                self.issued_serials[id(self.mo_ca)].add(issued.serial)
            if kind == "revoked":
                self.mo_ca.revoke(issued)
            self._contracts[key] = Contract(emaid, kind, issued)
        return self._contracts[key]

    def ocsp_response(self, request_der: bytes) -> bytes:
        """The DER OCSP response to a DER request."""
        try:
            request = ocsp.load_der_ocsp_request(request_der)
        except ValueError:
            return _unsuccessful(ocsp.OCSPResponseStatus.MALFORMED_REQUEST)
        algorithm = request.hash_algorithm
        asked = (request.issuer_name_hash, request.issuer_key_hash)
        authority = next((a for a in self.authorities if _issuer_hashes(a.certificate, algorithm) == asked), None)
        if authority is None:
            return _unsuccessful(ocsp.OCSPResponseStatus.UNAUTHORIZED)
        serial, now = request.serial_number, clock.utcnow().replace(microsecond=0)
        if serial in authority.revoked:
            status, revoked_at = ocsp.OCSPCertStatus.REVOKED, now - timedelta(minutes=1)
        else:
            known = serial in self.issued_serials[id(authority)]
            status, revoked_at = (ocsp.OCSPCertStatus.GOOD if known else ocsp.OCSPCertStatus.UNKNOWN), None
        builder = ocsp.OCSPResponseBuilder().add_response_by_hash(
            request.issuer_name_hash, request.issuer_key_hash, serial, algorithm, status, now, now + NEXT_UPDATE,
            revoked_at, None).responder_id(ocsp.OCSPResponderEncoding.HASH, authority.certificate) \
            .certificates([authority.certificate])
        return builder.sign(authority.issued.key, hashes.SHA256()).public_bytes(serialization.Encoding.DER)


def _issuer_hashes(issuer: x509.Certificate, algorithm: hashes.HashAlgorithm) -> tuple[bytes, bytes]:
    """(issuerNameHash, issuerKeyHash) of whatever ``issuer`` signs: the key hash as the library computes
    it for a CertID (any certificate ``issuer`` signed would do; its own stands in)."""
    digest = hashes.Hash(algorithm)
    digest.update(issuer.subject.public_bytes())
    key_hash = ocsp.OCSPRequestBuilder().add_certificate(issuer, issuer, algorithm).build().issuer_key_hash
    return digest.finalize(), key_hash


def _unsuccessful(status: ocsp.OCSPResponseStatus) -> bytes:
    return ocsp.OCSPResponseBuilder.build_unsuccessful(status).public_bytes(serialization.Encoding.DER)


def load_root(certificate: Path, key: Path) -> pki.Authority:
    """A V2G root the SUT already trusts, from PEM files (the profile's [plug_and_charge])."""
    try:
        cert = x509.load_pem_x509_certificate(certificate.read_bytes())
        private_key = serialization.load_pem_private_key(key.read_bytes(), password=None)
    except (OSError, ValueError, TypeError) as error:
        raise ConfigError(f"[plug_and_charge] root_certificate {certificate} / root_key {key}: {error}; give the "
                          f"PEM certificate of the V2G root the SUT trusts and its unencrypted PEM key") from None
    if not isinstance(private_key, ec.EllipticCurvePrivateKey) or private_key.public_key() != cert.public_key():
        raise ConfigError(f"[plug_and_charge] root_key {key} is not the EC key of root_certificate {certificate}")
    return pki.Authority(pki.Issued(cert, private_key), pki.EC)


_RUN: ContractPki | None = None


def for_run(profile: Profile) -> ContractPki:
    """The run's contract PKI, made on first use (every reference and test of the process shares it):
    under the V2G root the profile's [plug_and_charge] names, else under a root of its own."""
    global _RUN
    if _RUN is None:
        section = profile.get("plug_and_charge")
        base = Path(profile.source).parent
        _RUN = ContractPki(root=load_root(base / section["root_certificate"], base / section["root_key"])
                           if section else None)
        atexit.register(_RUN.close)
    return _RUN


def chain_problem(chain: list[x509.Certificate], roots: list[x509.Certificate]) -> str | None:
    """What a verifier finds wrong with a contract chain (contract certificate first) against its trusted
    ``roots``, as an OCPP certificateStatus: CertChainError when a link's signature or issuer does not hold
    or the top is signed by no trusted root, CertificateExpired when a certificate is outside its validity;
    None when the chain holds."""
    for child, parent in zip(chain, chain[1:]):
        if not _signed_by(child, parent):
            return "CertChainError"
    if not chain or not any(_signed_by(chain[-1], root) for root in roots):
        return "CertChainError"
    now = clock.utcnow()
    if any(not c.not_valid_before_utc <= now <= c.not_valid_after_utc for c in chain):
        return "CertificateExpired"
    return None


def _signed_by(child: x509.Certificate, parent: x509.Certificate) -> bool:
    try:
        child.verify_directly_issued_by(parent)
    except (ValueError, TypeError, InvalidSignature):
        return False
    return True


def ocsp_status(answer: bytes | None, item: dict[str, str], trusted: list[x509.Certificate]) -> str:
    """A verifier's reading of a responder's DER ``answer`` about ``item`` (an OCSPRequestDataType): good,
    revoked or unknown; ``unverified`` when there is no answer, it is unsuccessful, about another
    certificate, or not signed by one of the ``trusted`` authorities."""
    if answer is None:
        return "unverified"
    try:
        response = ocsp.load_der_ocsp_response(answer)
    except ValueError:
        return "unverified"
    if response.response_status != ocsp.OCSPResponseStatus.SUCCESSFUL \
            or f"{response.serial_number:x}" != item["serialNumber"].lower().lstrip("0") \
            or response.issuer_key_hash.hex() != item["issuerKeyHash"].lower():
        return "unverified"
    signer = next((c for c in trusted if c in response.certificates), None)
    if signer is None or not _signature_holds(response, signer):
        return "unverified"
    return response.certificate_status.name.lower()


def _signature_holds(response: ocsp.OCSPResponse, signer: x509.Certificate) -> bool:
    try:
        signer.public_key().verify(response.signature, response.tbs_response_bytes,
                                   ec.ECDSA(response.signature_hash_algorithm))
    except (InvalidSignature, TypeError):
        return False
    return True
