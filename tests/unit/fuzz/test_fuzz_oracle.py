"""The fuzzer's generator and oracle, without a socket: a valid payload is valid, a mutation breaks its
payload in the one way it says (the harness's validator, an independent reader of the schemas, agrees
on the kind), the same seed makes the same frames, and the judges tell a right answer from a wrong one."""

import json
import random
from collections import Counter

import pytest

from harness.fuzz import ocpi as ocpi_fuzz
from harness.fuzz.ocpp import CODES, DEPTHS, NO_ID, TOO_DEEP, Expect, Frames, handled_actions, judge
from harness.fuzz.schema_data import OCCURRENCE, TYPE, mutate, overlong, valid
from harness.ocpp import schemas
from harness.ocpp.errors import KEYWORD_KIND
from harness.ocpp.versions import OcppVersion
from harness.reference.compose import references_for
from harness.reference.ocpi.peer import KEPT
from harness.transport.ws import HISTORY_KEPT, MAX_FRAME, VIOLATIONS_KEPT
from harness.wire import PASSING_KEPT


@pytest.mark.parametrize("version", list(OcppVersion), ids=lambda v: v.value)
def test_valid_payloads_are_valid_and_each_mutation_breaks_its_payload_the_way_it_says(version):
    rng = random.Random(3)
    for action in sorted(schemas.known_actions(version)):
        root = schemas._schema(version, action, "request")
        for _ in range(4):
            payload = valid(root, rng)
            assert schemas.validate(version, action, "request", payload) == [], (action, payload)
            broken = mutate(root, payload, rng)
            if broken is None:
                continue
            changed, mutation = broken
            problems = schemas.validate(version, action, "request", changed)
            assert problems, (action, mutation)
            assert KEYWORD_KIND.get(problems[0].keyword, "format") == mutation.kind, (action, mutation, problems[0])


def test_a_retyped_field_is_never_null_where_null_counts_as_absent():
    root = {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]}
    for seed in range(200):
        broken = mutate(root, {"a": "x"}, random.Random(seed), null=False)
        assert broken is None or broken[0].get("a", "") is not None


def _frames(seed: int, version=OcppVersion.V201) -> Frames:
    csms, station = references_for(version)
    return Frames(version, "csms", random.Random(seed), takes=handled_actions(csms), others=handled_actions(station))


def test_the_same_seed_makes_the_same_frames():
    first, second = _frames(5), _frames(5)
    assert [first.next().data for _ in range(300)] == [second.next().data for _ in range(300)]


def test_the_warm_up_reaches_every_bound_a_connection_keeps_and_sends_the_largest_frames():
    """The memory baseline is taken after the warm-up: by then the receiver must hold as many exchanges
    and violations as it ever will, and have parsed the deepest payload the run sends."""
    frames = _frames(3).warm_up()
    kinds = Counter(frame.expect.fault for frame in frames)
    assert kinds["valid"] >= HISTORY_KEPT and sum(kinds.values()) - kinds["valid"] >= VIOLATIONS_KEPT
    assert max(len(frame.data) for frame in frames if frame.expect.fault == TOO_DEEP) > 2 * max(DEPTHS)


@pytest.mark.parametrize("receiver", ["csms", "cs"])
def test_no_over_long_array_the_run_sends_is_larger_than_the_warm_ups_frame_of_its_action(receiver):
    """The largest parse is the allocator's high-water mark: the warm-up must have made it before the baseline."""
    csms, station = references_for(OcppVersion.V201)
    takes, others = (csms, station) if receiver == "csms" else (station, csms)
    frames = Frames(OcppVersion.V201, receiver, random.Random(4), takes=handled_actions(takes), others=handled_actions(others))
    warm_up = {json.loads(frame.data)[2]: len(frame.data) for frame in map(frames._longest, frames.takes)}
    rng, compared = random.Random(5), 0
    for action in frames.takes:
        root = schemas._schema(OcppVersion.V201, action, "request")
        for _ in range(10):
            for payload, mutation in overlong(root, valid(root, rng), rng):
                size = len(frames._call("fz-1", action, payload))
                assert size <= warm_up[action] or size > MAX_FRAME, (action, mutation, size, warm_up[action])
                compared += 1
    assert compared > 40 and max(warm_up.values()) > 100_000


def test_the_oracle_wants_the_code_of_the_fault_with_the_frames_id():
    expect = Expect("type", "x", frozenset({"fz-1"}), CODES[TYPE][True])
    assert judge(OcppVersion.V201, expect, [4, "fz-1", "TypeConstraintViolation", "", {}]) is None
    assert "expected one of" in judge(OcppVersion.V201, expect, [4, "fz-1", "FormatViolation", "", {}])
    assert "message id" in judge(OcppVersion.V201, expect, [4, "fz-2", "TypeConstraintViolation", "", {}])
    assert "expected a CALLERROR" in judge(OcppVersion.V201, expect, [3, "fz-1", {}])
    assert "ErrorDescription of 256" in judge(OcppVersion.V201, expect, [4, "fz-1", "TypeConstraintViolation", "x" * 256, {}])


def test_the_occurrence_code_is_taken_in_either_spelling_and_1_6_also_takes_protocol_error():
    for code in ("OccurrenceConstraintViolation", "OccurenceConstraintViolation", "ProtocolError"):
        expect = Expect(OCCURRENCE, "x", frozenset({"fz-1"}), CODES[OCCURRENCE][False])
        assert judge(OcppVersion.V16, expect, [4, "fz-1", code, "", {}]) is None
    expect = Expect(OCCURRENCE, "x", frozenset({"fz-1"}), CODES[OCCURRENCE][True])
    assert judge(OcppVersion.V201, expect, [4, "fz-1", "ProtocolError", "", {}]) is not None


def test_text_without_a_usable_id_is_answered_with_id_minus_one():
    frames = _frames(9)
    frame = next(f for f in (frames.next() for _ in range(2000)) if f.expect.fault == NO_ID)
    assert frame.expect.ids == {"-1"} or "-1" in frame.expect.ids
    assert judge(OcppVersion.V201, frame.expect, [4, "-1", "RpcFrameworkError", "", {}]) is None


def test_a_valid_call_wants_a_schema_valid_callresult():
    expect = Expect("valid", "valid Heartbeat", frozenset({"fz-1"}), None, "Heartbeat")
    assert judge(OcppVersion.V201, expect, [3, "fz-1", {"currentTime": "2024-05-01T12:00:00Z"}]) is None
    assert "breaks its schema" in judge(OcppVersion.V201, expect, [3, "fz-1", {}])
    assert "CALLERROR" in judge(OcppVersion.V201, expect, [4, "fz-1", "NotSupported", "", {}])


# ------------------------------------------------------------------------------ OCPI
def _request(statuses, codes, request_id="r1"):
    return ocpi_fuzz.Request("GET", "/x", {"X-Request-ID": request_id}, b"",
                             ocpi_fuzz.Expect("k", "a GET", frozenset(statuses), frozenset(codes)))


def _envelope(code: int) -> bytes:
    return json.dumps({"status_code": code, "timestamp": "2024-05-01T12:00:00Z"}).encode()


def test_the_ocpi_oracle_wants_an_envelope_the_status_and_the_echoed_request_id():
    request = _request({404}, ocpi_fuzz.CLIENT_ERRORS)
    assert ocpi_fuzz.judge(request, 404, {"x-request-id": "r1"}, _envelope(2000)) is None
    assert "no JSON" in ocpi_fuzz.judge(request, 500, {"x-request-id": "r1"}, b"Traceback (most recent call last)")
    assert "no OCPI envelope" in ocpi_fuzz.judge(request, 404, {"x-request-id": "r1"}, b'{"detail": "Not Found"}')
    assert "expected HTTP [404]" in ocpi_fuzz.judge(request, 200, {"x-request-id": "r1"}, _envelope(1000))
    assert "echoed as None" in ocpi_fuzz.judge(request, 404, {}, _envelope(2000))


def test_inlined_schemas_stand_alone():
    from harness.ocpi import schemas as ocpi_schemas
    location = ocpi_fuzz.inline(ocpi_schemas._schemas(), "location.json")
    assert "$ref" not in json.dumps(location) and "evses" in location["properties"]


def test_the_ocpi_warm_up_names_as_many_new_tokens_as_the_redactor_keeps_and_fills_the_records():
    """Each credentials request names a new token, masked in passing (the newest ``PASSING_KEPT``): the warm-up
    fills that bound, and as many requests follow as the platform keeps served requests and violations."""
    endpoints = {module: f"http://127.0.0.1:1/ocpi/2.2.1/{module}"
                 for module in ("credentials", "locations", "sessions", "tariffs")}
    endpoints |= {"versions": "http://127.0.0.1:1/ocpi/versions", "details": "http://127.0.0.1:1/ocpi/2.2.1"}
    requests = ocpi_fuzz.Requests("cpo", random.Random(4), endpoints=endpoints, token="c", token_a="a",
                                  location={"id": "L1"}, location_schema={})
    warm_up = requests.warm_up()
    tokens = {json.loads(request.body)["token"] for request in warm_up if request.expect.fault == "credentials"}
    assert len(tokens) >= PASSING_KEPT and len(warm_up) - PASSING_KEPT > KEPT
