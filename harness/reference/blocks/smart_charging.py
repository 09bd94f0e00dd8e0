"""Smart charging: the station answers from the charging-profile engine (``harness.smartcharging``);
a transaction's start and end reach the engine through the transaction hooks (its end deletes its
TxProfiles).

Station 2.x (spec 001 K01-K08): SetChargingProfile, GetCompositeSchedule, ClearChargingProfile and
GetChargingProfiles (whose profiles go out in ReportChargingProfiles), per EVSE; the engine speaks
2.0.1 smart charging, whose fields 2.1 keeps. Charge point 1.6 (Smart Charging profile): the first
three, per connector, in 1.6, within the limits its discovery keys report (spec 002 rule 15). CSMS
2.x: the station's reports answered empty; SetChargingProfile and GetCompositeSchedule as actuator
actions. Central system 1.6: SetChargingProfile, GetCompositeSchedule and ClearChargingProfile as
actuator actions.
"""

from __future__ import annotations

from typing import Any

from harness import clock
from harness import smartcharging as sc
from harness.ocpp.v16 import connector_ids
from harness.ocpp.versions import OcppVersion
from harness.reference.base import StationSession
from harness.reference.common import EVERY_VERSION, V2X, V16, Block
from harness.reference.v16.config import DISCOVERY_KEYS
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
    engine_version = OcppVersion.V201

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

    def on_ReportChargingProfiles(self, session: StationSession, payload: dict) -> dict:
        return {}

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
