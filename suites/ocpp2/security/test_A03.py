"""A03 — Update the station's certificate initiated by the station (its certificate is about to expire): the
station requests a certificate for a new key on its own (the actuator action sign_certificate stands for the
expiry it noticed), and the renewal goes on as in A02. The rows are the shared dialogue's
(harness.usecases.certificates); docs/requirements/security.md."""

import pytest

from harness.roles import CS
from harness.suite import OCPP2, case, checks
from harness.usecases.certificates import Certificates, renewed

pytestmark = case("A03", block="Security", roles=("csms", "cs"), protocols=OCPP2, requires=["advanced_security"])


@pytest.mark.parametrize("certificate_type", ["ChargingStationCertificate", "V2GCertificate"])
@checks(Certificates.csr_sent, Certificates.csr_pem, Certificates.csr_names_station, Certificates.csms_accepts,
        Certificates.signed_sent, Certificates.chain_pem, Certificates.chain_key, Certificates.chain_valid,
        Certificates.type_echoed, Certificates.valid_taken)
async def test_station_renews_its_certificate(ocpp, certificate_type):
    """The station's own CSR for its certificate or its V2G certificate, Accepted, the signed certificate for its
    key (its certificateType echoed), taken."""
    await renewed(ocpp, lambda: ocpp.act(CS, "sign_certificate", certificate_type=certificate_type))
