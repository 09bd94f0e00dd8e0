"""Availability (1.6 Core): the central system makes a connector, or the whole charge point, operative
or inoperative with ChangeAvailability.

Charge point 1.6 (spec 002 ChangeAvailability; AvailabilityStatus; ChargePointStatus; What the service
does 8): connectorId 0 addresses the whole charge point, another id one connector; an id it does not
have is Rejected. An idle connector changes at once (Accepted) and reports its new status
(Unavailable, or Available / Reserved again) in a StatusNotification, only when it changed; one with
a running transaction keeps charging and the answer is Scheduled: it becomes Unavailable when the
transaction ends. Connector 0 also reports the main controller. An inoperative connector starts no
transaction. ``availability_refused`` makes every request Rejected (a charge point that cannot change
its availability now). The actions ``fault_connector`` and ``clear_fault`` make an idle connector
Faulted (StatusNotification Faulted, errorCode OtherError) and well again (its idle status).

Central system 1.6: ChangeAvailability as an actuator action.
"""

from __future__ import annotations

from typing import Any

from harness.ocpp.v16 import WHOLE_CHARGE_POINT
from harness.reference.common import V16, Block, Undo


class AvailabilityStation16(Block):
    versions = V16
    undone_by = {"fault_connector": lambda body: ("clear_fault", body)}
    requires = ("ProvisioningStation16", "TransactionsStation16")
    configurable = frozenset({"availability_refused"})
    availability_refused = False

    def on_ChangeAvailability(self, _: None, payload: dict) -> dict:
        connector_id, operative = payload["connectorId"], payload["type"] == "Operative"
        whole = connector_id == WHOLE_CHARGE_POINT
        if self.availability_refused or not (whole or connector_id in self.connectors):
            return {"status": "Rejected"}
        targets = list(self.connectors.values()) if whole else [self.connectors[connector_id]]
        for connector in targets:
            connector.operative = operative
        self.background.spawn(self._report(targets, operative if whole else None))
        busy = any(c.transaction is not None for c in targets)
        return {"status": "Scheduled" if busy and not operative else "Accepted"}

    async def act_fault_connector(self, connector_id: int = 1) -> None:
        connector = self.connectors[connector_id]
        connector.faulted = True
        await self.set_status(connector, "Faulted")

    async def act_clear_fault(self, connector_id: int = 1) -> None:
        connector = self.connectors[connector_id]
        connector.faulted = False
        await self.set_status(connector, "Available")

    async def _report(self, targets: list, main: bool | None) -> None:
        """The new status of every idle connector changed (and of the main controller for connector 0)."""
        if main is not None:
            await self.set_main_status(main)
        for connector in targets:
            if connector.transaction is None and connector.status in ("Available", "Reserved", "Unavailable"):
                await self.set_status(connector, "Available", changed_only=True)


class AvailabilityCsms16(Block):
    versions = V16

    async def undo_ChangeAvailability(self, payload: dict, link: Any) -> Undo | None:
        """A connector made Inoperative is made Operative again."""
        if payload["type"] != "Inoperative":
            return None
        operative = {"connectorId": payload["connectorId"], "type": "Operative"}
        return Undo(f"make connector {payload['connectorId']} operative",
                    lambda now: now.call_exchange("ChangeAvailability", operative))

    async def act_change_availability(self, connector_id: int, type: str, station: str | None = None) -> None:
        self.send(station, "ChangeAvailability", {"connectorId": connector_id, "type": type})

