"""One end of an OCPP-J connection (harness/ocpp/rpc.py, table Rpc): two endpoints talk through their outboxes."""

from __future__ import annotations

import json

import pytest

from harness.errors import HarnessError
from harness.ocpp.framing import Call, CallError, CallResult, CallResultError, FrameError
from harness.ocpp.rpc import (
    CallReceived, CallTimedOut, ErrorReceived, RawReplyReceived, ResultErrorReceived, ResultReceived, RpcEndpoint,
    SendReceived, Violation,
)
from harness.ocpp.versions import OcppVersion
from ocpp_cases import AUTHORIZE_FAULTS

V16, V201, V21 = OcppVersion.V16, OcppVersion.V201, OcppVersion.V21
NOW = "2024-01-01T00:00:00Z"
HEARTBEAT_ANSWER = {"currentTime": NOW}
AUTHORIZE = {V16: {"idTag": "TAG-1"}, V201: {"idToken": {"idToken": "TAG-1", "type": "ISO14443"}},
             V21: {"idToken": {"idToken": "TAG-1", "type": "ISO14443"}}}
STREAM = {"id": 1, "pending": 0, "basetime": NOW, "data": [{"t": 0, "v": "7.5"}]}


@pytest.fixture
def link():
    """``link(version, **options)`` -> (a, b): two endpoints of one connection."""
    def make(version=V201, **options):
        return RpcEndpoint(version, **options), RpcEndpoint(version)
    return make


def deliver(source: RpcEndpoint, target: RpcEndpoint, now: float = 0.0) -> list:
    """Write everything in ``source``'s outbox to ``target``; the events ``target`` raised, in order."""
    events = []
    for text in source.outbox():
        events.extend(target.receive(text, now))
    return events


def sent(endpoint: RpcEndpoint) -> list:
    """The frames ``endpoint`` wants to write, decoded."""
    return [json.loads(text) for text in endpoint.outbox()]


def only(events: list, kind: type):
    """The single event of ``kind`` in ``events``."""
    matching = [e for e in events if isinstance(e, kind)]
    assert len(matching) == 1, events
    return matching[0]


def rules(events: list) -> list[tuple[str, bool]]:
    """(rule id, strict) of each Violation in ``events``."""
    return [(e.error.rule.id, e.error.strict) for e in events if isinstance(e, Violation)]


def peer_call(a: RpcEndpoint, b: RpcEndpoint, action="Heartbeat", payload=None, now=0.0) -> Call:
    """``a`` calls ``b``; the CALL ``b`` received."""
    a.call(action, {} if payload is None else payload, now)
    return only(deliver(a, b, now), CallReceived).call


# ----------------------------------------------------------------------------- rpc.queue
def test_call_goes_out_at_once_as_a_call_frame(link):
    """rpc.queue: with nothing in flight a CALL is written at once, with a fresh id of at most 36 characters."""
    a, _ = link()
    call = a.call("Heartbeat", {}, 0.0)
    assert a.outbox() == ['[2,"%s","Heartbeat",{}]' % call.id]
    assert 0 < len(call.id) <= 36
    assert a.in_flight == call and a.queued == ()


def test_ids_of_our_calls_are_unique(link):
    """rpc.queue: every CALL of ours gets its own id."""
    a, b = link()
    ids = set()
    for now in range(5):
        ids.add(a.call("Heartbeat", {}, now).id)
        b.answer(only(deliver(a, b), CallReceived).call, HEARTBEAT_ANSWER)
        deliver(b, a)
    assert len(ids) == 5


def test_second_call_waits_until_the_first_is_answered(link):
    """rpc.queue: a second CALL is queued while the first is unanswered, and released by the CALLRESULT."""
    a, b = link()
    first = a.call("Heartbeat", {}, 0.0)
    second = a.call("Authorize", AUTHORIZE[V201], 1.0)
    assert only(deliver(a, b), CallReceived).call == first  # only the first went out
    assert a.queued == (second,) and a.in_flight == first
    b.answer(first, HEARTBEAT_ANSWER)
    events = deliver(b, a, 2.0)
    assert events == [ResultReceived(first, CallResult(first.id, HEARTBEAT_ANSWER), [])]
    assert a.in_flight == second and a.queued == ()
    assert a.outbox() == ['[2,"%s","Authorize",{"idToken":{"idToken":"TAG-1","type":"ISO14443"}}]' % second.id]


def test_callerror_releases_the_next_call(link):
    """rpc.queue: a CALLERROR answers the CALL just as a CALLRESULT does."""
    a, b = link()
    first = peer_call(a, b)
    second = a.call("Heartbeat", {}, 1.0)
    b.answer_error(first, "InternalError", "busy")
    events = deliver(b, a, 2.0)
    assert events == [ErrorReceived(first, CallError(first.id, "InternalError", "busy", {}), [])]
    assert sent(a) == [[2, second.id, "Heartbeat", {}]]


def test_timeout_releases_the_next_call_only_once_the_deadline_is_reached(link):
    """rpc.queue: the first CALL times out at now + call_timeout; polling then sends the queued one."""
    a, _ = link(call_timeout=10.0)
    first = a.call("Heartbeat", {}, 100.0)
    second = a.call("Heartbeat", {}, 101.0)
    a.outbox()
    assert a.next_deadline() == 110.0
    assert a.poll(109.9) == [] and a.outbox() == []
    assert a.poll(110.0) == [CallTimedOut(first)]
    assert sent(a) == [[2, second.id, "Heartbeat", {}]]
    assert a.next_deadline() == 120.0  # the released call's deadline counts from when it went out
    assert a.poll(125.0) == [CallTimedOut(second)]
    assert a.in_flight is None and a.next_deadline() is None


def test_next_deadline_is_the_earliest_of_call_and_raw_reply(link):
    """rpc.queue: the caller sleeps until the earliest deadline: our CALL or a raw frame awaiting its reply."""
    a, _ = link(call_timeout=30.0)
    assert a.next_deadline() is None
    a.send_raw("[2,\"r\",\"Heartbeat\",{}]", 5.0, reply_id="r")
    assert a.next_deadline() == 35.0
    a.call("Heartbeat", {}, 1.0)
    assert a.next_deadline() == 31.0
    a.poll(31.0)
    assert a.next_deadline() == 35.0
    a.poll(35.0)
    assert a.next_deadline() is None


def test_answers_to_the_peer_go_out_while_our_calls_wait(link):
    """rpc.queue: only CALLs queue; our answer to the peer's CALL is written at once."""
    a, b = link()
    a.call("Heartbeat", {}, 0.0)
    queued = a.call("Heartbeat", {}, 0.0)
    a.outbox()
    theirs = peer_call(b, a)
    a.answer(theirs, HEARTBEAT_ANSWER)
    assert sent(a) == [[3, theirs.id, HEARTBEAT_ANSWER]]
    assert a.queued == (queued,)


# ----------------------------------------------------------------------------- rpc.matches and rpc.late
def test_answer_to_no_call_of_ours_is_a_strict_violation(link):
    """rpc.matches: an answer whose id matches no CALL of ours is the peer's fault."""
    a, _ = link()
    ours = a.call("Heartbeat", {}, 0.0)
    events = a.receive('[3,"someone-else",{"currentTime":"%s"}]' % NOW, 1.0)
    assert rules(events) == [("rpc.matches", True)]
    assert events[0].error.actual == "someone-else" and events[0].error.expected == ours.id
    assert a.in_flight == ours  # still waiting for the real answer


def test_callerror_to_no_call_is_a_strict_violation(link):
    """rpc.matches: the same holds for a CALLERROR, even with nothing in flight."""
    a, _ = link()
    assert rules(a.receive('[4,"nobody","GenericError","",{}]', 0.0)) == [("rpc.matches", True)]


def test_late_answer_after_timeout_is_only_a_finding(link):
    """rpc.late: an answer to a CALL that already timed out is a non-strict violation and changes nothing."""
    a, b = link(call_timeout=5.0)
    call = peer_call(a, b)
    assert a.poll(5.0) == [CallTimedOut(call)]
    b.answer(call, HEARTBEAT_ANSWER)
    events = deliver(b, a, 6.0)
    assert rules(events) == [("rpc.late", False)]
    assert a.in_flight is None


def test_answer_is_matched_once(link):
    """rpc.matches: after its answer, a second answer with the same id is to no CALL of ours."""
    a, b = link()
    call = peer_call(a, b)
    b.answer(call, HEARTBEAT_ANSWER)
    text = b.outbox()[0]
    assert isinstance(a.receive(text, 1.0)[0], ResultReceived)
    assert rules(a.receive(text, 2.0)) == [("rpc.matches", True)]


# ----------------------------------------------------------------------------- rpc.schema, our side
@pytest.mark.parametrize("version, action, payload", [
    (V201, "Authorize", {}),
    (V16, "Authorize", {"idTag": "T" * 21}),
    (V16, "Heartbeat", {"unexpected": 1}),
    (V201, "StartTransaction", {}),  # not an action of 2.0.1
])
def test_our_invalid_call_is_a_harness_error_and_nothing_is_sent(link, version, action, payload):
    """rpc.schema: a CALL of ours that breaks its schema is our bug: HarnessError, nothing written or queued."""
    a, _ = link(version)
    with pytest.raises(HarnessError):
        a.call(action, payload, 0.0)
    assert a.outbox() == [] and a.in_flight is None and a.queued == ()


def test_validate_false_lets_an_invalid_call_through(link):
    """rpc.schema: a test may send an invalid payload on purpose, per call or for the whole endpoint."""
    a, _ = link()
    call = a.call("Authorize", {}, 0.0, validate=False)
    assert a.outbox() == ['[2,"%s","Authorize",{}]' % call.id]
    lax, _ = link(validate=False)
    lax.call("Authorize", {"idToken": 7}, 0.0)
    assert len(lax.outbox()) == 1


def test_our_invalid_answer_is_a_harness_error_and_the_call_stays_unanswered(link):
    """rpc.schema: an invalid answer of ours raises; the peer's CALL can still be answered properly."""
    a, b = link()
    call = peer_call(a, b)
    with pytest.raises(HarnessError):
        b.answer(call, {})
    assert b.outbox() == [] and b.unanswered_peer_calls == (call,)
    b.answer(call, {}, validate=False)
    assert b.outbox() == ['[3,"%s",{}]' % call.id]
    assert b.unanswered_peer_calls == ()


# ----------------------------------------------------------------------------- rpc.schema, the peer's side
@pytest.mark.parametrize("version, payload, code", AUTHORIZE_FAULTS)
def test_peer_invalid_call_is_answered_with_the_canonical_code(link, version, payload, code):
    """rpc.schema: the peer's schema-invalid CALL is refused with the version's code for the fault, and reported."""
    a, b = link(version, validate=False)
    call = a.call("Authorize", payload, 0.0)
    events = deliver(a, b)
    assert rules(events) == [("rpc.schema", True)]
    assert not any(isinstance(e, CallReceived) for e in events)  # the application never sees it
    [reply] = sent(b)
    assert (reply[0], reply[1], reply[2], reply[4]) == (4, call.id, code, {})
    assert b.unanswered_peer_calls == ()


def test_peer_invalid_call_is_passed_on_when_validation_is_off():
    """rpc.schema: an endpoint with validate=False hands even an invalid CALL to the application."""
    a = RpcEndpoint(V201, validate=False)
    b = RpcEndpoint(V201, validate=False)
    call = a.call("Authorize", {}, 0.0)
    assert deliver(a, b) == [CallReceived(call)]


def test_peer_invalid_callresult_is_delivered_with_a_violation(link):
    """rpc.schema: an invalid answer still answers the CALL; the event carries the schema violation."""
    a, b = link()
    call = peer_call(a, b)
    b.answer(call, {"currentTime": NOW, "extra": 1}, validate=False)
    result = only(deliver(b, a), ResultReceived)
    assert result.call == call and result.result.payload == {"currentTime": NOW, "extra": 1}
    assert [(v.rule.id, v.strict) for v in result.violations] == [("rpc.schema", True)]
    assert a.in_flight is None


def test_callresult_to_an_action_without_schema_is_delivered_not_crashed(link):
    """rpc.schema: if we sent an unknown action on purpose and the peer answers CALLRESULT, we report it, not crash."""
    a, b = link()
    call = a.call("NoSuchAction", {}, 0.0, validate=False)
    a.outbox()
    events = a.receive('[3,"%s",{}]' % call.id, 1.0)
    assert events == [ResultReceived(call, CallResult(call.id, {}), [])]


# ----------------------------------------------------------------------------- rpc.one_at_a_time
@pytest.mark.parametrize("version, strict", [(V16, False), (V201, True), (V21, True)])
def test_peer_pipelining_calls_is_a_violation_strict_only_in_2x(link, version, strict):
    """rpc.one_at_a_time: a second CALL before we answered the first: SHALL NOT in 2.x, SHOULD NOT in 1.6."""
    _, b = link(version)
    assert isinstance(b.receive('[2,"c1","Heartbeat",{}]', 0.0)[0], CallReceived)
    events = b.receive('[2,"c2","Heartbeat",{}]', 0.1)
    assert rules(events) == [("rpc.one_at_a_time", strict)]
    assert only(events, CallReceived).call == Call("c2", "Heartbeat", {})  # still handed on
    assert [c.id for c in b.unanswered_peer_calls] == ["c1", "c2"]


def test_peer_call_after_our_answer_is_not_pipelining(link):
    """rpc.one_at_a_time: once we answered, the peer may call again."""
    _, b = link()
    first = b.receive('[2,"c1","Heartbeat",{}]', 0.0)[0].call
    b.answer(first, HEARTBEAT_ANSWER)
    assert b.receive('[2,"c2","Heartbeat",{}]', 1.0) == [CallReceived(Call("c2", "Heartbeat", {}))]


def test_peer_call_refused_for_its_payload_does_not_count_as_unanswered(link):
    """rpc.one_at_a_time: a CALL we already answered with a CALLERROR leaves nothing pending."""
    _, b = link()
    b.receive('[2,"c1","Authorize",{}]', 0.0)
    assert rules(b.receive('[2,"c2","Heartbeat",{}]', 1.0)) == []


# ------------------------------------------------------- rpc.unique_id, rpc.known_action, ocpp.errors.known
def test_peer_reusing_a_call_id_is_a_strict_violation(link):
    """rpc.unique_id: the peer's CALL ids are unique on the connection, even after the first was answered."""
    _, b = link()
    b.answer(b.receive('[2,"dup","Heartbeat",{}]', 0.0)[0].call, HEARTBEAT_ANSWER)
    events = b.receive('[2,"dup","Heartbeat",{}]', 1.0)
    assert rules(events) == [("rpc.unique_id", True)]
    assert only(events, CallReceived).call.id == "dup"


def test_call_ids_are_remembered_over_a_bounded_window():
    """rpc.unique_id: judged over the peer's last ``remember`` CALL ids, so a long-lived connection's memory stays
    bounded: a reuse within the window is caught; past it the oldest id is forgotten."""
    b = RpcEndpoint(V201, remember=3)
    for n in range(4):
        b.answer(b.receive(f'[2,"c{n}","Heartbeat",{{}}]', float(n)).pop().call, HEARTBEAT_ANSWER)
    reused = b.receive('[2,"c1","Heartbeat",{}]', 5.0)
    assert rules(reused) == [("rpc.unique_id", True)]
    b.answer(only(reused, CallReceived).call, HEARTBEAT_ANSWER)
    assert rules(b.receive('[2,"c0","Heartbeat",{}]', 6.0)) == []


@pytest.mark.parametrize("version", list(OcppVersion))
def test_unknown_action_is_answered_not_implemented(link, version):
    """rpc.known_action: an action the version does not define is answered NotImplemented and reported."""
    _, b = link(version)
    events = b.receive('[2,"u1","NoSuchAction",{}]', 0.0)
    assert rules(events) == [("rpc.known_action", True)]
    assert b.outbox() == ['[4,"u1","NotImplemented","unknown action NoSuchAction",{}]']
    assert b.unanswered_peer_calls == ()


def test_an_error_description_is_at_most_255_characters(link):
    """OCPP 2.0.1 part 4 §4.2.3: ErrorDescription is string[0..255]. A schema fault's message quotes the
    value it judges: an array one item past maxItems came back whole (265 KB; found by the fuzzer)."""
    _, b = link(V201)
    b.receive(json.dumps([2, "u1", "NoSuch" + "x" * 1000, {}]), 0.0)
    b.receive(json.dumps([2, "d1", "DataTransfer", {"vendorId": "v" * 5000}]), 0.0)
    answers = sent(b)
    assert [(a[2], len(a[3])) for a in answers] == [("NotImplemented", 255), ("PropertyConstraintViolation", 255)]
    assert answers[1][3].endswith("…")


def test_action_of_another_version_is_unknown(link):
    """rpc.known_action: 1.6 StartTransaction on a 2.0.1 connection is answered NotImplemented."""
    _, b = link(V201)
    b.receive('[2,"s1","StartTransaction",{"connectorId":1}]', 0.0)
    assert sent(b)[0][:3] == [4, "s1", "NotImplemented"]


@pytest.mark.parametrize("version, code, violated", [
    (V201, "FormationViolation", True),
    (V21, "FormationViolation", True),
    (V16, "FormatViolation", True),
    (V16, "RpcFrameworkError", True),
    (V201, "Timeout", True),
    (V16, "FormationViolation", False),
    (V201, "FormatViolation", False),
    (V16, "OccurrenceConstraintViolation", False),
    (V16, "OccurenceConstraintViolation", False),
    (V201, "OccurenceConstraintViolation", False),
    (V21, "OccurrenceConstraintViolation", False),
])
def test_callerror_code_must_exist_in_the_version(link, version, code, violated):
    """ocpp.errors.known: a CALLERROR with a code of another version is delivered with a violation; either spelling is fine."""
    a, _ = link(version)
    call = a.call("Heartbeat", {}, 0.0)
    event = a.receive('[4,"%s","%s","",{}]' % (call.id, code), 1.0)[0]
    assert isinstance(event, ErrorReceived) and event.error.code == code
    assert [(v.rule.id, v.strict) for v in event.violations] == ([("ocpp.errors.known", True)] if violated else [])


# ----------------------------------------------------------------------------- answering
def test_answering_a_call_twice_is_a_harness_error(link):
    """answering: each peer CALL is answered once; a second answer (result or error) is our bug."""
    a, b = link()
    call = peer_call(a, b)
    b.answer(call, HEARTBEAT_ANSWER)
    with pytest.raises(HarnessError):
        b.answer(call, HEARTBEAT_ANSWER)
    with pytest.raises(HarnessError):
        b.answer_error(call, "GenericError")
    assert len(b.outbox()) == 1


def test_answering_a_call_never_received_is_a_harness_error(link):
    """answering: only CALLs the peer sent can be answered."""
    _, b = link()
    with pytest.raises(HarnessError):
        b.answer(Call("invented", "Heartbeat", {}), HEARTBEAT_ANSWER)
    assert b.outbox() == []


@pytest.mark.parametrize("version, code", [
    (V201, "FormationViolation"), (V16, "FormatViolation"), (V16, "RpcFrameworkError"),
    (V16, "MessageTypeNotSupported"), (V21, "NoSuchCode"),
])
def test_answer_error_with_a_code_not_in_the_version_is_a_harness_error(link, version, code):
    """answering: we never send a code the version does not define; the CALL stays open for a proper answer."""
    a, b = link(version)
    call = peer_call(a, b)
    with pytest.raises(HarnessError):
        b.answer_error(call, code)
    assert b.outbox() == [] and b.unanswered_peer_calls == (call,)


def test_answer_error_writes_code_description_and_details(link):
    """answering: the CALLERROR carries what the application gave, details defaulting to {}."""
    a, b = link(V16)
    first = peer_call(a, b)
    b.answer_error(first, "NotSupported", "not here", {"why": "no"})
    assert b.outbox() == ['[4,"%s","NotSupported","not here",{"why":"no"}]' % first.id]


# ----------------------------------------------------------------------------- send_raw
def test_raw_reply_with_its_id_comes_back_as_raw_reply(link):
    """send_raw: the answer to a raw frame is delivered unjudged as RawReplyReceived, not as an rpc.matches violation."""
    a, b = link()
    a.send_raw('[2,"raw-1","NoSuchAction",{}]', 0.0, reply_id="raw-1")
    deliver(a, b)
    events = deliver(b, a, 1.0)
    assert events == [RawReplyReceived("raw-1", CallError("raw-1", "NotImplemented",
                                                          "unknown action NoSuchAction", {}))]
    assert a.outbox() == [] and a.in_flight is None  # nothing owed back, no CALL of ours involved


def test_non_json_is_answered_rpc_framework_error_minus_one_and_reaches_the_raw_sender(link):
    """send_raw/framing.framework_error: garbage gets [4,"-1","RpcFrameworkError",...] on 2.x, delivered
    to the sender as a raw reply."""
    a, b = link()
    a.send_raw("this is not JSON", 0.0, reply_id="-1")
    events = deliver(a, b)
    assert rules(events) == [("framing.text", True)]
    assert isinstance(events[0].error, FrameError) and events[0].text == "this is not JSON"
    assert deliver(b, a, 1.0) == [RawReplyReceived("-1", CallError("-1", "RpcFrameworkError", "invalid JSON", {}))]


def test_garbage_from_the_peer_is_never_taken_as_its_raw_reply(link):
    """send_raw/framing.framework_error: while we wait for a "-1" reply, garbage from the peer is a
    violation, and we answer it."""
    a, _ = link()
    a.send_raw("this is not JSON", 0.0, reply_id="-1")
    a.outbox()
    events = a.receive("garbage back", 1.0)
    assert rules(events) == [("framing.text", True)]
    assert a.outbox() == ['[4,"-1","RpcFrameworkError","invalid JSON",{}]']


def test_minus_one_answers_the_raw_frame_its_receiver_could_not_read(link):
    """rpc.matches: [4,"-1",...] is the framework error of a frame the peer could not read; sent in answer to a
    frame of an unknown message type it is that frame's raw reply, not an answer to no CALL."""
    a, _ = link()
    a.send_raw('[9,"m-9","Heartbeat",{}]', 0.0, reply_id="m-9")
    events = a.receive('[4,"-1","MessageTypeNotSupported","type 9",{}]', 1.0)
    assert events == [RawReplyReceived("m-9", CallError("-1", "MessageTypeNotSupported", "type 9", {}))]
    assert rules(a.receive('[4,"-1","MessageTypeNotSupported","type 9",{}]', 2.0)) == [("rpc.matches", True)]


def test_raw_reply_is_delivered_once_and_expires_at_its_deadline(link):
    """send_raw: a reply after the deadline, or a second one, is an answer to no CALL (rpc.matches)."""
    a, _ = link(call_timeout=10.0)
    a.send_raw('[2,"r1","Heartbeat",{}]', 0.0, reply_id="r1")
    a.send_raw('[2,"r2","Heartbeat",{}]', 0.0, reply_id="r2")
    assert isinstance(a.receive('[3,"r1",{}]', 1.0)[0], RawReplyReceived)
    assert rules(a.receive('[3,"r1",{}]', 2.0)) == [("rpc.matches", True)]
    assert a.poll(10.0) == []
    assert rules(a.receive('[3,"r2",{}]', 11.0)) == [("rpc.matches", True)]


def test_raw_frames_bypass_the_queue(link):
    """send_raw: raw text is written at once, even while a CALL of ours is in flight."""
    a, _ = link()
    a.call("Heartbeat", {}, 0.0)
    a.call("Heartbeat", {}, 0.0)
    a.outbox()
    a.send_raw("[2,\"raw\",\"Heartbeat\",{}]", 0.0)
    assert a.outbox() == ["[2,\"raw\",\"Heartbeat\",{}]"]


# ----------------------------------------------------------------------------- broken frames at the endpoint
@pytest.mark.parametrize("version, text, reply", [
    (V201, "not json", ['[4,"-1","RpcFrameworkError","invalid JSON",{}]']),
    (V16, "not json", ['[4,"-1","FormationViolation","invalid JSON",{}]']),
    (V201, '[9,"x",{}]', ['[4,"x","MessageTypeNotSupported","message type 9",{}]']),
    (V201, '[2,"x","Heartbeat",[]]', ['[4,"x","FormatViolation","malformed frame",{}]']),
    (V201, '[3,"x",[]]', []),
    (V201, '[4,"x","GenericError"]', []),
])
def test_broken_frame_is_a_violation_and_gets_the_reply_owed(link, version, text, reply):
    """framing: the endpoint writes the reply the frame rules demand (none for a broken answer) and reports it."""
    _, b = link(version)
    events = b.receive(text, 0.0)
    assert len(events) == 1 and isinstance(events[0], Violation) and events[0].error.strict
    assert b.outbox() == reply


def test_binary_message_is_a_violation_with_a_readable_preview(link):
    """framing.text: bytes are refused; the preview is their repr, so the report stays text."""
    _, b = link()
    [event] = b.receive(b'[2,"x","Heartbeat",{}]', 0.0)
    assert event.error.rule.id == "framing.text" and event.text == "b'[2,\"x\",\"Heartbeat\",{}]'"
    assert b.outbox() == ['[4,"-1","RpcFrameworkError","binary frame",{}]']


# ----------------------------------------------------------------------------- 2.1 SEND and CALLRESULTERROR
def test_send_goes_out_at_once_past_the_call_queue(link):
    """SEND (2.1): written at once, even with a CALL in flight, and sets no deadline."""
    a, _ = link(V21)
    call = a.call("Heartbeat", {}, 0.0)
    a.outbox()
    send = a.send_unconfirmed("NotifyPeriodicEventStream", STREAM)
    assert sent(a) == [[6, send.id, "NotifyPeriodicEventStream",
                        {"id": 1, "pending": 0, "basetime": NOW, "data": [{"t": 0, "v": "7.5"}]}]]
    assert a.in_flight == call and a.next_deadline() == 30.0  # a SEND awaits nothing


def test_peer_send_reaches_the_application(link):
    """SEND (2.1): a valid SEND becomes SendReceived, without a reply."""
    a, b = link(V21)
    send = a.send_unconfirmed("NotifyPeriodicEventStream", STREAM)
    assert deliver(a, b) == [SendReceived(send)]
    assert b.outbox() == []


def test_peer_invalid_send_is_a_violation_without_reply(link):
    """SEND (2.1)/rpc.schema: an invalid SEND is reported but never answered."""
    _, b = link(V21)
    events = b.receive('[6,"s1","NotifyPeriodicEventStream",{"id":1}]', 0.0)
    assert rules(events) == [("rpc.schema", True)]
    assert b.outbox() == []


@pytest.mark.parametrize("version", [V16, V201])
def test_send_does_not_exist_before_2_1(link, version):
    """SEND (2.1): asking for a SEND on 1.6 or 2.0.1 is our bug; nothing is written."""
    a, _ = link(version)
    with pytest.raises(HarnessError):
        a.send_unconfirmed("Heartbeat", {})
    assert a.outbox() == []


def test_our_invalid_send_is_a_harness_error(link):
    """SEND (2.1)/rpc.schema: our SEND is schema-checked like our CALLs."""
    a, _ = link(V21)
    with pytest.raises(HarnessError):
        a.send_unconfirmed("NotifyPeriodicEventStream", {"id": 1})
    assert a.outbox() == []


def test_callresulterror_is_delivered_as_result_error(link):
    """CALLRESULTERROR (2.1): the peer's complaint about our CALLRESULT reaches the application."""
    _, b = link(V21)
    assert b.receive('[5,"c1","FormatViolation","bad result",{}]', 0.0) == \
        [ResultErrorReceived(CallResultError("c1", "FormatViolation", "bad result", {}))]
    assert b.outbox() == []
