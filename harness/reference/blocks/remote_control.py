"""Remote control: the CSMS starts and stops a transaction at the station.

Station 2.x (spec 001 Remote start): RequestStartTransaction is Accepted on a free, known, operative and
not faulted EVSE (or any such one) not reserved for another token, then TransactionEvent Started with triggerReason RemoteStart
and the same remoteStartId (a cable plugged in before starts no transaction: the reference's TxStartPoint
is Authorized); Rejected otherwise (rule 2: the station refuses what it cannot do). With
AuthCtrlr.AuthorizeRemoteStart true a token other than Central or NoAuthorization is authorized first
(F01.FR.01, F01.FR.02: docs/requirements/remote_control.md); when no cable comes within
TxCtrlr.EVConnectionTimeOut seconds (0, the reference's default: no limit) the transaction ends with
triggerReason EVConnectTimeout, stoppedReason Timeout.
A chargingProfile in the request is the smart-charging block's (``remote_start_refusal``: spec 001
SetChargingProfile rule 9). RequestStopTransaction is Accepted for a running transaction, which then
ends with triggerReason RemoteStop; Rejected otherwise. UnlockConnector (OCPP 2.0.1 part 2 F05,
docs/requirements/F05.md): UnknownConnector for an evseId/connectorId it does not have (F05.FR.03),
OngoingAuthorizedTransaction while an authorized transaction runs there (F05.FR.02), Unlocked otherwise.

Charge point 1.6 (spec 002): RemoteStartTransaction is Accepted on a free known connector (or any
free one), authorized first when AuthorizeRemoteTxRequests is true, and the transaction starts once
the cable is in; RemoteStopTransaction is Accepted for a running transaction, which stops with reason
Remote; Rejected otherwise. UnlockConnector (spec 002 UnlockStatus) is answered with what the lock
does (``unlock_result``: Unlocked, UnlockFailed, or NotSupported for a fixed cable), NotSupported for
a connector it does not have; a transaction running on the connector is stopped first, reason
UnlockCommand.

CSMS: both and UnlockConnector (2.x and 1.6) as actuator actions; a 2.x remote start carries a fresh
server-generated Central idToken and a unique remoteStartId (spec 001 Remote start rule 1); 2.1's remote start
with a limit (F07) leaves the limit to the answer to the transaction's Started event (the transactions block's).
"""

from __future__ import annotations

import asyncio
import itertools
import secrets
from typing import Any

from harness.reference.common import V2X, V16, Block
from harness.reference.model import Connector, EvseState


# -------------------------------------------------------------------------------------- the station
class RemoteControlStation2x(Block):
    versions = V2X
    requires = ("TransactionsStation2x", "AuthorizationStation2x", "DeviceModelStation2x")

    def on_RequestStartTransaction(self, _: None, payload: dict) -> dict:
        evse_id = payload.get("evseId")
        state = self.evses.get(evse_id) if evse_id is not None else \
            next((s for s in self.evses.values() if not s.busy and self._remote_start_usable(s)), None)
        if state is None or state.busy or not self._remote_start_usable(state) or self.reserved_for_another(
                state, payload["idToken"], payload.get("groupIdToken")):
            return {"status": "Rejected"}
        if "chargingProfile" in payload:
            refusal = self.remote_start_refusal(state.evse.id, payload["chargingProfile"])
            if refusal is not None:
                return refusal
        self.background.spawn(self._remote_start2x(state, payload["idToken"], payload["remoteStartId"]))
        return {"status": "Accepted"}

    def _remote_start_usable(self, state: EvseState) -> bool:
        """An EVSE made Inoperative (G03/G04) or Faulted starts no transaction (spec 001 Remote start rule 2)."""
        return not state.faulted and self.connector_operative(state.evse.id, state.evse.connectors[0])

    async def _remote_start2x(self, state: EvseState, id_token: dict, remote_start_id: int) -> None:
        """With AuthCtrlr.AuthorizeRemoteStart true a token that is neither Central nor NoAuthorization is
        authorized first, as if presented at the station (F01.FR.01); otherwise it is not (F01.FR.02)."""
        if id_token.get("type") not in ("Central", "NoAuthorization") and self.flag("AuthCtrlr", "AuthorizeRemoteStart"):
            if (await self.authorize(id_token)).get("status") != "Accepted" or state.busy:
                return
        await self.start_transaction(state, "RemoteStart", id_token, remote_start_id=remote_start_id)
        timeout = int(self.variable("TxCtrlr", "EVConnectionTimeOut") or 0)
        if timeout and not state.plugged and state.transaction is not None:
            self.background.spawn(self._cable_awaited(state, state.transaction, timeout))

    async def _cable_awaited(self, state: EvseState, transaction: Any, timeout: int) -> None:
        """No cable within TxCtrlr.EVConnectionTimeOut: the transaction ends, triggerReason EVConnectTimeout."""
        await asyncio.sleep(timeout)
        if state.transaction is transaction and not state.plugged:
            await self.end_transaction(state, "EVConnectTimeout", "Timeout")

    def on_RequestStopTransaction(self, _: None, payload: dict) -> dict:
        for state in self.evses.values():
            if state.transaction and state.transaction.id == payload["transactionId"]:
                self.background.spawn(self.end_transaction(state, "RemoteStop", "Remote"))
                return {"status": "Accepted"}
        return {"status": "Rejected"}

    def on_UnlockConnector(self, _: None, payload: dict) -> dict:
        state = self.evses.get(payload["evseId"])
        if state is None or payload["connectorId"] not in state.evse.connectors:
            return {"status": "UnknownConnector"}
        if state.transaction is not None and state.transaction.id_token is not None:
            return {"status": "OngoingAuthorizedTransaction"}
        return {"status": "Unlocked"}


class RemoteControlStation16(Block):
    versions = V16
    requires = ("TransactionsStation16", "AuthorizationStation16", "ConfigurationStation16", "ReservationStation16")
    configurable = frozenset({"unlock_result", "remote_start_refused"})
    unlock_result = "Unlocked"
    remote_start_refused = False   # True: every RemoteStartTransaction is Rejected (TC_026)

    def on_RemoteStartTransaction(self, _: None, payload: dict) -> dict:
        connector = self._free(payload.get("connectorId"))
        if connector is None or self.remote_start_refused or self.reservation_refuses(connector, payload["idTag"],
                                                                                       None):
            return {"status": "Rejected"}
        self.background.spawn(self._remote_start(connector, payload["idTag"]))
        return {"status": "Accepted"}

    def on_RemoteStopTransaction(self, _: None, payload: dict) -> dict:
        for connector in self._running(None):
            if connector.transaction.id == payload["transactionId"]:
                self.background.spawn(self.stop_charging(connector, "Remote"))
                return {"status": "Accepted"}
        return {"status": "Rejected"}

    def on_UnlockConnector(self, _: None, payload: dict) -> dict:
        connector = self.connectors.get(payload["connectorId"])
        if connector is None or self.unlock_result == "NotSupported":
            return {"status": "NotSupported"}
        if connector.transaction is not None:
            self.background.spawn(self.stop_charging(connector, "UnlockCommand"))
        return {"status": self.unlock_result}

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
            self.background.spawn(self._cable_timeout(connector, id_tag))

    async def _cable_timeout(self, connector: Connector, id_tag: str) -> None:
        """No cable within ConnectionTimeOut seconds of the remote start (OCPP 1.6 configuration key
        ConnectionTimeOut; TC_011_2): the start is given up and the connector goes back to Available."""
        await asyncio.sleep(self.config.integer("ConnectionTimeOut", 60))
        if connector.authorized == id_tag and not connector.plugged and connector.transaction is None:
            connector.authorized = connector.parent = None
            await self.set_status(connector, "Available")


# ----------------------------------------------------------------------------------------- the CSMS
class RemoteControlCsms2x(Block):
    versions = V2X
    requires = ("TransactionsCsms2x",)

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self._remote_start_ids = itertools.count(secrets.randbelow(10_000) + 1)

    def central_id_token(self) -> dict:
        """A fresh server-generated token for an app start (spec 001 Remote start rule 1)."""
        return {"idToken": "APP-" + secrets.token_hex(8).upper(), "type": "Central"}

    def _remote_start(self, evse_id: int | None, id_token: dict | None, remote_start_id: int | None) -> dict[str, Any]:
        payload: dict[str, Any] = {"idToken": id_token or self.central_id_token(),
                                   "remoteStartId": remote_start_id if remote_start_id is not None
                                   else next(self._remote_start_ids)}
        return payload | ({"evseId": evse_id} if evse_id is not None else {})

    async def act_request_start_transaction(self, evse_id: int | None = None, id_token: dict | None = None,
                                            remote_start_id: int | None = None, station: str | None = None) -> None:
        self.send(station, "RequestStartTransaction", self._remote_start(evse_id, id_token, remote_start_id))

    async def act_request_start_transaction_with_profile(self, evse_id: int, charging_profile: dict,
                                                         id_token: dict | None = None,
                                                         remote_start_id: int | None = None,
                                                         station: str | None = None) -> None:
        """K05: a remote start carrying the operator's TxProfile. An action of its own, not a key added to
        ``request_start_transaction``: an adapter written before K05 would drop the key and start without it."""
        self.send(station, "RequestStartTransaction",
                  self._remote_start(evse_id, id_token, remote_start_id) | {"chargingProfile": charging_profile})

    async def act_request_start_transaction_with_limit(self, evse_id: int, transaction_limit: dict,
                                                       id_token: dict | None = None,
                                                       remote_start_id: int | None = None,
                                                       station: str | None = None) -> None:
        """F07 (2.1): a remote start whose transaction the operator limits (maxCost, maxEnergy, maxTime, maxSoC):
        the Started event of its token is answered with that transactionLimit."""
        payload = self._remote_start(evse_id, id_token, remote_start_id)
        self.limit_transactions_of(payload["idToken"], transaction_limit)
        self.send(station, "RequestStartTransaction", payload)

    async def act_request_stop_transaction(self, transaction_id: str, station: str | None = None) -> None:
        self.send(station, "RequestStopTransaction", {"transactionId": transaction_id})

    async def act_unlock_connector(self, evse_id: int, connector_id: int, station: str | None = None) -> None:
        self.send(station, "UnlockConnector", {"evseId": evse_id, "connectorId": connector_id})


class RemoteControlCsms16(Block):
    versions = V16

    async def act_remote_start_transaction(self, id_tag: str, connector_id: int | None = None,
                                           station: str | None = None) -> None:
        self.send(station, "RemoteStartTransaction",
                  {"idTag": id_tag} | ({"connectorId": connector_id} if connector_id is not None else {}))

    async def act_remote_start_transaction_with_profile(self, id_tag: str, connector_id: int, charging_profile: dict,
                                                        station: str | None = None) -> None:
        self.send(station, "RemoteStartTransaction",
                  {"idTag": id_tag, "connectorId": connector_id, "chargingProfile": charging_profile})

    async def act_remote_stop_transaction(self, transaction_id: int, station: str | None = None) -> None:
        self.send(station, "RemoteStopTransaction", {"transactionId": transaction_id})

    async def act_unlock_connector(self, connector_id: int, station: str | None = None) -> None:
        self.send(station, "UnlockConnector", {"connectorId": connector_id})
