"""Security faults beyond the TLS (2.x): the Basic-auth password (A01), certificate renewal (A02, A03), security
events (A04) and the station's CA certificates (M03-M05)."""

from __future__ import annotations


import base64
import secrets

from harness import contract_pki, pki
from harness.reference import ReferenceCsms, ReferenceStation
from harness.usecases.ev_certificates import ISO15118_2
from harness.transport.ws import CallErrorReply

from .records import V21, Fault, cs21_test, cs_test, csms_test

A01 = "security/test_A01.py"
A02, A03, A04 = "security/test_A02.py", "security/test_A03.py", "security/test_A04.py"
M03, M04, M05 = "security/test_M03.py", "security/test_M04.py", "security/test_M05.py"
A05 = "security/test_A05.py"
M01, M02, M06 = "security/test_M01.py", "security/test_M02.py", "security/test_M06.py"
INSTALLED_EV, UPDATED_EV = "test_ev_certificate_installation_forwarded", "test_ev_certificate_update_forwarded"
LISTED_CS = cs_test(M03, "test_installed_certificate_is_listed", "ManufacturerRootCertificate")
RENEWED_ON_REQUEST, RENEWS = "test_certificate_renewed_on_request", "test_station_renews_its_certificate"
INVALID = "test_an_invalid_certificate_is_refused_and_reported"


def fault_class(behaviour: type, base: type, name: str, module: str) -> type:
    """A direct subclass ``name`` of ``base`` (the reference of a version) with ``behaviour``'s methods and settings:
    one fault for 2.x and 1.6 alike (a behaviour's methods reach the reference with ``super(type(self), self)``)."""
    members = {k: v for k, v in vars(behaviour).items() if not k.startswith("__") or k == "__doc__"}
    return type(name, (base,), members | {"__module__": module, "__qualname__": name})


# ---------------------------------------------------------------------------- CSMS under test
class CsmsKeepsTheOldPassword(ReferenceCsms):
    """A01: after the station accepted a new BasicAuthPassword the CSMS still admits the old one."""

    def check_password(self, identity, password):
        old = (self.profile.get("station.password") or "").encode()
        return super().check_password(identity, password) or secrets.compare_digest(password, old)


class CsmsSetsAShortPassword(ReferenceCsms):
    """A01: the new password is 12 characters (a SHOULD: a finding)."""
    password_length = 12


class CsmsTriggersTheV2GCertificate(ReferenceCsms):
    """A02: asked to renew the station's certificate, the CSMS triggers SignV2GCertificate."""

    async def act_trigger_message(self, requested_message, evse=None, station=None):
        await super().act_trigger_message("SignV2GCertificate", evse, station)


class RejectsEveryCsr:
    """A02/A03: a well-formed signing request is Rejected."""

    def on_SignCertificate(self, session, payload):
        return {"status": "Rejected"}


class CsmsAcceptsAnyCsr(ReferenceCsms):
    """A02: a signing request whose signature does not verify is Accepted (and nothing sent after it)."""

    def on_SignCertificate(self, session, payload):
        return {"status": "Accepted"} if pki.csr_problem(payload["csr"]) else super().on_SignCertificate(session, payload)


class CsmsSendsNoCertificate(ReferenceCsms):
    """A02/A03: the signing request is Accepted and no CertificateSigned follows."""

    async def _certificate_signed(self, session, payload):
        return None


class SignsAnotherKey:
    """A02/A03: the certificate sent back is for a key of the CSMS's own making, not the CSR's."""
    signed_certificate = "other_key"

    def configure(self, **settings):
        super(type(self), self).configure(**{k: v for k, v in settings.items() if k != "signed_certificate"})


class CsmsDropsTheCertificateType(ReferenceCsms):
    """A02/A03: CertificateSigned leaves out the certificateType the request named (a SHOULD: a finding)."""

    async def _certificate_signed(self, session, payload):
        await super()._certificate_signed(session, {k: v for k, v in payload.items() if k != "certificateType"})


class RefusesSecurityEvents:
    """A04: SecurityEventNotification is answered with a CALLERROR InternalError."""

    def on_SecurityEventNotification(self, session, payload):
        raise CallErrorReply("InternalError", "events are not kept")


class CsmsInstallsAnotherType(ReferenceCsms):
    """M05: asked to install a certificate as one type, the CSMS sends it as CSMSRootCertificate."""

    async def act_install_certificate(self, certificate_type, certificate, station=None):
        await super().act_install_certificate("CSMSRootCertificate", certificate, station)


class CsmsListsEveryType(ReferenceCsms):
    """M03: asked for the list of some types, the CSMS asks for every type."""

    async def act_get_installed_certificate_ids(self, certificate_type=None, station=None):
        await super().act_get_installed_certificate_ids(None, station)


class DeletesByAnotherAlgorithm:
    """M04: the CSMS names the certificate to delete in SHA512 whatever the station reported."""

    async def act_delete_certificate(self, certificate_hash_data, station=None):
        await super(type(self), self).act_delete_certificate(certificate_hash_data | {"hashAlgorithm": "SHA512"}, station)


# ---------------------------------------------------------------------------- station under test
class StationTakesLongPasswords(ReferenceStation):
    """A01: a BasicAuthPassword of any length from 16 on is taken (a SHOULD: a finding)."""
    password_lengths = (16, 1000)


class StationTakesShortPasswords(ReferenceStation):
    """A01: a BasicAuthPassword of any length is taken (a SHOULD: a finding)."""
    password_lengths = (1, 1000)


class StationStaysOnTheOldConnection(ReferenceStation):
    """A01: the station takes the new password and does not reconnect with it (a SHOULD: a finding)."""

    async def _reconnect_with_new_password(self):
        return None


class SendsADerCsr:
    """A02/A03: the CSR is sent as bare base64 DER, without the PEM armour."""

    async def call(self, action, payload):
        if action == "SignCertificate":
            payload = payload | {"csr": "".join(payload["csr"].splitlines()[1:-1])}
        return await super(type(self), self).call(action, payload)


class TakesAnyCertificate:
    """A02: CertificateSigned is Accepted whatever it carries."""

    def certificate_problem(self, chain_pem):
        return None


class StationReportsNoInvalidCertificate(ReferenceStation):
    """A02: a refused certificate is not reported as a security event."""

    async def security_event(self, kind, tech_info=None):
        return None


class ReportsAnotherEvent:
    """A04: every security event is reported as type Other."""

    async def security_event(self, kind, tech_info=None):
        await super(type(self), self).security_event("Other", tech_info)


class InstallsAnything:
    """M05: any certificate is Accepted, a CA or not, valid or not."""

    def on_InstallCertificate(self, session, payload):
        return {"status": "Accepted"}


class StationRefusesInstalls(ReferenceStation):
    """M05: every InstallCertificate is Failed."""

    def on_InstallCertificate(self, session, payload):
        return {"status": "Failed"}


class ListsNothing:
    """M03: GetInstalledCertificateIds is always NotFound."""

    def on_GetInstalledCertificateIds(self, session, payload):
        return {"status": "NotFound"}


class StationAcceptsAnEmptyList(ReferenceStation):
    """M03: no certificate of the types asked is answered Accepted with no hash data."""

    def on_GetInstalledCertificateIds(self, session, payload):
        answer = super().on_GetInstalledCertificateIds(session, payload)
        return {"status": "Accepted"} if answer["status"] == "NotFound" else answer


class DeletesNothing:
    """M04: DeleteCertificate is Accepted and the certificate stays."""

    def on_DeleteCertificate(self, session, payload):
        return {"status": "Accepted"}


CsmsRejectsEveryCsr = fault_class(RejectsEveryCsr, ReferenceCsms, "CsmsRejectsEveryCsr", __name__)


CsmsSignsAnotherKey = fault_class(SignsAnotherKey, ReferenceCsms, "CsmsSignsAnotherKey", __name__)


CsmsRefusesSecurityEvents = fault_class(RefusesSecurityEvents, ReferenceCsms, "CsmsRefusesSecurityEvents", __name__)


CsmsDeletesByAnotherAlgorithm = fault_class(DeletesByAnotherAlgorithm, ReferenceCsms, "CsmsDeletesByAnotherAlgorithm", __name__)


StationSendsADerCsr = fault_class(SendsADerCsr, ReferenceStation, "StationSendsADerCsr", __name__)


StationTakesAnyCertificate = fault_class(TakesAnyCertificate, ReferenceStation, "StationTakesAnyCertificate", __name__)


StationReportsAnotherEvent = fault_class(ReportsAnotherEvent, ReferenceStation, "StationReportsAnotherEvent", __name__)


StationInstallsAnything = fault_class(InstallsAnything, ReferenceStation, "StationInstallsAnything", __name__)


StationListsNothing = fault_class(ListsNothing, ReferenceStation, "StationListsNothing", __name__)


StationDeletesNothing = fault_class(DeletesNothing, ReferenceStation, "StationDeletesNothing", __name__)
StationFindsWhatItNeverHad = fault_class(DeletesNothing, ReferenceStation, "StationFindsWhatItNeverHad", __name__)


def _renewal(role: str) -> tuple[str, ...]:
    """The renewal of the station's own certificate, asked by the CSMS (A02) and started by the station (A03)."""
    node = csms_test if role == "csms" else cs_test
    return (node(A02, RENEWED_ON_REQUEST, "SignChargingStationCertificate"),
            node(A03, RENEWS, "ChargingStationCertificate"))


# ---------------------------------------------------------------------------- M01, M02, M06
class CsmsFailsEveryEvCertificate(ReferenceCsms):
    """M01/M02: every Get15118EVCertificate is answered Failed (a SHOULD: a finding)."""

    def on_Get15118EVCertificate(self, session, payload):
        return {"status": "Failed", "exiResponse": ""}


class CsmsAnswersRawExi(ReferenceCsms):
    """M01/M02: the EV's answer is sent as raw bytes in hex, not base64 (a SHOULD: a finding)."""

    def on_Get15118EVCertificate(self, session, payload):
        return {"status": "Accepted", "exiResponse": "<80980230>"}


class StationForwardsAs:
    """M01/M02: the station forwards the EV's request with the other action."""
    other = {"Install": "Update", "Update": "Install"}

    async def act_ev_certificate(self, certificate_action="Install", **options):
        await super(type(self), self).act_ev_certificate(self.other[certificate_action], **options)


class StationForwardsHex(ReferenceStation):
    """M01: the EV's message is forwarded in hex, not base64 (a SHOULD: a finding)."""

    async def act_ev_certificate(self, certificate_action="Install", **options):
        self.background.spawn(self.call("Get15118EVCertificate", {
            "iso15118SchemaVersion": "urn:iso:15118:2:2013:MsgDef", "action": certificate_action,
            "exiRequest": "<80980230>"}))


class CsmsAcceptsWithoutResult(ReferenceCsms):
    """M06: GetCertificateStatus is Accepted with no ocspResult."""

    async def on_GetCertificateStatus(self, session, payload):
        return {"status": "Accepted"}


class CsmsAsksAboutAnotherSerial(ReferenceCsms):
    """M06: the CSMS asks its responder about serial 1 whatever the station named, and relays that answer."""

    async def on_GetCertificateStatus(self, session, payload):
        item = payload["ocspRequestData"] | {"serialNumber": "1"}
        return await super().on_GetCertificateStatus(session, {"ocspRequestData": item})


class StationSendsBase64Hashes(ReferenceStation):
    """M06: ocspRequestData.issuerKeyHash is base64, not hex."""

    async def act_certificate_status(self, kind="valid"):
        data = contract_pki.for_run(self.profile).contract("V2G-STATUS-CERT", kind).hash_data()
        key_hash = base64.b64encode(bytes.fromhex(data["issuerKeyHash"])).decode()
        self.background.spawn(self.call("GetCertificateStatus", {"ocspRequestData": data | {"issuerKeyHash": key_hash}}))


# ---------------------------------------------------------------------------- A05
class StationTakesLowerProfiles(ReferenceStation):
    """A05: a network profile of any security profile is stored, a lower one too."""

    def on_SetNetworkProfile(self, session, payload):
        self.network_profiles[payload["configurationSlot"]] = payload["connectionData"]
        return {"status": "Accepted"}


class StationKeepsItsPriority(ReferenceStation):
    """A05: NetworkConfigurationPriority cannot be set (Rejected)."""

    def variable_written(self, component, name, value):
        if name == "NetworkConfigurationPriority":
            return "Rejected"
        return super().variable_written(component, name, value)


class StationDropsSession20Fields(ReferenceStation):
    """M01/M02 (2.1): an ISO 15118-20 EV's maximum of chains and its EMAIDs are not forwarded."""

    async def act_ev_certificate(self, certificate_action="Install", iso15118_schema_version=ISO15118_2,
                                 maximum_contract_certificate_chains=None, prioritized_emaids=None):
        await super().act_ev_certificate(certificate_action, iso15118_schema_version)


class StationSendsSession20FieldsAlways(ReferenceStation):
    """M01/M02 (2.1): an ISO 15118-2 session's request carries maximumContractCertificateChains too."""

    async def act_ev_certificate(self, certificate_action="Install", iso15118_schema_version=ISO15118_2,
                                 maximum_contract_certificate_chains=None, prioritized_emaids=None):
        await super().act_ev_certificate(certificate_action, iso15118_schema_version,
                                         maximum_contract_certificate_chains or 1, prioritized_emaids)


class StationSkipsTheRootCheck(ReferenceStation):
    """A05: a priority naming a profile of security profile 2 is accepted with no CSMS root installed."""

    def _priority_written(self, value):
        self.installed.append(("CSMSRootCertificate", None))
        try:
            return super()._priority_written(value)
        finally:
            self.installed.remove(("CSMSRootCertificate", None))


class StationRebootsOntoTheOldProfile(ReferenceStation):
    """A05: after the reboot the station connects through the last entry of its priority, its old profile."""

    def priority_urls(self):
        return super().priority_urls()[::-1]


class StationKeepsLowerSlots(ReferenceStation):
    """A05: connected at a higher security profile, the station keeps the slots of the lower one."""

    def _drop_lower_slots(self, current):
        return None


class CsmsAdmitsTheOldProfile(ReferenceCsms):
    """A05: after the station connected at profile 2 the CSMS still admits it at profile 1."""

    def accepts_profile(self, identity, security_profile):
        return True


class CsmsRefusesTheNewProfile(ReferenceCsms):
    """A05: the CSMS admits the station at no profile above 1, the one it upgraded it to included."""

    def accepts_profile(self, identity, security_profile):
        return security_profile == 1


class CsmsKeepsTheProfile(ReferenceCsms):
    """A05: asked for a higher security profile, the CSMS sends the network profile at profile 1."""

    async def act_set_network_profile(self, configuration_slot, connection_data, station=None):
        await super().act_set_network_profile(configuration_slot, connection_data | {"securityProfile": 1}, station)


# ---------------------------------------------------------------------------- A04
class StationDropsOfflineEvents(ReferenceStation):
    """A04: a security event that happens while the station has no connection is lost."""

    async def security_event(self, kind, tech_info=None):
        if self.connection is None or self.connection.closed:
            return
        await super().security_event(kind, tech_info)


class CsmsRefusesTechInfo(ReferenceCsms):
    """A04: a SecurityEventNotification with techInfo is answered with a CALLERROR FormatViolation."""

    def on_SecurityEventNotification(self, session, payload):
        if "techInfo" in payload:
            raise CallErrorReply("FormatViolation", "techInfo not expected")
        return super().on_SecurityEventNotification(session, payload)


StationForwardsAnUpdate = fault_class(StationForwardsAs, ReferenceStation, "StationForwardsAnUpdate", __name__)
StationForwardsAnInstall = fault_class(StationForwardsAs, ReferenceStation, "StationForwardsAnInstall", __name__)


FAULTS: tuple[Fault, ...] = (
    Fault("A01-csms-keeps-the-old-password", "A01.old_refused", CsmsKeepsTheOldPassword,
          (csms_test(A01, "test_password_updated"),), "the server upgraded the old BasicAuthPassword"),
    Fault("A01-csms-sets-a-short-password", "A01.password_length", CsmsSetsAShortPassword,
          (csms_test(A01, "test_password_updated"),), "12 characters", verdict="finding"),
    Fault("A01-station-takes-short-passwords", "A01.short_refused", StationTakesShortPasswords,
          (cs_test(A01, "test_a_password_too_short_is_not_taken"),), "accepted a password of 8 characters",
          verdict="finding"),
    Fault("A01-station-stays-on-the-old-connection", "A01.reconnects", StationStaysOnTheOldConnection,
          (cs_test(A01, "test_password_updated"),), "did not reconnect", verdict="finding"),
    Fault("A02-csms-triggers-the-v2g-certificate", "A02.trigger", CsmsTriggersTheV2GCertificate,
          (csms_test(A02, RENEWED_ON_REQUEST, "SignChargingStationCertificate"),), "TriggerMessageRequest"),
    Fault("A02-csms-rejects-every-csr", "certificate.csms_accepts", CsmsRejectsEveryCsr, _renewal("csms"),
          "SignCertificateResponse status"),
    Fault("A02-csms-accepts-any-csr", "certificate.csms_rejects", CsmsAcceptsAnyCsr,
          (csms_test(A02, "test_an_unusable_signing_request_is_rejected", "bad_signature"),),
          "SignCertificate answer status (bad_signature)"),
    Fault("A02-csms-sends-no-certificate", "certificate.signed_sent", CsmsSendsNoCertificate, _renewal("csms"),
          "CertificateSigned"),
    Fault("A02-csms-signs-another-key", "certificate.chain_key", CsmsSignsAnotherKey, _renewal("csms"),
          "the signed certificate is for another key"),
    Fault("A02-csms-drops-the-certificate-type", "certificate.type_echoed", CsmsDropsTheCertificateType,
          _renewal("csms"), "certificateType", verdict="finding"),
    Fault("A02-station-sends-a-der-csr", "certificate.csr_pem", StationSendsADerCsr, _renewal("cs"),
          "not a PEM certificate signing request"),
    Fault("A02-station-takes-any-certificate", "certificate.invalid_refused", StationTakesAnyCertificate,
          tuple(cs_test(A02, INVALID, broken) for broken in ("expired", "other_root", "other_key")),
          "CertificateSigned answer status"),
    Fault("A02-station-reports-no-invalid-certificate", "certificate.invalid_reported",
          StationReportsNoInvalidCertificate, (cs_test(A02, INVALID, "expired"),), "SecurityEventNotification"),
    Fault("A04-csms-refuses-security-events", "secevent.confirmed", CsmsRefusesSecurityEvents,
          (csms_test(A04, "test_security_event_reported_and_confirmed"),), "InternalError"),
    Fault("A04-station-reports-another-event", "secevent.reported", StationReportsAnotherEvent,
          (cs_test(A04, "test_security_event_reported_and_confirmed"),), "SecurityEventNotification type"),
    Fault("M05-csms-installs-another-type", "cacert.install_request", CsmsInstallsAnotherType,
          (csms_test(M05, "test_ca_certificate_installed", "ManufacturerRootCertificate"),), "InstallCertificateRequest"),
    Fault("M05-station-installs-anything", "cacert.invalid_rejected", StationInstallsAnything,
          tuple(cs_test(M05, "test_invalid_certificate_rejected", kind)
                for kind in ("not_a_certificate", "not_a_ca", "expired")), "InstallCertificate answer status"),
    Fault("M05-station-refuses-installs", "cacert.installed", StationRefusesInstalls,
          (cs_test(M05, "test_ca_certificate_installed", "CSMSRootCertificate"),
           LISTED_CS), "InstallCertificate answer status"),
    Fault("M03-csms-lists-every-type", "M03.request", CsmsListsEveryType,
          (csms_test(M03, "test_no_certificate_of_the_type"),), "GetInstalledCertificateIdsRequest"),
    Fault("M03-station-lists-nothing", "M03.listed", StationListsNothing,
          (LISTED_CS,), "GetInstalledCertificateIds answer status"),
    Fault("M03-station-accepts-an-empty-list", "M03.not_found", StationAcceptsAnEmptyList,
          (cs_test(M03, "test_no_certificate_of_the_type"),), "NotFound"),
    Fault("M04-csms-deletes-by-another-algorithm", "M04.request", CsmsDeletesByAnotherAlgorithm,
          (csms_test(M04, "test_installed_certificate_is_deleted"),), "DeleteCertificateRequest"),
    Fault("M04-station-deletes-nothing", "M04.deleted", StationDeletesNothing,
          (cs_test(M04, "test_installed_certificate_is_deleted"),), "still listed"),
    Fault("M04-station-finds-what-it-never-had", "M04.not_found", StationFindsWhatItNeverHad,
          (cs_test(M04, "test_unknown_certificate_not_found"),), "DeleteCertificate answer status"),
    Fault("M01-csms-fails-every-ev-certificate", "evcert.answered", CsmsFailsEveryEvCertificate,
          (csms_test(M01, INSTALLED_EV),), "Get15118EVCertificateResponse status", verdict="finding"),
    Fault("M01-station-forwards-an-update", "evcert.install_forwarded",
          StationForwardsAnUpdate,
          (cs_test(M01, INSTALLED_EV),), "Get15118EVCertificateRequest action"),
    Fault("M01-station-forwards-hex", "evcert.exi_request", StationForwardsHex,
          (cs_test(M01, INSTALLED_EV),), "exiRequest is not base64", verdict="finding"),
    Fault("M02-csms-answers-raw-exi", "evcert.exi_response", CsmsAnswersRawExi,
          (csms_test(M02, UPDATED_EV),), "exiResponse is not a non-empty base64 text", verdict="finding"),
    Fault("M02-station-forwards-an-install", "evcert.update_forwarded",
          StationForwardsAnInstall,
          (cs_test(M02, UPDATED_EV),), "Get15118EVCertificateRequest action"),
    Fault("M06-csms-accepts-without-result", "certstatus.der", CsmsAcceptsWithoutResult,
          (csms_test(M06, "test_certificate_status_relayed"),), "ocspResult is missing"),
    Fault("M06-csms-asks-about-another-serial", "certstatus.relayed", CsmsAsksAboutAnotherSerial,
          (csms_test(M06, "test_certificate_status_relayed"), csms_test(M06, "test_revoked_status_relayed")),
          "the relayed OCSP response's status"),
    Fault("M06-station-sends-base64-hashes", "certstatus.request_data", StationSendsBase64Hashes,
          (cs_test(M06, "test_certificate_status_relayed"),), "issuerKeyHash is not a SHA256 digest in hex"),
    Fault("A05-station-takes-lower-profiles", "A05.lower_refused", StationTakesLowerProfiles,
          (cs_test(A05, "test_lower_profile_refused"),), "SetNetworkProfileResponse status"),
    Fault("A05-station-keeps-its-priority", "A05.priority_accepted", StationKeepsItsPriority,
          (cs_test(A05, "test_higher_profile_stored_and_prioritized"),), "NetworkConfigurationPriority"),
    Fault("M01-station-drops-session-20-fields", "evcert.chains_forwarded", StationDropsSession20Fields,
          (cs21_test(M01, "test_iso15118_20_installation_forwarded"),
           cs21_test(M02, "test_iso15118_20_update_forwarded")), "ISO 15118-20 session", verdict="finding", version=V21),
    Fault("M01-station-sends-session-20-fields-always", "evcert.absent_in_2", StationSendsSession20FieldsAlways,
          (cs21_test(M01, INSTALLED_EV), cs21_test(M02, UPDATED_EV)), "ISO 15118-20 fields", verdict="finding",
          version=V21),
    Fault("A05-station-skips-the-root-check", "A05.root_required", StationSkipsTheRootCheck,
          (cs_test(A05, "test_priority_without_csms_root_refused"),), "no CSMS root"),
    Fault("A05-station-reboots-onto-the-old-profile", "A05.reconnected", StationRebootsOntoTheOldProfile,
          (cs_test(A05, "test_upgrade_used_after_reboot"),), "plain ws"),
    Fault("A05-station-keeps-lower-slots", "A05.lower_dropped", StationKeepsLowerSlots,
          (cs_test(A05, "test_upgrade_used_after_reboot"),), "still names the slot it connected with"),
    Fault("A05-csms-admits-the-old-profile", "A05.old_refused", CsmsAdmitsTheOldProfile,
          (csms_test(A05, "test_old_profile_refused_after_reboot"),), "admitted the station at security profile 1"),
    Fault("A05-csms-refuses-the-new-profile", "A05.upgraded_admitted", CsmsRefusesTheNewProfile,
          (csms_test(A05, "test_old_profile_refused_after_reboot"),), "plain ws (its old profile", verdict="finding"),
    Fault("A05-csms-keeps-the-profile", "A05.profile_request", CsmsKeepsTheProfile,
          (csms_test(A05, "test_higher_profile_stored_and_prioritized"),), "SetNetworkProfileRequest"),
    Fault("A04-station-drops-offline-events", "secevent.queued", StationDropsOfflineEvents,
          (cs_test(A04, "test_security_event_while_offline_delivered"),), "did not send SecurityEventNotification"),
    Fault("A04-csms-refuses-tech-info", "secevent.confirmed", CsmsRefusesTechInfo,
          tuple(csms_test(A04, "test_security_event_of_each_kind_confirmed", kind)
                for kind in ("StartupOfTheDevice", "TamperDetectionActivated")), "FormatViolation"),
    Fault("A01-station-takes-long-passwords", "A01.long_refused", StationTakesLongPasswords,
          (cs_test(A01, "test_a_password_too_long_is_not_taken"),), "accepted a password of 65 characters",
          verdict="finding"),
)
