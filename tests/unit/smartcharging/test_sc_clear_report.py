"""ClearChargingProfile and GetChargingProfiles selection (rules K1-K3), worked out by hand.

Installed on every test:
  1 STATION_MAX @0 stack 0 (CSO)   2 TX_DEFAULT @0 stack 1 (CSO)   3 TX_DEFAULT @1 stack 3 (CSO)
  4 TX @1 stack 1, tx-1 (CSO)      5 EXTERNAL @0 (EMS)             6 EXTERNAL @1 (SO)
"""

from __future__ import annotations

import pytest

from harness.ocpp.schemas import validate as schema_validate
from harness.smartcharging import (
    LimitSource, ProfileStore, Purpose, answer_clear_charging_profile, clear_criteria, report_criteria,
)
from sc_builders import V16, V201, profile, station, with_tx

ALL = {1, 2, 3, 4, 5, 6}


def installed(version=V201):
    st = with_tx(station(), 1, "tx-1" if version is V201 else "1")
    store = ProfileStore()
    for evse, p in ((0, profile(1, Purpose.STATION_MAX)), (0, profile(2, Purpose.TX_DEFAULT, stack=1)),
                    (1, profile(3, Purpose.TX_DEFAULT, stack=3)),
                    (1, profile(4, Purpose.TX, stack=1, tx="tx-1" if version is V201 else "1"))):
        assert store.install(st, evse, p, version).accepted
    assert store.install_external(st, 0, profile(5, Purpose.EXTERNAL)).accepted
    assert store.install_external(st, 1, profile(6, Purpose.EXTERNAL), LimitSource.SO).accepted
    return store


CLEAR_201 = [
    # K1: an id selects that profile only
    ({"chargingProfileId": 3}, "Accepted", {3}),
    ({"chargingProfileId": 99}, "Unknown", set()),
    # K1: the id wins over criteria that would select others
    ({"chargingProfileId": 3, "chargingProfileCriteria": {"evseId": 0}}, "Accepted", {3}),
    # K2: external constraints are never cleared, even by id
    ({"chargingProfileId": 5}, "Unknown", set()),
    # K1: evseId 0 is the station level only; external spared (K2)
    ({"chargingProfileCriteria": {"evseId": 0}}, "Accepted", {1, 2}),
    ({"chargingProfileCriteria": {"chargingProfilePurpose": "TxDefaultProfile"}}, "Accepted", {2, 3}),
    # K1: all given criteria must match
    ({"chargingProfileCriteria": {"chargingProfilePurpose": "TxDefaultProfile", "evseId": 1}}, "Accepted", {3}),
    ({"chargingProfileCriteria": {"stackLevel": 1}}, "Accepted", {2, 4}),
    ({"chargingProfileCriteria": {"stackLevel": 1, "chargingProfilePurpose": "TxProfile"}}, "Accepted", {4}),
    ({"chargingProfileCriteria": {"stackLevel": 3, "chargingProfilePurpose": "TxProfile"}}, "Unknown", set()),
    # K2: only external profiles match: Unknown
    ({"chargingProfileCriteria": {"chargingProfilePurpose": "ChargingStationExternalConstraints"}}, "Unknown",
     set()),
    ({"chargingProfileCriteria": {"evseId": 2}}, "Unknown", set()),
    # K1: no criterion at all selects every profile the CSMS may clear
    ({}, "Accepted", {1, 2, 3, 4}),
]


@pytest.mark.parametrize("payload,status,removed", CLEAR_201)
def test_clear_2_0_1(payload, status, removed):
    store = installed()
    answer = answer_clear_charging_profile(store, payload, V201)
    assert answer == {"status": status}
    assert not schema_validate(V201, "ClearChargingProfile", "response", answer)
    assert {e.profile.id for e in store.installed()} == ALL - removed


CLEAR_16 = [
    ({"id": 1}, "Accepted", {1}),
    ({"connectorId": 0, "chargingProfilePurpose": "ChargePointMaxProfile"}, "Accepted", {1}),
    ({"connectorId": 1}, "Accepted", {3, 4}),
    ({"stackLevel": 7}, "Unknown", set()),
]


@pytest.mark.parametrize("payload,status,removed", CLEAR_16)
def test_clear_1_6(payload, status, removed):
    store = installed(V16)
    result = store.clear(clear_criteria(payload, V16))
    assert result.response() == {"status": status}
    assert {e.profile.id for e in result.removed} == removed
    assert {e.profile.id for e in store.installed()} == ALL - removed


REPORT = [
    # K3: everything, one report per (evse, source) in evse then source order, tbc on all but the last
    ({}, [(0, "CSO", [1, 2]), (0, "EMS", [5]), (1, "CSO", [3, 4]), (1, "SO", [6])]),
    ({"evseId": 0}, [(0, "CSO", [1, 2]), (0, "EMS", [5])]),
    ({"evseId": 1, "chargingProfile": {"chargingLimitSource": ["CSO"]}}, [(1, "CSO", [3, 4])]),
    ({"chargingProfile": {"chargingProfileId": [2, 3], "chargingProfilePurpose": "TxDefaultProfile"}},
     [(0, "CSO", [2]), (1, "CSO", [3])]),
    ({"chargingProfile": {"chargingProfileId": [2], "stackLevel": 5}}, []),   # every criterion filters
    ({"chargingProfile": {"chargingProfilePurpose": "ChargingStationExternalConstraints"}},
     [(0, "EMS", [5]), (1, "SO", [6])]),
    ({"evseId": 2}, []),
]


@pytest.mark.parametrize("extra,expected", REPORT)
def test_get_charging_profiles_report(extra, expected):
    store = installed()
    payload = {"requestId": 42, "chargingProfile": {}, **extra}
    report = store.report(report_criteria(payload))
    assert report.response() == {"status": "Accepted" if expected else "NoProfiles"}
    assert not schema_validate(V201, "GetChargingProfiles", "response", report.response())
    got = [(r["evseId"], r["chargingLimitSource"], [p["id"] for p in r["chargingProfile"]]) for r in report.requests]
    assert got == expected
    assert [r["tbc"] for r in report.requests] == [True] * (len(expected) - 1) + [False] * bool(expected)
    for r in report.requests:
        assert r["requestId"] == 42
        assert not schema_validate(V201, "ReportChargingProfiles", "request", r)


def test_reported_txprofile_keeps_its_transaction():
    report = installed().report(report_criteria({"requestId": 1, "chargingProfile": {
        "chargingProfilePurpose": "TxProfile"}}))
    [request] = report.requests
    assert request["chargingProfile"][0]["transactionId"] == "tx-1"


@pytest.mark.parametrize("evse, source, released", [
    (0, LimitSource.EMS, {5}), (1, LimitSource.SO, {6}),
    (1, LimitSource.EMS, set()),   # K4: another source's limit stays
    (0, LimitSource.SO, set()),    # K4: the same source at another EVSE stays
])
def test_release_external_removes_that_source_at_that_evse_only(evse, source, released):
    store = installed()
    assert {e.profile.id for e in store.release_external(evse, source)} == released
    assert {e.profile.id for e in store.installed()} == ALL - released
