"""B02 — Cold boot, Pending: the CSMS answers the station's BootNotification Pending, with an interval; the station
boots again once the interval passed and, until it is accepted, sends no other CALL (the CSMS may query and
configure it meanwhile). Played with the station under test: the harness's CSMS answers Pending, then accepts it.
The requirements, in our words: docs/requirements/provisioning.md.

Readings chosen where the texts are silent: the station's next boot is waited for twice the interval (it must
wait at least the interval, may wait somewhat longer); the requirement numbers of B02's station rules could not
be checked: SHOULD. The CSMS's side (answering Pending, refusing other CALLs: B02.FR.09) depends on a registration
the harness cannot set at a CSMS under test: not played."""

import pytest

from harness.arena.ocpp_sides import Restart
from harness.roles import CS
from harness.rules import RuleTable, should
from harness.suite import OCPP2, case, checks
from harness.usecases.registration import refused_boots
from harness.usecases.reset import Resets


class B02(RuleTable):
    """The rules of B02 (OCPP 2.0.1 part 2, B02; the same in 2.1)."""
    boots_again = should("OCPP 2.0.1 part 2 B02; BootNotificationResponse interval (Pending: when to boot again)",
                         "a station answered Pending boots again after the interval", by=CS)
    silent = should("OCPP 2.0.1 part 2 B02 (B02.FR.09 is the CSMS's reaction to a station that does not keep it)",
                    "a station answered Pending sends no CALL but BootNotification until it is accepted", by=CS)


pytestmark = case("B02", block="Provisioning", roles=("cs",), protocols=OCPP2)


@pytest.mark.sut_roles("cs")
@checks(Resets.request, Restart.boots, B02.boots_again, B02.silent)
async def test_pending_station_boots_again_and_waits(ocpp):
    """Restarted and answered Pending: nothing but BootNotification, again after the interval, until accepted."""
    await refused_boots(ocpp, "Pending", B02.boots_again, B02.silent)
