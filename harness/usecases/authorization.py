"""The authorization dialogue (C01 and the token use cases built on it)."""

from __future__ import annotations

from harness.arena import CS, OcppArena
from harness.profile import Token
from harness.rules import Rule, RuleTable, must
from harness.transport.ws import Exchange
from harness.verdict import check_equal, dig


class Authorization(RuleTable, namespace="authorize"):
    """The rule of the dialogue itself; what the answer must say is the calling use case's."""
    sent = must("spec 001 Events: AuthorizeRequest", "a station sends AuthorizeRequest when a driver presents a token",
                by=CS)


async def authorize(arena: OcppArena, token: Token, evse_id: int | None = None) -> Exchange:
    """The station presents ``token`` and asks the CSMS (C01 main flow, steps 1-2)."""
    body = {"id_token": token.wire()} | ({"evse_id": evse_id} if evse_id is not None else {})
    return await arena.exchange(CS, "Authorize", {"idToken": token.wire()}, trigger=("present_id_token", body),
                                rule=Authorization.sent)


def check_presented_token(exchange: Exchange, token: Token, rule: Rule) -> None:
    """The station must ask about the token that was presented (idToken is case-insensitive)."""
    sent = dig(exchange.request, "idToken", {})
    check_equal(rule, "AuthorizeRequest idToken.idToken (case-insensitive)", token.id.casefold(),
                str(sent.get("idToken", "")).casefold())
    check_equal(rule, "AuthorizeRequest idToken.type", token.type, sent.get("type"))
