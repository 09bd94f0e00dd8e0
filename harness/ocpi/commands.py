"""The commands module (2.2.1) as rules: the eMSP (Sender of commands) POSTs START_SESSION, STOP_SESSION,
RESERVE_NOW, CANCEL_RESERVATION or UNLOCK_CONNECTOR to the CPO's Receiver at ``{commands}/{command}``; the
CPO answers at once with a CommandResponse (result, timeout) and, once the charge point answered, POSTs a
CommandResult to the ``response_url`` the eMSP gave, within that timeout.

Readings where the text is silent (docs/requirements/ocpi-commands.md): a command naming a Location the CPO
does not know is refused, 2003 advised (the status codes table's example), a success with a result other than
ACCEPTED is accepted too; a STOP_SESSION of an unknown Session is answered UNKNOWN_SESSION (advised: the value
exists for it) or otherwise refused; a command type the CPO does not know in the URL is any error.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from harness.cistring import same_id
from harness.rules import RuleTable, must, should

COMMANDS = "commands"
START_SESSION, STOP_SESSION, RESERVE_NOW = "START_SESSION", "STOP_SESSION", "RESERVE_NOW"
CANCEL_RESERVATION, UNLOCK_CONNECTOR = "CANCEL_RESERVATION", "UNLOCK_CONNECTOR"
SCHEMAS = {START_SESSION: "start_session", STOP_SESSION: "stop_session", RESERVE_NOW: "reserve_now",
           CANCEL_RESERVATION: "cancel_reservation", UNLOCK_CONNECTOR: "unlock_connector"}
ACCEPTED, REJECTED, NOT_SUPPORTED, UNKNOWN_SESSION = "ACCEPTED", "REJECTED", "NOT_SUPPORTED", "UNKNOWN_SESSION"
UNKNOWN_RESERVATION = "UNKNOWN_RESERVATION"
WITH_TOKEN = (START_SESSION, RESERVE_NOW)

_MOD = "OCPI 2.2.1 §13"
_RECEIVER = f"{_MOD}.2.1 Receiver interface POST"
_SENDER = f"{_MOD}.2.2 Sender interface POST"


class CommandRules(RuleTable, namespace="ocpi.commands"):
    """The commands module: the eMSP's command requests and result answers, the CPO's responses and results."""
    request = must(f"{_RECEIVER} request body (the body SHALL be the object of the command); §13.3", "a command "
                   "is POSTed to {commands}/{command} with that command's object, response_url included", by="emsp")
    own_token = must(f"{_MOD}.3.4 ReserveNow, §13.3.5 StartSession (the eMSP SHALL use only Tokens it owns)",
                     "the Token of a START_SESSION or RESERVE_NOW is one of the eMSP's own", by="emsp")
    result_answered = must(f"{_SENDER} (receives the asynchronous result)", "the eMSP answers the CPO's "
                           "CommandResult POST with success", by="emsp")
    command_response = must(f"{_RECEIVER} response data (a CommandResponse, Card. 1); §13.3.2", "a command is "
                            "answered at once with a CommandResponse: a result and a timeout in seconds", by="cpo")
    result_sent = must(f"{_SENDER} (the CPO is required to use the response_url for the result); §13.3.2 timeout",
                       "after an ACCEPTED CommandResponse the CPO POSTs a CommandResult to the response_url, "
                       "within the timeout it gave", by="cpo")
    result_url = must(f"{_SENDER} (the URL given by the eMSP, used as given)", "the CommandResult goes to the "
                      "response_url exactly", by="cpo")
    no_token_check = must(f"{_MOD}.3.5 StartSession, §13.3.4 ReserveNow (the CPO SHALL NOT check the validity of "
                          "the Token before sending the request to the charge point; unknown Tokens need not be "
                          "stored)", "a START_SESSION with an app Token the CPO never got is not REJECTED for it",
                          by="cpo")
    no_realtime = must(f"{_MOD}.3.5 StartSession (for an AD_HOC_USER or APP_USER Token the CPO SHALL NOT do a "
                       "real-time authorization)", "the CPO does not ask the eMSP to authorize the app Token of a "
                       "START_SESSION", by="cpo")
    post_only = must(f"{_MOD}.2.1 Receiver interface (GET, PUT, PATCH and DELETE: n/a)", "the CPO's commands "
                     "endpoint takes POST only: any other method is refused", by="cpo")
    command_type = must(f"{_RECEIVER} request parameters (command: a CommandType, §13.4.3)", "a POST to "
                        "{commands}/{anything but a CommandType} is refused or answered NOT_SUPPORTED (never "
                        "ACCEPTED)", by="cpo")
    replaced = should(f"{_MOD}.3.4 ReserveNow (a RESERVE_NOW with the same Location and reservation_id replaces "
                      "the reservation)", "a RESERVE_NOW with the id of a reservation made is not refused for it",
                      by="cpo")
    unknown_session = should(f"{_MOD}.4.1 CommandResponseType UNKNOWN_SESSION", "a STOP_SESSION of a Session the "
                             "CPO does not know is answered UNKNOWN_SESSION", by="cpo")
    unknown_location = should("OCPI 2.2.1 §5 status codes (2003: for example a START_SESSION at an unknown "
                              "Location)", "a command naming a Location the CPO does not know is answered 2003",
                              by="cpo")
    not_accepted_unknown = must(f"{_RECEIVER} response (ACCEPTED: the CPO can send the command on); §13.4.1",
                                "a command naming a Location or Session the CPO does not know is not ACCEPTED",
                                by="cpo")
    unknown_reservation = should(f"{_MOD}.4.2 CommandResultType UNKNOWN_RESERVATION", "a CANCEL_RESERVATION of a "
                                 "reservation nobody made ends with the result UNKNOWN_RESERVATION (or is not "
                                 "ACCEPTED at all)", by="cpo")


def token_problem(command: str, body: Mapping[str, Any], owner: tuple[str, str]) -> str | None:
    """Why the Token of ``body`` is not one of the eMSP ``owner``'s (None when it is, or the command has none)."""
    if command not in WITH_TOKEN:
        return None
    token = body.get("token") or {}
    if same_id(token.get("country_code"), owner[0]) and same_id(token.get("party_id"), owner[1]):
        return None
    return f"the Token of {command} belongs to {token.get('country_code')}/{token.get('party_id')}"
