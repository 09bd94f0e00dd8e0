"""The run's own test PKI, generated with `cryptography`: nothing is fixed, nothing is committed.

Security profiles 2 and 3 (TLS, mutual TLS), OCPI over HTTPS and Plug and Charge (ISO 15118
contract certificates) all need certificates, and each needs the broken ones a correct peer must
refuse: expired, signed by an authority the peer does not trust, issued for another host,
self-signed, revoked. An ``Authority`` issues them; ``Issued`` holds a certificate, its key and
the chain up to (not including) the root, and writes PEM files for the ``ssl`` module, which reads
files.

Validity starts on the real clock, not the harness's clock: OpenSSL judges a TLS certificate against
the process's wall time even when the embedded run's event loop fast-forwards. A certificate is valid
from an hour before issuing to a year after, so that it also holds for a verifier on the harness's
clock (the reference CSMS judging a contract certificate): the virtual clock of a whole embedded run
moves ahead by more than a day (HEARTBEAT16 waits one). An expired one ended a day before issuing.

Keys: RSA 2048 (OCPP 1.6: TLS certificates are RSA, "not greater than 2048" — bits, and the DER of
every certificate issued here is far below 2048 bytes, so either reading holds) or EC P-256 (the
curve of ISO 15118 and of OCPP 2.x's ECDSA suites). A private key never appears in a repr.
"""

from __future__ import annotations

import atexit
import base64
import ipaddress
import os
import shutil
import tempfile
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric import ec, padding, rsa
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

RSA = "rsa2048"
EC = "ec-p256"
VALID_BEFORE = timedelta(hours=1)     # tolerance for a peer whose clock runs a little behind
VALID_FOR = timedelta(days=365)
EXPIRED_AGO = timedelta(days=1)


def new_key(kind: str = EC):
    if kind == RSA:
        return rsa.generate_private_key(public_exponent=65537, key_size=2048)
    if kind == EC:
        return ec.generate_private_key(ec.SECP256R1())
    raise ValueError(f"key kind {kind!r}: use pki.RSA or pki.EC")


def _name(common_name: str, organization: str | None = None) -> x509.Name:
    parts = [x509.NameAttribute(NameOID.COMMON_NAME, common_name)]
    if organization:
        parts.append(x509.NameAttribute(NameOID.ORGANIZATION_NAME, organization))
    return x509.Name(parts)


def _san(host: str) -> x509.GeneralName:
    try:
        return x509.IPAddress(ipaddress.ip_address(host))
    except ValueError:
        return x509.DNSName(host)


def _pem(cert: x509.Certificate) -> bytes:
    return cert.public_bytes(serialization.Encoding.PEM)


def pem_text(cert: x509.Certificate) -> str:
    return _pem(cert).decode()


@dataclass(frozen=True)
class Issued:
    """A certificate, its private key, and the chain of sub-CAs between it and the root."""
    certificate: x509.Certificate
    key: object = field(repr=False)
    chain: tuple[x509.Certificate, ...] = ()

    @property
    def serial(self) -> int:
        return self.certificate.serial_number

    def certificate_pem(self, with_chain: bool = True) -> bytes:
        certs = (self.certificate, *self.chain) if with_chain else (self.certificate,)
        return b"".join(_pem(cert) for cert in certs)

    def key_pem(self) -> bytes:
        return self.key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                      serialization.NoEncryption())

    def write(self, directory: Path, name: str) -> tuple[Path, Path]:
        """``<name>.pem`` (certificate and chain) and ``<name>.key`` (readable by the owner only)."""
        directory.mkdir(parents=True, exist_ok=True)
        cert_path, key_path = directory / f"{name}.pem", directory / f"{name}.key"
        cert_path.write_bytes(self.certificate_pem())
        descriptor = os.open(key_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(self.key_pem())
        return cert_path, key_path


class Authority:
    """A certificate authority: a root (``Authority.root``) or a sub-CA of another (``sub_ca``)."""

    def __init__(self, issued: Issued, kind: str) -> None:
        self.issued = issued
        self.kind = kind
        self.revoked: set[int] = set()

    @classmethod
    def root(cls, common_name: str, organization: str | None = None, kind: str = EC, *,
             expired: bool = False) -> "Authority":
        key = new_key(kind)
        name = _name(common_name, organization)
        cert = _builder(name, name, key.public_key(), *_validity(expired)) \
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True) \
            .add_extension(_ca_usage(), critical=True) \
            .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False) \
            .sign(key, hashes.SHA256())
        return cls(Issued(cert, key), kind)

    @property
    def certificate(self) -> x509.Certificate:
        return self.issued.certificate

    def certificate_pem(self) -> bytes:
        """This authority's certificate alone: what a peer that trusts it loads."""
        return _pem(self.certificate)

    def sub_ca(self, common_name: str, organization: str | None = None) -> "Authority":
        key = new_key(self.kind)
        cert = self._sign(_builder(_name(common_name, organization), self.certificate.subject,
                                   key.public_key(), *_validity(expired=False))
                          .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
                          .add_extension(_ca_usage(), critical=True), key.public_key())
        return Authority(Issued(cert, key, self._chain()), self.kind)

    def issue(self, common_name: str, organization: str | None = None, *, server_names: tuple[str, ...] = (),
              client: bool = False, expired: bool = False, ocsp_url: str | None = None,
              kind: str | None = None) -> Issued:
        """A leaf: a TLS server certificate for ``server_names``, a client certificate (``client``),
        or neither (a contract certificate); ``expired`` ended a day ago; ``ocsp_url`` goes into the
        Authority Information Access extension, where a verifier finds the responder to ask."""
        key = new_key(kind or self.kind)
        builder = _leaf(_builder(_name(common_name, organization), self.certificate.subject, key.public_key(),
                                 *_validity(expired)), server_names, client, ocsp_url)
        return Issued(self._sign(builder, key.public_key()), key, self._chain())

    def sign_csr(self, csr_pem: bytes, *, expired: bool = False) -> x509.Certificate:
        """A client certificate for the subject and public key of a PEM certificate signing request (the
        CSMS's part of a certificate renewal, OCPP 2.x A02/A03); ``expired`` ended a day ago. The request's
        own signature is the caller's to check (``csr_problem``)."""
        csr = x509.load_pem_x509_csr(csr_pem)
        builder = _leaf(_builder(csr.subject, self.certificate.subject, csr.public_key(), *_validity(expired)),
                        (), True, None)
        return self._sign(builder, csr.public_key())

    def chain_pem(self, certificate: x509.Certificate) -> str:
        """``certificate`` and the sub-CAs up to the root, leaf first, PEM: a CertificateSigned chain."""
        return b"".join(_pem(cert) for cert in (certificate, *self._chain())).decode()

    def revoke(self, issued: Issued) -> None:
        self.revoked.add(issued.serial)

    def _chain(self) -> tuple[x509.Certificate, ...]:
        """The chain a certificate this authority signs presents: this authority and its sub-CAs up
        to the root, the root itself left out (a peer has it in its trust store)."""
        if self.certificate.issuer == self.certificate.subject:
            return ()
        return (self.certificate, *self.issued.chain)

    def _sign(self, builder: x509.CertificateBuilder, public_key) -> x509.Certificate:
        return builder \
            .add_extension(x509.SubjectKeyIdentifier.from_public_key(public_key), critical=False) \
            .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(self.issued.key.public_key()),
                           critical=False) \
            .sign(self.issued.key, hashes.SHA256())


def self_signed(common_name: str, organization: str | None = None, *, server_names: tuple[str, ...] = (),
                client: bool = False, kind: str = EC) -> Issued:
    """A leaf signed by its own key: what a peer that checks certificates must refuse."""
    key = new_key(kind)
    name = _name(common_name, organization)
    builder = _leaf(_builder(name, name, key.public_key(), *_validity(expired=False)), server_names, client, None)
    return Issued(builder.sign(key, hashes.SHA256()), key)


def _leaf(builder: x509.CertificateBuilder, server_names: tuple[str, ...], client: bool,
          ocsp_url: str | None) -> x509.CertificateBuilder:
    builder = builder.add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
    usages = ([ExtendedKeyUsageOID.SERVER_AUTH] if server_names else []) + \
             ([ExtendedKeyUsageOID.CLIENT_AUTH] if client else [])
    if usages:
        builder = builder.add_extension(x509.ExtendedKeyUsage(usages), critical=False)
    if server_names:
        builder = builder.add_extension(x509.SubjectAlternativeName([_san(host) for host in server_names]),
                                        critical=False)
    if ocsp_url:
        builder = builder.add_extension(x509.AuthorityInformationAccess([x509.AccessDescription(
            x509.oid.AuthorityInformationAccessOID.OCSP, x509.UniformResourceIdentifier(ocsp_url))]),
            critical=False)
    return builder


def _builder(subject: x509.Name, issuer: x509.Name, public_key, not_before: datetime,
             not_after: datetime) -> x509.CertificateBuilder:
    return x509.CertificateBuilder().subject_name(subject).issuer_name(issuer).public_key(public_key) \
        .serial_number(x509.random_serial_number()).not_valid_before(not_before).not_valid_after(not_after)


def _validity(expired: bool) -> tuple[datetime, datetime]:
    now = datetime.now(timezone.utc)   # the real clock: OpenSSL checks against it (module docstring)
    if expired:
        return now - EXPIRED_AGO - VALID_FOR, now - EXPIRED_AGO
    return now - VALID_BEFORE, now + VALID_FOR


def _ca_usage() -> x509.KeyUsage:
    return x509.KeyUsage(digital_signature=True, content_commitment=False, key_encipherment=False,
                         data_encipherment=False, key_agreement=False, key_cert_sign=True, crl_sign=True,
                         encipher_only=False, decipher_only=False)


def load_authority(certificate_pem: bytes, key_pem: bytes) -> Authority:
    """A root kept from an earlier run (``Authority.root`` written with ``Issued.write``)."""
    key = serialization.load_pem_private_key(key_pem, password=None)
    kind = RSA if isinstance(key, rsa.RSAPrivateKey) else EC
    return Authority(Issued(x509.load_pem_x509_certificate(certificate_pem), key), kind)


def make_csr(key, common_name: str, organization: str | None = None) -> str:
    """A PEM certificate signing request (RFC 2986) for ``key``'s public key, signed with ``key``."""
    return csr_of(_name(common_name, organization), key)


def csr_of(subject: x509.Name, key) -> str:
    return x509.CertificateSigningRequestBuilder().subject_name(subject).sign(key, hashes.SHA256()) \
        .public_bytes(serialization.Encoding.PEM).decode()


def csr_problem(csr_pem: str) -> str | None:
    """Why ``csr_pem`` is not a PEM certificate signing request signed by its own key, or None."""
    try:
        csr = x509.load_pem_x509_csr(csr_pem.encode())
    except ValueError as error:
        return f"not a PEM certificate signing request ({error})"
    if not csr.is_signature_valid:
        return "its signature does not verify with the public key it carries"
    return None


def same_public_key(a, b) -> bool:
    form = (serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)
    return a.public_bytes(*form) == b.public_bytes(*form)


def load_chain(pem: str) -> list[x509.Certificate]:
    """The certificates of a PEM bundle, leaf first (ValueError: none, or one that does not parse)."""
    certificates = x509.load_pem_x509_certificates(pem.encode())
    if not certificates:
        raise ValueError("no certificate")
    return certificates


HASHES = {"SHA256": hashes.SHA256, "SHA384": hashes.SHA384, "SHA512": hashes.SHA512}


def _digest(algorithm: str, data: bytes) -> str:
    digest = hashes.Hash(HASHES[algorithm]())
    digest.update(data)
    return digest.finalize().hex()


def hash_data(certificate: x509.Certificate, issuer_key, algorithm: str = "SHA256") -> dict[str, str]:
    """OCPP's CertificateHashDataType of ``certificate``: the hashes of its issuer's name (DER) and of the
    issuer's public key (the bits of its subjectPublicKeyInfo), and its serial number in hex (lower case,
    no leading zeros) — ``issuer_key`` is the certificate's own for a root."""
    key_bits = issuer_key.public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint) \
        if isinstance(issuer_key, ec.EllipticCurvePublicKey) else \
        issuer_key.public_bytes(serialization.Encoding.DER, serialization.PublicFormat.PKCS1)
    return {"hashAlgorithm": algorithm, "issuerNameHash": _digest(algorithm, certificate.issuer.public_bytes()),
            "issuerKeyHash": _digest(algorithm, key_bits), "serialNumber": format(certificate.serial_number, "x")}


def same_hash_data(a: dict, b: dict) -> bool:
    """Two CertificateHashData name one certificate: the hashes in any case, the serial number by value."""
    try:
        serials = int(a["serialNumber"], 16) == int(b["serialNumber"], 16)
    except ValueError:
        return False
    return serials and all(a[k].lower() == b[k].lower() for k in ("hashAlgorithm", "issuerNameHash", "issuerKeyHash"))


# Firmware signing (the 1.6 security extension's L01, OCPP 2.x L01): RSA-PSS over the SHA-256 of the whole file
def _pss(salt_length: int) -> padding.PSS:
    return padding.PSS(mgf=padding.MGF1(hashes.SHA256()), salt_length=salt_length)


def sign_firmware(key, firmware: bytes) -> str:
    """The base64 signature of ``firmware`` with ``key`` (RSA-PSS, SHA-256, a salt as long as the digest): a
    SignedUpdateFirmware's firmware.signature."""
    return base64.b64encode(key.sign(firmware, _pss(padding.PSS.DIGEST_LENGTH), hashes.SHA256())).decode()


def firmware_signature_problem(certificate: x509.Certificate, firmware: bytes, signature: str) -> str | None:
    """Why ``signature`` (base64) is not ``certificate``'s RSA-PSS SHA-256 signature of ``firmware``, or None
    (any salt length: the texts fix none)."""
    try:
        raw = base64.b64decode(signature, validate=True)
    except ValueError:
        return "the signature is not base64"
    key = certificate.public_key()
    if not isinstance(key, rsa.RSAPublicKey):
        return "the signing certificate's key is not RSA (RSA-PSS is the signature checked here)"
    try:
        key.verify(raw, firmware, _pss(padding.PSS.AUTO), hashes.SHA256())
    except InvalidSignature:
        return "the signature does not verify over the firmware file with the signing certificate's key"
    return None


def signing_certificate_problem(pem: str, roots: list[x509.Certificate], now: datetime) -> str | None:
    """Why ``pem`` is not a firmware signing certificate issued directly by one of ``roots`` and valid at
    ``now`` (the white paper's L01 remarks: no intermediate certificates), or None."""
    try:
        certificate = load_chain(pem)[0]
    except ValueError:
        return "the signing certificate is not PEM X.509"
    if not certificate.not_valid_before_utc <= now <= certificate.not_valid_after_utc:
        return "the signing certificate is not valid now"
    for root in roots:
        try:
            certificate.verify_directly_issued_by(root)
            return None
        except (ValueError, TypeError, InvalidSignature):
            continue
    return "the signing certificate is not issued by a manufacturer root the station trusts"


# The certificates a TLS test presents: the valid one and each kind a correct peer must refuse.
VALID, EXPIRED, WRONG_HOST, OTHER_ROOT, SELF_SIGNED = "valid", "expired", "wrong_host", "other_root", "self_signed"
BROKEN = (EXPIRED, WRONG_HOST, OTHER_ROOT, SELF_SIGNED)
WRONG_HOST_NAME = "wrong-host.invalid"   # a name no test peer is reached at (RFC 6761 .invalid)
# client certificates valid in every other way (the trusted root, in date) that name someone else: another
# operator in O (A00.FR.404), another station's serial number in CN (A00.FR.405)
OTHER_OPERATOR, OTHER_STATION = "other_operator", "other_station"
OTHER_OPERATOR_NAME, OTHER_STATION_SERIAL = "Unrelated Operator Ltd", "OTHER-STATION-0002"


class HarnessPki:
    """The harness's side of the TLS tests: its root, kept in ``directory`` (made there on first use:
    ``root.pem`` is what the SUT installs as trusted, ``root.key`` stays readable by the owner only),
    and every certificate the tests present, issued from it on demand and written there as PEM files.

    RSA keys (OCPP 1.6 allows only RSA, spec 002 Authentication 2, and 2.x accepts them), and an EC server
    certificate beside the RSA one for the ECDSA cipher suites (``server(kind=EC)``)."""

    def __init__(self, directory: Path, *, organization: str = "EVSE Conformance Harness") -> None:
        self.directory = directory
        self.organization = organization
        cert_path, key_path = directory / "root.pem", directory / "root.key"
        if cert_path.exists() and key_path.exists():
            self.root = load_authority(cert_path.read_bytes(), key_path.read_bytes())
        else:
            self.root = Authority.root("EVSE Conformance Test Root", organization, kind=RSA)
            self.root.issued.write(directory, "root")
        self._files: dict[tuple, tuple[Path, Path]] = {}
        self._kept = 0
        self._manufacturer: Authority | None = None
        self._signer: Issued | None = None

    @property
    def root_path(self) -> Path:
        return self.directory / "root.pem"

    def server(self, variant: str, hosts: tuple[str, ...], kind: str = RSA) -> tuple[Path, Path]:
        """(certificate, key) of a TLS server certificate for ``hosts``: ``VALID`` or one of ``BROKEN``; an RSA key,
        or an EC one (``kind=EC``: the certificate of the ECDSA cipher suites a CSMS serves besides)."""
        return self._issued(("server", variant, hosts, kind), lambda: self._make(
            variant, "harness server", server_names=(WRONG_HOST_NAME,) if variant == WRONG_HOST else hosts,
            kind=kind))

    def client(self, variant: str, serial: str, operator: str | None = None) -> tuple[Path, Path]:
        """(certificate, key) of a client certificate, CN the station's serial number, O its operator: ``VALID``,
        one of ``BROKEN`` but the host, or ``OTHER_OPERATOR``/``OTHER_STATION`` (another O, another CN)."""
        if variant == WRONG_HOST:
            raise ValueError("a client certificate names no host")
        if variant == OTHER_OPERATOR:
            if operator is not None and operator in OTHER_OPERATOR_NAME:
                raise ValueError(f"the operator {operator!r} is part of {OTHER_OPERATOR_NAME!r}: no other operator")
            variant, operator = VALID, OTHER_OPERATOR_NAME
        elif variant == OTHER_STATION:
            if serial in OTHER_STATION_SERIAL:
                raise ValueError(f"the serial number {serial!r} is part of {OTHER_STATION_SERIAL!r}: no other station")
            variant, serial = VALID, OTHER_STATION_SERIAL
        return self._issued(("client", variant, serial, operator),
                            lambda: self._make(variant, serial, operator, client=True))

    @property
    def manufacturer(self) -> Authority:
        """The run's manufacturer root (RSA), kept beside the operator root: it issues the firmware signing
        certificate; a station trusts it as its ManufacturerRootCertificate."""
        if self._manufacturer is None:
            cert_path, key_path = self.directory / "manufacturer.pem", self.directory / "manufacturer.key"
            if cert_path.exists() and key_path.exists():
                self._manufacturer = load_authority(cert_path.read_bytes(), key_path.read_bytes())
            else:
                self._manufacturer = Authority.root("EVSE Conformance Manufacturer Root", self.organization, kind=RSA)
                self._manufacturer.issued.write(self.directory, "manufacturer")
        return self._manufacturer

    def firmware_signer(self) -> Issued:
        """The firmware signing certificate of this run (RSA, issued directly by the manufacturer root) and its
        key, made once."""
        if self._signer is None:
            self._signer = self.manufacturer.issue("EVSE Conformance Firmware Signing", self.organization)
            self._signer.write(self.directory, f"firmware-signer-{os.getpid()}")
        return self._signer

    def keep_key(self, name: str, key) -> None:
        """A private key made during the run (a station's renewal key) kept beside the PKI's own, readable by
        the owner only: the secret-leak self-check searches every output for the keys in this directory."""
        self._kept += 1
        Issued(self.root.certificate, key).write(self.directory, f"{name}-{os.getpid()}-{self._kept}")

    def _make(self, variant: str, common_name: str, organization: str | None = None, kind: str = RSA,
              **usage) -> Issued:
        if variant == SELF_SIGNED:
            return self_signed(common_name, organization, kind=kind, **usage)
        issuer = Authority.root("Unknown Root", "Nobody", kind=RSA) if variant == OTHER_ROOT else self.root
        return issuer.issue(common_name, organization, expired=variant == EXPIRED, kind=kind, **usage)

    def _issued(self, key: tuple, make) -> tuple[Path, Path]:
        if key not in self._files:
            # named for this process too: a standalone reference and the harness may share the directory
            self._files[key] = make().write(self.directory, f"{key[0]}-{os.getpid()}-{len(self._files)}")
        return self._files[key]


_KEPT: dict[Path | None, HarnessPki] = {}


def harness_pki(directory: Path | None = None) -> HarnessPki:
    """The process's ``HarnessPki`` kept in ``directory``; without one (the embedded run) in a temporary
    directory made for this run and removed when the process ends: nothing outlives it."""
    if directory not in _KEPT:
        where = directory
        if where is None:
            where = Path(tempfile.mkdtemp(prefix="evse-pki-"))
            atexit.register(shutil.rmtree, where, True)
        _KEPT[directory] = HarnessPki(where)
    return _KEPT[directory]
