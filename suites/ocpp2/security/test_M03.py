"""M03 — Retrieve the list of installed certificates: the CSMS sends GetInstalledCertificateIds for some
certificate types; the station answers Accepted with the hash data of each certificate of those types it holds,
NotFound when it holds none. docs/requirements/security.md."""

from harness.errors import NotApplicable
from harness.roles import CS, CSMS
from harness.rules import RuleTable, must
from harness.suite import OCPP2, TC, case, checks
from harness.usecases.ca_certificates import CaCertificates, fresh_root, install, listed
from harness.usecases.operations import operate
from harness.verdict import check_equal, require

WHITEPAPER = "OCPP 1.6 security whitepaper"


class M03(RuleTable):
    """The rules of M03 (OCPP 2.0.1 part 2 M03; the same in 2.1)."""
    request = must("OCPP 2.0.1 GetInstalledCertificateIdsRequest; M03.FR.01 (tzi-OCTT TC_M_12_CSMS)",
                   "the CSMS asks for exactly the certificate types its operator chose", by=CSMS)
    listed = must(f"{WHITEPAPER} M03.FR.03-04; OCPP 2.0.1 M03.FR.01 (tzi-OCTT TC_M_12_CSMS)", "a station holding "
                  "certificates of a type asked answers Accepted with the hash data of each", by=CS)
    not_found = must(f"OCPP 2.0.1 M03.FR.02 (tzi-OCTT TC_M_19_CSMS); {WHITEPAPER} M03.FR.02",
                     "a station holding no certificate of the types asked answers NotFound", by=CS)


pytestmark = case("M03", block="Security", roles=("csms", "cs"), protocols=OCPP2)


async def _list(ocpp, *types: str):
    return await operate(ocpp, "GetInstalledCertificateIds", {"certificateType": list(types)}, M03.request)


@checks(CaCertificates.install_request, CaCertificates.installed, M03.request, M03.listed,
        csms=TC("TC_M_13_CSMS", "ocpp2.0.1"))
async def test_installed_certificate_is_listed(ocpp):
    """At a station under test a fresh ManufacturerRootCertificate is installed first; the list of that type is
    Accepted and names it (by the hash data of whichever algorithm the station chose)."""
    root = fresh_root()
    if ocpp.is_sut(CS):
        await install(ocpp, "ManufacturerRootCertificate", root)
    answer = (await _list(ocpp, "ManufacturerRootCertificate")).result
    if ocpp.is_sut(CS):
        check_equal(M03.listed, "GetInstalledCertificateIdsResponse status", "Accepted", answer.get("status"))
        require(listed(answer, root) is not None, M03.listed, "the certificate just installed is not listed",
                expected="its hash data (issuer name and key hashes, serial number)",
                actual=[e.get("certificateHashData") for e in answer.get("certificateHashDataChain") or ()])


@checks(M03.request, M03.not_found, csms=TC("TC_M_19_CSMS", "ocpp2.0.1"))
async def test_no_certificate_of_the_type(ocpp):
    """MORootCertificates, which a station without Plug and Charge contracts holds none of: NotFound; a station
    that lists some makes the test not applicable, one that answers Accepted with none fails."""
    answer = (await _list(ocpp, "MORootCertificate")).result
    if not ocpp.is_sut(CS):
        return
    if answer.get("status") == "Accepted" and answer.get("certificateHashDataChain"):
        raise NotApplicable("the station holds MORootCertificates: no type is known to be empty")
    check_equal(M03.not_found, "GetInstalledCertificateIdsResponse status (no MORootCertificate)", "NotFound",
                answer.get("status"))
