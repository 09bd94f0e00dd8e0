"""OFFLINE16 — transaction-related messages while the link is down, and when the central system
fails to process them.

Rules (spec 002 behaviour rules 1, 2 and 4; the queue's rules Q1-Q4 in harness/reference/v16/queue.py):
- O1  offline, StartTransaction, StopTransaction and MeterValues are queued and, back online,
      delivered in chronological order: none is older than one sent before it, and no MeterValues
      of a transaction comes after its StopTransaction (rule 1);
- O2  the central system processes queued historical messages like any other (rule 1);
- O3  a transaction message the central system fails to process is retried after
      TransactionMessageRetryInterval × the transmissions so far, and discarded after
      TransactionMessageAttempts failed attempts (rule 2);
- O4  after reconnecting the charge point SHOULD NOT boot again (rule 4: a finding).
"""

import asyncio
import time

import pytest

from harness.arena import CSMS
from harness.errors import NotApplicable
from harness.reference.v16.meter import parse_time
from harness.suite import OCPP16, case, certified
from harness.usecases.core16 import (
    at_charge_point, connectors, id_tag_status, start, tag16, transaction_id, unplug,
)
from harness.usecases.transport import failing
from harness.verdict import check_equal, fail, finding, require

pytestmark = case("OFFLINE16", block="Core (1.6)", roles=("csms", "cs"), protocols=OCPP16)

RETRY_INTERVAL, ATTEMPTS = 1, 3
TOLERANCE = 0.25   # seconds of scheduling slack when an interval is measured


async def _configure(ocpp, values: dict[str, str]) -> None:
    for key, value in values.items():
        answer = await ocpp.link.call("ChangeConfiguration", {"key": key, "value": value})
        if answer["status"] != "Accepted":
            raise NotApplicable(f"the charge point answers {key}={value} {answer['status']}")


def _sent_at(exchange) -> str:
    if exchange.action == "MeterValues":
        return min(v["timestamp"] for v in exchange.request["meterValue"])
    return exchange.request["timestamp"]


async def _reconnected(ocpp, before: int):
    """The charge point's next connection, once the harness accepts it again."""
    connection = await ocpp.harness.server.wait_connection(ocpp.timeouts.connect, after=before)
    require(connection is not None, "O1 / rule 1: back online the charge point reconnects", "no new connection",
            expected="a connection", actual=f"refused: {ocpp.harness.server.refused[-3:]}")
    ocpp.link = connection
    return connection


@certified(pytestmark, cs="TC_038_CS")
async def test_queued_messages_arrive_in_order(ocpp, profile):
    """O1/O2/O4: a transaction samples and stops while the link is down; back online the queue arrives in order."""
    token, connector = tag16(profile, "Accepted"), connectors(profile)[0]
    if ocpp.is_sut(CSMS):
        station = ocpp.harness
        station.config.set("MeterValueSampleInterval", "1")
        started = await start(ocpp, token, connector)
        station.reconnects = False
        await station.connection.close()
        await asyncio.sleep(1.5)
        await at_charge_point(ocpp, "present_id_tag", id_tag=token.id, connector_id=connector)
        await asyncio.sleep(0.2)                      # the StopTransaction now waits in the queue
        await station.connect(ocpp.sut_url, boot=False)
        ocpp.link = station.connection
        stop = await ocpp.expect("StopTransaction", after=0, rule="O2: the queued StopTransaction is delivered")
        check_equal("O2 / rule 1: a queued historical StopTransaction is processed like any other",
                    "StopTransaction.conf idTagInfo.status", "Accepted", id_tag_status(stop))
        check_equal("O2", "StopTransaction.req transactionId", transaction_id(started), stop.request["transactionId"])
        return
    await _configure(ocpp, {"MeterValueSampleInterval": "1"})
    started = await start(ocpp, token, connector)
    tx_id = transaction_id(started)
    before = len(ocpp.harness.server.connections)
    await ocpp.harness.cut()
    await asyncio.sleep(2.5)
    await at_charge_point(ocpp, "present_id_tag", id_tag=token.id, connector_id=connector)
    await asyncio.sleep(0.5)
    ocpp.harness.restore()
    await _reconnected(ocpp, before)
    stop = await ocpp.expect("StopTransaction", after=0, where=lambda p: p["transactionId"] == tx_id,
                             rule="O1 / rule 1: back online the queued StopTransaction is delivered")
    await asyncio.sleep(ocpp.timeouts.quiet)   # what the charge point still sends after it
    queued = [e for e in ocpp.link.history if e.incoming and e.action in ("MeterValues", "StopTransaction")
              and e.request.get("transactionId") == tx_id]
    late = [e.action for e in queued[queued.index(stop) + 1:]]
    if late:
        fail("O1 / behaviour rule 1: transaction messages are delivered in chronological order",
             "MeterValues of the transaction came after its StopTransaction", expected="StopTransaction last",
             actual=[e.action for e in queued])
    times = [parse_time(_sent_at(e)) for e in queued]
    if times != sorted(times):
        fail("O1 / behaviour rule 1: transaction messages are delivered in chronological order",
             "a queued message is older than one delivered before it", expected=sorted(map(str, times)),
             actual=[str(t) for t in times])
    if any(e.action == "BootNotification" for e in ocpp.link.history):
        finding("O4 / behaviour rule 4", "the charge point booted again after reconnecting")
    await unplug(ocpp, connector)


@pytest.mark.sut_roles("cs")
async def test_failed_message_is_retried_then_discarded(ocpp, profile):
    """O3: a StopTransaction the central system keeps refusing is retried at 1×, 2× the interval, then dropped."""
    await _configure(ocpp, {"TransactionMessageAttempts": str(ATTEMPTS),
                            "TransactionMessageRetryInterval": str(RETRY_INTERVAL)})
    token, connector = tag16(profile, "Accepted"), connectors(profile)[0]
    await start(ocpp, token, connector)
    ocpp.link.held.add("StopTransaction")
    mark = ocpp.mark()
    await at_charge_point(ocpp, "present_id_tag", id_tag=token.id, connector_id=connector)
    seen = []
    for attempt in range(ATTEMPTS):
        wait = RETRY_INTERVAL * attempt + ocpp.timeouts.action
        sent = await ocpp.link.wait_for_call("StopTransaction", wait, start=mark, answered=False)
        if sent is None:
            fail("O3 / behaviour rule 2: a failed transaction message is retried up to TransactionMessageAttempts",
                 f"transmission {attempt + 1} of {ATTEMPTS} did not come", expected=f"{ATTEMPTS} transmissions",
                 actual=f"{attempt}")
        seen.append(time.monotonic())
        ocpp.link.answer(sent, error=failing("harness: failing on purpose (behaviour rule 2)"))
        mark = ocpp.link.history.index(sent) + 1
    for n in range(1, ATTEMPTS):
        waited = seen[n] - seen[n - 1]
        if waited < RETRY_INTERVAL * n - TOLERANCE:
            fail("O3 / behaviour rule 2: retry n waits TransactionMessageRetryInterval × the preceding transmissions",
                 f"retry {n} came {waited:.2f} s after transmission {n}", expected=f">= {RETRY_INTERVAL * n} s",
                 actual=f"{waited:.2f} s")
    extra = await ocpp.link.wait_for_call("StopTransaction", RETRY_INTERVAL * ATTEMPTS + ocpp.timeouts.quiet,
                                          start=mark, answered=False)
    if extra is not None:
        fail("O3 / behaviour rule 2: after TransactionMessageAttempts failed attempts the message is discarded",
             f"a transmission after {ATTEMPTS} failed attempts", expected="no more StopTransaction",
             actual=extra.request)
    await unplug(ocpp, connector)
