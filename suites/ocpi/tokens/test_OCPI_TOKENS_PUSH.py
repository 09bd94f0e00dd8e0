"""OCPI_TOKENS_PUSH — the eMSP pushes its Tokens to the CPO's Receiver (tokens 2.2.1, push model;
``TokenRules`` in harness/ocpi/tokens.py; docs/requirements/ocpi-tokens.md).

Played with either platform under test; the eMSP always initiates (the actuator asks an eMSP under
test: ``push_token``, ``update_token``). The harness's Receiver judges every push of an eMSP under test
as it stores it (schema, URL and type parameter, last_updated); what the eMSP pushed is then read back
from the SUT: from the CPO's Receiver as stored (GET, with ``type`` for a Token that is no RFID), or
from the eMSP's own list. A new Token is PUT, a change PATCHed with only what changed, an invalidated
Token is pushed with valid false (never deleted); a Token is its uid and its type together.
"""

import pytest

from harness.ocpi.tokens import APP_USER, NEVER, RFID, TokenRules as Tok
from harness.roles import CPO, EMSP
from harness.suite import OCPI, case, checks
from harness.usecases import ocpi_credentials as creds
from harness.usecases import ocpi_tokens as tok
from harness.verdict import check_equal

pytestmark = case("OCPI_TOKENS_PUSH", block="Tokens", roles=(CPO, EMSP), protocols=OCPI)

HELD = (Tok.stored, Tok.listed, Tok.listed_as_pushed)   # what the SUT holds: a CPO as stored, an eMSP in its list


async def _issued(ocpi, **body):
    await creds.registered(ocpi)
    return await tok.issue(ocpi, **body)


@pytest.mark.parametrize("ocpi", ["in_process", "sockets"], indirect=True)
@checks(Tok.pushed, Tok.put_ids, Tok.receiver_url, *HELD, Tok.ids_as_sent)
async def test_new_token_is_put_and_held(ocpi):
    """A new RFID Token is PUT whole; the SUT then holds that very Token, its ids compared ignoring case
    (CiStrings); ids that come back in another case are a finding."""
    sent = await _issued(ocpi, type=RFID)
    held = await tok.held_by_sut(ocpi, sent)
    for field in ("uid", "type", "contract_id", "issuer", "valid", "whitelist", "visual_number", "group_id"):
        tok.check_held(ocpi, field, sent.get(field), held.get(field))
    if ocpi.is_sut(CPO):
        for field in ("country_code", "party_id", "uid"):
            check_equal(Tok.ids_as_sent, field, sent[field], held.get(field))


@checks(Tok.pushed, Tok.invalidated, Tok.patch_last_updated, Tok.patch_applied, Tok.patch_only_changed, *HELD)
async def test_invalidated_token_is_patched_valid_false(ocpi):
    """The eMSP invalidates a Token (a card reported lost): a PATCH with valid false and last_updated only;
    the SUT holds it invalid, every other field as it was (a Token is never deleted; an eMSP whose list
    holds only valid Tokens may leave it out of the list instead)."""
    sent = await _issued(ocpi, type=RFID)
    patch = await tok.change(ocpi, sent["uid"], RFID, valid=False)
    check_equal(Tok.invalidated, "valid in the PATCH", False, patch.get("valid"))
    held = await tok.held_unless_dropped(ocpi, {**sent, "last_updated": patch["last_updated"]})
    if held is None:   # an eMSP that lists only valid Tokens: gone from the list is invalid
        return
    tok.check_held(ocpi, "valid", False, held.get("valid"))
    for field in ("whitelist", "contract_id", "issuer"):
        tok.check_held(ocpi, field, sent.get(field), held.get(field))


@checks(Tok.pushed, Tok.patch_applied, Tok.patch_last_updated, *HELD)
async def test_whitelist_change_is_patched(ocpi):
    """The eMSP moves a Token to real-time authorization only (whitelist NEVER): the SUT holds the new
    whitelist."""
    sent = await _issued(ocpi, type=RFID, whitelist="ALLOWED")
    patch = await tok.change(ocpi, sent["uid"], RFID, whitelist=NEVER)
    held = await tok.held_by_sut(ocpi, {**sent, "last_updated": patch["last_updated"]})
    tok.check_held(ocpi, "whitelist", NEVER, held.get("whitelist"))


@checks(Tok.pushed, Tok.stored, Tok.listed_as_pushed, Tok.listed)
async def test_token_put_again_whole_replaces_it(ocpi):
    """A Token PUT again whole (another whitelist) replaces the one held."""
    sent = await _issued(ocpi, type=RFID, whitelist="ALLOWED")
    again = await tok.issue(ocpi, uid=sent["uid"], type=RFID, whitelist="ALLOWED_OFFLINE")
    held = await tok.held_by_sut(ocpi, again)
    tok.check_held(ocpi, "whitelist", again["whitelist"], held.get("whitelist"))
    tok.check_held(ocpi, "uid", sent["uid"], held.get("uid"))


@checks(Tok.pushed, Tok.receiver_url, Tok.type_identifies, Tok.app_tokens_never, *HELD)
async def test_app_user_token_is_pushed_with_its_type(ocpi):
    """An app user's Token is PUT with ?type=APP_USER (RECOMMENDED whitelist NEVER) and held as an
    APP_USER Token."""
    sent = await _issued(ocpi, type=APP_USER)
    check_equal(Tok.pushed, "type of the pushed Token", APP_USER, sent.get("type"))
    held = await tok.held_by_sut(ocpi, sent)
    tok.check_held(ocpi, "type", APP_USER, held.get("type"))
    tok.check_held(ocpi, "whitelist", sent.get("whitelist"), held.get("whitelist"))
