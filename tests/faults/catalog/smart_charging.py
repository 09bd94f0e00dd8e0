"""Smart charging faults (K01-K10), both sides: setting, replacing, clearing and reporting
charging profiles, composite schedules, the profiles of a transaction."""

from __future__ import annotations

import copy
from dataclasses import replace

from harness import clock
from harness import smartcharging as sc
from harness.reference import ReferenceCsms, ReferenceStation
from harness.verdict import dig

from .records import Fault, cs_test, csms_test


def composite_of(station: ReferenceStation, payload: dict, change) -> dict:
    """The reference's GetCompositeSchedule answer computed over its profiles as ``change`` alters each
    ``Installed`` entry (None drops it): a station that gets one combination rule wrong."""
    kept = (change(e) for e in station.profiles.installed())
    store = sc.ProfileStore({e.profile.id: e for e in kept if e is not None})
    return sc.answer_get_composite_schedule(store, station.smart, payload, station.engine_version, clock.utcnow())


def _profile_changed(entry: sc.Installed, **fields) -> sc.Installed:
    return replace(entry, profile=replace(entry.profile, **fields))


class StationAcceptsExternalConstraints(ReferenceStation):
    """K01 rule 1: a ChargingStationExternalConstraints profile from the CSMS is Accepted (not installed)."""

    def on_SetChargingProfile(self, session, payload):
        if payload["chargingProfile"]["chargingProfilePurpose"] == "ChargingStationExternalConstraints":
            return {"status": "Accepted"}
        return super().on_SetChargingProfile(session, payload)


class StationMissesDuplicates(ReferenceStation):
    """K01 rule 4: an overlapping twin (same stackLevel, purpose and EVSE) is Accepted, not DuplicateProfile."""

    def on_SetChargingProfile(self, session, payload):
        answer = super().on_SetChargingProfile(session, payload)
        return {"status": "Accepted"} if dig(answer, "statusInfo.reasonCode") == "DuplicateProfile" else answer


class StationRefusesReplacement(ReferenceStation):
    """K01 rule 6: a profile with an installed id is Rejected instead of replacing it."""

    def on_SetChargingProfile(self, session, payload):
        if any(e.profile.id == payload["chargingProfile"]["id"] for e in self.profiles.installed()):
            return {"status": "Rejected", "statusInfo": {"reasonCode": "DuplicateProfile"}}
        return super().on_SetChargingProfile(session, payload)


class StationGivesOneReasonCode(ReferenceStation):
    """K01 Errors (a SHOULD): every refusal says InvalidProfile, whatever its cause (an unknown EVSE too)."""

    def on_SetChargingProfile(self, session, payload):
        answer = super().on_SetChargingProfile(session, payload)
        return answer | {"statusInfo": {"reasonCode": "InvalidProfile"}} if "statusInfo" in answer else answer


class StationCompositeIgnoresStationMax(ReferenceStation):
    """K08 combination rules: the composite leaves the ChargingStationMaxProfile out of the minimum."""

    def on_GetCompositeSchedule(self, session, payload):
        return composite_of(self, payload, lambda e: None if e.profile.purpose is sc.Purpose.STATION_MAX else e)


class StationCompositeIgnoresValidTo(ReferenceStation):
    """K08: a profile still leads the composite after its validTo."""

    def on_GetCompositeSchedule(self, session, payload):
        return composite_of(self, payload, lambda e: _profile_changed(e, valid_to=None))


class StationCompositeIgnoresRecurrence(ReferenceStation):
    """K08: a Recurring profile runs once from its startSchedule, as if Absolute."""

    def on_GetCompositeSchedule(self, session, payload):
        return composite_of(self, payload, lambda e: _profile_changed(e, kind=sc.Kind.ABSOLUTE, recurrency_kind=None)
                             if e.profile.kind is sc.Kind.RECURRING else e)


class StationCompositeLabelsWithoutConverting(ReferenceStation):
    """K08 (W<->A): asked for W of profiles in A, it reports the amps figures labelled W."""

    def on_GetCompositeSchedule(self, session, payload):
        answer = super().on_GetCompositeSchedule(session, {k: v for k, v in payload.items() if k != "chargingRateUnit"})
        if "schedule" in answer and "chargingRateUnit" in payload:
            answer["schedule"]["chargingRateUnit"] = payload["chargingRateUnit"]
        return answer


class CsmsSetsProfilesAtStationLevel(ReferenceCsms):
    """K01: the operator's profile for an EVSE goes out with evseId 0."""

    async def act_set_charging_profile(self, evse_id, charging_profile, station=None):
        await super().act_set_charging_profile(0, charging_profile, station)


class CsmsRoundsLimits(ReferenceCsms):
    """K01: the operator's limits go out rounded to whole numbers (12.5 A becomes 12)."""

    async def act_set_charging_profile(self, evse_id, charging_profile, station=None):
        rounded = copy.deepcopy(charging_profile)
        for schedule in rounded["chargingSchedule"]:
            for period in schedule["chargingSchedulePeriod"]:
                period["limit"] = int(period["limit"])
        await super().act_set_charging_profile(evse_id, rounded, station)


class CsmsAsksCompositesInItsOwnUnit(ReferenceCsms):
    """K08: the operator's unit is left out of GetCompositeScheduleRequest."""

    async def act_get_composite_schedule(self, evse_id, duration, charging_rate_unit=None, station=None):
        await super().act_get_composite_schedule(evse_id, duration, None, station)


K01, K08 = "smartcharging/test_K01.py", "smartcharging/test_K08.py"


def _report_as(station: ReferenceStation, payload: dict, criteria: sc.ReportCriteria, change=lambda r: r) -> dict:
    """The reference's GetChargingProfiles answer for ``criteria``, each report altered by ``change``."""
    report = station.profiles.report(criteria)

    async def send_reports():
        for request in report.requests:
            await station.call("ReportChargingProfiles", change(request))

    station.background.spawn(send_reports())
    return report.response()


class StationSplitsReportsWithoutTbc(ReferenceStation):
    """K09: a report split over several messages says tbc false on every one of them."""

    def on_GetChargingProfiles(self, session, payload):
        return _report_as(self, payload, sc.report_criteria(payload), lambda r: r | {"tbc": False})


class StationReportsEveryEvseForZero(ReferenceStation):
    """K09: evseId 0 is read as "every EVSE" instead of the station level only."""

    def on_GetChargingProfiles(self, session, payload):
        criteria = sc.report_criteria(payload)
        return _report_as(self, payload, replace(criteria, evse_id=None) if criteria.evse_id == 0 else criteria)


class StationClearIgnoresEvse(ReferenceStation):
    """K10: a clear by criteria ignores their evseId (clears at every EVSE)."""

    def on_ClearChargingProfile(self, session, payload):
        criteria = dict(payload.get("chargingProfileCriteria") or {})
        criteria.pop("evseId", None)
        return super().on_ClearChargingProfile(session, payload | {"chargingProfileCriteria": criteria})


class StationClearAlwaysAccepted(ReferenceStation):
    """K10: ClearChargingProfile is Accepted when nothing matched (instead of Unknown)."""

    def on_ClearChargingProfile(self, session, payload):
        super().on_ClearChargingProfile(session, payload)
        return {"status": "Accepted"}


class StationClearIgnoresCriteria(ReferenceStation):
    """K10: a clear by criteria ignores them all and clears every profile (but external constraints)."""

    def on_ClearChargingProfile(self, session, payload):
        if "chargingProfileCriteria" not in payload:
            return super().on_ClearChargingProfile(session, payload)
        return super().on_ClearChargingProfile(session, {"chargingProfileCriteria": {}})


class StationClearRemovesNothing(ReferenceStation):
    """K10: ClearChargingProfile answers as if it cleared what was selected, and removes nothing."""

    def on_ClearChargingProfile(self, session, payload):
        return sc.answer_clear_charging_profile(copy.deepcopy(self.profiles), payload, self.engine_version)


class CsmsAsksForEveryProfile(ReferenceCsms):
    """K09: the operator's criteria are left out of GetChargingProfilesRequest (an empty filter)."""

    async def act_get_charging_profiles(self, charging_profile, evse_id=None, station=None):
        await super().act_get_charging_profiles({}, evse_id, station)


class CsmsClearsByCriteriaInsteadOfId(ReferenceCsms):
    """K10: asked to clear one profile by id, the CSMS clears every profile at the station level."""

    async def act_clear_charging_profile(self, charging_profile_id=None, charging_profile_criteria=None,
                                         station=None):
        await super().act_clear_charging_profile(None, charging_profile_criteria or {"evseId": 0}, station)


class CsmsAsksEveryEvse(ReferenceCsms):
    """K09 (TC_K_30/33/34/36): the operator's evseId is left out of GetChargingProfilesRequest (every EVSE)."""

    async def act_get_charging_profiles(self, charging_profile, evse_id=None, station=None):
        await super().act_get_charging_profiles(charging_profile, None, station)


class CsmsClearsEveryStackLevel(ReferenceCsms):
    """K10 (TC_K_08): the operator's stackLevel is left out of the clear's criteria."""

    async def act_clear_charging_profile(self, charging_profile_id=None, charging_profile_criteria=None,
                                         station=None):
        criteria = {k: v for k, v in (charging_profile_criteria or {}).items() if k != "stackLevel"}
        await super().act_clear_charging_profile(charging_profile_id, criteria or None, station)


K09, K10 = "smartcharging/test_K09.py", "smartcharging/test_K10.py"


class StationKeepsTxProfileAfterTransaction(ReferenceStation):
    """K02 rule 7: a TxProfile outlives its transaction (the engine is not told the transaction ended)."""

    def transaction_ended(self, outlet):
        self.smart.transactions.pop(outlet, None)
        super().transaction_ended(outlet)


class StationCompositeIgnoresTxProfile(ReferenceStation):
    """K02: the composite of a charging EVSE follows its TxDefaultProfile, not the transaction's TxProfile."""

    def on_GetCompositeSchedule(self, session, payload):
        return composite_of(self, payload, lambda e: None if e.profile.purpose is sc.Purpose.TX else e)


class StationAcceptsTxProfileOfAnyTransaction(ReferenceStation):
    """K02 / Errors: a TxProfile naming a transaction the EVSE is not running is Accepted (not TxNotFound)."""

    def on_SetChargingProfile(self, session, payload):
        answer = super().on_SetChargingProfile(session, payload)
        return {"status": "Accepted"} if dig(answer, "statusInfo.reasonCode") == "TxNotFound" else answer


class StationStartsDespiteAnInvalidProfile(ReferenceStation):
    """K05 rule 9: a remote start whose profile the rules refuse starts anyway (the profile is dropped)."""

    def remote_start_refusal(self, outlet, charging_profile):
        return None


class StationForgetsTheStartProfile(ReferenceStation):
    """K05 rule 9: the profile of an accepted remote start is never installed for the transaction."""

    def transaction_started(self, outlet, transaction_id):
        self.start_profiles.pop(outlet, None)
        super().transaction_started(outlet, transaction_id)


class StationCapsOnlyTheStationLevel(ReferenceStation):
    """K04 rule 8: the station max bounds the composite of evseId 0 but not that of each EVSE."""

    def on_GetCompositeSchedule(self, session, payload):
        if payload["evseId"] == 0:
            return super().on_GetCompositeSchedule(session, payload)
        return composite_of(self, payload, lambda e: None if e.profile.purpose is sc.Purpose.STATION_MAX else e)


class CsmsDropsTheStartProfile(ReferenceCsms):
    """K05: the operator's profile is left out of RequestStartTransactionRequest."""

    async def act_request_start_transaction_with_profile(self, evse_id, charging_profile, id_token=None,
                                                         remote_start_id=None, station=None):
        await super().act_request_start_transaction(evse_id, id_token, remote_start_id, station)


class CsmsSendsStationMaxPerEvse(ReferenceCsms):
    """K04 rule 3: the operator's station limit goes out for EVSE 1 instead of evseId 0."""

    async def act_set_charging_profile(self, evse_id, charging_profile, station=None):
        at = 1 if charging_profile["chargingProfilePurpose"] == "ChargingStationMaxProfile" else evse_id
        await super().act_set_charging_profile(at, charging_profile, station)


K02, K04, K05 = "smartcharging/test_K02.py", "smartcharging/test_K04.py", "smartcharging/test_K05.py"


class StationClearsExternalConstraints(ReferenceStation):
    """K10: a clear whose criteria select external constraints removes them (Accepted, not Unknown)."""

    def on_ClearChargingProfile(self, session, payload):
        answer = super().on_ClearChargingProfile(session, payload)
        evse_id = sc.clear_criteria(payload, self.engine_version).evse_id
        gone = [self.profiles.release_external(e.evse_id, e.source) for e in self.profiles.installed()
                if e.profile.purpose is sc.Purpose.EXTERNAL and evse_id in (None, e.evse_id)]
        return {"status": "Accepted"} if gone else answer


class StationLetsTheCsmsReplaceExternalConstraints(ReferenceStation):
    """K01.FR.05: a CSMS profile reusing the id of an external constraints profile is Accepted."""

    def on_SetChargingProfile(self, session, payload):
        if any(e.profile.id == payload["chargingProfile"]["id"] and e.profile.purpose is sc.Purpose.EXTERNAL
               for e in self.profiles.installed()):
            return {"status": "Accepted"}
        return super().on_SetChargingProfile(session, payload)


class StationLiftsTheGroupLimitForPriority(ReferenceStation):
    """K03 rule 11: a transaction the CSMS gave a priority above 0 charges without the group limit."""

    def on_GetCompositeSchedule(self, session, payload):
        state = self.evses.get(payload["evseId"])
        if state is None or state.transaction is None or state.transaction.charging_priority <= 0:
            return super().on_GetCompositeSchedule(session, payload)
        return composite_of(self, payload, lambda e: None if e.profile.purpose is sc.Purpose.STATION_MAX else e)


class CsmsGivesPriorityTen(ReferenceCsms):
    """K03 Limits: every transaction is given chargingPriority 10 (the range is -9 to 9)."""

    charging_priority = 10


K03 = "smartcharging/test_K03.py"


def _forget_after_an_outage(station: ReferenceStation, purpose: str) -> None:
    """The station loses its profiles of ``purpose`` when it connects again after an outage."""
    if station.links:
        station.profiles.clear(sc.clear_criteria({"chargingProfileCriteria": {"chargingProfilePurpose": purpose}},
                                                 station.engine_version))


class StationDropsTxProfilesOffline(ReferenceStation):
    """K06: the TxProfile is gone after the station was offline (not kept in use)."""

    async def connected(self, connection):
        _forget_after_an_outage(self, "TxProfile")
        await super().connected(connection)


class StationForgetsDefaultsOffline(ReferenceStation):
    """K07: the TxDefaultProfile no longer applies after an outage (a transaction started offline runs free)."""

    async def connected(self, connection):
        _forget_after_an_outage(self, "TxDefaultProfile")
        await super().connected(connection)


K06, K07 = "smartcharging/test_K06.py", "smartcharging/test_K07.py"


class StationRefusesADeclaredUnit(ReferenceStation):
    """K01 Errors: the station refuses profiles in W (UnsupportedRateUnit) though its profile declares W."""

    def on_SetChargingProfile(self, session, payload):
        if any(s["chargingRateUnit"] == "W" for s in payload["chargingProfile"]["chargingSchedule"]):
            return {"status": "Rejected", "statusInfo": {"reasonCode": "UnsupportedRateUnit"}}
        return super().on_SetChargingProfile(session, payload)


class StationAcceptsUndeclaredUnits(ReferenceStation):
    """K01 Errors (UnsupportedRateUnit): the station takes a profile in either unit, whatever it declares."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.smart.rate_units = tuple(sc.RateUnit)


class StationAcceptsTxProfilesAtIdleEvses(ReferenceStation):
    """K01 rule 2 / Errors (TC_K_02): a TxProfile at an EVSE that runs no transaction is Accepted."""

    def on_SetChargingProfile(self, session, payload):
        if (payload["chargingProfile"]["chargingProfilePurpose"] == "TxProfile"
                and payload["evseId"] not in self.smart.transactions):
            return {"status": "Accepted"}
        return super().on_SetChargingProfile(session, payload)


class CsmsDropsTheTransactionId(ReferenceCsms):
    """K01 rule 2 (TC_K_02): a TxProfile goes out without the transactionId its operator gave."""

    async def act_set_charging_profile(self, evse_id, charging_profile, station=None):
        await super().act_set_charging_profile(evse_id, {k: v for k, v in charging_profile.items()
                                                         if k != "transactionId"}, station)


class CsmsRenumbersResentProfiles(ReferenceCsms):
    """K01 rule 6 (TC_K_04): a profile with an id it already sent goes out under a new id (no replacement)."""

    async def act_set_charging_profile(self, evse_id, charging_profile, station=None):
        sent = self.__dict__.setdefault("_sent_ids", set())
        if charging_profile["id"] in sent:
            charging_profile = charging_profile | {"id": charging_profile["id"] + 1}
        sent.add(charging_profile["id"])
        await super().act_set_charging_profile(evse_id, charging_profile, station)


class CsmsHangsUpOnNotSupported(ReferenceCsms):
    """TC_K_15: a CALLERROR NotSupported to its SetChargingProfile makes the CSMS drop the station's link."""

    async def act_set_charging_profile(self, evse_id, charging_profile, station=None):
        connection = self.session(station).connection

        async def send():
            exchange = await connection.call_exchange("SetChargingProfile", {"evseId": evse_id,
                                                                             "chargingProfile": charging_profile})
            if exchange.error is not None:
                await connection.close()

        self.background.spawn(send())


FAULTS: tuple[Fault, ...] = (
    Fault("station-accepts-external-constraints", "K01.refused", StationAcceptsExternalConstraints,
          (cs_test(K01, "test_invalid_profile_is_rejected", "external-constraints-from-csms"),),
          "SetChargingProfileResponse status (external-from-csms"),
    Fault("station-misses-duplicates", "K01.duplicate", StationMissesDuplicates,
          (cs_test(K01, "test_overlapping_twin_is_a_duplicate", "same-level-overlapping"),),
          "SetChargingProfileResponse status of the second profile is wrong"),
    Fault("station-refuses-replacement", "K01.replaces", StationRefusesReplacement,
          (cs_test(K01, "test_profile_with_an_installed_id_replaces_it"),),
          "SetChargingProfileResponse status for an installed id is wrong"),
    Fault("station-gives-one-reason-code", "K01.reason_code", StationGivesOneReasonCode,
          (cs_test(K01, "test_invalid_profile_is_rejected", "unknown-evse"),),
          "reasonCode (unknown-evse) is not one of the accepted values", verdict="finding"),
    Fault("station-composite-ignores-station-max", "K08.combined", StationCompositeIgnoresStationMax,
          (cs_test(K08, "test_composite_is_the_installed_profiles_combined", "minimum-across-purposes"),),
          "composite periods of EVSE 1 (startPeriod, limit A)"),
    Fault("station-composite-ignores-valid-to", "K08.combined", StationCompositeIgnoresValidTo,
          (cs_test(K08, "test_composite_is_the_installed_profiles_combined", "valid-to"),),
          "composite periods of EVSE 1 (startPeriod, limit A)"),
    Fault("station-composite-ignores-recurrence", "K08.combined", StationCompositeIgnoresRecurrence,
          (cs_test(K08, "test_composite_is_the_installed_profiles_combined", "recurring-daily"),),
          "composite periods of EVSE 1 (startPeriod, limit A)"),
    Fault("station-composite-labels-without-converting", "K08.combined", StationCompositeLabelsWithoutConverting,
          (cs_test(K08, "test_composite_is_the_installed_profiles_combined", "watts-asked-of-amps"),),
          "composite periods of EVSE 1 (startPeriod, limit W)"),
    Fault("csms-sets-profiles-at-station-level", "chargingprofile.sent", CsmsSetsProfilesAtStationLevel,
          (csms_test(K01, "test_valid_profile_is_sent_as_asked", "tx-default-at-evse"),),
          "SetChargingProfileRequest evseId is wrong"),
    Fault("csms-rounds-limits", "chargingprofile.sent", CsmsRoundsLimits,
          (csms_test(K01, "test_valid_profile_is_sent_as_asked", "recurring-daily"),),
          "SetChargingProfileRequest chargingProfile (as a model) is wrong"),
    Fault("csms-asks-composites-in-its-own-unit", "K08.request", CsmsAsksCompositesInItsOwnUnit,
          (csms_test(K08, "test_csms_asks_for_the_composite_it_was_asked_for", "evse-in-amps"),),
          "GetCompositeScheduleRequest is wrong"),
    Fault("station-splits-reports-without-tbc", "chargingprofile.tbc", StationSplitsReportsWithoutTbc,
          (cs_test(K09, "test_reports_are_what_the_criteria_select", "every-evse"),),
          "the SUT sent ReportChargingProfiles"),
    Fault("station-reports-every-evse-for-zero", "chargingprofile.reported", StationReportsEveryEvseForZero,
          (cs_test(K09, "test_reports_are_what_the_criteria_select", "station-level"),),
          "reported profiles of this test by (evseId, chargingLimitSource) is wrong"),
    Fault("station-clear-ignores-evse", "K10.cleared", StationClearIgnoresEvse,
          (cs_test(K10, "test_clear_removes_what_it_selects", "one-evse"),),
          "reported profiles of this test by (evseId, chargingLimitSource) is wrong"),
    Fault("station-clear-ignores-criteria", "K10.cleared", StationClearIgnoresCriteria,
          tuple(cs_test(K10, "test_clear_removes_what_it_selects", name) for name in ("station-level", "one-evse",
                                                                                  "stack-level", "station-max")),
          "reported profiles of this test"),
    Fault("station-clear-removes-nothing", "K10.cleared", StationClearRemovesNothing,
          tuple(cs_test(K10, "test_clear_removes_what_it_selects", name) for name in ("by-id", "purpose-everywhere")),
          "reported profiles of this test"),
    Fault("station-clear-always-accepted", "K10.unknown", StationClearAlwaysAccepted,
          (cs_test(K10, "test_clear_of_nothing_is_unknown"), cs_test(K10, "test_clear_with_nothing_installed")),
          "ClearChargingProfileResponse status is wrong"),
    Fault("csms-asks-for-every-profile", "chargingprofile.report_sent", CsmsAsksForEveryProfile,
          (csms_test(K09, "test_csms_asks_for_the_profiles_it_was_asked_for", "purpose-at-station-level"),),
          "GetChargingProfilesRequest is wrong"),
    Fault("csms-asks-every-evse", "chargingprofile.report_sent", CsmsAsksEveryEvse,
          tuple(csms_test(K09, "test_csms_asks_for_the_profiles_it_was_asked_for", name)
                for name in ("evse-purpose", "evse-stack-level", "evse-source", "evse-purpose-stack-level")),
          "GetChargingProfilesRequest is wrong"),
    Fault("csms-clears-every-stack-level", "K10.request", CsmsClearsEveryStackLevel,
          (csms_test(K10, "test_clear_with_nothing_installed"),), "ClearChargingProfileRequest is wrong"),
    Fault("csms-clears-by-criteria-instead-of-id", "K10.request", CsmsClearsByCriteriaInsteadOfId,
          (csms_test(K10, "test_csms_clears_what_it_was_asked_to", "by-id"),),
          "ClearChargingProfileRequest is wrong"),
    Fault("station-keeps-tx-profile-after-transaction", "K02.deleted", StationKeepsTxProfileAfterTransaction,
          (cs_test(K02, "test_tx_profile_is_deleted_when_its_transaction_ends"),),
          "profiles reported after the transaction ended (GetChargingProfiles status, ids) is wrong"),
    Fault("station-composite-ignores-tx-profile", "K02.overrules", StationCompositeIgnoresTxProfile,
          (cs_test(K02, "test_tx_profile_overrules_the_default"),),
          "composite periods of EVSE 1 (startPeriod, limit A)"),
    Fault("station-accepts-tx-profile-of-any-transaction", "K02.refused", StationAcceptsTxProfileOfAnyTransaction,
          (cs_test(K02, "test_tx_profile_that_does_not_fit_the_transaction_is_rejected", "another-transaction"),),
          "SetChargingProfileResponse status (tx-not-found) is wrong"),
    Fault("station-accepts-tx-profile-without-a-transaction", "K01.refused", StationAcceptsTxProfilesAtIdleEvses,
          (cs_test(K01, "test_tx_profile_without_a_transaction_is_rejected"),),
          "SetChargingProfileResponse status (tx-not-found) is wrong"),
    Fault("csms-drops-the-transaction-id", "chargingprofile.sent", CsmsDropsTheTransactionId,
          (csms_test(K01, "test_tx_profile_without_a_transaction_is_rejected"),),
          "SetChargingProfileRequest chargingProfile (as a model) is wrong"),
    Fault("csms-renumbers-resent-profiles", "chargingprofile.sent", CsmsRenumbersResentProfiles,
          (csms_test(K01, "test_profile_replaced_by_its_id"),),
          "SetChargingProfileRequest chargingProfile (as a model) is wrong"),
    Fault("csms-hangs-up-on-not-supported", "rpc.answered", CsmsHangsUpOnNotSupported,
          (csms_test(K01, "test_profile_answered_not_supported"),), "Heartbeat"),
    Fault("station-starts-despite-an-invalid-profile", "K05.refused", StationStartsDespiteAnInvalidProfile,
          (cs_test(K05, "test_remote_start_with_an_invalid_profile_is_rejected", "first-period-not-0"),),
          "RequestStartTransactionResponse status is wrong"),
    Fault("station-forgets-the-start-profile", "K05.applied", StationForgetsTheStartProfile,
          (cs_test(K05, "test_remote_start_applies_its_profile"),),
          "the start profile as reported (evseId, purpose, transactionId) is wrong"),
    Fault("csms-drops-the-start-profile", "K05.request", CsmsDropsTheStartProfile,
          (csms_test(K05, "test_csms_starts_with_the_profile_it_was_asked_for"),),
          "RequestStartTransactionRequest chargingProfile is wrong"),
    Fault("station-caps-only-the-station-level", "K04.bounded", StationCapsOnlyTheStationLevel,
          (cs_test(K04, "test_no_composite_exceeds_the_station_max", "each-evse"),),
          "the composite of EVSE 1 exceeds the station max"),
    Fault("csms-sends-station-max-per-evse", "chargingprofile.sent", CsmsSendsStationMaxPerEvse,
          (csms_test(K04, "test_csms_sets_the_station_max_at_evse_0"),
           csms_test(K01, "test_several_profiles_during_a_transaction")),
          "SetChargingProfileRequest evseId is wrong"),
    Fault("station-clears-external-constraints", "K10.unknown", StationClearsExternalConstraints,
          (cs_test(K10, "test_clear_of_only_external_constraints_is_unknown"),),
          "ClearChargingProfileResponse status is wrong"),
    Fault("station-lets-the-csms-replace-external-constraints", "K01.external_id",
          StationLetsTheCsmsReplaceExternalConstraints,
          (cs_test(K01, "test_external_profile_cannot_be_replaced_by_id"),),
          "SetChargingProfileResponse status for the id of external constraints is wrong"),
    Fault("station-lifts-the-group-limit-for-priority", "K03.bounded", StationLiftsTheGroupLimitForPriority,
          (cs_test(K03, "test_priority_never_lifts_the_group_limit"),),
          "composite periods of EVSE 1 (startPeriod, limit A)"),
    Fault("csms-gives-priority-ten", "K03.priority", CsmsGivesPriorityTen,
          (csms_test(K03, "test_csms_gives_a_priority_within_range"),),
          "the chargingPriority is out of range"),
    Fault("station-drops-tx-profiles-offline", "K06.stays", StationDropsTxProfilesOffline,
          (cs_test(K06, "test_tx_profile_holds_through_an_outage", "lasting"),),
          "composite periods of EVSE 1 (startPeriod, limit A)"),
    Fault("station-forgets-defaults-offline", "K07.applied", StationForgetsDefaultsOffline,
          (cs_test(K07, "test_default_applies_to_a_transaction_started_offline"),),
          "composite periods of EVSE 1 (startPeriod, limit A)"),
    Fault("station-refuses-a-declared-unit", "chargingprofile.accepted", StationRefusesADeclaredUnit,
          (cs_test(K01, "test_valid_profile_is_accepted", "watts"),),
          "SetChargingProfileResponse status for profile"),
    Fault("station-accepts-undeclared-units", "K01.refused", StationAcceptsUndeclaredUnits,
          (cs_test(K01, "test_profile_in_an_unsupported_unit_is_rejected"),), "SetChargingProfileResponse status",
          profile="harness/profiles/one-rate-unit.toml"),
)
