"""M02 — Certificate update for an EV: the EV asks to renew its contract certificate over ISO 15118, the station
forwards its request (Get15118EVCertificate, action Update), the CSMS returns the answer of its contract
certificate pool. The rows are the shared dialogue's (harness.usecases.ev_certificates, namespace ``evcert``).
In 2.1 an EV of an ISO 15118-20 session also says how many contract certificate chains it takes and which
EMAIDs first, which the station forwards (neither in an ISO 15118-2 session). docs/requirements/security.md."""

import pytest

from harness.suite import OCPP2, TC, case, checks
from harness.usecases.ev_certificates import ISO15118_20, SESSION_20_ROWS, EvCertificates, ev_certificate

pytestmark = case("M02", block="Security", roles=("csms", "cs"), protocols=OCPP2, requires=["plug_and_charge"])


@checks(EvCertificates.update_forwarded, EvCertificates.exi_request, EvCertificates.absent_in_2,
        EvCertificates.answered, EvCertificates.exi_response, csms=TC("TC_M_28_CSMS", "ocpp2.0.1"))
async def test_ev_certificate_update_forwarded(ocpp):
    """Update, forwarded with the EV's message in base64; the CSMS answers Accepted with the EV's answer."""
    await ev_certificate(ocpp, "Update", EvCertificates.update_forwarded)


@pytest.mark.protocols("ocpp2.1")
@checks(EvCertificates.update_forwarded, *SESSION_20_ROWS)
async def test_iso15118_20_update_forwarded(ocpp):
    """Update in an ISO 15118-20 session: with the EV's maximum of chains and its EMAIDs; answered Accepted."""
    await ev_certificate(ocpp, "Update", EvCertificates.update_forwarded, schema=ISO15118_20)
