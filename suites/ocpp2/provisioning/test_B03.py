"""B03 — Cold boot, Rejected: the CSMS answers the station's BootNotification Rejected, with an interval; the station
boots again once the interval passed and, until it is accepted, sends no other CALL. Played with the station
under test: the harness's CSMS answers Rejected, then accepts it.
The requirements, in our words: docs/requirements/provisioning.md.

Readings chosen where the texts are silent: the station's next boot is waited for twice the interval (it must
wait at least the interval, may wait somewhat longer); the requirement numbers of B03's station rules could not
be checked: SHOULD. The CSMS's side (answering Rejected, refusing other CALLs: B03.FR.07) depends on a registration
the harness cannot set at a CSMS under test: not played."""

import pytest

from harness.arena.ocpp_sides import Restart
from harness.roles import CS
from harness.rules import RuleTable, should
from harness.suite import OCPP2, case, checks
from harness.usecases.registration import refused_boots
from harness.usecases.reset import Resets


class B03(RuleTable):
    """The rules of B03 (OCPP 2.0.1 part 2, B03; the same in 2.1)."""
    boots_again = should("OCPP 2.0.1 part 2 B03; BootNotificationResponse interval (Rejected: when to boot again)",
                         "a station answered Rejected boots again after the interval", by=CS)
    silent = should("OCPP 2.0.1 part 2 B03 (B03.FR.07 is the CSMS's reaction to a station that does not keep it)",
                    "a station answered Rejected sends no CALL but BootNotification until it is accepted", by=CS)


pytestmark = case("B03", block="Provisioning", roles=("cs",), protocols=OCPP2)


@pytest.mark.sut_roles("cs")
@checks(Resets.request, Restart.boots, B03.boots_again, B03.silent)
async def test_rejected_station_boots_again_and_waits(ocpp):
    """Restarted and answered Rejected: nothing but BootNotification, again after the interval, until accepted."""
    await refused_boots(ocpp, "Rejected", B03.boots_again, B03.silent)
