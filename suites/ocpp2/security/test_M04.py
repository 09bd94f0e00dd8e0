"""M04 — Delete a certificate from a station: the CSMS sends DeleteCertificate with the hash data the station
reported for it; the station deletes a certificate it holds (Accepted: it is no longer listed) and answers
NotFound for one it does not hold. docs/requirements/security.md."""

import pytest

from harness.roles import CS, CSMS
from harness.rules import RuleTable, must
from harness.suite import OCPP2, TC, case, checks
from harness.usecases.ca_certificates import CaCertificates, deleted_after_install, unknown_not_found

WHITEPAPER = "OCPP 1.6 security whitepaper"
KIND = "CSMSRootCertificate"


class M04(RuleTable):
    """The rules of M04 (OCPP 2.0.1 part 2 M04; the same in 2.1)."""
    request = must("OCPP 2.0.1 M04.FR.07 (tzi-OCTT TC_M_20_CSMS); DeleteCertificateRequest",
                   "the CSMS deletes by exactly the hash data, in the hash algorithm, the station reported", by=CSMS)
    list_request = must("OCPP 2.0.1 GetInstalledCertificateIdsRequest; M03.FR.01 (tzi-OCTT TC_M_20_CSMS step 2)",
                        "the CSMS asks for the list of the certificate type its operator chose", by=CSMS)
    deleted = must(f"OCPP 2.0.1 M04.FR.01 (tzi-OCTT TC_M_20_CSMS); {WHITEPAPER} M04.FR.02",
                   "a station deletes a certificate it holds and answers Accepted; it is no longer listed", by=CS)
    not_found = must(f"{WHITEPAPER} M04.FR.04", "a station answers NotFound for a certificate it does not hold",
                     by=CS)


pytestmark = case("M04", block="Security", roles=("csms", "cs"), protocols=OCPP2, requires=["advanced_security"])


@checks(CaCertificates.install_request, CaCertificates.installed, M04.list_request, M04.request, M04.deleted,
        csms=TC("TC_M_20_CSMS", "ocpp2.0.1"))
async def test_installed_certificate_is_deleted(ocpp):
    """Installed, listed, deleted by the hash data listed: Accepted, and no longer listed."""
    await deleted_after_install(ocpp, KIND, (M04.list_request, M04.request, M04.deleted))


@pytest.mark.sut_roles("csms")
@pytest.mark.parametrize("algorithm", ["SHA384", "SHA512"])
@checks(CaCertificates.install_request, M04.list_request, M04.request, csms=TC("TC_M_20_CSMS", "ocpp2.0.1"))
async def test_deleted_by_the_algorithm_listed(ocpp, algorithm):
    """The harness's station lists its certificates hashed with SHA384 or SHA512: the CSMS deletes by that hash
    data, in that algorithm (TC_M_20 repeats the deletion for each algorithm)."""
    ocpp.configure(hash_algorithm=algorithm)
    await deleted_after_install(ocpp, KIND, (M04.list_request, M04.request, M04.deleted))


@checks(M04.request, M04.not_found)
async def test_unknown_certificate_not_found(ocpp):
    """The hash data of a root never installed: NotFound."""
    await unknown_not_found(ocpp, M04.request, M04.not_found)
