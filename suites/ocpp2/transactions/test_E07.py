"""E07 — End of a transaction started locally: the driver who started it presents the same token again; the
station ends the transaction (TxStopPoint Authorized) with triggerReason StopAuthorized, and the CSMS
answers the Ended event, checking the token it carries. The requirements, in our words:
docs/requirements/E.md.

Readings chosen where the texts are silent: the Ended event may carry the token that stopped it or not
(both legal); triggerReason StopAuthorized and stoppedReason Local (or none) are SHOULDs. The default
TxStopPoint of OCPP (EVConnected, Authorized) is set for the test."""

from harness.roles import CS
from harness.rules import RuleTable, must, should
from harness.suite import OCPP2, case, checks
from harness.usecases.transactions import (Transaction, check_answers, check_seq_no, events_of, local_start, of,
                                           present, transaction_id, tx_points)
from harness.verdict import check_equal, check_in, dig


class E07(RuleTable):
    """The rules of E07 (OCPP 2.0.1 part 2 E07, E06.FR.03; the same in 2.1)."""
    ended = must("OCPP 2.0.1 part 2 E06.FR.03 (TxStopPoint Authorized)",
                 "the driver's token presented again ends the transaction it started: TransactionEvent Ended", by=CS)
    trigger = should("OCPP 2.0.1 part 2 E07 (main flow); TriggerReasonEnumType StopAuthorized",
                     "the Ended event of a driver's stop names triggerReason StopAuthorized", by=CS)
    reason = should("OCPP 2.0.1 part 2 ReasonEnumType Local; E03.FR.05",
                    "the Ended event of a driver's stop carries stoppedReason Local, or none", by=CS)


pytestmark = case("E07", block="Transactions", roles=("csms", "cs"), protocols=OCPP2)


@checks(E07.ended, E07.trigger, E07.reason, Transaction.seq_no, Transaction.answered, Transaction.token_checked)
async def test_driver_stops_with_the_same_token(ocpp, profile):
    """A driver's transaction runs; the same token presented again ends it (Ended, StopAuthorized, Local); a
    CSMS answers every event, and a token in the Ended event Accepted."""
    evse = profile.evses[0].id
    await tx_points(ocpp, stop="EVConnected,Authorized")
    mark = ocpp.mark()
    token, started = await local_start(ocpp, evse, E07.ended)
    tx = transaction_id(started)
    stop = ocpp.mark()
    await present(ocpp, token, evse)
    ended = await ocpp.expect("TransactionEvent", sender=CS, after=stop, where=of(tx, "Ended"), rule=E07.ended)
    check_equal(E07.trigger, "triggerReason of the Ended event", "StopAuthorized", ended.request["triggerReason"])
    check_in(E07.reason, "stoppedReason of the Ended event (Local, or left out)", (None, "Local"),
             dig(ended.request, "transactionInfo.stoppedReason"))
    events = events_of(ocpp, tx, mark)
    check_seq_no(events)
    check_answers(ocpp, events, token)
