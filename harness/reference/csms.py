"""The reference CSMS for OCPP 2.0.1 and 2.1 (authorization, transactions, remote start
and stop, data transfer). It plays the harness's CSMS when the SUT is a charging station,
and stands in as the SUT when the harness plays the station.

Behavior, with its source:
- BootNotification Accepted with a heartbeat interval; Heartbeat with the current time.
- Authorize: the TokenStore's order of checks (spec 001, Authorization rules, order of checks).
- TransactionEvent: a token carried in the event is checked again and answered with
  idTokenInfo (spec 001 Authorization rule 7, rule 9 for offline events).
- RequestStartTransaction with a fresh Central idToken and a unique remoteStartId; the
  transaction is correlated by transactionInfo.remoteStartId (spec 001 Remote start rule 1).
- DataTransfer: the VendorRegistry (spec 001 DataTransfer moves).
"""

from __future__ import annotations

import itertools
import secrets
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from harness.ocpp.framing import Call
from harness.ocpp.versions import OcppVersion
from harness.profile import Profile
from harness.reference.common import Actions, Background, Dispatcher, now_iso
from harness.reference.tokens import TokenStore, token_key
from harness.reference.vendors import VendorRegistry
from harness.transport.ws import OcppConnection, OcppServer
from harness.wire import WireLog


@dataclass
class Transaction:
    id: str
    evse_id: int | None
    id_token: dict | None
    remote_start_id: int | None = None
    ended: bool = False


@dataclass
class StationSession:
    identity: str
    version: OcppVersion
    connection: OcppConnection | None = None
    booted: bool = False
    transactions: dict[str, Transaction] = field(default_factory=dict)

    def active_tokens(self) -> set[tuple[str, str]]:
        return {token_key(t.id_token) for t in self.transactions.values() if not t.ended and t.id_token}


class ReferenceCsms(Dispatcher, Actions):
    heartbeat_interval = 300
    configurable = frozenset({"heartbeat_interval"})

    def __init__(self, profile: Profile, versions: Sequence[OcppVersion], *, wirelog: WireLog | None = None,
                 call_timeout: float | None = None):
        self.profile = profile
        self.versions = list(versions)
        self.tokens = TokenStore.from_profile(profile)
        self.vendors = VendorRegistry.from_profile(profile)
        self.sessions: dict[str, StationSession] = {}
        self.background = Background()
        self._remote_start_ids = itertools.count(secrets.randbelow(10_000) + 1)
        self.server = OcppServer(
            versions=self.versions, on_connect=self._on_connect, accept_identity=self.accepts_identity,
            check_password=self.check_password if profile.password else None,
            call_timeout=call_timeout or profile.timeouts.call, wirelog=wirelog)

    # ------------------------------------------------------------ lifecycle
    async def start(self, host: str = "127.0.0.1", port: int = 0) -> "ReferenceCsms":
        await self.server.start(host, port)
        return self

    async def stop(self) -> None:
        await self.background.cancel_all()
        await self.server.stop()

    @property
    def url(self) -> str:
        return self.server.url

    def accepts_identity(self, identity: str) -> bool:
        return identity == self.profile.identity

    def check_password(self, identity: str, password: bytes) -> bool:
        return secrets.compare_digest(password, (self.profile.password or "").encode())

    def _on_connect(self, identity: str, version: OcppVersion):
        session = StationSession(identity, version)
        self.sessions[identity] = session

        async def handler(call: Call) -> dict[str, Any]:
            return await self.dispatch(session, call)

        async def attach(connection: OcppConnection) -> None:
            session.connection = connection

        return handler, attach

    def session(self, identity: str | None = None) -> StationSession:
        identity = identity or self.profile.identity
        if identity not in self.sessions:
            raise LookupError(f"station {identity} is not connected")
        return self.sessions[identity]

    # ------------------------------------------------------------ CS → CSMS
    def on_BootNotification(self, session: StationSession, payload: dict) -> dict:
        session.booted = True
        return {"currentTime": now_iso(), "interval": self.heartbeat_interval, "status": "Accepted"}

    def on_Heartbeat(self, session: StationSession, payload: dict) -> dict:
        return {"currentTime": now_iso()}

    def on_StatusNotification(self, session: StationSession, payload: dict) -> dict:
        return {}

    def on_MeterValues(self, session: StationSession, payload: dict) -> dict:
        return {}

    def on_NotifyEvent(self, session: StationSession, payload: dict) -> dict:
        return {}

    def id_token_info(self, session: StationSession, id_token: dict, *, current_tx: str | None = None) -> dict:
        active = {token_key(t.id_token) for t in session.transactions.values()
                  if not t.ended and t.id_token and t.id != current_tx}
        currents = {e.current for e in self.profile.evses}
        return self.tokens.decide(id_token, station=session.identity, currents=currents,
                                  in_transaction=token_key(id_token) in active)

    def on_Authorize(self, session: StationSession, payload: dict) -> dict:
        return {"idTokenInfo": self.id_token_info(session, payload["idToken"])}

    def on_TransactionEvent(self, session: StationSession, payload: dict) -> dict:
        info = payload["transactionInfo"]
        tx = session.transactions.get(info["transactionId"])
        if tx is None:
            tx = Transaction(info["transactionId"], payload.get("evse", {}).get("id"), payload.get("idToken"))
            session.transactions[tx.id] = tx
        if "remoteStartId" in info:
            tx.remote_start_id = info["remoteStartId"]
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
        return {"idTokenInfo": self.id_token_info(session, id_token, current_tx=tx.id)}

    def issued_by_us(self, session: StationSession, id_token: dict) -> bool:
        """A Central token this CSMS sent in a RequestStartTransaction on this connection."""
        if id_token.get("type") != "Central" or session.connection is None:
            return False
        return any(not e.incoming and e.action == "RequestStartTransaction"
                   and token_key(e.request["idToken"]) == token_key(id_token) for e in session.connection.history)

    def on_DataTransfer(self, session: StationSession, payload: dict) -> dict:
        return self.vendors.answer(payload)

    def on_ReportChargingProfiles(self, session: StationSession, payload: dict) -> dict:
        return {}

    def on_NotifyChargingLimit(self, session: StationSession, payload: dict) -> dict:
        return {}

    def on_ClearedChargingLimit(self, session: StationSession, payload: dict) -> dict:
        return {}

    # ------------------------------------------------------------ CSMS → CS (actuator actions)
    def central_id_token(self) -> dict:
        """A fresh server-generated token for an app start (spec 001 Remote start rule 1)."""
        return {"idToken": "APP-" + secrets.token_hex(8).upper(), "type": "Central"}

    async def act_request_start_transaction(self, evse_id: int | None = None, id_token: dict | None = None,
                                            remote_start_id: int | None = None, station: str | None = None) -> None:
        payload: dict[str, Any] = {"idToken": id_token or self.central_id_token(),
                                   "remoteStartId": remote_start_id if remote_start_id is not None
                                   else next(self._remote_start_ids)}
        if evse_id is not None:
            payload["evseId"] = evse_id
        self.background.spawn(self.session(station).connection.call("RequestStartTransaction", payload))

    async def act_request_stop_transaction(self, transaction_id: str, station: str | None = None) -> None:
        self.background.spawn(self.session(station).connection.call(
            "RequestStopTransaction", {"transactionId": transaction_id}))

    async def act_data_transfer(self, vendor_id: str, message_id: str | None = None, data: Any = None,
                                station: str | None = None) -> None:
        payload: dict[str, Any] = {"vendorId": vendor_id}
        if message_id is not None:
            payload["messageId"] = message_id
        if data is not None:
            payload["data"] = data
        self.background.spawn(self.session(station).connection.call("DataTransfer", payload))

    async def act_set_charging_profile(self, evse_id: int, charging_profile: dict, station: str | None = None) -> None:
        self.background.spawn(self.session(station).connection.call(
            "SetChargingProfile", {"evseId": evse_id, "chargingProfile": charging_profile}))

    async def act_get_composite_schedule(self, evse_id: int, duration: int, charging_rate_unit: str | None = None,
                                         station: str | None = None) -> None:
        payload: dict[str, Any] = {"evseId": evse_id, "duration": duration}
        if charging_rate_unit is not None:
            payload["chargingRateUnit"] = charging_rate_unit
        self.background.spawn(self.session(station).connection.call("GetCompositeSchedule", payload))
