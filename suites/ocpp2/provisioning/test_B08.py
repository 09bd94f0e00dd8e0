"""B08 — Get custom report: the operator has the CSMS ask for a report of some components (and variables) of
the station's device model (GetReportRequest with componentVariable); the station answers Accepted and sends
the variables asked for in NotifyReportRequests carrying the request's requestId, or EmptyResultSet when it has
none of them. The requirements, in our words: docs/requirements/provisioning.md.

Readings chosen where the texts are silent: a station without OCPPCommCtrlr.HeartbeatInterval answers
EmptyResultSet (the test of the report is then not applicable); NotSupported and Rejected likewise; the report
holds only what was asked (SHOULD: the numbering of B08's requirements for it could not be checked);
componentCriteria are asked for only of a CSMS under test (a station may support none of them: TC_B_18)."""

import secrets

import pytest

from harness.errors import NotApplicable
from harness.roles import CS, CSMS
from harness.rules import RuleTable, must, should
from harness.suite import OCPP2, TC, case, checks
from harness.usecases.device_model import HEARTBEAT, UNKNOWN, key_of, report_parts
from harness.usecases.operations import operate
from harness.verdict import check_in, require


class B08(RuleTable):
    """The rules of B08 (OCPP 2.0.1 part 2, B08; the same in 2.1)."""
    request = must("OCPP 2.0.1 part 2 GetReportRequest (requestId required; componentVariable)",
                   "the CSMS asks for the components and variables its operator chose", by=CSMS)
    reported = should("OCPP 2.0.1 part 2 B08; NotifyReportRequest requestId", "an Accepted GetReport is followed "
                      "by NotifyReportRequests carrying its requestId", by=CS)
    only_asked = should("OCPP 2.0.1 part 2 B08 (GetReportRequest componentVariable)",
                        "the report holds the components and variables asked for, and no others", by=CS)
    empty = should("OCPP 2.0.1 part 2 GenericDeviceModelStatusEnumType (EmptyResultSet)",
                   "a report of a component the station does not have is answered EmptyResultSet", by=CS)


pytestmark = case("B08", block="Provisioning", roles=("csms", "cs"), protocols=OCPP2)


async def _get_report(ocpp, asked: list[dict], criteria: list[str] | None = None):
    payload = {"requestId": secrets.randbelow(10**6) + 1, "componentVariable": asked} | (
        {"componentCriteria": criteria} if criteria else {})
    return await operate(ocpp, "GetReport", payload, B08.request, own=("requestId",))


@checks(B08.request, B08.reported, B08.only_asked)
async def test_report_of_one_variable(ocpp):
    """A report of OCPPCommCtrlr.HeartbeatInterval: Accepted, and the report holds that variable only."""
    mark = ocpp.mark()
    exchange = await _get_report(ocpp, [HEARTBEAT])
    status = exchange.result["status"]
    if status != "Accepted":
        raise NotApplicable(f"the station answered GetReport of OCPPCommCtrlr.HeartbeatInterval with {status}")
    data = await report_parts(ocpp, exchange.request["requestId"], mark, B08.reported)
    require(bool(data), B08.only_asked, "the report holds no variable", expected=key_of(HEARTBEAT), actual=data)
    others = [key_of(d) for d in data if key_of(d)[0::4] != key_of(HEARTBEAT)[0::4]]
    require(not others, B08.only_asked, "the report holds variables that were not asked for",
            expected=[key_of(HEARTBEAT)], actual=others)


@pytest.mark.sut_roles("cs")
@checks(B08.request, B08.empty)
async def test_report_of_an_unknown_component(ocpp):
    """A report of a component the station does not have: EmptyResultSet."""
    exchange = await _get_report(ocpp, [UNKNOWN])
    check_in(B08.empty, "GetReportResponse status for an unknown component", ("EmptyResultSet",),
             exchange.result["status"])


@pytest.mark.sut_roles("csms")
@checks(B08.request, csms=TC("TC_B_18_CSMS", "ocpp2.0.1"))
async def test_report_with_component_criteria(ocpp, profile):
    """The operator asks for EVSE #1's AvailabilityState among the Available components (componentCriteria):
    the CSMS sends both, as asked, and takes the station's answer."""
    evse = {"component": {"name": "EVSE", "evse": {"id": profile.evses[0].id}}, "variable": {"name": "AvailabilityState"}}
    await _get_report(ocpp, [evse], ["Available"])
