"""Tokens dialogues (module at 2.2.1): the eMSP issuing, changing and invalidating Tokens it pushes to
the CPO's Receiver, reading a Token back from the SUT, and real-time authorization. The rules are the
rows of ``harness.ocpi.tokens.TokenRules``.

Played from either side: an eMSP under test is asked by the actuator (``push_token``, ``update_token``)
and its request is awaited on the harness's Receiver, which judges it (schema, ids, type, last_updated);
the harness's own eMSP performs the same action and returns the request it sent. A CPO under test is
asked to let a driver's Token in (``present_token``); the harness's CPO asks for a real-time
authorization itself.
"""

from __future__ import annotations

import copy
import json
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from harness.cistring import same_id
from harness.errors import NotApplicable
from harness.ocpi import schemas
from harness.ocpi.envelope import expect_success
from harness.ocpi.tokens import AUTHORIZE, RFID, TOKENS, TokenRules, push_problems, unchanged_fields
from harness.arena.ocpi import OcpiArena, carrying, check_answer
from harness.roles import CPO, EMSP
from harness.rules import Rule
from harness.transport.http import HttpExchange
from harness.usecases import ocpi_credentials
from harness.usecases import ocpi_locations as loc
from harness.verdict import require, violated

LISTING = (TOKENS, "token", TokenRules.listed)


def with_type(url: str, kind: str) -> str:
    """``url`` with the ``type`` parameter of a Token that is no RFID."""
    return url if kind == RFID else f"{url}?type={kind}"


def _pushed(push: HttpExchange | None, rule: Rule, what: str) -> dict[str, Any]:
    """The Token (or the change) the eMSP's request carried."""
    body = push.request_json() if push is not None else None
    require(isinstance(body, dict), rule, f"the eMSP's {what} carries no Token", expected="a JSON object",
            actual=body)
    return body


async def _emsp_does(arena: OcpiArena, action: str, method: str, *, rule: Rule, accepted: Rule,
                     **body: Any) -> HttpExchange:
    """The eMSP performs ``action``: an eMSP under test through its actuator (its ``method`` request
    awaited and judged by the harness's Receiver), the harness's own eMSP directly (the request it sent,
    which the CPO under test must have accepted: ``accepted``)."""
    if arena.is_sut(EMSP):   # a busy eMSP pushes other drivers' Tokens meanwhile: the one asked for is taken
        uid = body.get("uid")
        return await arena.exchange(EMSP, method, TOKENS, (uid,) if method == "PATCH" else (), trigger=(action, body),
                                    rule=rule, asked=None if method == "PATCH" else carrying({"type": RFID, **body}))
    push = await arena.act(EMSP, action, **body)
    check_answer(push, accepted, f"the Token {method} ({action})", success=True)
    return push


def _check_type_parameter(push: HttpExchange, token: dict[str, Any]) -> None:
    """The URL's ``type`` parameter names the Token's type (absent for an RFID one)."""
    named = dict(parse_qsl(urlsplit(push.url).query)).get("type") or RFID
    require(named == token.get("type"), TokenRules.receiver_url, "the push's type parameter is not the "
            "Token's type", expected=token.get("type"), actual=named)


async def issue(arena: OcpiArena, *, rule: Rule = TokenRules.pushed, **body: Any) -> dict[str, Any]:
    """The eMSP issues a Token (``body``: type, whitelist, valid; or the uid of one to push again whole)
    and PUTs it: the Token it pushed. From an eMSP under test the advice of the text is judged too."""
    push = await _emsp_does(arena, "push_token", "PUT", rule=rule, accepted=TokenRules.stored, **body)
    token = _pushed(push, rule, "PUT")
    if arena.is_sut(EMSP):
        _check_type_parameter(push, token)
        for row, problem in push_problems(token):
            violated(row, problem, expected="the text's advice",
                     actual={name: token.get(name) for name in ("type", "whitelist", "group_id")})
    return token


async def change(arena: OcpiArena, uid: str, kind: str = RFID, *, rule: Rule = TokenRules.pushed,
                 **body: Any) -> dict[str, Any]:
    """The eMSP changes a Token (``update_token`` with valid, whitelist, language) and PATCHes it: the
    change it sent. From an eMSP under test the change must hold last_updated and only what changed."""
    before = copy.deepcopy(held_by_harness(arena, uid, kind)) if arena.is_sut(EMSP) else None
    push = await _emsp_does(arena, "update_token", "PATCH", rule=rule, accepted=TokenRules.patch_applied, uid=uid,
                            type=kind, **body)
    patch = _pushed(push, rule, "PATCH")
    require(patch.get("last_updated"), TokenRules.patch_last_updated, "the PATCH carries no last_updated",
            expected="last_updated", actual=sorted(patch))
    if before is not None:
        unchanged = unchanged_fields(before, patch)
        require(not unchanged, TokenRules.patch_only_changed, "the PATCH carries fields that did not change",
                expected="only the changed fields and last_updated", actual=unchanged)
    return patch


def held_by_harness(arena: OcpiArena, uid: str, kind: str = RFID) -> dict[str, Any]:
    """The Token as the harness holds it: the harness's eMSP's own, or what its CPO was pushed."""
    tokens = arena.harness_peer.objects(TOKENS)
    found = next((t for t in tokens if same_id(t["uid"], uid) and t["type"] == kind), None)
    require(found is not None, TokenRules.pushed, f"the harness holds no Token {uid} of type {kind}",
            expected=uid, actual=[(t["uid"], t["type"]) for t in tokens])
    return found


async def stored_answer(arena: OcpiArena, uid: str, kind: str = RFID) -> HttpExchange:
    """A CPO under test's answer to a GET of the harness's Token ``uid`` of type ``kind``."""
    return await loc.get(arena, with_type(arena.sut_url(TOKENS, uid), kind), TOKENS)


async def held_by_sut(arena: OcpiArena, token: dict[str, Any]) -> dict[str, Any]:
    """The Token as the SUT holds it: a CPO's by GET on its Receiver; an eMSP's from its list (date_from:
    the Token's last_updated, so a list that still holds it must show it)."""
    if arena.is_sut(CPO):
        exchange = await stored_answer(arena, token["uid"], token["type"])
        check_answer(exchange, TokenRules.stored, f"the GET of the Token {token['uid']}", success=True)
        found = expect_success(exchange.status, exchange.response_body)
        require(isinstance(found, dict), TokenRules.stored, "a GET of the Token answered no object",
                expected="a Token", actual=found)
    else:
        listed = (await listing(arena, date_from=token["last_updated"])).items
        found = next((t for t in listed if same_id(t.get("uid"), token["uid"]) and t.get("type") == token["type"]),
                     None)
        require(found is not None, TokenRules.listed, f"the Sender's list from {token['last_updated']} lacks the "
                f"Token {token['uid']} it pushed", expected=token["uid"], actual=[t.get("uid") for t in listed])
    schemas.check("token", found)
    return found


async def held_unless_dropped(arena: OcpiArena, token: dict[str, Any]) -> dict[str, Any] | None:
    """The Token as the SUT holds it (``held_by_sut``), or None when an eMSP under test left an invalid
    Token out of its list: a legal reading (OCPI 2.2.1 §12.2.2.1: the list holds the valid Tokens, and
    what it no longer holds is no longer valid)."""
    if arena.is_sut(EMSP) and held_by_harness(arena, token["uid"], token["type"]).get("valid") is False:
        listed = (await listing(arena, date_from=token["last_updated"])).items
        if not any(same_id(t.get("uid"), token["uid"]) and t.get("type") == token["type"] for t in listed):
            return None
    return await held_by_sut(arena, token)


async def listing(arena: OcpiArena, **query: Any):
    """Every page of the eMSP under test's Token list for ``query`` (see ``ocpi_locations.walk``)."""
    return await loc.walk(arena, listing=LISTING, **query)


def check_held(arena: OcpiArena, field: str, expected: Any, actual: Any) -> None:
    """The SUT holds what the eMSP pushed: a CPO as stored, an eMSP in its list; compared as the text
    reads it (CiStrings ignoring case, null as absent)."""
    rule = TokenRules.stored if arena.is_sut(CPO) else TokenRules.listed_as_pushed
    if not schemas.same_object({field: expected}, {field: actual}):
        violated(rule, f"the SUT holds another {field} than was pushed", expected=expected, actual=actual)


# ------------------------------------------------------------------------------ real-time authorization
async def authorize(arena: OcpiArena, uid: str, kind: str = RFID, where: dict[str, Any] | None = None
                    ) -> HttpExchange:
    """The harness's CPO asks the eMSP under test to authorize ``uid`` (at ``where``, LocationReferences)."""
    url = with_type(arena.sut_url(TOKENS, uid, AUTHORIZE), kind)
    return await arena.send("POST", url, token=arena.token_to_sut, module=TOKENS, body=where)


def answer_data(answer: HttpExchange) -> Any:
    """The ``data`` of an answer's envelope, None when it has none (or is no envelope)."""
    try:
        body = json.loads(answer.response_body or b"null")
    except ValueError:
        return None
    return body.get("data") if isinstance(body, dict) else None


async def sut_tokens(arena: OcpiArena) -> list[dict[str, Any]]:
    """The Tokens the eMSP under test lists (registered first)."""
    await ocpi_credentials.registered(arena)
    return (await listing(arena)).items


def pick(tokens: list[dict[str, Any]], what: str, **wanted: Any) -> dict[str, Any]:
    """The first Token whose fields hold ``wanted`` (a tuple: any of its values); not applicable without."""
    def fits(token: dict[str, Any]) -> bool:
        return all(token.get(k) in (v if isinstance(v, tuple) else (v,)) for k, v in wanted.items())
    found = next((token for token in tokens if fits(token)), None)
    if found is None:
        raise NotApplicable(f"the eMSP lists no {what}")
    return found
