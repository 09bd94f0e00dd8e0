"""Security: in 1.6 (Authentication 3-4) the Basic-auth password is the charge point's 20-byte
AuthorizationKey, and the central system can rotate it; in 2.x (blocks A and M, docs/requirements/security.md)
the station renews its client certificate (A02 asked by TriggerMessage, A03 on its own), reports security
events (A04) and keeps a store of CA certificates the CSMS installs, lists and deletes (M03-M05).

Rotation (Authentication 4): the next boot is answered Pending, ChangeConfiguration sets
AuthorizationKey to a new key in hex, and after Accepted the central system closes the connection;
from then on only the new key opens a connection. The charge point uses an accepted new key as the
password of its next connection; a key the SUT accepted is the profile's key for every later test.
"""

from __future__ import annotations

import asyncio
import secrets
from typing import Any

from cryptography import x509
from cryptography.exceptions import InvalidSignature

from harness.errors import HarnessError, PeerViolation
from harness.reference.base import StationSession
from harness import clock, pki
from harness.wire import REDACTOR
from harness.reference.common import V2X, V16, Block, Undo, now_iso
from harness.ocpp.v16 import AUTHORIZATION_KEY
from harness.reference.v16.config import new_authorization_key
from harness.transport.ws import CallFailed


class SecurityStation16(Block):
    versions = V16

    def basic_auth_password(self) -> bytes | None:
        return self.profile.authorization_key

    def configuration_changed(self, key: str, value: str, status: str) -> None:
        super().configuration_changed(key, value, status)
        if status == "Accepted" and key.casefold() == AUTHORIZATION_KEY.casefold():
            self.password = bytes.fromhex(value)   # the next connection's Basic-auth password
            if self.identity == self.profile.identity:
                self.profile.key_rotated(self.password)


class SecurityCsms16(Block):
    versions = V16
    requires = ("ProvisioningCsms16",)
    configurable = frozenset({"rotate_on_boot"})

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.keys: dict[str, bytes] = {self.profile.identity: self.profile.authorization_key} \
            if self.profile.authorization_key else {}
        self.rotate_on_boot = False
        self.rotating: set[str] = set()   # the stations whose new key is sent and not yet answered

    def basic_auth_required(self) -> bool:
        return bool(self.profile.authorization_key)

    def check_password(self, identity: str, password: bytes) -> bool:
        key = self.keys.get(identity)
        return key is not None and secrets.compare_digest(password, key)

    def boot_status(self, session: StationSession, status: str) -> str:
        if session.identity in self.rotating:   # a boot retried while the new key waits for its answer
            return super().boot_status(session, "Pending")
        if not self.rotate_on_boot:
            return super().boot_status(session, status)
        self.rotate_on_boot = False
        self.rotating.add(session.identity)
        self.background.spawn(self.rotate_key(session))
        return super().boot_status(session, "Pending")

    async def rotate_key(self, session: StationSession) -> None:
        await asyncio.sleep(0)   # the Pending answer goes out first
        new = new_authorization_key(session.identity)
        try:
            answer = await session.connection.call("ChangeConfiguration", {"key": AUTHORIZATION_KEY, "value": new.hex()})
        except (CallFailed, PeerViolation, HarnessError):
            return
        finally:
            self.rotating.discard(session.identity)
        if answer["status"] == "Accepted":
            self.keys[session.identity] = new
            if session.identity == self.profile.identity:
                self.profile.key_rotated(new)
            await session.connection.close()

    async def act_rotate_authorization_key(self) -> None:
        """Rotate the station's key at its next boot (Authentication 4)."""
        self.rotate_on_boot = True


SIGN_REQUESTS = {"SignChargingStationCertificate": "ChargingStationCertificate", "SignV2GCertificate": "V2GCertificate",
                 "SignCombinedCertificate": None}   # a TriggerMessage → the SignCertificate's certificateType
TECH_INFO = 255   # SecurityEventNotificationRequest techInfo maxLength


def run_pki(profile) -> pki.HarnessPki:
    """The run's PKI (the harness's root, which the CSMS signs renewed certificates with)."""
    return pki.harness_pki(profile.tls_path("harness_pki"))


def _valid_now(certificate: x509.Certificate) -> bool:
    return certificate.not_valid_before_utc <= clock.utcnow() <= certificate.not_valid_after_utc


def _is_ca(certificate: x509.Certificate) -> bool:
    try:
        return certificate.extensions.get_extension_for_class(x509.BasicConstraints).value.ca
    except x509.ExtensionNotFound:
        return False


PASSWORD_LENGTH = (16, 64)   # facts ocpp-j.md: 16-40 characters, up to the configured maximum (40-64) by errata
PASSWORD = ("SecurityCtrlr", "BasicAuthPassword")


def new_password(identity: str, length: int = 32) -> str:
    """A fresh BasicAuthPassword of ``length`` characters, registered (raw, base64, Basic header) before it is
    used."""
    password = secrets.token_urlsafe(length)[:length]
    REDACTOR.register(password, identity=identity)
    return password


class SecurityStation2x(Block):
    """A01: a BasicAuthPassword of 16 to 64 characters set by SetVariables is Accepted, the station closes its
    connection once the answer is out and reconnects with it (the offline block reconnects); any other length is
    Rejected. Its certificates: a CSR made with a new EC key for each renewal (the key is kept in the run's PKI
    directory, never sent), the signed certificate checked before it is taken (its key the CSR's, valid now,
    issued by the run's root through the chain it came with), a security event for one that is not; the CA
    certificates installed by the CSMS, listed by type with their SHA256 hash data, deleted by hash data."""
    versions = V2X
    precedes = ("RemoteTriggerStation2x", "DeviceModelStation2x")
    password_lengths = PASSWORD_LENGTH

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.installed: list[tuple[str, x509.Certificate]] = []   # (certificateType, CA certificate)
        self.renewal_key: Any = None
        self.client_certificate: x509.Certificate | None = None

    # ------------------------------------------------------------ A01: the password
    def variable_written(self, component: str, name: str, value: str) -> str | None:
        if (component, name) != PASSWORD:
            return super().variable_written(component, name, value)
        REDACTOR.register(value, identity=self.identity)
        if not self.password_lengths[0] <= len(value) <= self.password_lengths[1]:
            return "Rejected"
        self.password = value   # the next connection's Basic-auth password
        if self.identity == self.profile.identity:
            self.profile.password_rotated(value)
        self.background.spawn(self._reconnect_with_new_password())
        return "Accepted"

    async def _reconnect_with_new_password(self) -> None:
        await asyncio.sleep(0)   # the SetVariablesResponse goes out first
        if self.connection is not None:
            await self.connection.close()

    # ------------------------------------------------------------ A02, A03: renewal
    def triggered(self, message: str, payload: dict) -> bool:
        if message not in SIGN_REQUESTS:
            return super().triggered(message, payload)
        self.background.spawn(self.request_signing(SIGN_REQUESTS[message]))
        return True

    async def request_signing(self, certificate_type: str | None) -> None:
        await asyncio.sleep(0)   # the TriggerMessageResponse goes out first
        self.renewal_key = key = pki.new_key(pki.EC)
        run_pki(self.profile).keep_key("renewal", key)
        csr = pki.make_csr(key, self.profile.serial_number, self.profile.get("tls.operator"))
        await self.call("SignCertificate", {"csr": csr} | ({"certificateType": certificate_type}
                                                           if certificate_type else {}))

    async def act_sign_certificate(self, certificate_type: str | None = "ChargingStationCertificate") -> None:
        """A03: the station renews its certificate on its own (its old one is about to expire)."""
        self.background.spawn(self.request_signing(certificate_type))

    def certificate_problem(self, chain_pem: str) -> str | None:
        if self.renewal_key is None:
            return "no certificate signing request is pending"
        try:
            chain = pki.load_chain(chain_pem)
        except ValueError:
            return "the certificate chain is not PEM"
        leaf = chain[0]
        if not pki.same_public_key(leaf.public_key(), self.renewal_key.public_key()):
            return "the certificate is not for the key of the signing request"
        if not _valid_now(leaf):
            return "the certificate is not valid now"
        root = run_pki(self.profile).root.certificate
        try:
            for child, parent in zip(chain, [*chain[1:], root]):
                if child != root:
                    child.verify_directly_issued_by(parent)
        except (ValueError, TypeError, InvalidSignature):
            return "the certificate is not of the operator's hierarchy"
        return None

    def on_CertificateSigned(self, _: None, payload: dict) -> dict:
        problem = self.certificate_problem(payload["certificateChain"])
        if problem is not None:
            self.background.spawn(self.security_event("InvalidChargingStationCertificate", problem))
            return {"status": "Rejected"}
        self.client_certificate = pki.load_chain(payload["certificateChain"])[0]
        self.renewal_key = None
        return {"status": "Accepted"}

    # ------------------------------------------------------------ A04: security events
    async def security_event(self, kind: str, tech_info: str | None = None) -> None:
        await asyncio.sleep(0)
        await self.call("SecurityEventNotification", {"type": kind, "timestamp": now_iso()}
                        | ({"techInfo": tech_info[:TECH_INFO]} if tech_info else {}))

    async def act_security_event(self, type: str = "SettingSystemTime", tech_info: str | None = None) -> None:
        """A04: a security event happens at the station (its clock set, by default)."""
        self.background.spawn(self.security_event(type, tech_info))

    # ------------------------------------------------------------ M03-M05: the CA certificates
    def _issuer_key(self, certificate: x509.Certificate):
        issuer = next((c for _, c in self.installed if c.subject == certificate.issuer), certificate)
        return issuer.public_key()

    def on_InstallCertificate(self, _: None, payload: dict) -> dict:
        try:
            certificate = pki.load_chain(payload["certificate"])[0]
        except ValueError:
            return {"status": "Rejected"}
        if not _is_ca(certificate) or not _valid_now(certificate):
            return {"status": "Rejected"}
        entry = (payload["certificateType"], certificate)
        if entry not in self.installed:
            self.installed.append(entry)
        return {"status": "Accepted"}

    def on_GetInstalledCertificateIds(self, _: None, payload: dict) -> dict:
        wanted = payload.get("certificateType")
        chain = [{"certificateType": kind, "certificateHashData": pki.hash_data(c, self._issuer_key(c))}
                 for kind, c in self.installed if not wanted or kind in wanted]
        return {"status": "Accepted", "certificateHashDataChain": chain} if chain else {"status": "NotFound"}

    def on_DeleteCertificate(self, _: None, payload: dict) -> dict:
        asked = payload["certificateHashData"]
        for entry in self.installed:
            data = pki.hash_data(entry[1], self._issuer_key(entry[1]), asked["hashAlgorithm"])
            if pki.same_hash_data(data, asked):
                self.installed.remove(entry)
                return {"status": "Accepted"}
        return {"status": "NotFound"}


class SecurityCsms2x(Block):
    """The CSMS's side: a SignCertificateRequest whose CSR is well formed and signed by its own key is Accepted
    and signed with the run's root, and the chain sent in CertificateSigned (its certificateType echoed);
    ``signed_certificate`` makes it send a certificate a station must refuse instead (``expired``,
    ``other_root``, ``other_key``); security events are answered and kept. Its operator's actions: TriggerMessage
    (the remote trigger block), InstallCertificate, GetInstalledCertificateIds, DeleteCertificate; an installed
    certificate is deleted again at a station under test when the test ends."""
    versions = V2X
    configurable = frozenset({"signed_certificate"})
    signed_certificate = "valid"
    password_length = 32

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.security_events: list[dict] = []

    async def act_rotate_basic_auth_password(self, station: str | None = None) -> None:
        """A01: the operator sets a new password: SetVariables SecurityCtrlr.BasicAuthPassword; once Accepted
        it is the only password the CSMS admits for the station (the old one no longer)."""
        session = self.session(station)
        self.background.spawn(self._rotate_password(session))

    async def _rotate_password(self, session: StationSession) -> None:
        password = new_password(session.identity, self.password_length)
        item = {"attributeValue": password, "component": {"name": PASSWORD[0]}, "variable": {"name": PASSWORD[1]}}
        try:
            answer = await session.connection.call("SetVariables", {"setVariableData": [item]})
        except (CallFailed, PeerViolation, HarnessError):
            return
        if answer["setVariableResult"][0]["attributeStatus"] == "Accepted" and session.identity == self.profile.identity:
            self.profile.password_rotated(password)

    def on_SignCertificate(self, session: StationSession, payload: dict) -> dict:
        if pki.csr_problem(payload["csr"]) is not None:
            return {"status": "Rejected"}
        self.background.spawn(self._certificate_signed(session, payload))
        return {"status": "Accepted"}

    def signed_chain(self, csr: str) -> str:
        authority = run_pki(self.profile).root
        if self.signed_certificate == "other_root":
            authority = pki.Authority.root("Unknown Root", "Nobody")
        elif self.signed_certificate == "other_key":
            csr = pki.csr_of(x509.load_pem_x509_csr(csr.encode()).subject, pki.new_key(pki.EC))
        return authority.chain_pem(authority.sign_csr(csr.encode(), expired=self.signed_certificate == "expired"))

    async def _certificate_signed(self, session: StationSession, payload: dict) -> None:
        await asyncio.sleep(0)   # the SignCertificateResponse goes out first
        body = {"certificateChain": self.signed_chain(payload["csr"])}
        if "certificateType" in payload:
            body["certificateType"] = payload["certificateType"]
        try:
            await session.connection.call("CertificateSigned", body)
        except (CallFailed, PeerViolation, HarnessError):
            return

    def on_SecurityEventNotification(self, session: StationSession, payload: dict) -> dict:
        self.security_events.append(payload)
        return {}

    async def act_install_certificate(self, certificate_type: str, certificate: str, station: str | None = None) -> None:
        self.send(station, "InstallCertificate", {"certificateType": certificate_type, "certificate": certificate})

    async def act_get_installed_certificate_ids(self, certificate_type: list[str] | None = None,
                                                station: str | None = None) -> None:
        self.send(station, "GetInstalledCertificateIds",
                  {"certificateType": certificate_type} if certificate_type else {})

    async def act_delete_certificate(self, certificate_hash_data: dict, station: str | None = None) -> None:
        self.send(station, "DeleteCertificate", {"certificateHashData": certificate_hash_data})

    async def undo_InstallCertificate(self, payload: dict, link: Any) -> Undo | None:
        """The certificate installed is deleted again (named by its SHA256 hash data; a root's issuer key is its
        own)."""
        try:
            certificate = pki.load_chain(payload["certificate"])[0]
        except ValueError:
            return None
        data = pki.hash_data(certificate, certificate.public_key())
        return Undo(f"delete the {payload['certificateType']} {data['serialNumber']} installed",
                    lambda now: now.call_exchange("DeleteCertificate", {"certificateHashData": data}))
