"""harness/ocpp/ocmf.py: a signed reading verifies; a changed one, another key, a record that is not Base64
or not OCMF are told apart; an encoding the harness does not know is judged by its form only."""

import base64

from harness.ocpp.ocmf import SigningMeter, check

AT = "2026-01-01T00:00:00.000Z"


def _record(signed: dict) -> str:
    return base64.b64decode(signed["signedMeterData"]).decode()


def _with_record(signed: dict, record: str) -> dict:
    return signed | {"signedMeterData": base64.b64encode(record.encode()).decode()}


def test_a_signed_reading_verifies():
    signed = SigningMeter().sign(1200, "Sample.Periodic", AT, "tx-1")
    assert _record(signed).startswith("OCMF|")
    assert check(signed).verified is True


def test_a_changed_reading_does_not_verify():
    signed = SigningMeter().sign(1200, "Transaction.End", AT)
    changed = _with_record(signed, _record(signed).replace('"RV":1200', '"RV":1300'))
    assert check(changed).problem is None and check(changed).verified is False


def test_another_meters_key_does_not_verify():
    signed = SigningMeter().sign(5, "Sample.Clock", AT) | {"publicKey": SigningMeter().public_key}
    assert check(signed).verified is False


def test_an_earlier_key_is_used_when_none_is_sent():
    meter = SigningMeter()
    signed = meter.sign(5, "Sample.Clock", AT)
    del signed["publicKey"]
    assert check(signed).verified is None
    assert check(signed, meter.public_key).verified is True


def test_malformed_records_are_problems():
    signed = SigningMeter().sign(5, "Sample.Clock", AT)
    assert check(signed | {"signedMeterData": "OCMF|{}|{}"}).problem == "signedMeterData is not Base64"
    assert "not an OCMF record" in check(_with_record(signed, "OCMF|{broken")).problem
    assert check(signed | {"publicKey": "not base64!"}).problem == "publicKey is not Base64"


def test_another_encoding_is_judged_by_its_form_only():
    signed = SigningMeter().sign(5, "Sample.Clock", AT) | {"encodingMethod": "EDL"}
    assert check(signed).problem is None and check(signed).verified is None
