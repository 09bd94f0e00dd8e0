"""Validation against the official OCA schemas shipped in the ``ocpp`` package (harness/ocpp/schemas.py)."""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal

import pytest

from harness.ocpp import schemas
from harness.ocpp.errors import FORMAT, OCCURRENCE, PROPERTY, TYPE
from harness.ocpp.framing import parse
from harness.ocpp.schemas import SchemaViolation, error_code, known_actions, validate
from harness.ocpp.versions import OcppVersion
from ocpp_cases import AUTHORIZE_FAULTS

V16, V201, V21 = OcppVersion.V16, OcppVersion.V201, OcppVersion.V21

# OCPP 1.6 edition 2, "Operations by direction": every core operation must have a schema.
CORE_16 = {
    "Authorize", "BootNotification", "DiagnosticsStatusNotification", "FirmwareStatusNotification", "Heartbeat",
    "MeterValues", "StartTransaction", "StatusNotification", "StopTransaction", "DataTransfer",
    "CancelReservation", "ChangeAvailability", "ChangeConfiguration", "ClearCache", "ClearChargingProfile",
    "GetCompositeSchedule", "GetConfiguration", "GetDiagnostics", "GetLocalListVersion",
    "RemoteStartTransaction", "RemoteStopTransaction", "ReserveNow", "Reset", "SendLocalList",
    "SetChargingProfile", "TriggerMessage", "UnlockConnector", "UpdateFirmware",
}
LIMIT_PATH = "csChargingProfiles.chargingSchedule.chargingSchedulePeriod[0].limit"


def set_charging_profile_16(limit) -> dict:
    """A 1.6 SetChargingProfile request with one period at ``limit`` amperes."""
    return {"connectorId": 1, "csChargingProfiles": {
        "chargingProfileId": 1, "stackLevel": 0, "chargingProfilePurpose": "TxDefaultProfile",
        "chargingProfileKind": "Relative",
        "chargingSchedule": {"chargingRateUnit": "A",
                             "chargingSchedulePeriod": [{"startPeriod": 0, "limit": limit}]}}}


# ----------------------------------------------------------------------------- what exists
@pytest.mark.parametrize("action, in_16, in_201, in_21", [
    ("Authorize", True, True, True),
    ("BootNotification", True, True, True),
    ("Heartbeat", True, True, True),
    ("TransactionEvent", False, True, True),
    ("StartTransaction", True, False, False),
    ("StopTransaction", True, False, False),
    ("NotifySettlement", False, False, True),
    ("NotifyPeriodicEventStream", False, False, True),
    ("AuthorizeResponse", False, False, False),
    ("AuthorizeRequest", False, False, False),
])
def test_known_actions_come_from_the_installed_schemas_of_each_version(action, in_16, in_201, in_21):
    """Schemas: an action exists in a version when the ocpp package has its request schema."""
    assert (action in known_actions(V16), action in known_actions(V201), action in known_actions(V21)) == \
        (in_16, in_201, in_21)


def test_every_1_6_core_operation_has_a_schema():
    """Schemas: all 28 operations of 1.6 edition 2 are known."""
    assert CORE_16 <= known_actions(V16)


@pytest.mark.parametrize("version", list(OcppVersion))
def test_no_action_name_keeps_a_file_suffix(version):
    """Schemas: action names are stripped of '.json', 'Request', and response files are left out."""
    for name in known_actions(version):
        assert not name.endswith(("Response", "Request", ".json")), name


@pytest.mark.parametrize("version, action", [
    (V16, "TransactionEvent"), (V201, "StartTransaction"), (V201, "NotifySettlement"), (V21, "NoSuchAction"),
])
def test_unknown_action_raises_key_error(version, action):
    """Schemas: validating an action the version does not define raises KeyError."""
    with pytest.raises(KeyError):
        validate(version, action, "request", {})


# ----------------------------------------------------------------------------- valid payloads
@pytest.mark.parametrize("version, action, direction, payload", [
    (V16, "Authorize", "request", {"idTag": "A" * 20}),
    (V16, "Authorize", "response", {"idTagInfo": {"status": "Accepted"}}),
    (V16, "Heartbeat", "request", {}),
    (V201, "Authorize", "request", {"idToken": {"idToken": "04A2", "type": "ISO14443"}}),
    (V201, "BootNotification", "response",
     {"currentTime": "2024-01-01T00:00:00Z", "interval": 300, "status": "Accepted"}),
    (V201, "Heartbeat", "request", {"customData": {"vendorId": "org.example", "anything": 1}}),
    (V21, "NotifyPeriodicEventStream", "request",
     {"id": 1, "pending": 0, "basetime": "2024-01-01T00:00:00Z", "data": [{"t": 0, "v": "7.5"}]}),
])
def test_valid_payloads_have_no_violations(version, action, direction, payload):
    """Schemas: a payload that follows its schema yields [] (CustomDataType stays open; 2.1 SEND-only schemas load)."""
    assert validate(version, action, direction, payload) == []


# ----------------------------------------------------------------------------- violations
@pytest.mark.parametrize("version, action, direction, payload, path, keyword, kind", [
    (V16, "Authorize", "request", {}, "", "required", OCCURRENCE),
    (V16, "Authorize", "request", {"idTag": "A" * 21}, "idTag", "maxLength", PROPERTY),
    (V16, "Authorize", "request", {"idTag": 42}, "idTag", "type", TYPE),
    (V16, "Heartbeat", "request", {"extra": 1}, "", "additionalProperties", FORMAT),
    (V16, "Authorize", "response", {"idTagInfo": {"status": "Fine"}}, "idTagInfo.status", "enum", PROPERTY),
    (V201, "Authorize", "request", {"idToken": {"idToken": "04A2", "type": "Bogus"}}, "idToken.type", "enum",
     PROPERTY),
    (V201, "Authorize", "request", {"idToken": {"type": "ISO14443"}}, "idToken", "required", OCCURRENCE),
    (V201, "BootNotification", "response", {"currentTime": "2024-01-01T00:00:00Z", "status": "Accepted"},
     "", "required", OCCURRENCE),
    (V21, "NotifyPeriodicEventStream", "request",
     {"id": 1, "pending": 0, "basetime": "2024-01-01T00:00:00Z", "data": []}, "data", "minItems", OCCURRENCE),
])
def test_violation_names_json_path_keyword_and_kind(version, action, direction, payload, path, keyword, kind):
    """Schemas: the first violation says where (JSON path, '' for the payload itself) and which keyword failed."""
    first = validate(version, action, direction, payload)[0]
    assert (first.path, first.keyword, first.kind) == (path, keyword, kind)


def test_every_violation_is_listed_shallowest_first_then_in_schema_order():
    """Schemas: all faults are listed; the payload-level one leads (it picks our CALLERROR code), the rest follow
    the schema's property order."""
    payload = set_charging_profile_16(Decimal("16.05"))
    payload.update(connectorId="1", extra=1)
    found = validate(V16, "SetChargingProfile", "request", payload)
    assert [(v.path, v.keyword) for v in found] == [
        ("", "additionalProperties"), ("connectorId", "type"), (LIMIT_PATH, "multipleOf")]
    assert error_code(V16, found) == "FormationViolation"


@pytest.mark.parametrize("version, payload, code", AUTHORIZE_FAULTS)
def test_error_code_for_an_invalid_request_follows_the_first_violation(version, payload, code):
    """Schemas: the CALLERROR code we send is the canonical code of the first violation's kind."""
    assert error_code(version, validate(version, "Authorize", "request", payload)) == code


def test_unknown_keyword_counts_as_a_format_fault():
    """Schemas: a keyword with no kind of its own (oneOf, const, ...) is a structure (format) fault."""
    assert SchemaViolation("x", "oneOf", "m").kind == FORMAT


def test_violation_text_names_the_field_or_the_payload():
    """Schemas: the text shows path, message and keyword; an empty path reads '(payload)'."""
    assert str(SchemaViolation("idTag", "maxLength", "too long")) == "idTag: too long [maxLength]"
    assert str(SchemaViolation("", "required", "'idTag' is missing")) == "(payload): 'idTag' is missing [required]"


# ----------------------------------------------------------------------------- Decimal exactness
@pytest.mark.parametrize("limit", [Decimal("16.1"), Decimal("16"), 16, Decimal("0.1"), 16.1, 32.0])
def test_1_6_limit_with_at_most_one_decimal_passes_multiple_of(limit):
    """Schemas/Limits: 1.6 'limit' is multipleOf 0.1; 16.1 passes exactly (a binary float 16.1 would not)."""
    assert validate(V16, "SetChargingProfile", "request", set_charging_profile_16(limit)) == []


@pytest.mark.parametrize("limit", [Decimal("16.05"), Decimal("0.01"), 16.05])
def test_1_6_limit_with_two_decimals_fails_multiple_of(limit):
    """Schemas/Limits: 16.05 has two fraction digits, so multipleOf 0.1 rejects it at the period's path."""
    found = validate(V16, "SetChargingProfile", "request", set_charging_profile_16(limit))
    assert [(v.path, v.keyword, v.kind) for v in found] == [(LIMIT_PATH, "multipleOf", PROPERTY)]


@pytest.mark.parametrize("number, ok", [("16.1", True), ("16.05", False), ("7", True)])
def test_limit_received_as_text_is_judged_on_the_digits_sent(number, ok):
    """Schemas/framing.text: a frame parsed from text keeps the peer's digits all the way to the schema check."""
    text = ('[2,"x","SetChargingProfile",{"connectorId":1,"csChargingProfiles":{"chargingProfileId":1,'
            '"stackLevel":0,"chargingProfilePurpose":"TxDefaultProfile","chargingProfileKind":"Relative",'
            '"chargingSchedule":{"chargingRateUnit":"A","chargingSchedulePeriod":[{"startPeriod":0,"limit":%s}]}}}]'
            % number)
    call = parse(text, V16)
    assert (validate(V16, call.action, "request", call.payload) == []) is ok


# ----------------------------------------------------------------------------- compiled once
@pytest.mark.parametrize("build", [schemas.compiled, schemas.detailed])
def test_validators_are_compiled_once_per_version_action_and_direction(build):
    """Schemas: the second look-up of the fast or the detailed validator returns the same one from the cache."""
    first = build(V201, "Authorize", "request")
    hits = build.cache_info().hits
    assert build(V201, "Authorize", "request") is first
    assert build.cache_info().hits == hits + 1
    assert build(V201, "Authorize", "response") is not first
    assert build(V21, "Authorize", "request") is not first


def test_1_6_schemas_use_draft_4_and_2x_draft_6():
    """Schemas: 1.6 schemas are draft-04, 2.0.1/2.1 draft-06, each judged by its own draft on both paths."""
    assert schemas.detailed(V16, "Authorize", "request").META_SCHEMA["$schema"].endswith("draft-04/schema#")
    assert schemas.detailed(V201, "Authorize", "request").META_SCHEMA["$schema"].endswith("draft-06/schema#")
    assert type(schemas.compiled(V16, "Authorize", "request")).__name__ == "Draft4Validator"
    assert type(schemas.compiled(V201, "Authorize", "request")).__name__ == "Draft6Validator"


def test_only_a_rejected_payload_is_walked_by_the_detailed_validator(monkeypatch):
    """Schemas: a valid payload is judged by the compiled validator alone; an invalid one gets the detailed report."""
    walked = []
    real = schemas.detailed
    monkeypatch.setattr(schemas, "detailed", lambda *key: walked.append(key) or real(*key))
    assert validate(V201, "Authorize", "request", {"idToken": {"idToken": "04A2", "type": "ISO14443"}}) == []
    assert walked == []
    assert validate(V201, "Authorize", "request", {"idToken": {"idToken": "04A2"}})[0].keyword == "required"
    assert walked == [(V201, "Authorize", "request")]


def test_known_actions_are_read_once():
    """Schemas: the action list of a version is cached, not re-read from disk."""
    assert known_actions(V21) is known_actions(V21)


# ----------------------------------------------------------------------------- date-time
@pytest.mark.parametrize("value, in_2x, in_16", [
    ("2024-01-01T00:00:00Z", True, True),
    ("2024-01-01T23:59:59.123456+02:00", True, True),
    ("2016-12-31T23:59:60Z", True, True),            # a leap second
    ("2024-01-01T00:00:00", False, True),            # no zone: ISO 8601 local time, not RFC 3339
    ("2024-01-01T00:00:00+0200", False, True),       # ISO 8601 basic offset
    ("2024-01-01 00:00:00Z", False, False),
    ("2024-13-01T00:00:00Z", False, False),
    ("2024-02-30T00:00:00Z", False, False),
    ("2024-02-29T00:00:00Z", True, True),            # a leap year
    ("2000-02-29T00:00:00Z", True, True),
    ("2023-02-29T00:00:00Z", False, False),
    ("2100-02-29T00:00:00Z", False, False),
    ("2024-04-31T00:00:00Z", False, False),
    ("2024-00-10T00:00:00Z", False, False),
    ("٢٠٢٤-01-01T00:00:00Z", False, False),          # digits are ASCII digits
    ("2024-01-01T24:00:00Z", False, False),
    ("2024-01-01T00:00:61", False, False),
    ("2024-01-01T00:00:00+24:00", False, False),
    ("yesterday", False, False),
    ("", False, False),
])
def test_date_time_is_rfc_3339_in_2x_and_iso_8601_in_16(value, in_2x, in_16):
    """format date-time is asserted: RFC 3339 in 2.x; 1.6 takes ISO 8601 without a zone too (spec 002 rule 9)."""
    assert schemas.is_date_time(V201, value) is in_2x
    assert schemas.is_date_time(V16, value) is in_16
    boot = {"currentTime": value, "interval": 300, "status": "Accepted"}
    assert [(v.path, v.keyword, v.kind) for v in validate(V201, "BootNotification", "response", boot)] == \
        ([] if in_2x else [("currentTime", "format", PROPERTY)])
    assert [(v.path, v.keyword) for v in validate(V16, "Heartbeat", "response", {"currentTime": value})] == \
        ([] if in_16 else [("currentTime", "format")])


def test_a_bad_date_time_in_a_request_is_answered_property_constraint_violation():
    """A timestamp that is no date-time is a field with an invalid value, in both versions' codes."""
    status = {"connectorId": 1, "errorCode": "NoError", "status": "Available", "timestamp": "yesterday"}
    assert error_code(V16, validate(V16, "StatusNotification", "request", status)) == "PropertyConstraintViolation"
    event = {"eventType": "Started", "timestamp": "2024-01-01T00:00:00", "triggerReason": "Authorized", "seqNo": 0,
             "transactionInfo": {"transactionId": "T1"}}
    assert error_code(V201, validate(V201, "TransactionEvent", "request", event)) == "PropertyConstraintViolation"


# ----------------------------------------------------------------------------- the compiled path's edges
@pytest.mark.parametrize("value, ok", [
    (Decimal("16.1"), True), (Decimal("16.05"), False), (16.1, True), (16.05, False), (0.3, True), (7, True), (0, True),
    (Decimal("-0.2"), True), (Decimal("0E-50"), True), (Decimal("16.1000000000000000001"), False),
    (Decimal("1E+999999999"), True), (Decimal("1E-999999999"), False), (Decimal("1." + "0" * 6000), True),
    (Decimal("1." + "0" * 6000 + "1"), False), (Decimal("NaN"), False), (float("inf"), False),
])
def test_multiple_of_is_judged_on_the_decimal_digits_at_any_size(value, ok):
    """Schemas/Limits: is_multiple is exact, a float on its shortest repr, and instant for huge exponents
    (jsonschema's own Decimal remainder raises past 28 digits)."""
    assert schemas.is_multiple(value, Decimal("0.1")) is ok


def test_a_huge_1_6_limit_is_judged_not_crashed_on():
    """Schemas/Limits: a peer's 1E+400 limit is a multiple of 0.1 on both paths; 1E-400 is a violation."""
    assert validate(V16, "SetChargingProfile", "request", set_charging_profile_16(Decimal("1E+400"))) == []
    found = validate(V16, "SetChargingProfile", "request", set_charging_profile_16(Decimal("1E-400")))
    assert [(v.path, v.keyword) for v in found] == [(LIMIT_PATH, "multipleOf")]


@pytest.mark.parametrize("interval, in_2x, in_16", [
    (300, True, True), (Decimal("300.0"), True, False), (300.0, True, False), (Decimal("3E+2"), True, False),
    (Decimal("300.5"), False, False),
])
def test_a_number_with_a_zero_fraction_is_an_integer_in_draft_6_only(interval, in_2x, in_16):
    """Schemas: draft 6 (2.x) takes 300.0 as an integer, parsed as a Decimal or built as a float; draft 4 (1.6) not."""
    boot_2x = {"currentTime": "2024-01-01T00:00:00Z", "interval": interval, "status": "Accepted"}
    assert (validate(V201, "BootNotification", "response", boot_2x) == []) is in_2x
    boot_16 = {"currentTime": "2024-01-01T00:00:00Z", "interval": interval, "status": "Accepted"}
    assert (validate(V16, "BootNotification", "response", boot_16) == []) is in_16


def test_a_value_that_is_no_json_is_reported_at_its_field():
    """Schemas: a datetime object the harness forgot to format is a type fault at its field, not a crash."""
    found = validate(V201, "Heartbeat", "response", {"currentTime": datetime(2024, 1, 1)})
    assert [(v.path, v.keyword) for v in found] == [("currentTime", "type")]


def test_a_tuple_is_an_array_on_both_paths():
    """Schemas: a tuple the harness built is sent as a JSON array, so both validators take it as one."""
    assert validate(V16, "GetConfiguration", "request", {"key": ("HeartbeatInterval",)}) == []
    assert schemas.compiled(V16, "GetConfiguration", "request").is_valid({"key": ("HeartbeatInterval",)})
    assert schemas.detailed(V16, "GetConfiguration", "request").is_valid({"key": ("HeartbeatInterval",)})
