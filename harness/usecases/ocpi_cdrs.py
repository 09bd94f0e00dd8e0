"""CDRs dialogues (module at 2.2.1): a charging session that ends, the CDR the CPO POSTs for it to the
eMSP's Receiver (which answers with the CDR's Location), the CDR read back from the SUT, its Credit
CDR, and the pulls of the CPO's list. The rules are the rows of ``harness.ocpi.cdrs.CdrRules``.

Played from either side: a CPO under test is asked by the actuator (``send_cdr``, ``credit_cdr``) and
its POST is awaited on the harness's Receiver, then judged here against the Session it pushed before
(``session_problems``) and on its own (``cdr_problems``: periods, totals, Tariffs, costs); the
harness's own CPO performs the same action and returns the POST it sent, whose answer the eMSP under
test must give with a Location. The Session itself is played by the sessions dialogue
(``ocpi_sessions``): started, charged, stopped.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any
from urllib.parse import urljoin, urlsplit

from harness.cistring import same_id
from harness.ocpi import schemas
from harness.ocpi.cdrs import (
    CDR, CDRS, CdrRules, cdr_problems, credit_problems, location_problems, session_problems)
from harness.ocpi.locations import LOCATIONS
from harness.ocpi.envelope import expect_success
from harness.ocpi.sessions import COMPLETED
from harness.ocpi.timestamps import parse_datetime
from harness.arena.ocpi import OcpiArena, carrying, check_answer
from harness.roles import CPO, EMSP
from harness.rules import Rule
from harness.transport.http import HttpExchange
from harness.usecases import ocpi_credentials
from harness.usecases import ocpi_locations as loc
from harness.usecases import ocpi_sessions as ses
from harness.verdict import require, violated

LISTING = (CDRS, CDR, CdrRules.listed)
KWH = 18.4   # what a test's session charges


@dataclass
class Posted:
    """A CDR as the CPO POSTed it, and the URL the eMSP gave it (None from a CPO under test)."""
    cdr: dict[str, Any]
    location: str | None
    exchange: HttpExchange


async def charged(arena: OcpiArena, kwh: float = KWH, **body: Any) -> dict[str, Any]:
    """A Session the CPO started (``body``: authorization_reference, location_id, ...), charged ``kwh``
    and stopped: the Session as the harness holds it once COMPLETED."""
    if not arena.registered:
        await ocpi_credentials.registered(arena)
    session = await ses.start(arena, **body)
    await ses.change(arena, session["id"], kwh=kwh)
    await ses.stop(arena, session["id"])
    return copy.deepcopy(ses.held_by_harness(arena, session["id"]))


def _body(push: HttpExchange | None, rule: Rule) -> dict[str, Any]:
    body = push.request_json() if push is not None else None
    require(isinstance(body, dict), rule, "the CPO's POST carries no CDR", expected="a JSON object", actual=body)
    return body


def location_of(push: HttpExchange) -> str:
    """The URL the eMSP's answer to a CDR POST gives (absolute, resolved against the POST's URL)."""
    check_answer(push, CdrRules.location_header, "the CDR POST", success=True)
    given = push.header("Location")
    require(bool(given), CdrRules.location_header, "the answer to the CDR POST has no Location header",
            expected="Location: <URL of the CDR>", actual=dict(push.response_headers))
    return urljoin(push.url, given or "")


def judge(cdr: dict[str, Any], session: dict[str, Any] | None = None) -> None:
    """A CDR from a CPO under test, on its own and against the Session it records."""
    schemas.check(CDR, cdr)
    found = cdr_problems(cdr) + (session_problems(cdr, session) if session is not None else [])
    for row, problem in found:
        violated(row, problem, expected="a CDR as OCPI 2.2.1 §10.3.1 defines it", actual=_excerpt(cdr))


def _excerpt(cdr: dict[str, Any]) -> dict[str, Any]:
    return {name: cdr.get(name) for name in ("id", "session_id", "start_date_time", "end_date_time", "total_energy",
                                             "total_time", "total_cost", "currency", "auth_method")}


async def _cpo_posts(arena: OcpiArena, action: str, rule: Rule, carries: dict[str, Any], **body: Any) -> HttpExchange:
    """The CDR POST ``action`` makes (a CPO under test's: the one that ``carries`` what was asked, not another
    driver's)."""
    if arena.is_sut(CPO):
        push = await arena.exchange(CPO, "POST", CDRS, (), trigger=(action, body), rule=rule, asked=carrying(carries))
        mine = urlsplit(arena.harness_peer.module_url(CDRS)).path.rstrip("/")
        require(urlsplit(push.url).path.rstrip("/") == mine, CdrRules.post_url, "the CDR was POSTed below the "
                "cdrs endpoint", expected=mine, actual=urlsplit(push.url).path)
        return push
    return await arena.act(CPO, action, **body)


async def post(arena: OcpiArena, session: dict[str, Any], *, rule: Rule = CdrRules.posted) -> Posted:
    """The CPO POSTs the CDR of the ended ``session``. From a CPO under test the CDR is judged (see
    ``judge``, and that its Session had ended); from the harness's CPO the eMSP under test must answer
    with success and a Location."""
    if arena.is_sut(CPO):
        ended = ses.held_by_harness(arena, session["id"]).get("status")
        push = await _cpo_posts(arena, "send_cdr", rule, {"session_id": session["id"]}, session_id=session["id"])
        cdr = _body(push, rule)
        require(ended == COMPLETED, CdrRules.after_session, "the CDR was posted before its Session ended",
                expected=COMPLETED, actual=ended)
        judge(cdr, session)
        return Posted(cdr, None, push)
    push = await _cpo_posts(arena, "send_cdr", rule, {"session_id": session["id"]}, session_id=session["id"])
    return Posted(_body(push, rule), location_of(push), push)


async def credit(arena: OcpiArena, original: Posted, *, rule: Rule = CdrRules.credit_reference) -> Posted:
    """The CPO credits the CDR ``original``: the Credit CDR it POSTed, judged from a CPO under test."""
    push = await _cpo_posts(arena, "credit_cdr", rule, {"credit_reference_id": original.cdr["id"]},
                            cdr_id=original.cdr["id"])
    cdr = _body(push, rule)
    if arena.is_sut(CPO):
        judge(cdr)
        for row, problem in credit_problems(cdr, original.cdr):
            violated(row, problem, expected="a Credit CDR of " + str(original.cdr["id"]), actual=_excerpt(cdr))
        return Posted(cdr, None, push)
    return Posted(cdr, location_of(push), push)


async def sent_cdr(arena: OcpiArena, **body: Any) -> Posted:
    """A session charged and ended, and its CDR POSTed (registered first)."""
    return await post(arena, await charged(arena, **body))


# ------------------------------------------------------------------------------ reading back
async def read(arena: OcpiArena, location: str) -> HttpExchange:
    """A GET of the CDR at ``location``, the URL the eMSP under test gave."""
    return await arena.send("GET", location, token=arena.token_to_sut, module=CDRS)


async def held_by_sut(arena: OcpiArena, posted: Posted) -> dict[str, Any] | None:
    """The CDR as the SUT holds it: an eMSP's at its Location; a CPO's from its list (date_from: the CDR's
    last_updated). None when a CPO's list leaves it out (a finding: it may list only what it deems
    relevant)."""
    if arena.is_sut(EMSP):
        exchange = await read(arena, posted.location or "")
        check_answer(exchange, CdrRules.stored, "the GET of the CDR at its Location", success=True)
        found = expect_success(exchange.status, exchange.response_body)
        require(isinstance(found, dict), CdrRules.stored, "a GET of the CDR answered no object",
                expected="a CDR", actual=found)
    else:
        listed = (await listing(arena, date_from=posted.cdr["last_updated"])).items
        found = next((c for c in listed if same_id(c.get("id"), posted.cdr["id"])), None)
        if found is None:
            violated(CdrRules.listed_pushed, f"the list from {posted.cdr['last_updated']} lacks the CDR "
                     f"{posted.cdr['id']} posted to the harness", expected=posted.cdr["id"],
                     actual=[c.get("id") for c in listed])
            return None
    schemas.check(CDR, found)
    return found


def _instants(value: Any) -> Any:
    """``value`` with its DateTimes as instants (the same moment in any legal spelling compares equal)."""
    if isinstance(value, dict):
        return {k: _moment(v) if k.endswith("date_time") or k == "last_updated" else _instants(v)
                for k, v in value.items()}
    if isinstance(value, list):
        return [_instants(item) for item in value]
    return value


def _moment(text: Any) -> Any:
    try:
        return parse_datetime(text).isoformat()
    except ValueError:
        return text


def check_held(arena: OcpiArena, posted: dict[str, Any], held: dict[str, Any], rule: Rule | None = None,
               members: tuple[str, ...] = ()) -> None:
    """The SUT holds the CDR as it was posted, member by member (``members``, by default all of them):
    CiStrings ignoring case, null as absent, DateTimes by instant."""
    rule = rule or (CdrRules.stored if arena.is_sut(EMSP) else CdrRules.listed_pushed)
    for name in members or sorted(set(posted) | set(held)):
        if not schemas.same_object({name: _instants(posted.get(name))}, {name: _instants(held.get(name))}):
            violated(rule, f"the SUT holds another {name} than was posted", expected=posted.get(name),
                     actual=held.get(name))


async def check_read_back(arena: OcpiArena, posted: Posted, *members: str) -> None:
    """The CDR read back from the SUT (``held_by_sut``) holds ``members`` as posted."""
    held = await held_by_sut(arena, posted)
    if held is not None:
        check_held(arena, posted.cdr, held, members=members)


def credits_in(listed: list[dict[str, Any]]) -> None:
    """Each Credit CDR of a CPO's list credits, by the rules, the CDR of the list it names (when listed)."""
    for credit in (c for c in listed if c.get("credit")):
        original = next((c for c in listed if not c.get("credit")
                         and same_id(c.get("id"), credit.get("credit_reference_id"))), None)
        for row, problem in credit_problems(credit, original) if original is not None else []:
            violated(row, problem, expected=f"a Credit CDR of {original['id']}", actual=_excerpt(credit))


async def published_location(arena: OcpiArena, location_id: str) -> dict[str, Any]:
    """The Location ``location_id`` as the CPO publishes it: a CPO under test's from its locations Sender
    (GET by id), the harness's CPO's own."""
    if arena.is_sut(CPO):
        return await loc.sut_object(arena, (location_id,))
    found = next((x for x in arena.harness_peer.objects(LOCATIONS) if same_id(x["id"], location_id)), None)
    require(found is not None, CdrRules.location_details, f"the harness's CPO has no Location {location_id}",
            expected=location_id, actual=None)
    return found


def check_location(cdr: dict[str, Any], location: dict[str, Any]) -> None:
    """The CDR's cdr_location holds what the published Location says (``location_problems``)."""
    for row, problem in location_problems(cdr, location):
        violated(row, problem, expected="the published Location's", actual=cdr.get("cdr_location"))


async def listing(arena: OcpiArena, **query: Any):
    """Every page of the CPO under test's CDR list for ``query`` (see ``ocpi_locations.walk``)."""
    return await loc.walk(arena, listing=LISTING, **query)


async def sut_cdrs(arena: OcpiArena) -> list[dict[str, Any]]:
    """The CDRs the CPO under test lists (registered first)."""
    if not arena.registered:
        await ocpi_credentials.registered(arena)
    return (await listing(arena)).items
