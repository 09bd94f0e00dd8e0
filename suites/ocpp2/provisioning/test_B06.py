"""B06 — Get variables: the operator has the CSMS read variables of the station's device model
(GetVariablesRequest); the station answers one result per element, naming the attributeType asked (Actual when
none was), Accepted with the value where it found one. The requirements, in our words:
docs/requirements/provisioning.md.

Readings chosen where the texts are silent: whether a station has OCPPCommCtrlr.HeartbeatInterval is its own
(an unknown variable is a legal answer); an unknown component or variable is answered with the status the
enumeration describes for it (SHOULD)."""

import pytest

from harness.roles import CS, CSMS
from harness.rules import RuleTable, must, should
from harness.suite import OCPP2, TC, case, checks
from harness.usecases.device_model import (AVAILABILITY_STATE, HEARTBEAT, UNKNOWN, UNKNOWN_VARIABLE, Variables,
                                           get_variables, status_of_variable)
from harness.verdict import check_equal, check_in


class B06(RuleTable):
    """The rules of B06 (OCPP 2.0.1 part 2, B06; the same in 2.1)."""
    request = must("OCPP 2.0.1 part 2 GetVariablesRequest (getVariableData required)",
                   "the CSMS reads exactly the variables its operator asked for", by=CSMS)
    unknown = should("OCPP 2.0.1 part 2 GetVariableStatusEnumType", "a component the station does not have is "
                     "answered UnknownComponent, a variable it does not have UnknownVariable", by=CS)
    other_type = should("OCPP 2.0.1 part 2 GetVariableStatusEnumType (NotSupportedAttributeType)",
                        "an attributeType the variable does not have is answered NotSupportedAttributeType", by=CS)


pytestmark = case("B06", block="Provisioning", roles=("csms", "cs"), protocols=OCPP2)


@checks(B06.request, Variables.get_results, Variables.get_type, Variables.get_value,
        csms=TC("TC_B_06_CSMS", "ocpp2.0.1"))
async def test_get_one_variable(ocpp):
    """OCPPCommCtrlr.HeartbeatInterval read: one result, for it, attributeType Actual, its value when Accepted."""
    await get_variables(ocpp, [HEARTBEAT], B06.request)


@checks(B06.request, Variables.get_results, Variables.get_type, Variables.get_value,
        csms=TC("TC_B_07_CSMS", "ocpp2.0.1"))
async def test_get_two_variables(ocpp):
    """Two elements, one naming attributeType Actual: two results, the named type echoed."""
    await get_variables(ocpp, [HEARTBEAT | {"attributeType": "Actual"}, AVAILABILITY_STATE], B06.request)


@pytest.mark.sut_roles("cs")
@pytest.mark.parametrize("unknown", ["component", "variable"])
@checks(Variables.get_results, B06.unknown)
async def test_get_unknown_variable(ocpp, unknown):
    """A component (variable) the device model does not have: UnknownComponent (UnknownVariable)."""
    item = UNKNOWN if unknown == "component" else UNKNOWN_VARIABLE
    results = await get_variables(ocpp, [item], B06.request)
    expected = "UnknownComponent" if unknown == "component" else "UnknownVariable"
    check_equal(B06.unknown, f"GetVariableResult status for an unknown {unknown}", expected,
                status_of_variable(results, item))


@checks(B06.request, Variables.get_results, Variables.get_type, Variables.get_value, B06.other_type)
async def test_get_a_target_value(ocpp):
    """OCPPCommCtrlr.HeartbeatInterval read with attributeType Target: one result naming Target, Accepted with a
    value (a station that keeps a target for it) or NotSupportedAttributeType."""
    item = HEARTBEAT | {"attributeType": "Target"}
    results = await get_variables(ocpp, [item], B06.request)
    check_in(B06.other_type, "GetVariableResult status of HeartbeatInterval's Target",
             ("Accepted", "NotSupportedAttributeType", "UnknownVariable"), status_of_variable(results, item))
