"""ChangeAvailability of a 2.x station played from either side (OCPP 2.x G03, G04): the operator's change sent by
the harness's CSMS or asked of the CSMS under test, and the StatusNotifications that follow, judged in the role
that sends them (docs/requirements/availability.md)."""

from __future__ import annotations

from typing import Any

from harness.arena.ocpp import OcppArena
from harness.errors import NotApplicable
from harness.roles import CS, CSMS
from harness.rules import Rule, RuleTable, must, should
from harness.transport.ws import Exchange
from harness.usecases.operations import operate
from harness.verdict import check_equal, require


class Availability(RuleTable, namespace="availability2"):
    """What every change of availability asks of both sides (OCPP 2.0.1 part 2 G03, G04; the same in 2.1)."""
    request = must("OCPP 2.0.1 part 2 ChangeAvailabilityRequest (operationalStatus required; evse: omitted for "
                   "the whole station)", "the CSMS sends the change its operator asked for: the status, and the "
                   "EVSE (connector) only when one was named", by=CSMS)
    accepted = should("OCPP 2.0.1 part 2 ChangeAvailabilityStatusEnumType (Scheduled: after the transactions)",
                      "a change of an idle target is Accepted, never Scheduled (nothing runs to wait for)", by=CS)
    reported = should("OCPP 2.0.1 part 2 G03, G04; ConnectorStatusEnumType (Unavailable, Available)",
                      "each idle connector the change concerns reports its new status: Unavailable once "
                      "Inoperative, Available once Operative again", by=CS)
    status_answered = should("OCPP 2.0.1 part 2 StatusNotificationResponse; part 4 RPC framework",
                             "the CSMS answers a StatusNotificationRequest with its (empty) response", by=CSMS)


async def change(arena: OcppArena, status: str, evse: dict[str, int] | None = None) -> Exchange:
    """The operator's ChangeAvailability; a station's Rejected makes the test not applicable."""
    payload: dict[str, Any] = {"operationalStatus": status} | ({} if evse is None else {"evse": evse})
    exchange = await operate(arena, "ChangeAvailability", payload, Availability.request)
    if exchange.result["status"] == "Rejected":
        raise NotApplicable(f"the station rejected ChangeAvailability {payload}")
    return exchange


async def reported(arena: OcppArena, evse_id: int, connector_id: int, status: str, after: int,
                   rule: Rule = Availability.reported) -> Exchange | None:
    """The StatusNotification of the connector with ``status`` from ``after`` on; in the CSMS role, answered."""
    report = await arena.expect("StatusNotification", sender=CS, after=after, rule=rule,
                                where=lambda p: (p["evseId"], p["connectorId"], p["connectorStatus"])
                                == (evse_id, connector_id, status))
    if report is not None and arena.is_sut(CSMS):
        require(report.error is None, Availability.status_answered, "the CSMS answered a StatusNotification with "
                "a CALLERROR", expected="StatusNotificationResponse", actual=report.error)
    return report


async def already_operative(arena: OcppArena, evse: dict[str, int] | None, rule: Rule) -> None:
    """Operative for a target that already is (``evse``; None: the station): Accepted (``rule``), and no connector
    of it reports Unavailable."""
    mark = arena.mark()
    exchange = await change(arena, "Operative", evse)
    check_equal(rule, "ChangeAvailabilityResponse status to the state the target is in", "Accepted",
                exchange.result["status"])
    await arena.expect_none("StatusNotification", after=mark, rule=rule,
                            where=lambda p: p["connectorStatus"] == "Unavailable"
                            and (evse is None or p["evseId"] == evse["id"]))


class OperatorStop(RuleTable, namespace="operator_stop"):
    """The operator ends the transaction a test waits on (OCPP 2.x F03, as B12 and G03 use it)."""
    sent = must("OCPP 2.0.1 part 2 RequestStopTransactionRequest (transactionId required)",
                "the CSMS stops the transaction its operator asked to stop", by=CSMS)


async def stop(arena: OcppArena, transaction_id: str) -> Exchange:
    """The operator stops the transaction ``transaction_id`` (the request judged); the answer is returned."""
    return await operate(arena, "RequestStopTransaction", {"transactionId": transaction_id}, OperatorStop.sent)
