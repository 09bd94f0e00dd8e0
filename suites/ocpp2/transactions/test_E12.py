"""E12 — Inform the CSMS of what happened while offline (with E08, a transaction stopped while offline): a
driver's transaction runs; the connection is lost; meanwhile the cable is pulled and the transaction ends;
once the station is connected again it delivers the Ended event, marked offline, its seqNo following the
transaction's earlier events; the CSMS answers it. The requirements, in our words: docs/requirements/E.md.

Readings chosen where the texts are silent: the station may reconnect at once or later (within the connect
timeout); the harness does not judge when the queued event goes out, only that it does and how."""

from harness.roles import CS
from harness.rules import RuleTable, must
from harness.suite import OCPP2, case, checks
from harness.usecases.local_list import outage
from harness.usecases.transactions import (Transaction, check_answers, check_seq_no, local_start, of, transaction_id,
                                           tx_points)
from harness.verdict import check_equal


class E12(RuleTable):
    """The rules of E12 (OCPP 2.0.1 part 2 E12.FR.01, E12.FR.02, E08; the same in 2.1)."""
    delivered = must("OCPP 2.0.1 part 2 E12.FR.01 (as public implementations quote it: transaction-related "
                     "messages kept while offline are delivered once connected again); E08",
                     "the Ended event of a transaction stopped while offline is delivered once the station is back",
                     by=CS)
    offline = must("OCPP 2.0.1 part 2 E12.FR.02, E11.FR.02 (as public implementations quote them); "
                   "TransactionEventRequest offline",
                   "an event that happened while the station was offline carries offline true", by=CS)


pytestmark = case("E12", block="Transactions", roles=("csms", "cs"), protocols=OCPP2)


@checks(E12.delivered, E12.offline, Transaction.seq_no, Transaction.answered)
async def test_transaction_stopped_while_offline(ocpp, profile):
    """TxStopPoint EVConnected; a driver's transaction runs; during an outage the cable is pulled: back
    online, the station sends the Ended event with offline true and a seqNo above its earlier events'; a
    CSMS answers it."""
    await _stopped_offline(ocpp, profile, "EVConnected")


async def _stopped_offline(ocpp, profile, stop: str) -> None:
    """TxStopPoint ``stop``; a driver's transaction runs; during an outage the cable is pulled (EVConnected) or
    the driver presents the token again (Authorized): back online, the Ended event is delivered with offline
    true and a seqNo above the earlier events'; a CSMS answers it."""
    evse = profile.evses[0].id
    await tx_points(ocpp, stop=stop)
    mark = ocpp.mark()
    token, started = await local_start(ocpp, evse, E12.delivered)
    tx = transaction_id(started)
    before = ocpp.sent("TransactionEvent", sender=CS, after=mark, where=of(tx))
    step = ("unplug", {"evse_id": evse}) if stop == "EVConnected" else \
        ("present_id_token", {"id_token": token.wire(), "evse_id": evse})
    await outage(ocpp, E12.delivered, step)
    ended = await ocpp.expect("TransactionEvent", sender=CS, after=0, where=of(tx, "Ended"), rule=E12.delivered)
    check_equal(E12.offline, "offline of the Ended event that happened during the outage", True,
                ended.request.get("offline", False))
    after = ocpp.sent("TransactionEvent", sender=CS, after=0, where=of(tx))
    check_seq_no(before + after)
    check_answers(ocpp, after)


@checks(E12.delivered, E12.offline, Transaction.seq_no, Transaction.answered)
async def test_transaction_stopped_by_the_driver_while_offline(ocpp, profile):
    """TxStopPoint Authorized; a driver's transaction runs; during an outage the driver presents the token again
    (the station knows it started the transaction): back online, the station sends the Ended event with offline
    true and a seqNo above its earlier events'; a CSMS answers it."""
    await _stopped_offline(ocpp, profile, "Authorized")
