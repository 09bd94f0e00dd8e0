"""E09 — Cable disconnected on the EV side, the transaction stops: with TxCtrlr.StopTxOnEVSideDisconnect
true, a cable pulled out of the EV (it stays in the station's socket) ends the running transaction:
TransactionEvent Ended, with a stoppedReason. The requirements, in our words: docs/requirements/E.md.

Readings chosen where the texts are silent: the stop itself is a SHOULD where only StopTxOnEVSideDisconnect
asks for it (no public text quotes an E09 SHALL with its id); with TxStopPoint EVConnected, PowerPathClosed or
EnergyTransfer the EV's connection lost is E06.FR.02's, FR.06's or FR.07's SHALL, whichever end the cable left
(tzi-OCTT's TC_E_20 plays EVConnected at the EV side). triggerReason EVCommunicationLost and stoppedReason
EVDisconnected are SHOULDs. A station that refuses the variable, or an actuator without `unplug_ev`, is not
applicable."""

import pytest

from harness.roles import CS
from harness.rules import RuleTable, must, should
from harness.suite import OCPP2, TC, case, checks
from harness.usecases.authorization import station_variable
from harness.usecases.transactions import (Transaction, check_answers, check_seq_no, events_of, local_start, of,
                                           transaction_id, tx_points)
from harness.verdict import check_in, dig, require


class E09(RuleTable):
    """The rules of E09 (OCPP 2.0.1 part 2 E09, E06.FR.02; the same in 2.1)."""
    ended = should("OCPP 2.0.1 part 2 E09 (StopTxOnEVSideDisconnect true); device model TxCtrlr."
                   "StopTxOnEVSideDisconnect", "with StopTxOnEVSideDisconnect true, the cable pulled out of the EV "
                   "ends the transaction: TransactionEvent Ended", by=CS)
    ev_connected = must("OCPP 2.0.1 part 2 E06.FR.02 (as tzi-OCTT's TC_E_20 plays it at the EV side)",
                        "with TxStopPoint EVConnected, the EV's connection lost at the EV side ends the transaction: "
                        "TransactionEvent Ended", by=CS)
    power_path = must("OCPP 2.0.1 part 2 E06.FR.06", "with TxStopPoint PowerPathClosed, the EV's connection lost "
                      "at the EV side ends the transaction: TransactionEvent Ended", by=CS)
    energy = must("OCPP 2.0.1 part 2 E06.FR.07", "with TxStopPoint EnergyTransfer, the energy stopping because the "
                  "EV left ends the transaction: TransactionEvent Ended", by=CS)
    trigger = should("OCPP 2.0.1 part 2 TriggerReasonEnumType EVCommunicationLost",
                     "that Ended event names triggerReason EVCommunicationLost", by=CS)
    reason = should("OCPP 2.0.1 part 2 ReasonEnumType EVDisconnected",
                    "that Ended event names stoppedReason EVDisconnected", by=CS)


pytestmark = case("E09", block="Transactions", roles=("csms", "cs"), protocols=OCPP2)

RULE = {"Authorized": E09.ended, "EVConnected": E09.ev_connected, "PowerPathClosed": E09.power_path,
        "EnergyTransfer": E09.energy}


@pytest.mark.parametrize("point", list(RULE))
@checks(Transaction.started, E09.ended, E09.ev_connected, E09.power_path, E09.energy, E09.trigger, E09.reason,
        Transaction.stopped_reason, Transaction.seq_no,
        Transaction.answered, csms=(TC("TC_E_20_CSMS", "ocpp2.0.1", when="EVConnected"),
                                   TC("TC_E_17_CSMS", "ocpp2.0.1", when="Authorized")))
async def test_transaction_stops_when_the_ev_side_is_unplugged(ocpp, profile, point):
    """StopTxOnEVSideDisconnect true and TxStopPoint ``point``; a driver's transaction runs; the cable is
    pulled out of the EV: the transaction ends (Ended, EVCommunicationLost, EVDisconnected)."""
    evse = profile.evses[0].id
    await tx_points(ocpp, start="PowerPathClosed", stop=point)
    await station_variable(ocpp, "TxCtrlr", "StopTxOnEVSideDisconnect", "true")
    mark = ocpp.mark()
    _, started = await local_start(ocpp, evse, Transaction.started)
    tx = transaction_id(started)
    stop = ocpp.mark()
    await ocpp.act(CS, "unplug_ev", evse_id=evse)
    ended = await ocpp.expect("TransactionEvent", sender=CS, after=stop, where=of(tx, "Ended"), rule=RULE[point])
    if ended is None:   # E09.ended is a SHOULD: its finding is recorded, nothing else to judge
        return
    check_in(E09.trigger, "triggerReason of the Ended event", ("EVCommunicationLost",),
             ended.request.get("triggerReason"))
    reason = dig(ended.request, "transactionInfo.stoppedReason")
    require(reason is not None, Transaction.stopped_reason, "the Ended event carries no stoppedReason",
            expected="EVDisconnected", actual=ended.request["transactionInfo"])
    check_in(E09.reason, "stoppedReason of a stop by the EV's cable", ("EVDisconnected",), reason)
    events = events_of(ocpp, tx, mark)
    check_seq_no(events)
    check_answers(ocpp, events)
