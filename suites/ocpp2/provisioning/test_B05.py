"""B05 — Set variables: the operator has the CSMS set variables of the station's device model
(SetVariablesRequest); the station answers one result per element, naming the attributeType asked (Actual when
none was), Accepted where it set the value. The requirements, in our words: docs/requirements/provisioning.md.

Readings chosen where the texts are silent: whether a station can set OCPPCommCtrlr.HeartbeatInterval is its
own (any status is legal; the value is read back only when Accepted); a value read back after an Accepted set
is the value set (SHOULD); an unknown component or variable, and a ReadOnly variable, are answered with the
status the enumeration describes for them (SHOULD)."""

import secrets

import pytest

from harness.errors import NotApplicable
from harness.roles import CS, CSMS
from harness.rules import RuleTable, must, should
from harness.suite import OCPP2, TC, case, checks
from harness.usecases.device_model import (AVAILABILITY_STATE, HEARTBEAT, UNKNOWN, UNKNOWN_VARIABLE, Variables,
                                           get_variables, set_variables, status_of_variable)
from harness.verdict import check_equal, check_in


class B05(RuleTable):
    """The rules of B05 (OCPP 2.0.1 part 2, B05; the same in 2.1)."""
    request = must("OCPP 2.0.1 part 2 SetVariablesRequest (setVariableData required)",
                   "the CSMS sets exactly the variables and values its operator asked for", by=CSMS)
    read_back = should("OCPP 2.0.1 part 2 B05.FR.10; B06.FR.10", "a variable set Accepted reads back (GetVariables) "
                       "with the value set", by=CS)
    unknown = should("OCPP 2.0.1 part 2 SetVariableStatusEnumType", "a component the station does not have is "
                     "answered UnknownComponent, a variable it does not have UnknownVariable", by=CS)
    read_only = should("OCPP 2.0.1 part 2 SetVariableStatusEnumType; part 2 appendix (ChargingStation."
                       "AvailabilityState is ReadOnly)", "a ReadOnly variable is not set: Rejected", by=CS)


pytestmark = case("B05", block="Provisioning", roles=("csms", "cs"), protocols=OCPP2)


def _interval() -> str:
    return str(600 + secrets.randbelow(3000))


@checks(B05.request, Variables.set_results, Variables.set_type, csms=TC("TC_B_09_CSMS", "ocpp2.0.1"))
async def test_set_one_variable(ocpp):
    """OCPPCommCtrlr.HeartbeatInterval set to a new value: one result, for it, attributeType Actual."""
    await set_variables(ocpp, [HEARTBEAT | {"attributeValue": _interval()}], B05.request)


@checks(B05.request, Variables.set_results, Variables.set_type, csms=TC("TC_B_10_CSMS", "ocpp2.0.1"))
async def test_set_two_variables(ocpp):
    """Two elements, one naming attributeType Actual: two results, the named type echoed."""
    await set_variables(ocpp, [HEARTBEAT | {"attributeValue": _interval(), "attributeType": "Actual"},
                               UNKNOWN_VARIABLE | {"attributeValue": "1"}], B05.request)


@pytest.mark.sut_roles("cs")
@checks(Variables.set_results, B05.read_back, Variables.get_results)
async def test_variable_set_reads_back(ocpp):
    """A set Accepted: GetVariables of the variable gives the value set."""
    value = _interval()
    results = await set_variables(ocpp, [HEARTBEAT | {"attributeValue": value}], B05.request)
    if status_of_variable(results, HEARTBEAT) != "Accepted":
        raise NotApplicable(f"the station did not set OCPPCommCtrlr.HeartbeatInterval: {results[0]}")
    read = await get_variables(ocpp, [HEARTBEAT], B05.request)
    check_equal(B05.read_back, "OCPPCommCtrlr.HeartbeatInterval read back", value, read[0].get("attributeValue"))


@pytest.mark.sut_roles("cs")
@pytest.mark.parametrize("unknown", ["component", "variable"])
@checks(Variables.set_results, B05.unknown)
async def test_set_unknown_variable(ocpp, unknown):
    """A component (variable) the device model does not have: UnknownComponent (UnknownVariable)."""
    item = UNKNOWN if unknown == "component" else UNKNOWN_VARIABLE
    results = await set_variables(ocpp, [item | {"attributeValue": "1"}], B05.request)
    expected = "UnknownComponent" if unknown == "component" else "UnknownVariable"
    check_equal(B05.unknown, f"SetVariableResult status for an unknown {unknown}", expected,
                status_of_variable(results, item))


@pytest.mark.sut_roles("cs")
@checks(Variables.set_results, B05.read_only)
async def test_set_read_only_variable(ocpp):
    """ChargingStation.AvailabilityState (ReadOnly) set: Rejected (or unknown, when the station reports none)."""
    results = await set_variables(ocpp, [AVAILABILITY_STATE | {"attributeValue": "Unavailable"}], B05.request)
    check_in(B05.read_only, "SetVariableResult status of a ReadOnly variable",
             ("Rejected", "UnknownComponent", "UnknownVariable"), status_of_variable(results, AVAILABILITY_STATE))
