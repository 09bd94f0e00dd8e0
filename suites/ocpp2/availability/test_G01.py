"""G01 — Status notification: a connector whose status changes is reported with StatusNotificationRequest (its
EVSE, its connector, the new status), and the CSMS answers it. The cable plugged in makes the connector
Occupied, pulled out Available again. The requirements, in our words: docs/requirements/availability.md.

Readings chosen where the texts are silent: the numbering of G01's requirements could not be checked, so the
station's report is a SHOULD here (a missing one is a finding); a station may report more (NotifyEvent of the
same change, a second StatusNotification), which is not judged."""

from harness.roles import CS
from harness.rules import RuleTable, should
from harness.suite import OCPP2, case, checks
from harness.usecases.availability import Availability, reported


class G01(RuleTable):
    """The rules of G01 (OCPP 2.0.1 part 2, G01; the same in 2.1)."""
    occupied = should("OCPP 2.0.1 part 2 G01; ConnectorStatusEnumType (Occupied)",
                      "a connector whose cable is plugged in reports Occupied", by=CS)
    available = should("OCPP 2.0.1 part 2 G01; ConnectorStatusEnumType (Available)",
                       "a connector whose cable is pulled out (no transaction, operative) reports Available", by=CS)


pytestmark = case("G01", block="Availability", roles=("csms", "cs"), protocols=OCPP2)


@checks(G01.occupied, G01.available, Availability.status_answered)
async def test_cable_plugged_in_and_out(ocpp, profile):
    """The cable in: StatusNotification Occupied; out again: Available; each answered by the CSMS."""
    evse = profile.evses[0]
    connector = evse.connectors[0]
    mark = ocpp.mark()
    await ocpp.act(CS, "plug_in", evse_id=evse.id, connector_id=connector)
    await reported(ocpp, evse.id, connector, "Occupied", mark, G01.occupied)
    mark = ocpp.mark()
    await ocpp.act(CS, "unplug", evse_id=evse.id, connector_id=connector)
    await reported(ocpp, evse.id, connector, "Available", mark, G01.available)
