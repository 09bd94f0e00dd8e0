"""The reference charging station for OCPP 2.0.1 and 2.1. It plays the harness's station when
the SUT is a CSMS, and stands in as the SUT when the harness plays the CSMS.

Behavior, with its source:
- on connect: BootNotification, then a StatusNotification per connector (spec 002 Connection).
- a presented token is authorized with AuthorizeRequest; once it is accepted and the cable is
  in, a transaction starts (TransactionEvent Started); an EVSE restriction in idTokenInfo.evseId
  is honoured (spec 001 order of checks, step 7).
- the token that started a transaction stops it without a new AuthorizeRequest; another token
  is authorized first and stops it when its groupIdToken matches (spec 001 Authorization rule 5).
- a TransactionEventResponse whose idTokenInfo is not Accepted ends the transaction with
  triggerReason Deauthorized (spec 001 moves, offline-authorized transaction).
- RequestStartTransaction: Accepted on a free, known EVSE, then TransactionEvent Started with
  triggerReason RemoteStart and the same remoteStartId; Rejected otherwise (spec 001 Remote start).
- RequestStopTransaction: Accepted for a running transaction, which then ends with
  triggerReason RemoteStop; Rejected otherwise.
- Reset (Immediate, or OnIdle while idle): Accepted; transactions end, the station reconnects and
  boots with reason RemoteReset (the harness resets a station under test that reconnects without
  booting when a test needs its boot).
- Smart charging (SetChargingProfile, GetCompositeSchedule, ClearChargingProfile,
  GetChargingProfiles) is answered by the charging-profile engine (harness.smartcharging);
  a transaction's end deletes its TxProfiles.
"""

from __future__ import annotations

import asyncio
import uuid
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

from harness.errors import HarnessError
from harness.ocpp.framing import Call
from harness.ocpp.versions import OcppVersion
from harness.profile import Evse, Profile
from harness.reference.common import Actions, Background, Dispatcher, now_iso
from harness.reference.tokens import token_key
from harness.reference.vendors import VendorRegistry
from harness import smartcharging as sc
from harness.transport.ws import CallErrorReply, Handshake, OcppConnection, open_station
from harness.wire import WireLog


@dataclass
class StationTransaction:
    id: str
    id_token: dict | None
    group: dict | None = None
    seq_no: int = 0
    remote_start_id: int | None = None


@dataclass
class EvseState:
    evse: Evse
    plugged: bool = False
    authorized: dict | None = None
    group: dict | None = None
    transaction: StationTransaction | None = None

    @property
    def busy(self) -> bool:
        return self.transaction is not None


class ReferenceStation(Dispatcher, Actions):
    # local_authorization: presented tokens count as accepted from the station's own cache or local
    # list, and a transaction starts without AuthorizeRequest (spec 001 C12/C14, Authorization rule 7)
    configurable = frozenset({"local_authorization"})
    local_authorization = False

    def __init__(self, profile: Profile, version: OcppVersion, *, identity: str | None = None,
                 password: str | bytes | None = None, wirelog: WireLog | None = None,
                 call_timeout: float | None = None):
        self.profile = profile
        self.version = version
        self.identity = identity or profile.identity
        self.password = password if password is not None else profile.password
        self.wirelog = wirelog
        self.call_timeout = call_timeout or profile.timeouts.call
        self.evses = {e.id: EvseState(e) for e in profile.evses}
        self.vendors = VendorRegistry.from_profile(profile)
        self.background = Background()
        self.connection: OcppConnection | None = None
        self.csms_url: str | None = None
        self.boot_response: dict | None = None
        self.boot_reason = "PowerUp"
        self.smart = sc.Station(evse_ids=frozenset(self.evses), smart_charging=profile.feature("smart_charging"),
                                phases=min(e.phases for e in profile.evses))
        self.profiles = sc.ProfileStore()

    # ------------------------------------------------------------ lifecycle
    async def connect(self, csms_url: str, *, boot: bool = True, offered: list[str] | None = None) -> Handshake:
        self.csms_url = csms_url
        handshake = await open_station(
            csms_url, self.identity, versions=offered or [self.version], password=self.password,
            handler=self._handle, call_timeout=self.call_timeout, wirelog=self.wirelog)
        self.connection = handshake.connection
        if boot and handshake.subprotocol is not None:
            await self.boot()
        return handshake

    async def boot(self) -> dict:
        self.boot_response = await self.call("BootNotification", self.boot_payload())
        if self.boot_response.get("status") == "Accepted":
            for state in self.evses.values():
                for connector in state.evse.connectors:
                    await self.call("StatusNotification", self.status_payload(state.evse.id, connector, "Available"))
        return self.boot_response

    async def stop(self) -> None:
        await self.background.cancel_all()
        if self.connection is not None:
            await self.connection.close()

    async def call(self, action: str, payload: dict[str, Any]) -> dict[str, Any]:
        if self.connection is None:
            raise HarnessError("the station is not connected")
        return await self.connection.call(action, payload)

    async def _handle(self, call: Call) -> dict[str, Any]:
        return await self.dispatch(None, call)

    # ------------------------------------------------------------ payloads
    def boot_payload(self) -> dict:
        return {"chargingStation": {"model": self.profile.get("station.model", "reference"),
                                    "vendorName": self.profile.get("station.vendor", "evse-conformance")},
                "reason": self.boot_reason}

    def status_payload(self, evse_id: int, connector_id: int, status: str) -> dict:
        return {"timestamp": now_iso(), "connectorStatus": status, "evseId": evse_id, "connectorId": connector_id}

    def _event(self, state: EvseState, event_type: str, trigger: str, **info: Any) -> dict:
        tx = state.transaction
        payload: dict[str, Any] = {
            "eventType": event_type, "timestamp": now_iso(), "triggerReason": trigger, "seqNo": tx.seq_no,
            "transactionInfo": {"transactionId": tx.id, **info},
            "evse": {"id": state.evse.id, "connectorId": state.evse.connectors[0]},
        }
        tx.seq_no += 1
        return payload

    # ------------------------------------------------------------ transactions
    async def start_transaction(self, state: EvseState, trigger: str, id_token: dict | None,
                                remote_start_id: int | None = None) -> None:
        state.transaction = StationTransaction(str(uuid.uuid4()), id_token, state.group, remote_start_id=remote_start_id)
        self.smart.transactions[state.evse.id] = sc.Transaction(state.transaction.id, datetime.now(timezone.utc))
        info: dict[str, Any] = {"chargingState": "Charging" if state.plugged else "Idle"}
        if remote_start_id is not None:
            info["remoteStartId"] = remote_start_id
        payload = self._event(state, "Started", trigger, **info)
        if id_token is not None:
            payload["idToken"] = id_token
        response = await self.call("TransactionEvent", payload)
        await self._after_event(state, response)

    async def end_transaction(self, state: EvseState, trigger: str, stopped_reason: str,
                              id_token: dict | None = None) -> None:
        if state.transaction is None:
            return
        payload = self._event(state, "Ended", trigger, stoppedReason=stopped_reason)
        if id_token is not None:
            payload["idToken"] = id_token
        state.transaction, state.authorized, state.group = None, None, None
        self.profiles.end_transaction(self.smart, state.evse.id)
        await self.call("TransactionEvent", payload)

    async def _after_event(self, state: EvseState, response: dict) -> None:
        status = response.get("idTokenInfo", {}).get("status", "Accepted")
        if status != "Accepted" and state.transaction is not None:
            await self.end_transaction(state, "Deauthorized", "DeAuthorized")

    def _evse_for_token(self, id_token: dict, evse_id: int | None) -> EvseState:
        if evse_id is not None:
            return self.evses[evse_id]
        for state in self.evses.values():
            if state.transaction and state.transaction.id_token and token_key(state.transaction.id_token) == token_key(id_token):
                return state
        return next((s for s in self.evses.values() if not s.busy), next(iter(self.evses.values())))

    async def authorize(self, id_token: dict) -> dict:
        return (await self.call("Authorize", {"idToken": id_token}))["idTokenInfo"]

    async def _present(self, id_token: dict, evse_id: int | None) -> None:
        state = self._evse_for_token(id_token, evse_id)
        tx = state.transaction
        if tx is not None:
            if tx.id_token and token_key(tx.id_token) == token_key(id_token):
                await self.end_transaction(state, "StopAuthorized", "Local", id_token)
                return
            info = await self.authorize(id_token)
            if info["status"] == "Accepted" and tx.group and info.get("groupIdToken") \
                    and token_key(info["groupIdToken"]) == token_key(tx.group):
                await self.end_transaction(state, "StopAuthorized", "Local", id_token)
            return
        info = {"status": "Accepted"} if self.local_authorization else await self.authorize(id_token)
        if info["status"] != "Accepted":
            return
        allowed = info.get("evseId")
        if allowed and state.evse.id not in allowed:
            return
        state.authorized, state.group = id_token, info.get("groupIdToken")
        if state.plugged:
            await self.start_transaction(state, "Authorized", id_token)

    # ------------------------------------------------------------ actuator actions
    async def act_present_id_token(self, id_token: dict, evse_id: int | None = None) -> None:
        self.background.spawn(self._present(id_token, evse_id))

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

    async def act_data_transfer(self, vendor_id: str, message_id: str | None = None, data: Any = None) -> None:
        payload: dict[str, Any] = {"vendorId": vendor_id}
        if message_id is not None:
            payload["messageId"] = message_id
        if data is not None:
            payload["data"] = data
        self.background.spawn(self.call("DataTransfer", payload))

    # ------------------------------------------------------------ CSMS → CS
    def on_RequestStartTransaction(self, _: None, payload: dict) -> dict:
        evse_id = payload.get("evseId")
        state = self.evses.get(evse_id) if evse_id is not None else \
            next((s for s in self.evses.values() if not s.busy), None)
        if state is None or state.busy:
            return {"status": "Rejected"}
        self.background.spawn(self.start_transaction(
            state, "RemoteStart", payload["idToken"], remote_start_id=payload["remoteStartId"]))
        return {"status": "Accepted"}

    def on_RequestStopTransaction(self, _: None, payload: dict) -> dict:
        for state in self.evses.values():
            if state.transaction and state.transaction.id == payload["transactionId"]:
                self.background.spawn(self.end_transaction(state, "RemoteStop", "Remote"))
                return {"status": "Accepted"}
        return {"status": "Rejected"}

    def on_Reset(self, _: None, payload: dict) -> dict:
        """Reset: Immediate, or OnIdle while idle, is Accepted and the station restarts (OnIdle during a
        transaction is Rejected: this station does not schedule resets)."""
        if payload["type"] == "OnIdle" and any(state.busy for state in self.evses.values()):
            return {"status": "Rejected"}
        self.background.spawn(self._restart(payload["type"]))
        return {"status": "Accepted"}

    async def _restart(self, kind: str) -> None:
        """After the answer: running transactions end (ImmediateReset: an OnIdle reset finds none), the
        connection closes, and the station connects again and boots with reason RemoteReset."""
        await asyncio.sleep(0)
        for state in self.evses.values():
            if state.busy:
                await self.end_transaction(state, "ResetCommand", "ImmediateReset")
        self.boot_reason = "RemoteReset"
        await self.connection.close()
        await self.connect(self.csms_url)

    def on_DataTransfer(self, _: None, payload: dict) -> dict:
        return self.vendors.answer(payload)

    # ------------------------------------------------------------ smart charging (engine)
    def on_SetChargingProfile(self, _: None, payload: dict) -> dict:
        decision = sc.answer_set_charging_profile(self.profiles, self.smart, payload, ENGINE_VERSION)
        if decision.call_error:
            raise CallErrorReply(decision.call_error, decision.detail)
        return decision.response()

    def on_GetCompositeSchedule(self, _: None, payload: dict) -> dict:
        return sc.answer_get_composite_schedule(self.profiles, self.smart, payload, ENGINE_VERSION,
                                                datetime.now(timezone.utc))

    def on_ClearChargingProfile(self, _: None, payload: dict) -> dict:
        return sc.answer_clear_charging_profile(self.profiles, payload, ENGINE_VERSION)

    def on_GetChargingProfiles(self, _: None, payload: dict) -> dict:
        report = self.profiles.report(sc.report_criteria(payload))

        async def send_reports() -> None:
            for request in report.requests:
                await self.call("ReportChargingProfiles", request)

        self.background.spawn(send_reports())
        return report.response()


# The engine speaks 2.0.1 smart charging (spec 001); 2.1 keeps those fields.
ENGINE_VERSION = OcppVersion.V201
