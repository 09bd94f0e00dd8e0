"""Certificates and security events, in every version (OCPP 2.x blocks A and M; the 1.6 security extension, the
OCA white paper "Improved security for OCPP 1.6-J": docs/requirements/security.md).

Station: asked by TriggerMessage (2.x: SignChargingStationCertificate, SignV2GCertificate, SignCombinedCertificate,
through the remote trigger block's ``triggered`` hook) or ExtendedTriggerMessage (1.6: SignChargePointCertificate),
or on its own (``sign_certificate``: A03), it makes a new EC P-256 key, keeps it in the run's PKI directory (never
on the wire: the secret-leak self-check searches every output for it) and sends a PEM CSR (CN its serial number,
O the operator's name). It takes a signed certificate only for that key, valid now, of the run's root through the
chain it came with; any other it refuses and reports (InvalidChargingStationCertificate; 1.6
InvalidChargePointCertificate). It reports the security events it is told happened (``security_event``). Its CA
certificates: installed when valid CA certificates, listed with their SHA256 hash data (2.x: a chain per type
asked; 1.6: one type, a flat list), deleted by hash data in the algorithm given. An EV's ISO 15118 certificate request is
forwarded in Get15118EVCertificate (``ev_certificate``: M01 Install, M02 Update; stand-in EXI bytes, base64); the
status of its V2G certificate asked with GetCertificateStatus (``certificate_status``: M06; a certificate of the
run's contract PKI stands for it).

CSMS: a SignCertificate whose CSR is well formed and signed by its own key is Accepted and signed with the run's
root, the chain sent in CertificateSigned (2.x: its certificateType echoed); ``signed_certificate`` makes it send
one a station must refuse instead (``expired``, ``other_root``, ``other_key``). Security events are answered and
kept. Get15118EVCertificate: it stands in for the contract certificate pool (opaque base64 bytes back; Failed for
an exiRequest that is not base64; to an ISO 15118-20 request the contracts left in its pool of 3, remainingContracts).
GetCertificateStatus: the OCSP answer of the run's own responder, relayed; any
other responderURL, or no answer, Failed.
Its operator's actions: InstallCertificate, GetInstalledCertificateIds, DeleteCertificate (and the triggers
of the remote trigger block); a certificate installed at a station under test is deleted when the test ends.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
from typing import TYPE_CHECKING, Any

from harness import clock
from harness.errors import HarnessError, PeerViolation
from harness.ocpp.versions import OcppVersion
from harness.reference.base import StationSession
from harness.reference.common import EVERY_VERSION, V16, V2X, Block, Undo, now_iso, store
from harness.transport.ws import CallFailed, Handshake

if TYPE_CHECKING:
    from cryptography import x509

    from harness import contract_pki, pki
else:   # cryptography (~7-15 MB) only once a certificate is handled: a load client never pays it
    from harness.lazy import lazy_module
    contract_pki, pki = lazy_module("harness.contract_pki"), lazy_module("harness.pki")

# a trigger → the SignCertificate's certificateType (None: none sent)
SIGN_REQUESTS = {"SignChargingStationCertificate": "ChargingStationCertificate", "SignV2GCertificate": "V2GCertificate",
                 "SignV2G20Certificate": "V2G20Certificate",
                 "SignCombinedCertificate": None, "SignChargePointCertificate": None}
ISO15118_2_SCHEMA = "urn:iso:15118:2:2013:MsgDef"
EXI_STAND_IN = b"\x80\x98\x02 stand-in EXI, "   # opaque bytes for an EV's EXI message (nothing parses them)
STATUS_SUBJECT = "V2G-STATUS-CERT"   # the certificate M06 asks about (issued by the run's contract PKI)
TECH_INFO = 255   # SecurityEventNotification techInfo maxLength
CONTRACT_POOL = 3   # the contracts the stand-in pool holds for an EV of an ISO 15118-20 session (remainingContracts)


def run_pki(profile) -> pki.HarnessPki:
    """The run's PKI (the harness's root, which the CSMS signs renewed certificates with)."""
    return pki.harness_pki(profile.tls_path("harness_pki"))


def invalid_certificate_event(version: OcppVersion) -> str:
    return "InvalidChargePointCertificate" if version is OcppVersion.V16 else "InvalidChargingStationCertificate"


def invalid_server_event(version: OcppVersion) -> str:
    """The event of a CSMS certificate the station could not verify (1.6 white paper A00.FR.309)."""
    return "InvalidCentralSystemCertificate" if version is OcppVersion.V16 else "InvalidCsmsCertificate"


UNVERIFIED = "CERTIFICATE_VERIFY_FAILED"   # OpenSSL's reason for a server certificate this end refused
# OpenSSL's reasons for a server that speaks only an old TLS version: it answered with one (this end refused it),
# or it refused this end's versions with the protocol_version alert
OLD_VERSION = ("UNSUPPORTED_PROTOCOL", "WRONG_VERSION_NUMBER", "ALERT_PROTOCOL_VERSION")
INVALID_TLS_VERSION = "InvalidTLSVersion"   # 2.0.1 A00.FR.316/419, 1.6 white paper A00.FR.315/419


def _valid_now(certificate: x509.Certificate) -> bool:
    return certificate.not_valid_before_utc <= clock.utcnow() <= certificate.not_valid_after_utc


def _is_ca(certificate: x509.Certificate) -> bool:
    from cryptography import x509
    try:
        return certificate.extensions.get_extension_for_class(x509.BasicConstraints).value.ca
    except x509.ExtensionNotFound:
        return False


class CertificatesStation(Block):
    """A server certificate it refused in a TLS handshake is reported (InvalidCsmsCertificate; 1.6
    InvalidCentralSystemCertificate), and a server that speaks only an old TLS version (InvalidTLSVersion), once a
    connection is open and its boot Accepted: the event waits for it."""
    versions = EVERY_VERSION
    precedes = ("ProvisioningStation2x", "ProvisioningStation16", "RemoteTriggerStation2x", "RemoteTriggerStation16")
    configurable = frozenset({"hash_algorithm"})   # the algorithm of the hash data it lists
    hash_algorithm = "SHA256"

    installed: list[tuple[str, x509.Certificate]] = store(list)   # (certificateType, CA certificate)
    renewal_key: Any = store()
    client_certificate: x509.Certificate | None = store()

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)   # both read at every connect: started here (see common.store)
        self.security_events_waiting: list[tuple[str, str]] = []   # security events waiting for an accepted connection
        self.security_events_offline: list[dict] = []   # A04.FR.02: events that happened while not connected

    async def connect(self, csms_url: str, **options: Any) -> Handshake:
        handshake = await super().connect(csms_url, **options)
        if handshake.tls_refused is not None and UNVERIFIED in handshake.tls_refused:
            self.security_events_waiting.append((invalid_server_event(self.version), handshake.tls_refused))
        elif handshake.tls_refused is not None and any(why in handshake.tls_refused for why in OLD_VERSION):
            self.security_events_waiting.append((INVALID_TLS_VERSION, handshake.tls_refused))
        return handshake

    async def boot(self) -> dict:
        response = await super().boot()
        if response.get("status") == "Accepted" and self.security_events_waiting:
            waiting, self.security_events_waiting = self.security_events_waiting, []
            for kind, why in waiting:
                self.background.spawn(self.security_event(kind, why))
        return response

    # ------------------------------------------------------------ A02, A03: renewal
    def triggered(self, message: str, payload: dict) -> bool:
        if message not in SIGN_REQUESTS:
            return super().triggered(message, payload)
        self.background.spawn(self.request_signing(SIGN_REQUESTS[message]))
        return True

    async def request_signing(self, certificate_type: str | None) -> None:
        await asyncio.sleep(0)   # the trigger's answer goes out first
        self.renewal_key = key = pki.new_key(pki.EC)
        run_pki(self.profile).keep_key("renewal", key)
        csr = pki.make_csr(key, self.profile.serial_number, self.profile.get("tls.operator"))
        typed = certificate_type and self.version is not OcppVersion.V16
        await self.call("SignCertificate", {"csr": csr} | ({"certificateType": certificate_type} if typed else {}))

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
        from cryptography.exceptions import InvalidSignature
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
            self.background.spawn(self.security_event(invalid_certificate_event(self.version), problem))
            return {"status": "Rejected"}
        self.client_certificate = pki.load_chain(payload["certificateChain"])[0]
        self.renewal_key = None
        return {"status": "Accepted"}

    # ------------------------------------------------------------ A04: security events
    async def security_event(self, kind: str, tech_info: str | None = None) -> None:
        """A04.FR.02: an event while there is no connection waits (its timestamp when it happened) and goes out
        once the station is connected again."""
        await asyncio.sleep(0)
        payload = {"type": kind, "timestamp": now_iso()} | ({"techInfo": tech_info[:TECH_INFO]} if tech_info else {})
        if self.connection is None or self.connection.closed:
            self.security_events_offline.append(payload)
            return
        await self.call("SecurityEventNotification", payload)

    async def connected(self, connection: Any) -> None:
        await super().connected(connection)
        if self.security_events_offline and (self.boot_response or {}).get("status") == "Accepted":
            waiting, self.security_events_offline = self.security_events_offline, []
            self.background.spawn(self._deliver_offline_events(waiting))

    async def _deliver_offline_events(self, waiting: list[dict]) -> None:
        for payload in waiting:
            await self.call("SecurityEventNotification", payload)

    async def act_security_event(self, type: str = "SettingSystemTime", tech_info: str | None = None) -> None:
        """A04: a security event happens at the station (its clock set, by default)."""
        self.background.spawn(self.security_event(type, tech_info))

    # ------------------------------------------------------------ M03-M05: the CA certificates
    def hold_ca(self, kind: str, pem: str) -> None:
        """Its operator set it up with the CA certificate ``pem`` of ``kind`` (a CSMS's root, before an upgrade
        to security profile 2)."""
        entry = (kind, pki.load_chain(pem)[0])
        if entry not in self.installed:
            self.installed.append(entry)

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
        if self.version is OcppVersion.V16:   # one type, required; the hash data as a flat list
            found = [pki.hash_data(c, self._issuer_key(c), self.hash_algorithm)
                     for kind, c in self.installed if kind == wanted]
            return {"status": "Accepted", "certificateHashData": found} if found else {"status": "NotFound"}
        chain = [{"certificateType": kind,
                  "certificateHashData": pki.hash_data(c, self._issuer_key(c), self.hash_algorithm)}
                 for kind, c in self.installed if not wanted or kind in wanted]
        return {"status": "Accepted", "certificateHashDataChain": chain} if chain else {"status": "NotFound"}

    def on_DeleteCertificate(self, _: None, payload: dict) -> dict:
        asked = payload["certificateHashData"]
        for entry in self.installed:
            if pki.same_hash_data(pki.hash_data(entry[1], self._issuer_key(entry[1]), asked["hashAlgorithm"]), asked):
                self.installed.remove(entry)
                return {"status": "Accepted"}
        return {"status": "NotFound"}


class CertificatesCsms(Block):
    versions = EVERY_VERSION
    configurable = frozenset({"signed_certificate"})
    signed_certificate = "valid"

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.security_events: list[dict] = []

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
            from cryptography import x509
            csr = pki.csr_of(x509.load_pem_x509_csr(csr.encode()).subject, pki.new_key(pki.EC))
        return authority.chain_pem(authority.sign_csr(csr.encode(), expired=self.signed_certificate == "expired"))

    async def _certificate_signed(self, session: StationSession, payload: dict) -> None:
        await asyncio.sleep(0)   # the SignCertificate answer goes out first
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

    async def act_get_installed_certificate_ids(self, certificate_type: str | list[str] | None = None,
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


class EvCertificatesStation2x(Block):
    """M01, M02, M06 (2.x): what an EV's ISO 15118 certificate requests and the station's V2G certificate status
    make the station send."""
    versions = V2X

    async def act_ev_certificate(self, certificate_action: str = "Install",
                                 iso15118_schema_version: str = ISO15118_2_SCHEMA,
                                 maximum_contract_certificate_chains: int | None = None,
                                 prioritized_emaids: list[str] | None = None) -> None:
        """M01 (Install), M02 (Update): an EV's CertificateInstallationReq/CertificateUpdateReq arrives; the station
        forwards it, opaque, base64-encoded (the harness's EV sends stand-in bytes: nothing parses EXI here). In an
        ISO 15118-20 session (2.1) the EV's maximum of contract certificate chains and its prioritized EMAIDs go
        with it; in an ISO 15118-2 session neither does."""
        session_20 = {"maximumContractCertificateChains": maximum_contract_certificate_chains,
                      "prioritizedEMAIDs": prioritized_emaids}
        self.background.spawn(self.call("Get15118EVCertificate", {
            "iso15118SchemaVersion": iso15118_schema_version, "action": certificate_action,
            "exiRequest": base64.b64encode(EXI_STAND_IN + certificate_action.encode()).decode()}
            | {k: v for k, v in session_20.items() if v is not None and self.version is not OcppVersion.V201}))

    async def act_certificate_status(self, kind: str = "valid") -> None:
        """M06: the station asks the status of its V2G certificate (the run's contract PKI issues the certificate
        of ``kind`` standing for it, which names the run's OCSP responder)."""
        data = contract_pki.for_run(self.profile).contract(STATUS_SUBJECT, kind).hash_data()
        self.background.spawn(self.call("GetCertificateStatus", {"ocspRequestData": data}))


class EvCertificatesCsms2x(Block):
    """M01, M02, M06 (2.x): the CSMS's answers."""
    versions = V2X

    def on_Get15118EVCertificate(self, _: StationSession, payload: dict) -> dict:
        """The harness stands in for the secondary actor (a contract certificate pool): a base64 exiRequest is
        answered Accepted with opaque base64 bytes for the EV; one that is not base64 Failed."""
        try:
            base64.b64decode(payload["exiRequest"], validate=True)
        except (binascii.Error, ValueError):
            return {"status": "Failed", "exiResponse": "", "statusInfo": {"reasonCode": "InvalidExiRequest"}}
        wanted = payload.get("maximumContractCertificateChains")   # 2.1, an ISO 15118-20 session
        remaining = {} if wanted is None else {"remainingContracts": max(0, CONTRACT_POOL - wanted)}
        return {"status": "Accepted",
                "exiResponse": base64.b64encode(EXI_STAND_IN + payload["action"].encode()).decode()} | remaining

    async def on_GetCertificateStatus(self, _: StationSession, payload: dict) -> dict:
        """M06: the OCSP answer of the item's responderURL, relayed (DER, base64); only the run's own responder
        is asked (nothing is fetched from outside the run); no answer: Failed."""
        item = payload["ocspRequestData"]
        run = contract_pki.for_run(self.profile)
        answer = None
        if item["responderURL"] == run.responder_url:
            try:
                request = contract_pki.ocsp_request(item)
            except (ValueError, KeyError):
                request = None
            if request is not None:
                from harness.transport import ocsp   # httpx when a station asks, not for every simulated one
                answer = await ocsp.ask(item["responderURL"], request)
        if answer is None:
            return {"status": "Failed", "statusInfo": {"reasonCode": "NoOcspAnswer"}}
        return {"status": "Accepted", "ocspResult": base64.b64encode(answer).decode()}


class SecurityLogStation16(Block):
    """The 1.6 security extension's GetLog (the white paper's N01): Accepted with the file name it will upload; the
    log (a line about the charge point) is PUT to log.remoteLocation + that name, reported by LogStatusNotification
    Uploading, then Uploaded or UploadFailure, each with the requestId. ExtendedTriggerMessage LogStatusNotification:
    Uploading with the requestId while an upload runs, else Idle (N01.FR.12: no requestId then)."""
    versions = V16
    requires = ("RemoteTriggerStation16",)
    precedes = ("RemoteTriggerStation16",)

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.log_uploading: int | None = None   # the requestId of the upload running

    def on_GetLog(self, _: None, payload: dict) -> dict:
        name = f"{payload['logType'].lower()}-{self.identity}.log"
        url = payload["log"]["remoteLocation"].rstrip("/") + "/" + name
        self.log_uploading = payload["requestId"]
        self.background.spawn(self._upload_log(url, payload["requestId"]))
        return {"status": "Accepted", "filename": name}

    def triggered(self, message: str, payload: dict) -> bool:
        if message != "LogStatusNotification":
            return super().triggered(message, payload)
        now = {"status": "Idle"} if self.log_uploading is None else \
            {"status": "Uploading", "requestId": self.log_uploading}
        self.background.spawn(self._log_status_triggered(now))
        return True

    async def _log_status_triggered(self, payload: dict) -> None:
        await asyncio.sleep(0)   # the ExtendedTriggerMessage.conf goes out first
        await self.call("LogStatusNotification", payload)

    async def _upload_log(self, url: str, request_id: int) -> None:
        await asyncio.sleep(0)   # the GetLog.conf goes out first
        await self._log_status("Uploading", request_id)
        from harness.transport.http import HttpClient, NoAnswer   # httpx when a charge point uploads
        client = HttpClient(wirelog=self.wirelog, channel="files")
        try:
            answer = await client.request("PUT", url, body=f"reference charge point {self.identity}: log\n".encode())
            uploaded = 200 <= answer.status < 300
        except NoAnswer:
            uploaded = False
        finally:
            await client.close()
        self.log_uploading = None
        await self._log_status("Uploaded" if uploaded else "UploadFailure", request_id)

    async def _log_status(self, status: str, request_id: int) -> None:
        """A refused notification is the test's to judge; the upload goes on."""
        try:
            await self.call("LogStatusNotification", {"status": status, "requestId": request_id})
        except CallFailed:
            pass


class SecurityLogCsms16(Block):
    """The central system's side of GetLog (1.6 security extension): its operator's action, the notifications
    answered."""
    versions = V16

    def on_LogStatusNotification(self, session: StationSession, payload: dict) -> dict:
        return {}

    async def act_get_log(self, log_type: str, request_id: int, log: dict, retries: int | None = None,
                          retry_interval: int | None = None, station: str | None = None) -> None:
        optional = {"retries": retries, "retryInterval": retry_interval}
        self.send(station, "GetLog", {"logType": log_type, "requestId": request_id, "log": log}
                  | {k: v for k, v in optional.items() if v is not None})
