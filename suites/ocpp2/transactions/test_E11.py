"""E11 — Connection loss during a transaction: the transaction goes on while the station is offline; the
events it makes meanwhile (here the periodic samples of SampledDataCtrlr.TxUpdatedInterval) are kept and
delivered once the station is connected again, each marked offline, their seqNo following the
transaction's earlier events. The requirements, in our words: docs/requirements/E.md.

Readings chosen where the texts are silent: the station may keep every sample or only some (a full queue
may drop intermediate Updated events); at least one offline event is asked for. A station that refuses
TxUpdatedInterval is not applicable."""

from harness.roles import CS
from harness.rules import RuleTable, must
from harness.suite import OCPP2, case, checks
from harness.usecases.authorization import station_variable
from harness.usecases.transactions import (Transaction, check_answers, check_seq_no, local_start, of, transaction_id,
                                           tx_points)
from harness.verdict import require

INTERVAL = 10   # seconds between the samples made during the outage


class E11(RuleTable):
    """The rules of E11 (OCPP 2.0.1 part 2 E11.FR.02 and the delivery of E12.FR.01; the same in 2.1)."""
    delivered = must("OCPP 2.0.1 part 2 E12.FR.01 (as public implementations quote it); E11",
                     "the events of a transaction made while offline are delivered once the station is back", by=CS)
    offline = must("OCPP 2.0.1 part 2 E11.FR.02 (as public implementations quote it); TransactionEventRequest offline",
                   "an event made while the station was offline carries offline true", by=CS)


pytestmark = case("E11", block="Transactions", roles=("csms", "cs"), protocols=OCPP2)


@checks(E11.delivered, E11.offline, Transaction.seq_no, Transaction.answered)
async def test_samples_made_offline_are_delivered(ocpp, profile):
    """TxUpdatedInterval 10 s; a driver's transaction runs; the connection is lost for three intervals: back
    online, the station sends the transaction's events made meanwhile, each with offline true; a CSMS
    answers them."""
    evse = profile.evses[0].id
    await tx_points(ocpp, stop="EVConnected")
    await station_variable(ocpp, "SampledDataCtrlr", "TxUpdatedInterval", str(INTERVAL))
    mark = ocpp.mark()
    _, started = await local_start(ocpp, evse, E11.delivered)
    tx = transaction_id(started)
    connections = ocpp.connections()
    await ocpp.cut()
    cut_at = ocpp.link_number()
    await ocpp.elapse(3 * INTERVAL)
    before = ocpp.sent("TransactionEvent", sender=CS, after=mark, where=of(tx), on=cut_at)
    await ocpp.restore()
    if await ocpp.reconnected(connections) is None:
        ocpp.silent(E11.delivered, "a new connection", ocpp.timeouts.connect, "after the outage ended")
    made_offline = lambda p: of(tx, "Updated")(p) and p.get("offline", False)
    await ocpp.expect("TransactionEvent", sender=CS, after=0, where=of(tx, "Updated"), rule=E11.delivered)
    after = ocpp.sent("TransactionEvent", sender=CS, after=0, where=of(tx))
    require(any(made_offline(e.request) for e in after), E11.offline,
            "no event of the transaction delivered after the outage carries offline true",
            expected="offline true", actual=[e.request.get("offline") for e in after])
    check_seq_no(before + after)
    check_answers(ocpp, after)
