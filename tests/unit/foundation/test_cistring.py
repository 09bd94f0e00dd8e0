"""The one comparison of case-insensitive ids and of objects whose null members count as absent."""

from harness.cistring import id_key, same_id, same_ids, same_object
from harness.ocpi import schemas


def test_ids_are_the_same_in_any_case():
    assert same_id("Loc-Case-1a", "LOC-CASE-1A") and same_id("#NA", "#na")
    assert not same_id("LOC-1", "LOC-2")
    assert id_key("Evse-1") == id_key("EVSE-1")
    assert same_ids(["AC-PEAK", "dc"], ["DC", "ac-peak"]) and same_ids(None, [])
    assert not same_ids(["AC-PEAK"], ["AC-PEAK", "DC"])


def test_null_members_count_as_absent_at_every_depth():
    held = {"id": "S1", "meter_id": None, "charging_periods": [{"tariff_id": None, "dimensions": []}]}
    assert same_object(held, {"id": "S1", "charging_periods": [{"dimensions": []}]})
    assert not same_object({"kwh": 0}, {"kwh": None})   # 0 is a value, null is none


def test_only_the_named_members_ignore_case():
    assert same_object({"uid": "Evse-1", "status": "AVAILABLE"}, {"uid": "EVSE-1", "status": "AVAILABLE"}, {"uid"})
    assert not same_object({"status": "AVAILABLE"}, {"status": "available"}, {"uid"})


def test_ocpi_cistring_members_come_from_the_schemas():
    fields = schemas.cistring_fields()
    assert {"country_code", "party_id", "id", "uid", "evse_uid", "tariff_ids", "authorization_reference"} <= fields
    assert "type" not in fields and "status" not in fields   # an enumeration in some object: compared exactly
    assert schemas.same_object({"tariff_ids": ["AC-PEAK"], "total_cost": None}, {"tariff_ids": ["ac-peak"]})
