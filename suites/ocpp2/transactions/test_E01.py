"""E01 — Start transaction options: the station's TxCtrlr.TxStartPoint says what starts a transaction (the
cable in: EVConnected; the driver authorized: Authorized; both: PowerPathClosed; energy flowing:
EnergyTransfer) and its TransactionEvent Started goes out at that point; every event of the transaction
carries a seqNo that rises. ParkingBayOccupancy and DataSigned need a detector or a signing meter no
actuator action reaches: a station that refuses the value is not applicable. The requirements, in our words:
docs/requirements/E.md.

Readings chosen where the texts are silent: the triggerReason of the Started event (CablePluggedIn,
Authorized) is a SHOULD; with PowerPathClosed or EnergyTransfer the harness does not judge that nothing
started earlier (no public SHALL NOT); the idToken of a transaction started on the cable comes in a later
Updated event, whichever its triggerReason."""

import pytest

from harness.roles import CS
from harness.rules import RuleTable, must, should
from harness.suite import OCPP2, TC, case, checks
from harness.usecases.transactions import (Transaction, check_answers, check_seq_no, check_token_once, driver,
                                           events_of, of, plug, present, started_on, transaction_id, tx_points)
from harness.verdict import check_equal, dig


class E01(RuleTable):
    """The rules of E01 (OCPP 2.0.1 part 2 E01.FR.02-06; the same in 2.1)."""
    ev_connected = must("OCPP 2.0.1 part 2 E01.FR.02", "with TxStartPoint EVConnected, the cable in starts the "
                        "transaction: TransactionEvent Started", by=CS)
    authorized = must("OCPP 2.0.1 part 2 E01.FR.03", "with TxStartPoint Authorized, the driver's authorization starts "
                      "the transaction: TransactionEvent Started", by=CS)
    power_path = must("OCPP 2.0.1 part 2 E01.FR.05", "with TxStartPoint PowerPathClosed, the cable in and the driver "
                      "authorized start the transaction: TransactionEvent Started", by=CS)
    energy = must("OCPP 2.0.1 part 2 E01.FR.06", "with TxStartPoint EnergyTransfer, energy flowing (the cable in and "
                  "the driver authorized) starts the transaction: TransactionEvent Started", by=CS)
    trigger = should("OCPP 2.0.1 part 2 TriggerReasonEnumType (CablePluggedIn, Authorized)",
                     "the Started event names what started it: CablePluggedIn for the cable, Authorized for the driver",
                     by=CS)


pytestmark = case("E01", block="Transactions", roles=("csms", "cs"), protocols=OCPP2)

RULE = {"EVConnected": E01.ev_connected, "Authorized": E01.authorized, "PowerPathClosed": E01.power_path,
        "EnergyTransfer": E01.energy}
TRIGGER = {"EVConnected": "CablePluggedIn", "Authorized": "Authorized"}


@pytest.mark.parametrize("point", list(RULE))
@checks(E01.ev_connected, E01.authorized, E01.power_path, E01.energy, E01.trigger, Transaction.seq_no,
        Transaction.token_once, Transaction.answered, Transaction.token_checked,
        csms=(TC("TC_E_09_CSMS", "ocpp2.0.1", when="EVConnected"), TC("TC_E_10_CSMS", "ocpp2.0.1", when="Authorized"),
              TC("TC_E_01_CSMS", "ocpp2.0.1", when="PowerPathClosed"),
              TC("TC_E_02_CSMS", "ocpp2.0.1", when="EnergyTransfer")))
async def test_transaction_starts_at_the_start_point(ocpp, profile, point):
    """TxStartPoint holds one point; the cable goes in first for EVConnected, the token first for Authorized,
    both for the others: the Started event follows the step the point names, and the idToken is carried
    once. A CSMS answers every event, the token's Accepted."""
    evse = profile.evses[0].id
    await tx_points(ocpp, start=point)
    token = driver(ocpp)
    mark = ocpp.mark()
    if point == "Authorized":
        await present(ocpp, token, evse)
    else:
        await plug(ocpp, evse)
    if point in ("PowerPathClosed", "EnergyTransfer"):
        await present(ocpp, token, evse)
    started = await ocpp.expect("TransactionEvent", sender=CS, after=mark, where=started_on(evse), rule=RULE[point])
    tx = transaction_id(started)
    if point in TRIGGER:
        check_equal(E01.trigger, "TransactionEvent Started triggerReason", TRIGGER[point],
                    started.request["triggerReason"])
    if point == "EVConnected":
        await present(ocpp, token, evse)
    elif point == "Authorized":
        await plug(ocpp, evse)
    carrying = lambda p: of(tx)(p) and dig(p, "idToken.idToken") is not None
    await ocpp.expect("TransactionEvent", sender=CS, after=mark, where=carrying, rule=Transaction.token_once)
    events = events_of(ocpp, tx, mark)
    check_seq_no(events)
    check_token_once(events, token)
    check_answers(ocpp, events, token)


@checks(Transaction.seq_no, Transaction.answered, csms=TC("TC_E_53_CSMS", "ocpp2.0.1"))
async def test_seq_no_of_a_second_transaction(ocpp, profile):
    """Two transactions one after the other on one EVSE: each one's events carry rising seqNo (a station may
    start each at 0, as 2.0.1 edition 2 recommends); a CSMS answers the second's Started as any other."""
    evse = profile.evses[0].id
    await tx_points(ocpp, stop="EVConnected")
    token = driver(ocpp)
    for _ in range(2):
        mark = ocpp.mark()
        await plug(ocpp, evse)
        await present(ocpp, token, evse)
        started = await ocpp.expect("TransactionEvent", sender=CS, after=mark, where=started_on(evse),
                                    rule=Transaction.seq_no)
        tx = transaction_id(started)
        await ocpp.act(CS, "unplug", evse_id=evse)
        await ocpp.expect("TransactionEvent", sender=CS, after=mark, where=of(tx, "Ended"), rule=Transaction.seq_no)
        events = events_of(ocpp, tx, mark)
        check_seq_no(events)
        check_answers(ocpp, events)


FIRST = {"cable": "EVConnected", "token": "Authorized"}


@pytest.mark.parametrize("first", list(FIRST))
@checks(E01.ev_connected, E01.authorized, E01.trigger, Transaction.seq_no, Transaction.answered)
async def test_either_start_point_starts_the_transaction(ocpp, profile, first):
    """TxStartPoint lists EVConnected and Authorized; the cable goes in first, or the token is presented first:
    that step alone starts the transaction, its Started event naming it."""
    evse = profile.evses[0].id
    await tx_points(ocpp, start="EVConnected,Authorized")
    mark = ocpp.mark()
    if first == "cable":
        await plug(ocpp, evse)
    else:
        await present(ocpp, driver(ocpp), evse)
    point = FIRST[first]
    started = await ocpp.expect("TransactionEvent", sender=CS, after=mark, where=started_on(evse), rule=RULE[point])
    check_equal(E01.trigger, "TransactionEvent Started triggerReason", TRIGGER[point], started.request["triggerReason"])
    if first == "cable":
        await present(ocpp, driver(ocpp), evse)
    else:
        await plug(ocpp, evse)
    tx = transaction_id(started)
    carrying = lambda p: of(tx)(p) and dig(p, "idToken.idToken") is not None
    await ocpp.expect("TransactionEvent", sender=CS, after=mark, where=carrying, rule=Transaction.token_once)
    events = events_of(ocpp, tx, mark)
    check_seq_no(events)
    check_answers(ocpp, events)
