"""TLS faults (security profiles 2 and 3, SP2 and SP3): the certificates, TLS versions and cipher suites each end
presents and accepts, the client certificate's subject the CSMS checks, and the TLS security events."""

from __future__ import annotations

import ssl
import tempfile
from dataclasses import replace
from pathlib import Path

from harness import pki
from harness.reference import ReferenceCsms, ReferenceStation
from harness.reference.blocks.certificates import INVALID_TLS_VERSION
from harness.transport import tls
from harness.transport.tls import MANDATORY, TlsEnd, only

from .records import VERSION, Fault


NO_CHECK_TIME = 0x200000   # OpenSSL's X509_V_FLAG_NO_CHECK_TIME, which Python's ssl module does not name


def _self_signed(**usage) -> tuple:
    """A self-signed certificate (a server's for the loopback names, or a client's), in a directory of its own."""
    return pki.self_signed("REF-SERIAL-0001", kind=pki.RSA, **usage).write(
        Path(tempfile.mkdtemp(prefix="fault-pki-")), "self-signed")


class _NoTimeCheck(TlsEnd):
    """A server that verifies client certificates but not their validity period."""

    def server_context(self):
        context = super().server_context()
        context.verify_flags |= NO_CHECK_TIME
        return context


class _NoHostCheck(TlsEnd):
    """A client that verifies the server's chain but not that the certificate names the host."""

    def client_context(self):
        context = super().client_context()
        context.check_hostname = False
        return context


class CsmsAcceptsTls10(ReferenceCsms):
    """SP2: the CSMS speaks TLS 1.0 and up."""

    def csms_tls(self, end):
        return replace(end, versions=(ssl.TLSVersion.TLSv1, None))


class CsmsServesASelfSignedCertificate(ReferenceCsms):
    """SP2: the CSMS serves a self-signed certificate."""

    def csms_tls(self, end):
        certificate, key = _self_signed(server_names=("127.0.0.1", "localhost"))
        return replace(end, certificate=certificate, key=key, extra=())   # its only certificate


class CsmsServesACertificateForAnotherHost(ReferenceCsms):
    """SP2: the CSMS serves a certificate of the station's trusted root, issued for another host."""

    def csms_tls(self, end):
        issued = pki.harness_pki(None).root.issue("csms", server_names=(pki.WRONG_HOST_NAME,), kind=pki.RSA)
        certificate, key = issued.write(Path(tempfile.mkdtemp(prefix="fault-pki-")), "other-host")
        return replace(end, certificate=certificate, key=key, extra=())   # its only certificate


class CsmsAcceptsAnExpiredClientCertificate(ReferenceCsms):
    """SP3: the CSMS does not check a client certificate's validity period."""

    def csms_tls(self, end):
        return _NoTimeCheck(**vars(end))


class CsmsRequiresNoClientCertificate(ReferenceCsms):
    """SP3: the CSMS asks for no client certificate (so any, self-signed or none, gets in), nor reads one."""

    def csms_tls(self, end):
        return replace(end, trust=None, subject=None)


class StationDoesNotCheckTheServerCertificate(ReferenceStation):
    """SP2: the station verifies nothing of the server's certificate."""

    def station_tls(self, end):
        return replace(end, trust=None)


class StationOfProfile3ChecksNoServer(ReferenceStation):
    """SP2.server_checked: a station set up for security profile 3 (a client certificate, no Basic auth) verifies
    nothing of the server's certificate; played at profile 2 its upgrade is refused (401) after it took the
    certificate, which must not pass for its own refusal."""

    def basic_auth_password(self):
        return None

    def station_tls(self, end):
        return replace(end, trust=None)


class StationDoesNotCheckTheHost(ReferenceStation):
    """SP2: the station verifies the server's chain but not the host its certificate names."""

    def station_tls(self, end):
        return _NoHostCheck(**vars(end))


class StationOffersOnlyTls10(ReferenceStation):
    """SP2: the station speaks TLS 1.0 only."""

    def station_tls(self, end):
        return replace(end, versions=only("TLSv1.0"))


class StationAcceptsTls11(ReferenceStation):
    """SP2: the station speaks TLS 1.1 and up."""

    def station_tls(self, end):
        return replace(end, versions=(ssl.TLSVersion.TLSv1_1, None))


class StationPresentsNoClientCertificate(ReferenceStation):
    """SP3: the station presents no client certificate."""

    def station_tls(self, end):
        return replace(end, certificate=None, key=None)


class StationPresentsASelfSignedCertificate(ReferenceStation):
    """SP3: the station presents a self-signed client certificate."""

    def station_tls(self, end):
        certificate, key = _self_signed(client=True)
        return replace(end, certificate=certificate, key=key)


class StationForgetsTheRefusedServer(ReferenceStation):
    """SP2: the station refuses a server certificate it cannot verify and never reports it."""

    async def connect(self, csms_url, **options):
        handshake = await super().connect(csms_url, **options)
        self.security_events_waiting.clear()
        return handshake


class CsmsWithoutTheStaticRsaSuites(ReferenceCsms):
    """SP2.suites_served: the CSMS enables the forward-secret suites alone (Python's default), not the mandatory
    TLS_RSA_WITH_AES_*_GCM pair."""

    def csms_tls(self, end):
        return replace(end, ciphers="ECDHE+AESGCM:ECDHE+CHACHA20")


class CsmsWithoutAnEcdsaCertificate(ReferenceCsms):
    """SP3.suites_served: the CSMS serves its RSA certificate alone, so no ECDHE_ECDSA suite can be negotiated."""

    def csms_tls(self, end):
        return replace(end, extra=())


class CsmsIgnoresTheOrganization(ReferenceCsms):
    """SP3.operator_checked: the CSMS checks the client certificate's CN, not its O."""

    def csms_tls(self, end):
        return replace(end, subject=(end.subject[0], None)) if end.subject else end


class CsmsIgnoresTheSerialNumber(ReferenceCsms):
    """SP3.serial_checked: the CSMS checks the client certificate's O, not that its CN is this station's serial."""

    def csms_tls(self, end):
        return replace(end, subject=(None, end.subject[1])) if end.subject else end


class StationOffersNoMandatorySuite(ReferenceStation):
    """SP2.suites_offered: the station offers ECDHE-RSA suites alone, none of the four mandatory ones."""

    def station_tls(self, end):
        return replace(end, ciphers="ECDHE-RSA-AES128-GCM-SHA256:ECDHE-RSA-AES256-GCM-SHA384")


class StationOffersHalfOfEachPair(ReferenceStation):
    """SP3.suites_offered: the station offers the AES-128 suite of each mandatory pair, neither pair whole."""

    def station_tls(self, end):
        return replace(end, ciphers=":".join(MANDATORY[name] for name in (tls.ECDSA_128, tls.RSA_128)))


class StationReportsOnlyBrokenChains(ReferenceStation):
    """SP2.refusal_reported: the station reports a server certificate whose chain it could not verify, not one it
    refused for naming another host."""

    async def connect(self, csms_url, **options):
        handshake = await super().connect(csms_url, **options)
        self.security_events_waiting = [event for event in self.security_events_waiting
                                        if "mismatch" not in event[1]]
        return handshake


class StationForgetsTheOldTls(ReferenceStation):
    """SP2.old_tls_reported: the station refuses a server speaking only old TLS and never reports it."""

    async def connect(self, csms_url, **options):
        handshake = await super().connect(csms_url, **options)
        self.security_events_waiting = [event for event in self.security_events_waiting
                                        if event[0] != INVALID_TLS_VERSION]
        return handshake


SP2, SP3 = "suites/ocpp/security/test_SP2.py", "suites/ocpp/security/test_SP3.py"
SUITES = "test_csms_supports_each_mandatory_cipher_suite"
OFFERED = "test_station_offers_a_mandatory_pair_of_cipher_suites"


def security(path: str, test: str, role: str, *params: str) -> str:
    return f"{path}::{test}[{'-'.join((role, VERSION, *params))}]"


FAULTS: tuple[Fault, ...] = (
    Fault("csms-accepts-tls-1.0", "SP2.old_tls_refused", CsmsAcceptsTls10,
          (security(SP2, "test_csms_refuses_a_station_offering_only_old_tls", "csms", "TLSv1.0"),),
          "the CSMS opened the connection of a station with only TLSv1.0"),
    Fault("csms-serves-a-self-signed-certificate", "SP2.server_tls", CsmsServesASelfSignedCertificate,
          (security(SP2, "test_csms_serves_tls_with_a_valid_certificate", "csms"),),
          "self-signed certificate"),
    Fault("csms-serves-a-certificate-for-another-host", "SP2.server_tls", CsmsServesACertificateForAnotherHost,
          (security(SP2, "test_csms_serves_tls_with_a_valid_certificate", "csms"),),
          "IP address mismatch"),
    Fault("csms-accepts-an-expired-client-certificate", "SP3.client_refused", CsmsAcceptsAnExpiredClientCertificate,
          (security(SP3, "test_csms_refuses_an_invalid_client_certificate", "csms", "expired"),),
          "the CSMS opened the connection of a station with an expired client certificate"),
    Fault("csms-requires-no-client-certificate", "SP3.client_refused", CsmsRequiresNoClientCertificate,
          (security(SP3, "test_csms_refuses_an_invalid_client_certificate", "csms", "self_signed"),
           security(SP3, "test_csms_refuses_an_invalid_client_certificate", "csms", "none")),
          "the CSMS opened the connection of a station with"),
    Fault("station-does-not-check-the-server-certificate", "SP2.server_checked",
          StationDoesNotCheckTheServerCertificate,
          tuple(security(SP2, "test_station_refuses_a_server_certificate_it_cannot_verify", "cs", broken)
                for broken in ("expired", "wrong_host", "other_root", "self_signed")),
          "the station connected to a server with a"),
    Fault("station-of-profile-3-checks-no-server", "SP2.server_checked", StationOfProfile3ChecksNoServer,
          tuple(security(SP2, "test_station_refuses_a_server_certificate_it_cannot_verify", "cs", broken)
                for broken in ("expired", "other_root")),
          "the station completed the TLS handshake with a server with a"),
    Fault("station-does-not-check-the-host", "SP2.server_checked", StationDoesNotCheckTheHost,
          (security(SP2, "test_station_refuses_a_server_certificate_it_cannot_verify", "cs", "wrong_host"),),
          "the station connected to a server with a wrong host certificate"),
    Fault("station-forgets-the-refused-server", "SP2.refusal_reported", StationForgetsTheRefusedServer,
          tuple(security(SP2, "test_station_reports_the_server_certificate_it_refused", "cs", broken)
                for broken in ("expired", "wrong_host")),
          "SecurityEventNotification"),
    Fault("station-offers-only-tls-1.0", "SP2.station_tls", StationOffersOnlyTls10,
          (security(SP2, "test_station_connects_over_tls_with_basic_auth", "cs"),),
          "offered only TLS versions older than 1.2"),
    Fault("station-accepts-tls-1.1", "SP2.old_tls_server_refused", StationAcceptsTls11,
          (security(SP2, "test_station_refuses_a_server_speaking_only_old_tls", "cs", "TLSv1.1"),),
          "the station connected to a server with only TLSv1.1"),
    Fault("station-presents-no-client-certificate", "SP3.client_presented", StationPresentsNoClientCertificate,
          (security(SP3, "test_station_presents_its_client_certificate", "cs"),),
          "presented no client certificate"),
    Fault("station-presents-a-self-signed-certificate", "SP3.client_presented", StationPresentsASelfSignedCertificate,
          (security(SP3, "test_station_presents_its_client_certificate", "cs"),),
          "presented a client certificate the harness could not verify"),
    Fault("csms-without-the-static-rsa-suites", "SP2.suites_served", CsmsWithoutTheStaticRsaSuites,
          (security(SP2, SUITES, "csms", tls.RSA_128), security(SP2, SUITES, "csms", tls.RSA_256)),
          "the CSMS refused a TLS 1.2 handshake offering TLS_RSA_WITH_AES_"),
    Fault("csms-without-an-ecdsa-certificate", "SP3.suites_served", CsmsWithoutAnEcdsaCertificate,
          (security(SP3, SUITES, "csms", tls.ECDSA_128), security(SP3, SUITES, "csms", tls.ECDSA_256)),
          "the CSMS refused a TLS 1.2 handshake offering TLS_ECDHE_ECDSA_WITH_AES_"),
    Fault("csms-ignores-the-organization", "SP3.operator_checked", CsmsIgnoresTheOrganization,
          (security(SP3, "test_csms_refuses_a_client_certificate_of_another_operator", "csms"),),
          "the CSMS opened the connection of a station with a client certificate of another operator"),
    Fault("csms-ignores-the-serial-number", "SP3.serial_checked", CsmsIgnoresTheSerialNumber,
          (security(SP3, "test_csms_refuses_another_station_s_client_certificate", "csms"),),
          "the CSMS opened the connection of a station with another station's client certificate"),
    Fault("station-offers-no-mandatory-suite", "SP2.suites_offered", StationOffersNoMandatorySuite,
          (security(SP2, OFFERED, "cs"),), "the station did not offer a mandatory pair of TLS 1.2 cipher suites"),
    Fault("station-offers-half-of-each-pair", "SP3.suites_offered", StationOffersHalfOfEachPair,
          (security(SP3, OFFERED, "cs"),), "the station did not offer a mandatory pair of TLS 1.2 cipher suites"),
    Fault("station-reports-only-broken-chains", "SP2.refusal_reported", StationReportsOnlyBrokenChains,
          (security(SP2, "test_station_reports_the_server_certificate_it_refused", "cs", "wrong_host"),),
          "SecurityEventNotification"),
    Fault("station-forgets-the-old-tls", "SP2.old_tls_reported", StationForgetsTheOldTls,
          (security(SP2, "test_station_reports_the_old_tls_it_refused", "cs"),), "SecurityEventNotification"),
)
