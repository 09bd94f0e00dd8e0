"""Remote Trigger: TriggerMessage (1.6; in 2.x the messages other blocks send on request), and in 1.6 the
two firmware-management notifications it can ask for.

Charge point 1.6 (spec 002 TriggerMessage; MessageTrigger; TriggerMessageStatus; Events;
DiagnosticsStatus and FirmwareStatus Idle): a TriggerMessage for a connector it does not have is
Rejected; otherwise it is Accepted and the requested message follows the answer: BootNotification
(the registration stays as it is), Heartbeat, StatusNotification of the connector (of connector 0
and every connector when none is given), MeterValues of the connector's register (every connector's
when none is given; with the transactionId while one runs), DiagnosticsStatusNotification and
FirmwareStatusNotification with status Idle (nothing is uploading or installing). ``trigger_answer``
makes every TriggerMessage answered with that status instead (Rejected, NotImplemented), nothing
sent.

Central system 1.6: TriggerMessage as an actuator action (the firmware-management notifications it
may bring are answered by the firmware block).
"""

from __future__ import annotations

import asyncio
from typing import Any

from harness.ocpp.v16 import WHOLE_CHARGE_POINT
from harness.reference.common import V2X, V16, Block
from harness.reference.model import Connector

IDLE = {"status": "Idle"}


class RemoteTriggerStation16(Block):
    versions = V16
    requires = ("ProvisioningStation16", "TransactionsStation16")
    configurable = frozenset({"trigger_answer"})
    trigger_answer: str | None = None

    def triggered(self, message: str, payload: dict) -> bool:
        """A block that sends ``message`` on request (ExtendedTriggerMessage: the certificates block's
        SignChargePointCertificate) starts it and returns True (each override passes the others on)."""
        return False

    def on_ExtendedTriggerMessage(self, _: None, payload: dict) -> dict:
        """The 1.6 security extension's trigger: what a block sends on request, else the messages TriggerMessage
        knows; LogStatusNotification is NotImplemented (no log upload)."""
        if self.triggered(payload["requestedMessage"], payload):
            return {"status": "Accepted"}
        if payload["requestedMessage"] == "LogStatusNotification":
            return {"status": "NotImplemented"}
        return self.on_TriggerMessage(None, payload)

    def on_TriggerMessage(self, _: None, payload: dict) -> dict:
        connector_id = payload.get("connectorId")
        if self.trigger_answer is not None:
            return {"status": self.trigger_answer}
        if connector_id is not None and connector_id != WHOLE_CHARGE_POINT and connector_id not in self.connectors:
            return {"status": "Rejected"}
        chosen = list(self.connectors.values()) if connector_id in (None, WHOLE_CHARGE_POINT) \
            else [self.connectors[connector_id]]
        self.background.spawn(self._send_triggered(payload["requestedMessage"], chosen, connector_id is None))
        return {"status": "Accepted"}

    async def _send_triggered(self, message: str, chosen: list[Connector], every: bool) -> None:
        await asyncio.sleep(0)   # the TriggerMessage.conf goes out first
        if message == "BootNotification":
            await self.call("BootNotification", self.boot_payload())
        elif message == "Heartbeat":
            await self.call("Heartbeat", {})
        elif message in ("DiagnosticsStatusNotification", "FirmwareStatusNotification"):
            await self.call(message, IDLE)
        elif message == "StatusNotification":
            if every:
                await self.call("StatusNotification", self.connector_status(
                    WHOLE_CHARGE_POINT, "Available" if self.main_operative else "Unavailable"))
            for connector in chosen:
                await self.call("StatusNotification", self.connector_status(connector.id, connector.status))
        elif message == "MeterValues":
            for connector in chosen:
                payload: dict[str, Any] = {"connectorId": connector.id,
                                           "meterValue": [connector.meter.sample("Trigger")]}
                if connector.transaction is not None and connector.transaction.id is not None:
                    payload["transactionId"] = connector.transaction.id
                await self.call("MeterValues", payload)


class RemoteTriggerCsms16(Block):
    versions = V16

    async def act_trigger_message(self, requested_message: str, connector_id: int | None = None,
                                  station: str | None = None) -> None:
        payload: dict[str, Any] = {"requestedMessage": requested_message}
        if connector_id is not None:
            payload["connectorId"] = connector_id
        self.send(station, "TriggerMessage", payload)

    async def act_extended_trigger_message(self, requested_message: str, connector_id: int | None = None,
                                           station: str | None = None) -> None:
        self.send(station, "ExtendedTriggerMessage", {"requestedMessage": requested_message}
                  | ({"connectorId": connector_id} if connector_id is not None else {}))


class RemoteTriggerStation2x(Block):
    """TriggerMessage (2.x, F06): the station answers Accepted for a message one of its blocks sends when asked
    (the ``triggered`` hook: the security block's certificate signing requests), NotImplemented otherwise
    (TriggerMessageStatusEnumType). Only what some block sends on request is Accepted: nothing is promised
    that does not follow."""
    versions = V2X

    def triggered(self, message: str, payload: dict) -> bool:
        """A block that sends ``message`` on request starts it in the background and returns True (each
        override passes the others on with super())."""
        return False

    def on_TriggerMessage(self, _: None, payload: dict) -> dict:
        return {"status": "Accepted" if self.triggered(payload["requestedMessage"], payload) else "NotImplemented"}


class RemoteTriggerCsms2x(Block):
    versions = V2X

    async def act_trigger_message(self, requested_message: str, evse: dict | None = None,
                                  station: str | None = None) -> None:
        self.send(station, "TriggerMessage", {"requestedMessage": requested_message}
                  | ({"evse": evse} if evse is not None else {}))
