"""Smart-charging dialogues (K01, K08), with the charging-profile engine as the oracle:
what a station must accept and what composite it must report are computed, not hard-coded.
The rules of the SetChargingProfile dialogue that several use cases play are this module's."""

from __future__ import annotations

from datetime import datetime, timedelta

from harness import clock
from harness import smartcharging as sc
from harness.arena import CS, CSMS, OcppArena
from harness.ocpp.versions import OcppVersion
from harness.rules import RuleTable, must
from harness.transport.ws import Exchange


class ChargingProfiles(RuleTable, namespace="chargingprofile"):
    """Installing a profile (spec 001 SetChargingProfile rules and messages)."""
    sent = must("spec 001 Messages sent by the CSMS: SetChargingProfileRequest",
                "the CSMS sends SetChargingProfile for the EVSE and profile its operator asked for", by=CSMS)
    accepted = must("spec 001 SetChargingProfile rules 1-6; SetChargingProfileResponse",
                    "a station accepts a profile that obeys the rules", by=CS)


def absolute_tx_default(profile_id: int, limits: list[tuple[int, str]], start: datetime,
                        stack_level: int = 0) -> dict:
    """A 2.0.1 TxDefaultProfile, Absolute, one schedule in A, started at ``start``."""
    return {
        "id": profile_id, "stackLevel": stack_level, "chargingProfilePurpose": "TxDefaultProfile",
        "chargingProfileKind": "Absolute",
        "chargingSchedule": [{
            "id": profile_id, "startSchedule": start.strftime("%Y-%m-%dT%H:%M:%SZ"), "duration": 86400,
            "chargingRateUnit": "A",
            "chargingSchedulePeriod": [{"startPeriod": at, "limit": float(limit)} for at, limit in limits],
        }],
    }


def recent_start() -> datetime:
    return (clock.utcnow() - timedelta(minutes=1)).replace(microsecond=0)


def oracle_station(arena: OcppArena) -> sc.Station:
    """The engine's model of the SUT station from its profile: its EVSEs, no transaction."""
    return sc.Station(evse_ids=frozenset(e.id for e in arena.profile.evses))


async def set_profile(arena: OcppArena, evse_id: int, charging_profile: dict) -> Exchange:
    return await arena.exchange(
        CSMS, "SetChargingProfile", {"evseId": evse_id, "chargingProfile": charging_profile},
        trigger=("set_charging_profile", {"evse_id": evse_id, "charging_profile": charging_profile}),
        rule=ChargingProfiles.sent)


def expected_decision(installed: list[tuple[int, dict]], evse_id: int, charging_profile: dict,
                      station: sc.Station) -> sc.Decision:
    """What the rules say about installing ``charging_profile`` after ``installed``."""
    store = sc.ProfileStore()
    for at, wire in installed:
        store.install(station, at, sc.from_v201(wire), OcppVersion.V201)
    return store.validate(station, evse_id, sc.from_v201(charging_profile), OcppVersion.V201)
