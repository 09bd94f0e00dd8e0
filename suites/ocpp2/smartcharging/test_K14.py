"""K14 — External charging limit with a local controller (spec 001 SetChargingProfile rules 11 and 12):
an external system limits the whole station (or the controller's group, evseId 0); the total load of
all EVSEs SHALL NOT exceed it, whatever the CSMS's profiles allow, and a higher limit the CSMS sets
meanwhile applies only once the external limit is released. K11–K13 judge the notification, the
ChargingRateChanged event, one EVSE's composite and the release; this use case adds the station-wide
limit over every EVSE and the higher profile held back until the release. How the station shares the
limit among its EVSEs is its own: each composite is judged against the limit (the engine's exact
composite once the limit is gone)."""

import pytest

from harness.roles import CS
from harness.rules import RuleTable, must
from harness.suite import OCPP2, case, checks
from harness.usecases.smart_charging import (ChargingProfiles, Installed, charging_profile, composite, external_limit,
                                             install, judge_composite, judge_within, new_id, oracle_station,
                                             release_external_limit)


class K14(RuleTable):
    """The rules of K14 (spec 001 SetChargingProfile rules 11 and 12)."""
    total = must("spec 001 SetChargingProfile rule 12 (the total load of all EVSEs SHALL NOT exceed it)",
                 "no composite, of an EVSE or of the station, exceeds a station-wide external limit, even over a "
                 "higher profile of the CSMS", by=CS)
    after_release = must("spec 001 SetChargingProfile rule 12 (after release the CSMS may send profiles with higher "
                         "limits)", "once the external limit is released the higher profile applies", by=CS)


pytestmark = case("K14", block="Smart charging", roles=("cs",), protocols=OCPP2, requires=["smart_charging"])


async def _limited(ocpp, profile) -> Installed:
    """A TxDefaultProfile of 16 A at the station level, a 20 A external limit (the grid operator) on the whole
    station, then a higher TxDefaultProfile of 32 A at each EVSE from the CSMS."""
    installed = Installed(oracle_station(ocpp))
    await install(ocpp, installed, 0, charging_profile(new_id(), [(0, "16.0")]))
    await external_limit(ocpp, installed, 0, "SO", "20.0")
    for evse in profile.evses:
        await install(ocpp, installed, evse.id, charging_profile(new_id(), [(0, "32.0")], stack_level=3))
    return installed


@pytest.mark.parametrize("level", ["each-evse", "station"])
@checks(ChargingProfiles.accepted, ChargingProfiles.notified, K14.total)
async def test_total_load_never_exceeds_the_external_limit(ocpp, profile, level):
    """Under a station-wide external limit of 20 A, no composite of the next hour exceeds 20 A, though the CSMS
    allowed 32 A at each EVSE."""
    await _limited(ocpp, profile)
    for evse_id in ([e.id for e in profile.evses] if level == "each-evse" else [0]):
        await judge_within(ocpp, evse_id, lambda at: 20, "the external limit (at most 20 A)", K14.total, K14.total)


@checks(ChargingProfiles.accepted, ChargingProfiles.notified, K14.after_release)
async def test_higher_limit_applies_after_release(ocpp, profile):
    """The 20 A external limit released (ClearedChargingLimit), the EVSE's composite is the engine's: the CSMS's
    32 A."""
    installed = await _limited(ocpp, profile)
    evse_id = profile.evses[0].id
    await release_external_limit(ocpp, installed, 0, "SO", K14.after_release)
    judge_composite(installed, await composite(ocpp, evse_id, 1800, "A", K14.after_release), "A",
                    K14.after_release, K14.after_release)
