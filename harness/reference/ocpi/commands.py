"""The commands module of the reference peer: the CPO's Receiver (commands answered with a CommandResponse,
their CommandResult POSTed to the response_url in the background) and the eMSP's Sender (commands sent at an
operator's or a driver's request, results received at the URLs it gave).

The rules are the core's (``harness/ocpi/commands.py``). The reference CPO's charge points answer at once: a
command at a Location it has is ACCEPTED (timeout ``TIMEOUT``) and its result is ACCEPTED, but for a
CANCEL_RESERVATION of a reservation it never made (UNKNOWN_RESERVATION); a Location it does not have is 2003;
a STOP_SESSION of a Session it does not have is UNKNOWN_SESSION. It checks no Token and asks nobody about one.
The reference eMSP starts sessions and reserves with a new AD_HOC_USER Token of its own (a driver paying in
the app: never pushed, as the text allows).
"""

from __future__ import annotations

import functools
import secrets
from datetime import timedelta
from typing import TYPE_CHECKING, Any

from harness.cistring import id_key
from harness.clock import utcnow
from harness.ocpi.commands import (
    ACCEPTED, CANCEL_RESERVATION, COMMANDS, RESERVE_NOW, SCHEMAS, START_SESSION, STOP_SESSION, UNKNOWN_RESERVATION,
    UNKNOWN_SESSION, UNLOCK_CONNECTOR, CommandRules)
from harness.ocpi.envelope import StatusCode, StatusError, build
from harness.ocpi.locations import LOCATIONS, Target, checked
from harness.ocpi.sessions import SESSIONS
from harness.ocpi.timestamps import format_datetime
from harness.ocpi.tokens import AD_HOC_USER, NEVER
from harness.ocpi.versions import RECEIVER, SENDER
from harness.reference.ocpi.handler import CPO, EMSP, ModuleHandler, Reply
from harness.reference.ocpi.locations import own_faker
from harness.reference.ocpi.sessions import _json_body
from harness.reference.ocpi.tokens import build_token, new_uid
from harness.transport.http import HttpExchange, HttpRequest

if TYPE_CHECKING:   # imported where a Faker is built (locations._faker)
    from faker import Faker

TIMEOUT = 30   # seconds the reference CPO gives its charge points to answer


class CommandStore:
    """What one side keeps of the commands: the CPO the commands it got (each with its result's task) and
    the reservations made; the eMSP the commands it sent and the results it got, by response_url path."""

    def __init__(self, _stock: Any = ()) -> None:
        self.commands: list[dict[str, Any]] = []
        self.reservations: set[tuple[str, str, str]] = set()
        self.results: dict[str, dict[str, Any]] = {}

    def all(self) -> list[dict[str, Any]]:
        return list(self.commands)


# ------------------------------------------------------------------------------ the CPO: Receiver
class CommandsReceiver(ModuleHandler):
    """The CPO's commands endpoint: {commands}/{command}, POST only."""

    module, role, interface = COMMANDS, CPO, RECEIVER
    store: CommandStore

    async def serve(self, request: HttpRequest, rest: list[str]) -> Reply:
        self.peer.only(request, "POST")
        if len(rest) != 1 or rest[0] not in SCHEMAS:
            raise StatusError(CommandRules.request, f"no command at {request.path}: the Receiver URL is "
                              "{commands}/{command}", status_code=StatusCode.INVALID_PARAMETERS, http_status=404)
        command = rest[0]
        body = checked(SCHEMAS[command], _json_body(request))
        answer, outcome = self.decide(command, body)
        response = {"result": answer, "timeout": TIMEOUT}
        record: dict[str, Any] = {"command": command, "request": body, "response_url": body["response_url"],
                                  "response": response, "result": None}
        if answer == ACCEPTED:
            record["result"] = self.peer.background.spawn(self._post_result(body["response_url"], outcome))
        self.store.commands.append(record)
        return Reply(200, build(self.peer.outgoing("command_response", response)))

    def decide(self, command: str, body: dict[str, Any]) -> tuple[str, str]:
        """(the CommandResponse result, the CommandResult result to POST when it is ACCEPTED)."""
        party = self.peer.peer_party
        emsp = (party.country_code, party.party_id) if party else ("", "")
        if command == STOP_SESSION:
            known = self.peer.store(SESSIONS).owned(body["session_id"]) is not None
            return (ACCEPTED, ACCEPTED) if known else (UNKNOWN_SESSION, "")
        if command == CANCEL_RESERVATION:
            key = (id_key(emsp[0]), id_key(emsp[1]), id_key(body["reservation_id"]))
            made = key in self.store.reservations
            self.store.reservations.discard(key)
            return ACCEPTED, ACCEPTED if made else UNKNOWN_RESERVATION
        locations = self.peer.store(LOCATIONS)
        location = locations.owned(body["location_id"])
        if location is None:
            raise StatusError(CommandRules.request, f"unknown Location {body['location_id']}",
                              status_code=StatusCode.UNKNOWN_LOCATION)
        ids = tuple(body[name] for name in ("location_id", "evse_uid", "connector_id") if body.get(name))
        if locations.chain(location, Target(ids)) is None:
            return "REJECTED", ""
        if command == RESERVE_NOW:
            self.store.reservations.add((id_key(emsp[0]), id_key(emsp[1]), id_key(body["reservation_id"])))
        return ACCEPTED, ACCEPTED

    async def _post_result(self, url: str, result: str) -> HttpExchange:
        """The charge point answered: the CommandResult POSTed to the eMSP's response_url, as given."""
        return await self.peer.send("POST", url, token=self.peer.peer_token, module=COMMANDS,
                                    body=self.peer.outgoing("command_result", {"result": result}))


# ------------------------------------------------------------------------------ the eMSP: Sender
class CommandsSender(ModuleHandler):
    """The eMSP's commands: sent to the CPO, their results received at {commands}/{command}/{ref}."""

    module, role, interface = COMMANDS, EMSP, SENDER
    client_owned = False
    store: CommandStore

    @functools.cached_property
    def fake(self) -> Faker:
        return own_faker(1313)

    async def serve(self, request: HttpRequest, rest: list[str]) -> Reply:
        self.peer.only(request, "POST")
        if len(rest) != 2 or rest[0] not in SCHEMAS:
            raise StatusError(CommandRules.result_url, f"no response_url of ours at {request.path}",
                              status_code=StatusCode.CLIENT_ERROR, http_status=404)
        self.store.results[request.path] = checked("command_result", _json_body(request))
        return Reply(200, build())

    async def _send(self, command: str, **body: Any) -> HttpExchange:
        ref = secrets.token_hex(6)
        url = f"{self.peer.module_url(COMMANDS).rstrip('/')}/{command}/{ref}"
        sent = {"response_url": url, **{k: v for k, v in body.items() if v is not None}}
        self.store.commands.append({"command": command, "request": sent})
        return await self.peer.call("POST", COMMANDS, (command,), self.peer.outgoing(SCHEMAS[command], sent))

    def _app_token(self) -> dict[str, Any]:
        """A new AD_HOC_USER Token of ours: a driver paying in the app."""
        owner = (self.peer.identity.country_code, self.peer.identity.party_id)
        return build_token(self.fake, owner, new_uid(self.fake, AD_HOC_USER), AD_HOC_USER, NEVER)

    async def act_command_start_session(self, location_id: str, evse_uid: str | None = None,
                                        connector_id: str | None = None) -> HttpExchange:
        """A driver starts charging from the app: START_SESSION with a new AD_HOC_USER Token of ours."""
        return await self._send(START_SESSION, token=self._app_token(), location_id=location_id, evse_uid=evse_uid,
                                connector_id=connector_id, authorization_reference=f"AUTH-{secrets.token_hex(6)}")

    async def act_command_stop_session(self, session_id: str) -> HttpExchange:
        return await self._send(STOP_SESSION, session_id=session_id)

    async def act_command_reserve_now(self, location_id: str, reservation_id: str, evse_uid: str | None = None
                                      ) -> HttpExchange:
        """A driver reserves for an hour from now."""
        expiry = format_datetime(utcnow() + timedelta(hours=1))
        return await self._send(RESERVE_NOW, token=self._app_token(), expiry_date=expiry,
                                reservation_id=reservation_id, location_id=location_id, evse_uid=evse_uid)

    async def act_command_cancel_reservation(self, reservation_id: str) -> HttpExchange:
        return await self._send(CANCEL_RESERVATION, reservation_id=reservation_id)

    async def act_command_unlock_connector(self, location_id: str, evse_uid: str, connector_id: str
                                           ) -> HttpExchange:
        """The help desk unlocks a stuck cable."""
        return await self._send(UNLOCK_CONNECTOR, location_id=location_id, evse_uid=evse_uid,
                                connector_id=connector_id)

