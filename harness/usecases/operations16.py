"""The 1.6 operations the central system starts at the charge point (ChangeAvailability, ClearCache,
UnlockConnector, GetLocalListVersion, SendLocalList, ReserveNow, CancelReservation, TriggerMessage,
SetChargingProfile, GetCompositeSchedule, ClearChargingProfile, UpdateFirmware, GetDiagnostics),
played from either side: the harness's central system sends the request, or the central system under
test is asked to with the actuator action named like the message (snake_case, the payload's fields
in snake_case as its body: ``ReserveNow`` {"connectorId": 1} → ``reserve_now`` {"connector_id": 1}).
"""

from __future__ import annotations

import re
from typing import Any

from harness.arena.ocpp import OcppArena
from harness.roles import CS, CSMS
from harness.ocpp.answers import REFUSALS
from harness.ocpp.equivalence import same
from harness.ocpp.versions import OcppVersion
from harness.rules import RuleTable, must
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


# the rows every test of an operation judges (its @checks start with them)
ASKED = (Operations16.sent_as_asked, Operations16.answered)


def snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


async def operate(arena: OcppArena, action: str, payload: dict[str, Any]) -> Exchange:
    """The central system sends ``action`` with ``payload`` and the charge point answers it with its
    confirmation; a central system under test must send ``payload``, in any form the text allows
    (``harness.ocpp.equivalence``: idTags in any case, numbers by value, date-times by instant)."""
    body = {snake(k): v for k, v in payload.items()}
    exchange = await arena.exchange(CSMS, action, payload, trigger=(snake(action), body),
                                    rule=Operations16.sent_as_asked)
    if arena.is_sut(CSMS):
        check_equal(Operations16.sent_as_asked, f"{action}.req", payload, exchange.request,
                    same=same(OcppVersion.V16))
    if exchange.error is not None and exchange.error.code in REFUSALS:
        exchange.judge_error()   # the message itself refused: not applicable when optional, failed when required
    require(exchange.error is None, Operations16.answered, f"the charge point refused {action} with a CALLERROR",
            expected=f"{action}.conf", actual=exchange.error)
    return exchange


def status_of(exchange: Exchange) -> str | None:
    return (exchange.result or {}).get("status")
