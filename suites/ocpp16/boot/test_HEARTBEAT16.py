"""HEARTBEAT16 — a 1.6 charge point sends at least one Heartbeat a day, whatever keeps its WebSocket alive
(spec 002 Behavior rule 3; Limits "heartbeat: at least one per day"; Messages Heartbeat).

The charge point's HeartbeatInterval is set to a day, the longest the rule allows (a longer one would
pit the central system's setting against the rule), and nothing else is asked of it: a Heartbeat must
come within the day. Against a real charge point that is a real day's wait, so the test is played only
when the profile opts in with ``[long_tests] heartbeat_per_day = true``; the embedded run plays it on
its virtual clock. That the central system answers Heartbeat with its time is BOOT16's.
"""

from harness.roles import CS
from harness.errors import NotApplicable
from harness.rules import RuleTable, must
from harness.suite import OCPP16, case, checks, needs
from harness.usecases.core16 import configure_charge_point


class HEARTBEAT16(RuleTable):
    """The rules of HEARTBEAT16."""
    daily = must("spec 002 Behavior rule 3; Limits (heartbeat)",
                 "the charge point sends at least one Heartbeat per day, even with WebSocket ping/pong", by=CS)


pytestmark = case("HEARTBEAT16", block="Core (1.6)", roles=("cs",), protocols=OCPP16)

DAY = 24 * 3600   # seconds


def day_long(given) -> None:
    """The condition (``suite.needs``) that the profile opts in to waiting a day."""
    if not given.profile.get("long_tests.heartbeat_per_day", False):
        raise NotApplicable("this test waits up to a real day for a Heartbeat: opt in with [long_tests] "
                            "heartbeat_per_day = true in the profile")


@checks(HEARTBEAT16.daily)
@needs(day_long)
async def test_heartbeat_comes_at_least_once_a_day(ocpp):
    """HeartbeatInterval a day, the link left quiet: a Heartbeat within the day (and the action timeout)."""
    await configure_charge_point(ocpp, {"HeartbeatInterval": str(DAY)})
    mark = ocpp.mark()
    await ocpp.expect("Heartbeat", sender=CS, after=mark, rule=HEARTBEAT16.daily, timeout=DAY + ocpp.timeouts.action)
