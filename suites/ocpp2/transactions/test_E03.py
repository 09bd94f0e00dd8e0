"""E03 — Start transaction, identification first: the driver identifies, then plugs the cable in. With
TxStartPoint Authorized the authorization starts the transaction: its Started event carries the idToken
(once: E03.FR.02); the cable then follows in an Updated event. The Ended event carries stoppedReason
unless the stop was Local (E03.FR.05). The requirements, in our words: docs/requirements/E.md.

Readings chosen where the texts are silent: the cable's Updated event names triggerReason CablePluggedIn
(a SHOULD); a station that cannot start on authorization alone (refuses TxStartPoint Authorized) is not
applicable."""

from harness.roles import CS
from harness.rules import RuleTable, should
from harness.suite import OCPP2, TC, case, checks
from harness.usecases.transactions import (Transaction, check_answers, check_seq_no, check_token_once, events_of,
                                           local_start, of, transaction_id, tx_points)
from harness.verdict import dig, require


class E03(RuleTable):
    """The rules of E03 (OCPP 2.0.1 part 2 E03.FR.02, E03.FR.05; the same in 2.1)."""
    cable_event = should("OCPP 2.0.1 part 2 E03 (main flow); TriggerReasonEnumType CablePluggedIn",
                         "the cable plugged into a running transaction is reported with triggerReason CablePluggedIn",
                         by=CS)


pytestmark = case("E03", block="Transactions", roles=("csms", "cs"), protocols=OCPP2)


@checks(Transaction.token_once, E03.cable_event, Transaction.seq_no, Transaction.stopped_reason, Transaction.answered,
        Transaction.token_checked, csms=TC("TC_E_04_CSMS", "ocpp2.0.1"), cs=TC("TC_E_04_CS", "ocpp2.0.1"))
async def test_authorization_first_then_cable(ocpp, profile):
    """TxStartPoint Authorized, TxStopPoint EVConnected; an accepted token, then the cable: the Started event
    carries the token, the cable comes in a later event, and pulling the cable ends the transaction with a
    stoppedReason."""
    evse = profile.evses[0].id
    await tx_points(ocpp, start="Authorized", stop="EVConnected")
    mark = ocpp.mark()
    token, started = await local_start(ocpp, evse, Transaction.token_once, cable_first=False)
    tx = transaction_id(started)
    require(dig(started.request, "idToken.idToken") is not None, Transaction.token_once,
            "the Started event of a transaction started by the driver's authorization carries no idToken",
            expected=token.wire(), actual=started.request.get("idToken"))
    await ocpp.expect("TransactionEvent", sender=CS, after=mark, rule=E03.cable_event,
                      where=lambda p: of(tx, "Updated")(p) and p.get("triggerReason") == "CablePluggedIn")
    stop = ocpp.mark()
    await ocpp.act(CS, "unplug", evse_id=evse)
    ended = await ocpp.expect("TransactionEvent", sender=CS, after=stop, where=of(tx, "Ended"),
                              rule=Transaction.stopped_reason)
    require(dig(ended.request, "transactionInfo.stoppedReason") is not None, Transaction.stopped_reason,
            "the Ended event of a transaction stopped by the EV's disconnection carries no stoppedReason",
            expected="EVDisconnected", actual=ended.request["transactionInfo"])
    events = events_of(ocpp, tx, mark)
    check_token_once(events, token)
    check_seq_no(events)
    check_answers(ocpp, events, token)
