"""K17 — Renegotiation of an ISO 15118 charging schedule started by the EV (spec 001 SetChargingProfile
rules 13 and 14): during the transaction the EV states new needs; the station passes them on in a new
NotifyEVChargingNeeds, the CSMS answers and, after Processing, sends a TxProfile for the transaction
within the EV's maxScheduleTuples, and the station reports the schedule the EV accepted."""

from harness.roles import CS, CSMS
from harness.ocpp.equivalence import same
from harness.rules import RuleTable, must
from harness.suite import OCPP2, TC, case, checks
from harness.usecases.smart_charging import (ChargingProfiles, ev_charging_needs, judge_needs_schedule,
                                             charging)
from harness.verdict import check_equal


class K17(RuleTable):
    """The rules of K17 (spec 001 rules 13 and 14; NotifyEVChargingNeeds; NotifyEVChargingSchedule)."""
    needs = must("spec 001 Smart charging messages: NotifyEVChargingNeedsRequest",
                 "the EV's new needs go to the CSMS in a new NotifyEVChargingNeeds, as the EV stated them", by=CS)
    schedule = must("spec 001 SetChargingProfile rules 13 and 14",
                    "after Processing the CSMS sends a TxProfile for the transaction within 3 schedules and the EV's "
                    "maxScheduleTuples, that the rules allow", by=CSMS)
    reported = must("spec 001 SetChargingProfile rule 14; NotifyEVChargingScheduleRequest",
                    "the station reports the schedule the EV accepted for the new TxProfile", by=CS)


pytestmark = case("K17", block="Smart charging", roles=("csms", "cs"), protocols=OCPP2,
                  requires=["smart_charging", "remote_start", "iso15118"])

FIRST = {"requestedEnergyTransfer": "AC_three_phase",
         "acChargingParameters": {"energyAmount": 30000, "evMinCurrent": 6, "evMaxCurrent": 32, "evMaxVoltage": 400}}
RENEGOTIATED = {"requestedEnergyTransfer": "AC_three_phase",
                "acChargingParameters": {"energyAmount": 8000, "evMinCurrent": 6, "evMaxCurrent": 10, "evMaxVoltage": 400}}
TUPLES = 3


@checks(ChargingProfiles.transaction, K17.needs, K17.schedule, K17.reported, csms=TC("TC_K_57_CSMS", "ocpp2.0.1"))
async def test_ev_renegotiates_its_schedule(ocpp, profile):
    """Needs, then new needs from the EV in the same transaction: the new needs are passed on as stated;
    after Processing the TxProfile for the transaction follows and the EV's schedule is reported. The first
    negotiation is K15's: a CSMS that breaks it leaves K17 not applicable, reported failed once, by K15."""
    evse_id = profile.evses[0].id
    transaction_id = await charging(ocpp, evse_id)
    mark = ocpp.mark()
    async with ocpp.prerequisite("first negotiation of the EV's schedule", owner="K15"):
        first = await ev_charging_needs(ocpp, evse_id, FIRST, TUPLES, K17.needs)
        if first.result["status"] == "Processing":   # the first negotiation ends with the EV's schedule
            sent = await ocpp.expect("SetChargingProfile", sender=CSMS, after=mark,
                                     rule=ChargingProfiles.needs_schedule)
            if ocpp.is_sut(CSMS):
                judge_needs_schedule(ocpp, sent.request, evse_id, transaction_id, TUPLES,
                                     ChargingProfiles.needs_schedule)
            await ocpp.expect("NotifyEVChargingSchedule", sender=CS, after=mark, rule=K17.reported)
    mark = ocpp.mark()
    again = await ev_charging_needs(ocpp, evse_id, RENEGOTIATED, TUPLES, K17.needs)
    if ocpp.is_sut(CS):
        check_equal(K17.needs, "the new NotifyEVChargingNeedsRequest (evseId, chargingNeeds, maxScheduleTuples)",
                    (evse_id, RENEGOTIATED, TUPLES), (again.request["evseId"], again.request["chargingNeeds"],
                                                      again.request.get("maxScheduleTuples")),
                    same=same(ocpp.version))
    if again.result["status"] != "Processing":
        return
    sent = await ocpp.expect("SetChargingProfile", sender=CSMS, after=mark, rule=K17.schedule)
    if ocpp.is_sut(CSMS):
        judge_needs_schedule(ocpp, sent.request, evse_id, transaction_id, TUPLES, K17.schedule)
        return
    schedule = await ocpp.expect("NotifyEVChargingSchedule", sender=CS, after=mark, rule=K17.reported)
    check_equal(K17.reported, "NotifyEVChargingScheduleRequest evseId", evse_id, schedule.request["evseId"])
