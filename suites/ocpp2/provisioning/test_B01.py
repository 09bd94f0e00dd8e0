"""B01 — Cold boot: the station boots (BootNotificationRequest) and, once Accepted, reports the status of each of
its connectors (StatusNotificationRequest), which the CSMS answers. The boot itself (the station boots on
connecting, the CSMS answers it Accepted with a positive interval) is judged by the transport suite,
suites/ocpp/transport/test_CONN.py (CONN.boots, CONN.answered, CONN.interval, registration.accepted,
TC_B_01_CSMS); this file judges what follows it. The requirements, in our words: docs/requirements/provisioning.md.

Readings chosen where the texts are silent: a connector's status after the boot may be any status (Available,
Unavailable, Occupied, ...); the numbering of B01's requirement for the reports could not be checked: SHOULD."""

import pytest

from harness.errors import HarnessError

from harness.roles import CS
from harness.rules import RuleTable, should
from harness.suite import OCPP2, case, checks
from harness.usecases.availability import Availability
from harness.verdict import require


class B01(RuleTable):
    """The rules of B01 (OCPP 2.0.1 part 2, B01; the same in 2.1)."""
    statuses = should("OCPP 2.0.1 part 2 B01 (after an Accepted boot); G01", "an accepted station reports the "
                      "status of each of its connectors with StatusNotificationRequest", by=CS)


pytestmark = case("B01", block="Provisioning", roles=("csms", "cs"), protocols=OCPP2)


@pytest.mark.sut_roles("cs")
@checks(B01.statuses)
async def test_station_reports_its_connectors_after_booting(ocpp_unlinked, harness_csms, profile):
    """The station boots (after a Reset if it reconnected without booting); each connector's status follows."""
    ocpp = ocpp_unlinked
    await harness_csms.await_station()
    boot = await harness_csms.station_boot()
    after = ocpp.mark_after(boot)
    for evse in profile.evses:
        for connector in evse.connectors:
            await ocpp.expect("StatusNotification", sender=CS, after=after, rule=B01.statuses,
                              where=lambda p, e=evse.id, c=connector: (p["evseId"], p["connectorId"]) == (e, c))


@pytest.mark.sut_roles("csms")
@checks(Availability.status_answered)
async def test_csms_answers_the_reports_after_the_boot(ocpp):
    """The harness's station booted and reported each connector: the CSMS answered every report."""
    reports = ocpp.sent("StatusNotification", sender=CS)
    if not reports:
        raise HarnessError("the harness's station reported no connector after booting")
    for report in reports:
        require(report.error is None, Availability.status_answered, "the CSMS answered a StatusNotification after "
                "the boot with a CALLERROR", expected="StatusNotificationResponse", actual=report.error)
