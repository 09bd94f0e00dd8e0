"""B02 — Cold boot, Pending: the CSMS answers the station's BootNotification Pending, with an interval; the station
boots again once the interval passed and, until it is accepted, sends no other CALL but what the CSMS asks for
(the CSMS may query and configure it meanwhile, and the station answers). With a station under test the harness's
CSMS answers Pending, then accepts it; with a CSMS under test its operator sets it to answer Pending
(``set_registration``, undone by Accepted) and the harness's station boots by hand.
The requirements, in our words: docs/requirements/provisioning.md.

Readings chosen where the texts are silent: the station's next boot is waited for twice the interval (it must
wait at least the interval, may wait somewhat longer); the requirement numbers of B02's station rules on the boot
itself could not be checked: SHOULD. B02.FR.09 (a CALL of a Pending station other than its boot or what it was asked
for is answered SecurityError) as public CSMS projects and the public test case TC_B_30_CSMS quote it: MUST."""

import pytest

from harness.arena.ocpp_sides import Restart
from harness.roles import CS, CSMS
from harness.rules import RuleTable, must, should
from harness.suite import OCPP2, TC, case, checks
from harness.usecases.availability import Availability
from harness.usecases.device_model import HEARTBEAT, get_variables
from harness.usecases.registration import (accepted_after, answered_as, refused_boots, refuses_calls,
                                           report_first_connector)
from harness.usecases.reset import Resets
from harness.verdict import require


class B02(RuleTable):
    """The rules of B02 (OCPP 2.0.1 part 2, B02; the same in 2.1)."""
    boots_again = should("OCPP 2.0.1 part 2 B02; BootNotificationResponse interval (Pending: when to boot again)",
                         "a station answered Pending boots again after the interval", by=CS)
    silent = should("OCPP 2.0.1 part 2 B02 (B02.FR.09 is the CSMS's reaction to a station that does not keep it)",
                    "a station answered Pending sends no CALL but BootNotification until it is accepted", by=CS)
    answers = must("OCPP 2.0.1 part 2 B02.FR.01 (the station SHALL respond to what the CSMS sends while Pending, as "
                   "TC_B_02_CSMS quotes it)", "a station answered Pending answers the CSMS's GetVariables", by=CS)
    registration = must("OCPP 2.0.1 part 2 RegistrationStatusEnumType; TC_B_02_CSMS steps 2 and 4",
                        "the CSMS answers a BootNotification with the registration status its operator set",
                        by=CSMS)
    queries = must("OCPP 2.0.1 part 2 B02.FR.01 (the CSMS may query a Pending station: B05-B08); "
                   "GetVariablesRequest", "asked by its operator, the CSMS reads the variables asked of a Pending "
                                          "station", by=CSMS)
    security_error = must("OCPP 2.0.1 part 2 B02.FR.09 (SHALL, as public CSMS projects quote it); TC_B_30_CSMS",
                          "a CALL of a station answered Pending, but its boot and what the CSMS asked for, is "
                          "answered CALLERROR SecurityError", by=CSMS)


pytestmark = case("B02", block="Provisioning", roles=("csms", "cs"), protocols=OCPP2)


@pytest.mark.sut_roles("cs")
@checks(Resets.request, Restart.boots, B02.boots_again, B02.silent)
async def test_pending_station_boots_again_and_waits(ocpp):
    """Restarted and answered Pending: nothing but BootNotification, again after the interval, until accepted."""
    await refused_boots(ocpp, "Pending", B02.boots_again, B02.silent)


@pytest.mark.sut_roles("cs")
@checks(Resets.request, Restart.boots, B02.answers, B02.boots_again)
async def test_pending_station_answers_queries(ocpp):
    """Restarted and answered Pending, the station is asked for OCPPCommCtrlr.HeartbeatInterval: it answers."""
    async def query() -> None:
        exchange = await ocpp.exchange(CSMS, "GetVariables", {"getVariableData": [HEARTBEAT]})
        require(exchange.error is None, B02.answers, "the station answered Pending refused GetVariables",
                expected="GetVariablesResponse", actual=exchange.error)
    await refused_boots(ocpp, "Pending", B02.boots_again, B02.silent, meanwhile=query)


@pytest.mark.sut_roles("csms")
@pytest.mark.csms_wide("a CSMS's registration answer may be one for every station")
@checks(B02.registration, B02.queries, Availability.status_answered, csms=TC("TC_B_02_CSMS", "ocpp2.0.1"))
async def test_pending_station_is_queried_then_accepted(ocpp_unlinked, harness_station):
    """Set to answer Pending, the CSMS does; asked to, it reads a variable; set to Accepted, it accepts the boot
    after the interval and answers the connector's report."""
    arena = ocpp_unlinked
    response = await answered_as(arena, harness_station, "Pending", B02.registration)
    await get_variables(arena, [HEARTBEAT], B02.queries)
    await accepted_after(arena, harness_station, response, B02.registration)
    report = await report_first_connector(arena)
    require(report.error is None, Availability.status_answered, "the CSMS refused the report of the station it "
            "accepted", expected="StatusNotificationResponse", actual=report.error)


@pytest.mark.sut_roles("csms")
@pytest.mark.csms_wide("a CSMS's registration answer may be one for every station")
@checks(B02.registration, B02.security_error, csms=TC("TC_B_30_CSMS", "ocpp2.0.1"))
async def test_pending_station_report_is_refused(ocpp_unlinked, harness_station):
    """Answered Pending, the harness's station reports a connector all the same: CALLERROR SecurityError."""
    arena = ocpp_unlinked
    response = await answered_as(arena, harness_station, "Pending", B02.registration)
    await refuses_calls(arena, "Pending", B02.security_error)
    await accepted_after(arena, harness_station, response, B02.registration)
