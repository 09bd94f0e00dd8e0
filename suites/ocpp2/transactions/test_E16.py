"""E16 (OCPP 2.1) — Transactions with a fixed energy (cost, time or SoC) limit: the CSMS's operator limits the
energy of a running transaction; the CSMS sends transactionLimit.maxEnergy in its answer to the transaction's
next TransactionEvent; the station confirms the limit in force (Updated, triggerReason LimitSet,
transactionInfo.transactionLimit) and, once the transaction has counted that much energy, stops the energy
(Updated, triggerReason EnergyLimitReached, SuspendedEVSE) or, with TxStopPoint EnergyTransfer, ends the
transaction (stoppedReason EnergyLimitReached). The requirements, in our words: docs/requirements/E.md.

Readings chosen where the texts are silent: only maxEnergy is played (the other limits need a tariff, a clock
run to its end or an EV's state of charge); the limit counts the energy since the transaction started; the
station's rows are SHOULDs (no public text quotes E16's SHALLs with their ids); the CSMS must send the limit
its operator asked for in its answer to the transaction's next event (the action's contract). A CSMS
without `set_transaction_limit`, or a station that refuses TxUpdatedInterval, is not applicable."""

from harness.ocpp.equivalence import same
from harness.roles import CS, CSMS
from harness.rules import RuleTable, must, should
from harness.suite import case, checks
from harness.transport.ws import Exchange
from harness.usecases.authorization import station_variable
from harness.usecases.transactions import (Transaction, check_answers, check_seq_no, events_of, local_start, of,
                                           transaction_id, tx_points)
from harness.verdict import check_equal, check_in, dig, require

INTERVAL = 10   # seconds between the transaction's periodic samples
LIMIT = 200     # Wh the operator allows the transaction
PATIENCE = 6    # periodic intervals the station is given to count the energy


class E16(RuleTable):
    """The rules of E16 (OCPP 2.1 part 2 E16: FR.02, FR.03, FR.05, FR.06 as public implementations cite them)."""
    limit_sent = must("OCPP 2.1 TransactionEventResponse transactionLimit; E16.FR.02 (as public implementations "
                      "cite it)", "the CSMS answers the transaction's next TransactionEvent with the "
                      "transactionLimit (maxEnergy, maxTime) its operator asked for", by=CSMS)
    confirmed = should("OCPP 2.1 part 2 E16.FR.03 (as public implementations cite it); TriggerReasonEnumType "
                       "LimitSet", "the station confirms the limit in force: Updated, triggerReason LimitSet, "
                       "transactionInfo.transactionLimit.maxEnergy", by=CS)
    reached = should("OCPP 2.1 part 2 E16.FR.05 (as public implementations cite it); TriggerReasonEnumType "
                     "EnergyLimitReached", "the transaction that counted its maxEnergy stops the energy: "
                     "triggerReason EnergyLimitReached (Updated with SuspendedEVSE, or Ended)", by=CS)
    time_reached = should("OCPP 2.1 part 2 E16.FR.05 (as public implementations cite it); TriggerReasonEnumType "
                          "TimeLimitReached", "the transaction that ran its maxTime stops the energy: triggerReason "
                          "TimeLimitReached (Updated with SuspendedEVSE, or Ended)", by=CS)
    at_once = should("OCPP 2.1 part 2 E16.FR.10 (as public implementations cite it)", "a limit below the energy "
                     "the transaction already counted binds at once: EnergyLimitReached right after LimitSet (within the "
                     "action timeout, before the next sample)",
                     by=CS)
    raised = should("OCPP 2.1 part 2 E16.FR.14 (as public implementations cite it)", "a limit raised above the "
                    "energy a suspended transaction counted lets the energy flow again: an event of the transaction "
                    "with chargingState Charging after the new limit's LimitSet", by=CS)
    ended = should("OCPP 2.1 part 2 E16.FR.06 (as public implementations cite it); ReasonEnumType "
                   "EnergyLimitReached", "with TxStopPoint EnergyTransfer, the limit reached ends the transaction, "
                   "stoppedReason EnergyLimitReached", by=CS)


pytestmark = case("E16", block="Transactions", roles=("csms", "cs"), protocols=("ocpp2.1",))


WIRE = {"max_energy": "maxEnergy", "max_time": "maxTime"}


async def limited(ocpp, profile, stop: str, first: int = 0, **limit: int) -> tuple[str, int] | None:
    """TxStopPoint ``stop`` and samples every INTERVAL s; a driver's transaction runs (for ``first`` intervals)
    and the CSMS's operator limits it (``max_energy`` Wh, ``max_time`` s): the CSMS's answer to the next event
    carries the limit, the station confirms it. Returns the transaction and the mark before it started (None:
    the station confirmed nothing)."""
    evse = profile.evses[0].id
    await tx_points(ocpp, start="PowerPathClosed", stop=stop)
    await station_variable(ocpp, "SampledDataCtrlr", "TxUpdatedInterval", str(INTERVAL))
    mark = ocpp.mark()
    _, started = await local_start(ocpp, evse, Transaction.started)
    tx = transaction_id(started)
    await ocpp.elapse(first * INTERVAL)
    return (tx, mark) if await limit_set(ocpp, tx, **limit) is not None else None


async def limit_set(ocpp, tx: str, **limit: int) -> Exchange | None:
    """The CSMS's operator limits the running transaction ``tx`` (``max_energy`` Wh, ``max_time`` s): the CSMS's
    answer to its next event carries the limit, the station confirms it (LimitSet). Returns the confirmation (None:
    the station confirmed nothing, a finding)."""
    asked = ocpp.mark()
    await ocpp.act(CSMS, "set_transaction_limit", transaction_id=tx, **limit)
    nxt = await ocpp.expect("TransactionEvent", sender=CS, after=asked, where=of(tx), timeout=2 * INTERVAL,
                            rule=E16.confirmed)
    if nxt is None:
        return None
    for name, value in limit.items():
        if ocpp.is_sut(CSMS):
            check_equal(E16.limit_sent, f"transactionLimit.{WIRE[name]} of the answer to the transaction's next "
                        f"event", value, dig(nxt.result, f"transactionLimit.{WIRE[name]}"), same=same("ocpp2.1"))
    confirm = await ocpp.expect("TransactionEvent", sender=CS, after=asked, timeout=2 * INTERVAL,
                                where=lambda p: of(tx, "Updated")(p) and p.get("triggerReason") == "LimitSet",
                                rule=E16.confirmed)
    if confirm is None:
        return None
    for name, value in limit.items():
        check_equal(E16.confirmed, f"transactionInfo.transactionLimit.{WIRE[name]} of the LimitSet event", value,
                    dig(confirm.request, f"transactionInfo.transactionLimit.{WIRE[name]}"), same=same("ocpp2.1"))
    return confirm


def _limit_reached(tx: str):
    return lambda p: of(tx)(p) and p.get("triggerReason") == "EnergyLimitReached"


async def _limit_hit(ocpp, profile) -> tuple[str, int, Exchange | None] | None:
    """TxStopPoint EVConnected,Authorized; a driver's transaction limited to LIMIT Wh by the operator: the
    transaction, the mark before it and the event saying the limit was reached (None: silence, a finding); None
    when the station confirmed no limit."""
    found = await limited(ocpp, profile, "EVConnected,Authorized", max_energy=LIMIT)
    if found is None:
        return None
    tx, mark = found
    reached = await ocpp.expect("TransactionEvent", sender=CS, after=mark, where=_limit_reached(tx),
                                timeout=PATIENCE * INTERVAL, rule=E16.reached)
    return tx, mark, reached


@checks(Transaction.started, E16.limit_sent, E16.confirmed, E16.reached, Transaction.seq_no, Transaction.answered)
async def test_energy_limit_stops_the_energy(ocpp, profile):
    """TxStopPoint EVConnected,Authorized; the operator limits the running transaction to 200 Wh: the CSMS
    sends the limit, the station confirms it and, once 200 Wh have flowed, suspends the energy."""
    found = await _limit_hit(ocpp, profile)
    if found is None:
        return
    tx, mark, reached = found
    if reached is not None and reached.request["eventType"] == "Updated":
        check_in(E16.reached, "chargingState once the energy limit is reached", ("SuspendedEVSE",),
                 dig(reached.request, "transactionInfo.chargingState"))
    events = events_of(ocpp, tx, mark)
    check_seq_no(events)
    check_answers(ocpp, events)


@checks(Transaction.started, E16.limit_sent, E16.confirmed, E16.reached, E16.ended, Transaction.stopped_reason,
        Transaction.seq_no, Transaction.answered)
async def test_energy_limit_ends_the_transaction(ocpp, profile):
    """TxStopPoint EnergyTransfer; the operator limits the running transaction to 200 Wh: once 200 Wh have
    flowed the station ends it, stoppedReason EnergyLimitReached."""
    found = await limited(ocpp, profile, "EnergyTransfer", max_energy=LIMIT)
    if found is None:
        return
    tx, mark = found
    ended = await ocpp.expect("TransactionEvent", sender=CS, after=mark, where=of(tx, "Ended"),
                              timeout=PATIENCE * INTERVAL, rule=E16.ended)
    if ended is None:
        return
    reason = dig(ended.request, "transactionInfo.stoppedReason")
    require(reason is not None, Transaction.stopped_reason, "the Ended event carries no stoppedReason",
            expected="EnergyLimitReached", actual=ended.request["transactionInfo"])
    check_in(E16.ended, "stoppedReason of the transaction that reached its energy limit", ("EnergyLimitReached",),
             reason)
    check_in(E16.reached, "triggerReason of the Ended event", ("EnergyLimitReached",), ended.request["triggerReason"])
    events = events_of(ocpp, tx, mark)
    check_seq_no(events)
    check_answers(ocpp, events)


@checks(Transaction.started, E16.limit_sent, E16.confirmed, E16.at_once, Transaction.answered)
async def test_limit_below_the_counted_energy_binds_at_once(ocpp, profile):
    """A driver's transaction samples for three intervals; then the operator limits it to 1 Wh, less than it
    counted: the station confirms the limit and stops the energy (EnergyLimitReached) at once, not at its next
    sample."""
    found = await limited(ocpp, profile, "EVConnected,Authorized", first=3, max_energy=1)
    if found is None:
        return
    tx, mark = found
    confirmed = ocpp.sent("TransactionEvent", sender=CS, after=mark,
                          where=lambda p: of(tx)(p) and p.get("triggerReason") == "LimitSet")
    after = ocpp.mark_after(confirmed[-1])
    await ocpp.expect("TransactionEvent", sender=CS, after=after, where=_limit_reached(tx),
                      timeout=ocpp.timeouts.action, rule=E16.at_once)
    check_answers(ocpp, events_of(ocpp, tx, mark))


MAX_TIME = 60   # seconds the operator allows the transaction


@checks(Transaction.started, E16.limit_sent, E16.confirmed, E16.time_reached, Transaction.answered)
async def test_time_limit_stops_the_energy(ocpp, profile):
    """The operator limits the running transaction to 60 s: the CSMS sends maxTime, the station confirms it and,
    60 s after the transaction started, stops the energy (TimeLimitReached)."""
    found = await limited(ocpp, profile, "EVConnected,Authorized", max_time=MAX_TIME)
    if found is None:
        return
    tx, mark = found
    await ocpp.expect("TransactionEvent", sender=CS, after=mark, timeout=MAX_TIME + 2 * INTERVAL,
                      where=lambda p: of(tx)(p) and p.get("triggerReason") == "TimeLimitReached",
                      rule=E16.time_reached)
    check_answers(ocpp, events_of(ocpp, tx, mark))


@checks(Transaction.started, E16.limit_sent, E16.confirmed, E16.reached, E16.raised, Transaction.seq_no,
        Transaction.answered)
async def test_raised_limit_resumes_the_energy(ocpp, profile):
    """TxStopPoint EVConnected,Authorized; the operator limits the running transaction to 200 Wh and, once the
    station stopped the energy there, raises the limit to 2000 Wh: the station confirms it and charges again
    (chargingState Charging)."""
    found = await _limit_hit(ocpp, profile)
    if found is None:
        return
    tx, mark, reached = found
    if reached is None or reached.request["eventType"] != "Updated":
        return   # nothing suspended (a finding, or the transaction ended): nothing to resume
    confirm = await limit_set(ocpp, tx, max_energy=10 * LIMIT)
    if confirm is None:
        return
    await ocpp.expect("TransactionEvent", sender=CS, after=ocpp.mark_after(reached), timeout=2 * INTERVAL,
                      where=lambda p: of(tx)(p) and p.get("transactionInfo", {}).get("chargingState") == "Charging",
                      rule=E16.raised)
    events = events_of(ocpp, tx, mark)
    check_seq_no(events)
    check_answers(ocpp, events)
