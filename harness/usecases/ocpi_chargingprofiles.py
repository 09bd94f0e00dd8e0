"""ChargingProfiles dialogues (module at 2.2.1): the eMSP (the smart charging party) asks the CPO's Receiver for
the ActiveChargingProfile (GET), sets a ChargingProfile (PUT) or clears it (DELETE) on a Session; the CPO answers
with a ChargingProfileResponse and later POSTs the result to the eMSP's response_url (``ocpi_async``); the CPO
PUTs a changed ActiveChargingProfile to the eMSP. The rules are the rows of ``ChargingProfileRules``.

Played from either side: an eMSP under test is asked by the actuator (``charging_profile_get``,
``charging_profile_set``, ``charging_profile_clear``) and its request is awaited on the harness's CPO, which
answers and POSTs the result back (the eMSP's answer judged); the harness's own eMSP sends the request to a CPO
under test and awaits the result on the response_url it gave. A CPO under test is asked for a local limit at an
EVSE by ``change_active_profile``.
"""

from __future__ import annotations

import random
import re
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from harness.arena.ocpi import OcpiArena, check_answer
from harness.ocpi import schemas
from harness.ocpi.chargingprofiles import (
    ACTIVE_PROFILE, CHARGINGPROFILES, DELETE, GET, GUIDE, PUT, RESPONSE, RESULTS, SET, ChargingProfileRules as Rules,
    extra_decimals, sample_profile, span)
from harness.roles import CPO, EMSP
from harness.transport.http import HttpExchange
from harness.usecases import ocpi_async
from harness.usecases.ocpi_async import Asked
from harness.verdict import check_equal, require

ACTIONS = {GET: "charging_profile_get", PUT: "charging_profile_set", DELETE: "charging_profile_clear"}
FLOW = ocpi_async.Flow(CHARGINGPROFILES, RESPONSE, Rules.profile_response, Rules.request, Rules.result_sent,
                       Rules.result_url, Rules.result_answered, no_data=True)
SEED = 2214


def a_profile(n: int = 0) -> dict[str, Any]:
    """The ``n``-th ChargingProfile a test asks for, drawn from a faker seeded for it."""
    return sample_profile(random.Random(SEED + n))   # what a Faker seeded with it draws from


async def ask(arena: OcpiArena, method: str, session_id: str, **body: Any) -> Asked:
    """The eMSP sends ``method`` for ``session_id`` (``body``: duration for GET, charging_profile for PUT; query:
    a response_url with a query string, asked of the harness's eMSP). From an eMSP under test the request is
    judged: its parameters, its profile as asked, one decimal at most."""
    mark, action = arena.mark(), ACTIONS[method]
    if arena.is_sut(EMSP):
        answer = await arena.exchange(EMSP, method, CHARGINGPROFILES, (session_id,), rule=Rules.request,
                                      trigger=(action, {"session_id": session_id, **body}))
    else:
        answer = await arena.act(EMSP, action, session_id=session_id, **body)
    sent = _sent(method, answer)
    if method == PUT:
        decimals = extra_decimals(sent["charging_profile"])
        require(not decimals, Rules.one_decimal, f"the ChargingProfile has more than one decimal: {decimals}",
                expected="at most one decimal", actual=decimals)
        if arena.is_sut(EMSP) and body.get("charging_profile") is not None:
            require(schemas.same_object(body["charging_profile"], sent["charging_profile"]), Rules.request,
                    "the eMSP sent another ChargingProfile than it was asked to", expected=body["charging_profile"],
                    actual=sent["charging_profile"])
    if method == GET and body.get("duration") is not None:
        check_equal(Rules.request, "duration of the GET", body["duration"], sent["duration"])
    return Asked(method, sent, answer, mark, sent["response_url"], arena.is_sut(EMSP))


def _sent(method: str, answer: HttpExchange) -> dict[str, Any]:
    """What the eMSP's request carried: a PUT's SetChargingProfile, a GET's or DELETE's query parameters."""
    if method == PUT:
        body = answer.request_json()
        require(isinstance(body, dict), Rules.request, "the PUT carries no SetChargingProfile", expected=SET,
                actual=body)
        schemas.check(SET, body)
        return body
    query = dict(parse_qsl(urlsplit(answer.url).query, keep_blank_values=True))
    needed = ("duration", "response_url") if method == GET else ("response_url",)
    missing = [name for name in needed if not query.get(name)]
    require(not missing, Rules.request, f"the {method} names no {', '.join(missing)} in its query",
            expected=list(needed), actual=answer.url)
    if method == GET:
        require(re.fullmatch(r"[0-9]{1,9}", query["duration"]) is not None, Rules.request,
                "the GET's duration is no number of seconds",
                expected="an int", actual=query["duration"])
        return {"duration": int(query["duration"]), "response_url": query["response_url"]}
    return {"response_url": query["response_url"]}


def response(asked: Asked) -> dict[str, Any]:
    """The ChargingProfileResponse the CPO answered, valid by its schema."""
    return ocpi_async.response(FLOW, asked)


def accepted(asked: Asked) -> dict[str, Any]:
    """The ChargingProfileResponse, ACCEPTED (else not applicable: nothing follows)."""
    return ocpi_async.accepted(FLOW, asked)


async def result(arena: OcpiArena, asked: Asked, timeout: int) -> dict[str, Any]:
    """The result of an ACCEPTED request, valid as the kind its method asks for (an ActiveChargingProfileResult,
    a ChargingProfileResult, a ClearProfileResult); an ACCEPTED ActiveChargingProfileResult carries the profile."""
    posted = await ocpi_async.result(arena, FLOW, asked, timeout, RESULTS[asked.name])
    if asked.name == GET and posted["result"] == ocpi_async.ACCEPTED:
        require(posted.get("profile") is not None, Rules.active_profile, "an ACCEPTED ActiveChargingProfileResult "
                "carries no profile", expected=ACTIVE_PROFILE, actual=posted)
    return posted


async def followed(arena: OcpiArena, method: str, session_id: str, **body: Any) -> tuple[Asked, dict[str, Any]]:
    """A request the CPO ACCEPTs, and its result."""
    asked = await ask(arena, method, session_id, **body)
    return asked, await result(arena, asked, accepted(asked)["timeout"])


async def update(arena: OcpiArena, session_id: str) -> dict[str, Any]:
    """A local limit at the EVSE of ``session_id``: the CPO PUTs the new ActiveChargingProfile to the eMSP's
    {chargingprofiles}/{session_id}, which must answer with success and no data. The profile PUT."""
    trigger = ("change_active_profile", {"session_id": session_id})
    if arena.is_sut(CPO):
        put = await arena.exchange(CPO, PUT, CHARGINGPROFILES, (session_id,), trigger=trigger, rule=Rules.update_sent)
    else:
        put = await arena.act(CPO, "change_active_profile", session_id=session_id)
        require(put is not None, Rules.update_sent, "the harness's CPO PUT no ActiveChargingProfile",
                expected=f"a PUT of {session_id}", actual=None)
        check_answer(put, Rules.update_answered, "the ActiveChargingProfile PUT", success=True)
        data = put.json().get("data") if isinstance(put.json(), dict) else None
        require(data is None, Rules.update_answered, "the answer to the ActiveChargingProfile PUT carries data",
                expected="no data field", actual=data)
    profile = put.request_json()
    schemas.check(ACTIVE_PROFILE, profile)
    seconds = span(profile["charging_profile"])
    require(seconds is not None and GUIDE[0] <= seconds <= GUIDE[1], Rules.update_duration, "the ActiveChargingProfile "
            f"PUT spans {seconds} s", expected=f"{GUIDE[0]} to {GUIDE[1]} s", actual=seconds)
    return profile


async def no_update(arena: OcpiArena, session_id: str) -> None:
    """A local limit at the EVSE of a Session the eMSP never set a profile on: no PUT (a CPO under test)."""
    mark = arena.mark()
    await arena.act(CPO, "change_active_profile", session_id=session_id)
    await arena.expect_no_request(PUT, CHARGINGPROFILES, (session_id,), after=mark, rule=Rules.no_update_unset)
