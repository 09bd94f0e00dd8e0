"""EXTTRIGGER16 — ExtendedTriggerMessage, the 1.6 security extension's trigger (the OCA white paper "Improved
security for OCPP 1.6-J", 5.5-5.6, 6.16-6.17): OCPP 2.0.1's TriggerMessage under a new name, with the values
BootNotification, LogStatusNotification, FirmwareStatusNotification (which asks for a SignedFirmwareStatusNotification,
the secure update's), Heartbeat, MeterValues, SignChargePointCertificate (a SignCertificate) and StatusNotification,
answered Accepted, Rejected or NotImplemented.

Readings where the texts are silent (as TRIGGER16 reads 1.6's TriggerMessage): a charge point may answer Rejected
or NotImplemented for a message it will not send (the test is then not applicable); once it answers Accepted the
message must follow, for the connector asked (MeterValues, StatusNotification). A triggered LogStatusNotification
while nothing uploads carries Idle (SHOULD: UploadLogStatusEnumType reserves Idle for triggered messages, no SHALL
makes it the answer); a triggered SignedFirmwareStatusNotification carries the last status a charge point under test
sent (its history is its own: judged by SIGNEDFIRMWARE16 after an update the harness made). What the central system
owes: ExtendedTriggerMessage sent as asked, and the triggered message answered. docs/requirements/security.md."""

import pytest

from harness.errors import NotApplicable
from harness.roles import CS, CSMS
from harness.rules import RuleTable, must, should
from harness.suite import OCPP16, case, checks
from harness.usecases.core16 import connectors
from harness.usecases.operations import ASKED16, Operations16, operate, status_of, trigger_refused
from harness.verdict import check_equal, require

WP = "OCPP 1.6 security whitepaper ed. 3"
MESSAGES = ("BootNotification", "LogStatusNotification", "FirmwareStatusNotification", "Heartbeat", "MeterValues",
            "SignChargePointCertificate", "StatusNotification")
SENT = {"FirmwareStatusNotification": "SignedFirmwareStatusNotification",   # the message each value brings
        "SignChargePointCertificate": "SignCertificate"}
PER_CONNECTOR = ("MeterValues", "StatusNotification")
CORE = ("BootNotification", "Heartbeat", "MeterValues", "StatusNotification")   # answered as 1.6 core messages


class EXTTRIGGER16(RuleTable):
    """The rules of EXTTRIGGER16."""
    follows = must(f"{WP} 5.5 (2.0.1's TriggerMessage renamed), 6.16 (the message each value asks for), 6.17 "
                   "(Accepted: the message will be sent); as spec 002 Events for TriggerMessage (TRIGGER16.follows)",
                   "after an Accepted ExtendedTriggerMessage the charge point sends the message the value names "
                   "(FirmwareStatusNotification: SignedFirmwareStatusNotification; SignChargePointCertificate: "
                   "SignCertificate), for the connector asked when one is", by=CS)
    log_idle = should(f"{WP} UploadLogStatusEnumType (Idle only in a triggered message), N01.FR.12",
                      "a triggered LogStatusNotification while no log uploads carries status Idle", by=CS)
    unknown_connector = must("spec 002 Enumerations TriggerMessageStatus; What the service does 8 (as "
                             f"TRIGGER16.unknown_connector); {WP} 5.5 connectorId",
                             "an ExtendedTriggerMessage for a connector the charge point does not have is not "
                             "Accepted, and nothing is sent for it", by=CS)
    answered = must("spec 002 Events; Operations by direction (as TRIGGER16.triggered_answered)",
                    "the central system answers the core message it triggered (BootNotification, Heartbeat, "
                    "MeterValues, StatusNotification)", by=CSMS)
    extension_answered = should(f"OCPP-J (a CALL is answered); {WP} 5.14, 5.18, 5.20",
                                "the central system answers the security extension's message it triggered "
                                "(LogStatusNotification, SignedFirmwareStatusNotification, SignCertificate)", by=CSMS)


pytestmark = case("EXTTRIGGER16", block="Security (1.6)", roles=("csms", "cs"), protocols=OCPP16,
                  requires=["advanced_security"])


def _marks(message: str):
    rules = (*ASKED16, EXTTRIGGER16.follows,
             EXTTRIGGER16.answered if message in CORE else EXTTRIGGER16.extension_answered)
    return checks(*rules, *((EXTTRIGGER16.log_idle,) if message == "LogStatusNotification" else ()))


@pytest.mark.parametrize("message", [pytest.param(m, marks=_marks(m)) for m in MESSAGES])
async def test_triggered_message_follows(ocpp, profile, message):
    """ExtendedTriggerMessage for each value: Accepted, then the message it names, answered by the central system."""
    connector = connectors(profile)[0] if message in PER_CONNECTOR else None
    exchange = await operate(ocpp, "ExtendedTriggerMessage", {"requestedMessage": message}
                             | ({"connectorId": connector} if connector is not None else {}))
    if status_of(exchange) != "Accepted":
        raise NotApplicable(f"the charge point answers ExtendedTriggerMessage {message} {status_of(exchange)!r}")
    action = SENT.get(message, message)
    sent = await ocpp.expect(action, sender=CS, after=ocpp.mark_after(exchange), rule=EXTTRIGGER16.follows,
                             where=lambda p: connector is None or p.get("connectorId") == connector)
    row = EXTTRIGGER16.answered if message in CORE else EXTTRIGGER16.extension_answered
    if ocpp.is_sut(CSMS):
        require(sent.error is None, row, f"the triggered {action} was refused", expected=f"{action}.conf",
                actual=sent.error)
    if message == "LogStatusNotification" and ocpp.is_sut(CS):
        check_equal(EXTTRIGGER16.log_idle, "LogStatusNotification.req status (no upload asked)", "Idle",
                    sent.request.get("status"))


@pytest.mark.sut_roles("cs")
@checks(Operations16.sent_as_asked, EXTTRIGGER16.unknown_connector)
async def test_trigger_for_an_unknown_connector_is_refused(ocpp, profile):
    """ExtendedTriggerMessage StatusNotification for connector NumberOfConnectors + 1: not Accepted, no
    StatusNotification for it."""
    await trigger_refused(ocpp, "ExtendedTriggerMessage", "StatusNotification", len(connectors(profile)) + 1,
                          EXTTRIGGER16.unknown_connector)


@pytest.mark.sut_roles("csms")
@pytest.mark.parametrize("answer", ["Rejected", "NotImplemented"])
@checks(*ASKED16)
async def test_refused_trigger_is_sent_as_asked(ocpp, profile, answer):
    """A charge point that will not send the message (Rejected, NotImplemented): the central system sends the
    ExtendedTriggerMessage as asked; nothing more is asked of it."""
    ocpp.configure(trigger_answer=answer)
    await operate(ocpp, "ExtendedTriggerMessage", {"requestedMessage": "MeterValues",
                                                   "connectorId": connectors(profile)[0]})
