"""F06 — Trigger message: the operator has the CSMS send TriggerMessageRequest naming a message the station
would otherwise send on its own (F06.FR.01); after Accepted the station sends it, an evse given with a
message that is not about an EVSE being ignored (F06.FR.02); a message it has not implemented is answered
NotImplemented (F06.FR.08); a StatusNotification is asked for an EVSE (F06.FR.13). Every value of
MessageTriggerEnumType the running version defines is played (2.1 adds SignV2G20Certificate and
CustomTrigger). The requirements, in our words: docs/requirements/remote_control.md.

Readings chosen where the text is silent: a station may answer Rejected or NotImplemented for a message it
will not send (the test is then not applicable at a station under test; a CSMS under test is judged on the
request it sent); once it answers Accepted the message must follow. A triggered LogStatusNotification or
FirmwareStatusNotification while nothing uploads or installs carries Idle, MeterValues the context Trigger,
a TransactionEvent the triggerReason Trigger: SHOULD, no SHALL of F06 we could verify says it."""

import pytest

from harness.errors import NotApplicable
from harness.ocpp.answers import REFUSALS
from harness.roles import CS, CSMS
from harness.rules import RuleTable, must, should
from harness.suite import OCPP2, TC, case, checks
from harness.usecases.operations import operate
from harness.usecases.smart_charging import charging
from harness.verdict import check_equal, dig, require


class F06(RuleTable):
    """The rules of F06 (OCPP 2.0.1 part 2, F06; 2.1 adds two values)."""
    request = must("OCPP 2.0.1 F06.FR.01; F06.FR.13 (StatusNotification with evse)",
                   "the CSMS sends TriggerMessage naming the message (and EVSE) its operator asked for", by=CSMS)
    follows = must("OCPP 2.0.1 F06.FR.02; TriggerMessageStatusEnumType (Accepted)",
                   "after an Accepted TriggerMessage the station sends the requested message (for the EVSE asked, "
                   "when the message is about one; an evse that is not relevant is ignored)", by=CS)
    answered = must("OCPP 2.0.1 part 2 F06; RPC framework (every CALL answered)",
                    "the CSMS answers the message it triggered", by=CSMS)
    idle = should("OCPP 2.0.1 part 2 UploadLogStatusEnumType, FirmwareStatusEnumType (Idle)",
                  "a triggered LogStatusNotification or FirmwareStatusNotification while nothing uploads or "
                  "installs carries status Idle", by=CS)
    context = should("OCPP 2.0.1 part 2 ReadingContextEnumType (Trigger)",
                     "the sampled values of a triggered MeterValues or TransactionEvent have context Trigger", by=CS)
    trigger_reason = should("OCPP 2.0.1 part 2 TriggerReasonEnumType (Trigger)",
                            "a triggered TransactionEvent carries triggerReason Trigger", by=CS)
    status_now = should("OCPP 2.0.1 part 2 ConnectorStatusEnumType",
                        "a triggered StatusNotification reports the connector's present status", by=CS)


pytestmark = case("F06", block="Remote control", roles=("csms", "cs"), protocols=OCPP2, requires=["remote_trigger"])

PER_EVSE = ("MeterValues", "StatusNotification", "TransactionEvent")
IDLE = ("LogStatusNotification", "FirmwareStatusNotification")
SENT = {"SignChargingStationCertificate": "SignCertificate", "SignV2GCertificate": "SignCertificate",
        "SignCombinedCertificate": "SignCertificate", "SignV2G20Certificate": "SignCertificate"}
IDS = {"MeterValues": "TC_F_11_CSMS", "TransactionEvent": "TC_F_13_CSMS", "LogStatusNotification": "TC_F_15_CSMS",
       "FirmwareStatusNotification": "TC_F_18_CSMS", "Heartbeat": "TC_F_20_CSMS", "StatusNotification": "TC_F_23_CSMS"}
MESSAGES = ("BootNotification", "LogStatusNotification", "FirmwareStatusNotification", "Heartbeat", "MeterValues",
            "SignChargingStationCertificate", "SignV2GCertificate", "StatusNotification", "TransactionEvent",
            "SignCombinedCertificate", "PublishFirmwareStatusNotification")   # 2.1 adds two: tests of their own


def _marks(message: str):
    rules = [F06.request, F06.follows, F06.answered]
    rules += [F06.idle] if message in IDLE else [F06.context] if message == "MeterValues" else \
        [F06.context, F06.trigger_reason] if message == "TransactionEvent" else []
    ids = {"csms": TC(IDS[message], "ocpp2.0.1")} if message in IDS else {}
    return checks(*rules, **ids)


async def trigger(ocpp, message: str, evse: int | None = None, **fields):
    """TriggerMessage for ``message`` (for ``evse``): the exchange, the mark taken before it."""
    mark = ocpp.mark()
    payload = {"requestedMessage": message} | ({"evse": {"id": evse}} if evse is not None else {}) | fields
    return await operate(ocpp, "TriggerMessage", payload, F06.request), mark


def accepted_or_refused(ocpp, exchange, message: str) -> bool:
    """Accepted: True. A station under test that will not send ``message`` makes the test not applicable; a
    CSMS under test was judged on its request: False (nothing follows)."""
    status = exchange.result["status"]
    if status == "Accepted":
        return True
    if ocpp.is_sut(CS):
        raise NotApplicable(f"the station answers TriggerMessage {message} {status}")
    return False


def _contexts(payload: dict) -> list:
    return [v.get("context") for m in payload.get("meterValue", []) for v in m["sampledValue"]]


async def _follows(ocpp, profile, message: str) -> None:
    """TriggerMessage for ``message`` (for the first EVSE when the message is about one): Accepted, then the
    message, answered by the CSMS."""
    evse = profile.evses[0].id if message in PER_EVSE else None
    if message == "TransactionEvent":
        await charging(ocpp, evse)
    exchange, mark = await trigger(ocpp, message, evse)
    if not accepted_or_refused(ocpp, exchange, message):
        return
    sent = await ocpp.expect(SENT.get(message, message), sender=CS, after=mark, rule=F06.follows,
                             where=lambda p: evse is None or p.get("evseId", dig(p, "evse.id")) == evse)
    if sent.error is not None and sent.error.code in REFUSALS:
        sent.judge_error()   # a CSMS that does not implement an optional message: not applicable
    require(sent.error is None, F06.answered, f"the triggered {message} was answered with a CALLERROR",
            expected=f"{message}Response", actual=sent.error)
    if message in IDLE:
        check_equal(F06.idle, f"{message}Request status", "Idle", sent.request.get("status"))
    if message in ("MeterValues", "TransactionEvent"):
        require(_contexts(sent.request) and set(_contexts(sent.request)) == {"Trigger"}, F06.context,
                f"the triggered {message} has sampled values of another context", expected="Trigger",
                actual=_contexts(sent.request))
    if message == "TransactionEvent":
        check_equal(F06.trigger_reason, "TransactionEventRequest triggerReason", "Trigger",
                    sent.request["triggerReason"])


@pytest.mark.parametrize("message", [pytest.param(m, marks=_marks(m)) for m in MESSAGES])
async def test_triggered_message_follows(ocpp, profile, message):
    """TriggerMessage for each value both versions define: Accepted, then the message, answered."""
    await _follows(ocpp, profile, message)


@pytest.mark.protocols("ocpp2.1")
@checks(F06.request, F06.follows, F06.answered)
async def test_triggered_v2g20_certificate_signing_follows(ocpp, profile):
    """2.1's SignV2G20Certificate: Accepted, then a SignCertificateRequest, answered."""
    await _follows(ocpp, profile, "SignV2G20Certificate")


@pytest.mark.protocols("ocpp2.1")
@checks(F06.request)
async def test_custom_trigger_is_answered(ocpp):
    """2.1's CustomTrigger with a name no station defines: the CSMS sends it as asked; the station answers with a
    status of its enumeration (what a custom trigger brings is the vendor's: not judged)."""
    await trigger(ocpp, "CustomTrigger", customTrigger="org.evse-conformance.none")


@checks(F06.request, F06.follows, F06.answered, F06.status_now, csms=TC("TC_F_24_CSMS", "ocpp2.0.1"))
async def test_triggered_status_of_an_occupied_evse(ocpp, profile):
    """The cable in, then TriggerMessage StatusNotification for its EVSE: the StatusNotification says Occupied."""
    evse = profile.evses[0].id
    plugged = ocpp.mark()
    await ocpp.act(CS, "plug_in", evse_id=evse)
    await ocpp.expect("StatusNotification", sender=CS, after=plugged, rule=F06.status_now,
                      where=lambda p: p["evseId"] == evse and p["connectorStatus"] == "Occupied")
    exchange, mark = await trigger(ocpp, "StatusNotification", evse)
    if accepted_or_refused(ocpp, exchange, "StatusNotification"):
        sent = await ocpp.expect("StatusNotification", sender=CS, after=mark, rule=F06.follows,
                                 where=lambda p: p["evseId"] == evse)
        if sent.request["connectorStatus"] != "Occupied":   # one sent before the trigger may arrive late
            sent = await ocpp.next_call("StatusNotification", sender=CS, within=ocpp.timeouts.quiet,
                                        after=ocpp.mark_after(sent), where=lambda p: p["evseId"] == evse) or sent
        check_equal(F06.status_now, "StatusNotificationRequest connectorStatus", "Occupied",
                    sent.request["connectorStatus"])


@checks(F06.request, F06.follows, F06.answered, csms=TC("TC_F_12_CSMS", "ocpp2.0.1"))
async def test_triggered_meter_values_of_every_evse(ocpp, profile):
    """TriggerMessage MeterValues without evse: a MeterValues for every EVSE of the station."""
    exchange, mark = await trigger(ocpp, "MeterValues")
    if accepted_or_refused(ocpp, exchange, "MeterValues"):
        for evse in profile.evses:
            sent = await ocpp.expect("MeterValues", sender=CS, after=mark, rule=F06.follows,
                                     where=lambda p, evse=evse: p["evseId"] == evse.id)
            require(sent.error is None, F06.answered, f"the triggered MeterValues of EVSE {evse.id} was answered "
                    f"with a CALLERROR", expected="MeterValuesResponse", actual=sent.error)


@pytest.mark.requires("remote_start")
@checks(F06.request, F06.follows, F06.answered, F06.trigger_reason, csms=TC("TC_F_14_CSMS", "ocpp2.0.1"))
async def test_triggered_transaction_events_of_every_evse(ocpp, profile):
    """A transaction runs on the first EVSE; TriggerMessage TransactionEvent without evse: its TransactionEvent
    follows, triggerReason Trigger."""
    evse = profile.evses[0].id
    transaction_id = await charging(ocpp, evse)
    exchange, mark = await trigger(ocpp, "TransactionEvent")
    if accepted_or_refused(ocpp, exchange, "TransactionEvent"):
        sent = await ocpp.expect("TransactionEvent", sender=CS, after=mark, rule=F06.follows,
                                 where=lambda p: p["transactionInfo"]["transactionId"] == transaction_id)
        check_equal(F06.trigger_reason, "TransactionEventRequest triggerReason", "Trigger",
                    sent.request["triggerReason"])


@pytest.mark.sut_roles("cs")
@checks(F06.follows)
async def test_an_irrelevant_evse_is_ignored(ocpp, profile):
    """TriggerMessage Heartbeat naming an EVSE: the evse is ignored and the Heartbeat still follows (F06.FR.02)."""
    mark = ocpp.mark()
    exchange = await ocpp.exchange(CSMS, "TriggerMessage", {"requestedMessage": "Heartbeat",
                                                             "evse": {"id": profile.evses[0].id}}, rule=F06.request)
    if accepted_or_refused(ocpp, exchange, "Heartbeat with an evse"):
        await ocpp.expect("Heartbeat", sender=CS, after=mark, rule=F06.follows)


@pytest.mark.sut_roles("csms")
@pytest.mark.parametrize("answer", [pytest.param("NotImplemented", marks=checks(F06.request,
                                                                                csms=TC("TC_F_27_CSMS", "ocpp2.0.1"))),
                                    pytest.param("Rejected", marks=checks(F06.request))])
async def test_refused_trigger_is_sent_as_asked(ocpp, profile, answer):
    """A station that will not send the message (NotImplemented, Rejected): the CSMS sends the TriggerMessage as
    asked and takes the answer."""
    ocpp.configure(trigger_answer=answer)
    exchange, _ = await trigger(ocpp, "MeterValues", profile.evses[0].id)
    check_equal(F06.request, "TriggerMessageResponse status (the harness's answer)", answer, exchange.result["status"])
