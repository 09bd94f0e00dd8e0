"""EVENTS16 — security events in the 1.6 security extension (the OCA white paper "Improved security for OCPP
1.6-J", A04): a critical security event happens at the charge point (the actuator action security_event), it
sends SecurityEventNotification.req, the central system confirms it. The dialogue is 2.x A04's
(harness.usecases.certificates.security_event); docs/requirements/security.md."""

from harness.roles import CS, CSMS
from harness.rules import RuleTable, must
from harness.suite import OCPP16, case, checks
from harness.usecases.certificates import WHITEPAPER, security_event


class EVENTS16(RuleTable):
    """The rules of EVENTS16."""
    reported = must(f"{WHITEPAPER} A04.FR.01", "a charge point reports a critical security event with "
                    "SecurityEventNotification.req naming the event's type", by=CS)
    confirmed = must(f"{WHITEPAPER} A04.FR.03", "the central system confirms a SecurityEventNotification.req with "
                     "its .conf", by=CSMS)


pytestmark = case("EVENTS16", block="Security (1.6)", roles=("csms", "cs"), protocols=OCPP16)


@checks(EVENTS16.reported, EVENTS16.confirmed)
async def test_security_event_reported_and_confirmed(ocpp):
    """SettingSystemTime: the charge point reports it, the central system answers."""
    await security_event(ocpp, "SettingSystemTime", EVENTS16.reported, EVENTS16.confirmed)
