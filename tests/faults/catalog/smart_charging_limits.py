"""Smart charging faults (K11-K17), both sides: external limits, ISO 15118 schedules and
their renegotiation, priority charging, what a station keeps offline."""

from __future__ import annotations

from harness import smartcharging as sc
from harness.reference import ReferenceCsms, ReferenceStation

from .records import Fault, cs_test, csms_test
from .smart_charging import composite_of


class StationNotifiesExternalLimitAsCso(ReferenceStation):
    """K12: NotifyChargingLimit names the source CSO (the CSMS's own), whatever set the limit."""

    async def act_set_external_limit(self, evse_id, source, limit, unit="A"):
        await self.call("NotifyChargingLimit", {"chargingLimit": {"chargingLimitSource": "CSO"}, "evseId": evse_id})


class StationIgnoresExternalLimit(ReferenceStation):
    """K12 rule 12: the external limit is notified but never applied (the composite ignores it)."""

    async def act_set_external_limit(self, evse_id, source, limit, unit="A"):
        await self.call("NotifyChargingLimit", {"chargingLimit": {"chargingLimitSource": source}, "evseId": evse_id})


class StationReleasesSilently(ReferenceStation):
    """K13: a released external limit is dropped without ClearedChargingLimit."""

    async def act_release_external_limit(self, evse_id, source):
        self.profiles.release_external(evse_id, sc.LimitSource(source))


class StationKeepsReleasedLimit(ReferenceStation):
    """K13: ClearedChargingLimit is sent, but the released limit still bounds the composite."""

    async def act_release_external_limit(self, evse_id, source):
        await self.call("ClearedChargingLimit", {"chargingLimitSource": source, "evseId": evse_id})


class StationSilentOnRelease(ReferenceStation):
    """K13 (TC_K_51): a release lifts a charging transaction's limit, and no ChargingRateChanged event follows."""

    async def act_release_external_limit(self, evse_id, source):
        self.profiles.release_external(evse_id, sc.LimitSource(source))
        await self.call("ClearedChargingLimit", {"chargingLimitSource": source, "evseId": evse_id})


K12, K13 = "smartcharging/test_K12.py", "smartcharging/test_K13.py"


class StationSilentOnRateChanges(ReferenceStation):
    """K11: an external limit cuts a charging transaction's rate, and no ChargingRateChanged event follows."""

    async def charging_rate_changed(self, evse_id):
        return None


K11 = "smartcharging/test_K11.py"


class CsmsExceedsMaxScheduleTuples(ReferenceCsms):
    """K15 rule 13: the TxProfile answering an EV's needs has more periods than the EV's maxScheduleTuples."""

    def send(self, station, action, payload):
        if action == "SetChargingProfile":
            periods = payload["chargingProfile"]["chargingSchedule"][0]["chargingSchedulePeriod"]
            periods += [{"startPeriod": 600 * i, "limit": periods[0]["limit"]} for i in (1, 2)]
        super().send(station, action, payload)


class StationDropsMaxScheduleTuples(ReferenceStation):
    """K15: the EV's maxScheduleTuples is left out of NotifyEVChargingNeeds."""

    async def act_ev_charging_needs(self, evse_id, charging_needs, max_schedule_tuples=None):
        await super().act_ev_charging_needs(evse_id, charging_needs)


K15 = "smartcharging/test_K15.py"


class StationSilentAfterRenegotiation(ReferenceStation):
    """K16 rule 14: an updated TxProfile is Accepted, but the EV's schedule is never reported."""

    def on_SetChargingProfile(self, session, payload):
        self.iso15118.clear()
        return super().on_SetChargingProfile(session, payload)


class CsmsRejectsEvSchedules(ReferenceCsms):
    """K16 (a SHOULD): the EV's schedule in NotifyEVChargingSchedule is answered Rejected."""

    def on_NotifyEVChargingSchedule(self, session, payload):
        return {"status": "Rejected"}


K16 = "smartcharging/test_K16.py"


class StationPassesOnlyTheFirstNeeds(ReferenceStation):
    """K17: the EV's new needs in a running transaction are never passed on to the CSMS."""

    async def act_ev_charging_needs(self, evse_id, charging_needs, max_schedule_tuples=None):
        if evse_id not in self.iso15118:
            await super().act_ev_charging_needs(evse_id, charging_needs, max_schedule_tuples)


class CsmsIgnoresRenegotiation(ReferenceCsms):
    """K17 rule 13: new needs of an EV whose transaction it already scheduled are answered Processing, and no
    TxProfile follows."""

    def on_NotifyEVChargingNeeds(self, session, payload):
        running = [t for t in session.transactions.values() if t.evse_id == payload["evseId"] and not t.ended]
        if running and (session.identity, running[-1].id) in self._needs_profiles:
            return {"status": "Processing"}
        return super().on_NotifyEVChargingNeeds(session, payload)


K17 = "smartcharging/test_K17.py"


class CsmsForgetsTheTransactionOnRepeatedNeeds(ReferenceCsms):
    """K16 / rule 13 (TC_K_59): needs sent again for a transaction it already scheduled get a TxProfile without
    the transaction's id."""

    def on_NotifyEVChargingNeeds(self, session, payload):
        running = [t for t in session.transactions.values() if t.evse_id == payload["evseId"] and not t.ended]
        self.__dict__["_again"] = bool(running) and (session.identity, running[-1].id) in self._needs_profiles
        return super().on_NotifyEVChargingNeeds(session, payload)

    def send(self, station, action, payload):
        if action == "SetChargingProfile" and self.__dict__.pop("_again", False):
            payload["chargingProfile"].pop("transactionId", None)
        super().send(station, action, payload)


class StationLimitsOnlyTheStationTotal(ReferenceStation):
    """K14 rule 12: a station-wide external limit bounds the composite of evseId 0 but not each EVSE's."""

    def on_GetCompositeSchedule(self, session, payload):
        return composite_of(self, payload, lambda e: None if payload["evseId"] != 0 and e.evse_id == 0
                             and e.profile.purpose is sc.Purpose.EXTERNAL else e)


class StationDropsProfilesUnderAnExternalLimit(ReferenceStation):
    """K14 rule 12: while an external limit holds, the CSMS's profiles are Accepted but never installed (so the
    higher limit never applies, even after the release)."""

    def on_SetChargingProfile(self, session, payload):
        if any(e.profile.purpose is sc.Purpose.EXTERNAL for e in self.profiles.installed()):
            return {"status": "Accepted"}
        return super().on_SetChargingProfile(session, payload)


K14 = "smartcharging/test_K14.py"


FAULTS: tuple[Fault, ...] = (
    Fault("station-notifies-external-limit-as-cso", "chargingprofile.notified", StationNotifiesExternalLimitAsCso,
          (cs_test(K12, "test_external_limit_is_notified", "EMS"),),
          "chargingLimitSource is not one of the accepted values"),
    Fault("station-ignores-external-limit", "K12.bounded", StationIgnoresExternalLimit,
          (cs_test(K12, "test_external_limit_bounds_the_composite"),),
          "composite periods of EVSE 1 (startPeriod, limit A)"),
    Fault("station-releases-silently", "K13.cleared", StationReleasesSilently,
          (cs_test(K13, "test_released_limit_is_notified", "EMS"),),
          "the SUT did not send ClearedChargingLimit within"),
    Fault("station-keeps-released-limit", "K13.released", StationKeepsReleasedLimit,
          (cs_test(K13, "test_released_limit_no_longer_bounds_the_composite"),),
          "composite periods of EVSE 1 (startPeriod, limit A)"),
    Fault("station-silent-on-release", "K13.rate_changed", StationSilentOnRelease,
          (cs_test(K13, "test_release_during_a_transaction"),), "the SUT did not send TransactionEvent within",
          verdict="finding"),
    Fault("station-silent-on-rate-changes", "K11.rate_changed", StationSilentOnRateChanges,
          (cs_test(K11, "test_external_limit_changes_the_rate_of_a_transaction", "station"),),
          "the SUT did not send TransactionEvent within"),
    Fault("csms-exceeds-max-schedule-tuples", "chargingprofile.needs_schedule", CsmsExceedsMaxScheduleTuples,
          (csms_test(K15, "test_charging_needs_lead_to_a_schedule", "ac"),),
          "the TxProfile has 1 schedules of [3] periods"),
    Fault("station-drops-max-schedule-tuples", "K15.needs", StationDropsMaxScheduleTuples,
          (cs_test(K15, "test_charging_needs_lead_to_a_schedule", "dc"),),
          "NotifyEVChargingNeedsRequest (evseId, chargingNeeds, maxScheduleTuples) is wrong"),
    Fault("station-silent-after-renegotiation", "K16.reported", StationSilentAfterRenegotiation,
          (cs_test(K16, "test_updated_tx_profile_is_renegotiated_with_the_ev"),),
          "the SUT did not send NotifyEVChargingSchedule within"),
    Fault("csms-rejects-ev-schedules", "K16.acknowledged", CsmsRejectsEvSchedules,
          (csms_test(K16, "test_updated_tx_profile_is_renegotiated_with_the_ev"),
           csms_test(K16, "test_ev_schedule_beyond_the_limits_is_acknowledged")),
          "NotifyEVChargingScheduleResponse status", verdict="finding"),
    Fault("csms-forgets-the-transaction-on-repeated-needs", "K16.needs_again",
          CsmsForgetsTheTransactionOnRepeatedNeeds, (csms_test(K16, "test_needs_sent_again_after_the_update"),),
          "SetChargingProfileRequest (evseId, purpose, transactionId) is wrong"),
    Fault("station-passes-only-the-first-needs", "K17.needs", StationPassesOnlyTheFirstNeeds,
          (cs_test(K17, "test_ev_renegotiates_its_schedule"),),
          "the SUT did not send NotifyEVChargingNeeds within"),
    Fault("csms-ignores-renegotiation", "K17.schedule", CsmsIgnoresRenegotiation,
          (csms_test(K17, "test_ev_renegotiates_its_schedule"),),
          "the SUT did not send SetChargingProfile within"),
    Fault("station-limits-only-the-station-total", "K14.total", StationLimitsOnlyTheStationTotal,
          (cs_test(K14, "test_total_load_never_exceeds_the_external_limit", "each-evse"),),
          "the composite of EVSE 1 exceeds the external limit"),
    Fault("station-drops-profiles-under-an-external-limit", "K14.after_release",
          StationDropsProfilesUnderAnExternalLimit, (cs_test(K14, "test_higher_limit_applies_after_release"),),
          "composite periods of EVSE 1 (startPeriod, limit A)"),
)
