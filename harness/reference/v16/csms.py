"""The reference central system for OCPP 1.6-J. It plays the harness's central system when the SUT
is a charge point, and stands in as the SUT when the harness plays the charge point.

It is the 2.x ReferenceCsms on the same server, RPC and schema core, with the 1.6 messages:
- BootNotification: the registration status set for the station (Accepted by default), with the
  heartbeat interval when Accepted and the retry interval otherwise (1.6 section 4.2); registration
  Pending is where the central system may query and configure the charge point (spec 002 moves).
- Authorize, StartTransaction, StopTransaction: IdTagInfo from the TokenStore (1.6 decision, the
  group as parentIdTag); ConcurrentTx only for a StartTransaction whose idTag already charges
  (AuthorizationStatus); StartTransaction gets a fresh integer transactionId.
- StatusNotification, MeterValues: recorded and answered empty; Heartbeat and DataTransfer: as 2.x.
- Basic auth: the password is the station's 20-byte AuthorizationKey (Authentication 3). Key
  rotation (Authentication 4): the next boot is answered Pending, ChangeConfiguration sets
  AuthorizationKey to a new key in hex, and after Accepted the connection is closed; from then on
  only the new key opens a connection.
"""

from __future__ import annotations

import asyncio
import itertools
import secrets
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from harness.errors import HarnessError, PeerViolation
from harness.ocpp.v16 import AUTHORIZATION_KEY
from harness.ocpp.versions import OcppVersion
from harness.profile import Profile
from harness.reference.common import now_iso
from harness.reference.csms import ReferenceCsms
from harness.reference.v16.config import new_authorization_key
from harness.reference.v16.station import v16_actions
from harness.transport.ws import CallFailed, OcppConnection
from harness.wire import WireLog

REGISTRATION_STATUSES = ("Accepted", "Pending", "Rejected")


@dataclass
class CentralTransaction:
    id: int
    connector_id: int
    id_tag: str
    start: dict
    meter_values: list[dict] = field(default_factory=list)
    stop: dict | None = None

    @property
    def ended(self) -> bool:
        return self.stop is not None


@dataclass
class ChargePointSession:
    """What the central system knows of one charge point; it outlives the connection."""
    identity: str
    version: OcppVersion
    connection: OcppConnection | None = None
    registration: str | None = None
    statuses: dict[int, str] = field(default_factory=dict)
    transactions: dict[int, CentralTransaction] = field(default_factory=dict)

    def charging_tags(self) -> set[str]:
        return {t.id_tag.casefold() for t in self.transactions.values() if not t.ended}


class ReferenceCsms16(ReferenceCsms):
    heartbeat_interval = 300
    retry_interval = 1   # BootNotification.conf interval when not Accepted: the wait before the next boot
    configurable = frozenset({"heartbeat_interval", "retry_interval", "registration", "rotate_on_boot"})

    def __init__(self, profile: Profile, versions: Sequence[OcppVersion], *, wirelog: WireLog | None = None,
                 call_timeout: float | None = None):
        super().__init__(profile, versions, wirelog=wirelog, call_timeout=call_timeout)
        self.keys: dict[str, bytes] = {profile.identity: profile.authorization_key} if profile.authorization_key else {}
        self.server.check_password = self.check_password if self.keys else None
        self.registration = "Accepted"
        self.rotate_on_boot = False
        self.unreachable: set[str] = set()
        self._transaction_ids = itertools.count(secrets.randbelow(10_000) + 1)

    supported_actions = v16_actions(ReferenceCsms, shared={"data_transfer"})

    def accepts_identity(self, identity: str) -> bool:
        return identity not in self.unreachable and super().accepts_identity(identity)

    async def cut(self, identity: str | None = None) -> None:
        """The harness's side of an outage: the charge point's connection closes, reconnecting is refused."""
        identity = identity or self.profile.identity
        self.unreachable.add(identity)
        session = self.sessions.get(identity)
        if session is not None and session.connection is not None:
            await session.connection.close()

    def restore(self, identity: str | None = None) -> None:
        self.unreachable.discard(identity or self.profile.identity)

    def check_password(self, identity: str, password: bytes) -> bool:
        key = self.keys.get(identity)
        return key is not None and secrets.compare_digest(password, key)

    def _on_connect(self, identity: str, version: OcppVersion):
        session = self.sessions.get(identity)
        if session is None or session.version is not version:
            session = self.sessions[identity] = ChargePointSession(identity, version)

        async def handler(call):
            return await self.dispatch(session, call)

        async def attach(connection: OcppConnection) -> None:
            session.connection = connection

        return handler, attach

    # ------------------------------------------------------------ CP → CS
    def on_BootNotification(self, session: ChargePointSession, payload: dict) -> dict:
        status = "Pending" if self.rotate_on_boot else self.registration
        session.registration = status
        if self.rotate_on_boot:
            self.background.spawn(self.rotate_key(session))
        interval = self.heartbeat_interval if status == "Accepted" else self.retry_interval
        return {"currentTime": now_iso(), "interval": interval, "status": status}

    def on_StatusNotification(self, session: ChargePointSession, payload: dict) -> dict:
        session.statuses[payload["connectorId"]] = payload["status"]
        return {}

    def id_tag_info(self, session: ChargePointSession, id_tag: str, *, charging: bool = False) -> dict:
        return self.tokens.decide16(id_tag, station=session.identity, currents={e.current for e in self.profile.evses},
                                    in_transaction=charging)

    def on_Authorize(self, session: ChargePointSession, payload: dict) -> dict:
        return {"idTagInfo": self.id_tag_info(session, payload["idTag"])}

    def on_StartTransaction(self, session: ChargePointSession, payload: dict) -> dict:
        info = self.id_tag_info(session, payload["idTag"],
                                charging=payload["idTag"].casefold() in session.charging_tags())
        tx = CentralTransaction(next(self._transaction_ids), payload["connectorId"], payload["idTag"], payload)
        session.transactions[tx.id] = tx
        return {"transactionId": tx.id, "idTagInfo": info}

    def on_MeterValues(self, session: ChargePointSession, payload: dict) -> dict:
        tx = session.transactions.get(payload.get("transactionId"))
        if tx is not None:
            tx.meter_values.append(payload)
        return {}

    def on_StopTransaction(self, session: ChargePointSession, payload: dict) -> dict:
        tx = session.transactions.get(payload["transactionId"])
        if tx is not None:
            tx.stop = payload
        return {"idTagInfo": self.id_tag_info(session, payload["idTag"])} if "idTag" in payload else {}

    # ------------------------------------------------------------ key rotation (Authentication 4)
    async def rotate_key(self, session: ChargePointSession) -> None:
        await asyncio.sleep(0)   # the Pending answer goes out first
        new = new_authorization_key(session.identity)
        try:
            answer = await session.connection.call("ChangeConfiguration", {"key": AUTHORIZATION_KEY, "value": new.hex()})
        except (CallFailed, PeerViolation, HarnessError):
            return
        if answer["status"] == "Accepted":
            self.keys[session.identity] = new
            if session.identity == self.profile.identity:
                self.profile.key_rotated(new)
            self.rotate_on_boot = False
            await session.connection.close()

    # ------------------------------------------------------------ CS → CP (actuator actions)
    def _send(self, station: str | None, action: str, payload: dict[str, Any]) -> None:
        self.background.spawn(self.session(station).connection.call(action, payload))

    async def act_set_registration(self, status: str) -> None:
        """How the next BootNotifications are answered: Accepted, Pending or Rejected."""
        if status not in REGISTRATION_STATUSES:
            raise HarnessError(f"registration status {status!r} is not one of {REGISTRATION_STATUSES}")
        self.registration = status

    async def act_rotate_authorization_key(self) -> None:
        """Rotate the station's key at its next boot (Authentication 4)."""
        self.rotate_on_boot = True

    async def act_remote_start_transaction(self, id_tag: str, connector_id: int | None = None,
                                           station: str | None = None) -> None:
        self._send(station, "RemoteStartTransaction",
                   {"idTag": id_tag} | ({"connectorId": connector_id} if connector_id is not None else {}))

    async def act_remote_stop_transaction(self, transaction_id: int, station: str | None = None) -> None:
        self._send(station, "RemoteStopTransaction", {"transactionId": transaction_id})

    async def act_get_configuration(self, keys: list[str] | None = None, station: str | None = None) -> None:
        self._send(station, "GetConfiguration", {"key": keys} if keys else {})

    async def act_change_configuration(self, key: str, value: str, station: str | None = None) -> None:
        self._send(station, "ChangeConfiguration", {"key": key, "value": value})

    async def act_reset(self, type: str, station: str | None = None) -> None:
        self._send(station, "Reset", {"type": type})
