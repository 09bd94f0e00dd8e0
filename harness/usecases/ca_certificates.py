"""The CA certificates of a station (M03-M05), the steps the suites share: a fresh root to install, its
install (M05, and the first step of M03 and M04: its rows are here, namespace ``cacert``), and what a station's
list says about one certificate. docs/requirements/security.md."""

from __future__ import annotations

from cryptography import x509

from harness import pki
from harness.arena.ocpp import OcppArena
from harness.roles import CS, CSMS
from harness.rules import RuleTable, must
from harness.transport.ws import Exchange
from harness.usecases.operations import operate, status_of
from harness.verdict import check_equal

WHITEPAPER = "OCPP 1.6 security whitepaper"


class CaCertificates(RuleTable, namespace="cacert"):
    """Installing a CA certificate (M05), which M03 and M04 start with."""
    install_request = must("OCPP 2.0.1 InstallCertificateRequest (certificateType, certificate required); "
                           "M05.FR.01 (tzi-OCTT TC_M_01_CSMS)", "the CSMS installs exactly the certificate, of "
                           "exactly the type, its operator chose", by=CSMS)
    installed = must(f"OCPP 2.0.1 M05.FR.01 (tzi-OCTT TC_M_01_CSMS); {WHITEPAPER} M05.FR.01-02",
                     "a station installs a valid CA certificate and answers Accepted", by=CS)


ROOT_TYPES = ("CSMSRootCertificate", "ManufacturerRootCertificate", "V2GRootCertificate", "MORootCertificate")


def fresh_root(name: str = "EVSE Conformance Installed Root") -> x509.Certificate:
    """A new self-signed CA certificate (EC P-256), valid from an hour ago for a year: installed by a test and
    deleted again."""
    return pki.Authority.root(name, "EVSE Conformance Harness").certificate


async def install(arena: OcppArena, certificate_type: str, certificate: x509.Certificate) -> Exchange:
    """The CSMS's InstallCertificate (sent by the harness, or asked of the CSMS under test), judged; installed at a
    station under test the certificate is deleted again when the test ends."""
    exchange = await operate(arena, "InstallCertificate", {"certificateType": certificate_type,
                                                           "certificate": pki.pem_text(certificate)},
                             CaCertificates.install_request)
    check_equal(CaCertificates.installed, f"InstallCertificateResponse status ({certificate_type})", "Accepted",
                status_of(exchange))
    return exchange


def listed(answer: dict, certificate: x509.Certificate) -> dict | None:
    """The hash data a GetInstalledCertificateIdsResponse gives for ``certificate`` (a root: its issuer key is its
    own), in whichever algorithm the station chose, or None."""
    for entry in answer.get("certificateHashDataChain") or ():
        data = entry.get("certificateHashData") or {}
        if data.get("hashAlgorithm") in pki.HASHES and \
                pki.same_hash_data(pki.hash_data(certificate, certificate.public_key(), data["hashAlgorithm"]), data):
            return data
    return None
