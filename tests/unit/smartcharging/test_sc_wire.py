"""1.6 / 2.0.1 wire shapes: round trips, the official schemas, Decimal exactness, blame on faults."""

from __future__ import annotations

import copy
import json
from decimal import Decimal

import pytest

from harness.errors import HarnessError, PeerViolation
from harness.ocpp.schemas import validate as schema_validate
from harness.smartcharging.wire import SmartChargingWire
from harness.smartcharging import (
    ChargingSchedule, ClearCriteria, Kind, LimitSource, ProfileStore, Purpose, Recurrency, ReportCriteria,
    answer_set_charging_profile, clear_criteria, composite_request, from_v16, from_v201, report_criteria,
    set_request, to_v16, to_v201,
)
from sc_builders import V16, V201, at, periods, profile, station, with_tx

PROFILE_201 = {
    "id": 7, "stackLevel": 2, "chargingProfilePurpose": "TxProfile", "chargingProfileKind": "Recurring",
    "recurrencyKind": "Weekly", "validFrom": "2024-01-01T00:00:00Z", "validTo": "2024-02-01T12:30:00Z",
    "transactionId": "tx-1",
    "chargingSchedule": [
        {"id": 1, "startSchedule": "2024-01-01T06:00:00Z", "duration": 7200, "chargingRateUnit": "W",
         "chargingSchedulePeriod": [{"startPeriod": 0, "limit": Decimal("7360.5"), "numberPhases": 1,
                                     "phaseToUse": 2},
                                    {"startPeriod": 900, "limit": 11000}],
         "minChargingRate": Decimal("1.5"),
         "salesTariff": {"id": 1, "salesTariffEntry": [{"relativeTimeInterval": {"start": 0}}]}},
        {"id": 2, "startSchedule": "2024-01-01T06:00:00Z", "chargingRateUnit": "A",
         "chargingSchedulePeriod": [{"startPeriod": 0, "limit": 16}]},
    ],
}
PROFILE_16 = {
    "chargingProfileId": 3, "transactionId": 42, "stackLevel": 0, "chargingProfilePurpose": "TxProfile",
    "chargingProfileKind": "Absolute",
    "chargingSchedule": {"duration": 3600, "startSchedule": "2024-01-01T00:00:00Z", "chargingRateUnit": "A",
                         "chargingSchedulePeriod": [{"startPeriod": 0, "limit": Decimal("8.1"), "numberPhases": 3},
                                                    {"startPeriod": 60, "limit": 6}],
                         "minChargingRate": Decimal("6.0")},
}


def test_2_0_1_round_trip_and_model():
    p = from_v201(PROFILE_201)
    assert (p.id, p.stack_level, p.purpose, p.kind, p.recurrency_kind, p.transaction_id) == (
        7, 2, Purpose.TX, Kind.RECURRING, Recurrency.WEEKLY, "tx-1")
    assert p.valid_to == at(31 * 86400 + 12.5 * 3600)
    first = p.schedules[0]
    assert first.periods[0].limit == Decimal("7360.5") and first.periods[0].phase_to_use == 2
    assert first.periods[1].number_phases is None and first.periods[1].phases == 3
    assert to_v201(p) == PROFILE_201
    assert not schema_validate(V201, "SetChargingProfile", "request", {"evseId": 1, "chargingProfile": to_v201(p)})


def test_1_6_round_trip_keeps_integer_transaction_ids():
    p = from_v16(PROFILE_16)
    assert p.transaction_id == "42" and p.purpose is Purpose.TX and p.schedules[0].id is None
    assert to_v16(p) == PROFILE_16
    assert not schema_validate(V16, "SetChargingProfile", "request", {"connectorId": 1, "csChargingProfiles": to_v16(p)})


def test_purpose_names_differ_per_version():
    max16 = {key: value for key, value in PROFILE_16.items() if key != "transactionId"}
    max16["chargingProfilePurpose"] = "ChargePointMaxProfile"
    assert from_v16(max16).purpose is Purpose.STATION_MAX
    assert to_v201(profile(1, Purpose.STATION_MAX))["chargingProfilePurpose"] == "ChargingStationMaxProfile"
    assert to_v16(profile(1, Purpose.STATION_MAX))["chargingProfilePurpose"] == "ChargePointMaxProfile"
    with pytest.raises(PeerViolation):   # a 2.0.1 name in a 1.6 payload
        from_v16({**max16, "chargingProfilePurpose": "ChargingStationMaxProfile"})


def test_decimals_from_json_text_stay_exact():
    text = json.dumps(PROFILE_16, default=str).replace('"8.1"', "8.1").replace('"6.0"', "6.0")
    p = from_v16(json.loads(text, parse_float=Decimal))
    assert p.schedules[0].periods[0].limit == Decimal("8.1")
    floaty = from_v16(json.loads(text))   # binary floats still come out as 8.1 via str()
    assert floaty.schedules[0].periods[0].limit == Decimal("8.1")
    assert str(floaty.schedules[0].min_charging_rate) == "6.0"


@pytest.mark.parametrize("mutate", [
    lambda d: d.pop("chargingProfileId"),
    lambda d: d.update(stackLevel="0"),
    lambda d: d.update(stackLevel=True),
    lambda d: d.update(chargingProfileKind="Sometimes"),
    lambda d: d["chargingSchedule"].update(startSchedule="2024-01-01T00:00:00"),   # no zone offset
    lambda d: d["chargingSchedule"].update(startSchedule="yesterday"),
    lambda d: d["chargingSchedule"]["chargingSchedulePeriod"][0].update(limit="8.1"),
    lambda d: d["chargingSchedule"].update(chargingSchedulePeriod={}),
    lambda d: d.update(transactionId="42"),   # 1.6 transaction ids are integers
])
def test_malformed_peer_payloads_are_peer_violations(mutate):
    payload = copy.deepcopy(PROFILE_16)
    from_v16(payload)   # valid before the mutation
    mutate(payload)
    with pytest.raises(PeerViolation) as caught:
        from_v16(payload)
    assert caught.value.rule is SmartChargingWire.payload and str(caught.value).startswith("[sc.payload] OCPP 1.6: ")


@pytest.mark.parametrize("make", [
    lambda: profile(1, Purpose.TX_DEFAULT, (0, 6, 1, 2)),                         # phaseToUse
    lambda: profile(1, Purpose.EXTERNAL),                                         # no such purpose
    lambda: profile(1, Purpose.TX, tx="tx-1"),                                    # not an integer id
    lambda: profile(1, Purpose.TX_DEFAULT, extra_schedules=(ChargingSchedule("A", periods((0, 6))),)),
])
def test_what_1_6_cannot_carry_is_our_misuse(make):
    with pytest.raises(HarnessError):
        to_v16(make())


def test_2_0_1_schedules_need_ids():
    with pytest.raises(HarnessError):
        to_v201(from_v16(PROFILE_16))


def test_answer_set_charging_profile_both_versions():
    store = ProfileStore()
    d = answer_set_charging_profile(store, with_tx(station(), 1, "42"),
                                    {"connectorId": 1, "csChargingProfiles": PROFILE_16}, V16)
    assert d.response() == {"status": "Accepted"} and store.installed()[0].profile == from_v16(PROFILE_16)
    request = {"evseId": 1, "chargingProfile": PROFILE_201}
    d = answer_set_charging_profile(ProfileStore(), with_tx(station(), 1, "tx-1"), request, V201)
    assert d.rule.id == "phase-to-use"   # phaseToUse 2 needs a phase-switching station
    d = answer_set_charging_profile(ProfileStore(), with_tx(station(phase_switching=True), 1, "tx-1"), request, V201)
    assert d.response() == {"status": "Accepted"}


def test_set_request_parses_evse_and_profile():
    assert set_request({"evseId": 0, "chargingProfile": PROFILE_201}, V201) == (0, from_v201(PROFILE_201))
    assert set_request({"connectorId": 2, "csChargingProfiles": PROFILE_16}, V16) == (2, from_v16(PROFILE_16))
    with pytest.raises(PeerViolation):
        set_request({"evseId": 0, "csChargingProfiles": PROFILE_16}, V201)


def test_composite_request():
    assert composite_request({"connectorId": 0, "duration": 60}, V16) == (0, 60, None)
    assert composite_request({"evseId": 2, "duration": 9, "chargingRateUnit": "W"}, V201)[2] == "W"


def test_clear_criteria_both_versions():
    assert clear_criteria({}, V16) == ClearCriteria()
    assert clear_criteria({"id": 4, "connectorId": 0, "chargingProfilePurpose": "ChargePointMaxProfile",
                           "stackLevel": 2}, V16) == ClearCriteria(4, 0, Purpose.STATION_MAX, 2)
    assert clear_criteria({"chargingProfileId": 5, "chargingProfileCriteria": {
        "evseId": 1, "chargingProfilePurpose": "ChargingStationExternalConstraints", "stackLevel": 0}}, V201) == \
        ClearCriteria(5, 1, Purpose.EXTERNAL, 0)


def test_report_criteria():
    assert report_criteria({"requestId": 3, "chargingProfile": {}}) == ReportCriteria(3)
    c = report_criteria({"requestId": 3, "evseId": 0, "chargingProfile": {
        "chargingProfilePurpose": "TxDefaultProfile", "stackLevel": 1, "chargingProfileId": [1, 2],
        "chargingLimitSource": ["CSO", "EMS"]}})
    assert c == ReportCriteria(3, 0, Purpose.TX_DEFAULT, 1, frozenset({1, 2}),
                               frozenset({LimitSource.CSO, LimitSource.EMS}))
    for bad in ({"requestId": 3, "chargingProfile": {"chargingProfileId": ["1"]}},
                {"requestId": 3, "chargingProfile": {"chargingLimitSource": ["Grid"]}},
                {"chargingProfile": {}}):
        with pytest.raises(PeerViolation):
            report_criteria(bad)
