"""OCPI_TOKENS_RECEIVER — the CPO's Tokens Receiver facing requests an eMSP may get wrong (tokens
2.2.1, Receiver interface; ``TokenRules`` in harness/ocpi/tokens.py; docs/requirements/ocpi-tokens.md).

The harness plays the eMSP and sends what a careful Receiver must refuse or handle by the letter: a
PATCH without last_updated, a PATCH of one field, a GET or PATCH of a Token it never got, a DELETE, a PUT
whose URL ids or type differ from the Token's, a push under a party the harness never declared, and one
uid under two types (two Tokens). Where the text does not say which error code answers a refused
request, any error status code passes (2001 where the text advises it, a finding otherwise).
"""

import secrets

import pytest

from harness.arena.ocpi import check_answer
from harness.ocpi.envelope import StatusCode
from harness.ocpi.tokens import APP_USER, RFID, TOKENS, TokenRules as Tok
from harness.roles import CPO, EMSP
from harness.suite import OCPI, case, checks
from harness.usecases import ocpi_credentials as creds
from harness.usecases import ocpi_sessions as ses
from harness.usecases import ocpi_tokens as tok
from harness.verdict import check_equal

pytestmark = case("OCPI_TOKENS_RECEIVER", block="Tokens", roles=(CPO,), protocols=OCPI)


async def _issued(ocpi, **body) -> dict:
    await creds.registered(ocpi)
    return await tok.issue(ocpi, **body)


def _later(token: dict, seconds: int = 60) -> str:
    return ses.seconds_later(token["last_updated"], seconds)


async def _put(ocpi, uid: str, body: dict, kind: str = RFID):
    """The harness's eMSP PUTs ``body`` at the Receiver URL of ``uid`` (with ``kind`` as its type parameter)."""
    url = tok.with_type(ocpi.sut_url(TOKENS, uid), kind)
    return await ocpi.send("PUT", url, token=ocpi.token_to_sut, module=TOKENS, body=body)


def _under(ocpi, uid: str, **party: str) -> str:
    """The SUT's Receiver URL of ``uid`` with the harness's country_code or party_id replaced by ``party``'s."""
    own = ocpi.harness_emsp.party
    ids = {"country_code": own.country_code, "party_id": own.party_id, **party}
    url, tail = ocpi.sut_url(TOKENS, uid), f"/{own.country_code}/{own.party_id}/{uid}"
    return url.removesuffix(tail) + f"/{ids['country_code']}/{ids['party_id']}/{uid}"


@checks(Tok.patch_refused_without_last_updated)
async def test_patch_without_last_updated_gets_2001(ocpi):
    """A PATCH without last_updated is answered 2001 and changes nothing."""
    sent = await _issued(ocpi)
    answer = await ocpi.exchange(EMSP, "PATCH", TOKENS, (sent["uid"],), {"valid": False},
                                 rule=Tok.patch_refused_without_last_updated)
    check_answer(answer, Tok.patch_refused_without_last_updated, "a PATCH without last_updated",
                 status_code=StatusCode.INVALID_PARAMETERS)
    check_equal(Tok.patch_refused_without_last_updated, "valid after the refused PATCH", sent["valid"],
                (await tok.held_by_sut(ocpi, sent))["valid"])


@checks(Tok.patch_applied, Tok.stored)
async def test_patch_changes_only_its_fields(ocpi):
    """A PATCH of the language alone changes the language and nothing else."""
    sent = await _issued(ocpi)
    language = "de" if sent.get("language") != "de" else "fr"
    answer = await ocpi.exchange(EMSP, "PATCH", TOKENS, (sent["uid"],),
                                 {"language": language, "last_updated": _later(sent)}, rule=Tok.patch_applied)
    check_answer(answer, Tok.patch_applied, "a PATCH of the language", success=True)
    held = await tok.held_by_sut(ocpi, sent)
    check_equal(Tok.patch_applied, "language after the PATCH", language, held.get("language"))
    for field in ("valid", "whitelist", "contract_id", "issuer", "visual_number"):
        tok.check_held(ocpi, field, sent.get(field), held.get(field))


@checks(Tok.unknown_refused)
async def test_unknown_token_is_not_answered_with_success(ocpi):
    """A GET and a PATCH of a Token the CPO never got are refused (the code is the CPO's choice; 2004,
    unknown Token, fits)."""
    await creds.registered(ocpi)
    uid = f"NEVERPUT{secrets.token_hex(4).upper()}"
    check_answer(await tok.stored_answer(ocpi, uid), Tok.unknown_refused, "a GET of an unknown Token",
                 success=False)
    patch = await ocpi.exchange(EMSP, "PATCH", TOKENS, (uid,), {"valid": False, "last_updated": "2024-01-01T00:00:00Z"},
                                rule=Tok.unknown_refused)
    check_answer(patch, Tok.unknown_refused, "a PATCH of an unknown Token", success=False)


@checks(Tok.never_deleted, Tok.stored)
async def test_delete_is_refused_and_the_token_stays(ocpi):
    """Tokens cannot be removed: a DELETE is refused and the Token is still there."""
    sent = await _issued(ocpi)
    answer = await ocpi.send("DELETE", ocpi.sut_url(TOKENS, sent["uid"]), token=ocpi.token_to_sut, module=TOKENS)
    check_answer(answer, Tok.never_deleted, "a DELETE of a Token", success=False)
    tok.check_held(ocpi, "uid", sent["uid"], (await tok.held_by_sut(ocpi, sent)).get("uid"))


@pytest.mark.parametrize("field", ["country_code", "party_id", "uid", "type"])
@checks(Tok.mismatch_refused, Tok.mismatch_2001, Tok.stored)
async def test_put_whose_url_differs_from_the_token_is_refused(ocpi, field):
    """A PUT whose URL names another country_code, party_id, token_uid or type than the Token is refused
    (2001 advised); the Token held stays as it was."""
    sent = await _issued(ocpi)
    body = {**tok.held_by_harness(ocpi, sent["uid"]), "last_updated": _later(sent), "valid": not sent["valid"]}
    if field == "type":
        answer = await _put(ocpi, sent["uid"], body, APP_USER)
    elif field == "uid":
        answer = await _put(ocpi, f"{sent['uid']}X", body)
    else:
        url = _under(ocpi, sent["uid"], **{field: {"country_code": "XX", "party_id": "ZZZ"}[field]})
        answer = await ocpi.send("PUT", url, token=ocpi.token_to_sut, module=TOKENS, body=body)
    said = check_answer(answer, Tok.mismatch_refused, f"a PUT whose URL {field} differs from the Token's",
                        success=False)
    check_equal(Tok.mismatch_2001, "status_code of the refusal", StatusCode.INVALID_PARAMETERS, said.status_code)
    tok.check_held(ocpi, "valid", sent["valid"], (await tok.held_by_sut(ocpi, sent)).get("valid"))


@checks(Tok.party_registered)
async def test_push_under_another_party_is_refused(ocpi):
    """A Token pushed under a party none of the harness's roles declares (URL and body agree) is refused."""
    sent = await _issued(ocpi)
    body = {**tok.held_by_harness(ocpi, sent["uid"]), "country_code": "XX", "party_id": "ZZZ",
            "uid": f"OTHER{secrets.token_hex(4).upper()}"}
    url = _under(ocpi, body["uid"], country_code="XX", party_id="ZZZ")
    answer = await ocpi.send("PUT", url, token=ocpi.token_to_sut, module=TOKENS, body=body)
    check_answer(answer, Tok.party_registered, "a PUT under a party the harness never declared", success=False)


@checks(Tok.type_identifies, Tok.stored)
async def test_one_uid_under_two_types_is_two_tokens(ocpi):
    """The uid of an RFID Token PUT again as an APP_USER Token (?type=APP_USER) is another Token: both are
    held, each answered for its own type."""
    sent = await _issued(ocpi)
    app = {**tok.held_by_harness(ocpi, sent["uid"]), "type": APP_USER, "whitelist": "NEVER",
           "last_updated": _later(sent)}
    app.pop("visual_number", None)
    check_answer(await _put(ocpi, sent["uid"], app, APP_USER), Tok.type_identifies, "the PUT of the APP_USER Token",
                 success=True)
    rfid = await tok.held_by_sut(ocpi, sent)
    check_equal(Tok.type_identifies, "type of the Token GET without a type", RFID, rfid.get("type"))
    check_equal(Tok.type_identifies, "whitelist of the RFID Token", sent["whitelist"], rfid.get("whitelist"))
    held = await tok.held_by_sut(ocpi, app)
    check_equal(Tok.type_identifies, "type of the Token GET with type=APP_USER", APP_USER, held.get("type"))
