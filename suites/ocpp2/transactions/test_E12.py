"""E12 — Inform the CSMS of what happened while offline: a
driver's transaction runs; the connection is lost; meanwhile the cable is pulled and the transaction ends;
once the station is connected again it delivers the Ended event, marked offline, its seqNo following the
transaction's earlier events; the CSMS answers it. The requirements, in our words: docs/requirements/E.md.

Readings chosen where the texts are silent: the station may reconnect at once or later (within the connect
timeout); the harness does not judge when the queued event goes out, only that it does and how. The driver's stop
while offline is E08's (test_E08.py)."""

from harness.roles import CS
from harness.rules import RuleTable, must
from harness.suite import OCPP2, case, checks
from harness.usecases.transactions import Transaction, stopped_offline


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
    await stopped_offline(ocpp, profile.evses[0].id, "EVConnected", E12.delivered, E12.offline)

