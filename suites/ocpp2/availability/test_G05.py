"""G05 — Lock failure: the cable lock of a connector fails to lock; the station reports the problem to the CSMS
with NotifyEventRequest (component ConnectorPlugRetentionLock of that EVSE and connector, variable Problem,
actualValue true), and the CSMS answers it. The requirements, in our words: docs/requirements/availability.md.

Readings chosen where the texts are silent: the station's report is judged by the component and variable the
2.0.1 device model names for the lock (SHOULD: the numbering of the station's requirement could not be
checked); the CSMS's answer is G05.FR.03 (MUST). A station need not stop a charge it cannot start anyway: what
it does with the EV is not judged."""

from harness.roles import CS, CSMS
from harness.rules import RuleTable, must, should
from harness.suite import OCPP2, TC, case, checks
from harness.verdict import check_equal, require


class G05(RuleTable):
    """The rules of G05 (OCPP 2.0.1 part 2, G05; the same in 2.1)."""
    reported = should("OCPP 2.0.1 part 2 G05; appendix ConnectorPlugRetentionLock.Problem",
                      "a lock that fails is reported with NotifyEvent: ConnectorPlugRetentionLock of the EVSE and "
                      "connector, variable Problem, actualValue true", by=CS)
    answered = must("OCPP 2.0.1 part 2 G05.FR.03", "the CSMS answers the NotifyEventRequest with its response",
                    by=CSMS)


pytestmark = case("G05", block="Availability", roles=("csms", "cs"), protocols=OCPP2)


@checks(G05.reported, G05.answered, csms=TC("TC_G_20_CSMS", "ocpp2.0.1"))
async def test_lock_failure_is_reported(ocpp, profile):
    """The lock of the first connector fails: NotifyEvent ConnectorPlugRetentionLock.Problem true, answered."""
    evse = profile.evses[0]
    connector = evse.connectors[0]
    mark = ocpp.mark()
    await ocpp.act(CS, "fail_lock", evse_id=evse.id, connector_id=connector)
    event = await ocpp.expect("NotifyEvent", sender=CS, after=mark, rule=G05.reported, where=lambda p: any(
        d["component"]["name"].lower() == "connectorplugretentionlock" for d in p["eventData"]))
    if event is None:
        return
    if ocpp.is_sut(CSMS):
        require(event.error is None, G05.answered, "the CSMS answered the NotifyEventRequest with a CALLERROR",
                expected="NotifyEventResponse", actual=event.error)
    data = next(d for d in event.request["eventData"]
                if d["component"]["name"].lower() == "connectorplugretentionlock")
    check_equal(G05.reported, "NotifyEvent of the lock: EVSE, connector, variable, actualValue",
                (evse.id, connector, "problem", "true"),
                ((data["component"].get("evse") or {}).get("id"), (data["component"].get("evse") or {}).get(
                    "connectorId"), data["variable"]["name"].lower(), str(data["actualValue"]).lower()))
