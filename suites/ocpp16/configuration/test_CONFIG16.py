"""CONFIG16 — GetConfiguration and ChangeConfiguration in 1.6.

Rules (spec 002 Classes KeyValue, Messages GetConfiguration/ChangeConfiguration, ConfigurationStatus,
behaviour rules 14 and 17; the store's rules K1-K3 in harness/reference/v16/config.py):
- G1  GetConfiguration without keys reports the charge point's keys, SupportedFeatureProfiles with
      Core among them (TC_019_CS); with keys, the known ones in configurationKey and the others in
      unknownKey;
- G2  ChangeConfiguration of a writable key is Accepted and GetConfiguration then reports the new
      value (TC_021_CS);
- G3  a readonly key is not changed: Rejected, the value stays;
- G4  an unknown key is answered NotSupported;
- G5  a measurand list with an unsupported measurand is Rejected and changes nothing (rule 14);
- G6  the central system sends the keys and values it was asked to.
"""

import secrets

import pytest

from harness.arena import CSMS
from harness.suite import OCPP16, case, certified
from harness.verdict import check_equal, finding, require

pytestmark = case("CONFIG16", block="Core (1.6)", roles=("csms", "cs"), protocols=OCPP16)

SAMPLE_INTERVAL = "MeterValueSampleInterval"


async def _get(ocpp, keys=None):
    """GetConfiguration from either side; the answer as {key: KeyValue} and the unknown keys."""
    body = {"keys": keys} if keys else {}
    exchange = await ocpp.exchange(CSMS, "GetConfiguration", {"key": keys} if keys else {},
                                   trigger=("get_configuration", body),
                                   rule="G6: the central system sends GetConfiguration when asked")
    if ocpp.is_sut(CSMS):
        check_equal("G6", "GetConfiguration.req key", keys, exchange.request.get("key") or None)
    answer = exchange.response or {}
    return {k["key"]: k for k in answer.get("configurationKey", [])}, answer.get("unknownKey", [])


async def _change(ocpp, key, value):
    exchange = await ocpp.exchange(CSMS, "ChangeConfiguration", {"key": key, "value": value},
                                   trigger=("change_configuration", {"key": key, "value": value}),
                                   rule="G6: the central system sends ChangeConfiguration when asked")
    if ocpp.is_sut(CSMS):
        check_equal("G6", "ChangeConfiguration.req", {"key": key, "value": value}, exchange.request)
    return exchange.response["status"]


@certified(pytestmark, cs="TC_019_CS", csms="TC_019_1_CSMS")
async def test_all_keys_are_reported(ocpp):
    """G1: every key is reported, SupportedFeatureProfiles lists Core."""
    keys, _ = await _get(ocpp)
    profiles = keys.get("SupportedFeatureProfiles", {}).get("value") or ""
    require("Core" in [p.strip() for p in profiles.split(",")], "G1 / rule 17 (TC_019_CS): SupportedFeatureProfiles "
            "lists the Core profile", "GetConfiguration.conf does not report Core among SupportedFeatureProfiles",
            expected="Core,...", actual=keys.get("SupportedFeatureProfiles"))


async def test_known_and_unknown_keys(ocpp):
    """G1: asked for a known and an unknown key, the charge point splits them."""
    unknown = "NoSuchKey" + secrets.token_hex(4)
    keys, unknown_keys = await _get(ocpp, ["HeartbeatInterval", unknown])
    require("HeartbeatInterval" in keys, "G1: a known key is in configurationKey", "HeartbeatInterval is not reported",
            expected="HeartbeatInterval", actual=sorted(keys))
    require(unknown in unknown_keys, "G1: an unknown key is in unknownKey", "the unknown key is not in unknownKey",
            expected=[unknown], actual=unknown_keys)


@certified(pytestmark, cs="TC_021_CS", csms="TC_021_CSMS")
async def test_writable_key_is_changed(ocpp):
    """G2: MeterValueSampleInterval is changed, and GetConfiguration shows the new value."""
    before, _ = await _get(ocpp, [SAMPLE_INTERVAL])
    old = before.get(SAMPLE_INTERVAL, {}).get("value", "0")
    new = "60" if old != "60" else "120"
    check_equal("G2 (TC_021_CS step 2): a writable key is changed", "ChangeConfiguration.conf status", "Accepted",
                await _change(ocpp, SAMPLE_INTERVAL, new))
    after, _ = await _get(ocpp, [SAMPLE_INTERVAL])
    check_equal("G2 (TC_021_CS step 4): GetConfiguration shows the new value", f"{SAMPLE_INTERVAL} value", new,
                after.get(SAMPLE_INTERVAL, {}).get("value"))


@pytest.mark.sut_roles("cs")
async def test_readonly_key_is_not_changed(ocpp):
    """G3: a key the charge point reports readonly is Rejected and keeps its value."""
    keys, _ = await _get(ocpp)
    readonly = sorted((k for k in keys.values() if k["readonly"] and k.get("value") is not None),
                      key=lambda k: k["key"] != "NumberOfConnectors")
    require(readonly, "G3", "the charge point reports no readonly key with a value", expected="NumberOfConnectors",
            actual=sorted(keys))
    key, value = readonly[0]["key"], readonly[0]["value"]
    other = str(int(value) + 1) if value.isdigit() else value + "x"
    status = await _change(ocpp, key, other)
    require(status not in ("Accepted", "RebootRequired"), "G3 / KeyValue.readonly: a readonly key cannot be set by "
            "ChangeConfiguration", f"the readonly key {key} was changed", expected="Rejected", actual=status)
    if status != "Rejected":
        finding("G3", f"changing the readonly key {key} should be Rejected, got {status}")
    after, _ = await _get(ocpp, [key])
    check_equal("G3: the readonly value stays", f"{key} value", value, after.get(key, {}).get("value"))


@pytest.mark.sut_roles("cs")
async def test_unknown_key_is_not_supported(ocpp):
    """G4: ChangeConfiguration of a key the charge point does not have is NotSupported."""
    check_equal("G4 / ConfigurationStatus NotSupported", "ChangeConfiguration.conf status", "NotSupported",
                await _change(ocpp, "NoSuchKey" + secrets.token_hex(4), "1"))


@pytest.mark.sut_roles("cs")
async def test_unsupported_measurand_is_rejected(ocpp):
    """G5: a measurand list with a measurand the charge point cannot sample is Rejected and changes nothing."""
    key = "MeterValuesSampledData"
    before, _ = await _get(ocpp, [key])
    status = await _change(ocpp, key, "Energy.Active.Import.Register,NoSuch.Measurand")
    check_equal("G5 / behaviour rule 14: an unsupported measurand is Rejected", "ChangeConfiguration.conf status",
                "Rejected", status)
    after, _ = await _get(ocpp, [key])
    check_equal("G5 / behaviour rule 14: nothing changes", f"{key} value", before.get(key, {}).get("value"),
                after.get(key, {}).get("value"))
