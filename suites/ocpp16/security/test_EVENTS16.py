"""EVENTS16 — security events in the 1.6 security extension (the OCA white paper "Improved security for OCPP
1.6-J", A04): a critical security event happens at the charge point (the actuator action security_event), it
sends SecurityEventNotification.req, the central system confirms it. The dialogue and its rows are 2.x A04's
(harness.usecases.certificates, namespace ``secevent``); docs/requirements/security.md."""

from harness.suite import OCPP16, case, checks
from harness.usecases.certificates import SecurityEvents, security_event

pytestmark = case("EVENTS16", block="Security (1.6)", roles=("csms", "cs"), protocols=OCPP16, requires=["advanced_security"])


@checks(SecurityEvents.reported, SecurityEvents.confirmed)
async def test_security_event_reported_and_confirmed(ocpp):
    """SettingSystemTime: the charge point reports it, the central system answers."""
    await security_event(ocpp)
