"""The 1.6 charge point's configuration store (rules K1-K3): no sockets."""

import pytest

from harness.reference.v16.config import AUTHORIZATION_KEY, ConfigurationStore, new_authorization_key
from harness.wire import REDACTOR

KEY = bytes(range(20))


@pytest.fixture
def store():
    return ConfigurationStore.for_charge_point(2, KEY, smart_charging=True)


def test_all_keys_are_reported_and_the_secret_never(store):
    keys = {k["key"]: k for k in store.get()["configurationKey"]}
    assert keys["NumberOfConnectors"] == {"key": "NumberOfConnectors", "readonly": True, "value": "2"}
    assert keys["SupportedFeatureProfiles"]["value"] == \
        "Core,FirmwareManagement,LocalAuthListManagement,Reservation,RemoteTrigger,SmartCharging"
    assert keys[AUTHORIZATION_KEY] == {"key": AUTHORIZATION_KEY, "readonly": False}
    assert all(isinstance(k["readonly"], bool) for k in keys.values())


def test_known_and_unknown_keys_are_split_case_insensitively(store):
    answer = store.get(["heartbeatinterval", "NoSuchKey"])
    assert [k["key"] for k in answer["configurationKey"]] == ["HeartbeatInterval"]
    assert answer["unknownKey"] == ["NoSuchKey"]
    assert "unknownKey" not in store.get(["HeartbeatInterval"])


@pytest.mark.parametrize("key, value, status, stored", [
    ("MeterValueSampleInterval", "60", "Accepted", "60"),
    ("MeterValueSampleInterval", "sixty", "Rejected", "0"),
    ("NumberOfConnectors", "3", "Rejected", "2"),
    ("NoSuchKey", "1", "NotSupported", None),
    ("StopTransactionOnInvalidId", "FALSE", "Accepted", "FALSE"),
    ("StopTransactionOnInvalidId", "maybe", "Rejected", "true"),
    ("MeterValuesSampledData", "Energy.Active.Import.Register,NoSuch.Measurand", "Rejected",
     "Energy.Active.Import.Register"),
    ("StopTxnSampledData", "", "Accepted", ""),
    ("WebSocketPingInterval", "30", "RebootRequired", "30"),
])
def test_change_answers_its_configuration_status(store, key, value, status, stored):
    assert store.change(key, value) == status
    assert store.value(key) == stored


@pytest.mark.parametrize("value, status", [(bytes(range(20, 40)).hex(), "Accepted"), ("zz" * 20, "Rejected"),
                                           (bytes(16).hex(), "Rejected"), (bytes(21).hex(), "Rejected")])
def test_authorization_key_takes_20_bytes_in_hex(store, value, status):
    assert store.change(AUTHORIZATION_KEY, value) == status


def test_a_new_key_is_masked_in_every_form_before_it_travels():
    key = new_authorization_key("CS001")
    frame = f'[2,"1","ChangeConfiguration",{{"key":"AuthorizationKey","value":"{key.hex()}"}}]'
    assert key.hex() not in REDACTOR.redact(frame)
    assert key.hex().upper() not in REDACTOR.redact(frame.upper())
    assert len(key) == 20


def test_the_charge_points_own_writes_skip_the_readonly_check(store):
    store.set("NumberOfConnectors", "5")
    assert store.integer("NumberOfConnectors") == 5 and store.flag("StopTransactionOnInvalidId") is True
