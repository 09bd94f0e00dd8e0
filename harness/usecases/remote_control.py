"""Remote-control dialogues of the F use cases (F01-F04): a remote start the CSMS sends (by the harness, or
by the CSMS under test as its operator asks), a transaction a driver starts at the station, and its remote
stop. The rows they judge are the calling use case's."""

from __future__ import annotations

import secrets
from typing import Any

from harness.arena.ocpp import OcppArena
from harness.cistring import same_id
from harness.errors import NotApplicable
from harness.profile import Token
from harness.roles import CS, CSMS
from harness.rules import Rule, RuleTable, must
from harness.transport.ws import Exchange
from harness.usecases.authorization import Authorization
from harness.usecases.operations import operate
from harness.verdict import check_equal, dig, require


class RemoteStart(RuleTable, namespace="remote_start"):
    """What every remote start asks of the CSMS (F01's row, shared with the tests that start a transaction
    remotely on their way to what they judge)."""
    request = must("OCPP 2.0.1 part 2 RequestStartTransactionRequest (evseId, idToken, remoteStartId)",
                   "the CSMS sends RequestStartTransaction for the EVSE its operator chose", by=CSMS)
    own_token = must("spec 001 Remote start rule 1; Authorization rule 7",
                     "the CSMS answers the Central token it issued Accepted in the TransactionEvent", by=CSMS)


def central_token() -> dict:
    return {"idToken": "APP-" + secrets.token_hex(6).upper(), "type": "Central"}


async def remote_start(arena: OcppArena, evse_id: int, rule: Rule, id_token: dict | None = None) -> Exchange:
    """RequestStartTransaction for ``evse_id``: with ``id_token`` when the operator names one (the CSMS under
    test must send it), else with a Central token the CSMS makes up itself; the remoteStartId is always the
    CSMS's own."""
    payload: dict[str, Any] = {"evseId": evse_id, "idToken": id_token or central_token(),
                               "remoteStartId": secrets.randbelow(1_000_000) + 1}
    own = ("remoteStartId",) + (("idToken",) if id_token is None else ())
    return await operate(arena, "RequestStartTransaction", payload, rule, own=own)


async def start_refused(arena: OcppArena, evse_id: int, rule: Rule, refused: Rule) -> Exchange:
    """The operator's remote start on ``evse_id``, which the station must refuse (``refused``: Rejected; spec 001
    Remote start rule 2: Rejected is the station's refusal, an unavailable EVSE its example); ``rule`` judges the
    request."""
    exchange = await remote_start(arena, evse_id, rule)
    check_equal(refused, f"RequestStartTransactionResponse status for EVSE {evse_id}", "Rejected",
                exchange.result["status"])
    return exchange


def judge_own_token(arena: OcppArena, event: Exchange) -> None:
    """A CSMS under test answers the Central token it issued Accepted: only a refusing status fails here, an
    answer without idTokenInfo is judged once, by the E suites' Transaction.token_checked; a station under test
    is judged on what it sends, not on the harness's answer."""
    if arena.is_sut(CSMS):
        status = dig(event.result, "idTokenInfo.status", "Accepted")
        check_equal(RemoteStart.own_token, "TransactionEventResponse idTokenInfo.status", "Accepted", status)


async def own_token_on_the_way(arena: OcppArena, event: Exchange) -> None:
    """``judge_own_token`` in a test of another use case, which needs the transaction the refusal would end:
    C05's tests fail the CSMS, the others do not apply."""
    async with arena.prerequisite("answer to the Central token of the remote start", owner="C05"):
        judge_own_token(arena, event)


def carries_remote_start(remote_start_id: int):
    return lambda p: dig(p, "transactionInfo.remoteStartId") == remote_start_id


def authorizes(id_token: dict):
    """An AuthorizeRequest about ``id_token`` (compared case-insensitively)."""
    return lambda p: same_id(dig(p, "idToken.idToken", ""), id_token["idToken"])


async def driver_transaction(arena: OcppArena, evse_id: int, token: Token, rule: Rule,
                             cable: str = "plug_in") -> Exchange:
    """A driver plugs in (``cable``: the actuator action) and presents ``token``: the TransactionEvent that
    starts the transaction (``rule``: the station's row). A CSMS under test that refuses the profile's valid
    token makes the test not applicable (the C use cases judge that answer)."""
    await arena.act(CS, cable, evse_id=evse_id)
    mark = arena.mark()
    await arena.act(CS, "present_id_token", id_token=token.wire(), evse_id=evse_id)
    asked = await arena.expect("Authorize", sender=CS, after=mark, where=authorizes(token.wire()),
                               rule=Authorization.sent)
    if arena.is_sut(CSMS) and dig(asked.result, "idTokenInfo.status") != "Accepted":
        raise NotApplicable(f"the CSMS did not accept the profile's valid token {token.id} ({asked.result}): "
                            f"the test needs a transaction it authorized")
    return await arena.expect("TransactionEvent", sender=CS, after=mark, rule=rule,
                              where=lambda p: p["eventType"] == "Started" and dig(p, "evse.id", evse_id) == evse_id)


async def stop_and_judge(ocpp: OcppArena, table: Any, transaction_id: str) -> None:
    """RequestStopTransaction for ``transaction_id``: Accepted, and the Ended event as ``table`` (F03, F04:
    its rows request, accepted, ended, stopped_reason, remote) says."""
    mark = ocpp.mark()
    stop = await operate(ocpp, "RequestStopTransaction", {"transactionId": transaction_id}, table.request)
    check_equal(table.accepted, "RequestStopTransactionResponse status", "Accepted", stop.result["status"])
    ended = await ocpp.expect("TransactionEvent", sender=CS, after=mark, rule=table.ended,
                              where=lambda p: p["eventType"] == "Ended"
                              and p["transactionInfo"]["transactionId"] == transaction_id)
    if ended is None:   # F04's row is a SHOULD: its finding says so, and there is no Ended event to read
        return
    check_equal(table.ended, "TransactionEvent Ended triggerReason", "RemoteStop", ended.request["triggerReason"])
    reason = ended.request["transactionInfo"].get("stoppedReason")
    require(reason is not None, table.stopped_reason, "the Ended TransactionEvent of a remote stop has no "
            "stoppedReason", expected="stoppedReason", actual=ended.request["transactionInfo"])
    check_equal(table.remote, "TransactionEvent Ended stoppedReason", "Remote", reason)
