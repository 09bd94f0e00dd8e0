"""CERTS16 — the charge point's CA certificates in the 1.6 security extension (the OCA white paper "Improved
security for OCPP 1.6-J", M03-M05): InstallCertificate.req of a CentralSystemRootCertificate or
ManufacturerRootCertificate (a valid CA certificate Accepted, any other Rejected), GetInstalledCertificateIds.req
of one type (Accepted with the hash data of each, NotFound when none), DeleteCertificate.req by hash data (Accepted
and gone; NotFound for one it does not hold). The dialogues are 2.x M03-M05's (harness.usecases.ca_certificates);
what the central system sends is judged by 1.6's general rows (sent as asked). docs/requirements/security.md."""

import pytest

from harness.roles import CS
from harness.rules import RuleTable, must
from harness.suite import OCPP16, TC, case, checks
from harness.usecases.ca_certificates import (INVALID, CaCertificates, ROOT_TYPES16, deleted_after_install, fresh_root, install,
                                              invalid_rejected, listed_after_install, none_of_the_type,
                                              unknown_not_found)
from harness.usecases.operations import ASKED16
from harness.usecases.certificates import WHITEPAPER


class CERTS16(RuleTable):
    """The rules of CERTS16 (the white paper's M03-M05)."""
    listed = must(f"{WHITEPAPER} M03.FR.03-04", "a charge point holding certificates of the type asked answers "
                  "Accepted with the hash data of each", by=CS)
    not_found = must(f"{WHITEPAPER} M03.FR.02", "a charge point holding none of the type asked answers NotFound",
                     by=CS)
    deleted = must(f"{WHITEPAPER} M04.FR.01-02", "a charge point deletes a certificate it holds and answers "
                   "Accepted; it is no longer listed", by=CS)
    delete_not_found = must(f"{WHITEPAPER} M04.FR.04", "a charge point answers NotFound for a certificate it does "
                            "not hold", by=CS)


pytestmark = case("CERTS16", block="Security (1.6)", roles=("csms", "cs"), protocols=OCPP16, requires=["advanced_security"])

TC_IDS = {"ManufacturerRootCertificate": "075_1", "CentralSystemRootCertificate": "075_2"}


@pytest.mark.parametrize("certificate_type", [pytest.param(kind, marks=checks(
    CaCertificates.install_request, CaCertificates.installed, csms=TC(f"TC_{TC_IDS[kind]}_CSMS"),
    cs=TC(f"TC_{TC_IDS[kind]}_CS"))) for kind in ROOT_TYPES16])
async def test_ca_certificate_installed(ocpp, certificate_type):
    """A fresh root of each type: Accepted (deleted again at a charge point under test when the test ends)."""
    await install(ocpp, certificate_type, fresh_root())


@pytest.mark.sut_roles("cs")
@pytest.mark.parametrize("invalid", INVALID)
@checks(CaCertificates.invalid_rejected)
async def test_invalid_certificate_rejected(ocpp, invalid):
    """Garbage in PEM armour, an end-entity certificate, an expired root: Rejected."""
    await invalid_rejected(ocpp, invalid)


@checks(*ASKED16, CaCertificates.install_request, CaCertificates.installed, CERTS16.listed)
async def test_installed_certificate_is_listed(ocpp):
    """At a charge point under test a fresh ManufacturerRootCertificate is installed first; the list of that type
    is Accepted and names it."""
    await listed_after_install(ocpp, "ManufacturerRootCertificate", None, CERTS16.listed)


@checks(*ASKED16, CERTS16.not_found)
async def test_no_certificate_of_the_type(ocpp):
    """ManufacturerRootCertificates, none installed at the harness's station: NotFound; a charge point under test
    that holds some makes the test not applicable."""
    await none_of_the_type(ocpp, "ManufacturerRootCertificate", None, CERTS16.not_found)


@checks(*ASKED16, CaCertificates.install_request, CaCertificates.installed, CERTS16.deleted,
        csms=TC("TC_076_CSMS"), cs=TC("TC_076_CS"))
async def test_installed_certificate_is_deleted(ocpp):
    """Installed, listed, deleted by the hash data listed: Accepted, and no longer listed."""
    await deleted_after_install(ocpp, "CentralSystemRootCertificate", (None, None, CERTS16.deleted))


@checks(*ASKED16, CERTS16.delete_not_found)
async def test_unknown_certificate_not_found(ocpp):
    """The hash data of a root never installed: NotFound."""
    await unknown_not_found(ocpp, None, CERTS16.delete_not_found)
