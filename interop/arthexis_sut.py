"""arthexis (PyPI, "Constellation": a Django/Channels OCPP 1.6 and 2.0.1 central system) under test, with the
thinnest HTTP actuator. Its ASGI application (``arthexis.asgi:application``, what its own server runs under
Daphne) is served by uvicorn in this process, on a fresh SQLite database in a temporary folder, so that its
in-process delivery of operator requests (``emit_v16_operation`` / ``emit_v201_operation``: "emit one explicit
request to an already-connected charger") reaches the live connection. Its ``Charger.start/stop/reset``
shortcuts need a Redis channel layer: not used.

    python interop/arthexis_sut.py csms --port 9000 --actuator-port 9100 --profile profiles/interop-arthexis-ocpp16.toml

Provisioning, as its admin pages would do it: the profile's charge point (identity, the hash of its Basic
password), one active ``CardCredential`` per Accepted token and a deactivated one per Blocked token, the charger
in ``restricted`` authorization mode (only active cards are Accepted; it has no expiry).

What the adapter adds, said here so the ledger can be read: its route is ``ws/ocpp/<identity>/`` with a
trailing slash, and the harness connects to ``<url>/<identity>`` (OCPP-J: the identity is the last segment of
the path): a WebSocket path without the slash gets it, as a reverse proxy in front of it would. A
RequestStartTransaction without remoteStartId gets one as its own ``Charger.start`` picks it; one without an
idToken (the harness leaves the token to the CSMS) gets the one its operator would type, the profile's first
Accepted card (a SHOULD finding: not a fresh token of type Central).

Actions: every request of its outbound table for the version (``apps.ocpp.protocol.v16/v201.outbound``) is an
action named like it, its fields as the body gives them, checked by its own validator before it is sent (a request
its validator refuses is one it cannot send: 501). Its 2.0.1 validators name two fields as 1.6 does: ReserveNow
wants ``expiryDate`` and SendLocalList ``version``; its operator must give them so, beside the 2.0.1 fields, and the
request then carries both (the station judges it). A 2.0.1 request whose requestId the CSMS picks (GetBaseReport,
GetReport, GetLog, ...) gets one as its operator would type it: it picks none. What its tables lack is 501: 1.6
ClearCache; 2.0.1 ClearCache, GetChargingProfiles, GetTransactionStatus, SetNetworkProfile; the rotation of a
station's password (it has no operator action for it).
"""

from __future__ import annotations

import asyncio
import os
import secrets
import shutil
import tempfile
from concurrent.futures import ThreadPoolExecutor

from common import Tasks, run, serve_until_stopped, token_statuses
from ocpp.charge_point import snake_to_camel_case


def provision(profile: dict, data_dir: str) -> None:
    """Django set up on a fresh database, the profile's charge point and Accepted cards created (run in a thread
    without an event loop: Django's ORM refuses to run synchronously inside one)."""
    os.environ["ARTHEXIS_DATA_DIR"] = data_dir
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "arthexis.settings")
    import django
    django.setup()
    from django.contrib.auth.hashers import make_password
    from django.core.management import call_command
    call_command("migrate", verbosity=0, interactive=False)
    from apps.cards.models import CardCredential
    from apps.ocpp.models import Charger
    station = profile["station"]
    password = station.get("password") or bytes.fromhex(station["authorization_key"]).decode()
    Charger.objects.create(identity=station["identity"], connection_token_hash=make_password(password),
                           authorization_mode=Charger.AuthorizationMode.RESTRICTED)
    for name, (token, status) in enumerate(token_statuses(profile).items()):
        if status in ("Accepted", "Blocked"):   # a blocked card is one its operator deactivated
            CardCredential.objects.create(external_id=f"interop-{name}", ocpp_id_tag=token,
                                          active=status == "Accepted")


def trailing_slash(app):
    """ASGI: ``/ws/ocpp/<identity>`` → ``/ws/ocpp/<identity>/`` (its route ends with a slash)."""
    async def wrapped(scope, receive, send):
        if scope["type"] == "websocket" and not scope["path"].endswith("/"):
            scope = {**scope, "path": scope["path"] + "/"}
        return await app(scope, receive, send)
    return wrapped


def camel(body: dict) -> dict:
    """The action's snake_case body as the message's camelCase payload, absent fields left out."""
    return snake_to_camel_case({key: value for key, value in body.items() if value is not None})


class Arthexis:
    """What both versions share: its database provisioned, its ASGI application served, an operator request
    emitted through its own outbound table."""

    def __init__(self, profile: dict):
        self.profile = profile
        self.identity = profile["station"]["identity"]
        # its SQLite database in memory-backed storage where there is one: it writes on every message
        shm = "/dev/shm" if os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK) else None
        self.data_dir = tempfile.mkdtemp(prefix="arthexis-", dir=shm)
        with ThreadPoolExecutor(1) as thread:
            thread.submit(provision, profile, self.data_dir).result()
        self.tasks = Tasks("arthexis adapter")

    async def run(self, port: int, stop: asyncio.Event) -> None:
        from arthexis.asgi import application
        try:
            await serve_until_stopped(trailing_slash(application), port, stop, f"ws://127.0.0.1:{port}/ws/ocpp",
                                      lifespan="off", ws="websockets-sansio")
        finally:
            shutil.rmtree(self.data_dir, ignore_errors=True)   # its database: nothing outlives the run

    def outbound(self) -> dict:
        """Its outbound table of this version: message → its validator (what its operator may ask it to send)."""
        raise NotImplementedError

    def emitter(self):
        raise NotImplementedError

    def emit(self, action: str, payload: dict, station: str | None = None) -> None:
        """Its operator asks it to send ``action``: checked by its own validator now (a body it refuses is one it
        cannot send: 501), sent in the background through its in-process delivery."""
        from apps.ocpp.models import Charger
        validator = self.outbound().get(action)
        if validator is None:
            raise NotImplementedError(f"it has no outbound {action} in this version")
        try:
            validator(dict(payload))
        except ValueError as refused:
            raise NotImplementedError(f"its outbound {action} refuses this request: {refused}") from None
        emitter = self.emitter()

        async def send() -> None:
            from asgiref.sync import sync_to_async
            charger = await sync_to_async(Charger.objects.get)(identity=station or self.identity)
            await emitter(charger=charger, action=action, payload=payload, timeout=30)

        self.tasks.spawn(send())

    async def data_transfer(self, vendor_id: str, message_id: str | None = None, data=None, station=None) -> None:
        self.emit("DataTransfer", camel({"vendor_id": vendor_id, "message_id": message_id, "data": data}), station)

    async def get_local_list_version(self, station=None) -> None:
        self.emit("GetLocalListVersion", {}, station)


class Arthexis16(Arthexis):
    ACTIONS = ("remote_start_transaction", "remote_stop_transaction", "get_configuration",
               "change_configuration", "reset", "data_transfer", "change_availability", "unlock_connector",
               "clear_cache", "get_local_list_version", "send_local_list", "reserve_now", "cancel_reservation",
               "trigger_message", "update_firmware", "get_diagnostics", "set_charging_profile",
               "get_composite_schedule", "clear_charging_profile")

    def outbound(self) -> dict:
        from apps.ocpp.protocol.v16.outbound import VALIDATORS
        return VALIDATORS

    def emitter(self):
        from apps.ocpp.transport.operations import emit_v16_operation
        return emit_v16_operation

    # ---- the message named like the action, its fields from the body
    async def remote_start_transaction(self, id_tag: str, connector_id: int | None = None, station=None) -> None:
        self.emit("RemoteStartTransaction", camel({"id_tag": id_tag, "connector_id": connector_id}), station)

    async def remote_stop_transaction(self, transaction_id: int, station=None) -> None:
        self.emit("RemoteStopTransaction", {"transactionId": transaction_id}, station)

    async def get_configuration(self, keys: list[str] | None = None, station=None) -> None:
        self.emit("GetConfiguration", camel({"key": keys}), station)

    async def change_configuration(self, key: str, value: str, station=None) -> None:
        self.emit("ChangeConfiguration", {"key": key, "value": value}, station)

    async def reset(self, type: str, station=None) -> None:
        self.emit("Reset", {"type": type}, station)

    async def change_availability(self, connector_id: int, type: str, station=None) -> None:
        self.emit("ChangeAvailability", {"connectorId": connector_id, "type": type}, station)

    async def unlock_connector(self, connector_id: int, station=None) -> None:
        self.emit("UnlockConnector", {"connectorId": connector_id}, station)

    async def clear_cache(self, station=None) -> None:
        self.emit("ClearCache", {}, station)

    async def send_local_list(self, update_type: str, list_version: int | None = None,
                              local_authorization_list=None, station=None) -> None:
        self.emit("SendLocalList", camel({"list_version": list_version, "update_type": update_type,
                                          "local_authorization_list": local_authorization_list}), station)

    async def reserve_now(self, connector_id: int, expiry_date: str, id_tag: str, reservation_id: int,
                          parent_id_tag: str | None = None, station=None) -> None:
        self.emit("ReserveNow", camel({"connector_id": connector_id, "expiry_date": expiry_date, "id_tag": id_tag,
                                       "reservation_id": reservation_id, "parent_id_tag": parent_id_tag}), station)

    async def cancel_reservation(self, reservation_id: int, station=None) -> None:
        self.emit("CancelReservation", {"reservationId": reservation_id}, station)

    async def trigger_message(self, requested_message: str, connector_id: int | None = None, station=None) -> None:
        self.emit("TriggerMessage", camel({"requested_message": requested_message, "connector_id": connector_id}),
                  station)

    async def update_firmware(self, location: str, retrieve_date: str, retries: int | None = None,
                              retry_interval: int | None = None, station=None) -> None:
        self.emit("UpdateFirmware", camel({"location": location, "retrieve_date": retrieve_date, "retries": retries,
                                           "retry_interval": retry_interval}), station)

    async def get_diagnostics(self, location: str, retries: int | None = None, retry_interval: int | None = None,
                              start_time: str | None = None, stop_time: str | None = None, station=None) -> None:
        self.emit("GetDiagnostics", camel({"location": location, "retries": retries, "retry_interval": retry_interval,
                                           "start_time": start_time, "stop_time": stop_time}), station)

    async def set_charging_profile(self, connector_id: int, cs_charging_profiles: dict, station=None) -> None:
        self.emit("SetChargingProfile", {"connectorId": connector_id, "csChargingProfiles": cs_charging_profiles},
                  station)

    async def get_composite_schedule(self, duration: int, connector_id: int | None = None,
                                     charging_rate_unit: str | None = None, station=None) -> None:
        self.emit("GetCompositeSchedule", camel({"connector_id": connector_id, "duration": duration,
                                                 "charging_rate_unit": charging_rate_unit}), station)

    async def clear_charging_profile(self, id: int | None = None, connector_id: int | None = None,
                                     charging_profile_purpose: str | None = None, stack_level: int | None = None,
                                     station=None) -> None:
        self.emit("ClearChargingProfile", camel({"id": id, "connector_id": connector_id, "stack_level": stack_level,
                                                 "charging_profile_purpose": charging_profile_purpose}), station)


# 2.0.1 requests whose requestId the CSMS picks (docs/actuators.md: "a requestId of the CSMS's own"): it picks none,
# its operator types one, as the adapter does here
OPERATOR_REQUEST_ID = ("GetBaseReport", "GetReport", "GetLog", "CustomerInformation", "GetDisplayMessages",
                       "UpdateFirmware", "PublishFirmware")


def message_of(action: str) -> str:
    """``get_base_report`` → ``GetBaseReport``: the action is named like the message (docs/actuators.md)."""
    return "".join(word.capitalize() for word in action.split("_"))


def action_of(message: str) -> str:
    return "".join(f"_{c.lower()}" if c.isupper() else c for c in message).lstrip("_")


class Arthexis201(Arthexis):
    """Every request of its 2.0.1 outbound table is an action named like it (``Reset`` → ``reset``), the body's
    fields camelCased into the payload as the contract gives them; what it has no outbound for (ClearCache,
    GetChargingProfiles, GetTransactionStatus, SetNetworkProfile) is 501. The few whose contract differs from its
    table are written out below."""

    def __init__(self, profile: dict):
        super().__init__(profile)
        self.ACTIONS = tuple(sorted({action_of(m) for m in self.outbound()}
                                    | {"request_start_transaction_with_profile"}))

    def outbound(self) -> dict:
        from apps.ocpp.protocol.v201.outbound import VALIDATORS
        return VALIDATORS

    def emitter(self):
        from apps.ocpp.transport.operations import emit_v201_operation
        return emit_v201_operation

    def __getattr__(self, action: str):
        """An action of its outbound table without a method of its own below: the message named like it."""
        if action.startswith("_") or action not in self.__dict__.get("ACTIONS", ()):
            raise AttributeError(action)
        message = message_of(action)

        async def operate(station=None, **body) -> None:
            payload = camel(body)
            if message in OPERATOR_REQUEST_ID and "requestId" not in payload:
                payload["requestId"] = secrets.randbelow(2**31 - 1) + 1
            self.emit(message, payload, station)

        return operate

    async def request_start_transaction(self, evse_id: int | None = None, id_token: dict | None = None,
                                        remote_start_id: int | None = None, station=None) -> None:
        self._start(evse_id, id_token, remote_start_id, station)

    async def request_start_transaction_with_profile(self, evse_id: int, charging_profile: dict,
                                                     id_token: dict | None = None, remote_start_id: int | None = None,
                                                     station=None) -> None:
        """The same RequestStartTransaction, carrying the TxProfile as given (its outbound table takes it)."""
        self._start(evse_id, id_token, remote_start_id, station, charging_profile=charging_profile)

    def _start(self, evse_id, id_token, remote_start_id, station, **extra) -> None:
        """RequestStartTransaction as its operator start sends it: the idToken given, else the one its operator
        types (operator_token); the remoteStartId given, else one as its ``Charger.start`` picks it."""
        self.emit("RequestStartTransaction", camel({
            "evse_id": evse_id, "id_token": id_token or self.operator_token(),
            "remote_start_id": remote_start_id if remote_start_id is not None
            else (secrets.randbits(64) % 2_147_483_647) or 1, **extra}), station)

    def operator_token(self) -> dict:
        """The idToken its operator types when the harness leaves the choice to the CSMS (its operator start takes
        one, it picks none): the first Accepted card of the profile, as a driver's card an operator starts for."""
        token = next(t for t in self.profile["tokens"].values() if t["status"] == "Accepted")
        return {"idToken": token["id"], "type": token["type"]}

    async def reserve_now(self, id: int, expiry_date_time: str, id_token: dict, evse_id: int | None = None,
                          connector_type: str | None = None, group_id_token: dict | None = None,
                          station=None) -> None:
        """Its 2.0.1 ReserveNow validator demands ``expiryDate``, the 1.6 name, beside what 2.0.1 names
        ``expiryDateTime``: its operator gives the expiry under both, and the station judges the request."""
        self.emit("ReserveNow", camel({"id": id, "expiry_date_time": expiry_date_time, "id_token": id_token,
                                       "evse_id": evse_id, "connector_type": connector_type,
                                       "group_id_token": group_id_token, "expiry_date": expiry_date_time}), station)

    async def send_local_list(self, update_type: str, entries=None, version_number: int | None = None,
                              station=None) -> None:
        """Its 2.0.1 SendLocalList validator demands ``version`` beside 2.0.1's ``versionNumber``: given under both.
        It picks no version of its own: without one, 501."""
        if version_number is None:
            raise NotImplementedError("it sends SendLocalList with the version it is given only")
        self.emit("SendLocalList", camel({"version_number": version_number, "version": version_number,
                                          "update_type": update_type,
                                          "local_authorization_list": [camel(e) for e in entries or []]}), station)


def arthexis(profile: dict) -> Arthexis:
    return (Arthexis16 if profile["sut"]["protocol"] == "ocpp1.6" else Arthexis201)(profile)


if __name__ == "__main__":
    run(arthexis, __doc__)
