"""The 2.x reference station's authorization cache and device-model variables, without a socket."""

from datetime import timedelta
from types import SimpleNamespace

from harness import clock
from harness.ocpp.versions import OcppVersion
from harness.reference import ReferenceStation
from harness.settings import reference_profile

V201 = OcppVersion.V201
CARD = {"idToken": "AA00000001", "type": "ISO14443"}


def _station(answer: dict) -> tuple[ReferenceStation, list[str]]:
    """An online station whose CSMS answers every Authorize with ``answer``; the actions it sent are listed."""
    station = ReferenceStation(reference_profile(), V201)
    station.connection = SimpleNamespace(closed=False)   # online: the CSMS is asked (offline it decides alone)
    sent: list[str] = []

    async def call(action, payload):
        sent.append(action)
        return {"idTokenInfo": dict(answer)} if action == "Authorize" else {}

    station.call = call
    station.connection = SimpleNamespace(closed=False)   # connected: the CSMS can be asked
    return station, sent


async def test_a_cached_acceptance_spares_the_authorize_and_a_cached_refusal_asks_again():
    accepted, sent = _station({"status": "Accepted"})
    await accepted.decision(CARD)
    assert (await accepted.decision(CARD | {"idToken": "aa00000001"}))["status"] == "Accepted"
    assert sent == ["Authorize"]
    blocked, sent = _station({"status": "Blocked"})
    await blocked.decision(CARD)
    await blocked.decision(CARD)
    assert sent == ["Authorize", "Authorize"]


async def test_an_expired_entry_central_tokens_and_a_disabled_cache_are_not_used():
    past = (clock.utcnow() - timedelta(seconds=1)).isoformat().replace("+00:00", "Z")
    station, sent = _station({"status": "Accepted", "cacheExpiryDateTime": past})
    await station.decision(CARD)
    await station.decision(CARD)
    assert sent == ["Authorize", "Authorize"]
    station, _ = _station({"status": "Accepted"})
    station.id_token_answered({"idToken": "APP-1", "type": "Central"}, {"status": "Accepted"})
    station.id_token_answered({"idToken": "", "type": "NoAuthorization"}, {"status": "Accepted"})
    assert station.cache == {}
    station.on_SetVariables(None, {"setVariableData": [
        {"component": {"name": "AuthCacheCtrlr"}, "variable": {"name": "Enabled"}, "attributeValue": "false"}]})
    station.id_token_answered(CARD, {"status": "Accepted"})
    assert station.cache == {} and station.on_ClearCache(None, {}) == {"status": "Rejected"}


def test_variables_are_read_and_set_and_unknown_ones_refused():
    station, _ = _station({"status": "Accepted"})
    answer = station.on_SetVariables(None, {"setVariableData": [
        {"component": {"name": "AuthCtrlr"}, "variable": {"name": "LocalPreAuthorize"}, "attributeValue": "False"},
        {"component": {"name": "AuthCtrlr"}, "variable": {"name": "Nonsense"}, "attributeValue": "1"},
        {"component": {"name": "NoSuchCtrlr"}, "variable": {"name": "Enabled"}, "attributeValue": "true"},
        {"component": {"name": "AuthCacheCtrlr"}, "variable": {"name": "Enabled"}, "attributeValue": "maybe"}]})
    assert [r["attributeStatus"] for r in answer["setVariableResult"]] == \
        ["Accepted", "UnknownVariable", "UnknownComponent", "Rejected"]
    read = station.on_GetVariables(None, {"getVariableData": [
        {"component": {"name": "AuthCtrlr"}, "variable": {"name": "LocalPreAuthorize"}}]})
    assert read["getVariableResult"][0]["attributeValue"] == "false"
    assert not station.flag("AuthCtrlr", "LocalPreAuthorize") and station.flag("AuthCacheCtrlr", "Enabled")
