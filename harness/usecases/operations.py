"""An operation the CSMS starts at the station, played from either side: the harness's CSMS sends the
request, or the CSMS under test is asked to with the actuator action named like the message (snake_case,
the payload's fields in snake_case as its body: ``ReserveNow`` {"connectorId": 1} → ``reserve_now``
{"connector_id": 1}) and must send what it was asked. Whichever the version: 1.6's operations
(ChangeAvailability, ClearCache, UnlockConnector, ReserveNow, TriggerMessage, …) judge the general rows of
its spec 002, 2.x's the row of their use case (its texts state the requirement use case by use case).
"""

from __future__ import annotations

import re
from typing import Any

from harness.arena.ocpp import OcppArena
from harness.roles import CS, CSMS
from harness.ocpp.answers import REFUSALS
from harness.ocpp.equivalence import same
from harness.ocpp.versions import OcppVersion
from harness.rules import Rule, RuleTable, must
from harness.transport.ws import Exchange
from harness.verdict import check_equal, require


class Operations16(RuleTable, namespace="ops16"):
    """What every central-system operation of 1.6 asks of both sides."""
    sent_as_asked = must("spec 002 Messages and payload shapes; Operations by direction",
                         "the central system sends the operation it was asked for, with exactly the fields asked",
                         by=CSMS)
    answered = must("spec 002 Framing 5; Operations by direction",
                    "the charge point answers the operation with its confirmation (a refusal is a status in it, "
                    "not a CALLERROR; refusing the message itself, NotImplemented or NotSupported, is judged by "
                    "answer.implemented)", by=CS)


# the rows every test of a 1.6 operation judges (its @checks start with them)
ASKED16 = (Operations16.sent_as_asked, Operations16.answered)


def snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


async def operate(arena: OcppArena, action: str, payload: dict[str, Any], sent: Rule | None = None, *,
                  own: tuple[str, ...] = ()) -> Exchange:
    """The CSMS sends ``action`` with ``payload``; a CSMS under test must send it, in any form the text
    allows (``harness.ocpp.equivalence``: idTokens in any case, numbers by value, date-times by instant),
    but for the fields in ``own`` that it picks itself (a requestId), which it is not asked for.

    ``sent`` is the use case's row (2.x), and then the answer is judged where the test reads it; without
    it, 1.6's general rows: ``ops16.sent_as_asked``, and the charge point answers with its confirmation
    (``ops16.answered``)."""
    answered = None
    if sent is None:
        if arena.version is not OcppVersion.V16:
            raise TypeError(f"a {arena.version.value} operation names the row of its use case: sent=")
        sent, answered = ASKED16
    asked = {k: v for k, v in payload.items() if k not in own}
    body = {snake(k): v for k, v in asked.items()}
    as_asked = same(arena.version)

    def sent_as_asked(request: dict[str, Any]) -> bool:
        return as_asked(asked, {k: v for k, v in request.items() if k not in own})

    exchange = await arena.exchange(CSMS, action, payload, trigger=(snake(action), body), rule=sent,
                                    asked=sent_as_asked)
    if arena.is_sut(CSMS):
        named = f"{action}.req" if arena.version is OcppVersion.V16 else f"{action}Request"
        check_equal(sent, named, asked, {k: v for k, v in exchange.request.items() if k not in own}, same=as_asked)
    if answered is not None:
        if exchange.error is not None and exchange.error.code in REFUSALS:
            exchange.judge_error()   # the message itself refused: not applicable when optional, failed when required
        require(exchange.error is None, answered, f"the charge point refused {action} with a CALLERROR",
                expected=f"{action}.conf", actual=exchange.error)
    return exchange


def status_of(exchange: Exchange) -> str | None:
    return (exchange.result or {}).get("status")


async def trigger_refused(arena: OcppArena, action: str, message: str, connector: int, rule: Rule) -> None:
    """A 1.6 trigger (TriggerMessage, or the security extension's ExtendedTriggerMessage) of ``message`` for
    ``connector``, which the charge point does not have, sent by the harness: not Accepted, and no ``message`` for
    that connector follows (``rule``)."""
    mark = arena.mark()
    exchange = await arena.exchange(CSMS, action, {"requestedMessage": message, "connectorId": connector},
                                    rule=Operations16.sent_as_asked)
    require(status_of(exchange) != "Accepted", rule,
            f"{action} for connector {connector}, which the charge point does not have, was Accepted",
            expected="Rejected", actual=status_of(exchange))
    await arena.expect_none(message, after=mark, rule=rule, where=lambda p: p.get("connectorId") == connector)
