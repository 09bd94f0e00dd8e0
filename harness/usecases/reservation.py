"""Reservation dialogues of the H use cases (2.x): a ReserveNow the CSMS sends (by the harness, or by the
CSMS under test as its operator asks) and the statuses the station then reports. The rows they judge are
the calling use case's."""

from __future__ import annotations

import secrets
from datetime import timedelta
from typing import Any

from harness import clock
from harness.arena.ocpp import OcppArena
from harness.errors import NotApplicable
from harness.roles import CS
from harness.rules import Rule
from harness.transport.ws import Exchange
from harness.usecases.operations import operate
from harness.verdict import check_equal

HOUR, SHORT = 3600, 2   # seconds until a reservation expires: one that lasts the test, one that expires in it


def expiry(seconds: int) -> str:
    return (clock.utcnow() + timedelta(seconds=seconds)).isoformat(timespec="seconds").replace("+00:00", "Z")


async def reserve(arena: OcppArena, sent: Rule, answered: Rule, id_token: dict, *, seconds: int = HOUR,
                  expect: str = "Accepted", **optional: Any) -> tuple[int, Exchange]:
    """ReserveNowRequest for ``id_token`` (``optional``: evseId, connectorType, groupIdToken as the wire names
    them); its id and exchange. The answer is judged against ``expect`` by ``answered``; a station that answers
    Rejected when another answer is expected takes no reservations: not applicable."""
    reservation_id = 1 + secrets.randbelow(1_000_000)
    payload = {"id": reservation_id, "expiryDateTime": expiry(seconds), "idToken": id_token} | optional
    exchange = await operate(arena, "ReserveNow", payload, sent)
    status = exchange.result["status"]
    if status == "Rejected" and expect != "Rejected" and arena.is_sut(CS):
        raise NotApplicable("the station answers ReserveNow Rejected (not configured for reservations)")
    check_equal(answered, "ReserveNowResponse status", expect, status)
    return reservation_id, exchange


async def reports(arena: OcppArena, evse_id: int, status: str, after: int, rule: Rule,
                  timeout: float | None = None) -> Exchange:
    """The StatusNotification of a connector of ``evse_id`` with ``status``, sent after ``after``."""
    return await arena.expect("StatusNotification", sender=CS, after=after, rule=rule, timeout=timeout,
                              where=lambda p: p["evseId"] == evse_id and p["connectorStatus"] == status)
