"""The reference CSMS's decisions, worked out by hand from spec 001's order of checks."""

import pytest

from harness.reference.tokens import TokenRecord, TokenStore
from harness.reference.vendors import VendorRegistry, echo, refuse

STORE = TokenStore([
    TokenRecord("OK", "ISO14443"),
    TokenRecord("BLK", "ISO14443", blocked=True, expired=True),
    TokenRecord("EXP", "ISO14443", expired=True, stations=("OTHER",)),
    TokenRecord("ELSEWHERE", "ISO14443", stations=("OTHER",), current="DC"),
    TokenRecord("DC", "ISO14443", current="DC", evse_ids=(2,)),
    TokenRecord("EVSE2", "ISO14443", evse_ids=(2,), group="G1"),
])


def decide(token, *, station="CS1", currents=frozenset({"AC"}), in_transaction=False):
    return STORE.decide({"idToken": token, "type": "ISO14443"}, station=station, currents=set(currents),
                        in_transaction=in_transaction)


@pytest.mark.parametrize("token, kwargs, expected", [
    ("NOPE", {}, {"status": "Invalid"}),                                  # step 1
    ("BLK", {}, {"status": "Blocked"}),                                   # step 2 before 3
    ("EXP", {}, {"status": "Expired"}),                                   # step 3 before 5
    ("OK", {"in_transaction": True}, {"status": "ConcurrentTx"}),         # step 4
    ("ELSEWHERE", {}, {"status": "NotAtThisLocation"}),                   # step 5 before 6
    ("DC", {}, {"status": "NotAllowedTypeEVSE"}),                         # step 6 before 7
    ("DC", {"currents": {"AC", "DC"}}, {"status": "Accepted", "evseId": [2]}),   # step 7
    ("EVSE2", {}, {"status": "Accepted", "evseId": [2], "groupIdToken": {"idToken": "G1", "type": "Central"}}),
    ("OK", {}, {"status": "Accepted"}),                                   # step 8
])
def test_order_of_checks(token, kwargs, expected):
    assert decide(token, **kwargs) == expected


def test_lookup_is_case_insensitive_on_id_and_type():
    assert STORE.decide({"idToken": "ok", "type": "iso14443"}, station="CS1", currents={"AC"},
                        in_transaction=False) == {"status": "Accepted"}


def test_group_is_reported_even_when_rejected():
    store = TokenStore([TokenRecord("X", "ISO14443", blocked=True, group="G")])
    info = store.decide({"idToken": "X", "type": "ISO14443"}, station="S", currents={"AC"}, in_transaction=False)
    assert info == {"status": "Blocked", "groupIdToken": {"idToken": "G", "type": "Central"}}


def test_vendor_registry_answers_each_data_transfer_status():
    registry = VendorRegistry()
    registry.register("com.acme", None, echo)
    registry.register("com.acme", "Echo", echo)
    registry.register("com.acme", "No", refuse)
    assert registry.answer({"vendorId": "org.other"}) == {"status": "UnknownVendorId"}
    assert registry.answer({"vendorId": "com.acme", "messageId": "Nope"}) == {"status": "UnknownMessageId"}
    assert registry.answer({"vendorId": "com.acme", "messageId": "Echo", "data": [1]}) == \
        {"status": "Accepted", "data": [1]}
    assert registry.answer({"vendorId": "com.acme"}) == {"status": "Accepted"}
    assert registry.answer({"vendorId": "com.acme", "messageId": "No"}) == {"status": "Rejected"}
