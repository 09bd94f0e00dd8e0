"""K16 — Renegotiation of an ISO 15118 charging schedule started by the CSMS (spec 001 SetChargingProfile
rule 14): during a transaction whose EV stated its needs (K15), the CSMS sends an updated TxProfile; the
station negotiates it with the EV and reports the schedule the EV accepted in NotifyEVChargingSchedule,
which the CSMS acknowledges (receipt, not approval)."""

from harness.roles import CS, CSMS
from harness.rules import RuleTable, must, should
from harness.suite import OCPP2, TC, case, checks
from harness.usecases.smart_charging import (ChargingProfiles, charging_profile, ev_charging_needs, judge_sent_profile,
                                             new_id, oracle_station, set_profile, charging)
from harness.verdict import check_equal


class K16(RuleTable):
    """The rules of K16 (spec 001 rule 14; NotifyEVChargingScheduleRequest)."""
    update = must("spec 001 SetChargingProfile rule 14", "the CSMS sends the updated TxProfile its operator asked for",
                  by=CSMS)
    reported = must("spec 001 SetChargingProfile rule 14; Smart charging messages: NotifyEVChargingScheduleRequest",
                    "after the updated TxProfile the station reports the EV's schedule for the EVSE in "
                    "NotifyEVChargingSchedule", by=CS)
    acknowledged = should("spec 001 SetChargingProfile rule 14; NotifyEVChargingScheduleResponse",
                          "the CSMS acknowledges the EV's schedule: Accepted (received, not approved)", by=CSMS)


pytestmark = case("K16", block="Smart charging", roles=("csms", "cs"), protocols=OCPP2,
                  requires=["smart_charging", "remote_start", "iso15118"])

AC_NEEDS = {"requestedEnergyTransfer": "AC_three_phase",
            "acChargingParameters": {"energyAmount": 15000, "evMinCurrent": 6, "evMaxCurrent": 32, "evMaxVoltage": 400}}


@checks(ChargingProfiles.transaction, ChargingProfiles.accepted, K16.update, K16.reported, K16.acknowledged,
        csms=TC("TC_K_58_CSMS", "ocpp2.0.1"))
async def test_updated_tx_profile_is_renegotiated_with_the_ev(ocpp, profile):
    """The EV states its needs; the CSMS's updated TxProfile (the id of its first one when it sent one: a
    replacement, rule 6) is Accepted, the EV's schedule for the EVSE follows, and is acknowledged."""
    evse_id = profile.evses[0].id
    transaction_id = await charging(ocpp, evse_id)
    mark = ocpp.mark()
    needs = await ev_charging_needs(ocpp, evse_id, AC_NEEDS, None, K16.reported)
    first = (await ocpp.expect("SetChargingProfile", sender=CSMS, after=mark, rule=K16.update)
             if needs.result["status"] == "Processing" else None)
    profile_id, stack_level = (first.request["chargingProfile"]["id"], first.request["chargingProfile"]["stackLevel"]) \
        if first else (new_id(), 1)
    updated = charging_profile(profile_id, [(0, "10.0"), (1800, "16.0")], purpose="TxProfile", duration=None,
                               stack_level=stack_level, transactionId=transaction_id)
    mark = ocpp.mark()
    sent = await set_profile(ocpp, evse_id, updated)
    if ocpp.is_sut(CSMS):
        judge_sent_profile(sent, evse_id, updated, oracle_station(ocpp, {evse_id: transaction_id}), K16.update)
    check_equal(ChargingProfiles.accepted, "SetChargingProfileResponse status of the updated TxProfile", "Accepted",
                sent.result["status"])
    schedule = await ocpp.expect("NotifyEVChargingSchedule", sender=CS, after=mark, rule=K16.reported)
    if ocpp.is_sut(CS):
        check_equal(K16.reported, "NotifyEVChargingScheduleRequest evseId", evse_id, schedule.request["evseId"])
        return
    check_equal(K16.acknowledged, "NotifyEVChargingScheduleResponse status", "Accepted", schedule.result["status"])
