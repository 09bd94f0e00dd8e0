"""The variance table (harness/variance.py): every modelled row really changes the wire, what it changes
stays valid and equivalent (harness/ocpp/equivalence.py forgives exactly it), and nothing else is forgiven."""

import json
import re
from pathlib import Path

import pytest

from harness.ocpp import schemas
from harness.ocpp.equivalence import canonical, configuration_keys, same
from harness.ocpp.framing import Call, loads
from harness.ocpp.versions import OcppVersion
from harness.variance import FREEDOMS, ROWS, Variance

HARNESS = Path(__file__).resolve().parents[2] / "harness"
V16, V201, V21 = OcppVersion.V16, OcppVersion.V201, OcppVersion.V21

# payloads a stand-in sends, each with the rows its variance can take
SAMPLES = [
    (V201, "Authorize", "request", {"idToken": {"idToken": "AbCd0123", "type": "ISO14443"}}),
    (V201, "TransactionEvent", "request", {
        "eventType": "Started", "timestamp": "2026-01-01T10:00:00.120Z", "triggerReason": "Authorized", "seqNo": 0,
        "transactionInfo": {"transactionId": "tx-1"}, "idToken": {"idToken": "AbCd0123", "type": "ISO14443"}}),
    (V21, "SetChargingProfile", "response", {"status": "Accepted"}),
    (V16, "StartTransaction", "request", {"connectorId": 1, "idTag": "AbCd0123", "meterStart": 0,
                                          "timestamp": "2026-01-01T10:00:00Z"}),
    (V16, "GetConfiguration", "response", {"configurationKey": [{"key": "HeartbeatInterval", "readonly": False,
                                                                 "value": "300"}], "unknownKey": ["NoSuchKey"]}),
    (V16, "DataTransfer", "request", {"vendorId": "org.example", "messageId": "Hello"}),
    (V16, "SetChargingProfile", "request", {"connectorId": 1, "csChargingProfiles": {
        "chargingProfileId": 1, "stackLevel": 0, "chargingProfilePurpose": "TxDefaultProfile",
        "chargingProfileKind": "Absolute", "chargingSchedule": {
            "chargingRateUnit": "W", "chargingSchedulePeriod": [{"startPeriod": 0, "limit": 11000}]}}}),
]


def _taken(draws: int, make) -> set[str]:
    taken: set[str] = set()
    for seed in range(draws):
        variance = Variance(seed, "sample")
        make(variance)
        taken |= set(variance.taken)
    return taken


def test_rows_are_unique_and_cite_their_source():
    assert len(ROWS) == len(FREEDOMS) >= 25
    for row in FREEDOMS:
        assert row.source and row.does and row.protocols, row


def test_every_modelled_row_is_taken_somewhere_in_the_harness():
    """A row no code takes is a row that never fires; a row the code takes must be in the table."""
    code = "\n".join(path.read_text(encoding="utf-8") for path in HARNESS.rglob("*.py"))
    taken = set(re.findall(r'took\(\s*"([a-z0-9_.]+)"', code))
    conditional = set(re.findall(r'"((?:ocpp|ocpi|json|actuator)\.[a-z_]+)"', code)) & set(ROWS)
    assert taken <= set(ROWS)
    silent = {row.id for row in FREEDOMS if row.modelled} - taken - conditional
    assert not silent, f"modelled rows that no code takes: {sorted(silent)}"


def test_the_value_rows_fire_and_keep_every_payload_valid_and_equivalent():
    fired: set[str] = set()
    for seed in range(60):
        variance = Variance(seed, "values")
        for version, action, direction, payload in SAMPLES:
            varied = variance.ocpp_payload(version, action, direction, payload)
            assert schemas.validate(version, action, direction, varied) == [], (seed, action, varied)
            assert same(version)(payload, varied), (seed, action, payload, varied)
        fired |= set(variance.taken)
    assert {"ocpp.id_token_case", "ocpp.cistring_case", "ocpp.timestamp_form", "ocpp.custom_data",
            "ocpp.status_info", "json.number_form"} <= fired


def test_the_text_rows_fire_and_the_text_parses_to_the_same_frame():
    frame = Call("id-1", "Authorize", {"idToken": {"idToken": "AbC", "type": "ISO14443"}, "n": [1, 2.5, None]})
    texts = set()

    def render(variance: Variance) -> None:
        text = variance.frame_text(frame)
        assert loads(text) == loads(json.dumps(frame.to_list()))
        texts.add(text)

    assert _taken(40, render) == {"json.key_order", "json.whitespace", "json.escapes"}
    assert len(texts) > 10


def test_a_lone_surrogate_is_written_as_its_escape():
    text = Variance(1).render({"id": "\ud800"})
    text.encode("utf-8")
    assert loads(text) == {"id": "\ud800"}


def test_message_and_transaction_ids_take_every_legal_form_and_stay_unique():
    variance = Variance(3, "ids")
    ids = [variance.message_id() for _ in range(400)]
    assert len(set(ids)) == len(ids) and all(1 <= len(i) <= 36 for i in ids) and "-1" not in ids
    assert any(i.isdigit() for i in ids) and any(i.isupper() for i in ids) and any('"' in i for i in ids)
    transactions = {variance.transaction_id("default") for _ in range(100)}
    assert "default" in transactions and all(len(t) <= 36 for t in transactions) and len(transactions) > 40
    numbers = {variance.transaction_number(7, taken={0}) for _ in range(100)}
    assert 7 in numbers and 0 not in numbers and any(n < 0 for n in numbers)
    assert "ocpp.message_id" in variance.taken and "ocpp.transaction_id" in variance.taken


def test_a_choice_depends_on_the_seed_the_test_and_its_own_call_only():
    """What a stand-in draws for one message is the same whatever it drew for others before (their lengths differ
    with the harness's own ids and time stamps) and in whatever order its tasks asked: a test replays alone."""
    frame = Call("1f0e", "Authorize", {"idToken": {"idToken": "AbCd0123", "type": "ISO14443"}})
    one, other = Variance(7, "node"), Variance(7, "node")
    one.render({"id": "a" * 3, "at": "2026-01-01T10:00:00Z"})
    other.render({"id": "b" * 40, "at": "2026-01-01T10:00:00.123456Z", "more": ["x", "y"]})
    one.timestamp("2026-01-01T10:00:00Z")
    other.timestamp("2026-03-05T11:12:13.987654Z")
    other.answer_delay(30.0)
    assert [one.frame_text(frame) for _ in range(20)] == [other.frame_text(frame) for _ in range(20)]
    assert [one.message_id() for _ in range(5)] == [other.message_id() for _ in range(5)]
    assert one.timestamp("2026-02-01T10:00:00.5Z") == other.timestamp("2026-02-01T10:00:00.5Z")
    seeds = {tuple(Variance(seed, "node").frame_text(frame) for _ in range(1)) for seed in range(20)}
    assert len(seeds) > 5   # and the seed still decides


def test_timestamps_keep_their_instant():
    variance = Variance(5)
    forms = {variance.timestamp("2026-01-01T10:00:00.120+00:00") for _ in range(60)}
    assert any(f.endswith("Z") for f in forms) and any(f.endswith("+00:00") for f in forms)
    assert all(".12" in f for f in forms)   # never fewer digits than the instant needs
    assert variance.timestamp("2026-01-01T10:00:00+02:00") == "2026-01-01T10:00:00+02:00"   # another zone stays


def test_answer_delays_stay_within_half_the_bound_and_refusals_spare_the_undoing_actions():
    variance = Variance(11)
    delays = [variance.answer_delay(10.0) for _ in range(200)]
    assert 0 in delays and max(delays) <= 5.0 and any(d > 0 for d in delays)
    assert not any(variance.refuses_action("unplug") for _ in range(300))
    assert any(Variance(seed).refuses_action("plug_in") for seed in range(200))


@pytest.mark.parametrize("version, a, b", [
    (V201, {"idToken": {"idToken": "abc", "type": "ISO14443"}}, {"idToken": {"idToken": "abd", "type": "ISO14443"}}),
    (V201, {"idToken": {"idToken": "abc", "type": "ISO14443"}}, {"idToken": {"idToken": "abc", "type": "Local"}}),
    (V201, {"vendorId": "Org"}, {"vendorId": "org"}),        # 2.x vendorId is not case-insensitive
    (V201, {"transactionId": "Tx"}, {"transactionId": "tx"}),
    (V16, {"limit": 10}, {"limit": 10.5}),
    (V16, {"expiryDate": "2026-01-01T10:00:00Z"}, {"expiryDate": "2026-01-01T10:00:01Z"}),
    (V201, {"evseId": 1}, {"evseId": 1, "connectorId": 1}),
])
def test_equivalence_forgives_nothing_else(version, a, b):
    assert not same(version)(a, b)


def test_equivalence_forgives_the_freedoms():
    assert canonical(V16, {"key": ["HeartbeatInterval"]}) == canonical(V16, {"key": ["heartbeatINTERVAL"]})
    assert same(V201)({"a": 1, "t": "2026-01-01T10:00:00Z"},
                      {"a": 1.0, "t": "2026-01-01T10:00:00.000+00:00", "customData": {"vendorId": "x"}})
    assert configuration_keys({"configurationKey": [{"key": "HeartBeatInterval", "value": "1"}]}) == {
        "heartbeatinterval": {"key": "HeartBeatInterval", "value": "1"}}


def test_an_action_is_refused_for_the_whole_test_or_not_at_all():
    """An adapter does an action or does not: a refusal decided once holds for every later request of it."""
    for seed in range(300):
        variance = Variance(seed, "actions")
        answers = {variance.refuses_action("issue_token_a") for _ in range(30)}
        assert len(answers) == 1, seed


def test_independent_reports_come_in_any_order_and_the_station_offers_other_subprotocols_after_its_own():
    orders, offers = set(), set()
    for seed in range(40):
        variance = Variance(seed, "order")
        orders.add(tuple(variance.any_order([1, 2, 3])))
        offer = variance.offer(V201)
        assert offer[0] == "ocpp2.0.1" and len(set(offer)) == len(offer)
        offers.add(len(offer))
    assert len(orders) > 3 and (1, 2, 3) in orders
    assert 1 in offers and max(offers) > 1


def test_a_meter_value_member_equal_to_its_default_may_be_left_out():
    sampled = {"connectorId": 1, "meterValue": [{"timestamp": "2026-01-01T10:00:00Z", "sampledValue": [
        {"value": "10", "measurand": "Energy.Active.Import.Register", "unit": "Wh", "context": "Sample.Periodic"}]}]}
    left_out = set()
    for seed in range(40):
        variance = Variance(seed, "defaults")
        varied = variance.ocpp_payload(V16, "MeterValues", "request", sampled)
        assert same(V16)(sampled, varied)
        left_out |= set(sampled["meterValue"][0]["sampledValue"][0]) - set(varied["meterValue"][0]["sampledValue"][0])
    assert left_out == {"measurand", "unit", "context"}
    assert not same(V16)({"measurand": "Power.Active.Import"}, {})
