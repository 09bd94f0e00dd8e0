"""The paid start of C24 and C25 (2.1): after the CSMS's RequestStartTransaction with a DirectPayment token,
the transaction the station starts for it."""

from __future__ import annotations

from harness.arena import CS, OcppArena
from harness.rules import Rule
from harness.transport.ws import Exchange
from harness.verdict import check_equal, dig


async def paid_start(arena: OcppArena, request: Exchange, start: int, rule: Rule) -> Exchange:
    """The TransactionEvent carrying ``request``'s remoteStartId (sent after ``start``), its token answered
    Accepted by the CSMS (``rule``: a CSMS refusing the token it paid for; no idTokenInfo refuses nothing)."""
    remote_start_id = request.request["remoteStartId"]
    event = await arena.expect("TransactionEvent", sender=CS, after=start,
                               where=lambda p: dig(p, "transactionInfo.remoteStartId") == remote_start_id)
    check_equal(rule, "TransactionEventResponse idTokenInfo.status of the paid token", "Accepted",
                dig(event.response, "idTokenInfo.status", "Accepted"))
    return event
