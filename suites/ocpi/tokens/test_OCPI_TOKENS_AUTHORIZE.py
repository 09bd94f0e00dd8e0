"""OCPI_TOKENS_AUTHORIZE — real-time authorization: the CPO POSTs {tokens}/{token_uid}/authorize to the
eMSP, with LocationReferences or none, and the eMSP answers with an AuthorizationInfo (tokens 2.2.1,
Sender interface POST; ``TokenRules`` in harness/ocpi/tokens.py; docs/requirements/ocpi-tokens.md).

An eMSP under test is asked by the harness's CPO about the Tokens it lists: a known one is answered with
an AuthorizationInfo holding the complete Token; an unknown one with HTTP 404, 2004 and no data; a request
without LocationReferences gets a verdict or 2002 (too little information), and a 2002 must then turn into
a verdict once the Location is named; the location answered names the Location asked about and only EVSEs
asked about; an EVSE's status never changes the answer. A CPO under test is asked to let a driver's Token
in (``present_token``): a Token whose whitelist requires real-time authorization (NEVER, ALLOWED_OFFLINE),
valid or not, is authorized at the harness's eMSP first; an ALWAYS Token is let in without asking.
"""

import secrets

import pytest

from harness.arena.ocpi import check_answer
from harness.cistring import same_id
from harness.errors import NotApplicable
from harness.ocpi import schemas
from harness.ocpi.envelope import StatusCode, expect_success, outcome
from harness.ocpi.locations import LocationRules
from harness.ocpi.tokens import (
    ALLOWED, ALLOWED_OFFLINE, ALWAYS, APP_USER, AD_HOC_USER, AUTHORIZE, NEVER, RFID, TOKENS, TokenRules as Tok,
    location_problem)
from harness.roles import CPO, EMSP
from harness.suite import OCPI, case, checks
from harness.usecases import ocpi_credentials as creds
from harness.usecases import ocpi_locations as loc
from harness.usecases import ocpi_tokens as tok
from harness.verdict import check_equal, require

pytestmark = case("OCPI_TOKENS_AUTHORIZE", block="Tokens", roles=(CPO, EMSP), protocols=OCPI)

TRIED = 10   # the most listed Tokens a test asks about


def _info(answer, what: str) -> dict:
    """The AuthorizationInfo a successful answer carries, valid by its schema."""
    check_answer(answer, Tok.authorize_known, what, success=True)
    info = expect_success(answer.status, answer.response_body)
    require(isinstance(info, dict), Tok.authorize_known, f"{what} answered no AuthorizationInfo",
            expected="an AuthorizationInfo", actual=info)
    schemas.check("authorization_info", info)
    return info


async def _at_a_location(ocpi) -> dict:
    """The harness's first Location pushed to the eMSP under test (registered already); LocationReferences
    naming it and its first EVSE."""
    location_id, evse_uid, _ = loc.pushed_location(ocpi)
    push = await loc.push_location(ocpi, location_id, rule=LocationRules.put)
    check_answer(push, LocationRules.put, f"the PUT of {location_id}", success=True)
    return {"location_id": location_id, "evse_uids": [evse_uid]}


def _usable(tokens: list[dict]) -> list[dict]:
    return [t for t in tokens if t.get("valid") and t.get("whitelist") != ALWAYS][:TRIED]


@pytest.mark.sut_roles("emsp")
@checks(Tok.authorize_known, Tok.authorize_consistent, Tok.authorize_location)
async def test_known_token_gets_its_authorization_info(ocpi):
    """A valid Token the eMSP lists, asked about at a Location it was pushed: an AuthorizationInfo whose
    Token is that Token (as the list gives it)."""
    token = tok.pick(_usable(await tok.sut_tokens(ocpi)), "valid Token open to real-time authorization")
    where = await _at_a_location(ocpi)
    info = _info(await tok.authorize(ocpi, token["uid"], token["type"], where), "the authorization of a known Token")
    for field in ("uid", "type", "contract_id", "valid", "whitelist"):
        check_equal(Tok.authorize_consistent, f"Token {field} in the AuthorizationInfo", token.get(field),
                    info["token"].get(field), same=schemas.same_object if field != "uid" else same_id)
    problem = location_problem(where, info.get("location"))
    require(problem is None, Tok.authorize_location, problem or "", expected=where, actual=info.get("location"))


@pytest.mark.sut_roles("emsp")
@checks(Tok.authorize_unknown)
async def test_unknown_token_gets_404_and_2004_without_data(ocpi):
    """A Token the eMSP never issued: HTTP 404, status_code 2004, and no data."""
    await creds.registered(ocpi)
    answer = await tok.authorize(ocpi, f"UNKNOWN{secrets.token_hex(5).upper()}", RFID, None)
    check_answer(answer, Tok.authorize_unknown, "the authorization of an unknown Token", http_status=404,
                 status_code=StatusCode.UNKNOWN_TOKEN)
    data = tok.answer_data(answer)
    require(data is None, Tok.authorize_unknown, "the answer about an unknown Token carries data",
            expected="no data", actual=data)


@pytest.mark.sut_roles("emsp")
@checks(Tok.authorize_known, Tok.authorize_needs_location)
async def test_without_location_a_verdict_or_2002(ocpi):
    """Each valid Token asked about without LocationReferences gets an AuthorizationInfo or 2002 (too
    little information); one answered 2002 gets an AuthorizationInfo once the Location is named."""
    tokens = _usable(await tok.sut_tokens(ocpi))
    if not tokens:
        raise NotApplicable("the eMSP lists no valid Token open to real-time authorization")
    undecided = []
    for token in tokens:
        answer = await tok.authorize(ocpi, token["uid"], token["type"], None)
        said = outcome(answer.status, answer.response_body)
        if said.status_code == StatusCode.NOT_ENOUGH_INFORMATION:
            undecided.append(token)
        else:
            _info(answer, f"the authorization of {token['uid']} without a Location")
    if undecided:
        where = await _at_a_location(ocpi)
        for token in undecided:
            answer = await tok.authorize(ocpi, token["uid"], token["type"], where)
            said = outcome(answer.status, answer.response_body)
            require(said.status_code != StatusCode.NOT_ENOUGH_INFORMATION, Tok.authorize_needs_location,
                    f"{token['uid']} still gets 2002 with LocationReferences", expected="a verdict", actual=str(said))
            _info(answer, f"the authorization of {token['uid']} at a Location")


@pytest.mark.sut_roles("emsp")
@checks(Tok.authorize_location, Tok.authorize_known)
async def test_location_answered_names_only_what_was_asked(ocpi):
    """Asked about one EVSE of a Location, the eMSP's location (when it gives one) names that Location and
    no EVSE that was not asked about."""
    tokens = _usable(await tok.sut_tokens(ocpi))
    if not tokens:
        raise NotApplicable("the eMSP lists no valid Token open to real-time authorization")
    where = await _at_a_location(ocpi)
    for token in tokens:
        info = _info(await tok.authorize(ocpi, token["uid"], token["type"], where), f"the authorization of "
                     f"{token['uid']} at {where['location_id']}")
        problem = location_problem(where, info.get("location"))
        require(problem is None, Tok.authorize_location, problem or "", expected=where, actual=info.get("location"))


@pytest.mark.sut_roles("emsp")
@checks(Tok.authorize_consistent, Tok.authorize_known, Tok.pushed)
async def test_invalid_token_is_not_allowed(ocpi):
    """A Token the eMSP issued invalid (and pushed so) is not answered ALLOWED."""
    await creds.registered(ocpi)
    token = await tok.issue(ocpi, type=RFID, valid=False)
    where = await _at_a_location(ocpi)
    info = _info(await tok.authorize(ocpi, token["uid"], token["type"], where), "the authorization of an invalid "
                 "Token")
    require(info["allowed"] != ALLOWED, Tok.authorize_consistent, "an invalid Token is answered ALLOWED",
            expected="BLOCKED, EXPIRED, NO_CREDIT or NOT_ALLOWED", actual=info["allowed"])


@pytest.mark.sut_roles("emsp")
@checks(Tok.authorize_not_by_status, Tok.authorize_known, LocationRules.patch)
async def test_evse_status_does_not_change_the_answer(ocpi):
    """The same Token at the same EVSE, asked before and after the EVSE went INOPERATIVE: the same answer
    (the eMSP does not judge on EVSE status)."""
    token = tok.pick(_usable(await tok.sut_tokens(ocpi)), "valid Token open to real-time authorization")
    where = await _at_a_location(ocpi)
    before = _info(await tok.authorize(ocpi, token["uid"], token["type"], where), "the first authorization")
    patch = await loc.patch_evse_status(ocpi, where["location_id"], where["evse_uids"][0], "INOPERATIVE",
                                        rule=LocationRules.patch)
    check_answer(patch, LocationRules.patch, "the PATCH of the EVSE to INOPERATIVE", success=True)
    after = _info(await tok.authorize(ocpi, token["uid"], token["type"], where), "the second authorization")
    check_equal(Tok.authorize_not_by_status, "allowed once the EVSE is INOPERATIVE", before["allowed"],
                after["allowed"])


@pytest.mark.sut_roles("emsp")
@checks(Tok.authorize_known, Tok.authorize_consistent)
async def test_app_token_is_authorized_by_its_type(ocpi):
    """An APP_USER or AD_HOC_USER Token asked about with ?type=: the AuthorizationInfo's Token has that type."""
    token = tok.pick(_usable(await tok.sut_tokens(ocpi)), "valid APP_USER or AD_HOC_USER Token",
                     type=(APP_USER, AD_HOC_USER))
    where = await _at_a_location(ocpi)
    info = _info(await tok.authorize(ocpi, token["uid"], token["type"], where), f"the authorization of a "
                 f"{token['type']} Token")
    check_equal(Tok.authorize_consistent, "type of the Token answered", token["type"], info["token"].get("type"))


# ------------------------------------------------------------------------------ a CPO under test
async def _presented(ocpi, token: dict) -> int:
    """The CPO under test is asked to let ``token`` in at its first Location's first EVSE; the mark
    before the ask."""
    location_id, evse_uid, _ = loc.pushed_location(ocpi)
    mark = ocpi.mark()
    await ocpi.act(CPO, "present_token", uid=token["uid"], type=token["type"], location_id=location_id,
                   evse_uid=evse_uid)
    return mark


@pytest.mark.sut_roles("cpo")
@pytest.mark.parametrize("whitelist", [NEVER, ALLOWED_OFFLINE])
@pytest.mark.parametrize("valid", [True, False], ids=["valid", "invalid"])
@checks(Tok.authorize_sent, Tok.authorize_url)
async def test_token_needing_realtime_is_authorized_at_the_emsp(ocpi, whitelist, valid):
    """A driver presents a Token whose whitelist requires real-time authorization (valid or not, its state
    may have changed): the CPO POSTs {tokens}/{uid}/authorize to the eMSP, with the Location as
    LocationReferences or no body."""
    await creds.registered(ocpi)
    token = await tok.issue(ocpi, type=RFID, whitelist=whitelist, valid=valid)
    mark = await _presented(ocpi, token)
    def at_its_url(served) -> bool:
        parts = served.exchange.path.rstrip("/").split("/")
        return parts[-1] == AUTHORIZE and same_id(parts[-2], token["uid"])

    served = await ocpi.expect_request("POST", TOKENS, after=mark, rule=Tok.authorize_sent,
                                       what=f"a real-time authorization of {token['uid']}", prefer=at_its_url)
    require(at_its_url(served), Tok.authorize_url,
            "the POST is not at {tokens}/{token_uid}/authorize", expected=f".../{token['uid']}/{AUTHORIZE}",
            actual=served.exchange.path)
    where = served.exchange.request_json()
    if where is not None:
        schemas.check("location_references", where)
        check_equal(Tok.authorize_url, "location_id of the LocationReferences", loc.pushed_location(ocpi)[0],
                    where.get("location_id"), same=same_id)


@pytest.mark.sut_roles("cpo")
@checks(Tok.always_local)
async def test_always_token_is_let_in_without_asking(ocpi):
    """A driver presents a valid ALWAYS Token: the CPO lets it in from its cache, no real-time request."""
    await creds.registered(ocpi)
    token = await tok.issue(ocpi, type=RFID, whitelist=ALWAYS)
    mark = await _presented(ocpi, token)
    await ocpi.expect_no_request("POST", TOKENS, (token["uid"], AUTHORIZE), after=mark, rule=Tok.always_local)

