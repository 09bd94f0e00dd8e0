"""M05 — Install a CA certificate in a station: the CSMS sends InstallCertificate with a certificate type and a
PEM CA certificate; the station installs a valid one (Accepted) and refuses one that is not a valid CA
certificate (Rejected). The rows are the install's (harness.usecases.ca_certificates, namespace ``cacert``);
docs/requirements/security.md."""

import pytest

from harness.suite import OCPP2, TC, case, checks
from harness.usecases.ca_certificates import INVALID, ROOT_TYPES, CaCertificates, fresh_root, install, invalid_rejected

pytestmark = case("M05", block="Security", roles=("csms", "cs"), protocols=OCPP2, requires=["advanced_security"])

TC_IDS = dict(zip(ROOT_TYPES, ("TC_M_01_CSMS", "TC_M_02_CSMS", "TC_M_03_CSMS", "TC_M_04_CSMS"), strict=True))


@pytest.mark.parametrize("certificate_type", [pytest.param(kind, marks=checks(
    CaCertificates.install_request, CaCertificates.installed, csms=TC(TC_IDS[kind], "ocpp2.0.1"))) for kind in ROOT_TYPES])
async def test_ca_certificate_installed(ocpp, certificate_type):
    """A fresh root of each type: Accepted (deleted again at a station under test when the test ends)."""
    await install(ocpp, certificate_type, fresh_root())


@pytest.mark.sut_roles("cs")
@pytest.mark.parametrize("invalid", INVALID)
@checks(CaCertificates.invalid_rejected)
async def test_invalid_certificate_rejected(ocpp, invalid):
    """Garbage in PEM armour, an end-entity certificate, an expired root: Rejected."""
    await invalid_rejected(ocpp, invalid)
