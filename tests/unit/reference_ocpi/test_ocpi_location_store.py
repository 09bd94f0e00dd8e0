"""The locations core's store and the reference peer's test data: worked through by hand on small Locations."""

import copy

import pytest

from harness.errors import HarnessError
from harness.ocpi import schemas
from harness.ocpi.envelope import StatusCode, StatusError
from harness.ocpi.locations import LocationRules, LocationStore, Target, coordinate_problems
from harness.ocpi.schemas import SchemaRules
from harness.reference.ocpi.locations import build_location, profile_locations, sample_locations

LOCATION = build_location("NL", "CPO", "Loc-1", [("E1", ["1", "2"])], "2024-03-01T09:00:00Z")


def store() -> LocationStore:
    return LocationStore([LOCATION])


def code(error: pytest.ExceptionInfo) -> tuple[int, int]:
    return error.value.status_code, error.value.http_status


def test_built_and_sample_locations_are_valid_and_ordered():
    for location in [LOCATION, *sample_locations("NL", "REF", 3),
                     *profile_locations("NL", "REF", [{"id": "X", "evses": [{"uid": "E"}]}])]:
        assert schemas.validate("location", location) == []
    stamps = [loc["last_updated"] for loc in sample_locations("NL", "REF", 3)]
    assert stamps == sorted(set(stamps))


def test_ids_are_case_insensitive_and_echoed_as_stored():
    found = store().get("nl", "cpo", Target(("LOC-1", "e1", "2")))
    assert found["id"] == "2"
    assert store().get_owned(Target(("loc-1",)))["id"] == "Loc-1"


def test_unknown_object_is_2003_with_404():
    with pytest.raises(StatusError) as error:
        store().get_owned(Target(("Loc-1", "E9")))
    assert code(error) == (StatusCode.UNKNOWN_LOCATION, 404)


def test_target_needs_one_to_three_ids():
    with pytest.raises(HarnessError):
        Target(())
    assert Target(("a", "b", "c")).kind == "connector"


def test_put_new_and_replacing_location():
    locations = LocationStore()
    assert locations.put("NL", "CPO", Target(("Loc-1",)), copy.deepcopy(LOCATION)) is True
    assert locations.put("NL", "CPO", Target(("LOC-1",)), copy.deepcopy(LOCATION)) is False
    assert len(locations.all()) == 1


@pytest.mark.parametrize("url, change, rule", [
    (("NL", "OTHER", ("Loc-1",)), {}, LocationRules.put),                      # the URL's party differs
    (("NL", "CPO", ("Loc-2",)), {}, LocationRules.put),                        # id of the URL differs
    (("NL", "CPO", ("Loc-1",)), {"address": None}, SchemaRules.valid),         # a required field is missing
])
def test_put_that_breaks_a_rule_gets_2001(url, change, rule):
    body = {k: v for k, v in {**copy.deepcopy(LOCATION), **change}.items() if v is not None}
    with pytest.raises(StatusError) as error:
        LocationStore().put(url[0], url[1], Target(url[2]), body)
    assert (error.value.status_code, error.value.rule) == (StatusCode.INVALID_PARAMETERS, rule)


def test_schema_fault_names_the_field():
    body = copy.deepcopy(LOCATION)
    del body["evses"][0]["uid"]
    with pytest.raises(StatusError, match=r"evses\[0\]\.uid: required"):
        LocationStore().put("NL", "CPO", Target(("Loc-1",)), body)


def test_connector_put_bumps_evse_and_location():
    locations = store()
    connector = {**LOCATION["evses"][0]["connectors"][0], "id": "3", "last_updated": "2024-05-01T00:00:00Z"}
    assert locations.put("NL", "CPO", Target(("Loc-1", "E1", "3")), connector) is True
    assert locations.get("NL", "CPO", Target(("Loc-1", "E1")))["last_updated"] == "2024-05-01T00:00:00Z"
    assert locations.get("NL", "CPO", Target(("Loc-1",)))["last_updated"] == "2024-05-01T00:00:00Z"


def test_evse_put_under_an_unknown_location_is_2003():
    with pytest.raises(StatusError) as error:
        store().put("NL", "CPO", Target(("Nowhere", "E1")), copy.deepcopy(LOCATION["evses"][0]))
    assert code(error) == (StatusCode.UNKNOWN_LOCATION, 404)


def test_patch_changes_only_its_fields_and_propagates():
    locations = store()
    locations.patch("NL", "CPO", Target(("Loc-1", "E1")), {"status": "CHARGING", "last_updated": "2024-04-01T00:00:00Z"})
    evse = locations.get("NL", "CPO", Target(("Loc-1", "E1")))
    assert evse["status"] == "CHARGING" and len(evse["connectors"]) == 2
    assert locations.get("NL", "CPO", Target(("Loc-1",)))["last_updated"] == "2024-04-01T00:00:00Z"


def test_older_child_does_not_set_the_parent_back():
    locations = store()
    locations.patch("NL", "CPO", Target(("Loc-1", "E1", "1")), {"tariff_ids": ["X"], "last_updated": "2023-01-01T00:00:00Z"})
    assert locations.get("NL", "CPO", Target(("Loc-1",)))["last_updated"] == "2024-03-01T09:00:00Z"


@pytest.mark.parametrize("changes, rule", [
    ({"status": "CHARGING"}, LocationRules.patch_last_updated),
    ({"status": "FLYING", "last_updated": "2024-04-01T00:00:00Z"}, SchemaRules.valid),
    ({"uid": "E2", "last_updated": "2024-04-01T00:00:00Z"}, LocationRules.patch),     # changes the id
    (["not", "an", "object"], LocationRules.patch),
])
def test_bad_patch_gets_2001_and_changes_nothing(changes, rule):
    locations = store()
    with pytest.raises(StatusError) as error:
        locations.patch("NL", "CPO", Target(("Loc-1", "E1")), changes)
    assert (error.value.status_code, error.value.rule) == (StatusCode.INVALID_PARAMETERS, rule)
    assert locations.get("NL", "CPO", Target(("Loc-1", "E1")))["status"] == "AVAILABLE"


def test_removed_evse_stays():
    locations = store()
    locations.patch("NL", "CPO", Target(("Loc-1", "E1")), {"status": "REMOVED", "last_updated": "2024-04-01T00:00:00Z"})
    assert locations.get("NL", "CPO", Target(("Loc-1", "E1")))["status"] == "REMOVED"


def test_a_private_location_is_unpublished_and_valid():
    private = profile_locations("NL", "REF", [{"id": "HOME", "evses": [{"uid": "E"}], "private": True}])[0]
    assert private["publish"] is False and private["publish_allowed_to"] == [{"group_id": "HOME-OWNERS"}]
    assert schemas.validate("location", private) == []


@pytest.mark.parametrize(("latitude", "longitude", "problem"), [
    ("52.089444", "5.110278", None), ("-90.00000", "-180.0000000", None),
    ("52.1", "5.110278", "not a decimal-degree string"), ("52.089444", 5.110278, "not a decimal-degree string"),
    ("95.089444", "5.110278", "beyond +-90"), ("52.089444", "181.00000", "beyond +-180"),
])
def test_coordinate_problems(latitude, longitude, problem):
    location = {**LOCATION, "evses": [{**LOCATION["evses"][0], "coordinates": {"latitude": latitude,
                                                                              "longitude": longitude}}]}
    problems = coordinate_problems(location)
    assert problems == [] if problem is None else (len(problems) == 1 and problem in problems[0])


def test_a_null_member_is_kept_as_absent():
    """A Location PUT with evses null (spec 000: a null member counts as absent) takes an EVSE PUT
    below it; before, the store walked the null and broke."""
    locations = LocationStore()
    bare = {**LOCATION, "evses": None, "name": None}
    assert locations.put("NL", "CPO", Target(("Loc-1",)), bare) is True
    assert locations.put("NL", "CPO", Target(("Loc-1", "E9")), LOCATION["evses"][0] | {"uid": "E9"}) is True
    held = locations.get("NL", "CPO", Target(("Loc-1",)))
    assert [evse["uid"] for evse in held["evses"]] == ["E9"] and "name" not in held
