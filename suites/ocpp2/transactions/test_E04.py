"""E04 — Transaction started while the station is offline: a driver whose token the station accepts on its
own (from its authorization cache, AuthCtrlr.LocalAuthorizeOffline) plugs in and identifies during an outage;
the transaction starts, and once the station is connected again its Started event goes out, marked offline;
the CSMS checks the token like any other and answers it. The requirements, in our words:
docs/requirements/E.md.

A station under test first charges once with the token online (its cache learns it), with the cache on and
LocalAuthorizeOffline true (put back afterwards): not applicable when it refuses them. The harness's own
station accepts the token from its own cache."""

from harness.roles import CS
from harness.rules import RuleTable, must
from harness.suite import OCPP2, case, checks
from harness.usecases.authorization import charge_once, station_cache_on, station_variable
from harness.usecases.local_list import outage, started_with
from harness.usecases.transactions import (Transaction, check_answers, check_seq_no, driver, of, transaction_id,
                                           tx_points)
from harness.verdict import check_equal, require


class E04(RuleTable):
    """The rules of E04 (OCPP 2.0.1 part 2 E04.FR.01, E04.FR.03 as public implementations quote them)."""
    reported = must("OCPP 2.0.1 part 2 E04.FR.01 (as public implementations quote it: what happened offline is "
                    "kept and delivered once connected)",
                    "a transaction started offline is reported with its Started event once the station is back",
                    by=CS)
    offline = must("OCPP 2.0.1 part 2 E04.FR.03 (as public implementations quote it); TransactionEventRequest "
                   "offline", "the Started event of a transaction started offline carries offline true", by=CS)
    in_order = must("OCPP 2.0.1 part 2 E12.FR.01 (as public implementations quote it: delivered in order)",
                    "a transaction started and ended offline is delivered once back, Started before Ended", by=CS)
    ended_offline = must("OCPP 2.0.1 part 2 E12.FR.02 (as public implementations quote it)",
                         "the Ended event of a transaction ended offline carries offline true", by=CS)


pytestmark = case("E04", block="Transactions", roles=("csms", "cs"), protocols=OCPP2)


async def _known_offline(ocpp, evse: int):
    """TxStopPoint EVConnected; the driver's token known to the station's cache with LocalAuthorizeOffline (a
    station under test charges once with it online); returns the token."""
    token = driver(ocpp)
    await tx_points(ocpp, stop="EVConnected")
    if ocpp.is_sut(CS):
        await station_cache_on(ocpp)
        await station_variable(ocpp, "AuthCtrlr", "LocalAuthorizeOffline", "true")
        await charge_once(ocpp, token, evse, E04.reported)
    else:
        ocpp.configure(local_authorization=True)
    return token


@checks(E04.reported, E04.offline, Transaction.answered, Transaction.token_checked)
async def test_transaction_started_offline(ocpp, profile):
    """The token known to the station's cache; during an outage the cable goes in and the token is presented:
    back online, the station sends the Started event with offline true and the token; a CSMS answers it
    Accepted."""
    evse = profile.evses[0].id
    token = await _known_offline(ocpp, evse)
    await outage(ocpp, E04.reported, ("plug_in", {"evse_id": evse}),
                 ("present_id_token", {"id_token": token.wire(), "evse_id": evse}))
    started = await started_with(ocpp, token, 0, E04.reported)
    check_equal(E04.offline, "offline of the Started event of a transaction started during the outage", True,
                started.request.get("offline", False))
    check_answers(ocpp, ocpp.sent("TransactionEvent", sender=CS, after=0, where=of(transaction_id(started))), token)


@checks(E04.reported, E04.offline, E04.in_order, E04.ended_offline, Transaction.seq_no, Transaction.answered)
async def test_transaction_started_and_ended_offline(ocpp, profile):
    """During an outage the cable goes in, the token is presented and the cable is pulled out again: back online,
    the station delivers the transaction's Started and Ended events, in that order, both with offline true."""
    evse = profile.evses[0].id
    token = await _known_offline(ocpp, evse)
    await outage(ocpp, E04.reported, ("plug_in", {"evse_id": evse}),
                 ("present_id_token", {"id_token": token.wire(), "evse_id": evse}), ("unplug", {"evse_id": evse}))
    started = await started_with(ocpp, token, 0, E04.reported)
    tx = transaction_id(started)
    ended = await ocpp.expect("TransactionEvent", sender=CS, after=0, where=of(tx, "Ended"), rule=E04.in_order)
    events = ocpp.sent("TransactionEvent", sender=CS, after=0, where=of(tx))
    kinds = [e.request["eventType"] for e in events]
    require(kinds.index("Started") < kinds.index("Ended"), E04.in_order,
            "the transaction's events made offline were delivered out of order", expected="Started before Ended",
            actual=kinds)
    check_equal(E04.offline, "offline of the Started event made during the outage", True,
                started.request.get("offline", False))
    check_equal(E04.ended_offline, "offline of the Ended event made during the outage", True,
                ended.request.get("offline", False))
    check_seq_no(events)
    check_answers(ocpp, events, token)
