"""SC16 — Smart Charging in 1.6: SetChargingProfile (purposes and where they may be installed),
GetCompositeSchedule compared with the charging-profile engine, ClearChargingProfile, and the discovery
keys (spec 002 Behavior rules 11 and 15; Classes ChargingProfile, ChargingSchedule,
ChargingSchedulePeriod; Enumerations ChargingProfileStatus, ClearChargingProfileStatus,
GetCompositeScheduleStatus; the TxProfile moves).

What a charge point must answer is not hard-coded: the engine (harness/smartcharging) decides from
what the test installed, and computes the composite a charge point must report at the scheduleStart
it reports. A charge point that lists SmartCharging in SupportedFeatureProfiles reports the four
discovery keys of rule 15.

What the central system owes: SetChargingProfile, GetCompositeSchedule and ClearChargingProfile sent as asked
(ops16.sent_as_asked), and a remote start with a profile carrying it as a TxProfile without transactionId
(SC16.start_profile). Each answer (Accepted, Rejected, NotSupported, Unknown) ends its dialogue: spec 002
names no follow-up of the central system.
"""

import secrets

import pytest

from harness import smartcharging as sc
from harness.roles import CS, CSMS
from harness.ocpp.equivalence import configuration_keys, same
from harness.ocpp.v16 import WHOLE_CHARGE_POINT
from harness.ocpp.versions import OcppVersion
from harness.rules import RuleTable, must
from harness.suite import OCPP16, TC, case, checks, needs
from harness.usecases.core16 import Core16, connectors, start, tag16, tagged, transaction_id
from harness.usecases.operations import ASKED16, Operations16, operate, status_of
from harness.usecases.smart_charging import recent_start
from harness.verdict import check_equal, require

V16 = OcppVersion.V16
DISCOVERY = ("ChargeProfileMaxStackLevel", "ChargingScheduleAllowedChargingRateUnit", "ChargingScheduleMaxPeriods",
             "MaxChargingProfilesInstalled")


class SC16(RuleTable):
    """The rules of SC16."""
    installed = must("spec 002 Behavior rule 11; Enumerations ChargingProfileStatus",
                     "a charging profile that obeys the rules is Accepted (as the engine decides)", by=CS)
    max_at_zero = must("spec 002 Behavior rule 11 (ChargePointMaxProfile only at connectorId 0)",
                       "a ChargePointMaxProfile for a connector above 0 is not Accepted", by=CS)
    tx_needs_transaction = must("spec 002 States and transitions (TxProfile: with no active transaction the CP "
                                "discards it and returns an error); Behavior rule 11",
                                "a TxProfile for a connector without a transaction is not Accepted", by=CS)
    composite = must("spec 002 Behavior rule 11 (stacking; the composite is the minimum per interval)",
                     "GetCompositeSchedule is Accepted and reports the composite the engine computes from the "
                     "installed profiles", by=CS)
    cleared = must("spec 002 Enumerations ClearChargingProfileStatus",
                   "ClearChargingProfile of an installed profile is Accepted; of one no longer there Unknown", by=CS)
    start_profile = must("OCPP 1.6 §5.11 Remote Start Transaction (a ChargingProfile in it: purpose MUST be "
                         "TxProfile); spec 002 Messages RemoteStartTransaction (chargingProfile optional)",
                         "a remote start with a profile carries the idTag, connector and profile it was asked for, "
                         "the profile a TxProfile without transactionId", by=CSMS)
    discovery = must("spec 002 Behavior rule 15; What the service does 2",
                     "a charge point with the Smart Charging profile reports ChargeProfileMaxStackLevel, "
                     "ChargingScheduleAllowedChargingRateUnit, ChargingScheduleMaxPeriods and "
                     "MaxChargingProfilesInstalled", by=CS)


pytestmark = case("SC16", block="Smart Charging (1.6)", roles=("csms", "cs"), protocols=OCPP16,
                  requires=["smart_charging"])


def _profile(purpose: str, limits: list[tuple[int, float]], *, stack_level: int = 0,
             transaction: int | None = None) -> dict:
    """A 1.6 ChargingProfile, Absolute from a minute ago for a day, in A."""
    return {"chargingProfileId": 1 + secrets.randbelow(10**6), "stackLevel": stack_level,
            "chargingProfilePurpose": purpose, "chargingProfileKind": "Absolute",
            "chargingSchedule": {"duration": 86400, "startSchedule": recent_start().strftime("%Y-%m-%dT%H:%M:%SZ"),
                                 "chargingRateUnit": "A",
                                 "chargingSchedulePeriod": [{"startPeriod": at, "limit": limit}
                                                            for at, limit in limits]}
            } | ({"transactionId": transaction} if transaction is not None else {})


def _oracle(profile) -> sc.Station:
    return sc.Station(evse_ids=frozenset(connectors(profile)))


async def _set(ocpp, connector_id: int, charging_profile: dict):
    return await operate(ocpp, "SetChargingProfile", {"connectorId": connector_id,
                                                      "csChargingProfiles": charging_profile})


@checks(*ASKED16, SC16.installed, cs=TC("TC_056_CS"), csms=TC("TC_056_CSMS"))
async def test_tx_default_profile_is_installed(ocpp, profile):
    """A TxDefaultProfile for the whole charge point is Accepted."""
    charging_profile = _profile("TxDefaultProfile", [(0, 16.0)])
    expected = sc.ProfileStore().validate(_oracle(profile), WHOLE_CHARGE_POINT, sc.from_v16(charging_profile), V16)
    exchange = await _set(ocpp, WHOLE_CHARGE_POINT, charging_profile)
    if ocpp.is_sut(CS):
        check_equal(SC16.installed, "SetChargingProfile.conf status", expected.response()["status"],
                    status_of(exchange))


@pytest.mark.sut_roles("cs")
@checks(*ASKED16, SC16.max_at_zero)
async def test_charge_point_max_profile_only_at_connector_0(ocpp, profile):
    """A ChargePointMaxProfile sent for connector 1: not Accepted."""
    exchange = await _set(ocpp, connectors(profile)[0], _profile("ChargePointMaxProfile", [(0, 32.0)]))
    require(status_of(exchange) != "Accepted", SC16.max_at_zero, "a ChargePointMaxProfile for connector 1 was "
            "Accepted", expected="Rejected", actual=status_of(exchange))


@pytest.mark.sut_roles("cs")
@checks(*ASKED16, SC16.tx_needs_transaction, cs=TC("TC_058_1_CS"))
async def test_tx_profile_without_transaction_is_refused(ocpp, profile):
    """A TxProfile for a connector where no transaction runs: not Accepted."""
    exchange = await _set(ocpp, connectors(profile)[0], _profile("TxProfile", [(0, 10.0)]))
    require(status_of(exchange) != "Accepted", SC16.tx_needs_transaction, "a TxProfile without a transaction was "
            "Accepted", expected="Rejected", actual=status_of(exchange))


@checks(*ASKED16, Core16.authorize, Core16.start, SC16.installed, cs=TC("TC_057_CS"), csms=TC("TC_057_CSMS"))
@needs(tagged("Accepted"))
async def test_tx_profile_for_the_running_transaction(ocpp, profile):
    """A TxProfile for the running transaction on its connector is Accepted."""
    connector = connectors(profile)[0]
    tx_id = transaction_id(await start(ocpp, tag16(profile, "Accepted"), connector))
    exchange = await _set(ocpp, connector, _profile("TxProfile", [(0, 10.0)], transaction=tx_id))
    if ocpp.is_sut(CS):
        check_equal(SC16.installed, "SetChargingProfile.conf status (TxProfile of the running transaction)",
                    "Accepted", status_of(exchange))


@pytest.mark.sut_roles("cs")
@checks(*ASKED16, SC16.installed, SC16.composite)
async def test_composite_schedule_is_the_engines(ocpp, profile):
    """Two stacked TxDefaultProfiles: the composite of connector 1 is what the engine computes."""
    low = _profile("TxDefaultProfile", [(0, 16.0)])
    high = _profile("TxDefaultProfile", [(0, 10.0), (1800, 6.0)], stack_level=1)
    station, store = _oracle(profile), sc.ProfileStore()
    for charging_profile in (low, high):
        check_equal(SC16.installed, "SetChargingProfile.conf status", "Accepted",
                    status_of(await _set(ocpp, WHOLE_CHARGE_POINT, charging_profile)))
        store.install(station, WHOLE_CHARGE_POINT, sc.from_v16(charging_profile), V16)
    connector = connectors(profile)[0]
    exchange = await operate(ocpp, "GetCompositeSchedule", {"connectorId": connector, "duration": 3600,
                                                            "chargingRateUnit": "A"})
    check_equal(SC16.composite, "GetCompositeSchedule.conf status", "Accepted", status_of(exchange))
    reported = sc.composite_from_wire(exchange.result, V16)
    expected = sc.composite_schedule(store, station, connector, reported.schedule_start, 3600, "A")
    check_equal(SC16.composite, "composite periods (startPeriod, limit A)",
                [(p.start_period, p.limit) for p in expected.periods],
                [(p.start_period, p.limit) for p in reported.periods])


@pytest.mark.sut_roles("csms")
@checks(*ASKED16, csms=TC("TC_066_CSMS"))
async def test_composite_schedule_is_asked_as_asked(ocpp, profile):
    """The central system asks for the composite of the connector and duration it was asked for."""
    await operate(ocpp, "GetCompositeSchedule", {"connectorId": connectors(profile)[0], "duration": 3600,
                                                 "chargingRateUnit": "A"})


@checks(*ASKED16, SC16.installed, SC16.cleared)
async def test_cleared_profile_is_gone(ocpp, profile):
    """ClearChargingProfile of an installed profile: Accepted; the same again: Unknown."""
    charging_profile = _profile("TxDefaultProfile", [(0, 12.0)])
    await _set(ocpp, WHOLE_CHARGE_POINT, charging_profile)
    for expected in ("Accepted", "Unknown"):
        exchange = await operate(ocpp, "ClearChargingProfile", {"id": charging_profile["chargingProfileId"]})
        if ocpp.is_sut(CS):
            check_equal(SC16.cleared, "ClearChargingProfile.conf status", expected, status_of(exchange))


@pytest.mark.sut_roles("cs")
@checks(Operations16.sent_as_asked, SC16.discovery)
async def test_discovery_keys_are_reported(ocpp):
    """GetConfiguration of the four discovery keys: each known, with a value."""
    exchange = await ocpp.exchange(CSMS, "GetConfiguration", {"key": list(DISCOVERY)}, rule=Operations16.sent_as_asked)
    known = configuration_keys(exchange.result)
    missing = [key for key in DISCOVERY if not known.get(key.casefold(), {}).get("value")]
    require(not missing, SC16.discovery, "the charge point does not report every smart-charging discovery key",
            expected=list(DISCOVERY), actual=sorted(known))


@pytest.mark.sut_roles("csms")
@pytest.mark.requires("remote_start")
@checks(SC16.start_profile, Core16.accepted, csms=TC("TC_059_CSMS"))
@needs(tagged("Accepted"))
async def test_remote_start_with_a_profile(ocpp, profile):
    """Cable in, then a remote start carrying a TxProfile (no transactionId: the transaction does not exist
    yet): sent as asked, and the StartTransaction that follows is answered Accepted. Whether the charge point
    applies the profile is the charge point's (the harness's here): the texts ask nothing more of the central
    system."""
    token, connector = tag16(profile, "Accepted"), connectors(profile)[0]
    asked = {k: v for k, v in _profile("TxProfile", [(0, 10.0)]).items() if k != "transactionId"}
    mark = ocpp.mark()
    await ocpp.act(CS, "plug_in", connector_id=connector)
    payload = {"idTag": token.id, "connectorId": connector, "chargingProfile": asked}
    exchange = await ocpp.exchange(CSMS, "RemoteStartTransaction", payload, rule=SC16.start_profile, trigger=(
        "remote_start_transaction_with_profile",
        {"id_tag": token.id, "connector_id": connector, "charging_profile": asked}))
    check_equal(SC16.start_profile, "RemoteStartTransaction.req", payload, exchange.request, same=same(ocpp.version))
    sent = exchange.request["chargingProfile"]
    check_equal(SC16.start_profile, "RemoteStartTransaction.req chargingProfile (purpose, transactionId)",
                ("TxProfile", None), (sent.get("chargingProfilePurpose"), sent.get("transactionId")))
    started = await ocpp.expect("StartTransaction", sender=CS, after=mark, where=lambda p: p["connectorId"] == connector)
    check_equal(Core16.accepted, "StartTransaction.conf idTagInfo.status", "Accepted",
                (started.result.get("idTagInfo") or {}).get("status"))
