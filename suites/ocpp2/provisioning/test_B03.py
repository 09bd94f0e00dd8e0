"""B03 — Cold boot, Rejected: the CSMS answers the station's BootNotification Rejected, with an interval; the station
boots again once the interval passed and, until it is accepted, sends no other CALL. With a station under test the
harness's CSMS answers Rejected, then accepts it; with a CSMS under test its operator sets it to answer Rejected
(``set_registration``, undone by Accepted) and the harness's station boots by hand.
The requirements, in our words: docs/requirements/provisioning.md.

Readings chosen where the texts are silent: the station's next boot is waited for twice the interval (it must
wait at least the interval, may wait somewhat longer); the requirement numbers of B03's station rules could not
be checked: SHOULD. B03.FR.07 (a CALL of a Rejected station other than its boot is answered SecurityError) as public
CSMS projects and the public test case TC_B_30_CSMS quote it: MUST."""

import pytest

from harness.arena.ocpp_sides import Restart
from harness.roles import CS, CSMS
from harness.rules import RuleTable, must, should
from harness.suite import OCPP2, TC, case, checks
from harness.usecases.registration import accepted_after, answered_as, refused_boots, refuses_calls
from harness.usecases.reset import Resets


class B03(RuleTable):
    """The rules of B03 (OCPP 2.0.1 part 2, B03; the same in 2.1)."""
    boots_again = should("OCPP 2.0.1 part 2 B03; BootNotificationResponse interval (Rejected: when to boot again)",
                         "a station answered Rejected boots again after the interval", by=CS)
    silent = should("OCPP 2.0.1 part 2 B03 (B03.FR.07 is the CSMS's reaction to a station that does not keep it)",
                    "a station answered Rejected sends no CALL but BootNotification until it is accepted", by=CS)
    registration = must("OCPP 2.0.1 part 2 RegistrationStatusEnumType; TC_B_30_CSMS step 2",
                        "the CSMS answers a BootNotification with the registration status its operator set",
                        by=CSMS)
    security_error = must("OCPP 2.0.1 part 2 B03.FR.07 (SHALL, as public CSMS projects quote it); TC_B_30_CSMS",
                          "a CALL of a station answered Rejected, but its next boot, is answered CALLERROR "
                          "SecurityError", by=CSMS)


pytestmark = case("B03", block="Provisioning", roles=("csms", "cs"), protocols=OCPP2)


@pytest.mark.sut_roles("cs")
@checks(Resets.request, Restart.boots, B03.boots_again, B03.silent)
async def test_rejected_station_boots_again_and_waits(ocpp):
    """Restarted and answered Rejected: nothing but BootNotification, again after the interval, until accepted."""
    await refused_boots(ocpp, "Rejected", B03.boots_again, B03.silent)


@pytest.mark.sut_roles("csms")
@pytest.mark.csms_wide("a CSMS's registration answer may be one for every station")
@checks(B03.registration, B03.security_error, csms=TC("TC_B_30_CSMS", "ocpp2.0.1"))
async def test_rejected_station_report_is_refused_then_accepted(ocpp_unlinked, harness_station):
    """Set to answer Rejected, the CSMS does and refuses the station's report with SecurityError; set to Accepted,
    it accepts the boot sent after the interval."""
    arena = ocpp_unlinked
    response = await answered_as(arena, harness_station, "Rejected", B03.registration)
    await refuses_calls(arena, "Rejected", B03.security_error)
    await accepted_after(arena, harness_station, response, B03.registration)
