"""The transaction dialogue of OCPP 2.x (block E), shared by the E and J use cases: the rules every
TransactionEvent keeps whatever started it (seqNo, the idToken once, the CSMS's answer), the station's
TxStartPoint and TxStopPoint set for a test, and a driver's transaction started from either side.
The requirements, in our words with their public sources: docs/requirements/E.md."""

from __future__ import annotations

from harness.arena.ocpp import OcppArena
from harness.cistring import same_id
from harness.profile import Token
from harness.roles import CS, CSMS
from harness.rules import Rule, RuleTable, must
from harness.transport.ws import Exchange
from harness.usecases.authorization import station_variable, token_with
from harness.usecases.local_list import outage
from harness.verdict import check_equal, dig, require


class Transaction(RuleTable, namespace="tx"):
    """What every TransactionEvent of a transaction keeps (OCPP 2.0.1 part 2, block E; the same in 2.1)."""
    seq_no = must("OCPP 2.0.1 part 2 E01.FR.07 (seqNo as the text's sequence number generation says); "
                  "TransactionEventRequest seqNo (incremental)",
                  "the TransactionEvents of one transaction carry seqNo increasing in the order they are sent", by=CS)
    token_once = must("OCPP 2.0.1 part 2 E03.FR.02",
                      "the idToken that authorized the transaction is carried once, in the event of its authorization",
                      by=CS)
    stopped_reason = must("OCPP 2.0.1 part 2 E03.FR.05",
                          "the Ended event carries stoppedReason, which only a Local stop may leave out", by=CS)
    started = must("OCPP 2.0.1 part 2 E01.FR.05 (a test's precondition)", "with TxStartPoint PowerPathClosed, the "
                   "driver authorized and the EV connected start a transaction: TransactionEvent Started", by=CS)
    answered = must("OCPP 2.0.1 part 2 J02.FR.19",
                    "the CSMS answers every TransactionEvent with a TransactionEventResponse", by=CSMS)
    token_checked = must("OCPP 2.0.1 part 2 E01.FR.11, E01.FR.12; spec 001 Authorization rule 7",
                         "the CSMS answers an event carrying an idToken with idTokenInfo: a token it knows as "
                         "Accepted is Accepted", by=CSMS)


def transaction_id(event: Exchange) -> str:
    return event.request["transactionInfo"]["transactionId"]


def of(tx: str, event_type: str | None = None):
    """A TransactionEvent of transaction ``tx`` (of ``event_type``, when given)."""
    return lambda p: dig(p, "transactionInfo.transactionId") == tx and event_type in (None, p.get("eventType"))


def one_event(where):
    """``where`` narrowed to the first TransactionEvent it picks and that event sent again (its seqNo): what a
    test holds to refuse one event, while the station's other events (a MeterValuePeriodic Updated one) are
    answered as usual."""
    first: dict[str, object] = {}

    def picks(payload: dict) -> bool:
        if not where(payload) or first.get("seqNo", payload.get("seqNo")) != payload.get("seqNo"):
            return False
        first.setdefault("seqNo", payload.get("seqNo"))
        return True
    return picks


def started_on(evse: int):
    return lambda p: p.get("eventType") == "Started" and dig(p, "evse.id", evse) == evse


async def tx_points(arena: OcppArena, start: str | None = None, stop: str | None = None) -> None:
    """The station's TxCtrlr.TxStartPoint / TxStopPoint for this test (put back afterwards); not applicable
    when the station refuses the value (it cannot sense that point)."""
    if start is not None:
        await station_variable(arena, "TxCtrlr", "TxStartPoint", start)
    if stop is not None:
        await station_variable(arena, "TxCtrlr", "TxStopPoint", stop)


async def message_attempts(arena: OcppArena, attempts: int, interval: int) -> None:
    """The station's OCPPCommCtrlr.MessageAttempts and MessageAttemptInterval of instance TransactionEvent
    (E13) for this test; not applicable when it refuses either."""
    await station_variable(arena, "OCPPCommCtrlr", "MessageAttempts", str(attempts), "TransactionEvent")
    await station_variable(arena, "OCPPCommCtrlr", "MessageAttemptInterval", str(interval), "TransactionEvent")


def driver(arena: OcppArena) -> Token:
    """A token the CSMS accepts (the profile's); not applicable when it declares none."""
    return token_with(arena.profile, "Accepted")


async def plug(arena: OcppArena, evse: int) -> None:
    await arena.act(CS, "plug_in", evse_id=evse)


async def present(arena: OcppArena, token: Token, evse: int) -> None:
    await arena.act(CS, "present_id_token", id_token=token.wire(), evse_id=evse)


async def local_start(arena: OcppArena, evse: int, rule: Rule, *, cable_first: bool = True) -> tuple[Token, Exchange]:
    """A driver's transaction on ``evse``: the cable in, then an accepted token presented; or (``cable_first``
    False, TxStartPoint Authorized) the token, the transaction it starts, and then the cable, as a driver plugs in
    once the station took the token (at once, the cable could come before a station slower to authorize started
    the transaction). Returns the token and the transaction's Started event."""
    token = driver(arena)
    start = arena.mark()
    if not cable_first:
        await present(arena, token, evse)
        started = await arena.expect("TransactionEvent", sender=CS, after=start, where=started_on(evse), rule=rule)
        await plug(arena, evse)
        return token, started
    await plug(arena, evse)
    await present(arena, token, evse)
    return token, await arena.expect("TransactionEvent", sender=CS, after=start, where=started_on(evse), rule=rule)


def events_of(arena: OcppArena, tx: str, after: int) -> list[Exchange]:
    """The TransactionEvents of ``tx`` the station sent since ``after``, in the order sent."""
    return arena.sent("TransactionEvent", sender=CS, after=after, where=of(tx))


def check_seq_no(events: list[Exchange]) -> None:
    """E01.FR.07: seqNo rises with every event of the transaction; an event sent again after the CSMS refused it
    (E13: the same seqNo, eventType, triggerReason and timestamp) is one event."""
    sent = []
    for event in events:
        key = tuple(event.request.get(k) for k in ("seqNo", "eventType", "triggerReason", "timestamp"))
        if key not in sent:
            sent.append(key)
    numbers = [key[0] for key in sent]
    require(all(a < b for a, b in zip(numbers, numbers[1:])), Transaction.seq_no,
            "the seqNo of the transaction's TransactionEvents does not rise in the order they were sent",
            expected="strictly increasing", actual=numbers)


def check_token_once(events: list[Exchange], token: Token) -> None:
    """E03.FR.02: the driver's idToken is carried by one event of the transaction (until it ends)."""
    carrying = [e.request["seqNo"] for e in events if e.request.get("eventType") != "Ended"
                and same_id(dig(e.request, "idToken.idToken", ""), token.id)]
    check_equal(Transaction.token_once, "the number of TransactionEvents (before Ended) that carry the idToken",
                1, len(carrying))


def check_answers(arena: OcppArena, events: list[Exchange], token: Token | None = None) -> None:
    """A CSMS under test answered every event (J02.FR.19), and an event carrying ``token`` with idTokenInfo
    Accepted (E01.FR.12)."""
    if not arena.is_sut(CSMS):
        return
    for event in events:
        require(event.error is None, Transaction.answered, "the CSMS answered a TransactionEvent with a CALLERROR",
                expected="TransactionEventResponse", actual=event.error)
        if token is not None and same_id(dig(event.request, "idToken.idToken", ""), token.id):
            check_equal(Transaction.token_checked, "TransactionEventResponse idTokenInfo.status", "Accepted",
                        dig(event.result, "idTokenInfo.status"))


async def stopped_offline(arena: OcppArena, evse: int, stop: str, delivered: Rule, offline: Rule) -> None:
    """TxStopPoint ``stop``; a driver's transaction runs on ``evse``; during an outage the cable is pulled
    (EVConnected) or the driver presents the token again (Authorized): back online, the Ended event is delivered
    (``delivered``) with offline true (``offline``) and a seqNo above the earlier events'; a CSMS answers it
    (E08, E12)."""
    await tx_points(arena, stop=stop)
    mark = arena.mark()
    token, started = await local_start(arena, evse, delivered)
    tx = transaction_id(started)
    before = arena.sent("TransactionEvent", sender=CS, after=mark, where=of(tx))
    step = ("unplug", {"evse_id": evse}) if stop == "EVConnected" else \
        ("present_id_token", {"id_token": token.wire(), "evse_id": evse})
    await outage(arena, delivered, step)
    ended = await arena.expect("TransactionEvent", sender=CS, after=0, where=of(tx, "Ended"), rule=delivered)
    check_equal(offline, "offline of the Ended event that happened during the outage", True,
                ended.request.get("offline", False))
    after = arena.sent("TransactionEvent", sender=CS, after=0, where=of(tx))
    check_seq_no(before + after)
    check_answers(arena, after)
