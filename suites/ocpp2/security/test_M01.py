"""M01 — Certificate installation for an EV: the EV asks for a contract certificate over ISO 15118, the station
forwards its request (Get15118EVCertificate, action Install), the CSMS returns the answer of its contract
certificate pool. The rows are the shared dialogue's (harness.usecases.ev_certificates, namespace ``evcert``);
docs/requirements/security.md."""

from harness.suite import OCPP2, TC, case, checks
from harness.usecases.ev_certificates import EvCertificates, ev_certificate

pytestmark = case("M01", block="Security", roles=("csms", "cs"), protocols=OCPP2, requires=["plug_and_charge"])


@checks(EvCertificates.install_forwarded, EvCertificates.exi_request, EvCertificates.answered,
        EvCertificates.exi_response, csms=TC("TC_M_26_CSMS", "ocpp2.0.1"))
async def test_ev_certificate_installation_forwarded(ocpp):
    """Install, forwarded with the EV's message in base64; the CSMS answers Accepted with the EV's answer."""
    await ev_certificate(ocpp, "Install", EvCertificates.install_forwarded)
