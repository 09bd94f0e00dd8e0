"""K08 — GetCompositeSchedule: the station reports the composite of its installed profiles
(spec 001 "Combination rules"; the expected composite is computed by the charging-profile
engine from what the test installed, at the scheduleStart the station reports)."""

import secrets

import pytest

from harness import smartcharging as sc
from harness.arena import CS, CSMS
from harness.ocpp.versions import OcppVersion
from harness.rules import RuleTable, must
from harness.suite import case, checks
from harness.usecases.smart_charging import (ChargingProfiles, absolute_tx_default, oracle_station, recent_start,
                                             set_profile)
from harness.verdict import check_equal, require


class K08(RuleTable):
    """The rules of K08 (spec 001 Smart charging messages: GetCompositeSchedule; Combination rules)."""
    request = must("spec 001 Smart charging messages: GetCompositeScheduleRequest",
                   "the CSMS asks for the composite of the EVSE it was asked about, over a duration above 0 s", by=CSMS)
    accepted = must("spec 001 Smart charging messages: GetCompositeScheduleResponse",
                    "a known EVSE and a supported unit give an Accepted answer with a schedule", by=CS)
    combined = must("spec 001 Combination rules",
                    "the composite follows, per purpose, the profile with the highest stackLevel", by=CS)


pytestmark = case("K08", block="Smart charging", roles=("csms", "cs"), protocols=("ocpp2.0.1",),
                  requires=["smart_charging"])


@checks(ChargingProfiles.accepted, K08.accepted, K08.combined)
@pytest.mark.sut_roles("cs")
async def test_composite_is_the_installed_profiles_combined(ocpp, profile):
    """Two stacked TxDefaultProfiles: the higher stackLevel leads; the composite shows its periods."""
    start = recent_start()
    low = absolute_tx_default(secrets.randbelow(10**6) + 1, [(0, "16.0")], start, stack_level=0)
    high = absolute_tx_default(secrets.randbelow(10**6) + 1, [(0, "10.0"), (1800, "6.0")], start, stack_level=1)
    for charging_profile in (low, high):
        answer = await set_profile(ocpp, 0, charging_profile)
        check_equal(ChargingProfiles.accepted, "SetChargingProfileResponse status", "Accepted",
                    answer.response["status"])
    evse = profile.evses[0].id
    exchange = await ocpp.exchange(CSMS, "GetCompositeSchedule",
                                   {"evseId": evse, "duration": 3600, "chargingRateUnit": "A"})
    check_equal(K08.accepted, "GetCompositeScheduleResponse status", "Accepted", exchange.response["status"])
    reported = sc.composite_from_wire(exchange.response, OcppVersion.V201)
    station = oracle_station(ocpp)
    store = sc.ProfileStore()
    for charging_profile in (low, high):
        store.install(station, 0, sc.from_v201(charging_profile), OcppVersion.V201)
    expected = sc.composite_schedule(store, station, evse, reported.schedule_start, 3600, "A")
    check_equal(K08.combined, "composite periods (startPeriod, limit A)",
                [(p.start_period, p.limit) for p in expected.periods],
                [(p.start_period, p.limit) for p in reported.periods])


@checks(K08.request)
@pytest.mark.sut_roles("csms")
async def test_csms_asks_for_a_composite_schedule(ocpp, profile):
    """The CSMS's GetCompositeScheduleRequest names an EVSE and a duration (schema-checked)."""
    evse = profile.evses[0].id
    exchange = await ocpp.exchange(CSMS, "GetCompositeSchedule", trigger=(
        "get_composite_schedule", {"evse_id": evse, "duration": 3600, "charging_rate_unit": "A"}),
        rule=K08.request)
    check_equal(K08.request, "GetCompositeScheduleRequest evseId", evse, exchange.request["evseId"])
    require(exchange.request["duration"] > 0, K08.request, "the duration must be positive", expected="> 0",
            actual=exchange.request["duration"])
