"""K16 — Renegotiation of an ISO 15118 charging schedule started by the CSMS (spec 001 SetChargingProfile
rule 14): during a transaction whose EV stated its needs (K15), the CSMS sends an updated TxProfile; the
station negotiates it with the EV and reports the schedule the EV accepted in NotifyEVChargingSchedule,
which the CSMS acknowledges (receipt, not approval)."""

import pytest

from harness import clock
from harness.roles import CS, CSMS
from harness.rules import RuleTable, must, should
from harness.smartcharging.wire import iso
from harness.suite import OCPP2, TC, case, checks
from harness.transport.ws import Exchange
from harness.usecases.smart_charging import (ChargingProfiles, charging, charging_profile, ev_charging_needs,
                                             judge_needs_schedule, judge_sent_profile, new_id, oracle_station,
                                             set_profile)
from harness.verdict import check_equal


class K16(RuleTable):
    """The rules of K16 (spec 001 rule 14; NotifyEVChargingScheduleRequest)."""
    update = must("spec 001 SetChargingProfile rule 14", "the CSMS sends the updated TxProfile its operator asked for",
                  by=CSMS)
    reported = must("spec 001 SetChargingProfile rule 14; Smart charging messages: NotifyEVChargingScheduleRequest",
                    "after the updated TxProfile the station reports the EV's schedule for the EVSE in "
                    "NotifyEVChargingSchedule", by=CS)
    needs_again = must("spec 001 Smart charging messages: NotifyEVChargingNeedsResponse (Processing: the schedule "
                       "follows in a SetChargingProfileRequest); SetChargingProfile rule 13",
                       "after Processing needs sent again, the CSMS sends the transaction a TxProfile of at most 3 "
                       "schedules within maxScheduleTuples that the rules allow", by=CSMS)
    acknowledged = should("spec 001 SetChargingProfile rule 14; NotifyEVChargingScheduleResponse",
                          "the CSMS acknowledges the EV's schedule: Accepted (received, not approved)", by=CSMS)


pytestmark = case("K16", block="Smart charging", roles=("csms", "cs"), protocols=OCPP2,
                  requires=["smart_charging", "remote_start", "iso15118"])

TUPLES = 3
AC_NEEDS = {"requestedEnergyTransfer": "AC_three_phase",
            "acChargingParameters": {"energyAmount": 15000, "evMinCurrent": 6, "evMaxCurrent": 32, "evMaxVoltage": 400}}


async def _renegotiated(ocpp, evse_id: int) -> tuple[str, Exchange]:
    """A transaction whose EV stated its needs, then the CSMS's updated TxProfile (the id of its first one
    when it sent one: a replacement, rule 6), Accepted, and the EV's schedule that follows: the transaction's
    id and the NotifyEVChargingSchedule exchange. The first negotiation is K15's prerequisite (K17 the same)."""
    transaction_id = await charging(ocpp, evse_id)
    mark = ocpp.mark()
    async with ocpp.prerequisite("first negotiation of the EV's schedule", owner="K15"):
        needs = await ev_charging_needs(ocpp, evse_id, AC_NEEDS, None, K16.reported)
        first = (await ocpp.expect("SetChargingProfile", sender=CSMS, after=mark, rule=ChargingProfiles.needs_schedule)
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
    return transaction_id, schedule


@checks(ChargingProfiles.transaction, ChargingProfiles.accepted, K16.update, K16.reported, K16.acknowledged,
        csms=TC("TC_K_58_CSMS", "ocpp2.0.1"))
async def test_updated_tx_profile_is_renegotiated_with_the_ev(ocpp, profile):
    """The EV states its needs; the CSMS's updated TxProfile is Accepted, the EV's schedule for the EVSE
    follows, and is acknowledged."""
    _, schedule = await _renegotiated(ocpp, profile.evses[0].id)
    if ocpp.is_sut(CSMS):
        check_equal(K16.acknowledged, "NotifyEVChargingScheduleResponse status", "Accepted", schedule.result["status"])


@pytest.mark.sut_roles("csms")
@checks(ChargingProfiles.transaction, K16.update, K16.needs_again, csms=TC("TC_K_59_CSMS", "ocpp2.0.1"))
async def test_needs_sent_again_after_the_update(ocpp, profile):
    """After the CSMS's updated TxProfile and the EV's schedule, the station sends the EV's needs again (which
    the CSMS is not asked to want, TC_K_59): every answer is legal (spec 001 NotifyEVChargingNeedsResponse);
    after Processing the CSMS sends the transaction a TxProfile within 3 schedules that the rules allow. (A
    station passing an EV's new needs on is K17's.)"""
    evse_id = profile.evses[0].id
    transaction_id, _ = await _renegotiated(ocpp, evse_id)
    mark = ocpp.mark()
    again = await ev_charging_needs(ocpp, evse_id, AC_NEEDS, TUPLES, K16.reported)
    if again.result["status"] == "Processing":
        sent = await ocpp.expect("SetChargingProfile", sender=CSMS, after=mark, rule=K16.needs_again)
        judge_needs_schedule(ocpp, sent.request, evse_id, transaction_id, TUPLES, K16.needs_again)


@pytest.mark.sut_roles("csms")
@checks(ChargingProfiles.transaction, K16.acknowledged, csms=TC("TC_K_55_CSMS", "ocpp2.0.1"))
async def test_ev_schedule_beyond_the_limits_is_acknowledged(ocpp, profile):
    """The EV's schedule exceeds the limits of the CSMS's TxProfile (twice its highest limit). TC_K_55 wants
    it Rejected and a new renegotiation; our spec 001 (Messages from the CS: NotifyEVChargingScheduleResponse
    "Acknowledgement only; it does not approve the schedule"; rule 14: the CSMS *may* send another profile)
    says Accepted, and we follow spec 001: Accepted is expected, a SHOULD (the text gives no SHALL), so this
    test judges no MUST of the CSMS and can only record a finding; the renegotiation is a MAY, not judged."""
    evse_id = profile.evses[0].id
    _, schedule = await _renegotiated(ocpp, evse_id)
    reported = schedule.request["chargingSchedule"]
    beyond = max(float(p["limit"]) for p in reported["chargingSchedulePeriod"]) * 2
    exchange = await ocpp.exchange(CS, "NotifyEVChargingSchedule", {
        "timeBase": iso(clock.utcnow().replace(microsecond=0)), "evseId": evse_id,
        "chargingSchedule": reported | {"chargingSchedulePeriod": [{"startPeriod": 0, "limit": beyond}]}})
    check_equal(K16.acknowledged, "NotifyEVChargingScheduleResponse status for a schedule beyond the limits",
                "Accepted", exchange.result["status"])
