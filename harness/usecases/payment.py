"""Payment (2.1). The paid start of C24 and C25: after the CSMS's RequestStartTransaction with a
DirectPayment token, the transaction the station starts for it. Direct payment at the station's own
terminal (C18-C23): the driver pays, charges, cancels; the settlement the station reports and the CSMS
records — one dialogue, played with the harness's station or the station under test (its actuator)."""

from __future__ import annotations

from harness.arena.ocpp import OcppArena
from harness.roles import CS, CSMS
from harness.rules import Rule, RuleTable, must
from harness.transport.ws import Exchange
from harness.usecases.authorization import station_variable
from harness.verdict import check_equal, dig, require


async def paid_start(arena: OcppArena, request: Exchange, start: int, rule: Rule) -> Exchange:
    """The TransactionEvent carrying ``request``'s remoteStartId (sent after ``start``), its token answered
    Accepted by the CSMS (``rule``: a CSMS refusing the token it paid for; an answer without idTokenInfo is judged once, by the E
    suites' Transaction.token_checked)."""
    remote_start_id = request.request["remoteStartId"]
    event = await arena.expect("TransactionEvent", sender=CS, after=start,
                               where=lambda p: dig(p, "transactionInfo.remoteStartId") == remote_start_id)
    check_equal(rule, "TransactionEventResponse idTokenInfo.status of the paid token", "Accepted",
                dig(event.result, "idTokenInfo.status", "Accepted"))
    return event


# ------------------------------------------------------------------ the station's own terminal (C18-C23)

class DirectPayment(RuleTable, namespace="direct_payment"):
    """The CSMS's side of every direct payment: the token accepted, each settlement outcome recorded; what
    the station must send is the use case's."""
    accepted = must("spec 001 Direct payment and settlement rule 1",
                    "the CSMS validates the DirectPayment token of a card it takes: Accepted, in the AuthorizeResponse "
                    "and in the TransactionEvent that carries it", by=CSMS)
    recorded = must("spec 001 Endpoints: NotifySettlementRequest; Direct payment and settlement rule 4; "
                    "Transaction event rules 1 and 3",
                    "the CSMS answers every NotifySettlementRequest (Settled, Cancelled, Rejected, Failed) with a "
                    "NotifySettlementResponse: it records the outcome, never refuses it", by=CSMS)


def is_direct_payment(payload: dict) -> bool:
    """A message whose idToken is of type DirectPayment (the terminal's payment reference)."""
    return str(dig(payload, "idToken.type", "")).casefold() == "directpayment"


async def pay_at_terminal(arena: OcppArena, evse: int, rule: Rule, *, authorize: bool = True) -> Exchange | None:
    """The driver pays at the station's terminal for ``evse``, PaymentCtrlr.AuthorizeDirectPayment set to
    ``authorize`` (not applicable when the station refuses it): the AuthorizeRequest that follows (``rule``:
    the station's silence), None when ``authorize`` is false."""
    await station_variable(arena, "PaymentCtrlr", "AuthorizeDirectPayment", str(authorize).lower())
    start = arena.mark()
    await arena.act(CS, "card_payment", evse_id=evse)
    if not authorize:
        return None
    authorized = await arena.expect("Authorize", sender=CS, after=start, rule=rule)
    check_accepted(arena, authorized, "AuthorizeResponse")
    return authorized


def check_accepted(arena: OcppArena, exchange: Exchange, what: str) -> None:
    """A CSMS under test accepts the DirectPayment token it was asked about (a refusing status fails; an
    answer without idTokenInfo refuses nothing, and is judged once, by the E suites' Transaction.token_checked)."""
    if arena.is_sut(CSMS):
        check_equal(DirectPayment.accepted, f"{what} idTokenInfo.status of the DirectPayment token", "Accepted",
                    dig(exchange.result, "idTokenInfo.status", "Accepted"))


async def paid_transaction(arena: OcppArena, evse: int, rule: Rule) -> tuple[Exchange, Exchange]:
    """The driver pays at the terminal (AuthorizeDirectPayment true) and plugs in: the AuthorizeRequest and
    the first TransactionEvent carrying its DirectPayment token (Started, or Updated when the transaction
    began earlier; ``rule``: the station's silence)."""
    authorized = await pay_at_terminal(arena, evse, rule)
    return authorized, await charges(arena, evse, rule)


async def charges(arena: OcppArena, evse: int, rule: Rule) -> Exchange:
    """The cable in after a payment at the terminal: the first TransactionEvent carrying its DirectPayment
    token, which a CSMS under test accepts (``rule``: the station's silence)."""
    start = arena.mark()
    await arena.act(CS, "plug_in", evse_id=evse)
    started = await arena.expect("TransactionEvent", sender=CS, after=start, rule=rule, where=is_direct_payment)
    check_accepted(arena, started, "TransactionEventResponse")
    return started


async def settlement(arena: OcppArena, after: int, rule: Rule) -> Exchange:
    """The NotifySettlement the station sends after ``after`` (``rule``: its silence); a CSMS under test must
    answer it (DirectPayment.recorded)."""
    notified = await arena.expect("NotifySettlement", sender=CS, after=after, rule=rule)
    if arena.is_sut(CSMS):
        require(notified.error is None, DirectPayment.recorded, f"the CSMS refused a NotifySettlement "
                f"{notified.request['status']}", expected="a NotifySettlementResponse", actual=notified.error)
    return notified


def check_settlement(notified: Exchange, rule: Rule, status: str, psp_ref: str, transaction_id: str | None) -> None:
    """The NotifySettlement has ``status``, the payment reference as pspRef (case-insensitive, like the
    idToken it is) and, after a transaction, its transactionId."""
    check_equal(rule, "NotifySettlementRequest status", status, notified.request.get("status"))
    check_equal(rule, "NotifySettlementRequest pspRef (case-insensitive)", psp_ref.casefold(),
                str(notified.request.get("pspRef", "")).casefold())
    if transaction_id is not None:
        check_equal(rule, "NotifySettlementRequest transactionId", transaction_id,
                    notified.request.get("transactionId"))
