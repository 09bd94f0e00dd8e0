"""E13 — Transaction-related message not accepted by the CSMS: a TransactionEvent the CSMS answers with a
CALLERROR is sent again, MessageAttemptInterval (instance TransactionEvent) seconds times the transmissions
before it later, up to MessageAttempts (instance TransactionEvent) transmissions; after the last it is
discarded and the messages after it still go out. The requirements, in our words: docs/requirements/E.md.

Readings chosen where the texts are silent: MessageAttempts counts every transmission, the first included
(as 1.6's TransactionMessageAttempts does); the retry is recognized by its transactionId, eventType and seqNo
(the message id is new); a retry is judged early only when it comes before the interval it must wait,
less a scheduling slack; the harness answers the station's CALLs with a CALLERROR on purpose (InternalError),
so a CSMS under test has no part here. A station that refuses either variable is not applicable."""

from harness import clock
from harness.roles import CS
from harness.rules import RuleTable, must, should
from harness.suite import OCPP2, TC, case, checks
from harness.usecases.transactions import (Transaction, driver, local_start, message_attempts, of, plug, present, started_on,
                                           transaction_id, tx_points)
from harness.usecases.transport import failing
from harness.verdict import require

INTERVAL, ATTEMPTS = 4, 3
TOLERANCE = 0.25   # seconds of scheduling slack when an interval is measured


class E13(RuleTable):
    """The rules of E13 (OCPP 2.0.1 part 2 E13.FR.02-04; the same in 2.1)."""
    ended = must("OCPP 2.0.1 part 2 E06.FR.02 (the test's step)", "with TxStopPoint EVConnected, the cable pulled "
                 "out ends the transaction: TransactionEvent Ended", by=CS)
    retried = should("OCPP 2.0.1 part 2 E13.FR.02 (as public implementations cite it); device model "
                     "OCPPCommCtrlr.MessageAttempts[TransactionEvent]",
                     "a TransactionEvent answered with a CALLERROR is sent again, up to MessageAttempts "
                     "transmissions in all", by=CS)
    retry_wait = must("OCPP 2.0.1 part 2 E13.FR.03 (quoted with its SHALL by a public implementation's audit)",
                      "retry n waits MessageAttemptInterval[TransactionEvent] seconds times the transmissions "
                      "before it", by=CS)
    discarded = should("OCPP 2.0.1 part 2 E13.FR.04 (as public implementations cite it)",
                       "after MessageAttempts failed transmissions the message is discarded: not sent again", by=CS)
    next_sent = should("OCPP 2.0.1 part 2 E13.FR.04 (as public implementations cite it)",
                       "the TransactionEvents after a discarded one are still delivered", by=CS)


pytestmark = case("E13", block="Transactions", roles=("cs",), protocols=OCPP2)


def same_event(event: dict):
    """A transmission of ``event``: its transaction, eventType and seqNo."""
    tx, kind, seq_no = event["transactionInfo"]["transactionId"], event["eventType"], event["seqNo"]
    return lambda p: of(tx, kind)(p) and p.get("seqNo") == seq_no


async def refused_ended_event(ocpp, profile, refusals: int) -> tuple[list[float], int]:
    """MessageAttempts and MessageAttemptInterval of TransactionEvent set; a driver's transaction runs; the
    harness answers its Ended event with a CALLERROR ``refusals`` times (then as usual). Returns when each
    transmission came and the mark after the last one seen."""
    evse = profile.evses[0].id
    await message_attempts(ocpp, ATTEMPTS, INTERVAL)
    await tx_points(ocpp, stop="EVConnected")
    _, started = await local_start(ocpp, evse, Transaction.started)
    tx = transaction_id(started)
    ocpp.hold("TransactionEvent", where=of(tx, "Ended"))
    mark = ocpp.mark()
    await ocpp.act(CS, "unplug", evse_id=evse)
    first = await ocpp.next_call("TransactionEvent", sender=CS, within=ocpp.timeouts.action, after=mark,
                                 answered=False, where=of(tx, "Ended"))
    require(first is not None, E13.ended, "no TransactionEvent Ended after the cable was pulled out",
            expected="TransactionEvent Ended", actual=None)
    return await refused(ocpp, first, refusals)


async def refused(ocpp, first, refusals: int) -> tuple[list[float], int]:
    """The held TransactionEvent ``first`` answered with a CALLERROR ``refusals`` times (each transmission
    awaited within the interval it must wait, plus the action timeout), then as usual. Returns when each
    transmission came and the mark after the last one seen."""
    seen, sent = [clock.now()], first
    where = same_event(first.request)
    kind = first.request["eventType"]
    for transmission in range(1, refusals + 1):
        await ocpp.answer_held(sent, error=failing("harness: failing on purpose (E13)"))
        mark = ocpp.mark_after(sent)
        if transmission >= ATTEMPTS:
            break
        wait = INTERVAL * transmission + ocpp.timeouts.action
        sent = await ocpp.next_call("TransactionEvent", sender=CS, within=wait, after=mark, answered=False,
                                    where=where)
        require(sent is not None, E13.retried, f"transmission {transmission + 1} of {ATTEMPTS} of the refused "
                f"{kind} event did not come within {wait:g} s", expected=f"{ATTEMPTS} transmissions",
                actual=transmission)
        if sent is None:
            return seen, mark
        seen.append(clock.now())
    else:
        await ocpp.answer_held(sent)
        mark = ocpp.mark_after(sent)
    return seen, mark


def check_waits(seen: list[float]) -> None:
    for n in range(1, len(seen)):
        waited = seen[n] - seen[n - 1]
        require(waited >= INTERVAL * n - TOLERANCE, E13.retry_wait, f"retry {n} came {waited:.2f} s after "
                f"transmission {n}", expected=f">= {INTERVAL * n} s", actual=f"{waited:.2f} s")


@checks(Transaction.started, E13.ended, E13.retried, E13.retry_wait)
async def test_refused_event_is_sent_again(ocpp, profile):
    """The Ended event refused once is sent again, MessageAttemptInterval seconds later, and then answered."""
    seen, _ = await refused_ended_event(ocpp, profile, 1)
    check_waits(seen)


@checks(Transaction.started, E13.ended, E13.retried, E13.retry_wait, E13.discarded, E13.next_sent,
        cs=TC("TC_E_50_CS", "ocpp2.0.1"))
async def test_event_discarded_after_the_last_attempt(ocpp, profile):
    """The Ended event refused at each of its MessageAttempts transmissions (waiting 1x, 2x the interval) is
    not sent again; the next transaction's Started event still goes out."""
    seen, mark = await refused_ended_event(ocpp, profile, ATTEMPTS)
    check_waits(seen)
    if len(seen) < ATTEMPTS:
        return
    extra = await ocpp.next_call("TransactionEvent", sender=CS, within=INTERVAL * ATTEMPTS + ocpp.timeouts.quiet,
                                 after=mark, answered=False, where=lambda p: p.get("eventType") == "Ended")
    require(extra is None, E13.discarded, f"a transmission after {ATTEMPTS} failed attempts",
            expected="no more TransactionEvent Ended", actual=extra.request if extra else None)
    if extra is not None:   # answered, so that the station is not left waiting; the next event is not judged
        await ocpp.answer_held(extra)
        return
    evse = profile.evses[0].id
    start = ocpp.mark()
    token = driver(ocpp)
    await plug(ocpp, evse)
    await present(ocpp, token, evse)
    started = await ocpp.next_call("TransactionEvent", sender=CS, within=ocpp.timeouts.action, after=start,
                                   where=started_on(evse))   # not held: answered as usual
    require(started is not None, E13.next_sent, "no TransactionEvent Started of the next transaction after the "
            "discarded event", expected="TransactionEvent Started", actual=None)


@checks(Transaction.started, E13.retried, E13.retry_wait, cs=TC("TC_E_51_CS", "ocpp2.0.1"))
async def test_refused_started_event_is_sent_again(ocpp, profile):
    """The Started event of a driver's transaction refused once is sent again, MessageAttemptInterval seconds
    later, and then answered."""
    evse = profile.evses[0].id
    await message_attempts(ocpp, ATTEMPTS, INTERVAL)
    await tx_points(ocpp, start="PowerPathClosed")
    ocpp.hold("TransactionEvent", where=started_on(evse))
    mark = ocpp.mark()
    await plug(ocpp, evse)
    await present(ocpp, driver(ocpp), evse)
    first = await ocpp.next_call("TransactionEvent", sender=CS, within=ocpp.timeouts.action, after=mark,
                                 answered=False, where=started_on(evse))
    require(first is not None, Transaction.started, "no TransactionEvent Started after the cable went in and the "
            "driver was authorized", expected="TransactionEvent Started", actual=None)
    seen, _ = await refused(ocpp, first, 1)
    check_waits(seen)
