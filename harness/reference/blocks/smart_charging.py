"""Smart charging: the station answers from the charging-profile engine (``harness.smartcharging``);
a transaction's start and end reach the engine through the transaction hooks (its end deletes its
TxProfiles).

Station 2.x (spec 001 K01-K13): SetChargingProfile, GetCompositeSchedule, ClearChargingProfile and
GetChargingProfiles (whose profiles go out in ReportChargingProfiles), per EVSE; a remote start's
TxProfile (K05); external limits set and released as actuator actions (NotifyChargingLimit,
ClearedChargingLimit); the engine speaks
2.0.1 smart charging, whose fields 2.1 keeps. Charge point 1.6 (Smart Charging profile): the first
three, per connector, in 1.6, within the limits its discovery keys report (spec 002 rule 15). CSMS 2.x: the
station's reports answered empty; SetChargingProfile, GetCompositeSchedule, GetChargingProfiles and
ClearChargingProfile as actuator actions (the operator's steps). Central system 1.6: SetChargingProfile,
GetCompositeSchedule and ClearChargingProfile as actuator actions.
"""

from __future__ import annotations

import itertools
import secrets
from dataclasses import replace
from typing import Any

from harness import clock
from harness import smartcharging as sc
from harness.errors import HarnessError
from harness.ocpp.v16 import connector_ids
from harness.ocpp.versions import OcppVersion
from harness.reference.base import StationSession
from harness.reference.common import EVERY_VERSION, V2X, V16, Block, Undo, store
from harness.reference.v16.config import DISCOVERY_KEYS
from harness.smartcharging.wire import iso
from harness.transport.ws import CallErrorReply


class ChargingProfiles(Block):
    """The station's side of the engine, shared by both versions' smart charging (not a block of its own)."""

    versions = EVERY_VERSION
    engine_version: OcppVersion

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.smart = sc.Station(evse_ids=self.outlets(), smart_charging=self.profile.feature("smart_charging"),
                                phases=min(e.phases for e in self.profile.evses))
        self.profiles = sc.ProfileStore()

    def outlets(self) -> frozenset[int]:
        """What a charging profile is installed on: EVSE ids (2.x) or connector ids (1.6)."""
        raise NotImplementedError

    def transaction_started(self, outlet: int, transaction_id: str) -> None:
        super().transaction_started(outlet, transaction_id)
        self.smart.transactions[outlet] = sc.Transaction(transaction_id, clock.utcnow())

    def transaction_ended(self, outlet: int) -> None:
        super().transaction_ended(outlet)
        if outlet in self.smart.transactions:
            self.profiles.end_transaction(self.smart, outlet)

    def on_SetChargingProfile(self, _: None, payload: dict) -> dict:
        decision = sc.answer_set_charging_profile(self.profiles, self.smart, payload, self.engine_version)
        if decision.call_error:
            raise CallErrorReply(decision.call_error, decision.detail)
        return decision.response()

    def on_GetCompositeSchedule(self, _: None, payload: dict) -> dict:
        return sc.answer_get_composite_schedule(self.profiles, self.smart, payload, self.engine_version,
                                                clock.utcnow())

    def on_ClearChargingProfile(self, _: None, payload: dict) -> dict:
        return sc.answer_clear_charging_profile(self.profiles, payload, self.engine_version)


class SmartChargingStation2x(ChargingProfiles):
    versions = V2X
    undone_by = {"set_external_limit": lambda body: ("release_external_limit", {"evse_id": body["evse_id"],
                                                                                 "source": body["source"]})}
    requires = ("TransactionsStation2x",)
    engine_version = OcppVersion.V201
    configurable = frozenset({"profiles_supported"})
    profiles_supported = True   # False: SetChargingProfile is answered with a CALLERROR NotSupported (K_15)

    start_profiles: dict[int, sc.ChargingProfile] = store(dict)   # EVSE: the TxProfile of a remote start
    iso15118: set[int] = store(set)   # EVSEs whose EV stated its needs (K15) in the running transaction

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.smart.rate_units = tuple(sc.RateUnit(u) for u in self.profile.charging_rate_units)

    def on_SetChargingProfile(self, session: None, payload: dict) -> dict:
        """As every station; a TxProfile for an EV that stated its needs is negotiated with the EV, which
        accepts its first schedule as it is (K15/K16): NotifyEVChargingSchedule reports it. A station told
        it takes no profile (``profiles_supported`` False) answers a CALLERROR NotSupported."""
        if not self.profiles_supported:
            raise CallErrorReply("NotSupported", "this station takes no charging profile")
        answer = super().on_SetChargingProfile(session, payload)
        profile = payload["chargingProfile"]
        if (answer["status"] == "Accepted" and payload["evseId"] in self.iso15118
                and profile["chargingProfilePurpose"] == "TxProfile"):
            self.background.spawn(self.call("NotifyEVChargingSchedule", {
                "timeBase": iso(clock.utcnow()), "evseId": payload["evseId"],
                "chargingSchedule": profile["chargingSchedule"][0]}))
        return answer

    def remote_start_refusal(self, outlet: int, charging_profile: dict) -> dict | None:
        """Spec 001 rule 9 (K05): without smart charging the profile is ignored; with it, a profile the
        rules refuse for a transaction on ``outlet`` refuses the start (its reasonCode), else it is
        installed for the transaction once it starts."""
        if not self.smart.smart_charging:
            return None
        profile = sc.from_v201(charging_profile)
        pending = sc.Transaction("remote-start", clock.utcnow())
        station = replace(self.smart, transactions=self.smart.transactions | {outlet: pending})
        decision = self.profiles.validate(station, outlet, replace(profile, transaction_id=pending.id),
                                          self.engine_version)
        if not decision.accepted:
            return {"status": "Rejected", "statusInfo": {"reasonCode": decision.rule.reason_code or "InvalidProfile",
                                                         "additionalInfo": decision.detail[:512]}}
        self.start_profiles[outlet] = profile
        return None

    async def act_set_external_limit(self, evse_id: int, source: str, limit: float, unit: str = "A") -> None:
        """An external system (an EMS, the grid operator, ...) limits ``evse_id`` (0: the station) from now
        on (K12): the limit becomes a ChargingStationExternalConstraints profile of that source, and the
        CSMS hears of it in NotifyChargingLimit; a transaction it limits reports ChargingRateChanged (K11:
        this station's LimitChangeSignificance is 0, every change counts)."""
        profile = sc.ChargingProfile(
            id=secrets.randbelow(10**6) + 10**6, stack_level=0, purpose=sc.Purpose.EXTERNAL, kind=sc.Kind.ABSOLUTE,
            schedules=(sc.ChargingSchedule(unit, (sc.SchedulePeriod(0, limit),), id=1, start_schedule=clock.utcnow()),))
        decision = self.profiles.install_external(self.smart, evse_id, profile, sc.LimitSource(source))
        if not decision.accepted:
            raise HarnessError(f"the external limit cannot be installed: {decision.detail}")
        await self.call("NotifyChargingLimit", {"chargingLimit": {"chargingLimitSource": source}, "evseId": evse_id})
        for outlet in sorted(self.smart.transactions) if evse_id == 0 else [evse_id]:
            await self.charging_rate_changed(outlet)

    async def act_release_external_limit(self, evse_id: int, source: str) -> None:
        """The external system releases its limit on ``evse_id`` (K13): ClearedChargingLimit; a transaction it
        limited reports ChargingRateChanged (as when it was set: every change counts here)."""
        self.profiles.release_external(evse_id, sc.LimitSource(source))
        await self.call("ClearedChargingLimit", {"chargingLimitSource": source, "evseId": evse_id})
        for outlet in sorted(self.smart.transactions) if evse_id == 0 else [evse_id]:
            await self.charging_rate_changed(outlet)

    async def act_ev_charging_needs(self, evse_id: int, charging_needs: dict,
                                    max_schedule_tuples: int | None = None) -> None:
        """The EV on ``evse_id`` states its charging needs over ISO 15118 (K15): NotifyEVChargingNeeds."""
        payload: dict[str, Any] = {"evseId": evse_id, "chargingNeeds": charging_needs}
        if max_schedule_tuples is not None:
            payload["maxScheduleTuples"] = max_schedule_tuples
        self.iso15118.add(evse_id)
        await self.call("NotifyEVChargingNeeds", payload)

    def transaction_ended(self, outlet: int) -> None:
        super().transaction_ended(outlet)
        self.iso15118.discard(outlet)

    def transaction_started(self, outlet: int, transaction_id: str) -> None:
        super().transaction_started(outlet, transaction_id)
        if outlet in self.start_profiles:
            profile = replace(self.start_profiles.pop(outlet), transaction_id=transaction_id)
            self.profiles.install(self.smart, outlet, profile, self.engine_version)

    def outlets(self) -> frozenset[int]:
        return frozenset(e.id for e in self.profile.evses)

    def on_GetChargingProfiles(self, _: None, payload: dict) -> dict:
        report = self.profiles.report(sc.report_criteria(payload))

        async def send_reports() -> None:
            for request in report.requests:
                await self.call("ReportChargingProfiles", request)

        self.background.spawn(send_reports())
        return report.response()


class SmartChargingStation16(ChargingProfiles):
    versions = V16
    engine_version = OcppVersion.V16

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.smart.max_stack_level, self.smart.max_profiles, self.smart.max_periods = (
            int(DISCOVERY_KEYS[key]) for key in
            ("ChargeProfileMaxStackLevel", "MaxChargingProfilesInstalled", "ChargingScheduleMaxPeriods"))

    def outlets(self) -> frozenset[int]:
        return frozenset(connector_ids(self.profile))


class SmartChargingCsms16(Block):
    versions = V16

    async def undo_SetChargingProfile(self, payload: dict, link: Any) -> Undo:
        clear = {"id": payload["csChargingProfiles"]["chargingProfileId"]}
        return Undo(f"clear the charging profile {clear}", lambda now: now.call_exchange("ClearChargingProfile", clear))

    async def act_set_charging_profile(self, connector_id: int, cs_charging_profiles: dict,
                                       station: str | None = None) -> None:
        self.send(station, "SetChargingProfile",
                  {"connectorId": connector_id, "csChargingProfiles": cs_charging_profiles})

    async def act_get_composite_schedule(self, connector_id: int, duration: int, charging_rate_unit: str | None = None,
                                         station: str | None = None) -> None:
        self.send(station, "GetCompositeSchedule", {"connectorId": connector_id, "duration": duration}
                  | ({"chargingRateUnit": charging_rate_unit} if charging_rate_unit else {}))

    async def act_clear_charging_profile(self, id: int | None = None, connector_id: int | None = None,
                                         charging_profile_purpose: str | None = None, stack_level: int | None = None,
                                         station: str | None = None) -> None:
        criteria = {"id": id, "connectorId": connector_id, "chargingProfilePurpose": charging_profile_purpose,
                    "stackLevel": stack_level}
        self.send(station, "ClearChargingProfile", {k: v for k, v in criteria.items() if v is not None})


class SmartChargingCsms2x(Block):
    versions = V2X
    requires = ("TransactionsCsms2x",)

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self._request_ids = itertools.count(secrets.randbelow(10_000) + 1)
        self._needs_profiles: dict[tuple[str, str], int] = {}   # (station, transaction): its K15 TxProfile id

    def on_ReportChargingProfiles(self, session: StationSession, payload: dict) -> dict:
        return {}

    async def undo_SetChargingProfile(self, payload: dict, link: Any) -> Undo:
        clear = {"chargingProfileId": payload["chargingProfile"]["id"]}
        return Undo(f"clear the charging profile {clear}", lambda now: now.call_exchange("ClearChargingProfile", clear))

    def on_NotifyEVChargingNeeds(self, session: StationSession, payload: dict) -> dict:
        """Spec 001 rule 13 (K15): Processing, then a TxProfile for the EVSE's transaction within the EV's
        limits (its maximum current, or for DC its maximum power), one period (within maxScheduleTuples);
        Rejected when no transaction runs there."""
        running = [t for t in session.transactions.values() if t.evse_id == payload["evseId"] and not t.ended]
        if not running:
            return {"status": "Rejected"}
        needs = payload["chargingNeeds"]
        dc = needs.get("dcChargingParameters")
        unit, limit = (("W", dc["evMaxPower"]) if dc and "evMaxPower" in dc
                       else ("A", (dc or needs.get("acChargingParameters") or {}).get("evMaxCurrent", 16)))
        # a renegotiation (K17) replaces the transaction's TxProfile by its id (rule 6)
        profile_id = self._needs_profiles.setdefault((session.identity, running[-1].id), secrets.randbelow(10**6) + 1)
        self.send(session.identity, "SetChargingProfile", {"evseId": payload["evseId"], "chargingProfile": {
            "id": profile_id, "stackLevel": 1, "chargingProfilePurpose": "TxProfile", "chargingProfileKind": "Absolute",
            "transactionId": running[-1].id, "chargingSchedule": [{
                "id": profile_id, "startSchedule": iso(clock.utcnow().replace(microsecond=0)),
                "chargingRateUnit": unit, "chargingSchedulePeriod": [{"startPeriod": 0, "limit": float(limit)}]}]}})
        return {"status": "Processing"}

    def on_NotifyEVChargingSchedule(self, session: StationSession, payload: dict) -> dict:
        """Received (not approved: spec 001 rule 14)."""
        return {"status": "Accepted"}

    def on_NotifyChargingLimit(self, session: StationSession, payload: dict) -> dict:
        return {}

    def on_ClearedChargingLimit(self, session: StationSession, payload: dict) -> dict:
        return {}

    async def act_set_charging_profile(self, evse_id: int, charging_profile: dict, station: str | None = None) -> None:
        self.send(station, "SetChargingProfile", {"evseId": evse_id, "chargingProfile": charging_profile})

    async def act_get_composite_schedule(self, evse_id: int, duration: int, charging_rate_unit: str | None = None,
                                         station: str | None = None) -> None:
        payload: dict[str, Any] = {"evseId": evse_id, "duration": duration}
        if charging_rate_unit is not None:
            payload["chargingRateUnit"] = charging_rate_unit
        self.send(station, "GetCompositeSchedule", payload)

    async def act_get_charging_profiles(self, charging_profile: dict, evse_id: int | None = None,
                                        station: str | None = None) -> None:
        payload: dict[str, Any] = {"requestId": next(self._request_ids), "chargingProfile": charging_profile}
        if evse_id is not None:
            payload["evseId"] = evse_id
        self.send(station, "GetChargingProfiles", payload)

    async def act_clear_charging_profile(self, charging_profile_id: int | None = None,
                                         charging_profile_criteria: dict | None = None,
                                         station: str | None = None) -> None:
        payload: dict[str, Any] = {}
        if charging_profile_id is not None:
            payload["chargingProfileId"] = charging_profile_id
        if charging_profile_criteria is not None:
            payload["chargingProfileCriteria"] = charging_profile_criteria
        self.send(station, "ClearChargingProfile", payload)
