"""ocpp-broker (PyPI, an OCPP 1.6 broker with tag management; here in its broker-as-backend mode, where it is the
central system itself) under test, with the thinnest HTTP actuator: each action is one call of its own REST
command API (``/api/ocpp/organizations/{org}/chargers/{id}/commands/{Action}``, whose bodies are the actions'
own snake_case keys), reached in-process. Its configuration (config.yaml, written to a temporary folder) carries
the profile's provisioning: one organization served at ``/<org>/<charger id>``, its tags (status, parent_id_tag)
and its DataTransfer vendors and messages.

    python interop/ocpp_broker_sut.py csms --port 9000 --actuator-port 9100 --profile profiles/interop-ocpp-broker.toml

What it cannot do, answered 501: set_registration (its BootNotification answer is always Accepted),
rotate_authorization_key (it checks no charger credentials), a body with a field its command's request model
lacks (UpdateFirmware has no ``retries``: it would send the CALL without it).

One repair, of its bookkeeping, not of its OCPP: the cleanup of a closed connection pops its charger's id from the
sessions its command API looks up, whoever holds it by then, so a charger that reconnected first (a Reset, or the
next test's connection, on a loaded machine) was lost to the command API and a test's verdict hung on the machine's
load. Here a cleanup leaves a session whose charger is still connected (ReconnectedSessions).
"""

from __future__ import annotations

import asyncio
import shutil
import tempfile
from pathlib import Path

import httpx
import yaml
from common import Tasks, run, serve_until_stopped
from fastapi import FastAPI

ORGANIZATION = "interop"


def configuration(profile: dict) -> dict:
    """Its config.yaml for the profile: the organization (no upstream backend), its tags, its DataTransfer vendor."""
    tags = [{"id_tag": token["id"], "status": token["status"],
             **({"parent_id_tag": token["group"]} if "group" in token else {})}
            for token in profile.get("tokens", {}).values()]
    data = profile.get("data_transfer", {})
    vendor_messages = {f"{data['vendor_id']}:{data['message_id']}": {"auto_accept": True},
                       f"{data['vendor_id']}:{data['rejected_message_id']}": {"auto_accept": False}} if data else {}
    return {"organizations": [{"name": ORGANIZATION, "connect_to_backend": False, "ocpp_subprotocol": "ocpp1.6",
                               "tag_management": {"enabled": True}, "tags": tags}],
            "data_transfer": {"known_vendors": [data["vendor_id"]] if data else [], "vendor_messages": vendor_messages}}


class ReconnectedSessions(dict):
    """The broker's sessions by charger id, where a closed connection's cleanup leaves the session of the charger's
    newer connection in place."""

    def pop(self, charger_id, default=None):
        session = self.get(charger_id)
        if session is not None and session._is_charger_connected():
            return default
        return super().pop(charger_id, default)


class OcppBroker:
    COMMANDS = {   # action → its REST command
        "remote_start_transaction": "RemoteStartTransaction", "remote_stop_transaction": "RemoteStopTransaction",
        "get_configuration": "GetConfiguration", "change_configuration": "ChangeConfiguration", "reset": "Reset",
        "data_transfer": "DataTransfer", "change_availability": "ChangeAvailability",
        "unlock_connector": "UnlockConnector", "clear_cache": "ClearCache",
        "get_local_list_version": "GetLocalListVersion", "send_local_list": "SendLocalList",
        "reserve_now": "ReserveNow", "cancel_reservation": "CancelReservation", "trigger_message": "TriggerMessage",
        "update_firmware": "UpdateFirmware", "get_diagnostics": "GetDiagnostics",
        "set_charging_profile": "SetChargingProfile", "get_composite_schedule": "GetCompositeSchedule",
        "clear_charging_profile": "ClearChargingProfile"}
    ACTIONS = tuple(COMMANDS)

    def __init__(self, profile: dict):
        self.identity = profile["station"]["identity"]
        self.folder = Path(tempfile.mkdtemp(prefix="ocpp-broker-"))
        (self.folder / "config.yaml").write_text(yaml.safe_dump(configuration(profile)), encoding="utf-8")
        self.tasks = Tasks("ocpp-broker adapter")
        self.api: httpx.AsyncClient | None = None
        for action, command in self.COMMANDS.items():
            setattr(self, action, self._command(command))

    async def run(self, port: int, stop: asyncio.Event) -> None:
        from ocpp_broker import server
        from ocpp_broker.broker import OcppBroker as Broker
        from ocpp_broker.ocpp_command_api import create_ocpp_command_api
        server.broker = Broker()
        server.broker.sessions = ReconnectedSessions()
        server.broker._cfg_path = str(self.folder / "config.yaml")
        await server.broker.load_config()
        commands = FastAPI()
        commands.include_router(create_ocpp_command_api(server.broker))
        self.api = httpx.AsyncClient(transport=httpx.ASGITransport(app=commands), base_url="http://broker")
        try:
            await serve_until_stopped(server.app, port, stop, f"ws://127.0.0.1:{port}/{ORGANIZATION}")
        finally:
            await self.api.aclose()
            shutil.rmtree(self.folder, ignore_errors=True)

    def _command(self, command: str):
        async def perform(station: str | None = None, **body) -> None:
            from ocpp_broker import ocpp_command_api, server
            charger = station or self.identity
            if charger not in server.broker.sessions:
                raise LookupError(f"charge point {charger} is not connected")
            if command == "GetConfiguration":
                body = {"key": body.get("keys")}
            carried = getattr(ocpp_command_api, f"{command}Request").model_fields
            dropped = sorted(key for key, value in body.items() if key not in carried and value is not None)
            if dropped:   # its command would send the CALL without them: it cannot do what was asked
                raise NotImplementedError(f"its {command} command carries no {', '.join(dropped)}")
            answer = await self.api.post(f"/api/ocpp/organizations/{ORGANIZATION}/chargers/{charger}/commands/{command}",
                                         json=body)
            if answer.status_code >= 400:
                raise LookupError(f"its command API answered {answer.status_code}: {answer.text[:200]}")
        perform.__name__ = command
        return perform


if __name__ == "__main__":
    run(OcppBroker, __doc__)
