"""The CA certificates of a station (M03-M05), the steps the suites share: a fresh root to install, its
install (M05, and the first step of M03 and M04: its rows are here, namespace ``cacert``), and what a station's
list says about one certificate. docs/requirements/security.md."""

from __future__ import annotations

from cryptography import x509

from harness import pki
from harness.arena.ocpp import OcppArena
from harness.errors import NotApplicable
from harness.ocpp.versions import OcppVersion
from harness.roles import CS, CSMS
from harness.rules import Rule, RuleTable, must
from harness.transport.ws import Exchange
from harness.usecases.operations import operate, status_of
from harness.verdict import check_equal, require

WHITEPAPER = "OCPP 1.6 security whitepaper"


class CaCertificates(RuleTable, namespace="cacert"):
    """Installing a CA certificate (M05), which M03 and M04 start with."""
    install_request = must("OCPP 2.0.1 InstallCertificateRequest (certificateType, certificate required); "
                           "M05.FR.01 (tzi-OCTT TC_M_01_CSMS)", "the CSMS installs exactly the certificate, of "
                           "exactly the type, its operator chose", by=CSMS)
    installed = must(f"OCPP 2.0.1 M05.FR.01 (tzi-OCTT TC_M_01_CSMS); {WHITEPAPER} M05.FR.01-02",
                     "a station installs a valid CA certificate and answers Accepted", by=CS)
    invalid_rejected = must(f"{WHITEPAPER} M05.FR.06", "a station answers Rejected a certificate that is not a "
                            "valid CA certificate: not PEM X.509, not a CA, or expired", by=CS)


INVALID = ("not_a_certificate", "not_a_ca", "expired")   # what invalid_certificate makes


ROOT_TYPES = ("CSMSRootCertificate", "ManufacturerRootCertificate", "V2GRootCertificate", "MORootCertificate")
ROOT_TYPES16 = ("CentralSystemRootCertificate", "ManufacturerRootCertificate")


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
    check_equal(CaCertificates.installed, f"InstallCertificate answer status ({certificate_type})", "Accepted",
                status_of(exchange))
    return exchange


def listed(answer: dict, certificate: x509.Certificate) -> dict | None:
    """The hash data a GetInstalledCertificateIds answer gives for ``certificate`` (a root: its issuer key is its
    own), in whichever algorithm the station chose, or None (2.x: a chain per certificate; 1.6: a flat list)."""
    found = [entry.get("certificateHashData") or {} for entry in answer.get("certificateHashDataChain") or ()]
    if isinstance(answer.get("certificateHashData"), list):
        found += answer["certificateHashData"]
    for data in found:
        if data.get("hashAlgorithm") in pki.HASHES and \
                pki.same_hash_data(pki.hash_data(certificate, certificate.public_key(), data["hashAlgorithm"]), data):
            return data
    return None


def invalid_certificate(kind: str) -> str:
    """What a station must not install as a CA certificate: PEM armour around bytes that are no certificate, an
    end-entity certificate, an expired root."""
    if kind == "not_a_certificate":
        return "-----BEGIN CERTIFICATE-----\nbm90IGEgY2VydGlmaWNhdGU=\n-----END CERTIFICATE-----\n"
    if kind == "not_a_ca":
        return pki.pem_text(pki.Authority.root("EVSE Conformance Issuing Root").issue("not-a-ca").certificate)
    return pki.pem_text(pki.Authority.root("EVSE Conformance Expired Root", expired=True).certificate)


async def invalid_rejected(arena: OcppArena, kind: str) -> None:
    """An invalid certificate of ``kind`` offered as the CSMS's root (2.x CSMSRootCertificate, 1.6
    CentralSystemRootCertificate): Rejected."""
    certificate_type = "CentralSystemRootCertificate" if arena.version is OcppVersion.V16 else "CSMSRootCertificate"
    exchange = await operate(arena, "InstallCertificate", {"certificateType": certificate_type,
                                                           "certificate": invalid_certificate(kind)},
                             CaCertificates.install_request)
    check_equal(CaCertificates.invalid_rejected, f"InstallCertificate answer status ({kind})", "Rejected",
                status_of(exchange))


async def listing(arena: OcppArena, kind: str | None, asked: Rule | None) -> dict:
    """The CSMS's GetInstalledCertificateIds for ``kind`` (2.x: a list of types, or every type for None; 1.6: the
    one type), its answer."""
    payload = {} if kind is None else {"certificateType": kind if arena.version is OcppVersion.V16 else [kind]}
    return (await operate(arena, "GetInstalledCertificateIds", payload, asked)).result


async def listed_after_install(arena: OcppArena, kind: str, asked: Rule | None, shown: Rule, *,
                               every_type: bool = False) -> None:
    """At a station under test a fresh root of ``kind`` is installed first; the list of that type (of every type)
    is Accepted and names it (by the hash data of whichever algorithm the station chose)."""
    root = fresh_root()
    if arena.is_sut(CS):
        await install(arena, kind, root)
    answer = await listing(arena, None if every_type else kind, asked)
    if arena.is_sut(CS):
        check_equal(shown, "GetInstalledCertificateIds answer status", "Accepted", answer.get("status"))
        require(listed(answer, root) is not None, shown, "the certificate just installed is not listed",
                expected="its hash data (issuer name and key hashes, serial number)", actual=_hash_data(answer))


def _hash_data(answer: dict) -> list:
    return [e.get("certificateHashData") for e in answer.get("certificateHashDataChain") or ()] + \
        list(answer.get("certificateHashData") or ())


async def none_of_the_type(arena: OcppArena, kind: str, asked: Rule | None, not_found: Rule) -> None:
    """No certificate of ``kind`` is known to be at the station: NotFound; one that lists some makes the test not
    applicable, one that answers Accepted with none fails."""
    answer = await listing(arena, kind, asked)
    if not arena.is_sut(CS):
        return
    if answer.get("status") == "Accepted" and _hash_data(answer):
        raise NotApplicable(f"the station holds {kind}s: no type is known to be empty")
    check_equal(not_found, f"GetInstalledCertificateIds answer status (no {kind})", "NotFound", answer.get("status"))


async def deleted_after_install(arena: OcppArena, kind: str, rows: tuple[Rule | None, Rule | None, Rule]) -> None:
    """Installed, listed, deleted by the hash data listed: Accepted, and no longer listed. ``rows``: the list
    request's, the delete request's, the deletion's."""
    asked, named, deleted = rows
    root = fresh_root()
    await install(arena, kind, root)
    data = listed(await listing(arena, kind, asked), root)
    require(data is not None, deleted, "the certificate installed is not listed, so it cannot be named",
            expected="its hash data in the list", actual="absent")
    status = status_of(await operate(arena, "DeleteCertificate", {"certificateHashData": data}, named))
    if arena.is_sut(CS):
        check_equal(deleted, "DeleteCertificate answer status", "Accepted", status)
        require(listed(await listing(arena, kind, asked), root) is None, deleted,
                "the deleted certificate is still listed", expected="absent", actual="listed")


async def unknown_not_found(arena: OcppArena, named: Rule | None, not_found: Rule) -> None:
    """The hash data of a root never installed: NotFound."""
    root = fresh_root("EVSE Conformance Never Installed Root")
    data = pki.hash_data(root, root.public_key())
    status = status_of(await operate(arena, "DeleteCertificate", {"certificateHashData": data}, named))
    if arena.is_sut(CS):
        check_equal(not_found, "DeleteCertificate answer status (a certificate never installed)", "NotFound", status)
