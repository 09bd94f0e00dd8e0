"""CONFIG16 — GetConfiguration and ChangeConfiguration in 1.6 (spec 002 Classes KeyValue, Messages
GetConfiguration/ChangeConfiguration, ConfigurationStatus, behaviour rules 14 and 17; the reference
store's rules K1-K3 are in harness/reference/v16/config.py).

A readonly key must not change; answering its change Rejected is the reading this suite prefers
(ConfigurationStatus), another refusal (NotSupported) is a finding, not a failure.
"""

import secrets

import pytest

from harness.roles import CS, CSMS
from harness.errors import NotApplicable
from harness.ocpp.equivalence import configuration_keys, same
from harness.ocpp.v16 import unsupported_measurands
from harness.ocpp.versions import OcppVersion
from harness.rules import RuleTable, must, should
from harness.suite import OCPP16, TC, case, checks, needs
from harness.verdict import check_equal, require


class CONFIG16(RuleTable):
    """The rules of CONFIG16."""
    sent_as_asked = must("spec 002 Messages GetConfiguration, ChangeConfiguration",
                         "the central system sends the keys and values it was asked to", by=CSMS)
    core_profile = must("spec 002 What the service does 2; Behavior rule 17",
                        "GetConfiguration reports SupportedFeatureProfiles, with Core among them", by=CS)
    known_keys = must("spec 002 Messages GetConfiguration",
                      "asked for keys, the charge point reports the known ones in configurationKey and the others "
                      "in unknownKey", by=CS)
    change_applied = must("spec 002 Classes KeyValue (readonly); Enumerations ConfigurationStatus",
                          "a writable key is changed: Accepted, and GetConfiguration then reports the new value", by=CS)
    readonly = must("spec 002 Classes KeyValue (readonly)",
                    "a key the charge point reports readonly cannot be set by ChangeConfiguration: its value stays",
                    by=CS)
    readonly_rejected = should("spec 002 Enumerations ConfigurationStatus",
                               "the change of a readonly key is answered Rejected", by=CS)
    unknown_key = must("spec 002 Enumerations ConfigurationStatus", "the change of an unknown key is NotSupported",
                       by=CS)
    invalid_value = must("OCPP 1.6 §5.3 Change Configuration (on a failure to set the value the Charge Point SHALL "
                         "answer Rejected); spec 002 Enumerations ConfigurationStatus",
                         "a value the key cannot take is Rejected and the key keeps its value", by=CS)
    unsupported_measurand = must("spec 002 Behavior rule 14; Errors",
                                 "a measurand list with an unsupported measurand is Rejected and changes nothing",
                                 by=CS)


pytestmark = case("CONFIG16", block="Core (1.6)", roles=("csms", "cs"), protocols=OCPP16)

SAMPLE_INTERVAL = "MeterValueSampleInterval"
SAME = same(OcppVersion.V16)   # key names are CiString(50)


async def _get(ocpp, keys=None):
    """GetConfiguration from either side; the answer as {key: KeyValue} and the unknown keys, key names
    case-folded (CiString(50): a charge point may spell them in any case)."""
    body = {"keys": keys} if keys else {}

    def keys_asked(request: dict) -> bool:
        return SAME({"key": keys}, {"key": request.get("key") or None})

    exchange = await ocpp.exchange(CSMS, "GetConfiguration", {"key": keys} if keys else {},
                                   trigger=("get_configuration", body), rule=CONFIG16.sent_as_asked, asked=keys_asked)
    if ocpp.is_sut(CSMS):
        check_equal(CONFIG16.sent_as_asked, "GetConfiguration.req key", {"key": keys},
                    {"key": exchange.request.get("key") or None}, same=SAME)
    answer = exchange.result or {}
    return configuration_keys(answer), [key.casefold() for key in answer.get("unknownKey", [])]


async def _change(ocpp, key, value):
    exchange = await ocpp.exchange(CSMS, "ChangeConfiguration", {"key": key, "value": value},
                                   trigger=("change_configuration", {"key": key, "value": value}),
                                   rule=CONFIG16.sent_as_asked,
                                   asked=lambda request: SAME({"key": key, "value": value}, request))
    if ocpp.is_sut(CSMS):
        check_equal(CONFIG16.sent_as_asked, "ChangeConfiguration.req", {"key": key, "value": value}, exchange.request,
                    same=SAME)
    return exchange.result["status"]


@checks(CONFIG16.sent_as_asked, CONFIG16.core_profile, cs=TC("TC_019_CS"), csms=TC("TC_019_1_CSMS"))
async def test_all_keys_are_reported(ocpp):
    """Every key is reported, SupportedFeatureProfiles lists Core."""
    keys, _ = await _get(ocpp)
    profiles = keys.get("supportedfeatureprofiles", {}).get("value") or ""
    require("Core" in [p.strip() for p in profiles.split(",")], CONFIG16.core_profile,
            "GetConfiguration.conf does not report Core among SupportedFeatureProfiles", expected="Core,...",
            actual=keys.get("supportedfeatureprofiles"))


@checks(CONFIG16.sent_as_asked, CONFIG16.known_keys)
async def test_known_and_unknown_keys(ocpp):
    """Asked for a known and an unknown key, the charge point splits them."""
    unknown = "NoSuchKey" + secrets.token_hex(4)
    keys, unknown_keys = await _get(ocpp, ["HeartbeatInterval", unknown])
    require("heartbeatinterval" in keys, CONFIG16.known_keys, "HeartbeatInterval is not reported in configurationKey",
            expected="HeartbeatInterval", actual=sorted(keys))
    require(unknown.casefold() in unknown_keys, CONFIG16.known_keys, "the unknown key is not in unknownKey",
            expected=[unknown], actual=unknown_keys)


@checks(CONFIG16.sent_as_asked, CONFIG16.change_applied, cs=TC("TC_021_CS"), csms=TC("TC_021_CSMS"))
async def test_writable_key_is_changed(ocpp):
    """MeterValueSampleInterval is changed, and GetConfiguration shows the new value. RebootRequired is an
    answer the charge point may give: the new value cannot be read back without a reboot, so the test does
    not apply; Rejected for a plain interval of this required writable key is read as a failure."""
    before, _ = await _get(ocpp, [SAMPLE_INTERVAL])
    old = before.get(SAMPLE_INTERVAL.casefold(), {}).get("value", "0")
    new = "60" if old != "60" else "120"
    status = await _change(ocpp, SAMPLE_INTERVAL, new)
    if status == "RebootRequired":   # a ConfigurationStatus the charge point may give: the value waits for a reboot
        raise NotApplicable(f"the charge point applies {SAMPLE_INTERVAL} only after a reboot (RebootRequired)")
    check_equal(CONFIG16.change_applied, "ChangeConfiguration.conf status", "Accepted", status)
    after, _ = await _get(ocpp, [SAMPLE_INTERVAL])
    check_equal(CONFIG16.change_applied, f"{SAMPLE_INTERVAL} value", new,
                after.get(SAMPLE_INTERVAL.casefold(), {}).get("value"))


@pytest.mark.sut_roles("cs")
@checks(CONFIG16.readonly, CONFIG16.readonly_rejected)
async def test_readonly_key_is_not_changed(ocpp):
    """A key the charge point reports readonly is Rejected and keeps its value."""
    keys, _ = await _get(ocpp)
    readonly = sorted((k for k in keys.values() if k["readonly"] and k.get("value") is not None),
                      key=lambda k: k["key"].casefold() != "numberofconnectors")
    require(readonly, CONFIG16.readonly, "the charge point reports no readonly key with a value",
            expected="NumberOfConnectors", actual=sorted(keys))
    key, value = readonly[0]["key"], readonly[0]["value"]
    other = str(int(value) + 1) if value.isdigit() else value + "x"
    status = await _change(ocpp, key, other)
    require(status not in ("Accepted", "RebootRequired"), CONFIG16.readonly, f"the readonly key {key} was changed",
            expected="Rejected", actual=status)
    check_equal(CONFIG16.readonly_rejected, f"ChangeConfiguration.conf status for the readonly key {key}",
                "Rejected", status)
    after, _ = await _get(ocpp, [key])
    check_equal(CONFIG16.readonly, f"{key} value", value, after.get(key.casefold(), {}).get("value"))


@checks(CONFIG16.sent_as_asked, CONFIG16.unknown_key, cs=TC("TC_040_1_CS"), csms=TC("TC_040_1_CSMS"))
async def test_unknown_key_is_not_supported(ocpp):
    """ChangeConfiguration of a key the charge point does not have is NotSupported. The central system sends
    it as asked; after NotSupported the texts ask nothing more of it."""
    check_equal(CONFIG16.unknown_key, "ChangeConfiguration.conf status", "NotSupported",
                await _change(ocpp, "NoSuchKey" + secrets.token_hex(4), "1"))


@pytest.mark.parametrize("value", ["-60", "sixty"])
@checks(CONFIG16.sent_as_asked, CONFIG16.invalid_value, csms=TC("TC_040_2_CSMS"))
async def test_invalid_value_is_rejected(ocpp, value):
    """MeterValueSampleInterval (an integer of seconds) set to a value that is not one is Rejected and keeps
    its value. The central system sends it as asked; after Rejected the texts ask nothing more of it."""
    before, _ = await _get(ocpp, [SAMPLE_INTERVAL])
    status = await _change(ocpp, SAMPLE_INTERVAL, value)
    check_equal(CONFIG16.invalid_value, f"ChangeConfiguration.conf status for {SAMPLE_INTERVAL}={value}", "Rejected",
                status)
    after, _ = await _get(ocpp, [SAMPLE_INTERVAL])
    check_equal(CONFIG16.invalid_value, f"{SAMPLE_INTERVAL} value after the refused change",
                before.get(SAMPLE_INTERVAL.casefold(), {}).get("value"),
                after.get(SAMPLE_INTERVAL.casefold(), {}).get("value"))


def _unsupported_measurand(profile) -> str:
    """A valid Measurand the charge point does not sample, by the profile's [station] measurands."""
    supported = profile.get("station.measurands")
    if not supported:
        raise NotApplicable("the profile does not list the measurands the charge point samples ([station] "
                            "measurands): the test cannot name one it does not support")
    return unsupported_measurands(supported)[0]


@pytest.mark.sut_roles("cs")
@checks(CONFIG16.unsupported_measurand)
@needs(lambda given: _unsupported_measurand(given.profile))
async def test_unsupported_measurand_is_rejected(ocpp, profile):
    """A measurand list with a valid measurand the charge point cannot sample (none of the profile's
    [station] measurands) is Rejected and changes nothing."""
    key = "MeterValuesSampledData"
    before, _ = await _get(ocpp, [key])
    status = await _change(ocpp, key, ",".join([*profile.get("station.measurands"), _unsupported_measurand(profile)]))
    check_equal(CONFIG16.unsupported_measurand, "ChangeConfiguration.conf status", "Rejected", status)
    after, _ = await _get(ocpp, [key])
    check_equal(CONFIG16.unsupported_measurand, f"{key} value", before.get(key.casefold(), {}).get("value"),
                after.get(key.casefold(), {}).get("value"))
