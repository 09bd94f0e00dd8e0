import json

import pytest
from jsonschema import Draft202012Validator

import ocpi_examples
from harness.errors import HarnessError, PeerViolation
from harness.ocpi import schemas
from harness.ocpi.envelope import build
from harness.ocpi.schemas import SchemaRules, SchemaViolation, Violation, check, schema_dir, validate


def messages(name, instance) -> list[str]:
    return [str(violation) for violation in validate(name, instance)]


def test_schema_dir_is_the_repository_folder():
    assert schema_dir() == schemas.Path(schemas.__file__).resolve().parents[2] / "schemas" / "ocpi"
    assert (schema_dir() / "location.json").is_file()


def test_every_schema_file_is_valid_draft_2020_12_with_its_own_id():
    for name in schemas.names():
        schema = json.loads((schema_dir() / f"{name}.json").read_text())
        assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
        Draft202012Validator.check_schema(schema)   # the harness reads them unchecked (schemas._schemas)
        assert schema["$id"].endswith(f"/ocpi/{name}.json")
        assert "$comment" in schema, f"{name}.json says nowhere where its rules come from"


def test_the_required_schemas_exist():
    assert {"credentials", "credentials_role", "business_details", "image", "version", "version_list",
            "version_details", "endpoint", "location", "evse", "connector", "parking", "evse_parking",
            "geo_location", "additional_geo_location", "display_text", "hours", "publish_token", "session",
            "cdr_token", "charging_period", "price", "charging_preferences", "response"} <= set(schemas.names())


def test_unknown_schema_name_is_our_bug():
    with pytest.raises(HarnessError):
        validate("locaton", {})


# -- valid examples -----------------------------------------------------------------------------

@pytest.mark.parametrize("name, example", [
    ("location", ocpi_examples.location), ("session", ocpi_examples.session),
    ("credentials", ocpi_examples.credentials),
])
def test_realistic_examples_are_valid(name, example):
    assert validate(name, example()) == []
    check(name, example())


def test_evse_and_connector_validate_on_their_own():
    evse = ocpi_examples.location()["evses"][0]
    assert validate("evse", evse) == [] and validate("connector", evse["connectors"][0]) == []


def test_response_envelope_as_we_build_it():
    assert validate("response", build({"id": "1"})) == []
    assert messages("response", {"status_code": 1000}) == ["timestamp: required"]


def test_minimal_location_with_only_required_fields():
    minimal = {key: value for key, value in ocpi_examples.location().items()
               if key in ("country_code", "party_id", "id", "publish", "address", "city", "country",
                          "coordinates", "time_zone", "last_updated")}
    assert validate("location", minimal) == []


def test_unknown_fields_are_accepted_at_every_level():
    location = ocpi_examples.location()
    location["x_vendor"] = {"anything": 1}
    location["evses"][0]["connectors"][0]["x_extra"] = True
    assert validate("location", location) == []


def test_null_optional_fields_count_as_absent():
    location = ocpi_examples.location()
    location["name"] = None
    location["evses"][0]["evse_id"] = None
    assert validate("location", location) == []


def test_charging_preferences():
    assert validate("charging_preferences", {"profile_type": "GREEN", "departure_time": "2024-03-01T17:00:00Z",
                                             "energy_need": 32.5, "discharge_allowed": False}) == []
    assert messages("charging_preferences", {"profile_type": "ECO"}) == [
        "profile_type: must be one of CHEAP, FAST, GREEN, REGULAR"]


def test_open_enums_take_unknown_values_closed_ones_do_not():
    location = ocpi_examples.location()
    connector = location["evses"][0]["connectors"][0]
    connector["standard"] = "FUTURE_PLUG"              # ConnectorType: OpenEnum
    location["evses"][0]["capabilities"].append("NEW_CAPABILITY")
    assert validate("location", location) == []
    connector["format"] = "WIRELESS"                   # ConnectorFormat: closed
    assert messages("location", location) == ["evses[0].connectors[0].format: must be one of SOCKET, CABLE"]


# -- invalid examples, naming the field ---------------------------------------------------------

def test_missing_required_deep_inside():
    location = ocpi_examples.location()
    del location["evses"][0]["connectors"][0]["max_voltage"]
    assert messages("location", location) == ["evses[0].connectors[0].max_voltage: required"]


def test_null_required_field_is_missing():
    session = ocpi_examples.session()
    session["cdr_token"]["uid"] = None
    assert messages("session", session) == ["cdr_token.uid: required"]


def test_too_long_cistring():
    location = ocpi_examples.location()
    location["evses"][0]["uid"] = "U" * 37
    assert messages("location", location) == ["evses[0].uid: at most 36 characters"]


def test_cistring_refuses_non_ascii_and_string_refuses_control_characters():
    location = ocpi_examples.location()
    location["party_id"] = "VÖL"
    location["address"] = "Damrak\n1"
    found = messages("location", location)
    assert found[0] == "address: must match ^[^\\u0000-\\u001f\\u007f]*$"
    assert found[1] == "party_id: must match ^[ -~]*$"


def test_wrong_type():
    session = ocpi_examples.session()
    session["kwh"] = "14.2"
    assert messages("session", session) == ["kwh: must be of type number"]
    connector = ocpi_examples.location()["evses"][0]["connectors"][0]
    connector["max_voltage"] = 230.5
    assert messages("connector", connector) == ["max_voltage: must be of type integer"]


@pytest.mark.parametrize("latitude", ["52.1", "152.370216", "52,370216", "52.37021600", "+52.370216"])
def test_bad_latitude_pattern(latitude):
    location = ocpi_examples.location()
    location["coordinates"]["latitude"] = latitude
    assert {v.path for v in validate("location", location)} == {"coordinates.latitude"}


@pytest.mark.parametrize("latitude", ["-52.37021", "5.1234567", "0.00000"])
def test_good_latitudes(latitude):
    assert validate("geo_location", {"latitude": latitude, "longitude": "-179.123456"}) == []


def test_length_limit_holds_where_the_grammar_would_allow_more():
    # The grammar allows a minus, 2 digits, a dot and 7 decimals (11 characters), string(10) does not.
    assert messages("geo_location", {"latitude": "-52.3702160", "longitude": "4.895168"}) == [
        "latitude: at most 10 characters"]


@pytest.mark.parametrize("stamp, valid", [
    ("2024-03-01T10:30:05Z", True), ("2024-03-01T10:30:05.123Z", True), ("2024-03-01T10:30:05", True),
    ("2024-03-01T10:30:05+00:00", True), ("2024-03-01T11:30:05+01:00", False), ("2024-03-01", False),
    ("2024-03-01T10:30:05Z\n", False),
])
def test_datetime_grammar(stamp, valid):
    session = ocpi_examples.session()
    session["last_updated"] = stamp
    assert (validate("session", session) == []) is valid


def test_empty_connector_list_and_missing_dimensions():
    location = ocpi_examples.location()
    location["evses"][0]["connectors"] = []
    assert messages("location", location) == ["evses[0].connectors: must not be empty"]
    session = ocpi_examples.session()
    del session["charging_periods"][0]["dimensions"]
    assert messages("session", session) == ["charging_periods[0].dimensions: required"]


def test_publish_allowed_to_only_when_not_published():
    location = ocpi_examples.location()
    location["publish_allowed_to"] = [{"visual_number": "12345-67", "issuer": "Voltaro"}]
    assert messages("location", location) == ["publish_allowed_to: must be absent or empty"]
    location["publish"] = False
    assert validate("location", location) == []


def test_publish_token_rules():
    assert messages("publish_token", {}) == ["(object): needs at least one of uid, visual_number, group_id"]
    assert messages("publish_token", {"uid": "0123"}) == ["type: required when uid is present"]


def test_hours_need_regular_hours_unless_always_open():
    assert messages("hours", {"twentyfourseven": False}) == ["regular_hours: required"]
    assert messages("hours", {"twentyfourseven": True, "regular_hours": [
        {"weekday": 1, "period_begin": "08:00", "period_end": "18:00"}]}) == ["regular_hours: must be absent or empty"]
    assert messages("hours", {"twentyfourseven": False, "regular_hours": [
        {"weekday": 8, "period_begin": "8:00", "period_end": "18:00"}]}) == [
        "regular_hours[0].period_begin: must match ^([0-1][0-9]|2[0-3]):[0-5][0-9]$",
        "regular_hours[0].weekday: must be <= 7"]


def test_credentials_token_rules():
    body = ocpi_examples.credentials()
    body["token"] = "ZXhhbXBsZS10b2tlbg==\n"
    assert messages("credentials", body) == ["token: must match ^[!-~]+$"]
    body["token"] = "t" * 65
    assert messages("credentials", body) == ["token: at most 64 characters"]
    body = ocpi_examples.credentials()
    body["roles"] = []
    assert messages("credentials", body) == ["roles: must not be empty"]


def test_check_raises_a_peer_violation_naming_the_field():
    location = ocpi_examples.location()
    del location["evses"][0]["connectors"][0]["max_voltage"]
    location["evses"][0]["uid"] = "U" * 37
    with pytest.raises(SchemaViolation) as caught:
        check("location", location)
    error = caught.value
    assert isinstance(error, PeerViolation) and error.rule == SchemaRules.valid
    assert str(error).startswith("[ocpi.schemas.valid] evses[0].connectors[0].max_voltage: required (and 1 more)")
    assert error.expected == "a valid location (schemas/ocpi/location.json)"
    assert error.violations == [Violation("evses[0].connectors[0].max_voltage", "required"),
                                Violation("evses[0].uid", "at most 36 characters")]


def test_a_value_of_no_json_type_deep_in_an_object_goes_to_the_detailed_validator():
    """The quick validator reads a tuple as an array and a Decimal as a number; only an object made of JSON's own types
    is passed on its word (``schemas._plain``), wherever the other type sits: a member, an item, a list in a list."""
    from decimal import Decimal

    assert schemas._plain({"a": [1, 2.5, "x", None, True, {"b": [[]]}]})
    for odd in ({"a": (1,)}, {"a": [Decimal("1.5")]}, {"a": [[{"b": (2,)}]]}, {1: "key not text"}, [{"a": b"x"}]):
        assert not schemas._plain(odd), odd
