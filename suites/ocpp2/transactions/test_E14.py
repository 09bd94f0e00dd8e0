"""E14 — Check transaction status: the CSMS asks, with GetTransactionStatus, whether the station still holds
transaction-related messages (of one transaction, or of any) and, for a transaction it names, whether it is
still ongoing. The requirements, in our words: docs/requirements/E.md.

A station that still holds messages (E14.FR.04, FR.07) is played against a station only: the harness answers
its Ended event with a CALLERROR on purpose, and asks while the station waits to send it again (E13,
MessageAttemptInterval of TransactionEvent set long); the event is then answered as usual."""

import pytest

from harness.roles import CS, CSMS
from harness.rules import RuleTable, must
from harness.suite import OCPP2, TC, case, checks
from harness.usecases.operations import operate
from harness.usecases.transactions import (Transaction, check_answers, driver, local_start, message_attempts, of,
                                           one_event, plug, present, started_on, transaction_id, tx_points)
from harness.usecases.transport import failing
from harness.verdict import check_equal, require


class E14(RuleTable):
    """The rules of E14 (OCPP 2.0.1 part 2 E14.FR.02, 03, 05, 06, 08; the same in 2.1)."""
    request = must("OCPP 2.0.1 part 2 GetTransactionStatusRequest (transactionId optional)",
                   "the CSMS asks about exactly the transaction its operator named, or about none", by=CSMS)
    ongoing = must("OCPP 2.0.1 part 2 E14.FR.02", "a transaction that has not stopped is answered ongoingIndicator true",
                   by=CS)
    stopped = must("OCPP 2.0.1 part 2 E14.FR.03", "a transaction that has stopped is answered ongoingIndicator false",
                   by=CS)
    none_queued = must("OCPP 2.0.1 part 2 E14.FR.05, E14.FR.08",
                       "with no transaction-related message left to deliver, messagesInQueue is false", by=CS)
    no_indicator = must("OCPP 2.0.1 part 2 E14.FR.06",
                        "asked about no transaction, the station leaves ongoingIndicator out", by=CS)
    queued = must("OCPP 2.0.1 part 2 E14.FR.04 (as tzi-OCTT's TC_E_29 and TC_E_31 quote it)",
                  "with a message of the transaction named still to deliver, messagesInQueue is true", by=CS)
    any_queued = must("OCPP 2.0.1 part 2 E14.FR.07 (as tzi-OCTT's TC_E_33 quotes it)",
                      "asked about no transaction, with any transaction-related message still to deliver, "
                      "messagesInQueue is true", by=CS)


pytestmark = case("E14", block="Transactions", roles=("csms", "cs"), protocols=OCPP2)


async def _status(ocpp, tx=None) -> dict:
    exchange = await operate(ocpp, "GetTransactionStatus", {"transactionId": tx} if tx else {}, E14.request)
    return exchange.result


async def _running(ocpp, profile) -> str:
    await tx_points(ocpp, stop="EVConnected")
    _, started = await local_start(ocpp, profile.evses[0].id, E14.ongoing)
    return transaction_id(started)


@checks(E14.request, E14.ongoing, E14.none_queued, csms=TC("TC_E_30_CSMS", "ocpp2.0.1"))
async def test_status_of_an_ongoing_transaction(ocpp, profile):
    """A driver's transaction runs, its events delivered: ongoingIndicator true, messagesInQueue false."""
    tx = await _running(ocpp, profile)
    answer = await _status(ocpp, tx)
    check_equal(E14.ongoing, "GetTransactionStatusResponse ongoingIndicator", True, answer.get("ongoingIndicator"))
    check_equal(E14.none_queued, "GetTransactionStatusResponse messagesInQueue", False, answer["messagesInQueue"])


@checks(E14.request, E14.stopped, E14.none_queued)
async def test_status_of_an_ended_transaction(ocpp, profile):
    """The transaction ended (its Ended event answered): ongoingIndicator false, messagesInQueue false. A CSMS
    that refuses the Ended event leaves it queued: E01's tests judge the refusal, and this test does not apply."""
    tx = await _running(ocpp, profile)
    stop = ocpp.mark()
    await ocpp.act(CS, "unplug", evse_id=profile.evses[0].id)
    async with ocpp.prerequisite("delivery of the transaction's Ended event", owner="E01"):
        ended = await ocpp.expect("TransactionEvent", sender=CS, after=stop, where=of(tx, "Ended"),
                                  rule=Transaction.stopped_reason)
        check_answers(ocpp, [ended])
    answer = await _status(ocpp, tx)
    check_equal(E14.stopped, "GetTransactionStatusResponse ongoingIndicator", False, answer.get("ongoingIndicator"))
    check_equal(E14.none_queued, "GetTransactionStatusResponse messagesInQueue", False, answer["messagesInQueue"])


@checks(E14.request, E14.no_indicator, E14.none_queued, csms=TC("TC_E_34_CSMS", "ocpp2.0.1"))
async def test_status_without_a_transaction_id(ocpp, profile):
    """No transactionId, nothing left to deliver: no ongoingIndicator, messagesInQueue false."""
    answer = await _status(ocpp)
    require("ongoingIndicator" not in answer, E14.no_indicator,
            "GetTransactionStatusResponse to a request without transactionId carries ongoingIndicator",
            expected="no ongoingIndicator", actual=answer)
    check_equal(E14.none_queued, "GetTransactionStatusResponse messagesInQueue", False, answer["messagesInQueue"])


RETRY_INTERVAL = 60   # seconds the station waits before it sends the refused Ended event again


async def _ended_event_waiting(ocpp, profile):
    """A driver's transaction ends with the cable; its Ended event is answered with a CALLERROR, so the station
    keeps it to send again in RETRY_INTERVAL seconds. Returns the transaction id and the refused event."""
    await message_attempts(ocpp, 2, RETRY_INTERVAL)
    tx = await _running(ocpp, profile)
    ocpp.hold("TransactionEvent", where=of(tx, "Ended"))
    stop = ocpp.mark()
    await ocpp.act(CS, "unplug", evse_id=profile.evses[0].id)
    ended = await ocpp.next_call("TransactionEvent", sender=CS, within=ocpp.timeouts.action, after=stop,
                                 answered=False, where=of(tx, "Ended"))
    require(ended is not None, Transaction.stopped_reason, "no TransactionEvent Ended after the cable was pulled out",
            expected="TransactionEvent Ended", actual=None)
    await _refused(ocpp, ended)
    return tx, ended


async def _refused(ocpp, event) -> None:
    await ocpp.answer_held(event, error=failing("harness: failing on purpose (E13, so that E14 finds it queued)"))


async def _delivered(ocpp, event) -> None:
    """The refused event, sent again, is answered as usual (E13.FR.02: a station that keeps it must send
    it again; one that never does was not holding it)."""
    again = await ocpp.next_call("TransactionEvent", sender=CS, within=RETRY_INTERVAL + ocpp.timeouts.action,
                                 after=ocpp.mark_after(event), answered=False,
                                 where=lambda p: p.get("seqNo") == event.request["seqNo"] and of(
                                     event.request["transactionInfo"]["transactionId"], event.request["eventType"])(p))
    if again is not None:
        await ocpp.answer_held(again)


@pytest.mark.sut_roles("cs")
@checks(E14.request, E14.stopped, E14.queued, Transaction.stopped_reason)
async def test_status_of_an_ended_transaction_with_its_event_queued(ocpp, profile):
    """The transaction ended, its Ended event refused and waiting to be sent again: ongoingIndicator false,
    messagesInQueue true."""
    tx, ended = await _ended_event_waiting(ocpp, profile)
    answer = await _status(ocpp, tx)
    check_equal(E14.stopped, "GetTransactionStatusResponse ongoingIndicator", False, answer.get("ongoingIndicator"))
    check_equal(E14.queued, "GetTransactionStatusResponse messagesInQueue while the Ended event waits", True,
                answer["messagesInQueue"])
    await _delivered(ocpp, ended)


@pytest.mark.sut_roles("cs")
@checks(E14.request, E14.no_indicator, E14.any_queued, Transaction.stopped_reason)
async def test_status_without_a_transaction_id_with_an_event_queued(ocpp, profile):
    """No transactionId, an Ended event refused and waiting to be sent again: no ongoingIndicator,
    messagesInQueue true."""
    _, ended = await _ended_event_waiting(ocpp, profile)
    answer = await _status(ocpp)
    require("ongoingIndicator" not in answer, E14.no_indicator,
            "GetTransactionStatusResponse to a request without transactionId carries ongoingIndicator",
            expected="no ongoingIndicator", actual=answer)
    check_equal(E14.any_queued, "GetTransactionStatusResponse messagesInQueue while an Ended event waits", True,
                answer["messagesInQueue"])
    await _delivered(ocpp, ended)


@pytest.mark.sut_roles("cs")
@checks(E14.request, E14.ongoing, E14.queued)
async def test_status_of_an_ongoing_transaction_with_an_event_queued(ocpp, profile):
    """TxStartPoint Authorized: the driver's token starts the transaction; the cable plugged in then is reported
    in an Updated event, which the harness refuses: asked about the transaction while that event waits to be
    sent again, ongoingIndicator true, messagesInQueue true."""
    evse = profile.evses[0].id
    await message_attempts(ocpp, 2, RETRY_INTERVAL)
    await tx_points(ocpp, start="Authorized", stop="EVConnected")
    start = ocpp.mark()
    await present(ocpp, driver(ocpp), evse)
    started = await ocpp.expect("TransactionEvent", sender=CS, after=start, where=started_on(evse), rule=E14.ongoing)
    tx = transaction_id(started)
    ocpp.hold("TransactionEvent", where=one_event(of(tx, "Updated")))
    cable = ocpp.mark()
    await plug(ocpp, evse)
    updated = await ocpp.next_call("TransactionEvent", sender=CS, within=ocpp.timeouts.action, after=cable,
                                   answered=False, where=of(tx, "Updated"))
    require(updated is not None, E14.ongoing, "no TransactionEvent Updated after the cable was plugged into the "
            "running transaction", expected="TransactionEvent Updated", actual=None)
    await _refused(ocpp, updated)
    answer = await _status(ocpp, tx)
    check_equal(E14.ongoing, "GetTransactionStatusResponse ongoingIndicator", True, answer.get("ongoingIndicator"))
    check_equal(E14.queued, "GetTransactionStatusResponse messagesInQueue while the Updated event waits", True,
                answer["messagesInQueue"])
    await _delivered(ocpp, updated)
