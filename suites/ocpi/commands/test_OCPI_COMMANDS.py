"""OCPI_COMMANDS — the eMSP's commands to the CPO and their asynchronous results (commands 2.2.1;
``CommandRules`` in harness/ocpi/commands.py; docs/requirements/ocpi-commands.md).

Played with either platform under test; the eMSP always sends the command (an eMSP under test through the
actuator: ``command_start_session``, ``command_stop_session``, ``command_reserve_now``,
``command_cancel_reservation``, ``command_unlock_connector``). The CPO answers at once with a CommandResponse
(result, timeout); an ACCEPTED command's CommandResult is POSTed to the response_url the eMSP gave, within the
timeout, and the eMSP answers it with success. A CPO under test is also given what it must not accept: a
Location or a Session it does not have, a reservation nobody made; and a START_SESSION with an app Token it
never got, which it must neither refuse for that nor authorize in real time.
"""

import secrets

import pytest

from harness.arena.ocpi import check_answer
from harness.ocpi.commands import (
    ACCEPTED, CANCEL_RESERVATION, COMMANDS, RESERVE_NOW, START_SESSION, STOP_SESSION, UNKNOWN_RESERVATION,
    UNKNOWN_SESSION, UNLOCK_CONNECTOR, CommandRules as Cmd)
from harness.ocpi.envelope import StatusCode, outcome
from harness.ocpi.tokens import AUTHORIZE, TOKENS
from harness.roles import CPO, EMSP
from harness.suite import OCPI, case, checks
from harness.usecases import ocpi_commands as cmd
from harness.usecases import ocpi_credentials as creds
from harness.usecases import ocpi_locations as loc
from harness.usecases import ocpi_sessions as ses
from harness.verdict import check_equal, check_in, require

pytestmark = case("OCPI_COMMANDS", block="Commands", roles=(CPO, EMSP), protocols=OCPI)

FOLLOWED = (Cmd.request, Cmd.command_response, Cmd.result_sent, Cmd.result_url, Cmd.result_answered)


def _reservation_id() -> str:
    return f"RES-{secrets.token_hex(6).upper()}"


async def _body(ocpi, name: str) -> dict:
    """The fields of a command the CPO can carry out: at its first Location's first EVSE, on a Session it
    started, for a reservation just made."""
    location_id, evse_uid, connector_id = loc.pushed_location(ocpi)
    if name == START_SESSION:
        return {"location_id": location_id, "evse_uid": evse_uid}
    if name == STOP_SESSION:
        return {"session_id": (await ses.start(ocpi))["id"]}
    if name == RESERVE_NOW:
        return {"location_id": location_id, "evse_uid": evse_uid, "reservation_id": _reservation_id()}
    if name == CANCEL_RESERVATION:
        reserve = await cmd.send(ocpi, RESERVE_NOW, location_id=location_id, evse_uid=evse_uid,
                                 reservation_id=_reservation_id())
        await cmd.result(ocpi, reserve, cmd.accepted(reserve)["timeout"])
        return {"reservation_id": reserve.sent["reservation_id"]}
    return {"location_id": location_id, "evse_uid": evse_uid, "connector_id": connector_id}


@pytest.mark.parametrize("name", [START_SESSION, STOP_SESSION, RESERVE_NOW, CANCEL_RESERVATION, UNLOCK_CONNECTOR])
@checks(*FOLLOWED, Cmd.own_token)
async def test_command_is_answered_then_its_result_posted(ocpi, name):
    """A command the CPO can carry out: a CommandResponse at once; when ACCEPTED, a CommandResult POSTed to
    the response_url as given, within the timeout, answered with success by the eMSP."""
    await creds.registered(ocpi)
    command = await cmd.send(ocpi, name, **await _body(ocpi, name))
    said = cmd.accepted(command)
    done = await cmd.result(ocpi, command, said["timeout"])
    if ocpi.is_sut(EMSP):   # the harness's CPO's charge points do what they are asked
        check_equal(Cmd.result_answered, f"result of the {name}", ACCEPTED, done["result"])


@checks(*FOLLOWED)
async def test_start_session_at_a_named_connector(ocpi):
    """A START_SESSION naming the EVSE and its connector (evse_uid given with connector_id) is followed
    through like any other."""
    await creds.registered(ocpi)
    location_id, evse_uid, connector_id = loc.pushed_location(ocpi)
    command = await cmd.send(ocpi, START_SESSION, location_id=location_id, evse_uid=evse_uid,
                             connector_id=connector_id)
    check_equal(Cmd.request, "evse_uid of a START_SESSION with a connector_id", evse_uid,
                command.sent.get("evse_uid"), same=lambda a, b: (a or "").casefold() == (b or "").casefold())
    await cmd.result(ocpi, command, cmd.accepted(command)["timeout"])


@checks(*FOLLOWED)
async def test_reserve_now_for_a_location(ocpi):
    """A RESERVE_NOW naming a Location and no EVSE (the charge point keeps one free) is followed through."""
    await creds.registered(ocpi)
    command = await cmd.send(ocpi, RESERVE_NOW, location_id=loc.pushed_location(ocpi)[0],
                             reservation_id=_reservation_id())
    await cmd.result(ocpi, command, cmd.accepted(command)["timeout"])


# ------------------------------------------------------------------------------ a CPO under test
@pytest.mark.sut_roles("cpo")
@checks(Cmd.not_accepted_unknown, Cmd.unknown_session, Cmd.command_response)
async def test_stop_of_an_unknown_session_is_not_accepted(ocpi):
    """A STOP_SESSION of a Session the CPO never had is not ACCEPTED; UNKNOWN_SESSION is the answer made for it."""
    await creds.registered(ocpi)
    command = await cmd.send(ocpi, STOP_SESSION, session_id=f"SES-NONE-{secrets.token_hex(4).upper()}")
    said = outcome(command.answer.status, command.answer.response_body)
    if not said.ok:
        return   # refused outright: not ACCEPTED either
    result = cmd.response(command)["result"]
    require(result != ACCEPTED, Cmd.not_accepted_unknown, "a STOP_SESSION of an unknown Session is ACCEPTED",
            expected=UNKNOWN_SESSION, actual=result)
    check_equal(Cmd.unknown_session, "result for an unknown Session", UNKNOWN_SESSION, result)


@pytest.mark.sut_roles("cpo")
@pytest.mark.parametrize("name", [START_SESSION, RESERVE_NOW, UNLOCK_CONNECTOR])
@checks(Cmd.not_accepted_unknown, Cmd.unknown_location)
async def test_command_at_an_unknown_location_is_not_accepted(ocpi, name):
    """A command at a Location the CPO does not have is not ACCEPTED; 2003 (unknown Location) is advised."""
    await creds.registered(ocpi)
    body = {**await _body(ocpi, name), "location_id": f"LOC-NONE-{secrets.token_hex(4).upper()}"}
    command = await cmd.send(ocpi, name, **body)
    said = outcome(command.answer.status, command.answer.response_body)
    if said.ok:
        check_in(Cmd.not_accepted_unknown, f"result of a {name} at an unknown Location",
                 ("REJECTED", "NOT_SUPPORTED"), cmd.response(command)["result"])
    check_equal(Cmd.unknown_location, f"status_code of a {name} at an unknown Location",
                StatusCode.UNKNOWN_LOCATION, said.status_code)


@pytest.mark.sut_roles("cpo")
@checks(Cmd.no_token_check, Cmd.no_realtime, Cmd.command_response)
async def test_app_token_start_is_neither_checked_nor_authorized(ocpi):
    """A START_SESSION with a new AD_HOC_USER Token the CPO never got is not REJECTED for it, and the CPO
    asks the eMSP nothing about that Token."""
    await creds.registered(ocpi)
    command = await cmd.send(ocpi, START_SESSION, **await _body(ocpi, START_SESSION))
    check_answer(command.answer, Cmd.command_response, "the START_SESSION", success=True)
    result = cmd.response(command)["result"]
    require(result != "REJECTED", Cmd.no_token_check, "a START_SESSION with a Token the CPO never got is "
            "REJECTED", expected="ACCEPTED (or NOT_SUPPORTED)", actual=result)
    await ocpi.expect_no_request("POST", TOKENS, (command.sent["token"]["uid"], AUTHORIZE), after=command.mark,
                                 rule=Cmd.no_realtime)


@pytest.mark.sut_roles("cpo")
@checks(Cmd.unknown_reservation, Cmd.result_sent)
async def test_cancel_of_a_reservation_nobody_made(ocpi):
    """A CANCEL_RESERVATION of a reservation never made: not ACCEPTED, or ACCEPTED and ending with the result
    UNKNOWN_RESERVATION."""
    await creds.registered(ocpi)
    command = await cmd.send(ocpi, CANCEL_RESERVATION, reservation_id=_reservation_id())
    said = outcome(command.answer.status, command.answer.response_body)
    if not said.ok or cmd.response(command)["result"] != ACCEPTED:
        return
    done = await cmd.result(ocpi, command, cmd.response(command)["timeout"])
    check_equal(Cmd.unknown_reservation, "result of cancelling a reservation nobody made", UNKNOWN_RESERVATION,
                done["result"])




@checks(*FOLLOWED, Cmd.replaced)
async def test_reserve_now_again_with_the_same_id(ocpi):
    """A RESERVE_NOW, then another with the same Location and reservation_id (an update): the second is
    followed through like the first, not refused for its id."""
    await creds.registered(ocpi)
    location_id, evse_uid, _ = loc.pushed_location(ocpi)
    reservation = {"location_id": location_id, "evse_uid": evse_uid, "reservation_id": _reservation_id()}
    first = await cmd.send(ocpi, RESERVE_NOW, **reservation)
    await cmd.result(ocpi, first, cmd.accepted(first)["timeout"])
    again = await cmd.send(ocpi, RESERVE_NOW, **reservation)
    check_in(Cmd.replaced, "result of the RESERVE_NOW with the same id", (ACCEPTED, "NOT_SUPPORTED"),
             cmd.response(again)["result"])
    if cmd.response(again)["result"] == ACCEPTED:
        await cmd.result(ocpi, again, cmd.response(again)["timeout"])


@pytest.mark.sut_roles("cpo")
@pytest.mark.parametrize("method", ["GET", "PUT", "DELETE"])
@checks(Cmd.post_only)
async def test_other_methods_are_refused(ocpi, method):
    """The commands endpoint takes POST only: a GET, PUT or DELETE of {commands}/START_SESSION is refused."""
    await creds.registered(ocpi)
    body = None if method in ("GET", "DELETE") else {"location_id": loc.pushed_location(ocpi)[0]}
    answer = await ocpi.send(method, ocpi.sut_url(COMMANDS, START_SESSION), token=ocpi.token_to_sut,
                             module=COMMANDS, body=body)
    check_answer(answer, Cmd.post_only, f"a {method} of the commands endpoint", success=False)


@pytest.mark.sut_roles("cpo")
@checks(Cmd.command_type)
async def test_unknown_command_is_refused(ocpi):
    """A POST to {commands}/SELF_DESTRUCT (no CommandType) is refused, or answered NOT_SUPPORTED or REJECTED."""
    await creds.registered(ocpi)
    location_id = loc.pushed_location(ocpi)[0]
    answer = await ocpi.send("POST", ocpi.sut_url(COMMANDS, "SELF_DESTRUCT"), token=ocpi.token_to_sut,
                             module=COMMANDS, body={"response_url": ocpi.harness_emsp.module_url(COMMANDS),
                                                    "location_id": location_id})
    if outcome(answer.status, answer.response_body).ok:   # a success may only say it is not supported
        unknown = cmd.Command("SELF_DESTRUCT", {}, answer, 0, "")
        check_in(Cmd.command_type, "result of an unknown command", ("NOT_SUPPORTED", "REJECTED"),
                 cmd.response(unknown)["result"])
