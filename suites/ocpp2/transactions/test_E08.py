"""E08 — Transaction stopped while the Charging Station is offline: a driver's transaction runs (TxStopPoint
Authorized); the connection is lost; meanwhile the driver presents the token that started it and the station, alone,
ends the transaction; once connected again it delivers the Ended event, marked offline, its seqNo following the
transaction's earlier events; the CSMS answers it. The requirements, in our words: docs/requirements/E.md.

Readings chosen where the texts are silent: the station may reconnect at once or later (within the connect
timeout); when the queued event goes out is not judged, only that it does and how. E08's other requirements
(E08.FR.01-03, FR.09-12: the stop decided offline, what the CSMS does with a token it would have refused) could not
be read with their subjects: not played. The same delivery after the cable was pulled is E12's (test_E12.py)."""

from harness.roles import CS
from harness.rules import RuleTable, must
from harness.suite import OCPP2, case, checks
from harness.usecases.transactions import Transaction, stopped_offline


class E08(RuleTable):
    """The rules of E08 (OCPP 2.0.1 part 2 E08.FR.04-08 as public implementations cite them; the same in 2.1)."""
    delivered = must("OCPP 2.0.1 part 2 E08.FR.05-07 (as public implementations cite them: the transaction messages "
                     "queued while offline are kept and delivered in order once connected again)",
                     "the Ended event of a transaction the driver stopped while offline is delivered once the station "
                     "is back", by=CS)
    offline = must("OCPP 2.0.1 part 2 E08.FR.04-08 (as a public implementation note cites them with E12.FR.02); "
                   "TransactionEventRequest offline",
                   "the Ended event of a transaction stopped while offline carries offline true", by=CS)


pytestmark = case("E08", block="Transactions", roles=("csms", "cs"), protocols=OCPP2)


@checks(E08.delivered, E08.offline, Transaction.seq_no, Transaction.answered)
async def test_transaction_stopped_by_the_driver_while_offline(ocpp, profile):
    """TxStopPoint Authorized; a driver's transaction runs; during an outage the driver presents the token again
    (the station knows it started the transaction): back online, the station sends the Ended event with offline
    true and a seqNo above its earlier events'; a CSMS answers it."""
    await stopped_offline(ocpp, profile.evses[0].id, "Authorized", E08.delivered, E08.offline)
