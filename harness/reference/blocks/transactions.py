"""Transactions: the station starts and ends them and reports them; the CSMS records them.

Station 2.x (spec 001): a transaction starts with TransactionEvent Started (trigger Authorized,
CablePluggedIn or RemoteStart) and ends with Ended; a TransactionEventResponse whose idTokenInfo is
not Accepted ends it with triggerReason Deauthorized (spec 001 moves, offline-authorized transaction);
pulling the cable ends it (EVCommunicationLost). While it runs, a TransactionEvent Updated carries the
energy register every ``tx_updated_interval`` seconds (spec 001 J02; 0, the default: none).

Charge point 1.6 (spec 002): StartTransaction, StopTransaction (reason, meter values of
StopTxnSampledData and StopTxnAlignedData in transactionData, none when both are empty), periodic
MeterValues (MeterValueSampleInterval, MeterValuesSampledData) and clock-aligned ones
(ClockAlignedDataInterval, MeterValuesAlignedData) go
through the TransactionQueue (``harness.reference.v16.queue``, rules Q1-Q4): in order, held while
offline, retried by TransactionMessageRetryInterval × transmissions and discarded after
TransactionMessageAttempts (behaviour rules 1-2); a StartTransaction answered with a status other than
Accepted stops the transaction with reason DeAuthorized when StopTransactionOnInvalidId is true
(spec 002 moves); pulling the cable stops it when StopTransactionOnEVSideDisconnect is true.

CSMS 2.x: a token carried in a TransactionEvent is checked again and answered with idTokenInfo
(spec 001 Authorization rule 7, rule 9 for offline events), ConcurrentTx when a Started event carries
a token already in another running transaction, except a Central token it issued in a
RequestStartTransaction on this connection. Central system 1.6: StartTransaction gets a fresh integer
transactionId and IdTagInfo, ConcurrentTx for an idTag that already charges (AuthorizationStatus);
StopTransaction ends it, answered with IdTagInfo when it carries an idTag.
"""

from __future__ import annotations

import asyncio
import itertools
import secrets
import uuid
from dataclasses import dataclass
from typing import Any

from harness import clock
from harness.errors import HarnessError, PeerViolation
from harness.ocpp.meter16 import ENERGY
from harness.reference.base import StationSession
from harness.reference.common import V2X, V16, Block, now_iso, woken
from harness.reference.model import ChargeTransaction, Connector, EvseState, StationTransaction
from harness.reference.tokens import token_key
from harness.reference.v16.meter import measurand_list
from harness.reference.v16.queue import Queued, TransactionQueue
from harness.transport.ws import Exchange


# -------------------------------------------------------------------------------------- the station
class TransactionsStation2x(Block):
    versions = V2X
    requires = ("ProvisioningStation2x",)
    # SampledDataCtrlr.TxUpdatedInterval: seconds between TransactionEvent Updated carrying the energy
    # register while a transaction runs (spec 001 J02); 0: none
    configurable = frozenset({"tx_updated_interval"})
    tx_updated_interval = 0

    def _event(self, state: EvseState, event_type: str, trigger: str, **info: Any) -> dict:
        tx = state.transaction
        payload: dict[str, Any] = {
            "eventType": event_type, "timestamp": now_iso(), "triggerReason": trigger, "seqNo": tx.seq_no,
            "transactionInfo": {"transactionId": tx.id, **info},
            "evse": {"id": state.evse.id, "connectorId": state.evse.connectors[0]},
        }
        tx.seq_no += 1
        return payload

    async def start_transaction(self, state: EvseState, trigger: str, id_token: dict | None,
                                remote_start_id: int | None = None) -> None:
        state.transaction = StationTransaction(str(uuid.uuid4()), id_token, state.group)
        self.transaction_started(state.evse.id, state.transaction.id)
        info: dict[str, Any] = {"chargingState": "Charging" if state.plugged else "Idle"}
        if remote_start_id is not None:
            info["remoteStartId"] = remote_start_id
        payload = self._event(state, "Started", trigger, **info)
        if id_token is not None:
            payload["idToken"] = id_token
        if self.tx_updated_interval:
            self.background.spawn(self._sample(state, state.transaction))
        response = await self.call("TransactionEvent", payload)
        await self._after_event(state, response)

    async def _sample(self, state: EvseState, tx: StationTransaction) -> None:
        """TransactionEvent Updated (MeterValuePeriodic) with the energy register every tx_updated_interval."""
        while True:
            await asyncio.sleep(self.tx_updated_interval)
            if state.transaction is not tx:
                return
            payload = self._event(state, "Updated", "MeterValuePeriodic", chargingState="Charging")
            payload["meterValue"] = [{"timestamp": payload["timestamp"], "sampledValue": [{
                "value": state.meter.advance(), "context": "Sample.Periodic", "measurand": ENERGY,
                "location": "Outlet", "unitOfMeasure": {"unit": "Wh"}}]}]
            await self.call("TransactionEvent", payload)

    async def end_transaction(self, state: EvseState, trigger: str, stopped_reason: str,
                              id_token: dict | None = None) -> None:
        if state.transaction is None:
            return
        payload = self._event(state, "Ended", trigger, stoppedReason=stopped_reason)
        if id_token is not None:
            payload["idToken"] = id_token
        state.transaction, state.authorized, state.group = None, None, None
        self.transaction_ended(state.evse.id)
        await self.call("TransactionEvent", payload)

    async def end_transactions(self) -> None:
        await super().end_transactions()
        for state in self.evses.values():
            await self.end_transaction(state, "StopAuthorized", "Local")

    async def _after_event(self, state: EvseState, response: dict) -> None:
        status = response.get("idTokenInfo", {}).get("status", "Accepted")
        if status != "Accepted" and state.transaction is not None:
            await self.end_transaction(state, "Deauthorized", "DeAuthorized")

    async def act_plug_in(self, evse_id: int = 1, connector_id: int | None = None) -> None:
        state = self.evses[evse_id]

        async def plug() -> None:
            state.plugged = True
            await self.call("StatusNotification", self.status_payload(
                evse_id, connector_id or state.evse.connectors[0], "Occupied"))
            if state.authorized and not state.busy:
                await self.start_transaction(state, "CablePluggedIn", state.authorized)

        self.background.spawn(plug())

    async def act_unplug(self, evse_id: int = 1, connector_id: int | None = None) -> None:
        state = self.evses[evse_id]

        async def unplug() -> None:
            state.plugged = False
            await self.end_transaction(state, "EVCommunicationLost", "EVDisconnected")
            await self.call("StatusNotification", self.status_payload(
                evse_id, connector_id or state.evse.connectors[0], "Available"))

        self.background.spawn(unplug())


class TransactionsStation16(Block):
    versions = V16
    requires = ("ProvisioningStation16", "ConfigurationStation16", "ReservationStation16")
    queue_class = TransactionQueue

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.queue = self.queue_class()
        self._wake = asyncio.Event()
        self._sender: asyncio.Task | None = None

    async def connected(self, connection) -> None:
        await super().connected(connection)
        if self._sender is None:
            self._sender = self.background.spawn(self._send_queue())
        self._wake.set()

    def went_online(self) -> None:
        super().went_online()
        self._wake.set()

    # ------------------------------------------------------------ the transaction-message queue
    def send_transaction_message(self, action: str, payload: dict, tx: ChargeTransaction) -> asyncio.Future:
        """Queue a transaction-related message; the future gives its last Exchange (None: never sent)."""
        future = asyncio.get_running_loop().create_future()
        self.queue.push(action, payload, (tx, future))
        self._wake.set()
        return future

    async def drained(self, timeout: float) -> None:
        """Returns once every queued transaction message is delivered or dropped, or offline, or after ``timeout`` s."""
        deadline = clock.now() + timeout
        while len(self.queue) and self.online and clock.now() < deadline:
            await asyncio.sleep(0.02)

    async def _send_queue(self) -> None:
        while True:
            self._wake.clear()
            wait = self.queue.wait(clock.now())
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
            self.queue.failed(clock.now(), attempts=1, retry_interval=0)
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
                self.transaction_started(tx.connector_id, str(tx.id))
            if "idTagInfo" in exchange.response:
                self.id_tag_info_received(payload.get("idTag", tx.id_tag), exchange.response["idTagInfo"],
                                          item.action)
            future.set_result(exchange)
        elif self.queue.failed(clock.now(), attempts=self.config.integer("TransactionMessageAttempts", 1),
                               retry_interval=self.config.integer("TransactionMessageRetryInterval")):
            future.set_result(exchange)

    # ------------------------------------------------------------ transactions
    def _running(self, connector_id: int | None) -> list[Connector]:
        return [c for c in self.connectors.values()
                if c.transaction is not None and connector_id in (None, c.id)]

    def _free(self, connector_id: int | None) -> Connector | None:
        """The connector a new transaction may use: operative, not faulted, without a transaction."""
        usable = lambda c: c.transaction is None and c.operative and not c.faulted
        if connector_id is not None:
            connector = self.connectors.get(connector_id)
            return connector if connector is not None and usable(connector) else None
        return next((c for c in self.connectors.values() if usable(c) and c.authorized is None
                     and c.reservation is None), None)

    async def start_charging(self, connector: Connector) -> Exchange | None:
        payload = {"connectorId": connector.id, "idTag": connector.authorized, "meterStart": connector.meter.wh,
                   "timestamp": now_iso()}
        reservation_id = self.claim_reservation(connector, connector.authorized, connector.parent)
        if reservation_id is not None:
            payload["reservationId"] = reservation_id
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
        sampled = self.measurands("StopTxnSampledData")
        data = [self.reading(connector, "Transaction.Begin", sampled, tx.start["meterStart"], tx.start["timestamp"]),
                *tx.aligned, self.reading(connector, "Transaction.End", sampled, meter_stop, payload["timestamp"])]
        data = [value for value in data if value["sampledValue"]]
        if data:   # both lists empty: no meter values (behaviour rule 14)
            payload["transactionData"] = data
        return payload

    async def stop_charging(self, connector: Connector, reason: str, id_tag: str | None = None) -> Exchange | None:
        tx = connector.transaction
        if tx is None:
            return None
        connector.transaction = None
        if tx.sampler is not None:
            tx.sampler.cancel()
        self.transaction_ended(connector.id)
        sent = self.send_transaction_message("StopTransaction", self.stop_payload(connector, tx, reason, id_tag), tx)
        await self.set_status(connector, "Finishing" if connector.plugged else "Available")
        return await sent

    async def end_transactions(self) -> None:
        await super().end_transactions()
        for connector in self._running(None):
            await self.stop_charging(connector, "Local")

    def measurands(self, key: str) -> list[str]:
        """The measurands a metering key lists (rule 16); empty: none."""
        return measurand_list(self.config.value(key))

    def reading(self, connector: Connector, context: str, measurands: list[str], wh: int | None = None,
                at: str | None = None) -> dict:
        """One MeterValue of the connector's meter (no sampledValue when ``measurands`` is empty)."""
        return connector.meter.sample(context, measurands, wh, at)

    async def _sample(self, connector: Connector, tx: ChargeTransaction) -> None:
        """The transaction's meter values: periodic and clock-aligned, side by side."""
        await asyncio.gather(self._sample_periodic(connector, tx), self._sample_aligned(connector, tx))

    async def _sample_periodic(self, connector: Connector, tx: ChargeTransaction) -> None:
        """MeterValues of MeterValuesSampledData every MeterValueSampleInterval seconds (0: none)."""
        while connector.transaction is tx:
            interval = self.config.integer("MeterValueSampleInterval")
            await asyncio.sleep(interval or 1)
            if interval and connector.transaction is tx:
                connector.meter.advance()
                self._send_sample(connector, tx, self.reading(connector, "Sample.Periodic",
                                                              self.measurands("MeterValuesSampledData")))

    async def _sample_aligned(self, connector: Connector, tx: ChargeTransaction) -> None:
        """At every multiple of ClockAlignedDataInterval seconds of the clock (0: none): MeterValues of
        MeterValuesAlignedData, and a MeterValue of StopTxnAlignedData kept for the StopTransaction."""
        while connector.transaction is tx:
            interval = self.config.integer("ClockAlignedDataInterval")
            now = clock.utcnow().timestamp()
            await asyncio.sleep(interval - now % interval if interval else 1)
            if not interval or connector.transaction is not tx:
                continue
            at = now_iso()
            self._send_sample(connector, tx, self.reading(connector, "Sample.Clock",
                                                          self.measurands("MeterValuesAlignedData"), at=at))
            kept = self.reading(connector, "Sample.Clock", self.measurands("StopTxnAlignedData"), at=at)
            if kept["sampledValue"]:
                tx.aligned.append(kept)

    def _send_sample(self, connector: Connector, tx: ChargeTransaction, value: dict) -> None:
        if value["sampledValue"]:
            self.send_transaction_message("MeterValues", {"connectorId": connector.id, "meterValue": [value]}, tx)

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


# ----------------------------------------------------------------------------------------- the CSMS
@dataclass
class Transaction:
    id: str
    id_token: dict | None
    ended: bool = False


class TransactionsCsms2x(Block):
    versions = V2X
    requires = ("AuthorizationCsms2x",)

    def on_TransactionEvent(self, session: StationSession, payload: dict) -> dict:
        info = payload["transactionInfo"]
        tx = session.transactions.get(info["transactionId"])
        if tx is None:
            tx = Transaction(info["transactionId"], payload.get("idToken"))
            session.transactions[tx.id] = tx
        if payload["eventType"] == "Ended":
            tx.ended = True
        id_token = payload.get("idToken")
        if id_token is None:
            return {}
        if id_token.get("type") == "NoAuthorization":
            return {"idTokenInfo": {"status": "Accepted"}}
        if tx.id_token is None:
            tx.id_token = id_token
        if self.issued_by_us(session, id_token):
            return {"idTokenInfo": {"status": "Accepted"}}
        starting = tx.id if payload["eventType"] == "Started" else None
        return {"idTokenInfo": self.id_token_info(session, id_token, current_tx=starting)}

    def issued_by_us(self, session: StationSession, id_token: dict) -> bool:
        """A Central token this CSMS sent in a RequestStartTransaction on this connection."""
        if id_token.get("type") != "Central" or session.connection is None:
            return False
        return any(not e.incoming and e.action == "RequestStartTransaction"
                   and token_key(e.request["idToken"]) == token_key(id_token) for e in session.connection.history)


@dataclass
class CentralTransaction:
    id: int
    id_tag: str
    ended: bool = False


def charging_tags(session: StationSession) -> set[str]:
    """The idTags of the 1.6 transactions still running at the station (casefolded)."""
    return {t.id_tag.casefold() for t in session.transactions.values() if not t.ended}


class TransactionsCsms16(Block):
    versions = V16
    requires = ("AuthorizationCsms16",)
    # start_refused: the IdTagInfo status every StartTransaction gets instead (Invalid: an idTag accepted
    # at Authorize refused once its transaction runs, as StopTransactionOnInvalidId is about)
    configurable = frozenset({"start_refused"})
    start_refused: str | None = None

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self._transaction_ids = itertools.count(secrets.randbelow(10_000) + 1)

    def on_StartTransaction(self, session: StationSession, payload: dict) -> dict:
        charging = payload["idTag"].casefold() in charging_tags(session)
        info = self.id_tag_info(session, payload["idTag"], charging=charging)
        if self.start_refused is not None:
            info = {"status": self.start_refused}
        tx = CentralTransaction(next(self._transaction_ids), payload["idTag"])
        session.transactions[tx.id] = tx
        return {"transactionId": tx.id, "idTagInfo": info}

    def on_StopTransaction(self, session: StationSession, payload: dict) -> dict:
        tx = session.transactions.get(payload["transactionId"])
        if tx is not None:
            tx.ended = True
        return {"idTagInfo": self.id_tag_info(session, payload["idTag"])} if "idTag" in payload else {}
