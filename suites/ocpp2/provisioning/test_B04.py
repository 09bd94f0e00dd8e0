"""B04 — Offline behaviour of an idle station: while the station is offline a connector's status changes (a cable
is plugged in); once the station is connected again it reports that status (StatusNotificationRequest), which
the CSMS answers. Played with an outage at the harness's end: its CSMS refuses the station's reconnection (or
its station stays away) while the cable goes in. The requirements, in our words: docs/requirements/provisioning.md.

Readings chosen where the texts are silent: a station back after a short outage reports at least the connectors
whose status changed (it may report all: longer than its OfflineThreshold, it should); it may reconnect with or
without booting; the numbering of B04's requirements could not be checked: SHOULD."""

from harness.roles import CS
from harness.rules import RuleTable, should
from harness.suite import OCPP2, case, checks
from harness.usecases.availability import Availability, reported


class B04(RuleTable):
    """The rules of B04 (OCPP 2.0.1 part 2, B04; the same in 2.1)."""
    reported = should("OCPP 2.0.1 part 2 B04; G01", "a station back from an outage reports the status its "
                      "connectors took while it was offline", by=CS)


pytestmark = case("B04", block="Provisioning", roles=("csms", "cs"), protocols=OCPP2)


@checks(B04.reported, Availability.status_answered)
async def test_status_changed_offline_is_reported(ocpp, profile):
    """Offline, the cable goes in; connected again, the station reports the connector Occupied."""
    evse = profile.evses[0]
    connector = evse.connectors[0]
    connections = ocpp.connections()
    await ocpp.cut()
    await ocpp.act(CS, "plug_in", evse_id=evse.id, connector_id=connector)
    await ocpp.restore()
    await ocpp.reconnected(connections)
    await reported(ocpp, evse.id, connector, "Occupied", 0, B04.reported)
