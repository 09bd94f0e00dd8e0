"""The reference charge point for OCPP 1.6-J. It plays the harness's charge point when the SUT is a
central system, and stands in as the SUT when the harness plays the central system.

It is the 2.x ReferenceStation on the same transport, RPC and schema core, with the 1.6 behaviour:
- connectors numbered 1..N without gaps, N the connectors of the profile's EVSEs in order
  (spec 002 "What the service does" 8); after an Accepted boot a StatusNotification for connector 0
  (the main controller, Available) and for each connector.
- BootNotification: not Accepted → the next one after the interval (its own wait when 0), nothing
  else before (1.6 section 4.2); the interval is read under both names (``interval``, and the
  ``heartbeatInterval`` of the wire example, as a finding); Accepted sets HeartbeatInterval.
- a presented idTag is authorized with Authorize; the idTag that started a transaction stops it
  WITHOUT Authorize; another idTag is authorized first and stops it when its parentIdTag is the
  starter's (spec 002 "What the service does" 3, 8).
- StartTransaction, StopTransaction (reason, meter values in transactionData when StopTxnSampledData
  is set) and periodic MeterValues (MeterValueSampleInterval) go through the TransactionQueue: in
  order, held while offline, retried by TransactionMessageRetryInterval × transmissions and
  discarded after TransactionMessageAttempts (behaviour rules 1-2); a StartTransaction answered
  with a status other than Accepted stops the transaction with reason DeAuthorized when
  StopTransactionOnInvalidId is true (spec 002 moves).
- RemoteStartTransaction: Accepted on a free known connector (or any free one), then the
  transaction starts when the cable is in; RemoteStopTransaction: Accepted for a running
  transaction, which stops with reason Remote; Rejected otherwise.
- GetConfiguration / ChangeConfiguration: the ConfigurationStore; a new AuthorizationKey is the
  Basic-auth password of the next connection (Authentication 3-4). When the central system closes
  the connection the charge point reconnects, booting again only when it was not Accepted
  (behaviour rule 4).
- Reset: Accepted; running transactions stop (HardReset/SoftReset), the connection closes and the
  charge point reconnects and boots, as after a restart (the harness resets a charge point under
  test that reconnects without booting when a test needs its boot).
- SetChargingProfile, GetCompositeSchedule, ClearChargingProfile: the smart-charging engine in 1.6.
- while Rejected it answers no central-system CALL (1.6 section 4.2).
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

from harness import smartcharging as sc
from harness.errors import HarnessError, PeerViolation
from harness.ocpp import schemas
from harness.ocpp.framing import Call
from harness.ocpp.v16 import AUTHORIZATION_KEY, connector_ids, interval_of
from harness.ocpp.versions import OcppVersion
from harness.profile import Profile
from harness.reference.common import Actions, now_iso
from harness.reference.station import ReferenceStation
from harness.reference.v16.config import ConfigurationStore
from harness.reference.v16.meter import Register
from harness.reference.v16.queue import Queued, TransactionQueue
from harness.transport.ws import CallErrorReply, Exchange, Handshake, OcppConnection
from harness.wire import WireLog

MAIN_CONTROLLER = 0
INTERVAL_ALIAS_RULE = "1.6 BootNotification.conf interval (named heartbeatInterval in the wire example)"


def interval_alias(version: OcppVersion, response: Any) -> dict | None:
    """``response`` read with ``heartbeatInterval`` as ``interval``, when that alone broke its schema."""
    if not isinstance(response, dict) or "heartbeatInterval" not in response or "interval" in response:
        return None
    read = {k: v for k, v in response.items() if k != "heartbeatInterval"} | {"interval": response["heartbeatInterval"]}
    return None if schemas.validate(version, "BootNotification", "response", read) else read


async def woken(event: asyncio.Event, timeout: float | None) -> bool:
    """Wait for ``event`` at most ``timeout`` seconds; True when it was set. (``asyncio.timeout``, not
    ``wait_for``: on 3.11 ``wait_for`` can swallow a cancellation that races the event.)"""
    try:
        async with asyncio.timeout(timeout):
            await event.wait()
        return True
    except TimeoutError:
        return False


def v16_actions(base: type, *, shared: set[str]):
    """``supported_actions`` for a 1.6 subclass of the 2.x ``base``: the 2.x actions it inherits
    without overriding are not its own (the in-process actuator then answers not applicable)."""
    def supported_actions(self) -> set[str]:
        return {a for a in Actions.supported_actions(self)
                if a in shared or getattr(type(self), f"act_{a}") is not getattr(base, f"act_{a}", None)}
    return supported_actions


@dataclass
class ChargeTransaction:
    connector_id: int
    id_tag: str
    parent: str | None
    start: dict                   # the StartTransaction.req payload
    id: int | None = None         # from StartTransaction.conf
    sampler: asyncio.Task | None = None


@dataclass
class Connector:
    id: int
    status: str = "Available"
    plugged: bool = False
    authorized: str | None = None     # the idTag allowed to start here
    parent: str | None = None
    transaction: ChargeTransaction | None = None
    meter: Register = field(default_factory=Register)


class ReferenceStation16(ReferenceStation):
    queue_class = TransactionQueue
    reconnect_delay = 0.5   # seconds between reconnection attempts
    configurable = frozenset({"reconnects"})   # False: a closed connection stays closed (the test reconnects)
    boot_retry = 5          # own wait before the next boot when the interval is 0 (1.6 section 4.2)

    def __init__(self, profile: Profile, version: OcppVersion, *, identity: str | None = None,
                 password: bytes | None = None, wirelog: WireLog | None = None, call_timeout: float | None = None):
        super().__init__(profile, version, identity=identity, password=password, wirelog=wirelog,
                         call_timeout=call_timeout)
        self.password = password if password is not None else profile.authorization_key
        self.connectors = {n: Connector(n) for n in connector_ids(profile)}
        self.config = ConfigurationStore.for_charge_point(len(self.connectors), self.password,
                                                          smart_charging=profile.feature("smart_charging"))
        self.smart = sc.Station(evse_ids=frozenset(self.connectors), smart_charging=profile.feature("smart_charging"),
                                phases=min(e.phases for e in profile.evses))
        self.queue = self.queue_class()
        self.registration: str | None = None
        self.reconnects = True
        self.links: list[OcppConnection] = []
        self._wake = asyncio.Event()
        self._beat = asyncio.Event()
        self._workers: list[asyncio.Task] = []

    supported_actions = v16_actions(ReferenceStation, shared={"data_transfer"})

    # ------------------------------------------------------------ lifecycle
    @property
    def online(self) -> bool:
        return self.connection is not None and not self.connection.closed and self.registration == "Accepted"

    async def connect(self, csms_url: str, *, boot: bool = True, offered: list[str] | None = None) -> Handshake:
        handshake = await super().connect(csms_url, boot=False, offered=offered)
        if handshake.subprotocol is not None:
            self.links.append(handshake.connection)
            self.background.spawn(self._supervise(handshake.connection))
            if not self._workers:
                self._workers = [self.background.spawn(self._send_queue()), self.background.spawn(self._heartbeat())]
            self._wake.set()
            if boot:
                await self.boot()
        return handshake

    async def _supervise(self, connection: OcppConnection) -> None:
        """Reconnect when the central system closes the connection (with the current key)."""
        while not await connection.wait_closed(3600):
            pass
        while self.reconnects and self.connection in (connection, None):
            await asyncio.sleep(self.reconnect_delay)
            if self.connection not in (connection, None):
                return
            try:
                handshake = await self.connect(self.csms_url, boot=self.registration != "Accepted")
            except HarnessError:
                continue
            if handshake.connection is not None:
                return

    async def boot(self) -> dict:
        response = await self.boot_once()
        if response.get("status") == "Accepted":
            await self.registered(response)
        else:
            self.background.spawn(self._boot_again(self.connection, interval_of(response)))
        return response

    async def boot_once(self) -> dict:
        """One BootNotification; the interval read under either name."""
        mark = len(self.connection.history)
        try:
            response = await self.call("BootNotification", self.boot_payload())
        except PeerViolation as violation:
            response = interval_alias(self.version, self.connection.history[mark].response)
            if response is None:
                raise
            self.connection.violations.remove(violation)
            self.connection.violations.append(PeerViolation(
                INTERVAL_ALIAS_RULE, "BootNotification.conf names the heartbeat interval heartbeatInterval",
                expected="interval", actual="heartbeatInterval", strict=False))
        self.boot_response, self.registration = response, response.get("status")
        return response

    async def _boot_again(self, connection: OcppConnection, interval: int) -> None:
        """Not Accepted: the interval is the least wait before the next BootNotification (1.6 section 4.2)."""
        if not await connection.wait_closed(interval or self.boot_retry) and connection is self.connection:
            await self.boot()

    async def registered(self, response: dict) -> None:
        """Accepted: the heartbeat interval is the central system's; report every connector."""
        self.config.set("HeartbeatInterval", str(interval_of(response)))
        await self.call("StatusNotification", self.connector_status(MAIN_CONTROLLER, "Available"))
        for connector in self.connectors.values():
            await self.call("StatusNotification", self.connector_status(connector.id, connector.status))
        self._wake.set()
        self._beat.set()

    async def _heartbeat(self) -> None:
        """A Heartbeat every HeartbeatInterval seconds; a new interval restarts the wait."""
        while True:
            self._beat.clear()
            if await woken(self._beat, self.config.integer("HeartbeatInterval") or None):
                continue
            if self.online:
                try:
                    await self.call("Heartbeat", {})
                except (HarnessError, PeerViolation):
                    pass

    async def _handle(self, call: Call) -> dict[str, Any]:
        if self.registration == "Rejected":   # while Rejected no central-system CALL is answered
            await asyncio.Event().wait()
        return await super()._handle(call)

    # ------------------------------------------------------------ payloads
    def boot_payload(self) -> dict:
        return {"chargePointVendor": str(self.profile.get("station.vendor", "evse-conformance"))[:20],
                "chargePointModel": str(self.profile.get("station.model", "reference"))[:20]}

    def connector_status(self, connector_id: int, status: str, error_code: str = "NoError") -> dict:
        return {"connectorId": connector_id, "errorCode": error_code, "status": status, "timestamp": now_iso()}

    async def set_status(self, connector: Connector, status: str) -> None:
        connector.status = status
        if self.online:
            await self.call("StatusNotification", self.connector_status(connector.id, status))

    # ------------------------------------------------------------ the transaction-message queue
    def send_transaction_message(self, action: str, payload: dict, tx: ChargeTransaction) -> asyncio.Future:
        """Queue a transaction-related message; the future gives its last Exchange (None: never sent)."""
        future = asyncio.get_running_loop().create_future()
        self.queue.push(action, payload, (tx, future))
        self._wake.set()
        return future

    async def drained(self, timeout: float) -> None:
        """Returns once every queued transaction message is delivered or dropped, or offline, or after ``timeout`` s."""
        deadline = time.monotonic() + timeout
        while len(self.queue) and self.online and time.monotonic() < deadline:
            await asyncio.sleep(0.02)

    async def _send_queue(self) -> None:
        while True:
            self._wake.clear()
            wait = self.queue.wait(time.monotonic())
            if wait is None or not self.online or wait > 0:
                await woken(self._wake, wait if wait and self.online else None)
                continue
            await self.transmit(self.queue.head())

    def bind(self, item: Queued) -> dict | None:
        """The payload as sent: messages after the start carry the central system's transactionId."""
        tx, _ = item.owner
        if item.action == "StartTransaction":
            return item.payload
        return None if tx.id is None else item.payload | {"transactionId": tx.id}

    async def transmit(self, item: Queued) -> None:
        tx, future = item.owner
        payload = self.bind(item)
        if payload is None:   # its transaction never got an id: nothing to refer to
            self.queue.failed(time.monotonic(), attempts=1, retry_interval=0)
            future.set_result(None)
            return
        connection = self.connection
        mark = len(connection.history)
        try:
            await connection.call_exchange(item.action, payload)
        except HarnessError:
            if connection.closed:
                return    # offline again: the message waits (Q2)
            raise
        except PeerViolation:
            pass          # no answer, or an answer breaking its schema: the connection records it
        exchange = connection.history[mark]
        if exchange.answered and exchange.error is None:
            self.queue.delivered()
            if item.action == "StartTransaction":
                tx.id = exchange.response.get("transactionId")
                self.smart.transactions[tx.connector_id] = sc.Transaction(str(tx.id), datetime.now(timezone.utc))
            future.set_result(exchange)
        elif self.queue.failed(time.monotonic(), attempts=self.config.integer("TransactionMessageAttempts", 1),
                               retry_interval=self.config.integer("TransactionMessageRetryInterval")):
            future.set_result(exchange)

    # ------------------------------------------------------------ transactions
    async def authorize(self, id_tag: str) -> dict:
        return (await self.call("Authorize", {"idTag": id_tag}))["idTagInfo"]

    def _running(self, connector_id: int | None):
        return [c for c in self.connectors.values()
                if c.transaction is not None and connector_id in (None, c.id)]

    def _free(self, connector_id: int | None) -> Connector | None:
        if connector_id is not None:
            connector = self.connectors.get(connector_id)
            return connector if connector is not None and connector.transaction is None else None
        return next((c for c in self.connectors.values() if c.transaction is None and c.authorized is None), None)

    async def present(self, id_tag: str, connector_id: int | None = None) -> None:
        same = [c for c in self._running(connector_id) if c.transaction.id_tag.casefold() == id_tag.casefold()]
        if same:   # the idTag that started it stops it, without Authorize
            await self.stop_charging(same[0], "Local", id_tag)
            return
        info = await self.authorize(id_tag)
        if info.get("status") != "Accepted":
            return
        parent = info.get("parentIdTag")
        group = [c for c in self._running(connector_id) if parent and c.transaction.parent
                 and c.transaction.parent.casefold() == parent.casefold()]
        if group:  # another member of the starter's group
            await self.stop_charging(group[0], "Local", id_tag)
            return
        connector = self._free(connector_id)
        if connector is None:
            return
        connector.authorized, connector.parent = id_tag, parent
        if connector.plugged:
            await self.start_charging(connector)
        else:
            await self.set_status(connector, "Preparing")

    async def start_charging(self, connector: Connector) -> Exchange | None:
        payload = {"connectorId": connector.id, "idTag": connector.authorized, "meterStart": connector.meter.wh,
                   "timestamp": now_iso()}
        tx = ChargeTransaction(connector.id, connector.authorized, connector.parent, payload)
        connector.transaction, connector.authorized = tx, None
        tx.sampler = self.background.spawn(self._sample(connector, tx))
        exchange = await self.send_transaction_message("StartTransaction", payload, tx)
        if exchange is None or exchange.response is None or connector.transaction is not tx:
            return exchange
        await self.set_status(connector, "Charging")
        if exchange.response["idTagInfo"]["status"] != "Accepted":
            if self.config.flag("StopTransactionOnInvalidId"):
                await self.stop_charging(connector, "DeAuthorized")
            else:
                await self.set_status(connector, "SuspendedEVSE")
        return exchange

    def stop_payload(self, connector: Connector, tx: ChargeTransaction, reason: str, id_tag: str | None) -> dict:
        meter_stop = connector.meter.advance()
        payload: dict[str, Any] = {"meterStop": meter_stop, "timestamp": now_iso(), "reason": reason}
        if id_tag is not None:
            payload["idTag"] = id_tag
        if self.config.value("StopTxnSampledData"):
            payload["transactionData"] = [
                connector.meter.sample("Transaction.Begin", tx.start["meterStart"], tx.start["timestamp"]),
                connector.meter.sample("Transaction.End", meter_stop, payload["timestamp"])]
        return payload

    async def stop_charging(self, connector: Connector, reason: str, id_tag: str | None = None) -> Exchange | None:
        tx = connector.transaction
        if tx is None:
            return None
        connector.transaction = None
        if tx.sampler is not None:
            tx.sampler.cancel()
        if connector.id in self.smart.transactions:
            self.profiles.end_transaction(self.smart, connector.id)
        sent = self.send_transaction_message("StopTransaction", self.stop_payload(connector, tx, reason, id_tag), tx)
        await self.set_status(connector, "Finishing" if connector.plugged else "Available")
        return await sent

    async def _sample(self, connector: Connector, tx: ChargeTransaction) -> None:
        """Periodic MeterValues every MeterValueSampleInterval seconds (0: none)."""
        while connector.transaction is tx:
            interval = self.config.integer("MeterValueSampleInterval")
            await asyncio.sleep(interval or 1)
            if interval and connector.transaction is tx:
                connector.meter.advance()
                self.send_transaction_message("MeterValues", {
                    "connectorId": connector.id, "meterValue": [connector.meter.sample("Sample.Periodic")]}, tx)

    async def _remote_start(self, connector: Connector, id_tag: str) -> None:
        parent = None
        if self.config.flag("AuthorizeRemoteTxRequests"):
            info = await self.authorize(id_tag)
            if info.get("status") != "Accepted":
                return
            parent = info.get("parentIdTag")
        connector.authorized, connector.parent = id_tag, parent
        if connector.plugged:
            await self.start_charging(connector)
        else:
            await self.set_status(connector, "Preparing")

    # ------------------------------------------------------------ actuator actions
    async def act_present_id_tag(self, id_tag: str, connector_id: int | None = None) -> None:
        self.background.spawn(self.present(id_tag, connector_id))

    async def act_start_locally_authorized(self, id_tag: str, connector_id: int = 1) -> None:
        """An idTag the charge point authorizes on its own (its cache or local list: spec 002 What the
        service does 5), the cable in: the transaction starts without Authorize."""
        connector = self.connectors[connector_id]
        connector.authorized, connector.plugged = id_tag, True
        self.background.spawn(self.start_charging(connector))

    async def act_plug_in(self, connector_id: int = 1) -> None:
        connector = self.connectors[connector_id]

        async def plug() -> None:
            connector.plugged = True
            if connector.authorized and connector.transaction is None:
                await self.start_charging(connector)
            elif connector.status == "Available":
                await self.set_status(connector, "Preparing")

        self.background.spawn(plug())

    async def act_unplug(self, connector_id: int = 1) -> None:
        connector = self.connectors[connector_id]

        async def unplug() -> None:
            connector.plugged = False
            if connector.transaction is not None and self.config.flag("StopTransactionOnEVSideDisconnect"):
                await self.stop_charging(connector, "EVDisconnected")
            await self.set_status(connector, "Available")

        self.background.spawn(unplug())

    # ------------------------------------------------------------ CS → CP
    def on_RemoteStartTransaction(self, _: None, payload: dict) -> dict:
        connector = self._free(payload.get("connectorId"))
        if connector is None:
            return {"status": "Rejected"}
        self.background.spawn(self._remote_start(connector, payload["idTag"]))
        return {"status": "Accepted"}

    def on_RemoteStopTransaction(self, _: None, payload: dict) -> dict:
        for connector in self._running(None):
            if connector.transaction.id == payload["transactionId"]:
                self.background.spawn(self.stop_charging(connector, "Remote"))
                return {"status": "Accepted"}
        return {"status": "Rejected"}

    async def _restart(self, kind: str) -> None:
        """Reset (Core): running transactions stop (reason HardReset/SoftReset; gracefully for either
        type, which a Hard reset permits), the connection closes, and the restarted charge point
        connects and boots again."""
        await asyncio.sleep(0)   # the Reset.conf goes out first
        for connector in self._running(None):
            await self.stop_charging(connector, f"{kind}Reset")
        self.registration = None
        if self.connection is not None:
            await self.connection.close()

    def on_GetConfiguration(self, _: None, payload: dict) -> dict:
        return self.config.get(payload.get("key"))

    def on_ChangeConfiguration(self, _: None, payload: dict) -> dict:
        status = self.config.change(payload["key"], payload["value"])
        if status == "Accepted" and payload["key"].casefold() == AUTHORIZATION_KEY.casefold():
            self.password = bytes.fromhex(payload["value"])   # the next connection's Basic-auth password
            if self.identity == self.profile.identity:
                self.profile.key_rotated(self.password)
        self._beat.set()
        return {"status": status}

    def on_SetChargingProfile(self, _: None, payload: dict) -> dict:
        decision = sc.answer_set_charging_profile(self.profiles, self.smart, payload, OcppVersion.V16)
        if decision.call_error:
            raise CallErrorReply(decision.call_error, decision.detail)
        return decision.response()

    def on_GetCompositeSchedule(self, _: None, payload: dict) -> dict:
        return sc.answer_get_composite_schedule(self.profiles, self.smart, payload, OcppVersion.V16,
                                                datetime.now(timezone.utc))

    def on_ClearChargingProfile(self, _: None, payload: dict) -> dict:
        return sc.answer_clear_charging_profile(self.profiles, payload, OcppVersion.V16)

