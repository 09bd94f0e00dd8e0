"""Commands dialogues (module at 2.2.1): the eMSP sends a command to the CPO's Receiver, the CPO answers
with a CommandResponse and later POSTs the CommandResult to the eMSP's response_url. The rules are the rows
of ``harness.ocpi.commands.CommandRules``.

Played from either side: an eMSP under test is asked by the actuator (``command_start_session``, …) and its
request is awaited on the harness's CPO, which answers and POSTs the result back (the eMSP's answer to it
judged); the harness's own eMSP sends the command to a CPO under test and awaits the result on the
response_url it gave, for as long as the CPO's timeout (bounded by ``MAX_WAIT``).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from harness.errors import NotApplicable
from harness.ocpi import schemas
from harness.ocpi.commands import ACCEPTED, COMMANDS, SCHEMAS, CommandRules, token_problem
from harness.ocpi.envelope import expect_success
from harness.arena.ocpi import OcpiArena, check_answer
from harness.roles import EMSP
from harness.transport.http import HttpExchange
from harness.verdict import require

MAX_WAIT = 300.0   # the longest the harness waits for a CommandResult, whatever timeout the CPO gave


@dataclass
class Command:
    """One command: what the eMSP sent, the CPO's answer, and the mark before it was sent."""
    name: str
    sent: dict[str, Any]
    answer: HttpExchange
    mark: int


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
    return Command(name, sent, answer, mark)


def response(command: Command) -> dict[str, Any]:
    """The CommandResponse the CPO answered, valid by its schema."""
    check_answer(command.answer, CommandRules.command_response, f"the {command.name} request", success=True)
    data = expect_success(command.answer.status, command.answer.response_body)
    require(isinstance(data, dict), CommandRules.command_response, f"the answer to {command.name} holds no "
            "CommandResponse", expected="a CommandResponse", actual=data)
    schemas.check("command_response", data)
    return data


def accepted(command: Command) -> dict[str, Any]:
    """The CommandResponse, ACCEPTED; a CPO under test that does not support or rejects the command leaves
    nothing to follow (not applicable)."""
    said = response(command)
    if said["result"] != ACCEPTED:
        raise NotApplicable(f"the CPO answered {command.name} {said['result']}: no result follows")
    return said


async def result(arena: OcpiArena, command: Command, timeout: int) -> dict[str, Any]:
    """The CommandResult of an ACCEPTED command: a CPO under test's POST to the harness's response_url
    (awaited for ``timeout`` seconds, the CPO's own); the harness's CPO's POST to the eMSP under test, whose
    answer must be a success."""
    url = command.sent["response_url"]
    if arena.is_sut(EMSP):
        posted = await _harness_result(arena, url, timeout)
        check_answer(posted, CommandRules.result_answered, f"the CommandResult POST to {url}", success=True)
        body = posted.request_json()
    else:
        path = urlsplit(url).path.rstrip("/")
        served = await arena.expect_request(
            "POST", COMMANDS, after=command.mark, rule=CommandRules.result_sent,
            where=lambda s: s.exchange.path.rstrip("/") == path, what=f"the {command.name} CommandResult POST to "
            f"{url}", timeout=min(float(timeout) + arena.timeouts.action, MAX_WAIT))
        body = served.exchange.request_json()
    schemas.check("command_result", body)
    return body


async def _harness_result(arena: OcpiArena, url: str, timeout: int) -> HttpExchange:
    """The harness's CPO's CommandResult POST to ``url`` and the eMSP's answer to it."""
    record = next((c for c in reversed(arena.harness_peer.objects(COMMANDS))
                   if c["request"].get("response_url") == url and c.get("result") is not None), None)
    require(record is not None, CommandRules.request, f"the harness's CPO accepted no command with response_url "
            f"{url}", expected=url, actual=[c["request"].get("response_url") for c in
                                            arena.harness_peer.objects(COMMANDS)])
    return await asyncio.wait_for(asyncio.shield(record["result"]), min(float(timeout), MAX_WAIT))
