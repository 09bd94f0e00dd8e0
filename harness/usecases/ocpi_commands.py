"""Commands dialogues (module at 2.2.1): the eMSP sends a command to the CPO's Receiver, the CPO answers
with a CommandResponse and later POSTs the CommandResult to the eMSP's response_url. The rules are the rows
of ``harness.ocpi.commands.CommandRules``.

Played from either side: an eMSP under test is asked by the actuator (``command_start_session``, …) and its
request is awaited on the harness's CPO, which answers and POSTs the result back (the eMSP's answer to it
judged); the harness's own eMSP sends the command to a CPO under test and awaits the result on the
response_url it gave, for as long as the CPO's timeout (bounded by ``MAX_WAIT``).
"""

from __future__ import annotations

from typing import Any

from harness.ocpi import schemas
from harness.ocpi.commands import COMMANDS, SCHEMAS, CommandRules, token_problem
from harness.arena.ocpi import OcpiArena
from harness.roles import EMSP
from harness.usecases import ocpi_async
from harness.usecases.ocpi_async import MAX_WAIT, Asked as Command
from harness.verdict import require

__all__ = ["MAX_WAIT", "Command", "accepted", "response", "result", "send"]

FLOW = ocpi_async.Flow(COMMANDS, "command_response", CommandRules.command_response, CommandRules.request,
                       CommandRules.result_sent, CommandRules.result_url, CommandRules.result_answered)


async def send(arena: OcpiArena, name: str, **body: Any) -> Command:
    """The eMSP sends the command ``name`` (``body``: its fields but response_url and token). From an eMSP
    under test the request is judged: the command's object, a Token of its own."""
    mark, action = arena.mark(), f"command_{name.lower()}"
    if arena.is_sut(EMSP):
        answer = await arena.exchange(EMSP, "POST", COMMANDS, (name,), trigger=(action, body),
                                      rule=CommandRules.request)
    else:
        answer = await arena.act(EMSP, action, **body)
    sent = answer.request_json()
    require(isinstance(sent, dict), CommandRules.request, f"the {name} request carries no object",
            expected=SCHEMAS[name], actual=sent)
    schemas.check(SCHEMAS[name], sent)
    if arena.is_sut(EMSP):
        party = (arena.profile.get("ocpi.country_code", "NL"), arena.profile.get("ocpi.party_id", "REF"))
        problem = token_problem(name, sent, party)   # the SUT's party as its profile declares it
        require(problem is None, CommandRules.own_token, problem or "", expected="a Token of the eMSP",
                actual=sent.get("token"))
    return Command(name, sent, answer, mark, sent.get("response_url", ""), arena.is_sut(EMSP))


def response(command: Command) -> dict[str, Any]:
    """The CommandResponse the CPO answered, valid by its schema."""
    return ocpi_async.response(FLOW, command)


def accepted(command: Command) -> dict[str, Any]:
    """The CommandResponse, ACCEPTED; a CPO under test that does not support or rejects the command leaves
    nothing to follow (not applicable)."""
    return ocpi_async.accepted(FLOW, command)


async def result(arena: OcpiArena, command: Command, timeout: int) -> dict[str, Any]:
    """The CommandResult of an ACCEPTED command: a CPO under test's POST to the harness's response_url
    (awaited for ``timeout`` seconds, the CPO's own); the harness's CPO's POST to the eMSP under test, whose
    answer must be a success."""
    return await ocpi_async.result(arena, FLOW, command, timeout, "command_result")
