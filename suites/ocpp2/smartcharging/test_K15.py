"""K15 — Charging with load leveling based on high-level communication (ISO 15118; spec 001 Smart
charging messages: NotifyEVChargingNeeds; SetChargingProfile rule 13): the station passes the EV's
charging needs (AC or DC parameters, maxScheduleTuples) in NotifyEVChargingNeeds; the CSMS answers
Accepted, Rejected or Processing, and after Processing sends a TxProfile for the EVSE's transaction
with at most 3 schedules of at most maxScheduleTuples periods each, which the rules allow (judged by
the engine, harness/smartcharging/engine.py)."""

import pytest

from harness.roles import CS, CSMS
from harness.ocpp.equivalence import same
from harness.rules import RuleTable, must
from harness.suite import OCPP2, TC, case, checks
from harness.usecases.smart_charging import (ChargingProfiles, ev_charging_needs, judge_needs_schedule,
                                             charging)
from harness.verdict import check_equal


class K15(RuleTable):
    """The rules of K15 (spec 001 NotifyEVChargingNeeds); rule 13 is ``ChargingProfiles.needs_schedule``, which K17's
    first negotiation shares."""
    needs = must("spec 001 Smart charging messages: NotifyEVChargingNeedsRequest; Events",
                 "a station passes the EV's charging needs in NotifyEVChargingNeeds: the EVSE (above 0), the "
                 "requested energy transfer and parameters, maxScheduleTuples", by=CS)


pytestmark = case("K15", block="Smart charging", roles=("csms", "cs"), protocols=OCPP2,
                  requires=["smart_charging", "remote_start", "iso15118"])

MAX_SCHEDULE_TUPLES = 2
NEEDS = {
    "ac": {"requestedEnergyTransfer": "AC_three_phase",
           "acChargingParameters": {"energyAmount": 20000, "evMinCurrent": 6, "evMaxCurrent": 16, "evMaxVoltage": 400}},
    "dc": {"requestedEnergyTransfer": "DC",
           "dcChargingParameters": {"evMaxCurrent": 125, "evMaxVoltage": 450, "evMaxPower": 50000,
                                    "stateOfCharge": 40, "fullSoC": 90}},
}


@pytest.mark.parametrize("kind", list(NEEDS))
@checks(ChargingProfiles.transaction, K15.needs, ChargingProfiles.needs_schedule, ChargingProfiles.accepted,
        csms=TC("TC_K_53_CSMS", "ocpp2.0.1"))
async def test_charging_needs_lead_to_a_schedule(ocpp, profile, kind):
    """During a transaction the EV states its needs; after Processing the TxProfile for that transaction
    follows, within 3 schedules and maxScheduleTuples periods (an Accepted or Rejected answer ends the
    dialogue: both are legal)."""
    evse_id = profile.evses[0].id
    transaction_id = await charging(ocpp, evse_id)
    mark = ocpp.mark()
    notified = await ev_charging_needs(ocpp, evse_id, NEEDS[kind], MAX_SCHEDULE_TUPLES, K15.needs)
    if ocpp.is_sut(CS):
        check_equal(K15.needs, "NotifyEVChargingNeedsRequest (evseId, chargingNeeds, maxScheduleTuples)",
                    (evse_id, NEEDS[kind], MAX_SCHEDULE_TUPLES), (notified.request["evseId"],
                    notified.request["chargingNeeds"], notified.request.get("maxScheduleTuples")), same=same(ocpp.version))
    if notified.result["status"] != "Processing":
        return
    sent = await ocpp.expect("SetChargingProfile", sender=CSMS, after=mark, rule=ChargingProfiles.needs_schedule)
    if ocpp.is_sut(CS):
        check_equal(ChargingProfiles.accepted, "SetChargingProfileResponse status", "Accepted",
                    sent.result["status"])
        return
    judge_needs_schedule(ocpp, sent.request, evse_id, transaction_id, MAX_SCHEDULE_TUPLES,
                         ChargingProfiles.needs_schedule)
