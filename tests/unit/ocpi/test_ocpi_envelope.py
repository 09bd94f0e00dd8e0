import json
from datetime import datetime, timedelta, timezone

import pytest

from harness.errors import HarnessError, PeerViolation
from harness.ocpi.envelope import (
    EnvelopeRules, StatusCode, StatusError, build, expect_success, is_success, meaning, outcome, parse)
from harness.ocpi.pagination import PaginationRules
from harness.ocpi.timestamps import format_datetime, parse_datetime

NOON = datetime(2024, 5, 1, 12, 0, 0, tzinfo=timezone.utc)


def body(**members) -> str:
    return json.dumps(members)


# -- timestamps ---------------------------------------------------------------------------------

@pytest.mark.parametrize("text, expected", [
    ("2024-05-01T12:00:00Z", NOON),
    ("2024-05-01T12:00:00", NOON),                      # no zone means UTC
    ("2024-05-01T12:00:00+00:00", NOON),
    ("2024-05-01t12:00:00z", NOON),                     # RFC 3339 allows lower case
    ("2024-05-01T12:00:00.5Z", NOON.replace(microsecond=500000)),
    ("2024-05-01T12:00:00.123456789Z", NOON.replace(microsecond=123456)),
])
def test_parse_datetime_accepts_every_utc_form(text, expected):
    assert parse_datetime(text) == expected


@pytest.mark.parametrize("text", ["2024-05-01T14:00:00+02:00", "2024-05-01 12:00:00Z", "2024-05-01",
                                  "2024-13-01T12:00:00Z", "yesterday"])
def test_parse_datetime_rejects_non_utc_and_garbage(text):
    with pytest.raises(ValueError):
        parse_datetime(text)


def test_format_datetime_writes_whole_seconds_in_utc_with_z():
    moment = datetime(2024, 5, 1, 14, 0, 0, 999999, tzinfo=timezone(timedelta(hours=2)))
    assert format_datetime(moment) == "2024-05-01T12:00:00Z"


def test_format_datetime_refuses_a_naive_datetime():
    with pytest.raises(HarnessError):
        format_datetime(datetime(2024, 5, 1, 12))


# -- building -----------------------------------------------------------------------------------

def test_build_success_with_data():
    assert build({"id": "1"}, now=NOON) == {"data": {"id": "1"}, "status_code": 1000,
                                            "timestamp": "2024-05-01T12:00:00Z"}


def test_build_error_leaves_out_data_instead_of_null():
    built = build(status_code=StatusCode.UNSUPPORTED_VERSION, status_message="no 2.2.1", now=NOON)
    assert built == {"status_code": 3002, "status_message": "no 2.2.1", "timestamp": "2024-05-01T12:00:00Z"}
    assert type(built["status_code"]) is int


def test_status_error_carries_its_answer():
    error = StatusError(PaginationRules.query, "limit is not a positive integer", status_code=StatusCode.INVALID_PARAMETERS)
    assert error.http_status == 200
    assert error.envelope(NOON) == {"status_code": 2001, "status_message": "limit is not a positive integer",
                                    "timestamp": "2024-05-01T12:00:00Z"}


# -- status codes -------------------------------------------------------------------------------

@pytest.mark.parametrize("code, success", [(1000, True), (1999, True), (999, False), (2000, False),
                                           (3001, False), (4000, False)])
def test_is_success_is_the_1xxx_range(code, success):
    assert is_success(code) is success


def test_meaning_names_known_codes_and_ranges():
    assert meaning(3001) == "unable to use the client's API"
    assert meaning(2004) == "unknown Token"
    assert meaning(2999) == "client error"
    assert meaning(4003) == "connection problem at the hub"
    assert meaning(200) == "not an OCPI status code"


def test_every_code_of_the_standard_is_defined():
    assert sorted(StatusCode) == [1000, 2000, 2001, 2002, 2003, 2004, 3000, 3001, 3002, 3003,
                                  4000, 4001, 4002, 4003]
    assert all(meaning(code) != "not an OCPI status code" for code in StatusCode)


# -- parsing ------------------------------------------------------------------------------------

def test_parse_reads_a_complete_envelope():
    envelope = parse(body(data=[{"version": "2.2.1", "url": "https://x/2.2.1"}], status_code=1000,
                          status_message="OK", timestamp="2024-05-01T12:00:00.25Z"))
    assert envelope.ok
    assert envelope.data == [{"version": "2.2.1", "url": "https://x/2.2.1"}]
    assert envelope.status_message == "OK"
    assert envelope.timestamp == NOON.replace(microsecond=250000)


def test_parse_accepts_bytes_and_absent_or_null_data():
    assert parse(body(status_code=2001, timestamp="2024-05-01T12:00:00Z").encode()).data is None
    assert parse(body(data=None, status_code=1000, timestamp="2024-05-01T12:00:00Z")).ok


@pytest.mark.parametrize("text, rule, fragment", [
    ("<html>Not Found</html>", EnvelopeRules.json_object, "not valid JSON"),
    ("[1000]", EnvelopeRules.json_object, "not a JSON object"),
    (body(timestamp="2024-05-01T12:00:00Z"), EnvelopeRules.required_fields, "status_code is missing"),
    (body(status_code="1000", timestamp="2024-05-01T12:00:00Z"), EnvelopeRules.required_fields, "not an integer"),
    (body(status_code=True, timestamp="2024-05-01T12:00:00Z"), EnvelopeRules.required_fields, "not an integer"),
    (body(status_code=1000), EnvelopeRules.required_fields, "timestamp is missing"),
    (body(status_code=1000, timestamp="01/05/2024"), EnvelopeRules.required_fields, "not a DateTime"),
    (body(status_code=1000, timestamp=1714564800), EnvelopeRules.required_fields, "not a DateTime"),
    (body(status_code=1000, timestamp="2024-05-01T12:00:00Z", status_message=42), EnvelopeRules.optional_fields,
     "status_message"),
    (body(status_code=1000, timestamp="2024-05-01T12:00:00Z", data=5), EnvelopeRules.optional_fields, "data"),
])
def test_parse_names_what_is_wrong(text, rule, fragment):
    with pytest.raises(PeerViolation) as caught:
        parse(text)
    assert caught.value.rule == rule
    assert fragment in str(caught.value)


def test_expect_success_returns_data():
    assert expect_success(200, body(data={"a": 1}, status_code=1000, timestamp="2024-05-01T12:00:00Z")) == {"a": 1}


def test_expect_success_rejects_an_http_error():
    with pytest.raises(PeerViolation) as caught:
        expect_success(404, body(status_code=1000, timestamp="2024-05-01T12:00:00Z"))
    assert (caught.value.rule, caught.value.actual) == (EnvelopeRules.success, 404)


def test_expect_success_rejects_an_error_code_in_a_200():
    with pytest.raises(PeerViolation) as caught:
        expect_success(200, body(status_code=2001, timestamp="2024-05-01T12:00:00Z"))
    assert caught.value.actual == 2001
    assert "invalid or missing parameters" in str(caught.value)


@pytest.mark.parametrize("http_status, text, ok, shown", [
    (200, body(status_code=1000, timestamp="2024-05-01T12:00:00Z"), True, "HTTP 200, status_code 1000 (success)"),
    (201, body(status_code=1001, timestamp="2024-05-01T12:00:00Z"), True, "HTTP 201, status_code 1001 (success)"),
    (401, body(status_code=1000, timestamp="2024-05-01T12:00:00Z"), False, "HTTP 401, status_code 1000 (success)"),
    (200, body(status_code=2001, timestamp="2024-05-01T12:00:00Z"), False,
     "HTTP 200, status_code 2001 (invalid or missing parameters)"),
    (404, "<html>Not Found</html>", False, "HTTP 404, no status_code"),
])
def test_outcome_reads_an_answer_without_judging_it(http_status, text, ok, shown):
    said = outcome(http_status, text)
    assert (said.ok, str(said)) == (ok, shown)


def test_a_body_nested_past_the_limit_is_refused_at_the_limit_and_not_before():
    """read_json refuses JSON nested deeper than MAX_DEPTH levels, in text or bytes (UTF-8 or UTF-16), brackets inside
    strings aside; a body at the limit passes, whatever it holds."""
    from harness.ocpi.envelope import read_json
    from harness.ocpp.framing import MAX_DEPTH, deeper_than

    def nested(levels: int) -> str:
        return "".join('{"a": ' if n % 2 else "[" for n in range(levels)) + "1" + "".join(
            "}" if n % 2 else "]" for n in reversed(range(levels)))

    for levels in (MAX_DEPTH, MAX_DEPTH + 1):
        text = nested(levels)
        too_deep = levels > MAX_DEPTH
        assert deeper_than(json.loads(text), MAX_DEPTH) is too_deep
        for body in (text, text.encode(), text.encode("utf-16")):
            if too_deep:
                with pytest.raises(ValueError, match=f"deeper than {MAX_DEPTH}"):
                    read_json(body)
            else:
                assert read_json(body) == json.loads(text)
    brackets = json.dumps({"data": [{"name": "[" * 200}], "n": [[1], {"k": [2]}]})
    assert read_json(brackets)["n"] == [[1], {"k": [2]}]
    wide = [[{"x": [1, 2, {"y": []}]} for _ in range(40)] for _ in range(3)]
    assert [deeper_than(wide, limit) for limit in (4, 5, 6)] == [True, True, False]
