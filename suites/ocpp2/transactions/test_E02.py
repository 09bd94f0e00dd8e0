"""E02 — Start transaction, cable plugin first: the driver plugs the cable in, then identifies. With
TxStartPoint EVConnected the cable starts the transaction (Started, no idToken yet), and the driver's
authorization follows in an Updated event that carries the idToken once; the CSMS checks that token and
answers its idTokenInfo. The requirements, in our words: docs/requirements/E.md.

Readings chosen where the texts are silent: the Updated event's triggerReason Authorized is a SHOULD; a
station that cannot start on the cable (refuses TxStartPoint EVConnected) is not applicable."""

from harness.roles import CS
from harness.rules import RuleTable, should
from harness.suite import OCPP2, TC, case, checks
from harness.usecases.transactions import (Transaction, check_answers, check_seq_no, check_token_once, events_of,
                                           local_start, of, transaction_id, tx_points)
from harness.verdict import check_equal, dig


class E02(RuleTable):
    """The rules of E02 (OCPP 2.0.1 part 2 E02, E01.FR.02, E03.FR.02; the same in 2.1)."""
    authorized_event = should("OCPP 2.0.1 part 2 E02 (main flow); TriggerReasonEnumType Authorized",
                              "the event that brings the idToken of a transaction started on the cable names "
                              "triggerReason Authorized", by=CS)


pytestmark = case("E02", block="Transactions", roles=("csms", "cs"), protocols=OCPP2)


@checks(Transaction.token_once, E02.authorized_event, Transaction.seq_no, Transaction.answered,
        Transaction.token_checked, csms=TC("TC_E_03_CSMS", "ocpp2.0.1"))
async def test_cable_first_then_authorization(ocpp, profile):
    """TxStartPoint EVConnected; the cable in, then an accepted token: the Started event carries no token,
    a later event of the transaction carries it (once), and a CSMS answers it Accepted."""
    evse = profile.evses[0].id
    await tx_points(ocpp, start="EVConnected")
    mark = ocpp.mark()
    token, started = await local_start(ocpp, evse, Transaction.token_once, cable_first=True)
    tx = transaction_id(started)
    authorized = await ocpp.expect("TransactionEvent", sender=CS, after=mark, rule=Transaction.token_once,
                                   where=lambda p: of(tx)(p) and dig(p, "idToken.idToken") is not None)
    check_equal(E02.authorized_event, "triggerReason of the event that carries the idToken", "Authorized",
                authorized.request["triggerReason"])
    events = events_of(ocpp, tx, mark)
    check_token_once(events, token)
    check_seq_no(events)
    check_answers(ocpp, events, token)
