"""B11 — Reset without an ongoing transaction: the operator has the CSMS reset the idle station (Immediate or
OnIdle), or one EVSE of it; the station accepts, restarts and boots again (reason RemoteReset), and the CSMS
answers that boot. An EVSE reset restarts the EVSE only: the station stays connected. The requirements, in our
words: docs/requirements/provisioning.md.

Readings chosen where the texts are silent: an idle station asked to reset answers Accepted (Rejected is legal,
and makes the test not applicable; Scheduled would say something runs); the boot reason RemoteReset is the
enumeration's value for it (SHOULD); B11.FR.04 (NotifyReport of what changed) is left out: a plain reset changes
no variable the harness set."""

import pytest

from harness.arena.ocpp_sides import Restart
from harness.roles import CS
from harness.rules import RuleTable, should
from harness.suite import OCPP2, TC, case, checks
from harness.usecases.reset import Resets, accepted, rebooted, reset
from harness.verdict import check_equal


class B11(RuleTable):
    """The rules of B11 (OCPP 2.0.1 part 2, B11; the same in 2.1)."""
    unknown = should("OCPP 2.0.1 part 2 ResetStatusEnumType (Rejected: the station cannot perform the reset)",
                     "a Reset of an EVSE the station does not have is Rejected", by=CS)


pytestmark = case("B11", block="Provisioning", roles=("csms", "cs"), protocols=OCPP2)


@pytest.mark.parametrize("kind", ["Immediate", "OnIdle"])
@checks(Resets.request, Resets.idle, Restart.boots, Resets.boot_answered, Resets.reason,
        csms=TC("TC_B_20_CSMS", "ocpp2.0.1", when="OnIdle"))
async def test_reset_of_the_idle_station(ocpp, kind):
    """Reset of the whole idle station: Accepted, a new connection and a BootNotification (RemoteReset)."""
    connections = ocpp.connections()
    accepted(await reset(ocpp, kind), "Accepted", Resets.idle)
    await rebooted(ocpp, connections, "RemoteReset")


@pytest.mark.parametrize("kind", ["OnIdle", "Immediate"])
@checks(Resets.request, Resets.idle, csms=TC("TC_B_25_CSMS", "ocpp2.0.1", when="OnIdle"))
async def test_reset_of_an_idle_evse(ocpp, profile, kind):
    """Reset (OnIdle, Immediate) of the first EVSE, idle: Accepted."""
    accepted(await reset(ocpp, kind, profile.evses[0].id), "Accepted", Resets.idle)


@pytest.mark.sut_roles("cs")
@checks(Resets.request, B11.unknown)
async def test_reset_of_an_unknown_evse(ocpp, profile):
    """Reset OnIdle of an EVSE id one above the station's highest: Rejected, and the station stays connected."""
    connections = ocpp.connections()
    exchange = await reset(ocpp, "OnIdle", max(e.id for e in profile.evses) + 1)
    check_equal(B11.unknown, "ResetResponse status for an EVSE the station does not have", "Rejected",
                exchange.result["status"])
    check_equal(B11.unknown, "connections after the refused Reset", connections, ocpp.connections())
