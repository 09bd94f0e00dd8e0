"""K04 — Internal load balancing: the CSMS sets the station's physical limit as a
ChargingStationMaxProfile at evseId 0 (spec 001 SetChargingProfile rules 3 and 8); no EVSE's
composite, nor the station's, then exceeds it, whatever its TxDefaultProfiles allow. The engine
(harness/smartcharging/engine.py, composite rule C5) computes each expected composite."""

import pytest

from harness.roles import CS, CSMS
from harness.rules import RuleTable, must
from harness.suite import OCPP2, TC, case, checks
from harness.usecases.smart_charging import (ChargingProfiles, Installed, charging_profile, install, judge_sent_profile,
                                             judge_within, new_id, oracle_station, set_profile)


class K04(RuleTable):
    """The rules of K04 (spec 001 SetChargingProfile rules 3 and 8; Purposes)."""
    station_max = must("spec 001 SetChargingProfile rules 3 and 8",
                       "the CSMS sets the station limit as a ChargingStationMaxProfile at evseId 0, never Relative",
                       by=CSMS)
    bounded = must("spec 001 SetChargingProfile rule 8; Combination rules",
                   "no EVSE's composite, nor the station's, exceeds the ChargingStationMaxProfile", by=CS)


pytestmark = case("K04", block="Smart charging", roles=("csms", "cs"), protocols=OCPP2, requires=["smart_charging"])


def _station_max():
    return charging_profile(new_id(), [(0, "20.0"), (1200, "12.0")], purpose="ChargingStationMaxProfile")


@pytest.mark.sut_roles("cs")
@pytest.mark.parametrize("level", ["each-evse", "station"])
@checks(ChargingProfiles.accepted, K04.bounded)
async def test_no_composite_exceeds_the_station_max(ocpp, profile, level):
    """A 20 A then 12 A station max over TxDefaultProfiles of 16 A (station level) and 32 A (each EVSE):
    no composite exceeds the max (the station may share it among EVSEs as it likes: the engine's exact
    composite is K08's to check)."""
    installed = Installed(oracle_station(ocpp))
    station_max = _station_max()
    await install(ocpp, installed, 0, station_max)
    await install(ocpp, installed, 0, charging_profile(new_id(), [(0, "16.0")]))
    for evse in profile.evses:
        await install(ocpp, installed, evse.id, charging_profile(new_id(), [(0, "32.0")], stack_level=1))
    for evse_id in ([e.id for e in profile.evses] if level == "each-evse" else [0]):
        await judge_within(ocpp, evse_id, lambda at: 20 if at < 1200 else 12,
                           "the station max (at most 20 A, then 12 A from 1200 s)", K04.station_max, K04.bounded)


@pytest.mark.sut_roles("csms")
@checks(ChargingProfiles.sent, K04.station_max, csms=TC("TC_K_03_CSMS", "ocpp2.0.1"))
async def test_csms_sets_the_station_max_at_evse_0(ocpp, profile):
    """The operator sets the grid limit: the CSMS sends it as asked, a ChargingStationMaxProfile at evseId 0
    the rules allow (not Relative)."""
    asked = _station_max()
    exchange = await set_profile(ocpp, 0, asked)
    judge_sent_profile(exchange, 0, asked, oracle_station(ocpp), K04.station_max)
