"""OCPP-J frames (harness/ocpp/framing.py, table Framing): text in, frames out, and the reply owed for bad text."""

from __future__ import annotations

from decimal import Decimal

import pytest

from harness.errors import ConfigError, PeerViolation
from harness.ocpp.framing import (
    Call, CallError, CallResult, CallResultError, FrameError, Framing, Send, dumps, parse, serialize,
)
from harness.ocpp.versions import OcppVersion

TEXT, FRAME, MESSAGE_ID, ELEMENTS = Framing.text, Framing.frame, Framing.message_id, Framing.elements

V16, V201, V21 = OcppVersion.V16, OcppVersion.V201, OcppVersion.V21
ID36 = "0123456789abcdef0123456789abcdef0123"  # 36 characters: the longest id allowed
ID37 = ID36 + "4"


# ----------------------------------------------------------------------------- round trips
ROUND_TRIPS = [
    pytest.param(V16, '[2,"m-1","Heartbeat",{}]', Call("m-1", "Heartbeat", {}), id="call"),
    pytest.param(V201, '[3,"m-1",{"currentTime":"2024-01-01T00:00:00Z"}]',
                 CallResult("m-1", {"currentTime": "2024-01-01T00:00:00Z"}), id="callresult"),
    pytest.param(V201, '[4,"m-1","NotImplemented","no such action",{"hint":"x"}]',
                 CallError("m-1", "NotImplemented", "no such action", {"hint": "x"}), id="callerror"),
    pytest.param(V21, '[5,"m-1","FormatViolation","bad result",{}]',
                 CallResultError("m-1", "FormatViolation", "bad result", {}), id="callresulterror"),
    pytest.param(V21, '[6,"m-1","NotifyPeriodicEventStream",{"id":1}]',
                 Send("m-1", "NotifyPeriodicEventStream", {"id": 1}), id="send"),
    pytest.param(V16, '[2,"é-1","DataTransfer",{"vendorId":"Zürich"}]',
                 Call("é-1", "DataTransfer", {"vendorId": "Zürich"}), id="non-ascii-stays-utf8"),
]


@pytest.mark.parametrize("version, text, frame", ROUND_TRIPS)
def test_each_frame_type_parses_and_serializes_back_to_the_same_text(version, text, frame):
    """framing.frame: every frame type of the version parses to its class and serializes to the same compact text."""
    parsed = parse(text, version)
    assert type(parsed) is type(frame)
    assert parsed == frame
    assert serialize(frame) == text


def test_callresulterror_serializes_with_type_number_5_not_4():
    """framing.frame: CALLRESULTERROR shares CALLERROR's fields but carries its own message type number."""
    assert serialize(CallResultError("x", "GenericError")) == '[5,"x","GenericError","",{}]'
    assert serialize(CallError("x", "GenericError")) == '[4,"x","GenericError","",{}]'


# ----------------------------------------------------------------------------- numbers
@pytest.mark.parametrize("number", ["16.1", "16.05", "0.1", "7360.5", "-3.2"])
def test_fractional_numbers_parse_as_decimal_with_the_digits_sent(number):
    """framing.text: numbers with a fraction are Decimals holding the peer's digits and serialize back unchanged."""
    text = '[3,"x",{"limit":%s}]' % number
    frame = parse(text, V16)
    assert frame.payload["limit"] == Decimal(number)
    assert isinstance(frame.payload["limit"], Decimal)
    assert serialize(frame) == text


def test_integers_stay_integers():
    """framing.text: an integer is parsed as int, not Decimal, and written without a fraction."""
    frame = parse('[3,"x",{"interval":300}]', V16)
    assert frame.payload["interval"] == 300 and type(frame.payload["interval"]) is int
    assert serialize(frame) == '[3,"x",{"interval":300}]'


def test_decimals_built_in_code_serialize_as_json_numbers():
    """framing.text: a Decimal in our payload goes out as a JSON number; a whole Decimal loses only its '.0'."""
    assert dumps({"limit": Decimal("16.1"), "min": Decimal("6.0"), "n": Decimal("32")}) == \
        '{"limit":16.1,"min":6,"n":32}'


def test_dumps_is_compact_and_refuses_unknown_types():
    """framing.text: output has no blanks between tokens; a value JSON cannot hold is our bug (TypeError)."""
    assert dumps([2, "a", "B", {"k": [1, 2]}]) == '[2,"a","B",{"k":[1,2]}]'
    with pytest.raises(TypeError):
        dumps({"when": object()})


# ----------------------------------------------------------------------------- broken text
# (version, text, rule, reply as (id, code) or None when nothing is owed)
BROKEN = [
    # framing.text: not JSON / not text
    pytest.param(V201, "this is not JSON", TEXT, ("-1", "RpcFrameworkError"), id="not-json-2.0.1"),
    pytest.param(V21, '[2,"x","Heartbeat",{}', TEXT, ("-1", "RpcFrameworkError"), id="truncated-2.1"),
    pytest.param(V16, "this is not JSON", TEXT, ("-1", "FormationViolation"), id="not-json-1.6"),
    pytest.param(V201, b'[2,"x","Heartbeat",{}]', TEXT, ("-1", "RpcFrameworkError"), id="bytes-2.0.1"),
    pytest.param(V16, b'[2,"x","Heartbeat",{}]', TEXT, ("-1", "FormationViolation"), id="bytes-1.6"),
    # framing.frame: not an array starting with a type number
    pytest.param(V201, '{"type":2}', FRAME, ("-1", "RpcFrameworkError"), id="object-not-array"),
    pytest.param(V201, '"Heartbeat"', FRAME, ("-1", "RpcFrameworkError"), id="string-not-array"),
    pytest.param(V201, '[2,"x"]', FRAME, ("-1", "RpcFrameworkError"), id="array-too-short"),
    pytest.param(V201, '["2","x","Heartbeat",{}]', FRAME, ("-1", "RpcFrameworkError"), id="type-is-string"),
    pytest.param(V201, '[2.0,"x","Heartbeat",{}]', FRAME, ("-1", "RpcFrameworkError"), id="type-is-fraction"),
    pytest.param(V201, '[true,"x","Heartbeat",{}]', FRAME, ("-1", "RpcFrameworkError"), id="type-is-bool"),
    pytest.param(V16, '["2","x","Heartbeat",{}]', FRAME, ("-1", "FormationViolation"), id="type-is-string-1.6"),
    # framing.message_id: the id
    pytest.param(V201, '[2,17,"Heartbeat",{}]', MESSAGE_ID, ("-1", "RpcFrameworkError"), id="id-is-number"),
    pytest.param(V201, '[2,null,"Heartbeat",{}]', MESSAGE_ID, ("-1", "RpcFrameworkError"), id="id-is-null"),
    pytest.param(V201, '[2,"","Heartbeat",{}]', MESSAGE_ID, ("-1", "RpcFrameworkError"), id="id-is-empty"),
    pytest.param(V201, '[2,"%s","Heartbeat",{}]' % ID37, MESSAGE_ID, (ID37, "RpcFrameworkError"), id="call-id-37"),
    pytest.param(V16, '[2,"%s","Heartbeat",{}]' % ID37, MESSAGE_ID, (ID37, "FormationViolation"), id="call-id-37-1.6"),
    pytest.param(V201, '[3,"%s",{}]' % ID37, MESSAGE_ID, None, id="result-id-37"),
    pytest.param(V201, '[4,"%s","GenericError","",{}]' % ID37, MESSAGE_ID, None, id="error-id-37"),
    # framing.frame: message types the version does not have (MessageTypeNotSupported in 2.x)
    pytest.param(V201, '[7,"x","Heartbeat",{}]', FRAME, ("x", "MessageTypeNotSupported"), id="type-7-2.0.1"),
    pytest.param(V21, '[1,"x","Heartbeat",{}]', FRAME, ("x", "MessageTypeNotSupported"), id="type-1-2.1"),
    pytest.param(V201, '[5,"x","GenericError","",{}]', FRAME, ("x", "MessageTypeNotSupported"), id="type-5-2.0.1"),
    pytest.param(V201, '[6,"x","Heartbeat",{}]', FRAME, ("x", "MessageTypeNotSupported"), id="type-6-2.0.1"),
    pytest.param(V16, '[7,"x","Heartbeat",{}]', FRAME, ("x", "FormationViolation"), id="type-7-1.6"),
    pytest.param(V16, '[6,"x","Heartbeat",{}]', FRAME, ("x", "FormationViolation"), id="type-6-1.6"),
    # framing.frame (length) and framing.elements (types): wrong shapes; only a broken CALL is answered
    pytest.param(V201, '[2,"x","Heartbeat"]', FRAME, ("x", "FormatViolation"), id="call-without-payload"),
    pytest.param(V201, '[2,"x","Heartbeat",{},{}]', FRAME, ("x", "FormatViolation"), id="call-five-items"),
    pytest.param(V201, '[2,"x",42,{}]', ELEMENTS, ("x", "FormatViolation"), id="call-action-not-string"),
    pytest.param(V201, '[2,"x","Heartbeat",[]]', ELEMENTS, ("x", "FormatViolation"), id="call-payload-array"),
    pytest.param(V16, '[2,"x","Heartbeat",null]', ELEMENTS, ("x", "FormationViolation"), id="call-payload-null-1.6"),
    pytest.param(V201, '[3,"x",[]]', ELEMENTS, None, id="result-payload-array"),
    pytest.param(V201, '[3,"x",{},{}]', FRAME, None, id="result-four-items"),
    pytest.param(V16, '[3,"x","Accepted"]', ELEMENTS, None, id="result-payload-string-1.6"),
    pytest.param(V201, '[4,"x","GenericError","d"]', FRAME, None, id="error-four-items"),
    pytest.param(V201, '[4,"x",500,"d",{}]', ELEMENTS, None, id="error-code-number"),
    pytest.param(V201, '[4,"x","GenericError",null,{}]', ELEMENTS, None, id="error-description-null"),
    pytest.param(V201, '[4,"x","GenericError","d",[]]', ELEMENTS, None, id="error-details-array"),
    pytest.param(V21, '[5,"x","GenericError","d",null]', ELEMENTS, None, id="resulterror-details-null"),
    pytest.param(V21, '[6,"x","Heartbeat",[]]', ELEMENTS, None, id="send-payload-array"),
    pytest.param(V21, '[6,"x",7,{}]', ELEMENTS, None, id="send-action-number"),
]


@pytest.mark.parametrize("version, text, rule, reply", BROKEN)
def test_broken_text_raises_frame_error_naming_the_rule_and_the_reply_owed(version, text, rule, reply):
    """Framing: bad text is the peer's fault (strict), names its row, and carries the CALLERROR owed, if any."""
    with pytest.raises(FrameError) as caught:
        parse(text, version)
    error = caught.value
    assert isinstance(error, PeerViolation) and error.strict
    assert error.rule is rule
    if reply is None:
        assert error.reply is None
    else:
        assert type(error.reply) is CallError  # a CALLERROR (type 4), never a CALLRESULTERROR
        assert (error.reply.id, error.reply.code, error.reply.details) == (*reply, {})


def test_reply_to_non_json_on_2x_is_the_exact_rpc_framework_error_frame():
    """framing.framework_error: text that is not JSON is answered [4,"-1","RpcFrameworkError",...] on 2.x."""
    with pytest.raises(FrameError) as caught:
        parse("{{{", V201)
    assert serialize(caught.value.reply) == '[4,"-1","RpcFrameworkError","invalid JSON",{}]'


def test_frame_error_keeps_what_the_peer_sent():
    """framing.text: the violation shows the offending message so a report can quote it."""
    with pytest.raises(FrameError) as caught:
        parse('[2,"","Heartbeat",{}]', V201)
    assert caught.value.actual == ""
    with pytest.raises(FrameError) as caught:
        parse("garbage", V201)
    assert caught.value.actual == "garbage"


@pytest.mark.parametrize("text, frame", [
    ('[2,"%s","Heartbeat",{}]' % ID36, Call(ID36, "Heartbeat", {})),
    ('[3,"%s",{}]' % ID36, CallResult(ID36, {})),
    ('[2,"7","Heartbeat",{}]', Call("7", "Heartbeat", {})),
])
def test_ids_of_1_to_36_characters_are_accepted(text, frame):
    """framing.message_id: 36 characters is the limit, inclusive; any non-empty string content is fine."""
    assert parse(text, V201) == frame


@pytest.mark.parametrize("version, allowed", [
    (V16, {2, 3, 4}), (V201, {2, 3, 4}), (V21, {2, 3, 4, 5, 6}),
])
def test_message_types_per_version(version, allowed):
    """framing.frame: only 2.1 has CALLRESULTERROR (5) and SEND (6)."""
    assert version.message_types == allowed


def test_types_5_and_6_parse_in_2_1():
    """framing.frame: in 2.1 a CALLRESULTERROR and a SEND are frames like any other."""
    assert parse('[5,"r","GenericError","d",{}]', V21) == CallResultError("r", "GenericError", "d", {})
    assert parse('[6,"s","Heartbeat",{}]', V21) == Send("s", "Heartbeat", {})


@pytest.mark.parametrize("text, version", [
    ("1.6", V16), ("ocpp1.6", V16), (" OCPP2.0.1 ", V201), ("2.1", V21),
])
def test_version_parse_accepts_number_or_subprotocol(text, version):
    """Versions are named by subprotocol (ocpp1.6, ocpp2.0.1, ocpp2.1) or by number."""
    assert OcppVersion.parse(text) is version


@pytest.mark.parametrize("text", ["2.0", "ocpp1.5", ""])
def test_version_parse_refuses_unknown_versions(text):
    """An unsupported version is a configuration error the user must fix."""
    with pytest.raises(ConfigError):
        OcppVersion.parse(text)


def test_version_names():
    """Subprotocol, schema folder and label of each version."""
    assert [(v.subprotocol, v.schema_package, v.label, v.is_2x) for v in OcppVersion] == [
        ("ocpp1.6", "v16", "OCPP 1.6", False),
        ("ocpp2.0.1", "v201", "OCPP 2.0.1", True),
        ("ocpp2.1", "v21", "OCPP 2.1", True),
    ]


@pytest.mark.parametrize("text, sent_as", [('[2,"\\ud800","DataTransfer",{"vendorId":"v"}]', '"\\ud800"'),
                                           ('[2,"a","DataTransfer",{"vendorId":"\\udfff\\u00e9\\ud83d\\ude00"}]',
                                            '"\\udfffé😀"')])
def test_any_text_the_parser_takes_is_sent_back_as_utf8(text, sent_as):
    """A lone surrogate is legal JSON but has no UTF-8 form: it is sent escaped, the rest as it was."""
    frame = parse(text, OcppVersion.V201)
    sent = serialize(frame)
    sent.encode("utf-8")
    assert parse(sent, OcppVersion.V201) == frame
    assert sent_as in sent
