"""An example OCPP 1.6-J system under test built on the `ocpp` library (mobilityhouse), with the
HTTP actuator the harness drives it through; the 1.6 sibling of ocpp_lib_sut.py, whose actuator,
listener and reconnect loop it reuses.

    python examples/ocpp16_lib_sut.py csms --port 9000 --actuator-port 9100 \
        --profile profiles/example-csms-ocpp16.toml
    python examples/ocpp16_lib_sut.py cs --csms-url ws://127.0.0.1:9000/ocpp --actuator-port 9101 \
        --profile profiles/example-cs-ocpp16.toml

csms  a 1.6 central system: stations are ``ocpp.v16.ChargePoint`` objects answering BootNotification
      (with the registration status it was set to), Heartbeat, StatusNotification, Authorize,
      StartTransaction, MeterValues, StopTransaction and DataTransfer from the profile's [station],
      [tokens] (the group is the parentIdTag) and [data_transfer]. Basic auth with the 20-byte
      AuthorizationKey; key rotation: the next boot is Pending, ChangeConfiguration AuthorizationKey,
      close, and only the new key opens a connection.
      Actions: set_registration, rotate_authorization_key, remote_start_transaction,
      remote_stop_transaction, get_configuration, change_configuration, reset, data_transfer,
      change_availability, unlock_connector, clear_cache, and the optional profiles' get_local_list_version,
      send_local_list, reserve_now, cancel_reservation, trigger_message, update_firmware, get_diagnostics
      (sent as asked).
cs    a 1.6 charge point with the profile's identity, AuthorizationKey and connectors (numbered 1..N
      over the [station] evse list). Actions: present_id_tag, plug_in, unplug, data_transfer. Core only:
      ChangeAvailability (Scheduled while charging), UnlockConnector (the transaction stopped first),
      ClearCache Rejected (it keeps no authorization cache).
      Like a real charge point its state (transactions, configuration, key, the queue of
      StartTransaction/MeterValues/StopTransaction) outlives a connection; it reconnects 0.2 s after
      a close, and boots only after a start or a Reset, or while not yet Accepted (behaviour rule 4).
      The harness's tests that need a boot restart it with Reset.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import secrets
from collections import deque
from dataclasses import dataclass, field
from http import HTTPStatus
from typing import Any, Callable

from ocpp.routing import after, on
from ocpp.v16 import ChargePoint, call, call_result
from ocpp.v16.enums import Action

from ocpp_lib_sut import (
    Background, Tasks, basic_auth_header, basic_auth_ok, data_transfer_status, identity_of, listening, main, now,
    reconnecting,
)

SUBPROTOCOL = "ocpp1.6"
HEARTBEAT_INTERVAL = 300
RETRY_INTERVAL = 1        # BootNotification.conf interval when not Accepted: the wait before the next boot
ONLINE_WAIT = 5.0         # seconds an action waits for an accepted connection before it gives up
log = logging.getLogger("ocpp16_lib_sut")


class ExampleChargePoint16(Background, ChargePoint):
    """``ocpp.v16.ChargePoint`` with the profile's DataTransfer vendor, for both roles."""

    @on(Action.data_transfer)
    def on_data_transfer(self, vendor_id: str, message_id: str | None = None, data=None, **_):
        status = data_transfer_status(self.profile, vendor_id, message_id)
        return call_result.DataTransfer(status=status, data=data if status == "Accepted" else None)


def same_tag(a: str | None, b: str | None) -> bool:
    """IdToken is CiString20: compared case-insensitively."""
    return a is not None and b is not None and a.casefold() == b.casefold()


# ====================================================================== the central system
class CentralLink(ExampleChargePoint16):
    """One connected charge point, seen from the central system."""

    def __init__(self, identity: str, ws, central: "CentralSystem"):
        super().__init__(identity, ws, central.profile)
        self.central, self.ws = central, ws

    @on(Action.boot_notification)
    def on_boot_notification(self, charge_point_vendor: str, charge_point_model: str, **_):
        status = "Pending" if self.central.rotate_on_boot else self.central.registration
        return call_result.BootNotification(current_time=now(), status=status,
                                            interval=HEARTBEAT_INTERVAL if status == "Accepted" else RETRY_INTERVAL)

    @after(Action.boot_notification)
    def after_boot_notification(self, **_):
        if self.central.rotate_on_boot:
            self.spawn(self.central.rotate_key(self))

    @on(Action.heartbeat)
    def on_heartbeat(self, **_):
        return call_result.Heartbeat(current_time=now())

    @on(Action.status_notification)
    def on_status_notification(self, **_):
        return call_result.StatusNotification()

    @on(Action.authorize)
    def on_authorize(self, id_tag: str, **_):
        return call_result.Authorize(id_tag_info=self.central.id_tag_info(id_tag))

    @on(Action.start_transaction)
    def on_start_transaction(self, connector_id: int, id_tag: str, **_):
        info = self.central.id_tag_info(id_tag, starting=True)
        transaction_id = next(self.central.transaction_ids)
        self.central.open_tx[transaction_id] = id_tag.casefold()
        return call_result.StartTransaction(transaction_id=transaction_id, id_tag_info=info)

    @on(Action.meter_values)
    def on_meter_values(self, **_):
        return call_result.MeterValues()

    @on(Action.stop_transaction)
    def on_stop_transaction(self, transaction_id: int, id_tag: str | None = None, **_):
        self.central.open_tx.pop(transaction_id, None)
        return call_result.StopTransaction(id_tag_info=self.central.id_tag_info(id_tag) if id_tag else None)

    @on(Action.diagnostics_status_notification)
    def on_diagnostics_status_notification(self, **_):
        return call_result.DiagnosticsStatusNotification()

    @on(Action.firmware_status_notification)
    def on_firmware_status_notification(self, **_):
        return call_result.FirmwareStatusNotification()


class CentralSystem:
    ACTIONS = ("set_registration", "rotate_authorization_key", "remote_start_transaction",
               "remote_stop_transaction", "get_configuration", "change_configuration", "reset", "data_transfer",
               "change_availability", "unlock_connector", "clear_cache", "get_local_list_version", "send_local_list",
               "reserve_now", "cancel_reservation", "trigger_message", "update_firmware", "get_diagnostics")

    def __init__(self, profile: dict):
        self.profile = profile
        self.identity = profile["station"]["identity"]
        self.key = bytes.fromhex(profile["station"]["authorization_key"])
        self.tokens = {t["id"].casefold(): t for t in profile.get("tokens", {}).values()}
        self.registration = "Accepted"
        self.rotate_on_boot = False
        self.links: dict[str, CentralLink] = {}       # identity → its connection, booted or not (Pending)
        self.open_tx: dict[int, str] = {}              # transactionId → its idTag, casefolded
        self.transaction_ids = itertools.count(secrets.randbelow(10_000) + 1)

    def id_tag_info(self, id_tag: str, *, starting: bool = False) -> dict:
        """The profile's status for a known idTag, Invalid for an unknown one, the group as parentIdTag;
        ConcurrentTx (at StartTransaction only) for an accepted idTag already charging."""
        token = self.tokens.get(id_tag.casefold())
        if token is None:
            return {"status": "Invalid"}
        status = token["status"]
        if starting and status == "Accepted" and id_tag.casefold() in self.open_tx.values():
            status = "ConcurrentTx"
        return {"status": status, **({"parent_id_tag": token["group"]} if token.get("group") else {})}

    def check_upgrade(self, connection, request):
        """Before the upgrade: unknown identity → 404, a wrong AuthorizationKey → 401 (Authentication 3)."""
        identity = identity_of(request.path)
        if identity != self.identity:
            return connection.respond(HTTPStatus.NOT_FOUND, "unknown charge point\n")
        if not basic_auth_ok(request.headers.get("Authorization"), identity, self.key):
            response = connection.respond(HTTPStatus.UNAUTHORIZED, "wrong or missing AuthorizationKey\n")
            response.headers["WWW-Authenticate"] = 'Basic realm="OCPP"'
            return response
        return None

    async def on_connect(self, ws) -> None:
        link = self.links[identity_of(ws.request.path)] = CentralLink(identity_of(ws.request.path), ws, self)
        await link.serve()
        if self.links.get(link.id) is link:
            del self.links[link.id]

    async def rotate_key(self, link: CentralLink) -> None:
        """Authentication 4: a new key in hex while Pending; once Accepted it is the only key, and we close."""
        new = secrets.token_bytes(20)
        answer = await link.call(call.ChangeConfiguration(key="AuthorizationKey", value=new.hex()))
        if answer is not None and answer.status == "Accepted":
            self.key, self.rotate_on_boot = new, False
            await link.ws.close()

    def link(self, identity: str | None) -> CentralLink:
        try:
            return self.links[identity or self.identity]
        except KeyError:
            raise LookupError(f"charge point {identity or self.identity} is not connected") from None

    def send(self, station: str | None, payload) -> None:
        link = self.link(station)
        link.spawn(link.call(payload))

    async def run(self, port: int, stop: asyncio.Event) -> None:
        # OCPP 1.6 §Connection 5: no WebSocket compression. websockets refuses a client offering no
        # ocpp1.6 with HTTP 400, as in ocpp_lib_sut.py.
        await listening(self, port, SUBPROTOCOL, stop, compression=None)

    # ---- actuator actions: each returns at once
    async def set_registration(self, status: str) -> None:
        if status not in ("Accepted", "Pending", "Rejected"):
            raise ValueError(f"no registration status {status!r}")
        self.registration = status

    async def rotate_authorization_key(self) -> None:
        self.rotate_on_boot = True

    async def remote_start_transaction(self, id_tag: str, connector_id: int | None = None,
                                       station: str | None = None) -> None:
        self.send(station, call.RemoteStartTransaction(id_tag=id_tag, connector_id=connector_id))

    async def remote_stop_transaction(self, transaction_id: int, station: str | None = None) -> None:
        self.send(station, call.RemoteStopTransaction(transaction_id=transaction_id))

    async def get_configuration(self, keys: list[str] | None = None, station: str | None = None) -> None:
        self.send(station, call.GetConfiguration(key=keys or None))

    async def change_configuration(self, key: str, value: str, station: str | None = None) -> None:
        self.send(station, call.ChangeConfiguration(key=key, value=value))

    async def reset(self, type: str, station: str | None = None) -> None:
        self.send(station, call.Reset(type=type))

    async def data_transfer(self, vendor_id: str, message_id: str | None = None, data=None,
                            station: str | None = None) -> None:
        self.send(station, call.DataTransfer(vendor_id=vendor_id, message_id=message_id, data=data))

    async def change_availability(self, connector_id: int, type: str, station: str | None = None) -> None:
        self.send(station, call.ChangeAvailability(connector_id=connector_id, type=type))

    async def unlock_connector(self, connector_id: int, station: str | None = None) -> None:
        self.send(station, call.UnlockConnector(connector_id=connector_id))

    async def clear_cache(self, station: str | None = None) -> None:
        self.send(station, call.ClearCache())

    async def get_local_list_version(self, station: str | None = None) -> None:
        self.send(station, call.GetLocalListVersion())

    async def send_local_list(self, list_version: int, update_type: str, local_authorization_list=None,
                              station: str | None = None) -> None:
        # AuthorizationData arrives in 1.6 camelCase; the library wants its snake_case keys
        entries = [{"id_tag": e["idTag"], **({"id_tag_info": {snake(k): v for k, v in e["idTagInfo"].items()}}
                                             if "idTagInfo" in e else {})} for e in local_authorization_list or []]
        self.send(station, call.SendLocalList(list_version=list_version, update_type=update_type,
                                              local_authorization_list=entries))

    async def reserve_now(self, connector_id: int, expiry_date: str, id_tag: str, reservation_id: int,
                          parent_id_tag: str | None = None, station: str | None = None) -> None:
        self.send(station, call.ReserveNow(connector_id=connector_id, expiry_date=expiry_date, id_tag=id_tag,
                                           reservation_id=reservation_id, parent_id_tag=parent_id_tag))

    async def cancel_reservation(self, reservation_id: int, station: str | None = None) -> None:
        self.send(station, call.CancelReservation(reservation_id=reservation_id))

    async def trigger_message(self, requested_message: str, connector_id: int | None = None,
                              station: str | None = None) -> None:
        self.send(station, call.TriggerMessage(requested_message=requested_message, connector_id=connector_id))

    async def update_firmware(self, location: str, retrieve_date: str, retries: int | None = None,
                              retry_interval: int | None = None, station: str | None = None) -> None:
        self.send(station, call.UpdateFirmware(location=location, retrieve_date=retrieve_date, retries=retries,
                                               retry_interval=retry_interval))

    async def get_diagnostics(self, location: str, retries: int | None = None, retry_interval: int | None = None,
                              station: str | None = None) -> None:
        self.send(station, call.GetDiagnostics(location=location, retries=retries, retry_interval=retry_interval))


def snake(name: str) -> str:
    return "".join(f"_{c.lower()}" if c.isupper() else c for c in name)


# ====================================================================== the charge point
MEASURANDS = {"Energy.Active.Import.Register"}


@dataclass
class Setting:
    value: str | None
    readonly: bool = False
    accepts: Callable[[str], bool] = str.isdigit
    secret: bool = False      # write-only: never reported (the AuthorizationKey)


def configuration(connectors: int, key: bytes) -> dict[str, Setting]:
    return {
        "SupportedFeatureProfiles": Setting("Core", readonly=True),
        "NumberOfConnectors": Setting(str(connectors), readonly=True),
        "HeartbeatInterval": Setting(str(HEARTBEAT_INTERVAL)),
        "MeterValueSampleInterval": Setting("0"),
        "MeterValuesSampledData": Setting("Energy.Active.Import.Register",
                                          accepts=lambda v: bool(v) and set(v.split(",")) <= MEASURANDS),
        "TransactionMessageAttempts": Setting("3"),
        "TransactionMessageRetryInterval": Setting("10"),
        "AuthorizeRemoteTxRequests": Setting("false", accepts=lambda v: v.lower() in ("true", "false")),
        "AuthorizationKey": Setting(key.hex(), secret=True, accepts=lambda v: len(v) == 40 and is_hex(v)),
    }


def is_hex(value: str) -> bool:
    try:
        bytes.fromhex(value)
    except ValueError:
        return False
    return True


@dataclass
class Transaction:
    id_tag: str
    parent: str | None
    id: int | None = None             # from StartTransaction.conf (it may come later, when offline)
    sampler: asyncio.Task | None = None
    numbered: asyncio.Event = field(default_factory=asyncio.Event)   # set once the id is known


@dataclass
class Connector:
    id: int
    register: int = 0                 # Energy.Active.Import.Register, Wh: never decreases
    plugged: bool = False
    authorized: tuple[str, str | None] | None = None   # (idTag, parentIdTag) accepted, waiting for the cable
    tx: Transaction | None = None
    status: str = "Available"
    operative: bool = True            # ChangeAvailability: an Inoperative connector is Unavailable when idle

    def read(self) -> int:
        self.register += 10 + secrets.randbelow(10)
        return self.register


@dataclass
class Queued:
    """A transaction message waiting for its CALLRESULT (behaviour rules 1 and 2). ``payload()`` is
    built when it is sent: a StopTransaction queued offline learns its transactionId then."""
    payload: Callable[[], Any]
    on_result: Callable[[Any], None] = lambda result: None
    failures: int = 0


class ChargePointLink(ExampleChargePoint16):
    """The charge point on one connection: the central system's CALLs go to the ChargePoint16 state."""

    def __init__(self, identity: str, ws, station: "ChargePoint16"):
        super().__init__(identity, ws, station.profile)
        self.station, self.ws = station, ws

    @on(Action.reset)
    def on_reset(self, type: str, **_):
        return call_result.Reset(status="Accepted")

    @after(Action.reset)
    def after_reset(self, type: str, **_):
        self.station.tasks.spawn(self.station.restart(type))

    @on(Action.get_configuration)
    def on_get_configuration(self, key: list[str] | None = None, **_):
        settings = self.station.config
        reported = [k for k in (key or settings) if k in settings]
        return call_result.GetConfiguration(
            configuration_key=[{"key": k, "readonly": settings[k].readonly,
                                **({} if settings[k].secret else {"value": settings[k].value})} for k in reported],
            unknown_key=[k for k in key or () if k not in settings] or None)

    @on(Action.change_configuration)
    def on_change_configuration(self, key: str, value: str, **_):
        return call_result.ChangeConfiguration(status=self.station.change(key, value))

    @on(Action.remote_start_transaction)
    def on_remote_start_transaction(self, id_tag: str, connector_id: int | None = None, **_):
        connector = self.station.free_connector(connector_id)
        if connector is None:
            return call_result.RemoteStartTransaction(status="Rejected")
        connector.authorized = (id_tag, None)     # AuthorizeRemoteTxRequests is false: no Authorize
        return call_result.RemoteStartTransaction(status="Accepted")

    @after(Action.remote_start_transaction)
    def after_remote_start_transaction(self, id_tag: str, connector_id: int | None = None, **_):
        connector = next((c for c in self.station.connectors.values()
                          if c.authorized and c.authorized[0] == id_tag and c.tx is None), None)
        if connector is not None and connector.plugged:
            self.station.tasks.spawn(self.station.start(connector))

    @on(Action.change_availability)
    def on_change_availability(self, connector_id: int, type: str, **_):
        chosen = self.station.connectors_at(connector_id)
        if not chosen:
            return call_result.ChangeAvailability(status="Rejected")
        for connector in chosen:
            connector.operative = type == "Operative"
            if connector.tx is None:
                self.station.tasks.spawn(self.station.set_status(connector, "Available", changed_only=True))
        busy = type == "Inoperative" and any(c.tx is not None for c in chosen)
        return call_result.ChangeAvailability(status="Scheduled" if busy else "Accepted")

    @on(Action.clear_cache)
    def on_clear_cache(self, **_):
        return call_result.ClearCache(status="Rejected")      # this example keeps no authorization cache

    @on(Action.unlock_connector)
    def on_unlock_connector(self, connector_id: int, **_):
        connector = self.station.connectors.get(connector_id)
        if connector is None:
            return call_result.UnlockConnector(status="NotSupported")
        if connector.tx is not None:                           # the transaction is stopped first
            self.station.tasks.spawn(self.station.stop(connector, "UnlockCommand"))
        return call_result.UnlockConnector(status="Unlocked")

    @on(Action.remote_stop_transaction)
    async def on_remote_stop_transaction(self, transaction_id: int, **_):
        # The StartTransaction.conf with this id may be read but not yet handed to its caller: the
        # library routes the next CALL first. Wait briefly for transactions whose id is on its way.
        if self.station.running(transaction_id) is None:
            waits = [asyncio.create_task(c.tx.numbered.wait()) for c in self.station.connectors.values()
                     if c.tx and c.tx.id is None]
            if waits:
                await asyncio.wait(waits, timeout=1.0)
                for wait in waits:
                    wait.cancel()
        found = self.station.running(transaction_id) is not None
        return call_result.RemoteStopTransaction(status="Accepted" if found else "Rejected")

    @after(Action.remote_stop_transaction)
    def after_remote_stop_transaction(self, transaction_id: int, **_):
        connector = self.station.running(transaction_id)
        if connector is not None:
            self.station.tasks.spawn(self.station.stop(connector, "Remote"))


class ChargePoint16:
    """The charge point process: state that outlives connections, one ChargePointLink per connection."""
    ACTIONS = ("present_id_tag", "plug_in", "unplug", "data_transfer")

    def __init__(self, profile: dict):
        self.profile = profile
        self.identity = profile["station"]["identity"]
        self.key = bytes.fromhex(profile["station"]["authorization_key"])
        count = sum(len(e.get("connectors", [1])) for e in profile["station"]["evse"])
        self.connectors = {n: Connector(n) for n in range(1, count + 1)}
        self.config = configuration(count, self.key)
        self.queue: deque[Queued] = deque()
        self.queued = asyncio.Event()
        self.link: ChargePointLink | None = None
        self.registered = False                    # the last boot was Accepted (survives reconnections)
        self.accepted = asyncio.Event()            # ... and a connection is up
        self.tasks = Tasks(self.identity)          # what the driver started: outlives a connection

    def setting(self, key: str) -> int:
        return int(self.config[key].value)

    def change(self, key: str, value: str) -> str:
        setting = self.config.get(key)
        if setting is None:
            return "NotSupported"
        if setting.readonly or not setting.accepts(value):
            return "Rejected"
        setting.value = value
        if key == "AuthorizationKey":
            self.key = bytes.fromhex(value)        # the next connection's Basic-auth password
        return "Accepted"

    # ---- connections
    async def run(self, csms_url: str) -> None:
        await reconnecting(csms_url, self.identity, SUBPROTOCOL, self.on_connection,
                           lambda: basic_auth_header(self.identity, self.key), compression=None)

    async def on_connection(self, ws) -> None:
        self.link = ChargePointLink(self.identity, ws, self)
        # behaviour rule 4: once Accepted, a reconnection is no restart and sends no BootNotification
        self.link.spawn(self.online(self.link) if self.registered else self.boot(self.link))
        try:
            await self.link.serve()
        finally:
            self.link = None
            self.accepted.clear()

    async def boot(self, link: ChargePointLink) -> None:
        """1.6 section 4.2: BootNotification until Accepted, waiting the interval in between; then the
        connectors' status, and online."""
        station = self.profile["station"]
        while True:
            answer = await link.call(call.BootNotification(charge_point_vendor=station.get("vendor", "example"),
                                                           charge_point_model=station.get("model", "example")))
            if answer is not None and answer.status == "Accepted":
                break
            await asyncio.sleep(answer.interval if answer is not None and answer.interval > 0 else RETRY_INTERVAL)
        self.registered = True
        self.config["HeartbeatInterval"].value = str(answer.interval)
        await link.call(call.StatusNotification(connector_id=0, error_code="NoError", status="Available",
                                                timestamp=now()))
        for connector in self.connectors.values():
            await self.report(link, connector)
        await self.online(link)

    async def online(self, link: ChargePointLink) -> None:
        """Registered and connected: the queued transaction messages, then heartbeats."""
        self.accepted.set()
        link.spawn(self.deliver(link))
        while True:
            await asyncio.sleep(max(self.setting("HeartbeatInterval"), 1))
            await link.call(call.Heartbeat())

    async def restart(self, kind: str) -> None:
        """Reset: running transactions stop (Soft: their StopTransaction delivered first; Hard: it waits in
        the queue until after the restart), the connection closes, and the charge point connects again
        as after a power-up, with a BootNotification."""
        for connector in self.connectors.values():
            if connector.tx is not None:
                await self.stop(connector, f"{kind}Reset")
        deadline = asyncio.get_running_loop().time() + ONLINE_WAIT
        while kind == "Soft" and self.queue and asyncio.get_running_loop().time() < deadline:
            await asyncio.sleep(0.05)
        self.registered = False
        if self.link is not None:
            await self.link.ws.close()

    async def accepted_link(self) -> ChargePointLink | None:
        """The current accepted connection; None while offline (after ONLINE_WAIT seconds)."""
        try:
            await asyncio.wait_for(self.accepted.wait(), ONLINE_WAIT)
        except TimeoutError:
            return None
        return self.link

    async def report(self, link: ChargePointLink, connector: Connector) -> None:
        await link.call(call.StatusNotification(connector_id=connector.id, error_code="NoError",
                                                status=connector.status, timestamp=now()))

    async def set_status(self, connector: Connector, status: str, *, changed_only: bool = False) -> None:
        """Available reads Unavailable on an Inoperative connector; ``changed_only``: only a change is reported."""
        if status == "Available" and not connector.operative:
            status = "Unavailable"
        if changed_only and status == connector.status:
            return
        connector.status = status
        if self.registered and self.link is not None:    # offline: reported after the next boot
            await self.report(self.link, connector)

    def connectors_at(self, connector_id: int) -> list[Connector]:
        """The connectors ``connector_id`` addresses: all for 0 (the whole charge point), else that one (or none)."""
        if connector_id == 0:
            return list(self.connectors.values())
        return [self.connectors[connector_id]] if connector_id in self.connectors else []

    # ---- transaction messages: in order, retried, kept while offline (behaviour rules 1 and 2)
    def enqueue(self, item: Queued) -> None:
        self.queue.append(item)
        self.queued.set()

    async def deliver(self, link: ChargePointLink) -> None:
        """Send the queue's head until answered; a CALLERROR (or no answer) is retried after
        TransactionMessageRetryInterval × the transmissions so far and dropped after
        TransactionMessageAttempts. Ends with the connection; the head is sent again on the next."""
        while True:
            if not self.queue:
                self.queued.clear()
                await self.queued.wait()
                continue
            item = self.queue[0]
            try:
                answer = await link.call(item.payload())
            except TimeoutError:     # no answer within the library's response timeout: a failed attempt
                answer = None
            if answer is not None:
                self.queue.popleft()
                item.on_result(answer)
                continue
            item.failures += 1
            if item.failures >= self.setting("TransactionMessageAttempts"):
                log.warning("%s: dropped after %d failed attempts", item.payload(), item.failures)
                self.queue.popleft()
                continue
            await asyncio.sleep(self.setting("TransactionMessageRetryInterval") * item.failures)

    # ---- what happens at the charge point
    def free_connector(self, connector_id: int | None) -> Connector | None:
        if connector_id is None:
            return next((c for c in self.connectors.values() if c.tx is None and c.operative), None)
        connector = self.connectors.get(connector_id)
        return connector if connector is not None and connector.tx is None and connector.operative else None

    def running(self, transaction_id: int) -> Connector | None:
        return next((c for c in self.connectors.values() if c.tx and c.tx.id == transaction_id), None)

    async def authorize(self, id_tag: str) -> dict | None:
        """Authorize.conf's idTagInfo; None offline (this example has no authorization cache)."""
        link = await self.accepted_link()
        answer = await link.call(call.Authorize(id_tag=id_tag)) if link is not None else None
        return answer.id_tag_info if answer is not None else None

    async def present(self, id_tag: str, connector_id: int | None) -> None:
        connector = self.connectors[connector_id] if connector_id is not None else next(
            (c for c in self.connectors.values() if c.tx and same_tag(c.tx.id_tag, id_tag)), None) \
            or self.free_connector(None)
        if connector is None or (connector.tx is None and not connector.operative):
            return
        tx = connector.tx
        if tx is not None and same_tag(tx.id_tag, id_tag):
            await self.stop(connector, "Local", id_tag)      # the starter: no Authorize (What the service does 3)
            return
        info = await self.authorize(id_tag)
        if info is None or info["status"] != "Accepted":
            return
        parent = info.get("parent_id_tag")
        if tx is not None:                                    # another idTag: it stops only its own group
            if same_tag(parent, tx.parent):
                await self.stop(connector, "Local", id_tag)
            return
        connector.authorized = (id_tag, parent)
        if connector.plugged:
            await self.start(connector)
        else:
            await self.set_status(connector, "Preparing")

    async def cable_in(self, connector: Connector) -> None:
        connector.plugged = True
        if connector.authorized and connector.tx is None:
            await self.start(connector)
        elif connector.operative:
            await self.set_status(connector, "Preparing")

    async def cable_out(self, connector: Connector) -> None:
        connector.plugged, connector.authorized = False, None
        if connector.tx is not None:
            await self.stop(connector, "EVDisconnected")
        await self.set_status(connector, "Available")

    async def start(self, connector: Connector) -> None:
        (id_tag, parent), connector.authorized = connector.authorized, None
        tx = connector.tx = Transaction(id_tag, parent)
        start = call.StartTransaction(connector_id=connector.id, id_tag=id_tag, meter_start=connector.read(),
                                      timestamp=now())

        def started(answer) -> None:
            tx.id = answer.transaction_id
            tx.numbered.set()
            tx.parent = answer.id_tag_info.get("parent_id_tag", tx.parent)
            if answer.id_tag_info["status"] != "Accepted" and connector.tx is tx:   # StopTransactionOnInvalidId
                self.tasks.spawn(self.stop(connector, "DeAuthorized"))

        self.enqueue(Queued(lambda: start, started))
        interval = self.setting("MeterValueSampleInterval")
        if interval > 0:
            tx.sampler = asyncio.create_task(self.sample(connector, tx, interval))
        await self.set_status(connector, "Charging")

    async def sample(self, connector: Connector, tx: Transaction, interval: int) -> None:
        while True:
            await asyncio.sleep(interval)
            reading = {"timestamp": now(), "sampled_value": [
                {"value": str(connector.read()), "measurand": "Energy.Active.Import.Register", "unit": "Wh"}]}
            self.enqueue(Queued(lambda reading=reading: call.MeterValues(connector_id=connector.id, transaction_id=tx.id,
                                                                         meter_value=[reading])))

    async def stop(self, connector: Connector, reason: str, id_tag: str | None = None) -> None:
        tx, connector.tx = connector.tx, None
        if tx.sampler is not None:
            tx.sampler.cancel()        # no MeterValues of a transaction after its StopTransaction
        meter_stop, timestamp = connector.read(), now()
        self.enqueue(Queued(lambda: call.StopTransaction(transaction_id=tx.id or 0, id_tag=id_tag, reason=reason,
                                                         meter_stop=meter_stop, timestamp=timestamp)))
        await self.set_status(connector, "Finishing" if connector.plugged else "Available")

    def connector(self, connector_id: int) -> Connector:
        try:
            return self.connectors[connector_id]
        except KeyError:
            raise LookupError(f"no connector {connector_id}; this charge point has 1..{len(self.connectors)}") from None

    # ---- actuator actions: each starts in the background and returns at once
    async def present_id_tag(self, id_tag: str, connector_id: int | None = None) -> None:
        if connector_id is not None:
            self.connector(connector_id)
        self.tasks.spawn(self.present(id_tag, connector_id))

    async def plug_in(self, connector_id: int = 1) -> None:
        self.tasks.spawn(self.cable_in(self.connector(connector_id)))

    async def unplug(self, connector_id: int = 1) -> None:
        self.tasks.spawn(self.cable_out(self.connector(connector_id)))

    async def data_transfer(self, vendor_id: str, message_id: str | None = None, data=None) -> None:
        async def send() -> None:
            link = await self.accepted_link()
            if link is not None:
                await link.call(call.DataTransfer(vendor_id=vendor_id, message_id=message_id, data=data))
        self.tasks.spawn(send())


if __name__ == "__main__":
    asyncio.run(main(csms=CentralSystem, station=ChargePoint16, doc=__doc__))
