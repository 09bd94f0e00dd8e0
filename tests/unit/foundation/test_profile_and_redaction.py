"""Profile checking and secret redaction: no sockets."""

import base64
import json
import logging
import os

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness import profile as profiles
from harness import wire
from harness.errors import ConfigError
from harness.settings import reference_profile
from harness.wire import MASK, REDACTOR, RedactingFormatter, Redactor, WireLog


def test_reference_profile_loads_with_every_token_and_evse():
    profile = reference_profile()
    assert profile.token("blocked_expired").also == ("Expired",)
    assert [e.id for e in profile.evses] == [1, 2]
    assert profile.tokens["pin"].secret is True and profile.tokens["valid"].secret is False


def test_the_standalone_profile_is_the_reference_s_at_security_profile_1_without_day_long_tests():
    """What the references run on their own play, and the harness run against them is given: nothing that needs a
    kept PKI (the built-in reference profile declares security profiles 2 and 3) or waits a real day."""
    standalone, reference = profiles.load("builtin:standalone"), reference_profile()
    assert standalone.get("tls.security_profiles") == [] and reference.get("tls.security_profiles") == [2, 3]
    assert standalone.get("long_tests.heartbeat_per_day") is False
    assert standalone.tokens == reference.tokens and standalone.identity == reference.identity


def test_a_profile_starting_from_a_built_in_one_overrides_it_key_by_key(tmp_path):
    path = tmp_path / "mine.toml"
    path.write_text('base = "builtin:reference"\n[station]\nidentity = "MINE-1"\n[tokens]\n'
                    'valid = { id = "CAFE0001", type = "ISO14443", status = "Accepted" }\n')
    mine = profiles.load(path)
    assert mine.identity == "MINE-1" and mine.get("station.vendor") == "evse-conformance"
    assert mine.tokens["valid"].id == "CAFE0001" and "blocked" in mine.tokens


@pytest.mark.parametrize("where, message", [
    ("builtin:nope", "there is no built-in profile builtin:nope; the built-in profiles are builtin:core-only, "
                     "builtin:keep-on-invalid-id, builtin:max-energy-on-invalid-id, builtin:one-rate-unit, "
                     "builtin:reference, builtin:standalone"),
    ("base.toml", "base = 'profiles/reference.toml' is not a built-in profile; write it like "
                  "base = \"builtin:reference\""),
])
def test_a_built_in_profile_that_does_not_exist_is_refused_naming_those_that_do(tmp_path, where, message):
    (tmp_path / "base.toml").write_text('base = "profiles/reference.toml"\n')
    with pytest.raises(ConfigError) as refused:
        profiles.load(where if where.startswith("builtin:") else tmp_path / where)
    assert message in str(refused.value)


@pytest.mark.parametrize("data, message", [
    ({"stationn": {}}, "unknown key stationn"),
    ({"station": {"identity": "X", "passwrd": "p" * 16}}, "unknown key station.passwrd"),
    ({"station": {"password": "tiny-pw"}}, "station.password is too short: write at least 16 characters"),
    ({"station": {"identity": "X" * 49}}, "station.identity is too long: write at most 48 characters"),
    ({"station": {"identity": 7}}, "station.identity: write a string, not an integer"),
    ({"tokens": {"t": {"id": "1", "type": "ISO14443", "status": "Fine"}}},
     "tokens.t.status: 'Fine' is not allowed; use one of 'Accepted', 'Blocked'"),
    ({"tokens": {"t": {"id": "1", "type": "ISO14443"}}}, "tokens.t.status is missing; add it"),
    ({"timeouts": {"call": 0}}, "timeouts.call: write a number more than 0, not 0"),
    ({"station": {"evse": []}}, "station.evse: give at least 1 item"),
    ({"actuator": {"class": "no_colon"}}, "write it as module.path:ClassName"),
    ({"authorization": {"tx_stop_point": ["Plugged"]}}, "authorization.tx_stop_point.0: 'Plugged' is not allowed"),
    ({"qr_code": {"interval": 30}}, "qr_code.totp_secret is missing; add it"),
    ({"smart_charging": {"charging_rate_units": ["kW"]}}, "smart_charging.charging_rate_units.0: 'kW' is not allowed"),
    ({"tokens": {"t": {"id": "1", "type": "ISO14443", "status": "NoCredit", "balance": "none"}}},
     "tokens.t.balance: write a number, not a string"),
    ({"payment_terminal": {"card": [{"type": "MaskedPAN"}]}}, "payment_terminal.card.0.value is missing; add it"),
    ({"payment_terminal": {"vat_number": {"number": "NL1", "name": "N", "address1": "A", "city": "C"}}},
     "payment_terminal.vat_number.country is missing; add it"),
    ({"payment_terminal": {"amount": 0}}, "payment_terminal.amount: write a number more than 0, not 0"),
])
def test_bad_profile_is_refused_naming_the_key(data, message):
    with pytest.raises(ConfigError) as refused:
        profiles.from_dict(data, "p.toml")
    assert message in str(refused.value) and "p.toml" in str(refused.value)


def test_every_problem_is_refused_at_once():
    data = {"stationn": {}, "station": {"identity": "", "password": "tiny-pw"}, "timeouts": {"call": -1}}
    with pytest.raises(ConfigError) as refused:
        profiles.from_dict(data, "p.toml")
    lines = str(refused.value).splitlines()
    assert lines[0] == "4 problems stop the run before any test:"
    assert [line.split(": ", 1)[1] for line in lines[1:]] == [
        "unknown key stationn; remove it or fix its spelling (known keys: actuator, authorization, data_transfer, "
        "features, firmware, long_tests, ocpi, payment_terminal, plug_and_charge, qr_code, smart_charging, station, sut, "
        "timeouts, tls, tokens)",
        "station.identity is too short: write at least 1 character",
        "station.password is too short: write at least 16 characters",
        "timeouts.call: write a number more than 0, not -1"]


@pytest.mark.parametrize("data, secret", [
    ({"station": {"password": "tiny-secret-pw"}}, "tiny-secret-pw"),
    ({"station": {"password": "a-secret-password-far-too-long-" * 3}}, "a-secret-password-far-too-long-"),
    ({"station": {"authorization_key": "not-hex-secret-key"}}, "not-hex-secret-key"),
    ({"ocpi": {"token_a": "token with spaces"}}, "token with spaces"),
    ({"tokens": {"pin": {"id": "84120000" * 40, "type": "KeyCode", "status": "Accepted"}}}, "84120000"),
    ({"station": {"password": 1234567890123456789}}, "1234567890123456789"),
    ({"qr_code": {"totp_secret": "short-totp"}}, "short-totp"),
])
def test_no_secret_value_is_ever_shown(data, secret):
    with pytest.raises(ConfigError) as refused:
        profiles.from_dict(data, "p.toml")
    assert secret not in str(refused.value)
    assert data.popitem()[0] in str(refused.value)   # the section is named all the same


def test_missing_token_is_a_config_error_that_says_how_to_add_it():
    with pytest.raises(ConfigError, match=r"\[tokens.master\] is missing; add it with id, type and status"):
        profiles.from_dict({}, "p.toml").token("master")


def test_redacted_profile_masks_passwords_and_pins_only():
    redacted = reference_profile().redacted()
    assert redacted["station"]["password"] == "«redacted»"
    assert redacted["tokens"]["pin"]["id"] == "«redacted»"
    assert redacted["tokens"]["valid"]["id"] == "AA00000001"
    assert redacted["qr_code"]["totp_secret"] == "«redacted»" and redacted["qr_code"]["interval"] == 30
    assert [c["value"] for c in redacted["payment_terminal"]["card"]] == ["VISA", "«redacted»"]


def test_card_details_marked_secret_never_reach_the_wire_log():
    """A secret card value (the profile's [payment_terminal] card) is redacted wherever it travels."""
    profiles.from_dict({"payment_terminal": {"card": [{"type": "MaskedPAN", "value": "540000******0042",
                                                       "secret": True}]}}, "p.toml")
    assert "540000******0042" not in REDACTOR.redact('{"additionalIdToken":"540000******0042"}')


def test_redactor_masks_secret_in_all_its_encodings():
    redactor = Redactor()
    redactor.register(b"\x01\x02secret-key-bytes", identity="CP1")
    raw = b"\x01\x02secret-key-bytes"
    text = " ".join([raw.hex(), base64.b64encode(raw).decode(), base64.b64encode(b"CP1:" + raw).decode()])
    assert redactor.redact(text) == " ".join([MASK] * 3)


def test_redactor_masks_upper_hex_urlsafe_and_unpadded_base64():
    """A key the profile gives in hex is sent in capitals by some peers; a token may travel urlsafe
    or without padding (the self-check in tests/selfcheck searches for every one of these)."""
    redactor = Redactor()
    raw = bytes(range(250, 256)) + b"key-bytes->?"
    redactor.register(raw, identity="CP1")
    forms = [raw.hex().upper(), base64.urlsafe_b64encode(raw).decode(), base64.b64encode(raw).decode().rstrip("="),
             base64.b64encode(b"CP1:" + raw).decode().rstrip("=")]
    assert redactor.redact(" ".join(forms)) == " ".join([MASK] * 4)


def test_redactor_masks_a_pin_only_as_a_whole_value():
    redactor = Redactor()
    redactor.register("8412")
    assert redactor.redact('{"idToken":"8412","id":"ab8412cd","n":18412}') == \
        '{"idToken":"«redacted»","id":"ab8412cd","n":18412}'


def test_values_named_in_passing_are_masked_the_newest_only(monkeypatch):
    """A peer that names a new token with every refused request cannot grow the redactor for ever; a secret
    registered for good stays masked whatever passes (found by the fuzzer: 100,000 refused credentials
    requests grew the OCPI reference and slowed every answer)."""
    monkeypatch.setattr(wire, "PASSING_KEPT", 2)
    redactor = Redactor()
    redactor.register("kept-for-good-0001")
    for n in range(3):
        redactor.register(f"named-in-passing-{n}", passing=True)
    assert redactor.redact("kept-for-good-0001 named-in-passing-0 named-in-passing-2") == \
        f"{MASK} named-in-passing-0 {MASK}"
    assert len(redactor._passing) == 2


def _every_secret_replaced(redactor: Redactor, text: str) -> str:
    """The redactor's reading without its look-up: every secret replaced in turn, longest first."""
    masks = redactor._current()
    for secret in masks.secrets:
        text = text.replace(secret, MASK)
    return masks.pins.sub(MASK, text) if masks.pins is not None else text


# Secrets and texts from a small alphabet (with MASK's own characters), so secrets overlap, nest, share
# their first characters, and run into the masks put in place of others.
_PIECES = st.text(alphabet="ab«»redact9=", min_size=1, max_size=14)


@settings(max_examples=300, deadline=None)
@given(secrets=st.lists(_PIECES, max_size=40), pieces=st.lists(_PIECES, max_size=30))
def test_looking_secrets_up_masks_the_same_as_replacing_every_one(secrets, pieces):
    """A text is searched only for the secrets whose first characters it holds (``wire._Masks``): the
    result is the text replacing every secret in turn gives, however the secrets overlap."""
    redactor = Redactor()
    for secret in secrets:
        redactor.register(secret)
    text = "".join(pieces + secrets[::3])
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(wire, "LOOKUP_PAYS", 0)   # looked up however few the secrets
        assert redactor.redact(text) == _every_secret_replaced(redactor, text)


def test_authorization_headers_are_always_masked():
    assert Redactor().redact("Authorization: Token ZXhhbXBsZS10b2tlbg==") == "Authorization: Token «redacted»"
    assert Redactor().redact("'authorization': 'Basic QUJDOmRlZg=='") == "'authorization': 'Basic «redacted»'"


def test_an_authorization_key_value_is_masked_where_it_stands():
    """A key a real central system sends is logged before the harness can register it."""
    assert Redactor().redact('[2,"1","ChangeConfiguration",{"key": "AuthorizationKey", "value": "0a1b2c"}]') == \
        f'[2,"1","ChangeConfiguration",{{"key": "AuthorizationKey", "value": "{MASK}"}}]'


@pytest.mark.parametrize("item", [
    '{"attributeValue": "n3w-pa55word-0123456789", "component": {"name": "SecurityCtrlr"}, '
    '"variable": {"name": "BasicAuthPassword"}}',
    '{"component": {"name": "SecurityCtrlr"}, "variable": {"name": "BasicAuthPassword"}, '
    '"attributeValue": "n3w-pa55word-0123456789"}'])
def test_a_basic_auth_password_set_by_set_variables_is_masked_where_it_stands(item):
    """A 2.x CSMS under test chooses the new password: it is logged before the harness can register it. Its
    item's attributeValue is masked in either member order, escaped in a JSON string too; the other items stay."""
    other = '{"attributeValue": "true", "component": {"name": "AuthCtrlr"}, "variable": {"name": "Enabled"}}'
    for text in (f'[2,"1","SetVariables",{{"setVariableData": [{other}, {item}]}}]',
                 json.dumps(f'[2,"1","SetVariables",{{"setVariableData": [{item}, {other}]}}]')):
        redacted = Redactor().redact(text)
        assert "n3w-pa55word" not in redacted and MASK in redacted
        assert '"true"' in redacted or '\\"true\\"' in redacted


def test_a_logged_websockets_frame_is_redacted_before_it_is_cut_short():
    """websockets logs a frame's start and end only: the end of a key cut off there must not show."""
    from websockets.frames import Frame, Opcode
    key = os.urandom(20)
    REDACTOR.register(key)
    frame = Frame(Opcode.TEXT, json.dumps([2, "7c4f1883-e4db-4f0f-8ebd-c400f5529d79", "SetVariables",
                                           {"value": key.hex()}]).encode())
    record = logging.makeLogRecord({"msg": "> %s", "args": (frame,)})
    assert key.hex()[-12:] in str(frame)   # what the log showed before
    shown = RedactingFormatter(logging.Formatter("%(message)s")).format(record)
    assert key.hex()[-12:] not in shown and shown.startswith("> TEXT '[2,")


def test_a_text_redacted_again_after_a_new_secret_is_masked_by_it():
    """The redactor remembers its last text for the next log handler that formats the same record: a
    secret registered in between is masked all the same."""
    redactor = Redactor()
    text = '{"token":"learnt-at-run-time-0001"}'
    assert redactor.redact(text) == text
    redactor.register("learnt-at-run-time-0001")
    assert redactor.redact(text) == f'{{"token":"{MASK}"}}'


def test_a_logged_frame_formatted_again_after_a_new_secret_is_masked_by_it():
    """A record whose frames were redacted for one handler is made once for all of them, until the
    secrets change."""
    from websockets.frames import Frame, Opcode
    key = os.urandom(20).hex()
    record = logging.makeLogRecord({"msg": "> %s", "args": (Frame(Opcode.TEXT, f'["{key}"]'.encode()),)})
    formatter = RedactingFormatter(logging.Formatter("%(message)s"))
    assert key in formatter.format(record)
    REDACTOR.register(key)
    assert key not in formatter.format(record) and MASK in formatter.format(record)


def test_wire_log_renders_timestamped_directions():
    log = WireLog()
    log.sent("CS1", "[2]")
    log.received("CS1", "[3]")
    log.event("CS1", "closed")
    lines = log.render().splitlines()
    assert [line.split(" ", 3)[1:3] for line in lines] == [["CS1", "→"], ["CS1", "←"], ["CS1", "·"]]
    assert log.render(last=1).endswith("closed")


def test_a_frame_with_line_breaks_stays_on_its_line():
    """A peer may write its JSON with line breaks (RFC 8259 whitespace; legal variance does): one entry, one line."""
    log = WireLog()
    log.received("CS001", '[2,\n "1",\r\n "Heartbeat", {}]')
    log.event("CS001", "closed")
    assert log.render().splitlines()[0].endswith('[2,\\n "1",\\r\\n "Heartbeat", {}]')
    assert len(log.render().splitlines()) == 2
