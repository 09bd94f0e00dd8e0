"""The device model read and set through the arena (OCPP 2.x B05, B06): SetVariables and GetVariables sent by
the harness's CSMS or asked of the CSMS under test, and the rules every answer of the station keeps
(docs/requirements/provisioning.md)."""

from __future__ import annotations

from typing import Any

from harness.arena.ocpp import OcppArena
from harness.ocpp.versions import OcppVersion
from harness.roles import CS, CSMS
from harness.rules import Rule, RuleTable, must, should
from harness.transport.ws import Exchange
from harness.usecases.operations import operate
from harness.verdict import check_equal, require, violated

# a variable of the 2.0.1 device model every station is asked about here (OCPPCommCtrlr, ReadWrite)
HEARTBEAT = {"component": {"name": "OCPPCommCtrlr"}, "variable": {"name": "HeartbeatInterval"}}
# a variable the 2.0.1 device model defines ReadOnly
AVAILABILITY_STATE = {"component": {"name": "ChargingStation"}, "variable": {"name": "AvailabilityState"}}
UNKNOWN = {"component": {"name": "NoSuchCtrlr"}, "variable": {"name": "HeartbeatInterval"}}
UNKNOWN_VARIABLE = {"component": {"name": "OCPPCommCtrlr"}, "variable": {"name": "NoSuchVariable"}}
# where a station keeps the order of its network connection profiles (B10)
PRIORITY = {"component": {"name": "OCPPCommCtrlr"}, "variable": {"name": "NetworkConfigurationPriority"}}


def network_profile(arena: OcppArena, url: str) -> dict:
    """A valid NetworkConnectionProfile (B09, B10) for ``url``: JSON over the wired interface, the run's security
    profile, the running version."""
    return {"ocppTransport": "JSON", "ocppCsmsUrl": url, "messageTimeout": 30,
            "securityProfile": max(arena.security_profile, 1), "ocppInterface": "Wired0",
            "ocppVersion": "OCPP20" if arena.version is OcppVersion.V201 else "OCPP21"}


class Variables(RuleTable, namespace="variables"):
    """What every GetVariables/SetVariables answer keeps (OCPP 2.0.1 part 2 B05, B06; the same in 2.1)."""
    set_results = must("OCPP 2.0.1 part 2 B05.FR.01", "a SetVariablesResponse holds one result per "
                       "setVariableData element, for its component and variable", by=CS)
    set_type = must("OCPP 2.0.1 part 2 B05.FR.02, B05.FR.12", "a SetVariableResult names the attributeType its "
                    "element named, Actual (or none: its default) when the element named none", by=CS)
    get_results = must("OCPP 2.0.1 part 2 B06.FR.01", "a GetVariablesResponse holds one result per "
                       "getVariableData element, for its component and variable", by=CS)
    get_type = must("OCPP 2.0.1 part 2 B06.FR.02, B06.FR.11", "a GetVariableResult names the attributeType its "
                    "element named, Actual (or none: its default) when the element named none", by=CS)
    get_value = must("OCPP 2.0.1 part 2 B06.FR.10", "an Accepted GetVariableResult carries the value found",
                     by=CS)


class Reports(RuleTable, namespace="reports"):
    """What every report of the device model keeps (OCPP 2.0.1 part 2 B07, B08; the same in 2.1)."""
    parts = should("OCPP 2.0.1 part 2 NotifyReportRequest (seqNo: the first is 0; tbc: another part follows)",
                   "the parts of a report are numbered 0, 1, … and every part but the last says tbc", by=CS)
    answered = should("OCPP 2.0.1 part 2 NotifyReportResponse; part 4 RPC framework",
                      "the CSMS answers each NotifyReportRequest with a NotifyReportResponse", by=CSMS)


def key_of(item: dict) -> tuple:
    """The component and variable an element or result is about (names, instances and the EVSE; customData
    aside, names in any case)."""
    component, variable = item["component"], item["variable"]
    evse = component.get("evse") or {}
    return (component["name"].lower(), str(component.get("instance", "")).lower(), evse.get("id"),
            evse.get("connectorId"), variable["name"].lower(), str(variable.get("instance", "")).lower())


def _judge(asked: list[dict], results: list[dict], count: Rule, kind: Rule, what: str) -> None:
    """One result per element, in any order (matched by component and variable), each with its attributeType."""
    check_equal(count, f"{what} results", len(asked), len(results))
    for item in asked:
        found = [r for r in results if key_of(r) == key_of(item)]
        require(bool(found), count, f"{what} holds no result for {item['component']['name']}."
                f"{item['variable']['name']}", expected=key_of(item), actual=[key_of(r) for r in results])
        named = found[0].get("attributeType", "Actual")
        check_equal(kind, f"{what} attributeType of {item['component']['name']}.{item['variable']['name']}",
                    item.get("attributeType", "Actual"), named)


async def set_variables(arena: OcppArena, data: list[dict[str, Any]], sent: Rule) -> list[dict]:
    """SetVariables of ``data``; the results judged (one per element, attributeType)."""
    exchange: Exchange = await operate(arena, "SetVariables", {"setVariableData": data}, sent)
    results = exchange.result["setVariableResult"]
    _judge(data, results, Variables.set_results, Variables.set_type, "SetVariablesResponse")
    return results


async def get_variables(arena: OcppArena, data: list[dict[str, Any]], sent: Rule) -> list[dict]:
    """GetVariables of ``data``; the results judged (one per element, attributeType, the value when Accepted)."""
    exchange: Exchange = await operate(arena, "GetVariables", {"getVariableData": data}, sent)
    results = exchange.result["getVariableResult"]
    _judge(data, results, Variables.get_results, Variables.get_type, "GetVariablesResponse")
    for result in results:
        if result["attributeStatus"] == "Accepted":
            require("attributeValue" in result, Variables.get_value, "an Accepted GetVariableResult has no "
                    "attributeValue", expected="attributeValue", actual=result)
    return results


def status_of_variable(results: list[dict], item: dict) -> str:
    return next(r["attributeStatus"] for r in results if key_of(r) == key_of(item))


async def report_parts(arena: OcppArena, request_id: int, mark: int, reported: Rule) -> list[dict]:
    """The NotifyReport parts of report ``request_id`` from ``mark`` on, until one without tbc (``reported``
    breaks on silence), each answered by a CSMS under test (``reports.answered``), numbered from 0
    (``reports.parts``); their reportData, in order."""
    seen: list[Exchange] = []
    while not seen or seen[-1].request.get("tbc", False):
        part = await arena.expect("NotifyReport", sender=CS, after=mark, rule=reported,
                                  where=lambda p: p["requestId"] == request_id and p not in [x.request for x in seen])
        if part is None:
            break
        seen.append(part)
        if arena.is_sut(CSMS) and part.error is not None:
            violated(Reports.answered, "the CSMS answered a NotifyReportRequest with a CALLERROR",
                     expected="NotifyReportResponse", actual=part.error)
    check_equal(Reports.parts, f"NotifyReport seqNo of report {request_id}", list(range(len(seen))),
                [p.request["seqNo"] for p in seen])
    return [data for p in seen for data in p.request.get("reportData", [])]
