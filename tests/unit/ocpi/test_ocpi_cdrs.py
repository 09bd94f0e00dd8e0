"""The CDRs core (harness/ocpi/cdrs.py): a CDR's own consistency, against its Session, its Credit CDR,
the cost its one Tariff gives, and the store that keeps CDRs sealed. No socket."""

import copy

import pytest

from harness.errors import PeerViolation
from harness.ocpi import schemas
from harness.ocpi.cdrs import (
    CdrRules, CdrStore, cdr_problems, credit_problems, expected_cost, location_problems, session_problems)

SESSION = {"country_code": "NL", "party_id": "CPO", "id": "SES-1", "start_date_time": "2024-03-01T08:00:00Z",
           "end_date_time": "2024-03-01T09:30:00Z", "kwh": 12.5, "auth_method": "COMMAND",
           "authorization_reference": "AUTH-1", "location_id": "LOC-1", "evse_uid": "EVSE-1", "connector_id": "1",
           "currency": "EUR", "status": "COMPLETED", "last_updated": "2024-03-01T09:30:00Z",
           "cdr_token": {"country_code": "NL", "party_id": "EMS", "uid": "AB12", "type": "RFID",
                         "contract_id": "NL-EMS-C1"}}
TARIFF = {"country_code": "NL", "party_id": "CPO", "id": "T1", "currency": "EUR", "last_updated": "2024-01-01T00:00:00Z",
          "elements": [{"price_components": [{"type": "FLAT", "price": 1.0, "step_size": 1},
                                             {"type": "ENERGY", "price": 0.30, "step_size": 500},
                                             {"type": "PARKING_TIME", "price": 2.0, "step_size": 600}]}]}
CDR = {"country_code": "NL", "party_id": "CPO", "id": "CDR-1", "start_date_time": "2024-03-01T08:00:00Z",
       "end_date_time": "2024-03-01T09:30:00Z", "session_id": "ses-1", "cdr_token": dict(SESSION["cdr_token"]),
       "auth_method": "COMMAND", "authorization_reference": "AUTH-1", "currency": "EUR",
       "cdr_location": {"id": "loc-1", "address": "Stationsplein 1", "city": "Utrecht", "country": "NLD",
                        "coordinates": {"latitude": "52.089444", "longitude": "5.110278"}, "evse_uid": "EVSE-1",
                        "evse_id": "NL*CPO*E1", "connector_id": "1", "connector_standard": "IEC_62196_T2",
                        "connector_format": "SOCKET", "connector_power_type": "AC_3_PHASE"},
       "tariffs": [TARIFF],
       "charging_periods": [
           {"start_date_time": "2024-03-01T08:00:00Z", "tariff_id": "T1",
            "dimensions": [{"type": "ENERGY", "volume": 12.5}, {"type": "TIME", "volume": 1.25}]},
           {"start_date_time": "2024-03-01T09:15:00Z", "tariff_id": "t1",
            "dimensions": [{"type": "PARKING_TIME", "volume": 0.25}]}],
       # 1.00 flat + 12.5 kWh (a whole number of 500 Wh steps) * 0.30 + 15 min parking (1.5 steps of 10 min: 20 min) * 2.00
       "total_cost": {"excl_vat": 5.42, "incl_vat": 6.56}, "total_energy": 12.5, "total_time": 1.5,
       "total_parking_time": 0.25, "last_updated": "2024-03-01T09:35:00Z"}


def rules(found):
    return [row for row, _ in found]


def test_a_consistent_cdr_is_valid_and_has_no_problem():
    schemas.check("cdr", CDR)
    assert cdr_problems(CDR) == []
    assert session_problems(CDR, SESSION) == []


def test_step_size_rounds_up_once_per_session():
    cdr = {**CDR, "total_energy": 5.4, "total_parking_time": 0, "total_time": 1.0}
    assert expected_cost(cdr) == pytest.approx(1.0 + 0.30 * 5.5)   # 5.4 kWh billed in 500 Wh steps: 5.5


def test_restricted_or_several_tariffs_are_not_recomputed():
    restricted = copy.deepcopy(CDR)
    restricted["tariffs"][0]["elements"][0]["restrictions"] = {"start_time": "17:00"}
    assert expected_cost(restricted) is None
    assert expected_cost({**CDR, "tariffs": [TARIFF, {**TARIFF, "id": "T2"}]}) is None


@pytest.mark.parametrize(("change", "rule"), [
    ({"total_time": 2.5}, CdrRules.total_time),
    ({"total_parking_time": 3}, CdrRules.total_time),
    ({"end_date_time": "2024-03-01T07:00:00Z"}, CdrRules.dates_ordered),
    ({"total_energy": 13.5}, CdrRules.energy_consistent),
    ({"currency": "USD"}, CdrRules.currency),
    ({"total_cost": {"excl_vat": 9.99}}, CdrRules.costs),
    ({"total_cost": {"excl_vat": 5.42, "incl_vat": 5.0}}, CdrRules.costs),
    ({"total_fixed_cost": {"excl_vat": 9.0}}, CdrRules.costs),
    ({"id": "X" * 37}, CdrRules.id_length),
    ({"credit": True}, CdrRules.credit_reference),
])
def test_each_inconsistency_names_its_rule(change, rule):
    assert rule in rules(cdr_problems({**CDR, **change}))


def test_periods_out_of_order_outside_or_session_only():
    cdr = copy.deepcopy(CDR)
    cdr["charging_periods"].reverse()
    assert CdrRules.dates_ordered in rules(cdr_problems(cdr))
    cdr = copy.deepcopy(CDR)
    cdr["charging_periods"][1]["start_date_time"] = "2024-03-01T10:00:00Z"
    assert CdrRules.dates_ordered in rules(cdr_problems(cdr))
    cdr = copy.deepcopy(CDR)
    cdr["charging_periods"][0]["dimensions"].append({"type": "STATE_OF_CHARGE", "volume": 80})
    assert rules(cdr_problems(cdr)) == [CdrRules.session_only_dimensions]
    cdr["charging_periods"][0]["tariff_id"] = "T9"
    assert CdrRules.tariff_ids in rules(cdr_problems(cdr))


@pytest.mark.parametrize(("change", "rule"), [
    ({"session_id": "SES-2"}, CdrRules.session_id),
    ({"cdr_token": {**SESSION["cdr_token"], "uid": "CD34"}}, CdrRules.same_token),
    ({"cdr_token": {**SESSION["cdr_token"], "type": "APP_USER"}}, CdrRules.same_token),
    ({"cdr_location": {**CDR["cdr_location"], "evse_uid": "EVSE-2"}}, CdrRules.same_location),
    ({"auth_method": "WHITELIST"}, CdrRules.auth_method),
    ({"authorization_reference": None}, CdrRules.authorization_reference),
    ({"start_date_time": "2024-03-01T08:01:00Z"}, CdrRules.session_times),
    ({"total_energy": 10}, CdrRules.energy_consistent),
])
def test_departures_from_the_session_name_their_rule(change, rule):
    assert rules(session_problems({**CDR, **change}, SESSION)) == [rule]


def test_the_same_instant_and_another_case_are_the_session():
    cdr = {**CDR, "start_date_time": "2024-03-01T08:00:00.000+00:00", "authorization_reference": "auth-1"}
    assert session_problems(cdr, SESSION) == []


def test_credit_cdr_rules():
    good = {**CDR, "id": "CDR-1-C", "credit": True, "credit_reference_id": "cdr-1",
            "total_cost": {"excl_vat": -5.42, "incl_vat": -6.56}}
    assert credit_problems(good, CDR) == []
    assert cdr_problems(good) == []
    assert rules(credit_problems({**good, "id": "cdr-1"}, CDR)) == [CdrRules.credit_id]
    assert rules(credit_problems({**good, "total_cost": CDR["total_cost"]}, CDR)) == [CdrRules.credit_negated]
    assert rules(credit_problems({**good, "credit_reference_id": "CDR-2"}, CDR)) == [CdrRules.credit_reference]


def test_store_keeps_cdrs_sealed_and_reads_them_at_their_url():
    store = CdrStore()
    path = store.post(CDR)
    assert store.at(path)["id"] == "CDR-1" and store.at("CDR-NOWHERE") is None
    assert store.get("nl", "cpo", "cdr-1") is store.at(path)
    with pytest.raises(PeerViolation) as refused:
        store.post({**CDR, "id": "cdr-1", "total_cost": {"excl_vat": 0}})
    assert refused.value.rule is CdrRules.unique_id
    assert store.at(path)["total_cost"] == CDR["total_cost"]
    with pytest.raises(PeerViolation):
        store.post({**CDR, "id": "CDR-2", "charging_periods": []})   # one period at least


def test_cdr_location_against_the_published_location():
    location = {"id": "LOC-1", "address": "Stationsplein 1", "city": "Utrecht", "country": "NLD",
                "coordinates": {"latitude": "52.089444", "longitude": "5.110278"},
                "evses": [{"uid": "evse-1", "connectors": [{"id": "1", "standard": "IEC_62196_T2", "format": "SOCKET",
                                                             "power_type": "AC_3_PHASE"}]}]}
    assert location_problems(CDR, location) == []
    moved = {**CDR, "cdr_location": {**CDR["cdr_location"], "city": "Amersfoort", "connector_format": "CABLE"}}
    assert rules(location_problems(moved, location)) == [CdrRules.location_details] * 2
