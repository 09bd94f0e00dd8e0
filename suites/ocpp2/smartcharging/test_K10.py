"""K10 — ClearChargingProfile: by id the station removes that profile only; by criteria every profile
that matches them all (evseId 0: the station level only; omitted: every EVSE); Accepted when it
removed something, Unknown when nothing matched. What remains is read back through
GetChargingProfiles (K09) and compared with the engine (harness/smartcharging/engine.py, rules K1, K2)
applying the same request to what the test installed."""

import pytest

from harness.roles import CS, CSMS
from harness.rules import RuleTable, must
from harness.suite import OCPP2, TC, case, checks
from harness.usecases.operations import operate
from harness.usecases.smart_charging import (ChargingProfiles, Installed, charging_profile, external_limit,
                                             get_profiles, install, install_all, judge_reports, new_id, oracle_station)
from harness.verdict import check_equal


class K10(RuleTable):
    """The rules of K10 (spec 001 Smart charging messages: ClearChargingProfile; Errors)."""
    request = must("spec 001 Smart charging messages: ClearChargingProfileRequest",
                   "the CSMS clears by the id or the criteria its operator asked for", by=CSMS)
    cleared = must("spec 001 Smart charging messages: ClearChargingProfileRequest, ClearChargingProfileResponse",
                   "a station removes exactly the profiles the id or criteria select, and answers Accepted", by=CS)
    unknown = must("spec 001 Errors (ClearChargingProfileResponse Unknown); Smart charging messages: "
                   "ClearChargingProfileRequest", "a station answers Unknown when no profile matches, or only "
                   "ChargingStationExternalConstraints profiles do (which it keeps)", by=CS)


pytestmark = case("K10", block="Smart charging", roles=("csms", "cs"), protocols=OCPP2, requires=["smart_charging"])


def _installs(evse_id: int) -> list[tuple[int, dict]]:
    """TxDefaultProfiles at the station level (stacks 0 and 2) and at the EVSE (stack 3), the station max."""
    return [(0, charging_profile(new_id(), [(0, "16.0")])),
            (0, charging_profile(new_id(), [(0, "14.0")], stack_level=2)),
            (evse_id, charging_profile(new_id(), [(0, "10.0")], stack_level=3)),
            (0, charging_profile(new_id(), [(0, "32.0")], purpose="ChargingStationMaxProfile"))]


# name: the ClearChargingProfileRequest, given the EVSE and the installed profiles in order
CLEARS = {
    "by-id": lambda e, wires: {"chargingProfileId": wires[2][1]["id"]},
    "station-level": lambda e, wires: {"chargingProfileCriteria": {"evseId": 0,
                                                                   "chargingProfilePurpose": "TxDefaultProfile"}},
    "one-evse": lambda e, wires: {"chargingProfileCriteria": {"evseId": e}},
    "purpose-everywhere": lambda e, wires: {"chargingProfileCriteria": {"chargingProfilePurpose": "TxDefaultProfile"}},
    "stack-level": lambda e, wires: {"chargingProfileCriteria": {"stackLevel": 2}},
    "station-max": lambda e, wires: {"chargingProfileCriteria": {"evseId": 0,
                                                                 "chargingProfilePurpose": "ChargingStationMaxProfile"}},
}


async def _clear(ocpp, request: dict):
    return await operate(ocpp, "ClearChargingProfile", request, K10.request)


@pytest.mark.sut_roles("cs")
@pytest.mark.parametrize("name", list(CLEARS))
@checks(ChargingProfiles.accepted, K10.cleared, ChargingProfiles.tbc)
async def test_clear_removes_what_it_selects(ocpp, profile, name):
    """Four profiles at two levels; the clear is Accepted and, read back, exactly the others remain."""
    evse_id = profile.evses[0].id
    wires = _installs(evse_id)
    installed = await install_all(ocpp, wires)
    request = CLEARS[name](evse_id, wires)
    expected = installed.clear(request)
    exchange = await _clear(ocpp, request)
    check_equal(K10.cleared, "ClearChargingProfileResponse status", expected.status, exchange.result["status"])
    read, reports = await get_profiles(ocpp, {"requestId": new_id(), "chargingProfile": {
        "chargingProfileId": sorted(installed.ids)}})
    judge_reports(installed, read, reports, K10.cleared)


@pytest.mark.sut_roles("cs")
@checks(K10.unknown)
async def test_clear_of_nothing_is_unknown(ocpp, profile):
    """A clear by an id no profile has removes nothing: Unknown."""
    exchange = await _clear(ocpp, {"chargingProfileId": new_id()})
    check_equal(K10.unknown, "ClearChargingProfileResponse status", "Unknown", exchange.result["status"])


@pytest.mark.sut_roles("cs")
@checks(ChargingProfiles.notified, K10.unknown, ChargingProfiles.tbc)
async def test_clear_of_only_external_constraints_is_unknown(ocpp, profile):
    """An external limit on the EVSE is the only match of the criteria: Unknown, and it is still reported."""
    evse_id = profile.evses[0].id
    await external_limit(ocpp, Installed(oracle_station(ocpp)), evse_id, "EMS", "10.0")
    exchange = await _clear(ocpp, {"chargingProfileCriteria": {
        "evseId": evse_id, "chargingProfilePurpose": "ChargingStationExternalConstraints"}})
    check_equal(K10.unknown, "ClearChargingProfileResponse status", "Unknown", exchange.result["status"])
    _, reports = await get_profiles(ocpp, {"requestId": new_id(), "evseId": evse_id,
                                           "chargingProfile": {"chargingLimitSource": ["EMS"]}})
    check_equal(K10.unknown, "external constraints still reported at the EVSE", True, any(
        p["chargingProfilePurpose"] == "ChargingStationExternalConstraints" for r in reports
        for p in r["chargingProfile"]))


@pytest.mark.sut_roles("csms")
@pytest.mark.parametrize("name", ["by-id", "station-level", "purpose-everywhere"])
@checks(K10.request, csms=TC("TC_K_05_CSMS", "ocpp2.0.1", when="by-id"))
async def test_csms_clears_what_it_was_asked_to(ocpp, profile, name):
    """The CSMS's ClearChargingProfileRequest carries exactly the id or the criteria of its operator's request
    (the station holds the profile the operator set first)."""
    wire = charging_profile(new_id(), [(0, "16.0")], stack_level=2)
    await install(ocpp, Installed(oracle_station(ocpp)), 0, wire)
    request = CLEARS[name](profile.evses[0].id, [(0, wire)] * 3)
    await _clear(ocpp, request)


@checks(K10.request, K10.unknown, csms=TC("TC_K_08_CSMS", "ocpp2.0.1"))
async def test_clear_with_nothing_installed(ocpp, profile):
    """Nothing this test installed: a clear of the EVSE's TxDefaultProfiles at one stackLevel is sent as asked
    and answered Unknown (the stackLevel is one no profile of the station's own is expected to hold). After
    Unknown the texts ask nothing more of the CSMS."""
    request = {"chargingProfileCriteria": {"evseId": profile.evses[0].id,
                                           "chargingProfilePurpose": "TxDefaultProfile", "stackLevel": 97}}
    exchange = await _clear(ocpp, request)
    check_equal(K10.unknown, "ClearChargingProfileResponse status", "Unknown", exchange.result["status"])
