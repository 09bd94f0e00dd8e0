"""RENEWAL16 — the charge point's certificate renewed, in the 1.6 security extension (the OCA white paper
"Improved security for OCPP 1.6-J", use cases A02 and A03): the central system asks with ExtendedTriggerMessage
SignChargePointCertificate (or the charge point starts on its own), the charge point sends a CSR for a new key
(SignCertificate.req), the central system accepts a well-formed one and sends the signed certificate
(CertificateSigned.req), which the charge point takes if valid and otherwise refuses and reports
(InvalidChargePointCertificate). The same dialogue as 2.x A02/A03 (harness.usecases.certificates), without
certificateType; docs/requirements/security.md."""

import pytest

from harness.roles import CS
from harness.suite import OCPP16, TC, case, checks
from harness.usecases.certificates import Certificates, ask_renewal, invalid_refused, renewed, unusable_rejected
from harness.usecases.operations import ASKED16

pytestmark = case("RENEWAL16", block="Security (1.6)", roles=("csms", "cs"), protocols=OCPP16, requires=["advanced_security"])

RENEWAL = (Certificates.csr_sent, Certificates.csr_pem, Certificates.csr_names_station, Certificates.csms_accepts,
           Certificates.signed_sent, Certificates.chain_pem, Certificates.chain_key, Certificates.chain_valid,
           Certificates.valid_taken)


@checks(*ASKED16, *RENEWAL, csms=TC("TC_074_CSMS"), cs=TC("TC_074_CS"))
async def test_certificate_renewed_on_request(ocpp):
    """ExtendedTriggerMessage SignChargePointCertificate, CSR, Accepted, the certificate for its key, taken."""
    await renewed(ocpp, lambda: ask_renewal(ocpp, None))


@checks(*RENEWAL)
async def test_charge_point_renews_its_certificate(ocpp):
    """The charge point's own CSR (its certificate about to expire), Accepted, the certificate, taken."""
    await renewed(ocpp, lambda: ocpp.act(CS, "sign_certificate"))


@pytest.mark.sut_roles("cs")
@pytest.mark.parametrize("broken", ["expired", "other_root", "other_key"])
@checks(*ASKED16, Certificates.csr_sent, Certificates.invalid_refused, Certificates.invalid_reported,
        cs=TC("TC_077_CS", when="other_root"))
async def test_an_invalid_certificate_is_refused_and_reported(ocpp, broken):
    """An expired certificate, one of an unknown authority, one for another key: Rejected, and
    SecurityEventNotification InvalidChargePointCertificate."""
    await invalid_refused(ocpp, broken, None)


@pytest.mark.sut_roles("csms")
@pytest.mark.parametrize("unusable", ["not_a_csr", "bad_signature"])
@checks(Certificates.csms_rejects)
async def test_an_unusable_signing_request_is_rejected(ocpp, unusable):
    """A csr that is no request, or whose signature does not verify: Rejected."""
    await unusable_rejected(ocpp, unusable)
