"""K01 — SetChargingProfile: the station installs what the rules allow and refuses the rest
(spec 001 "SetChargingProfile rules" 1-6 and "Errors"). The charging-profile engine
(harness/smartcharging/engine.py) decides the expected answer; its rule names the cause."""

import secrets

import pytest

from harness.arena import CS, CSMS
from harness.errors import HarnessError
from harness.rules import RuleTable, must, should
from harness.suite import case, checks
from harness.usecases.smart_charging import (ChargingProfiles, absolute_tx_default, expected_decision, oracle_station,
                                             recent_start, set_profile)
from harness.verdict import check_equal, violated


class K01(RuleTable):
    """The rules of K01 (spec 001 SetChargingProfile rules, Purposes, Errors)."""
    csms_profile = must("spec 001 SetChargingProfile rules 1-5", "the CSMS sends only profiles the rules allow",
                        by=CSMS)
    replaces = must("spec 001 SetChargingProfile rule 6", "a profile with an installed id replaces it (Accepted)",
                    by=CS)
    external = must("spec 001 SetChargingProfile rule 1; Purposes",
                    "a station refuses ChargingStationExternalConstraints from the CSMS", by=CS)
    tx_not_found = must("spec 001 SetChargingProfile rule 2; Errors (TxNotFound)",
                        "a station refuses a TxProfile for a transaction it is not running", by=CS)
    station_max_evse = must("spec 001 SetChargingProfile rule 3; Purposes",
                            "a station refuses a ChargingStationMaxProfile for an EVSE above 0", by=CS)
    first_period = must("spec 001 SetChargingProfile rule 5; ChargingSchedulePeriodType",
                        "a station refuses a schedule whose first startPeriod is not 0", by=CS)
    unknown_evse = must("spec 001 Errors (UnknownEVSE)", "a station refuses a profile for an EVSE it does not have",
                        by=CS)
    reason_code = should("spec 001 SetChargingProfileResponse; Errors",
                         "a refusal carries the reasonCode the specification names for its cause", by=CS)


pytestmark = case("K01", block="Smart charging", roles=("csms", "cs"), protocols=("ocpp2.0.1",),
                  requires=["smart_charging"])


def _id() -> int:
    return secrets.randbelow(10**6) + 1


def _valid(limits=((0, "10.0"),)) -> dict:
    return absolute_tx_default(_id(), list(limits), recent_start())


@checks(ChargingProfiles.sent, K01.csms_profile, ChargingProfiles.accepted, K01.replaces)
async def test_valid_profile_is_accepted_and_replaced_by_id(ocpp, profile):
    """A valid TxDefaultProfile is accepted (rules 1-5); the same id again replaces it (rule 6)."""
    profile_id = _id()
    first = absolute_tx_default(profile_id, [(0, "10.0"), (1800, "6.0")], recent_start())
    exchange = await set_profile(ocpp, 0, first)
    if not ocpp.is_sut(CS):
        decision = expected_decision([], 0, exchange.request["chargingProfile"], oracle_station(ocpp))
        if not decision.accepted:
            violated(K01.csms_profile, f"the CSMS sent a profile the rules refuse: {decision.rule.summary} "
                     f"({decision.rule.id}; {decision.rule.source})",
                     expected="a valid charging profile", actual=decision.detail)
        return
    check_equal(ChargingProfiles.accepted, "SetChargingProfileResponse status", "Accepted", exchange.response["status"])
    again = await set_profile(ocpp, 0, absolute_tx_default(profile_id, [(0, "8.0")], recent_start()))
    check_equal(K01.replaces, "SetChargingProfileResponse status for the same id", "Accepted", again.response["status"])


# name: (EVSE, the profile that breaks the rule, the rule)
REFUSALS = {
    "first-period-not-0": (1, lambda: _valid([(30, "10.0")]), K01.first_period),
    "station-max-on-an-evse": (1, lambda: _valid() | {"chargingProfilePurpose": "ChargingStationMaxProfile"},
                               K01.station_max_evse),
    "tx-profile-without-transaction": (1, lambda: _valid() | {"chargingProfilePurpose": "TxProfile",
                                                              "transactionId": "no-such-transaction"},
                                       K01.tx_not_found),
    "external-constraints-from-csms": (0, lambda: _valid() | {
        "chargingProfilePurpose": "ChargingStationExternalConstraints"}, K01.external),
    "unknown-evse": (99, _valid, K01.unknown_evse),
}


@pytest.mark.sut_roles("cs")
@pytest.mark.parametrize("name", [pytest.param(name, marks=checks(rule, K01.reason_code))
                                  for name, (_, _, rule) in REFUSALS.items()])
async def test_invalid_profile_is_rejected(ocpp, profile, name):
    """Each broken rule gets Rejected; the reasonCode the spec names is expected (else a finding)."""
    evse_id, make, rule = REFUSALS[name]
    charging_profile = make()
    expected = expected_decision([], evse_id, charging_profile, oracle_station(ocpp))
    if expected.accepted:
        raise HarnessError(f"test data error: the rules accept the {name} profile")
    exchange = await set_profile(ocpp, evse_id, charging_profile)
    check_equal(rule, "SetChargingProfileResponse status", "Rejected", exchange.response["status"])
    check_equal(K01.reason_code, f"SetChargingProfileResponse statusInfo.reasonCode ({expected.rule.id})",
                expected.rule.reason_code, (exchange.response.get("statusInfo") or {}).get("reasonCode"))
