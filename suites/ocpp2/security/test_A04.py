"""A04 — Security event notification: a critical security event happens at the station (the actuator action
security_event stands for it: its clock set, by default), the station reports it with
SecurityEventNotification (its type and when it happened), the CSMS confirms it. The events the texts make a
station report on its own (InvalidChargingStationCertificate after a refused renewal) are A02's.
docs/requirements/security.md."""

from harness import clock
from harness.roles import CS, CSMS
from harness.rules import RuleTable, must
from harness.suite import OCPP2, case, checks
from harness.ocpp.answers import REFUSALS
from harness.verdict import check_equal, require, violated

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
    now = clock.utcnow().isoformat(timespec="seconds").replace("+00:00", "Z")
    exchange = await ocpp.exchange(CS, "SecurityEventNotification", {"type": EVENT, "timestamp": now},
                                   trigger=("security_event", {"type": EVENT}), rule=A04.reported)
    if ocpp.is_sut(CS):
        check_equal(A04.reported, "SecurityEventNotificationRequest type", EVENT, exchange.request.get("type"))
    else:
        if exchange.error is not None and exchange.error.code not in REFUSALS:
            violated(A04.confirmed, "the CSMS answered the notification with a CALLERROR",
                     expected="SecurityEventNotificationResponse", actual=exchange.error)
        require(isinstance(exchange.result, dict), A04.confirmed, "the CSMS did not confirm the notification",
                expected="SecurityEventNotificationResponse", actual=exchange.result)
