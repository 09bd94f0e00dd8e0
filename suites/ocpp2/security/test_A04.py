"""A04 — Security event notification: a critical security event happens at the station (the actuator action
security_event stands for it: its clock set, by default), the station reports it with
SecurityEventNotification (its type and when it happened), the CSMS confirms it. The events the texts make a
station report on its own (InvalidChargingStationCertificate after a refused renewal) are A02's.
docs/requirements/security.md."""

from harness.roles import CS, CSMS
from harness.rules import RuleTable, must
from harness.suite import OCPP2, case, checks
from harness.usecases.certificates import security_event

WHITEPAPER = "OCPP 1.6 security whitepaper"
EVENT = "SettingSystemTime"


class A04(RuleTable):
    """The rules of A04 (OCPP 2.0.1 part 2 A04; the same in 2.1)."""
    reported = must(f"{WHITEPAPER} A04.FR.01", "a station reports a critical security event with "
                    "SecurityEventNotification naming the event's type", by=CS)
    confirmed = must(f"{WHITEPAPER} A04.FR.03", "the CSMS confirms a SecurityEventNotification with its "
                     "response", by=CSMS)


pytestmark = case("A04", block="Security", roles=("csms", "cs"), protocols=OCPP2)


@checks(A04.reported, A04.confirmed)
async def test_security_event_reported_and_confirmed(ocpp):
    """SettingSystemTime: the station reports it, the CSMS answers."""
    await security_event(ocpp, EVENT, A04.reported, A04.confirmed)
