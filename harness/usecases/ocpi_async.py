"""The asynchronous exchange OCPI's commands and chargingprofiles modules share (2.2.1 §13.1, §14.3): the eMSP
asks the CPO's Receiver, giving a ``response_url``; the CPO answers at once (a result and a timeout) and, when
it ACCEPTED, later POSTs the charge point's result to that URL, which the eMSP answers.

Played from either side: a CPO under test's POST is awaited on the harness's eMSP for the CPO's own timeout
(plus the action timeout, at most ``MAX_WAIT``) and must go to the response_url exactly, its query included;
the harness's CPO's POST to an eMSP under test is awaited as the background task its Receiver keeps in the
record of the request (``{"response_url": …, "result": task}``), and the eMSP's answer must be a success.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from harness.arena.ocpi import OcpiArena, check_answer
from harness.errors import NotApplicable
from harness.ocpi import schemas
from harness.ocpi.envelope import expect_success
from harness.roles import EMSP
from harness.rules import Rule
from harness.transport.http import HttpExchange, Served
from harness.verdict import require

MAX_WAIT = 300.0   # the longest the harness waits for a result, whatever timeout the CPO gave
ACCEPTED = "ACCEPTED"   # the one answer of the Receiver after which a result follows (§13.4.1, §14.6.5)


@dataclass
class Asked:
    """One request of the eMSP: what it asked (``name``), what it sent, the CPO's answer, the mark before it was
    sent, and the URL the result is due at."""
    name: str
    sent: dict[str, Any]
    answer: HttpExchange
    mark: int
    response_url: str
    by_sut: bool = False   # an eMSP under test sent it: the harness's CPO answered


@dataclass(frozen=True)
class Flow:
    """The rows and schemas of one module's asynchronous exchange."""
    module: str
    response_schema: str   # what the Receiver answers at once
    answer_rule: Rule      # that answer is a success carrying it
    requested: Rule        # the eMSP's request (the harness's CPO must hold a record of it)
    sent: Rule             # the CPO POSTs the result, within its timeout
    url: Rule              # to the response_url exactly
    answered: Rule         # the eMSP answers that POST with success
    no_data: bool = False  # the eMSP's answer leaves data out


def response(flow: Flow, asked: Asked) -> dict[str, Any]:
    """The Receiver's immediate answer, a success valid by its schema."""
    check_answer(asked.answer, flow.answer_rule, f"the {asked.name} request", success=True)
    data = expect_success(asked.answer.status, asked.answer.response_body)
    require(isinstance(data, dict), flow.answer_rule, f"the answer to {asked.name} holds no {flow.response_schema}",
            expected=flow.response_schema, actual=data)
    schemas.check(flow.response_schema, data)
    return data


def accepted(flow: Flow, asked: Asked) -> dict[str, Any]:
    """The immediate answer, ACCEPTED; a CPO under test that answered otherwise (not supported, rejected, too
    often) leaves nothing to follow (not applicable). The harness's CPO accepts every request a test asks an eMSP
    under test for: its refusal is the request's fault (``flow.requested``)."""
    said = response(flow, asked)
    require(not asked.by_sut or said["result"] == ACCEPTED, flow.requested, f"the harness's CPO did not accept the "
            f"eMSP's {asked.name}", expected=ACCEPTED, actual=said["result"])
    if said["result"] != ACCEPTED:
        raise NotApplicable(f"the CPO answered {asked.name} {said['result']}: no result follows")
    return said


def _query(url: str) -> list[tuple[str, str]]:
    return sorted(parse_qsl(urlsplit(url).query, keep_blank_values=True))


async def result(arena: OcpiArena, flow: Flow, asked: Asked, timeout: int, schema: str) -> dict[str, Any]:
    """The result (of ``schema``) of an ACCEPTED request: a CPO under test's POST to the harness's response_url,
    awaited for ``timeout`` seconds (the CPO's own); the harness's CPO's POST to the eMSP under test, whose answer
    must be a success (without data when the flow says so)."""
    url = asked.response_url
    if arena.is_sut(EMSP):
        posted = await _harness_result(arena, flow, url, timeout)
        check_answer(posted, flow.answered, f"the {asked.name} result POST to {url}", success=True)
        if flow.no_data:
            data = (posted.json() or {}).get("data") if isinstance(posted.json(), dict) else None
            require(data is None, flow.answered, f"the answer to the {asked.name} result POST carries data",
                    expected="no data field", actual=data)
        body = posted.request_json()
    else:
        path = urlsplit(url).path.rstrip("/")

        def at_path(served: Served) -> bool:
            return urlsplit(served.exchange.url).path.rstrip("/") == path

        served = await arena.expect_request("POST", flow.module, after=asked.mark, rule=flow.sent, where=at_path,
                                            what=f"the {asked.name} result POST to {url}",
                                            timeout=min(float(timeout) + arena.timeouts.action, MAX_WAIT))
        require(_query(served.exchange.url) == _query(url), flow.url, f"the {asked.name} result went to another "
                "URL than the response_url", expected=url, actual=served.exchange.url)
        body = served.exchange.request_json()
    schemas.check(schema, body)
    return body


async def _harness_result(arena: OcpiArena, flow: Flow, url: str, timeout: int) -> HttpExchange:
    """The harness's CPO's result POST to ``url`` and the eMSP's answer to it."""
    records = arena.harness_peer.objects(flow.module)
    record = next((r for r in reversed(records) if r.get("response_url") == url and r.get("result") is not None),
                  None)
    require(record is not None, flow.requested, f"the harness's CPO accepted no request with response_url {url}",
            expected=url, actual=[r.get("response_url") for r in records])
    return await asyncio.wait_for(asyncio.shield(record["result"]), min(float(timeout), MAX_WAIT))
