"""M03 — Retrieve the list of installed certificates: the CSMS sends GetInstalledCertificateIds for some
certificate types; the station answers Accepted with the hash data of each certificate of those types it holds,
NotFound when it holds none. docs/requirements/security.md."""

import pytest

from harness.roles import CS, CSMS
from harness.rules import RuleTable, must
from harness.suite import OCPP2, TC, case, checks
from harness.usecases.ca_certificates import ROOT_TYPES, CaCertificates, listed_after_install, none_of_the_type

WHITEPAPER = "OCPP 1.6 security whitepaper"


class M03(RuleTable):
    """The rules of M03 (OCPP 2.0.1 part 2 M03; the same in 2.1)."""
    request = must("OCPP 2.0.1 GetInstalledCertificateIdsRequest; M03.FR.01 (tzi-OCTT TC_M_12_CSMS)",
                   "the CSMS asks for exactly the certificate types its operator chose", by=CSMS)
    listed = must(f"{WHITEPAPER} M03.FR.03-04; OCPP 2.0.1 M03.FR.01 (tzi-OCTT TC_M_12_CSMS)", "a station holding "
                  "certificates of a type asked answers Accepted with the hash data of each", by=CS)
    not_found = must(f"OCPP 2.0.1 M03.FR.02 (tzi-OCTT TC_M_19_CSMS); {WHITEPAPER} M03.FR.02",
                     "a station holding no certificate of the types asked answers NotFound", by=CS)


pytestmark = case("M03", block="Security", roles=("csms", "cs"), protocols=OCPP2, requires=["advanced_security"])


TC_IDS = dict(zip(ROOT_TYPES, ("TC_M_12_CSMS", "TC_M_13_CSMS", "TC_M_14_CSMS", "TC_M_16_CSMS"), strict=True))


@pytest.mark.parametrize("certificate_type", [pytest.param(kind, marks=checks(
    CaCertificates.install_request, CaCertificates.installed, M03.request, M03.listed,
    csms=TC(TC_IDS[kind], "ocpp2.0.1"))) for kind in ROOT_TYPES])
async def test_installed_certificate_is_listed(ocpp, certificate_type):
    """At a station under test a fresh root of the type is installed first; the list of that type is Accepted and
    names it."""
    await listed_after_install(ocpp, certificate_type, M03.request, M03.listed)


@checks(CaCertificates.install_request, CaCertificates.installed, M03.request, M03.listed,
        csms=TC("TC_M_18_CSMS", "ocpp2.0.1"))
async def test_every_type_listed(ocpp):
    """GetInstalledCertificateIds without certificateType asks for every type: a ManufacturerRootCertificate
    installed first is among them."""
    await listed_after_install(ocpp, "ManufacturerRootCertificate", M03.request, M03.listed, every_type=True)


@checks(M03.request, M03.not_found, csms=TC("TC_M_19_CSMS", "ocpp2.0.1"))
async def test_no_certificate_of_the_type(ocpp):
    """MORootCertificates, which a station without Plug and Charge contracts holds none of: NotFound."""
    await none_of_the_type(ocpp, "MORootCertificate", M03.request, M03.not_found)
