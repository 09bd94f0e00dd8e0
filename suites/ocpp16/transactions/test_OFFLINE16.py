"""OFFLINE16 — transaction-related messages while the link is down, and when the central system
fails to process them (spec 002 behaviour rules 1, 2 and 4; the reference queue's rules Q1-Q4 are in
harness/reference/v16/queue.py).

Behaviour rule 1 words the chronological order as a SHOULD, but a charge point offline MUST queue,
and new transaction messages wait until the queue is empty: a queue is first in, first out, so this
suite reads the order of delivery as a MUST.
"""


import pytest

from harness import clock
from harness.roles import CS, CSMS
from harness.ocpp.meter16 import parse_time
from harness.rules import RuleTable, must, should
from harness.suite import OCPP16, TC, case, checks, needs
from harness.usecases.core16 import (
    Core16, configure_charge_point, connectors, id_tag_status, start, tag16, tagged, transaction_id,
)
from harness.usecases.transport import failing
from harness.verdict import check_equal, check_in, require, violated


class OFFLINE16(RuleTable):
    """The rules of OFFLINE16."""
    reconnects = must("spec 002 What the service does 6; Connection 2",
                      "back online the charge point connects again", by=CS)
    delivered = must("spec 002 Behavior rule 1",
                     "offline the charge point queues its transaction messages and delivers them back online", by=CS)
    in_order = should("spec 002 Behavior rule 1",
                      "queued transaction messages are delivered in chronological order, no MeterValues of a "
                      "transaction after its StopTransaction", by=CS)
    processed = must("spec 002 Behavior rule 1", "the central system processes queued historical messages like any "
                                                 "other", by=CSMS)
    no_boot = should("spec 002 Behavior rule 4",
                     "after reconnecting the charge point does not send BootNotification unless a field changed", by=CS)
    retried = must("spec 002 Behavior rule 2",
                   "a transaction message the central system fails to process is sent again, up to "
                   "TransactionMessageAttempts transmissions", by=CS)
    retry_wait = must("spec 002 Behavior rule 2; Limits",
                      "retry n waits TransactionMessageRetryInterval times the transmissions before it", by=CS)
    discarded = must("spec 002 Behavior rule 2",
                     "after TransactionMessageAttempts failed transmissions the message is discarded", by=CS)


pytestmark = case("OFFLINE16", block="Core (1.6)", roles=("csms", "cs"), protocols=OCPP16)

RETRY_INTERVAL, ATTEMPTS = 1, 3
TOLERANCE = 0.25   # seconds of scheduling slack when an interval is measured


def _sent_at(exchange) -> str:
    if exchange.action == "MeterValues":
        return min(v["timestamp"] for v in exchange.request["meterValue"])
    return exchange.request["timestamp"]


async def _reconnected(ocpp, before: int):
    """The charge point's next connection, once the harness accepts it again."""
    connection = await ocpp.reconnected(before)
    require(connection is not None, OFFLINE16.reconnects, "no new connection", expected="a connection",
            actual=f"refused: {ocpp.harness_csms.refused()[-3:]}")
    return connection


def _transaction_ids(ocpp, started) -> set[int]:
    """The ids the central system gave the transaction: its StartTransaction's, and the answer's to the same
    StartTransaction sent again. The outage may close the link while the first answer is still on its way:
    the charge point never got it, and rightly sends the StartTransaction again once back online (the same
    timestamp, a new transactionId). Reading taken: either id is the transaction's."""
    return {transaction_id(e) for e in ocpp.sent("StartTransaction", sender=CS)
            if e.answered and e.result is not None
            and e.request["timestamp"] == started.request["timestamp"]
            and e.request["connectorId"] == started.request["connectorId"]} | {transaction_id(started)}


async def _stopped_offline(ocpp, token, connector, sampling: float, queued: float):
    """A transaction that samples (interval 1 s) for ``sampling`` seconds of an outage and is stopped
    ``queued`` seconds before the link is back; the transaction's start and the station's connections
    before the outage."""
    await configure_charge_point(ocpp, {"MeterValueSampleInterval": "1"})
    started = await start(ocpp, token, connector)
    before = ocpp.connections()
    await ocpp.cut()
    await ocpp.elapse(sampling)
    await ocpp.act(CS, "present_id_tag", id_tag=token.id, connector_id=connector)
    await ocpp.elapse(queued)
    await ocpp.restore()
    return started, before


@pytest.mark.sut_roles("csms")
@checks(Core16.authorize, Core16.start, OFFLINE16.delivered, OFFLINE16.processed)
@needs(tagged("Accepted"))
async def test_queued_stop_transaction_is_processed(ocpp, profile):
    """A transaction stops while the link is down; back online the central system accepts the queued
    StopTransaction."""
    token, connector = tag16(profile, "Accepted"), connectors(profile)[0]
    started, _ = await _stopped_offline(ocpp, token, connector, sampling=1.5, queued=0.2)
    stop = await ocpp.expect("StopTransaction", sender=CS, after=0, rule=OFFLINE16.processed)
    require(stop.error is None, OFFLINE16.processed, "the queued StopTransaction was refused",
            expected="StopTransaction.conf", actual=stop.error)
    check_in(OFFLINE16.processed, "StopTransaction.conf idTagInfo.status of a queued StopTransaction (None: "
             "IdTagInfo left out, as it may be)", {None, "Accepted"}, id_tag_status(stop))
    check_equal(OFFLINE16.delivered, "StopTransaction.req transactionId", transaction_id(started),
                stop.request["transactionId"])


@pytest.mark.sut_roles("cs")
@checks(Core16.authorize, Core16.start, OFFLINE16.reconnects, OFFLINE16.delivered, OFFLINE16.in_order,
        OFFLINE16.no_boot, cs=TC("TC_038_CS"))
@needs(tagged("Accepted"))
async def test_queued_messages_arrive_in_order(ocpp, profile):
    """A transaction samples and stops while the link is down; back online the queue arrives in order."""
    token, connector = tag16(profile, "Accepted"), connectors(profile)[0]
    started, before = await _stopped_offline(ocpp, token, connector, sampling=2.5, queued=0.5)
    await _reconnected(ocpp, before)

    def ours(payload: dict) -> bool:
        return payload.get("transactionId") in _transaction_ids(ocpp, started)
    stop = await ocpp.expect("StopTransaction", sender=CS, after=0, where=ours, rule=OFFLINE16.delivered)
    await ocpp.elapse(ocpp.timeouts.quiet)   # what the charge point still sends after it
    queued = [e for e in ocpp.sent(sender=CS, where=ours) if e.action in ("MeterValues", "StopTransaction")]
    late = [e.action for e in queued[queued.index(stop) + 1:]]
    require(not late, OFFLINE16.in_order, "MeterValues of the transaction came after its StopTransaction",
            expected="StopTransaction last", actual=[e.action for e in queued])
    times = [parse_time(_sent_at(e)) for e in queued]
    require(times == sorted(times), OFFLINE16.in_order, "a queued message is older than one delivered before it",
            expected=sorted(map(str, times)), actual=[str(t) for t in times])
    if ocpp.sent("BootNotification", sender=CS):
        violated(OFFLINE16.no_boot, "the charge point booted again after reconnecting")


@pytest.mark.sut_roles("cs")
@checks(Core16.authorize, Core16.start, OFFLINE16.retried, OFFLINE16.retry_wait, OFFLINE16.discarded)
@needs(tagged("Accepted"))
async def test_failed_message_is_retried_then_discarded(ocpp, profile):
    """A StopTransaction the central system keeps refusing is retried at 1×, 2× the interval, then dropped."""
    await configure_charge_point(ocpp, {"TransactionMessageAttempts": str(ATTEMPTS),
                                        "TransactionMessageRetryInterval": str(RETRY_INTERVAL)})
    token, connector = tag16(profile, "Accepted"), connectors(profile)[0]
    await start(ocpp, token, connector)
    ocpp.hold("StopTransaction")
    mark = ocpp.mark()
    await ocpp.act(CS, "present_id_tag", id_tag=token.id, connector_id=connector)
    seen = []
    for attempt in range(ATTEMPTS):
        wait = RETRY_INTERVAL * attempt + ocpp.timeouts.action
        sent = await ocpp.next_call("StopTransaction", sender=CS, within=wait, after=mark, answered=False)
        require(sent is not None, OFFLINE16.retried, f"transmission {attempt + 1} of {ATTEMPTS} did not come",
                expected=f"{ATTEMPTS} transmissions", actual=f"{attempt}")
        seen.append(clock.now())
        await ocpp.answer_held(sent, error=failing("harness: failing on purpose (behaviour rule 2)"))
        mark = ocpp.mark_after(sent)
    for n in range(1, ATTEMPTS):
        waited = seen[n] - seen[n - 1]
        require(waited >= RETRY_INTERVAL * n - TOLERANCE, OFFLINE16.retry_wait,
                f"retry {n} came {waited:.2f} s after transmission {n}", expected=f">= {RETRY_INTERVAL * n} s",
                actual=f"{waited:.2f} s")
    extra = await ocpp.next_call("StopTransaction", sender=CS, within=RETRY_INTERVAL * ATTEMPTS + ocpp.timeouts.quiet,
                                 after=mark, answered=False)
    require(extra is None, OFFLINE16.discarded, f"a transmission after {ATTEMPTS} failed attempts",
            expected="no more StopTransaction", actual=extra.request if extra else None)
