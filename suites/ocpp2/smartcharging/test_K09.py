"""K09 — GetChargingProfiles: the station reports, in ReportChargingProfiles under the request's
requestId, exactly the profiles the criteria select (evseId 0: the station level only; omitted: every
EVSE; above 0: that EVSE; purpose, stackLevel, ids and source as filters), one report per EVSE and
source with tbc on all but the last; NoProfiles and no report when nothing matches. The engine
(harness/smartcharging/engine.py, rule K3) computes the expected reports from what the test installed.

What the CSMS owes: the request as its operator asked, and an answer to each report (spec 001 "Store reported
profiles" is internal; the response's shape is not shown): the texts ask nothing more of it."""

import pytest

from harness.roles import CS
from harness.rules import RuleTable, must
from harness.suite import OCPP2, TC, case, checks
from harness.usecases.smart_charging import (ChargingProfiles, charging_profile, get_profiles, install_all,
                                             judge_reports, new_id)
from harness.verdict import check_equal


class K09(RuleTable):
    """The rules of K09 (spec 001 Smart charging messages: GetChargingProfiles, ReportChargingProfiles)."""
    no_profiles = must("spec 001 Smart charging messages: GetChargingProfilesRequest; GetChargingProfilesResponse",
                       "when no profile matches the station answers NoProfiles and sends no report", by=CS)


pytestmark = case("K09", block="Smart charging", roles=("csms", "cs"), protocols=OCPP2, requires=["smart_charging"])


def _installs(evse_id: int) -> list[tuple[int, dict]]:
    """A TxDefaultProfile at the station level (stack 0), one at the EVSE (stack 1), the station max."""
    return [(0, charging_profile(new_id(), [(0, "16.0")])),
            (evse_id, charging_profile(new_id(), [(0, "10.0")], stack_level=1)),
            (0, charging_profile(new_id(), [(0, "32.0")], purpose="ChargingStationMaxProfile"))]


# name: the request's (evseId or None, criteria), given the EVSE and the installed profiles' ids
CRITERIA = {
    "every-evse": lambda e, ids: (None, {}),
    "station-level": lambda e, ids: (0, {}),
    "one-evse": lambda e, ids: (e, {}),
    "purpose": lambda e, ids: (None, {"chargingProfilePurpose": "TxDefaultProfile"}),
    "stack-level": lambda e, ids: (None, {"stackLevel": 1}),
    "ids": lambda e, ids: (None, {"chargingProfileId": [ids[0], ids[1]]}),
    "source-cso": lambda e, ids: (None, {"chargingLimitSource": ["CSO"]}),
    "purpose-at-station-level": lambda e, ids: (0, {"chargingProfilePurpose": "ChargingStationMaxProfile"}),
    "evse-purpose": lambda e, ids: (e, {"chargingProfilePurpose": "TxDefaultProfile"}),
    "evse-stack-level": lambda e, ids: (e, {"stackLevel": 1}),
    "evse-source": lambda e, ids: (e, {"chargingLimitSource": ["CSO"]}),
    "evse-purpose-stack-level": lambda e, ids: (e, {"chargingProfilePurpose": "TxDefaultProfile", "stackLevel": 1}),
}
# the public CSMS cases that ask for a selection at one EVSE above 0
CSMS_CASES = {"evse-purpose": "TC_K_30_CSMS", "evse-stack-level": "TC_K_33_CSMS", "evse-source": "TC_K_34_CSMS",
              "evse-purpose-stack-level": "TC_K_36_CSMS"}


def _request(evse_id, criteria) -> dict:
    return {"requestId": new_id(), "chargingProfile": criteria} | ({} if evse_id is None else {"evseId": evse_id})


@pytest.mark.sut_roles("cs")
@pytest.mark.parametrize("name", list(CRITERIA))
@checks(ChargingProfiles.accepted, ChargingProfiles.reported, ChargingProfiles.tbc)
async def test_reports_are_what_the_criteria_select(ocpp, profile, name):
    """Three profiles at two levels; the criteria's selection is reported, split by EVSE and source."""
    evse_id = profile.evses[0].id
    installed = await install_all(ocpp, _installs(evse_id))
    request = _request(*CRITERIA[name](evse_id, sorted(installed.ids)))
    exchange, reports = await get_profiles(ocpp, request)
    judge_reports(installed, exchange, reports)


@pytest.mark.sut_roles("cs")
@checks(K09.no_profiles)
async def test_nothing_selected_is_no_profiles(ocpp, profile):
    """An id no profile has selects nothing: NoProfiles, and no ReportChargingProfiles for the request."""
    request = _request(None, {"chargingProfileId": [new_id()]})
    mark = ocpp.mark()
    exchange, _ = await get_profiles(ocpp, request)
    check_equal(K09.no_profiles, "GetChargingProfilesResponse status", "NoProfiles", exchange.result["status"])
    await ocpp.expect_none("ReportChargingProfiles", after=mark, rule=K09.no_profiles,
                           where=lambda p: p.get("requestId") == request["requestId"])


@pytest.mark.sut_roles("csms")
@pytest.mark.parametrize("name", ["every-evse", "station-level", "purpose-at-station-level", "ids", *CSMS_CASES])
@checks(ChargingProfiles.report_sent,
        csms=(TC("TC_K_29_CSMS", "ocpp2.0.1", when="station-level"), TC("TC_K_31_CSMS", "ocpp2.0.1", when="every-evse"),
              TC("TC_K_32_CSMS", "ocpp2.0.1", when="ids"),
              *(TC(tc, "ocpp2.0.1", when=name) for name, tc in CSMS_CASES.items())))
async def test_csms_asks_for_the_profiles_it_was_asked_for(ocpp, profile, name):
    """The CSMS's GetChargingProfilesRequest carries the evseId (none when none was asked for) and the
    criteria of its operator's request, with a requestId of its own (the station holds the three profiles
    the operator set first). The CSMS answers the reports that follow (rpc.answered, judged on every CALL):
    their responses' content is not shown in the texts (spec 001 Messages sent by the CSMS), so the texts
    ask nothing more of it."""
    evse_id = profile.evses[0].id
    installed = await install_all(ocpp, _installs(evse_id))
    evse, criteria = CRITERIA[name](evse_id, sorted(installed.ids))
    await get_profiles(ocpp, _request(evse, criteria))
