"""TRIGGER16 — TriggerMessage in 1.6 (Remote Trigger): each MessageTrigger value and the message that
follows, Rejected and NotImplemented (spec 002 Events; Enumerations MessageTrigger, TriggerMessageStatus,
DiagnosticsStatus and FirmwareStatus Idle).

Readings chosen where the text is silent: a charge point may answer Rejected or NotImplemented for a
message it will not send (the test is then not applicable); once it answers Accepted the requested
message must follow, for the connector asked (StatusNotification, MeterValues). A triggered
DiagnosticsStatusNotification or FirmwareStatusNotification while nothing uploads or installs (the
harness started none) carries Idle, the value kept for triggered messages. A TriggerMessage for a
connector the charge point does not have cannot be Accepted (Rejected, or a CALLERROR, TC_055_CS).

What the central system owes: TriggerMessage sent as asked; the triggered message is answered like any other
CALL (rpc.answered, judged on every exchange). After Rejected or NotImplemented the texts ask nothing more.
"""

import pytest

from harness.roles import CS, CSMS
from harness.errors import NotApplicable
from harness.ocpp.v16 import MESSAGE_TRIGGERS
from harness.rules import RuleTable, must
from harness.suite import OCPP16, TC, case, checks
from harness.usecases.core16 import connectors
from harness.usecases.operations import ASKED16, Operations16, operate, status_of, trigger_refused
from harness.verdict import check_equal, require

PER_CONNECTOR = ("MeterValues", "StatusNotification")   # the triggers sent here with a connectorId
IDLE_ONLY = ("DiagnosticsStatusNotification", "FirmwareStatusNotification")


class TRIGGER16(RuleTable):
    """The rules of TRIGGER16."""
    follows = must("spec 002 Events; Enumerations MessageTrigger, TriggerMessageStatus",
                   "after an Accepted TriggerMessage the charge point sends the requested message (for the connector "
                   "asked, when one is)", by=CS)
    idle = must("spec 002 Enumerations DiagnosticsStatus, FirmwareStatus (Idle)",
                "a triggered DiagnosticsStatusNotification or FirmwareStatusNotification while nothing uploads or "
                "installs carries status Idle", by=CS)
    unknown_connector = must("spec 002 Enumerations TriggerMessageStatus; What the service does 8; TC_055_CS",
                             "a TriggerMessage for a connector the charge point does not have is not Accepted, and "
                             "nothing is sent for it", by=CS)
    triggered_answered = must("spec 002 Events; Operations by direction",
                              "the central system answers the message it triggered", by=CSMS)


pytestmark = case("TRIGGER16", block="Remote Trigger (1.6)", roles=("csms", "cs"), protocols=OCPP16,
                  requires=["remote_trigger"])


def _trigger_checks(message: str):
    rules = (*ASKED16, TRIGGER16.follows, TRIGGER16.triggered_answered) + ((TRIGGER16.idle,) if message in IDLE_ONLY
                                                                          else ())
    return checks(*rules, **({} if message == "BootNotification" else {"cs": TC("TC_054_CS"),
                                                                          "csms": TC("TC_054_CSMS")}))


@pytest.mark.parametrize("message", [pytest.param(m, marks=_trigger_checks(m)) for m in MESSAGE_TRIGGERS])
async def test_triggered_message_follows(ocpp, profile, message):
    """TriggerMessage for each MessageTrigger: Accepted, then the message, answered by the central system."""
    connector = connectors(profile)[0] if message in PER_CONNECTOR else None
    mark = ocpp.mark()
    exchange = await operate(ocpp, "TriggerMessage", {"requestedMessage": message}
                             | ({"connectorId": connector} if connector is not None else {}))
    if status_of(exchange) != "Accepted":
        raise NotApplicable(f"the charge point answers TriggerMessage {message} {status_of(exchange)}")
    sent = await ocpp.expect(message, sender=CS, after=mark, rule=TRIGGER16.follows,
                             where=lambda p: connector is None or p.get("connectorId") == connector)
    require(sent.error is None, TRIGGER16.triggered_answered, f"the triggered {message} was refused",
            expected=f"{message}.conf", actual=sent.error)
    if message in IDLE_ONLY:
        check_equal(TRIGGER16.idle, f"{message}.req status", "Idle", sent.request.get("status"))


@pytest.mark.sut_roles("cs")
@checks(Operations16.sent_as_asked, TRIGGER16.unknown_connector, cs=TC("TC_055_CS"))
async def test_trigger_for_an_unknown_connector_is_refused(ocpp, profile):
    """TriggerMessage MeterValues for connector NumberOfConnectors + 1: not Accepted, no MeterValues for it."""
    await trigger_refused(ocpp, "TriggerMessage", "MeterValues", len(connectors(profile)) + 1,
                          TRIGGER16.unknown_connector)


@pytest.mark.sut_roles("csms")
@pytest.mark.parametrize("answer", [pytest.param("Rejected", marks=checks(*ASKED16, csms=TC("TC_055_CSMS"))),
                                    pytest.param("NotImplemented", marks=checks(*ASKED16))])
async def test_refused_trigger_is_sent_as_asked(ocpp, profile, answer):
    """A charge point that will not send the message (Rejected, NotImplemented): the central system sends the
    TriggerMessage as asked."""
    ocpp.configure(trigger_answer=answer)
    await operate(ocpp, "TriggerMessage", {"requestedMessage": "MeterValues", "connectorId": connectors(profile)[0]})
