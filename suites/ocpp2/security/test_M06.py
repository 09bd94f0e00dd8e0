"""M06 — The status of a (V2G) charging station certificate: the station sends GetCertificateStatus with the
certificate's OCSP request data, the CSMS asks the responder named and relays its DER answer. The run's OCSP
responder serves the test (loopback). The rows are the shared dialogue's (harness.usecases.ev_certificates,
namespace ``certstatus``); docs/requirements/security.md."""

import pytest

from harness.suite import OCPP2, TC, case, checks
from harness.usecases.ev_certificates import CertificateStatus, certificate_status, status_without_responder

pytestmark = case("M06", block="Security", roles=("csms", "cs"), protocols=OCPP2, requires=["plug_and_charge"])


@checks(CertificateStatus.request_data, CertificateStatus.answered, CertificateStatus.der, CertificateStatus.relayed,
        csms=TC("TC_M_24_CSMS", "ocpp2.0.1"))
async def test_certificate_status_relayed(ocpp):
    """A valid certificate: Accepted, the responder's DER answer (good) relayed in base64."""
    await certificate_status(ocpp)


@pytest.mark.sut_roles("csms")
@checks(CertificateStatus.answered, CertificateStatus.der, CertificateStatus.relayed)
async def test_revoked_status_relayed(ocpp):
    """A revoked certificate: the CSMS still answers Accepted and relays the responder's answer, which says
    revoked (judging the status is the station's)."""
    await certificate_status(ocpp, "revoked")


@pytest.mark.sut_roles("csms")
@checks(CertificateStatus.der, CertificateStatus.failed)
async def test_no_responder_failed(ocpp):
    """The responder the request names does not answer: Failed (no OCSP response to relay)."""
    await status_without_responder(ocpp)
