"""A Reset of the station played from either side (OCPP 2.x B11, B12): the harness's CSMS sends it, or the CSMS
under test is asked to (``reset``); the station's restart followed onto the connection it opens next, its
BootNotification judged (``rebooted``). The requirements, in our words: docs/requirements/provisioning.md."""

from __future__ import annotations

from typing import Any

from harness.arena.ocpp import OcppArena
from harness.arena.ocpp_sides import Restart
from harness.errors import NotApplicable
from harness.roles import CS, CSMS
from harness.rules import Rule, RuleTable, must, should
from harness.transport.ws import Exchange
from harness.usecases.operations import operate
from harness.verdict import check_equal, require


class Resets(RuleTable, namespace="reset2"):
    """What every Reset of a 2.x station asks of both sides (OCPP 2.0.1 part 2 B11, B12; the same in 2.1)."""
    request = must("OCPP 2.0.1 part 2 ResetRequest (type required; evseId optional)",
                   "the CSMS sends the Reset its operator asked for: its type, and the EVSE only when one was named",
                   by=CSMS)
    idle = must("OCPP 2.0.1 part 2 ResetStatusEnumType (Scheduled: the reset waits for transactions to end); "
                "B12.FR.01", "an idle station (or EVSE) does not answer a Reset Scheduled: nothing runs to wait for",
                by=CS)
    reason = should("OCPP 2.0.1 part 2 BootReasonEnumType (RemoteReset, ScheduledReset)",
                    "a station restarted by a Reset boots with reason RemoteReset, after an OnIdle reset it had "
                    "to wait for ScheduledReset", by=CS)
    boot_answered = must("OCPP 2.0.1 part 2 B01.FR.02", "the CSMS answers the BootNotification of the restarted "
                         "station, saying whether it accepts it", by=CSMS)


async def reset(arena: OcppArena, kind: str, evse_id: int | None = None) -> Exchange:
    """The operator's Reset of ``kind`` (of the EVSE ``evse_id``, when given); the request judged."""
    payload: dict[str, Any] = {"type": kind} | ({} if evse_id is None else {"evseId": evse_id})
    return await operate(arena, "Reset", payload, Resets.request)


def accepted(exchange: Exchange, expected: str, rule: Rule) -> None:
    """The station's answer is ``expected``; Rejected makes the test not applicable (a station may refuse)."""
    status = exchange.result["status"]
    if status == "Rejected":
        raise NotApplicable(f"the station rejected Reset {exchange.request}")
    check_equal(rule, f"ResetResponse status to {exchange.request}", expected, status)


async def rebooted(arena: OcppArena, connections: int, reason: str, reason_rule: Rule = Resets.reason, *,
                   after: str = "the accepted Reset") -> Exchange:
    """The BootNotification of the restarted station on the connection it opened after its first ``connections``:
    answered by the CSMS (``reset2.boot_answered``), with ``reason`` (``reason_rule``: by default
    ``reset2.reason``); ``after`` names what restarted it."""
    if await arena.reconnected(connections) is None:
        arena.silent(Restart.boots, "BootNotification", arena.timeouts.connect, f"after {after}: the "
                     "station opened no new connection")
    boot = await arena.expect("BootNotification", sender=CS, after=0, rule=Restart.boots)
    if arena.is_sut(CSMS):
        require(boot.error is None, Resets.boot_answered, "the CSMS answered the restarted station's "
                "BootNotification with a CALLERROR", expected="BootNotificationResponse", actual=boot.error)
    check_equal(reason_rule, f"BootNotificationRequest reason after {after}", reason, boot.request["reason"])
    return boot
