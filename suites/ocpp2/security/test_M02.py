"""M02 — Certificate update for an EV: the EV asks to renew its contract certificate over ISO 15118, the station
forwards its request (Get15118EVCertificate, action Update), the CSMS returns the answer of its contract
certificate pool. The rows are the shared dialogue's (harness.usecases.ev_certificates, namespace ``evcert``);
docs/requirements/security.md."""

from harness.suite import OCPP2, TC, case, checks
from harness.usecases.ev_certificates import EvCertificates, ev_certificate

pytestmark = case("M02", block="Security", roles=("csms", "cs"), protocols=OCPP2, requires=["plug_and_charge"])


@checks(EvCertificates.update_forwarded, EvCertificates.exi_request, EvCertificates.answered,
        EvCertificates.exi_response, csms=TC("TC_M_28_CSMS", "ocpp2.0.1"))
async def test_ev_certificate_update_forwarded(ocpp):
    """Update, forwarded with the EV's message in base64; the CSMS answers Accepted with the EV's answer."""
    await ev_certificate(ocpp, "Update", EvCertificates.update_forwarded)
