"""E06 — Stop transaction options: the station's TxCtrlr.TxStopPoint says what ends a transaction (the
cable out: EVConnected; the driver's authorization ended: Authorized; either: PowerPathClosed; energy
stopping: EnergyTransfer) and its TransactionEvent Ended goes out then, with a stoppedReason (E03.FR.05).
The requirements, in our words: docs/requirements/E.md.

Readings chosen where the texts are silent: stoppedReason EVDisconnected for the cable and Local (or none)
for the driver's stop are SHOULDs; pulling the cable is how the harness makes energy stop for
EnergyTransfer (no actuator action suspends an EV); ParkingBayOccupancy needs a detector no action
reaches. A station that refuses the value is not applicable."""

import pytest

from harness.roles import CS
from harness.rules import RuleTable, must, should
from harness.suite import OCPP2, TC, case, checks
from harness.usecases.transactions import (Transaction, check_answers, check_seq_no, events_of, local_start, of,
                                           present, transaction_id, tx_points)
from harness.verdict import check_in, dig, require


class E06(RuleTable):
    """The rules of E06 (OCPP 2.0.1 part 2 E06.FR.02, 03, 06, 07; the same in 2.1)."""
    ev_connected = must("OCPP 2.0.1 part 2 E06.FR.02", "with TxStopPoint EVConnected, the cable pulled out ends the "
                        "transaction: TransactionEvent Ended", by=CS)
    authorized = must("OCPP 2.0.1 part 2 E06.FR.03", "with TxStopPoint Authorized, the driver authorized to stop "
                      "ends the transaction: TransactionEvent Ended", by=CS)
    power_path = must("OCPP 2.0.1 part 2 E06.FR.06", "with TxStopPoint PowerPathClosed, the cable pulled out ends "
                      "the transaction: TransactionEvent Ended", by=CS)
    energy = must("OCPP 2.0.1 part 2 E06.FR.07", "with TxStopPoint EnergyTransfer, energy stopping (the cable pulled "
                  "out) ends the transaction: TransactionEvent Ended", by=CS)
    reason = should("OCPP 2.0.1 part 2 ReasonEnumType (EVDisconnected, Local)",
                    "the stoppedReason names the cause: EVDisconnected for the cable, Local for the driver", by=CS)


pytestmark = case("E06", block="Transactions", roles=("csms", "cs"), protocols=OCPP2)

RULE = {"EVConnected": E06.ev_connected, "Authorized": E06.authorized, "PowerPathClosed": E06.power_path,
        "EnergyTransfer": E06.energy}


@pytest.mark.parametrize("point", list(RULE))
@checks(E06.ev_connected, E06.authorized, E06.power_path, E06.energy, E06.reason, Transaction.stopped_reason,
        Transaction.seq_no, Transaction.answered,
        csms=(TC("TC_E_14_CSMS", "ocpp2.0.1", when="EVConnected"), TC("TC_E_15_CSMS", "ocpp2.0.1", when="Authorized"),
              TC("TC_E_07_CSMS", "ocpp2.0.1", when="PowerPathClosed")))
async def test_transaction_ends_at_the_stop_point(ocpp, profile, point):
    """TxStopPoint holds one point; a driver's transaction runs; the driver presents the token again
    (Authorized) or pulls the cable (the others): the transaction ends, with a stoppedReason."""
    evse = profile.evses[0].id
    await tx_points(ocpp, start="PowerPathClosed", stop=point)
    mark = ocpp.mark()
    token, started = await local_start(ocpp, evse, RULE[point])
    tx = transaction_id(started)
    stop = ocpp.mark()
    if point == "Authorized":
        await present(ocpp, token, evse)
    else:
        await ocpp.act(CS, "unplug", evse_id=evse)
    ended = await ocpp.expect("TransactionEvent", sender=CS, after=stop, where=of(tx, "Ended"), rule=RULE[point])
    reason = dig(ended.request, "transactionInfo.stoppedReason")
    if point == "Authorized":
        check_in(E06.reason, "stoppedReason of a stop by the driver (Local, or left out)", (None, "Local"), reason)
    else:
        require(reason is not None, Transaction.stopped_reason, "the Ended event carries no stoppedReason",
                expected="EVDisconnected", actual=ended.request["transactionInfo"])
        check_in(E06.reason, "stoppedReason of a stop by the cable", ("EVDisconnected",), reason)
    events = events_of(ocpp, tx, mark)
    check_seq_no(events)
    check_answers(ocpp, events)


@pytest.mark.parametrize("by", ["cable", "driver"])
@checks(E06.ev_connected, E06.authorized, E06.reason, Transaction.stopped_reason, Transaction.seq_no,
        Transaction.answered)
async def test_either_stop_point_ends_the_transaction(ocpp, profile, by):
    """TxStopPoint lists EVConnected and Authorized; a driver's transaction runs; the cable is pulled out, or the
    driver presents the token again: that step alone ends the transaction."""
    evse = profile.evses[0].id
    await tx_points(ocpp, start="PowerPathClosed", stop="EVConnected,Authorized")
    rule = E06.ev_connected if by == "cable" else E06.authorized
    mark = ocpp.mark()
    token, started = await local_start(ocpp, evse, rule)
    tx = transaction_id(started)
    stop = ocpp.mark()
    if by == "cable":
        await ocpp.act(CS, "unplug", evse_id=evse)
    else:
        await present(ocpp, token, evse)
    ended = await ocpp.expect("TransactionEvent", sender=CS, after=stop, where=of(tx, "Ended"), rule=rule)
    reason = dig(ended.request, "transactionInfo.stoppedReason")
    if by == "cable":
        require(reason is not None, Transaction.stopped_reason, "the Ended event carries no stoppedReason",
                expected="EVDisconnected", actual=ended.request["transactionInfo"])
    check_in(E06.reason, f"stoppedReason of a stop by the {by}", ("EVDisconnected",) if by == "cable" else
             (None, "Local"), reason)
    events = events_of(ocpp, tx, mark)
    check_seq_no(events)
    check_answers(ocpp, events)
