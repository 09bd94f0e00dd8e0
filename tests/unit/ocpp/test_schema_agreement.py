"""The compiled validator and the detailed one agree on every payload (harness/ocpp/schemas.py).

The compiled validator (jsonschema-rs) decides alone when it accepts, so it must never accept what
the detailed one (jsonschema, which names the field and picks the CALLERROR code) rejects, nor the
other way round. Payloads are generated from the real schemas of several actions in all three
versions (see schema_payloads.py), as the harness builds them (floats) and as they come off the
wire (Decimals), valid ones and ones with faults at any depth.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from harness.ocpp import schemas
from harness.ocpp.framing import dumps, loads
from harness.ocpp.versions import OcppVersion
from schema_payloads import PayloadStrategies

V16, V201, V21 = OcppVersion.V16, OcppVersion.V201, OcppVersion.V21
# Several actions of each version: date-times at every depth, 1.6's Decimal multipleOf, open
# CustomData objects, long arrays, integers with bounds; 2.1's schemas resolve through "$id".
ACTIONS = {
    V16: ["Authorize", "BootNotification", "StartTransaction", "StatusNotification", "MeterValues",
          "SetChargingProfile", "RemoteStartTransaction", "GetCompositeSchedule", "GetConfiguration"],
    V201: ["Authorize", "BootNotification", "TransactionEvent", "DataTransfer", "SetChargingProfile",
           "NotifyEVChargingNeeds", "GetCompositeSchedule", "NotifyReport"],
    V21: ["Authorize", "BootNotification", "TransactionEvent", "DataTransfer", "NotifyPeriodicEventStream",
          "SetChargingProfile", "NotifySettlement"],
}
CASES = [(version, action, direction) for version, actions in ACTIONS.items() for action in actions
         for direction in ("request", "response")
         if not (action == "NotifyPeriodicEventStream" and direction == "response")]   # a SEND: no response
FAST = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def strategies(version: OcppVersion, action: str, direction: str) -> PayloadStrategies:
    return PayloadStrategies(schemas._schema(version, action, direction), version)


def verdicts(version: OcppVersion, action: str, direction: str, payload) -> tuple[bool, bool]:
    """(the compiled validator accepts, the detailed one finds nothing)."""
    fast = schemas.compiled(version, action, direction).is_valid(payload)
    return fast, not list(schemas.detailed(version, action, direction).iter_errors(payload))


def check_agreement(version: OcppVersion, action: str, direction: str, payload) -> bool:
    """Both validators give one verdict, on the payload as built and as parsed off the wire; returns it."""
    built = verdicts(version, action, direction, payload)
    received = verdicts(version, action, direction, loads(dumps(payload)))
    assert built[0] == built[1], f"built {payload!r}: compiled says {built[0]}, detailed says {built[1]}"
    assert received[0] == received[1], f"received {dumps(payload)}: compiled says {received[0]}, detailed {received[1]}"
    return built[0] and received[0]


@pytest.mark.parametrize("version, action, direction", CASES, ids=lambda v: getattr(v, "value", v))
def test_valid_payloads_pass_both_and_a_fault_at_the_top_fails_both(version, action, direction):
    """Agreement: a payload generated to follow its schema is accepted by both, built and received; with an
    unknown property at its top, or a required one missing, it is rejected by both and reported."""
    root = schemas._schema(version, action, direction)
    faults = [lambda payload, _: {**payload, "unknownField": 1}]
    if root.get("required"):
        faults.append(lambda payload, name: {k: v for k, v in payload.items() if k != name})

    @FAST
    @given(strategies(version, action, direction).payload(faults=False), st.sampled_from(faults),
           st.sampled_from(root.get("required") or [""]))
    def judged(payload, fault, name):
        assert check_agreement(version, action, direction, payload), payload
        broken = fault(payload, name)
        assert not check_agreement(version, action, direction, broken), broken
        assert schemas.validate(version, action, direction, broken)
    judged()


@pytest.mark.parametrize("version, action, direction", CASES, ids=lambda v: getattr(v, "value", v))
def test_payloads_with_faults_get_one_verdict_from_both(version, action, direction):
    """Agreement: a payload with faults at any depth (or borderline values) gets the same verdict from both."""
    @FAST
    @given(strategies(version, action, direction).payload(faults=True))
    def agree(payload):
        check_agreement(version, action, direction, payload)
    agree()


def test_every_version_and_several_actions_are_covered():
    """Agreement: the property runs on all three versions and both directions of each action."""
    assert {version for version, _, _ in CASES} == set(OcppVersion)
    assert all(len(actions) >= 5 for actions in ACTIONS.values())
