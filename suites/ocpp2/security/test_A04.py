"""A04 — Security event notification: a critical security event happens at the station (the actuator action
security_event stands for it: its clock set), the station reports it with SecurityEventNotification (its type and
when it happened), the CSMS confirms it. The events the texts make a station report on its own
(InvalidChargingStationCertificate after a refused renewal) are A02's. The rows are the shared dialogue's
(harness.usecases.certificates, namespace ``secevent``); docs/requirements/security.md."""

import pytest

from harness.suite import OCPP2, case, checks
from harness.usecases.certificates import SecurityEvents, security_event, security_event_offline

pytestmark = case("A04", block="Security", roles=("csms", "cs"), protocols=OCPP2, requires=["advanced_security"])


@checks(SecurityEvents.reported, SecurityEvents.confirmed)
async def test_security_event_reported_and_confirmed(ocpp):
    """SettingSystemTime: the station reports it, the CSMS answers."""
    await security_event(ocpp)


KINDS = ("StartupOfTheDevice", "ResetOrReboot", "ReconfigurationOfSecurityParameters", "TamperDetectionActivated")


@pytest.mark.parametrize("kind", KINDS)
@checks(SecurityEvents.reported, SecurityEvents.confirmed)
async def test_security_event_of_each_kind_confirmed(ocpp, kind):
    """Other critical events of the texts' list, with techInfo: reported as they are, confirmed."""
    await security_event(ocpp, kind, tech_info=f"conformance test: {kind}")


@pytest.mark.sut_roles("cs")
@checks(SecurityEvents.queued)
async def test_security_event_while_offline_delivered(ocpp):
    """The connection is lost and the station is tampered with meanwhile: once connected again it reports the
    event (A04.FR.02)."""
    await security_event_offline(ocpp)
