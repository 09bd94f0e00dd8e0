"""G02 — Heartbeat: an accepted station that has nothing else to say sends HeartbeatRequest every
heartbeat interval (the one its boot was answered with, or OCPPCommCtrlr.HeartbeatInterval once the CSMS set it),
and the CSMS answers with its current time. The requirements, in our words: docs/requirements/availability.md.

Readings chosen where the texts are silent: the interval is read as "at most this long between Heartbeats"
(a station may send them sooner, or skip one when other messages went meanwhile: then the test waits for twice
the interval before blaming it, a SHOULD); the station's clock is not compared with the CSMS's time (no timed
assertion); a station that does not let OCPPCommCtrlr.HeartbeatInterval be set makes the station test not
applicable."""

import pytest

from harness.errors import NotApplicable
from harness.roles import CS, CSMS
from harness.rules import RuleTable, should
from harness.suite import OCPP2, case, checks
from harness.usecases.device_model import HEARTBEAT, Variables, set_variables, status_of_variable
from harness.verdict import require

INTERVAL = 30   # seconds: the interval the CSMS sets for the test


class G02(RuleTable):
    """The rules of G02 (OCPP 2.0.1 part 2, G02; the same in 2.1)."""
    set_interval = should("OCPP 2.0.1 part 2 SetVariablesRequest; OCPPCommCtrlr.HeartbeatInterval",
                          "the CSMS sets the heartbeat interval its operator asked for", by=CSMS)
    beats = should("OCPP 2.0.1 part 2 G02; OCPPCommCtrlr.HeartbeatInterval", "an accepted station sends a "
                   "Heartbeat within the heartbeat interval (waited for twice over)", by=CS)
    answered = should("OCPP 2.0.1 part 2 HeartbeatResponse (currentTime required)",
                      "the CSMS answers a Heartbeat with its current time", by=CSMS)


pytestmark = case("G02", block="Availability", roles=("csms", "cs"), protocols=OCPP2)


@pytest.mark.sut_roles("csms")
@checks(G02.answered)
async def test_heartbeat_is_answered(ocpp):
    """The station's Heartbeat: the CSMS answers with its current time."""
    exchange = await ocpp.exchange(CS, "Heartbeat", {})
    require(exchange.error is None, G02.answered, "the CSMS answered the Heartbeat with a CALLERROR",
            expected="HeartbeatResponse", actual=exchange.error)


@pytest.mark.sut_roles("cs")
@checks(Variables.set_results, G02.beats)
async def test_heartbeat_within_the_interval(ocpp):
    """OCPPCommCtrlr.HeartbeatInterval set to 30 s: a Heartbeat comes within 60 s."""
    results = await set_variables(ocpp, [HEARTBEAT | {"attributeValue": str(INTERVAL)}], G02.set_interval)
    if status_of_variable(results, HEARTBEAT) != "Accepted":
        raise NotApplicable(f"the station did not set OCPPCommCtrlr.HeartbeatInterval: {results}")
    mark = ocpp.mark()
    beat = await ocpp.next_call("Heartbeat", sender=CS, within=2 * INTERVAL, after=mark)
    require(beat is not None, G02.beats, f"no Heartbeat within {2 * INTERVAL} s of a {INTERVAL} s interval",
            expected="HeartbeatRequest", actual="nothing")
