"""An example system under test built on the `ocpp` library (mobilityhouse), with the HTTP
actuator the harness drives it through. Copy it: the actuator half is what a vendor adds
to a test build of their own CSMS or charging station (contract: docs/actuators.md).

    python examples/ocpp_lib_sut.py csms --port 9000 --actuator-port 9100 --profile profiles/example-csms.toml
    python examples/ocpp_lib_sut.py cs --csms-url ws://127.0.0.1:9000/ocpp --actuator-port 9101 \
        --profile profiles/example-cs.toml

csms  an OCPP 2.0.1 CSMS: a websockets server on 127.0.0.1 whose stations are ``ocpp.v201.ChargePoint``
      objects answering BootNotification, Heartbeat, StatusNotification, Authorize,
      TransactionEvent and DataTransfer from the profile's [station], [tokens], [data_transfer].
      Actions: request_start_transaction, request_start_transaction_with_profile, request_stop_transaction,
      data_transfer and the rest of ``Csms.ACTIONS``; after set_registration Pending or Rejected a station
      whose boot was so answered has its Heartbeat and StatusNotification refused with SecurityError.
cs    an OCPP 2.0.1 charging station (client) with the profile's identity, password and EVSEs; it keeps
      no device model (GetVariables: every component unknown).
      Actions: present_id_token, plug_in, unplug, unplug_ev, data_transfer and the rest of ``Station.ACTIONS``.
      It reconnects 0.2 s after every close, and every connection is a power-up (BootNotification,
      all EVSEs free): the harness opens a fresh CSMS per test, so each test starts clean.

The actuator is Starlette served by uvicorn in the same event loop as the OCPP side, so an
action is a plain coroutine that starts ``cp.call(...)`` as a task: no thread, no hand-over
between loops (the stdlib http.server would need both). Every action answers 202 at once,
before the CALL is answered (the harness may hold that answer); an unknown action answers
501, which the harness turns into "skipped: not supported". SIGINT/SIGTERM stop it cleanly.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import binascii
import inspect
import itertools
import logging
import secrets
import signal
import tomllib
import uuid
from dataclasses import dataclass
from datetime import datetime, timezone
from http import HTTPStatus
from pathlib import Path
from urllib.parse import quote, unquote, urlsplit

import uvicorn
from ocpp.exceptions import SecurityError
from ocpp.routing import after, on
from ocpp.v201 import ChargePoint, call, call_result
from ocpp.v201.enums import Action
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse
from starlette.routing import Route
from websockets.asyncio.client import connect
from websockets.asyncio.server import serve
from websockets.exceptions import ConnectionClosed, InvalidHandshake

SUBPROTOCOL = "ocpp2.0.1"
RECONNECT_DELAY = 0.2   # seconds between the station's connection attempts
log = logging.getLogger("ocpp_lib_sut")


def now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def wire_token(id_token: dict) -> dict:
    """An IdTokenType with the wire's keys. The library hands payloads to handlers with snake_case
    keys (``id_token``); the harness's actuator bodies carry the wire's ``idToken``."""
    return {"idToken": id_token.get("idToken", id_token.get("id_token")), "type": id_token["type"]}


def token_key(id_token: dict) -> tuple[str, str]:
    """idToken values compare case-insensitively."""
    token = wire_token(id_token)
    return token["idToken"].casefold(), token["type"]


def identity_of(path: str) -> str:
    """The station identity: the last segment of the URL path, percent-decoded."""
    return unquote(urlsplit(path).path.rstrip("/").rsplit("/", 1)[-1])


class Tasks:
    """Background tasks of one owner: failures are logged, and they are cancelled together."""

    def __init__(self, owner: str):
        self.owner = owner
        self.running: set[asyncio.Task] = set()

    def spawn(self, coro) -> None:
        task = asyncio.create_task(coro)
        self.running.add(task)
        task.add_done_callback(self._done)

    def _done(self, task: asyncio.Task) -> None:
        self.running.discard(task)
        error = None if task.cancelled() else task.exception()
        if error is not None:       # a closed connection is routine: the harness closes after each test
            log.log(logging.INFO if isinstance(error, ConnectionClosed) else logging.WARNING,
                    "%s: background exchange failed: %r", self.owner, error)

    def cancel(self) -> None:
        for task in list(self.running):
            task.cancel()


class Background:
    """Mixed into a library ChargePoint: the profile, and background tasks that die with the connection."""

    def __init__(self, identity: str, ws, profile: dict):
        super().__init__(identity, ws)
        self.profile = profile
        self.tasks = Tasks(identity)

    def spawn(self, coro) -> None:
        """Start an exchange without waiting for it (an actuator answers before the CALL does)."""
        self.tasks.spawn(coro)

    async def serve(self) -> None:
        """Route messages until the connection closes, then drop this connection's tasks."""
        try:
            await self.start()
        except ConnectionClosed:
            pass
        finally:
            self.tasks.cancel()


def data_transfer_status(profile: dict, vendor_id: str, message_id: str | None) -> str:
    """The profile's [data_transfer] vendor: its message is accepted, its rejected message refused."""
    section = profile.get("data_transfer", {})
    if vendor_id != section.get("vendor_id"):
        return "UnknownVendorId"
    if message_id is not None and message_id == section.get("rejected_message_id"):
        return "Rejected"
    if message_id not in (None, section.get("message_id")):
        return "UnknownMessageId"
    return "Accepted"


class ExampleChargePoint(Background, ChargePoint):
    """``ocpp.v201.ChargePoint`` plus what both roles need: the profile, the DataTransfer vendor
    registry, and background tasks that die with the connection."""

    @on(Action.data_transfer)
    def on_data_transfer(self, vendor_id: str, message_id: str | None = None, data=None, **_):
        status = data_transfer_status(self.profile, vendor_id, message_id)
        return call_result.DataTransfer(status=status, data=data if status == "Accepted" else None)


# ====================================================================== the CSMS
class CsmsStation(ExampleChargePoint):
    """One connected charging station, seen from the CSMS."""

    def __init__(self, identity: str, ws, csms: "Csms"):
        super().__init__(identity, ws, csms.profile)
        self.csms = csms

    registration = "Accepted"   # how its last boot was answered

    @on(Action.boot_notification)
    def on_boot_notification(self, charging_station, reason, **_):
        self.csms.booted(self)
        self.registration = self.csms.registration
        interval = 300 if self.registration == "Accepted" else 2
        return call_result.BootNotification(current_time=now(), interval=interval, status=self.registration)

    def admitted(self) -> None:
        """B02.FR.09, B03.FR.07: a station not Accepted may send nothing but its boot (and what it was asked for)."""
        if self.registration != "Accepted":
            raise SecurityError(description=f"the station's boot was answered {self.registration}")

    @on(Action.heartbeat)
    def on_heartbeat(self, **_):
        self.admitted()
        return call_result.Heartbeat(current_time=now())

    @on(Action.status_notification)
    def on_status_notification(self, **_):
        self.admitted()
        return call_result.StatusNotification()

    @on(Action.meter_values)
    def on_meter_values(self, **_):
        return call_result.MeterValues()

    @on(Action.log_status_notification)
    def on_log_status_notification(self, **_):
        return call_result.LogStatusNotification()

    @on(Action.firmware_status_notification)
    def on_firmware_status_notification(self, **_):
        return call_result.FirmwareStatusNotification()

    @on(Action.reservation_status_update)
    def on_reservation_status_update(self, **_):
        return call_result.ReservationStatusUpdate()

    @on(Action.notify_report)
    def on_notify_report(self, **_):
        return call_result.NotifyReport()

    @on(Action.notify_event)
    def on_notify_event(self, **_):
        return call_result.NotifyEvent()

    @on(Action.authorize)
    def on_authorize(self, id_token: dict, **_):
        return call_result.Authorize(id_token_info=self.csms.id_token_info(id_token))

    @on(Action.transaction_event)
    def on_transaction_event(self, event_type: str, transaction_info: dict, id_token: dict | None = None, **_):
        tx_id = transaction_info["transaction_id"]
        info = self.csms.id_token_info(id_token, except_tx=tx_id) if id_token else None
        if event_type == "Ended":
            self.csms.open_tx.pop(tx_id, None)
        elif id_token:
            self.csms.open_tx.setdefault(tx_id, (self.id, token_key(id_token)))
        return call_result.TransactionEvent(id_token_info=info)


class Csms:
    ACTIONS = ("request_start_transaction", "request_start_transaction_with_profile", "request_stop_transaction",
               "data_transfer", "unlock_connector", "get_transaction_status", "trigger_message", "reserve_now",
               "cancel_reservation", "reset", "change_availability", "set_variables", "get_variables",
               "get_base_report", "get_report", "set_network_profile", "set_registration")

    def __init__(self, profile: dict):
        self.profile = profile
        self.registration = "Accepted"   # how the next BootNotifications are answered (set_registration)
        self.identity = profile["station"]["identity"]
        self.password = profile["station"].get("password")
        self.tokens = {token_key({"idToken": t["id"], "type": t["type"]}): t
                       for t in profile.get("tokens", {}).values()}
        self.stations: dict[str, CsmsStation] = {}         # identity → its booted connection
        self.open_tx: dict[str, tuple[str, tuple]] = {}     # transactionId → (identity, token key)
        self.issued: set[tuple[str, str]] = set()           # Central idTokens we sent for remote starts
        self.remote_start_ids = itertools.count(secrets.randbelow(10_000) + 1)

    def booted(self, station: CsmsStation) -> None:
        """A BootNotification is a restart: the station's open transactions are gone (kept simple)."""
        self.stations[station.id] = station
        self.open_tx = {tx: v for tx, v in self.open_tx.items() if v[0] != station.id}

    def id_token_info(self, id_token: dict, *, except_tx: str | None = None) -> dict:
        """The profile's status for a known token, Invalid for an unknown one; ConcurrentTx for an
        accepted token already in another open transaction; groupIdToken and evseId when configured."""
        key = token_key(id_token)
        if key in self.issued or wire_token(id_token)["type"] == "NoAuthorization":   # the start button (C02)
            return {"status": "Accepted"}
        token = self.tokens.get(key)
        if token is None:
            return {"status": "Invalid"}
        status = token["status"]
        if status == "Accepted" and any(k == key for tx, (_, k) in self.open_tx.items() if tx != except_tx):
            status = "ConcurrentTx"
        info = {"status": status}
        if token.get("group"):
            info["group_id_token"] = {"id_token": token["group"], "type": "Central"}
        if status == "Accepted" and token.get("evse_ids"):
            info["evse_id"] = token["evse_ids"]
        return info

    def check_upgrade(self, connection, request):
        """Before the upgrade: unknown identity → 404, wrong Basic-auth password → 401 (security profile 1)."""
        identity = identity_of(request.path)
        if identity != self.identity:
            return connection.respond(HTTPStatus.NOT_FOUND, "unknown charging station\n")
        if self.password and not basic_auth_ok(request.headers.get("Authorization"), identity, self.password.encode()):
            response = connection.respond(HTTPStatus.UNAUTHORIZED, "wrong or missing credentials\n")
            response.headers["WWW-Authenticate"] = 'Basic realm="OCPP"'
            return response
        return None

    async def on_connect(self, ws) -> None:
        station = CsmsStation(identity_of(ws.request.path), ws, self)
        await station.serve()
        if self.stations.get(station.id) is station:
            del self.stations[station.id]

    def station(self, identity: str | None) -> CsmsStation:
        try:
            return self.stations[identity or self.identity]
        except KeyError:
            raise LookupError(f"station {identity or self.identity} is not connected") from None

    # ---- actuator actions: each starts one CALL to the station and returns at once
    async def request_start_transaction(self, evse_id: int | None = None, id_token: dict | None = None,
                                        remote_start_id: int | None = None, station: str | None = None) -> None:
        self._remote_start(evse_id, id_token, remote_start_id, station, None)

    async def request_start_transaction_with_profile(self, evse_id: int, charging_profile: dict,
                                                     id_token: dict | None = None, remote_start_id: int | None = None,
                                                     station: str | None = None) -> None:
        """K05: the remote start carrying the operator's TxProfile, as given (the wire's camelCase keys)."""
        self._remote_start(evse_id, id_token, remote_start_id, station, charging_profile)

    def _remote_start(self, evse_id: int | None, id_token: dict | None, remote_start_id: int | None,
                      station: str | None, charging_profile: dict | None) -> None:
        cp = self.station(station)
        id_token = wire_token(id_token) if id_token else {"idToken": "APP-" + secrets.token_hex(8).upper(),
                                                          "type": "Central"}
        self.issued.add(token_key(id_token))
        cp.spawn(cp.call(call.RequestStartTransaction(
            id_token=id_token, evse_id=evse_id, charging_profile=charging_profile,
            remote_start_id=next(self.remote_start_ids) if remote_start_id is None else remote_start_id)))

    async def request_stop_transaction(self, transaction_id: str, station: str | None = None) -> None:
        cp = self.station(station)
        cp.spawn(cp.call(call.RequestStopTransaction(transaction_id=transaction_id)))

    async def data_transfer(self, vendor_id: str, message_id: str | None = None, data=None,
                            station: str | None = None) -> None:
        cp = self.station(station)
        cp.spawn(cp.call(call.DataTransfer(vendor_id=vendor_id, message_id=message_id, data=data)))

    async def unlock_connector(self, evse_id: int, connector_id: int, station: str | None = None) -> None:
        """F05: the operator unlocks a connector."""
        cp = self.station(station)
        cp.spawn(cp.call(call.UnlockConnector(evse_id=evse_id, connector_id=connector_id)))

    async def trigger_message(self, requested_message: str, evse: dict | None = None,
                              custom_trigger: str | None = None, station: str | None = None) -> None:
        """F06: the operator asks the station for a message (2.0.1 has no customTrigger: it is left out)."""
        cp = self.station(station)
        cp.spawn(cp.call(call.TriggerMessage(requested_message=requested_message, evse=evse)))

    async def reserve_now(self, id: int, expiry_date_time: str, id_token: dict, evse_id: int | None = None,
                          connector_type: str | None = None, group_id_token: dict | None = None,
                          station: str | None = None) -> None:
        """H01: the operator reserves an EVSE (or any, or one with a connector type) for a token."""
        cp = self.station(station)
        cp.spawn(cp.call(call.ReserveNow(id=id, expiry_date_time=expiry_date_time, id_token=wire_token(id_token),
                                         evse_id=evse_id, connector_type=connector_type,
                                         group_id_token=wire_token(group_id_token) if group_id_token else None)))

    async def cancel_reservation(self, reservation_id: int, station: str | None = None) -> None:
        """H02: the operator cancels a reservation."""
        cp = self.station(station)
        cp.spawn(cp.call(call.CancelReservation(reservation_id=reservation_id)))

    async def get_transaction_status(self, transaction_id: str | None = None, station: str | None = None) -> None:
        """E14: the operator asks whether the station still holds transaction-related messages."""
        cp = self.station(station)
        cp.spawn(cp.call(call.GetTransactionStatus(transaction_id=transaction_id)))

    async def reset(self, type: str, evse_id: int | None = None, station: str | None = None) -> None:
        """B11/B12: the operator resets the station (or one EVSE)."""
        cp = self.station(station)
        cp.spawn(cp.call(call.Reset(type=type, evse_id=evse_id)))

    async def change_availability(self, operational_status: str, evse: dict | None = None,
                                  station: str | None = None) -> None:
        """G03/G04: the operator makes the station, an EVSE or a connector (in)operative."""
        cp = self.station(station)
        cp.spawn(cp.call(call.ChangeAvailability(operational_status=operational_status, evse=evse)))

    async def set_variables(self, set_variable_data: list, station: str | None = None) -> None:
        """B05: the operator sets device-model variables (the elements as given, camelCase)."""
        cp = self.station(station)
        cp.spawn(cp.call(call.SetVariables(set_variable_data=set_variable_data)))

    async def get_variables(self, get_variable_data: list, station: str | None = None) -> None:
        """B06: the operator reads device-model variables."""
        cp = self.station(station)
        cp.spawn(cp.call(call.GetVariables(get_variable_data=get_variable_data)))

    async def get_base_report(self, report_base: str, request_id: int | None = None,
                              station: str | None = None) -> None:
        """B07: the operator asks for a base report (the requestId the CSMS's own)."""
        cp = self.station(station)
        rid = next(self.remote_start_ids) if request_id is None else request_id
        cp.spawn(cp.call(call.GetBaseReport(request_id=rid, report_base=report_base)))

    async def get_report(self, component_variable: list | None = None, component_criteria: list | None = None,
                         request_id: int | None = None, station: str | None = None) -> None:
        """B08: the operator asks for a report of some components and variables."""
        cp = self.station(station)
        rid = next(self.remote_start_ids) if request_id is None else request_id
        cp.spawn(cp.call(call.GetReport(request_id=rid, component_variable=component_variable,
                                        component_criteria=component_criteria)))

    async def set_registration(self, status: str) -> None:
        if status not in ("Accepted", "Pending", "Rejected"):
            raise ValueError(f"no registration status {status!r}")
        self.registration = status

    async def set_network_profile(self, configuration_slot: int, connection_data: dict,
                                  station: str | None = None) -> None:
        """B09: the operator stores a network connection profile at the station (the data as given, camelCase)."""
        cp = self.station(station)
        cp.spawn(cp.call(call.SetNetworkProfile(configuration_slot=configuration_slot,
                                                connection_data=connection_data)))

    async def run(self, port: int, stop: asyncio.Event) -> None:
        # As in the library's own examples: websockets negotiates the subprotocol. Note that it
        # refuses a client offering no ocpp2.0.1 with HTTP 400, where OCPP-J asks for a 101 without
        # Sec-WebSocket-Protocol and an immediate close (pass select_subprotocol= to do that).
        await listening(self, port, SUBPROTOCOL, stop)


async def listening(csms, port: int, subprotocol: str, stop: asyncio.Event, **serve_options) -> None:
    """Serve ``csms.on_connect`` on 127.0.0.1:``port`` until ``stop``; ``csms.check_upgrade`` vets each upgrade."""
    async with serve(csms.on_connect, "127.0.0.1", port, subprotocols=[subprotocol],
                     process_request=csms.check_upgrade, **serve_options):
        print(f"OCPP {subprotocol} CSMS listening on ws://127.0.0.1:{port}/ocpp "
              f"(station URL ws://127.0.0.1:{port}/ocpp/{quote(csms.identity, safe='')})", flush=True)
        await stop.wait()


async def reconnecting(csms_url: str, identity: str, subprotocol: str, on_connection, credentials,
                       **connect_options) -> None:
    """A station's link: connect to ``csms_url``/identity, run ``on_connection(ws)`` until it closes,
    connect again after RECONNECT_DELAY; forever. ``credentials()`` gives each attempt's headers."""
    url = csms_url.rstrip("/") + "/" + quote(identity, safe="")
    print(f"charging station {identity} connecting to {url}", flush=True)
    while True:
        try:
            async with connect(url, subprotocols=[subprotocol], additional_headers=credentials(),
                               **connect_options) as ws:
                await on_connection(ws)
        except (OSError, InvalidHandshake, TimeoutError) as error:
            log.info("connecting to %s failed: %r", url, error)
        await asyncio.sleep(RECONNECT_DELAY)


def basic_auth_ok(header: str | None, identity: str, password: bytes) -> bool:
    """RFC 7617 Basic credentials: the identity as user name and ``password`` (bytes: the 1.6
    AuthorizationKey is 20 raw bytes, not text)."""
    if not header or not header.lower().startswith("basic "):
        return False
    try:
        user, _, given = base64.b64decode(header[6:].strip(), validate=True).partition(b":")
    except binascii.Error:
        return False
    return user == identity.encode() and secrets.compare_digest(given, password)


def basic_auth_header(identity: str, password: bytes | None) -> dict[str, str]:
    if password is None:
        return {}
    return {"Authorization": "Basic " + base64.b64encode(identity.encode() + b":" + password).decode()}


# ====================================================================== the charging station
@dataclass
class Transaction:
    id: str
    id_token: dict | None
    remote_start_id: int | None = None
    seq_no: int = 0


@dataclass
class Evse:
    id: int
    connector: int
    plugged: bool = False
    authorized: dict | None = None        # a token the CSMS accepted, waiting for the cable
    tx: Transaction | None = None
    faulted: bool = False                 # fault_evse: out of service until clear_evse_fault

    def started_by(self, id_token: dict) -> bool:
        return bool(self.tx and self.tx.id_token) and token_key(self.tx.id_token) == token_key(id_token)


class StationConnection(ExampleChargePoint):
    """The station on one connection. Its state starts fresh with every connection (power-up)."""

    def __init__(self, identity: str, ws, profile: dict, reason: str = "PowerUp", plugged: frozenset = frozenset()):
        super().__init__(identity, ws, profile)
        self.evses = {e["id"]: Evse(e["id"], e.get("connectors", [1])[0], e["id"] in plugged)
                      for e in profile["station"]["evse"]}
        self.booted = asyncio.Event()
        self.reason = reason                # why it booted (a Reset: RemoteReset, ScheduledReset)
        self.next_reason = "PowerUp"        # why the next connection boots
        self.reset_waiting = False          # an OnIdle Reset waits for the transactions to end
        self.reset_now = False

    async def boot(self) -> None:
        """B01: BootNotification, then a StatusNotification per connector, then heartbeats."""
        station = self.profile["station"]
        response = await self.call(call.BootNotification(reason=self.reason, charging_station={
            "model": station.get("model", "example"), "vendor_name": station.get("vendor", "example")}))
        if getattr(response, "status", None) != "Accepted":
            return      # a real station would retry after the interval
        for evse in self.evses.values():   # B04: a cable plugged in while offline shows now
            await self.status(evse, "Occupied" if evse.plugged else "Available")
        self.booted.set()
        while True:
            await asyncio.sleep(response.interval)
            await self.call(call.Heartbeat())

    async def status(self, evse: Evse, status: str) -> None:
        await self.call(call.StatusNotification(timestamp=now(), connector_status=status, evse_id=evse.id,
                                                connector_id=evse.connector))

    async def event(self, evse: Evse, event_type: str, trigger: str, **info) -> None:
        tx = evse.tx
        await self.call(call.TransactionEvent(
            event_type=event_type, timestamp=now(), trigger_reason=trigger, seq_no=tx.seq_no,
            transaction_info={"transaction_id": tx.id, **info}, evse={"id": evse.id, "connector_id": evse.connector},
            id_token=tx.id_token if event_type == "Started" else None))
        tx.seq_no += 1

    async def start_transaction(self, evse: Evse, trigger: str, id_token: dict) -> None:
        evse.tx = Transaction(str(uuid.uuid4()), id_token)
        await self.event(evse, "Started", trigger, charging_state="Charging")

    async def end_transaction(self, evse: Evse, trigger: str, reason: str) -> None:
        if evse.tx is not None:
            await self.event(evse, "Ended", trigger, stopped_reason=reason)
            evse.tx, evse.authorized = None, None
        if self.reset_waiting and all(e.tx is None for e in self.evses.values()):
            self.reset_waiting = False
            self.spawn(self.restart("ScheduledReset"))

    async def restart(self, reason: str) -> None:
        """B11/B12: transactions end, the connection closes; the station connects and boots again."""
        for evse in self.evses.values():
            await self.end_transaction(evse, "ResetCommand", "ImmediateReset")
        self.next_reason = reason
        await self._connection.close()

    def evse_of(self, transaction_id: str) -> Evse | None:
        return next((e for e in self.evses.values() if e.tx and e.tx.id == transaction_id), None)

    # ---- CSMS → station
    @on(Action.reset)
    def on_reset(self, type: str, evse_id: int | None = None, **_):
        """B11/B12: the whole station only (an EVSE reset is Rejected); OnIdle waits for the transactions."""
        if evse_id is not None or type not in ("Immediate", "OnIdle"):
            return call_result.Reset(status="Rejected")
        if type == "OnIdle" and any(e.tx is not None for e in self.evses.values()):
            self.reset_waiting = True
            return call_result.Reset(status="Scheduled")
        self.reset_now = True
        return call_result.Reset(status="Accepted")

    @after(Action.reset)
    def after_reset(self, **_):
        if self.reset_now:
            self.reset_now = False
            self.spawn(self.restart("RemoteReset"))

    @on(Action.set_variables)
    def on_set_variables(self, set_variable_data: list[dict], **_):
        """B05: no device model here (as for GetVariables): every component is unknown."""
        return call_result.SetVariables(set_variable_result=[
            {"attribute_status": "UnknownComponent", "component": d["component"], "variable": d["variable"]}
            for d in set_variable_data])

    @on(Action.change_availability)
    def on_change_availability(self, **_):
        """G03/G04: this example cannot take itself out of service: Rejected (a legal answer)."""
        return call_result.ChangeAvailability(status="Rejected")

    @on(Action.get_variables)
    def on_get_variables(self, get_variable_data: list[dict], **_):
        """B06, which every 2.x station serves: this example keeps no device model, so every component is
        unknown to it."""
        return call_result.GetVariables(get_variable_result=[
            {"attribute_status": "UnknownComponent", "component": d["component"], "variable": d["variable"],
             "attribute_type": d.get("attribute_type", "Actual")}    # each result names the type asked (B06.FR.02)
            for d in get_variable_data])

    @on(Action.request_start_transaction)
    def on_request_start_transaction(self, id_token: dict, remote_start_id: int, evse_id: int | None = None, **_):
        evse = self.evses.get(evse_id) if evse_id is not None else \
            next((e for e in self.evses.values() if e.tx is None), None)
        if evse is None or evse.tx is not None or evse.faulted:
            return call_result.RequestStartTransaction(status="Rejected")
        evse.tx = Transaction(str(uuid.uuid4()), wire_token(id_token), remote_start_id)
        return call_result.RequestStartTransaction(status="Accepted")

    @after(Action.request_start_transaction)
    def after_request_start_transaction(self, remote_start_id: int, **_):
        """Runs once the answer is sent: the TransactionEvent follows the Accepted, never precedes it."""
        for evse in self.evses.values():
            if evse.tx and evse.tx.remote_start_id == remote_start_id and evse.tx.seq_no == 0:
                self.spawn(self.event(evse, "Started", "RemoteStart", remote_start_id=remote_start_id,
                                      charging_state="Charging" if evse.plugged else "Idle"))

    @on(Action.request_stop_transaction)
    def on_request_stop_transaction(self, transaction_id: str, **_):
        return call_result.RequestStopTransaction(status="Accepted" if self.evse_of(transaction_id) else "Rejected")

    @after(Action.request_stop_transaction)
    def after_request_stop_transaction(self, transaction_id: str, **_):
        evse = self.evse_of(transaction_id)
        if evse is not None:
            self.spawn(self.end_transaction(evse, "RemoteStop", "Remote"))

    # ---- what the driver does (actuator actions, run in the background)
    async def present(self, id_token: dict, evse_id: int | None) -> None:
        if evse_id is None:     # no EVSE chosen: the one this card charges at, else a free one
            evse_id = next((e.id for e in self.evses.values() if e.started_by(id_token)),
                           next((e.id for e in self.evses.values() if e.tx is None), min(self.evses)))
        evse = self.evses[evse_id]
        if evse.started_by(id_token):
            await self.end_transaction(evse, "StopAuthorized", "Local")     # same card again: stop
            return
        response = await self.call(call.Authorize(id_token=id_token))
        if response is None or response.id_token_info["status"] != "Accepted":
            return
        evse.authorized = id_token
        if evse.plugged and evse.tx is None:
            await self.start_transaction(evse, "Authorized", id_token)

    async def start_button(self, evse: Evse) -> None:
        """C02: no identification, no Authorize; the transaction carries an empty NoAuthorization token."""
        evse.authorized = {"idToken": "", "type": "NoAuthorization"}
        if evse.plugged and evse.tx is None:
            await self.start_transaction(evse, "Authorized", evse.authorized)

    async def plug(self, evse: Evse) -> None:
        evse.plugged = True
        await self.status(evse, "Occupied")
        if evse.authorized and evse.tx is None:
            await self.start_transaction(evse, "CablePluggedIn", evse.authorized)

    async def unplug(self, evse: Evse) -> None:
        evse.plugged = False
        await self.end_transaction(evse, "EVCommunicationLost", "EVDisconnected")
        await self.status(evse, "Available")

    async def unplug_ev(self, evse: Evse) -> None:
        """E09: the cable leaves the EV and stays in the socket (still Occupied): the transaction ends (this
        station keeps no device model, so TxCtrlr.StopTxOnEVSideDisconnect is as if true)."""
        await self.end_transaction(evse, "EVCommunicationLost", "EVDisconnected")


class Station:
    """The station process: one StationConnection per connection, reconnecting after every close."""
    ACTIONS = ("present_id_token", "plug_in", "unplug", "unplug_ev", "data_transfer", "press_start_button",
               "fail_lock", "repair_lock", "fault_evse", "clear_evse_fault")

    def __init__(self, profile: dict):
        self.profile = profile
        self.identity = profile["station"]["identity"]
        self.connection: StationConnection | None = None
        self.reason = "PowerUp"     # the boot reason of the next connection
        self.plugged_offline: set[int] = set()   # B04: EVSEs whose cable went in while no connection was open

    async def run(self, csms_url: str) -> None:
        password = self.profile["station"].get("password")
        # websockets offers permessage-deflate by default; OCPP 2.0.1 allows a station to.
        await reconnecting(csms_url, self.identity, SUBPROTOCOL, self.on_connection,
                           lambda: basic_auth_header(self.identity, password.encode() if password else None))

    async def on_connection(self, ws) -> None:
        self.connection = connection = StationConnection(self.identity, ws, self.profile, self.reason,
                                                         frozenset(self.plugged_offline))
        self.plugged_offline.clear()
        self.connection.spawn(self.connection.boot())
        try:
            await self.connection.serve()
        finally:
            self.connection, self.reason = None, connection.next_reason

    async def ready(self, timeout: float = 5.0) -> StationConnection:
        """The current connection once its boot was accepted (the station sends nothing before)."""
        deadline = asyncio.get_running_loop().time() + timeout
        while self.connection is None or not self.connection.booted.is_set():
            if asyncio.get_running_loop().time() > deadline:
                raise LookupError(f"station {self.identity} is not connected and booted")
            await asyncio.sleep(0.05)
        return self.connection

    # ---- actuator actions
    async def present_id_token(self, id_token: dict, evse_id: int | None = None) -> None:
        cp = await self.ready()
        cp.spawn(cp.present(wire_token(id_token), evse_id))

    async def plug_in(self, evse_id: int, connector_id: int | None = None) -> None:
        if self.connection is None:   # offline (B04): the cable is in all the same, shown at the next boot
            self.plugged_offline.add(evse_id)
            return
        cp = await self.ready()
        cp.spawn(cp.plug(cp.evses[evse_id]))

    async def press_start_button(self, evse_id: int = 1) -> None:
        cp = await self.ready()
        cp.spawn(cp.start_button(cp.evses[evse_id]))

    async def unplug(self, evse_id: int, connector_id: int | None = None) -> None:
        cp = await self.ready()
        cp.spawn(cp.unplug(cp.evses[evse_id]))

    async def unplug_ev(self, evse_id: int, connector_id: int | None = None) -> None:
        cp = await self.ready()
        cp.spawn(cp.unplug_ev(cp.evses[evse_id]))

    async def data_transfer(self, vendor_id: str, message_id: str | None = None, data=None) -> None:
        cp = await self.ready()
        cp.spawn(cp.call(call.DataTransfer(vendor_id=vendor_id, message_id=message_id, data=data)))

    async def fault_evse(self, evse_id: int) -> None:
        """The EVSE is out of order: Faulted, and a remote start on it Rejected (F02)."""
        cp = await self.ready()
        cp.evses[evse_id].faulted = True
        cp.spawn(cp.status(cp.evses[evse_id], "Faulted"))

    async def clear_evse_fault(self, evse_id: int) -> None:
        cp = await self.ready()
        evse = cp.evses[evse_id]
        evse.faulted = False
        cp.spawn(cp.status(evse, "Occupied" if evse.plugged else "Available"))

    async def fail_lock(self, evse_id: int, connector_id: int | None = None) -> None:
        """G05: the cable lock fails: NotifyEvent ConnectorPlugRetentionLock.Problem true."""
        await self._lock(evse_id, connector_id, "true")

    async def repair_lock(self, evse_id: int, connector_id: int | None = None) -> None:
        await self._lock(evse_id, connector_id, "false")

    async def _lock(self, evse_id: int, connector_id: int | None, problem: str) -> None:
        cp = await self.ready()
        connector = connector_id or cp.evses[evse_id].connector
        cp.spawn(cp.call(call.NotifyEvent(generated_at=now(), seq_no=0, event_data=[{
            "event_id": secrets.randbelow(10**6), "timestamp": now(), "trigger": "Delta", "actual_value": problem,
            "event_notification_type": "HardWiredNotification", "variable": {"name": "Problem"},
            "component": {"name": "ConnectorPlugRetentionLock", "evse": {"id": evse_id, "connector_id": connector}}}])))


# ====================================================================== the HTTP actuator
def actuator_app(sut, actions: tuple[str, ...]) -> Starlette:
    """POST /{action} with the JSON body as keyword arguments of ``sut.<action>``.
    202: started. 501: not an action of this SUT. 400: a body it cannot take. 409: it cannot now."""

    async def perform(request: Request):
        action = request.path_params["action"]
        if action not in actions:
            return PlainTextResponse(f"{action} is not supported by this SUT", status_code=501)
        try:
            body = await request.json() if await request.body() else {}
            method = getattr(sut, action)
            inspect.signature(method).bind(**body)
        except (ValueError, TypeError) as error:
            return PlainTextResponse(f"bad body for {action}: {error}", status_code=400)
        try:
            await method(**body)
        except LookupError as error:    # not connected, unknown EVSE
            return PlainTextResponse(str(error).strip("'\""), status_code=409)
        return JSONResponse({"action": action, "status": "started"}, status_code=202)

    return Starlette(routes=[Route("/{action}", perform, methods=["POST"])])


async def main(argv: list[str] | None = None, *, csms=None, station=None, doc: str = __doc__) -> None:
    """Run the ``csms`` or ``station`` class (default: this file's 2.0.1 ones) with its HTTP actuator."""
    parser = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    parser.add_argument("role", choices=["csms", "cs"])
    parser.add_argument("--profile", required=True, help="the SUT profile (TOML)")
    parser.add_argument("--port", type=int, default=9000, help="csms: the OCPP WebSocket port")
    parser.add_argument("--csms-url", default="ws://127.0.0.1:9000/ocpp", help="cs: the CSMS endpoint")
    parser.add_argument("--actuator-port", type=int, required=True)
    parser.add_argument("-v", "--verbose", action="store_true", help="log every OCPP frame")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING)
    profile = tomllib.loads(Path(args.profile).read_text(encoding="utf-8"))

    stop = asyncio.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        asyncio.get_running_loop().add_signal_handler(sig, stop.set)
    sut = (csms or Csms)(profile) if args.role == "csms" else (station or Station)(profile)
    # uvicorn takes SIGINT/SIGTERM while it serves and re-raises them when it stops: `stop` sees them too.
    api = uvicorn.Server(uvicorn.Config(actuator_app(sut, sut.ACTIONS), host="127.0.0.1",
                                        port=args.actuator_port, log_level="warning"))
    api_task = asyncio.create_task(api.serve())
    ocpp_task = asyncio.create_task(sut.run(args.port, stop) if args.role == "csms" else sut.run(args.csms_url))
    while not api.started and not api_task.done():
        await asyncio.sleep(0.02)
    print(f"actuator listening on http://127.0.0.1:{args.actuator_port} (POST /<action>: "
          f"{', '.join(sut.ACTIONS)})", flush=True)
    await asyncio.wait([asyncio.create_task(stop.wait()), api_task, ocpp_task], return_when=asyncio.FIRST_COMPLETED)
    stop.set()
    api.should_exit = True
    if args.role == "cs":
        ocpp_task.cancel()
    results = await asyncio.gather(api_task, ocpp_task, return_exceptions=True)
    print("stopped", flush=True)
    for result in results:      # e.g. the OCPP port was taken
        if isinstance(result, Exception):
            raise result


if __name__ == "__main__":
    asyncio.run(main())
