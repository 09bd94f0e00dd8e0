"""B07 — Get base report: the operator has the CSMS ask the station for one of the three base reports
(GetBaseReportRequest: ConfigurationInventory, FullInventory, SummaryInventory); once Accepted the station
sends the report in NotifyReportRequests carrying the request's requestId. The requirements, in our words:
docs/requirements/provisioning.md.

Readings chosen where the texts are silent: NotSupported or Rejected for a report base is a legal answer (the
test is then not applicable); the parts of a report are numbered from 0 and all but the last say tbc (the
schema's descriptions: SHOULD); a CSMS answers each part with a NotifyReportResponse (SHOULD: no text we could
check makes a CALLRESULT due); a summary reports the availability of the station through an AvailabilityState
variable (the device model's name for it)."""

import secrets

import pytest

from harness.errors import NotApplicable
from harness.roles import CS, CSMS
from harness.rules import RuleTable, must
from harness.suite import OCPP2, TC, case, checks
from harness.usecases.device_model import Reports, report_parts
from harness.usecases.operations import operate
from harness.verdict import require


class B07(RuleTable):
    """The rules of B07 (OCPP 2.0.1 part 2, B07; the same in 2.1)."""
    request = must("OCPP 2.0.1 part 2 GetBaseReportRequest (requestId, reportBase required)",
                   "the CSMS asks for the report base its operator chose", by=CSMS)
    reported = must("OCPP 2.0.1 part 2 B07.FR.07, B07.FR.08, B07.FR.09; NotifyReportRequest requestId",
                    "an Accepted GetBaseReport is followed by NotifyReportRequests carrying its requestId", by=CS)
    characteristics = must("OCPP 2.0.1 part 2 B07.FR.07, B07.FR.08", "a configuration or full inventory reports "
                           "each variable with its variableCharacteristics", by=CS)
    summary = must("OCPP 2.0.1 part 2 B07.FR.09", "a summary inventory reports the availability of the station "
                   "(an AvailabilityState variable)", by=CS)


pytestmark = case("B07", block="Provisioning", roles=("csms", "cs"), protocols=OCPP2)

TCS = {"ConfigurationInventory": "TC_B_12_CSMS", "FullInventory": "TC_B_13_CSMS", "SummaryInventory": "TC_B_14_CSMS"}


async def _report(ocpp, base: str) -> list[dict]:
    """GetBaseReport of ``base``; the NotifyReport parts that follow, judged (requestId, numbering, answers)."""
    mark = ocpp.mark()
    exchange = await operate(ocpp, "GetBaseReport", {"requestId": secrets.randbelow(10**6) + 1, "reportBase": base},
                             B07.request, own=("requestId",))
    status = exchange.result["status"]
    if status != "Accepted":
        raise NotApplicable(f"the station answered GetBaseReport {base} with {status}")
    return await report_parts(ocpp, exchange.request["requestId"], mark, B07.reported)


@pytest.mark.parametrize("base", ["ConfigurationInventory", "FullInventory"])
@checks(B07.request, B07.reported, B07.characteristics, Reports.parts, Reports.answered,
        csms=(TC(TCS["ConfigurationInventory"], "ocpp2.0.1", when="ConfigurationInventory"),
              TC(TCS["FullInventory"], "ocpp2.0.1", when="FullInventory")))
async def test_inventory_report(ocpp, base):
    """A configuration or full inventory: its parts follow, every variable with its characteristics."""
    data = await _report(ocpp, base)
    require(bool(data), B07.reported, f"the {base} report holds no variable", expected="reportData", actual=data)
    for item in data:
        require("variableCharacteristics" in item, B07.characteristics,
                f"{item['component']['name']}.{item['variable']['name']} is reported without variableCharacteristics",
                expected="variableCharacteristics", actual=item)


@checks(B07.request, B07.reported, B07.summary, Reports.parts, Reports.answered,
        csms=TC(TCS["SummaryInventory"], "ocpp2.0.1"))
async def test_summary_report(ocpp):
    """A summary inventory: its parts follow, with the availability of the station."""
    data = await _report(ocpp, "SummaryInventory")
    names = [item["variable"]["name"] for item in data]
    require("AvailabilityState" in names, B07.summary, "the summary inventory reports no AvailabilityState",
            expected="AvailabilityState", actual=names)
