"""K01 — SetChargingProfile: the station installs what the rules allow and refuses the rest
(spec 001 "SetChargingProfile rules" 1-6 and "Errors"; the rule ids are those of
harness/smartcharging/engine.py, which decides the expected answer)."""

import secrets

import pytest

from harness.arena import CS
from harness.errors import HarnessError
from harness.suite import case
from harness.usecases.smart_charging import (absolute_tx_default, expected_decision, oracle_station, recent_start,
                                             set_profile)
from harness.verdict import check_equal, fail, finding

pytestmark = case("K01", block="Smart charging", roles=("csms", "cs"), protocols=("ocpp2.0.1",),
                  requires=["smart_charging"])


def _id() -> int:
    return secrets.randbelow(10**6) + 1


async def test_valid_profile_is_accepted_and_replaced_by_id(ocpp, profile):
    """A valid TxDefaultProfile is accepted (rules 1-5); the same id again replaces it (rule 6)."""
    profile_id = _id()
    first = absolute_tx_default(profile_id, [(0, "10.0"), (1800, "6.0")], recent_start())
    exchange = await set_profile(ocpp, 0, first)
    if not ocpp.is_sut(CS):
        decision = expected_decision([], 0, exchange.request["chargingProfile"], oracle_station(ocpp))
        if not decision.accepted:
            fail(f"K01 {decision.rule.id}: {decision.rule.source}", "the CSMS sent a profile the rules refuse",
                 expected="a valid charging profile", actual=decision.detail)
        return
    check_equal("K01: a valid profile is accepted", "SetChargingProfileResponse status", "Accepted",
                exchange.response["status"])
    again = await set_profile(ocpp, 0, absolute_tx_default(profile_id, [(0, "8.0")], recent_start()))
    check_equal("K01 rule 6: the same id replaces, it is no duplicate", "SetChargingProfileResponse status",
                "Accepted", again.response["status"])


def _invalid_profiles():
    start = recent_start()
    late_first = absolute_tx_default(_id(), [(30, "10.0")], start)
    station_max_on_evse = absolute_tx_default(_id(), [(0, "10.0")], start) | {
        "chargingProfilePurpose": "ChargingStationMaxProfile"}
    tx_without_transaction = absolute_tx_default(_id(), [(0, "10.0")], start) | {
        "chargingProfilePurpose": "TxProfile", "transactionId": "no-such-transaction"}
    external = absolute_tx_default(_id(), [(0, "10.0")], start) | {
        "chargingProfilePurpose": "ChargingStationExternalConstraints"}
    return {
        "first-period-not-0": (1, late_first),
        "station-max-on-an-evse": (1, station_max_on_evse),
        "tx-profile-without-transaction": (1, tx_without_transaction),
        "external-constraints-from-csms": (0, external),
        "unknown-evse": (99, absolute_tx_default(_id(), [(0, "10.0")], start)),
    }


@pytest.mark.sut_roles("cs")
@pytest.mark.parametrize("name", list(_invalid_profiles()))
async def test_invalid_profile_is_rejected(ocpp, profile, name):
    """Each broken rule gets Rejected; the reasonCode the spec names is expected (else a finding)."""
    evse_id, charging_profile = _invalid_profiles()[name]
    expected = expected_decision([], evse_id, charging_profile, oracle_station(ocpp))
    if expected.accepted:
        raise HarnessError(f"test data error: the rules accept the {name} profile")
    exchange = await set_profile(ocpp, evse_id, charging_profile)
    check_equal(f"K01 {expected.rule.id}: {expected.rule.source}", "SetChargingProfileResponse status",
                "Rejected", exchange.response["status"])
    reason = (exchange.response.get("statusInfo") or {}).get("reasonCode")
    if reason != expected.rule.reason_code:
        finding(f"K01 {expected.rule.id}", f"reasonCode {reason!r}, the spec's code is {expected.rule.reason_code!r}")
