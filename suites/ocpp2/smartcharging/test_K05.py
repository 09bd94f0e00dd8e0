"""K05 — Remote start with a charging profile (spec 001 SetChargingProfile rule 9): the CSMS's
RequestStartTransaction may carry a TxProfile without transactionId; a station with smart charging
starts the transaction and applies the profile to it (read back with the transaction's id), or, when
the rules refuse the profile, answers Rejected with InvalidProfile or InvalidSchedule and starts
nothing. Which rule refuses is the engine's (harness/smartcharging/engine.py) decision."""

import pytest

from harness.roles import CS, CSMS
from harness.errors import HarnessError
from harness.ocpp.equivalence import same
from harness.rules import RuleTable, must, should
from harness.suite import OCPP2, TC, case, checks
from harness.usecases.smart_charging import (ChargingProfiles, Installed, charging_profile, get_profiles, new_id,
                                             oracle_station, start_transaction)
from harness.verdict import check_equal, check_in, dig, require


class K05(RuleTable):
    """The rules of K05 (spec 001 SetChargingProfile rule 9; Errors)."""
    request = must("spec 001 SetChargingProfile rule 9",
                   "the CSMS's remote start carries the operator's profile as a TxProfile without transactionId",
                   by=CSMS)
    applied = must("spec 001 SetChargingProfile rule 9; rule 7",
                   "a station with smart charging starts the transaction and holds the profile as its TxProfile, "
                   "with the transaction's id", by=CS)
    refused = must("spec 001 SetChargingProfile rule 9", "a station with smart charging refuses a remote start "
                   "whose profile the rules refuse: Rejected, and no transaction starts", by=CS)
    reason_code = should("spec 001 SetChargingProfile rule 9; Errors",
                         "the refusal's reasonCode is InvalidProfile or InvalidSchedule", by=CS)


pytestmark = case("K05", block="Smart charging", roles=("csms", "cs"), protocols=OCPP2,
                  requires=["smart_charging", "remote_start"])


def _start_profile(limits=((0, "10.0"), (600, "14.0"))) -> dict:
    return charging_profile(new_id(), list(limits), purpose="TxProfile", stack_level=1, duration=None)


@pytest.mark.sut_roles("cs")
@checks(ChargingProfiles.transaction, K05.applied, ChargingProfiles.reported)
async def test_remote_start_applies_its_profile(ocpp, profile):
    """The started transaction's EVSE reports the profile as a TxProfile naming the transaction."""
    evse_id = profile.evses[0].id
    wire = _start_profile()
    exchange, transaction_id = await start_transaction(ocpp, evse_id, wire, rule=K05.request)
    require(transaction_id is not None, K05.applied, "the remote start with a valid profile was not Accepted",
            expected="Accepted", actual=exchange.result)
    _, reports = await get_profiles(ocpp, {"requestId": new_id(), "evseId": evse_id,
                                           "chargingProfile": {"chargingProfileId": [wire["id"]]}})
    held = [(r["evseId"], p["chargingProfilePurpose"], p.get("transactionId")) for r in reports
            for p in r["chargingProfile"] if p["id"] == wire["id"]]
    check_equal(K05.applied, "the start profile as reported (evseId, purpose, transactionId)",
                [(evse_id, "TxProfile", transaction_id)], held)


# name: a profile the rules refuse for the transaction
INVALID = {
    "first-period-not-0": lambda: _start_profile(((60, "10.0"),)),
    "two-fraction-digits": lambda: _start_profile(((0, "10.25"),)),
    "relative-with-start": lambda: _start_profile() | {"chargingProfileKind": "Relative"},
}


@pytest.mark.sut_roles("cs")
@pytest.mark.parametrize("name", list(INVALID))
@checks(K05.refused, K05.reason_code)
async def test_remote_start_with_an_invalid_profile_is_rejected(ocpp, profile, name):
    """Rejected with InvalidProfile or InvalidSchedule (either: the text allows both), and no transaction."""
    evse_id = profile.evses[0].id
    wire = INVALID[name]()
    station = oracle_station(ocpp, {evse_id: "remote-start"})
    if Installed(station).decide(evse_id, wire | {"transactionId": "remote-start"}).accepted:
        raise HarnessError(f"test data error: the rules accept the {name} profile")
    mark = ocpp.mark()
    exchange, _ = await start_transaction(ocpp, evse_id, wire, rule=K05.request)
    check_equal(K05.refused, "RequestStartTransactionResponse status", "Rejected", exchange.result["status"])
    check_in(K05.reason_code, "RequestStartTransactionResponse statusInfo.reasonCode",
             ("InvalidProfile", "InvalidSchedule"), dig(exchange.result, "statusInfo.reasonCode"))
    await ocpp.expect_none("TransactionEvent", after=mark, rule=K05.refused,
                           where=lambda p: p.get("eventType") == "Started")


@pytest.mark.sut_roles("csms")
@checks(K05.request, csms=TC("TC_K_37_CSMS", "ocpp2.0.1"))
async def test_csms_starts_with_the_profile_it_was_asked_for(ocpp, profile):
    """The operator starts a transaction with a profile: the request carries it, unchanged, as a TxProfile
    without transactionId."""
    wire = _start_profile()
    exchange, _ = await start_transaction(ocpp, profile.evses[0].id, wire, rule=K05.request)
    sent = exchange.request.get("chargingProfile")
    check_equal(K05.request, "RequestStartTransactionRequest chargingProfile", wire, sent, same=same(ocpp.version))
    check_equal(K05.request, "its (chargingProfilePurpose, transactionId)", ("TxProfile", None),
                (dig(sent, "chargingProfilePurpose"), dig(sent, "transactionId")))
