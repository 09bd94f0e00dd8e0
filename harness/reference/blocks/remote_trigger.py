"""Remote Trigger: TriggerMessage (1.6: Remote Trigger, and the security extension's ExtendedTriggerMessage, with
the two firmware-management notifications it can ask for; 2.x: F06, docs/requirements/remote_control.md), and
the messages other blocks send on request (``triggered``: the certificates block's signing requests).

Charge point 1.6 (spec 002 TriggerMessage; MessageTrigger; TriggerMessageStatus; Events;
DiagnosticsStatus and FirmwareStatus Idle): a TriggerMessage for a connector it does not have is
Rejected; otherwise it is Accepted and the requested message follows the answer: BootNotification
(the registration stays as it is), Heartbeat, StatusNotification of the connector (of connector 0
and every connector when none is given), MeterValues of the connector's register (every connector's
when none is given; with the transactionId while one runs), DiagnosticsStatusNotification and
FirmwareStatusNotification with status Idle (nothing is uploading or installing). ``trigger_answer``
makes every TriggerMessage answered with that status instead (Rejected, NotImplemented), nothing
sent.

Station 2.x (OCPP 2.0.1 and 2.1 F06; MessageTriggerEnumType): an EVSE it does not have is Rejected; the
messages it sends are BootNotification (reason Triggered), Heartbeat, LogStatusNotification and
FirmwareStatusNotification (Idle: nothing uploads or installs), MeterValues (context Trigger; of the EVSE
asked, else of every EVSE), StatusNotification (of each connector of the EVSE asked, or of the connector
asked; of every connector without evse), TransactionEvent (Updated, triggerReason Trigger, of the EVSE's
running transaction; Rejected when none runs there), SignCertificate with a fresh CSR (certificateType as
asked; none for the combined one), PublishFirmwareStatusNotification Idle. An evse given with a message
that is not about an EVSE is ignored (F06.FR.02). 2.1's CustomTrigger is answered NotImplemented
(F06.FR.08). ``trigger_answer`` makes every TriggerMessage answered with that status instead, nothing sent.

Central system 1.6, CSMS 2.x: TriggerMessage as an actuator action (the firmware-management notifications
it may bring are answered by the firmware block; 2.x: LogStatusNotification, FirmwareStatusNotification,
PublishFirmwareStatusNotification here, and SignCertificate Rejected: the reference signs no certificates).
"""

from __future__ import annotations

import asyncio
from typing import Any

from harness.ocpp.v16 import WHOLE_CHARGE_POINT
from harness.ocpp.meter16 import ENERGY
from harness.reference.common import V2X, V16, Block, now_iso
from harness.reference.model import Connector, EvseState

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
        """The 1.6 security extension's trigger: what a block sends on request (the certificates block's
        SignCertificate, the signed firmware block's SignedFirmwareStatusNotification, the security log's
        LogStatusNotification), else the messages TriggerMessage knows, for the connector asked."""
        if self.trigger_answer is not None:
            return {"status": self.trigger_answer}
        if self.triggered(payload["requestedMessage"], payload):
            return {"status": "Accepted"}
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


# 2.x: the messages a station sends for its EVSEs, and those the reference does not implement (F06.FR.08)
PER_EVSE = frozenset({"MeterValues", "StatusNotification", "TransactionEvent"})
NOT_IMPLEMENTED = frozenset({"CustomTrigger"})


class RemoteTriggerStation2x(Block):
    versions = V2X
    requires = ("ProvisioningStation2x", "TransactionsStation2x")
    configurable = frozenset({"trigger_answer"})
    trigger_answer: str | None = None

    def triggered(self, message: str, payload: dict) -> bool:
        """A block that sends ``message`` on request (the certificates block's signing requests) starts it in
        the background and returns True (each override passes the others on with super())."""
        return False

    def on_TriggerMessage(self, _: None, payload: dict) -> dict:
        message, evse = payload["requestedMessage"], payload.get("evse")
        if self.trigger_answer is not None:
            return {"status": self.trigger_answer}
        if self.triggered(message, payload):
            return {"status": "Accepted"}
        if message in NOT_IMPLEMENTED:
            return {"status": "NotImplemented"}
        if message not in PER_EVSE:
            evse = None   # not about an EVSE: the evse is ignored (F06.FR.02)
        if evse is not None and evse["id"] not in self.evses:
            return {"status": "Rejected"}
        chosen = [self.evses[evse["id"]]] if evse is not None else list(self.evses.values())
        if message == "TransactionEvent":
            chosen = [state for state in chosen if state.transaction is not None]
            if not chosen:
                return {"status": "Rejected"}
        connector = (evse or {}).get("connectorId")
        self.background.spawn(self._send_triggered2x(message, chosen, connector))
        return {"status": "Accepted"}

    def _reading(self, state: EvseState) -> dict:
        return {"timestamp": now_iso(), "sampledValue": [{"value": state.meter.wh, "context": "Trigger",
                                                          "measurand": ENERGY, "unitOfMeasure": {"unit": "Wh"}}]}

    def connector_state(self, state: EvseState) -> str:
        """What a connector of the EVSE shows: Occupied with a cable (or a transaction), else Available."""
        return "Occupied" if state.plugged or state.transaction is not None else "Available"

    async def _send_triggered2x(self, message: str, chosen: list[EvseState], connector: int | None) -> None:
        await asyncio.sleep(0)   # the TriggerMessageResponse goes out first
        if message == "BootNotification":
            await self.call("BootNotification", self.boot_payload() | {"reason": "Triggered"})
        elif message == "Heartbeat":
            await self.call("Heartbeat", {})
        elif message in ("LogStatusNotification", "FirmwareStatusNotification", "PublishFirmwareStatusNotification"):
            await self.call(message, IDLE)
        for state in chosen if message in PER_EVSE else ():
            if message == "MeterValues":   # one EVSE's refused report does not keep the next from going out
                await self.send_and_go_on("MeterValues", {"evseId": state.evse.id,
                                                          "meterValue": [self._reading(state)]})
            elif message == "StatusNotification":
                for number in [connector] if connector is not None else state.evse.connectors:
                    await self.send_and_go_on("StatusNotification", self.status_payload(
                        state.evse.id, number, self.connector_state(state)))
            elif state.transaction is not None:
                event = self._event(state, "Updated", "Trigger",
                                    chargingState="Charging" if state.plugged else "Idle")
                await self.call("TransactionEvent", event | {"meterValue": [self._reading(state)]})


class RemoteTriggerCsms2x(Block):
    versions = V2X

    def on_LogStatusNotification(self, _: Any, payload: dict) -> dict:
        return {}

    def on_FirmwareStatusNotification(self, _: Any, payload: dict) -> dict:
        return {}

    def on_PublishFirmwareStatusNotification(self, _: Any, payload: dict) -> dict:
        return {}

    async def act_trigger_message(self, requested_message: str, evse: dict | None = None,
                                  custom_trigger: str | None = None, station: str | None = None) -> None:
        self.send(station, "TriggerMessage", {"requestedMessage": requested_message}
                  | ({"evse": evse} if evse is not None else {})
                  | ({"customTrigger": custom_trigger} if custom_trigger is not None else {}))
