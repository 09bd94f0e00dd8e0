"""E10 — Cable disconnected on the EV side, the transaction is suspended: with TxCtrlr.StopTxOnEVSideDisconnect
false (and a TxStopPoint without EVConnected), a cable pulled out of the EV leaves the transaction running:
TransactionEvent Updated (triggerReason EVCommunicationLost), no Ended; the EV plugged in again goes on in the
same transaction (Updated, CablePluggedIn). The requirements, in our words: docs/requirements/E.md.

Readings chosen where the texts are silent: the connector staying locked (E10.FR.01) is not on the wire and
not judged; TxStopPoint is set to Authorized so that no stop point asks for the end the variable forbids; the
events' triggerReason and chargingState (Idle while the EV is away) are SHOULDs, and so is the suspension
itself (no public text quotes its SHALL); the chargingState after the EV is back may be EVConnected or
Charging. A station that refuses the variable, or an actuator without `unplug_ev`, is not applicable."""

from harness.profile import Token
from harness.roles import CS
from harness.rules import RuleTable, must, should
from harness.suite import OCPP2, TC, case, checks
from harness.usecases.authorization import station_variable
from harness.usecases.transactions import (Transaction, check_answers, check_seq_no, events_of, local_start, of,
                                           plug, present, transaction_id, tx_points)
from harness.verdict import check_in, dig, require


class E10(RuleTable):
    """The rules of E10 (OCPP 2.0.1 part 2 E10; the same in 2.1)."""
    suspended = should("OCPP 2.0.1 part 2 E10 (StopTxOnEVSideDisconnect false); device model TxCtrlr."
                       "StopTxOnEVSideDisconnect", "with StopTxOnEVSideDisconnect false, the cable pulled out of the "
                       "EV does not end the transaction: an Updated event, no Ended", by=CS)
    trigger = should("OCPP 2.0.1 part 2 TriggerReasonEnumType EVCommunicationLost; ChargingStateEnumType Idle",
                     "that Updated event names triggerReason EVCommunicationLost and chargingState Idle", by=CS)
    driver_stop = must("OCPP 2.0.1 part 2 E06.FR.03 (TxStopPoint Authorized, set by the test); E10.FR.01",
                       "the driver presenting the token ends the transaction suspended without the EV: Ended", by=CS)
    driver_reason = should("OCPP 2.0.1 part 2 ReasonEnumType Local; E03.FR.05",
                           "that Ended event names stoppedReason Local, or none", by=CS)
    resumed = should("OCPP 2.0.1 part 2 E10 (the EV reconnected); TriggerReasonEnumType CablePluggedIn",
                     "the EV plugged in again is reported in the same transaction: Updated, triggerReason "
                     "CablePluggedIn, chargingState EVConnected or Charging", by=CS)


pytestmark = case("E10", block="Transactions", roles=("csms", "cs"), protocols=OCPP2)


async def suspended_transaction(ocpp, evse: int) -> tuple[str, int, bool, Token]:
    """StopTxOnEVSideDisconnect false, TxStopPoint Authorized; a driver's transaction runs and the cable is
    pulled out of the EV: the transaction's Updated event is awaited (E10.suspended). Returns the transaction
    id, the mark taken before it started, whether it was suspended (else a finding is recorded) and the driver's
    token."""
    await tx_points(ocpp, start="PowerPathClosed", stop="Authorized")
    await station_variable(ocpp, "TxCtrlr", "StopTxOnEVSideDisconnect", "false")
    mark = ocpp.mark()
    token, started = await local_start(ocpp, evse, Transaction.started)
    tx = transaction_id(started)
    away = ocpp.mark()
    await ocpp.act(CS, "unplug_ev", evse_id=evse)
    lost = await ocpp.expect("TransactionEvent", sender=CS, after=away, where=of(tx), rule=E10.suspended)
    if lost is None:
        return tx, mark, False, token
    if lost.request["eventType"] != "Updated":
        require(False, E10.suspended,
                "the cable pulled out of the EV ended the transaction although StopTxOnEVSideDisconnect is false",
                expected="TransactionEvent Updated", actual=lost.request)
        return tx, mark, False, token
    check_in(E10.trigger, "triggerReason of the event of the EV's cable pulled out", ("EVCommunicationLost",),
             lost.request.get("triggerReason"))
    check_in(E10.trigger, "chargingState while the EV is away", ("Idle",),
             dig(lost.request, "transactionInfo.chargingState"))
    return tx, mark, True, token


@checks(Transaction.started, E10.suspended, E10.trigger, Transaction.seq_no, Transaction.answered)
async def test_transaction_suspended_when_the_ev_side_is_unplugged(ocpp, profile):
    """The cable pulled out of the EV: an Updated event (EVCommunicationLost, Idle), and no Ended."""
    evse = profile.evses[0].id
    tx, mark, suspended, _ = await suspended_transaction(ocpp, evse)
    if suspended and ocpp.is_sut(CS):   # the harness's own station is not watched for what it must not send
        await ocpp.expect_none("TransactionEvent", after=mark, where=of(tx, "Ended"), rule=E10.suspended)
    events = events_of(ocpp, tx, mark)
    check_seq_no(events)
    check_answers(ocpp, events)


@checks(Transaction.started, E10.suspended, E10.trigger, E10.resumed, Transaction.seq_no, Transaction.answered,
        csms=TC("TC_E_26_CSMS", "ocpp2.0.1"), cs=TC("TC_E_26_CS", "ocpp2.0.1"))
async def test_transaction_goes_on_when_the_ev_is_back(ocpp, profile):
    """The cable pulled out of the EV, then the EV plugged in again: the same transaction goes on (Updated,
    CablePluggedIn), never Ended in between."""
    evse = profile.evses[0].id
    tx, mark, suspended, _ = await suspended_transaction(ocpp, evse)
    if not suspended:   # the finding is recorded; nothing to come back to
        return
    back = ocpp.mark()
    await plug(ocpp, evse)
    event = await ocpp.expect("TransactionEvent", sender=CS, after=back, where=of(tx), rule=E10.resumed)
    if event is None:
        return
    require(event.request["eventType"] == "Updated", E10.resumed,
            "the EV plugged in again ended the suspended transaction", expected="TransactionEvent Updated",
            actual=event.request)
    check_in(E10.resumed, "triggerReason of the EV plugged in again", ("CablePluggedIn",),
             event.request.get("triggerReason"))
    check_in(E10.resumed, "chargingState once the EV is back", ("EVConnected", "Charging"),
             dig(event.request, "transactionInfo.chargingState"))
    events = events_of(ocpp, tx, mark)
    check_seq_no(events)
    check_answers(ocpp, events)


@checks(Transaction.started, E10.suspended, E10.driver_stop, E10.driver_reason, Transaction.seq_no, Transaction.answered)
async def test_driver_ends_the_suspended_transaction(ocpp, profile):
    """The cable pulled out of the EV, the transaction suspended; the driver presents the token: the transaction
    ends (Ended, stoppedReason Local or none)."""
    evse = profile.evses[0].id
    tx, mark, suspended, token = await suspended_transaction(ocpp, evse)
    if not suspended:
        return
    stop = ocpp.mark()
    await present(ocpp, token, evse)
    ended = await ocpp.expect("TransactionEvent", sender=CS, after=stop, where=of(tx, "Ended"), rule=E10.driver_stop)
    reason = dig(ended.request, "transactionInfo.stoppedReason")
    check_in(E10.driver_reason, "stoppedReason of the driver's stop (Local, or left out)", (None, "Local"), reason)
    events = events_of(ocpp, tx, mark)
    check_seq_no(events)
    check_answers(ocpp, events)
