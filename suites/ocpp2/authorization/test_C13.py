"""C13 / D01, D02 — Local authorization list management.

The CSMS asks a station for the version of its local list (GetLocalListVersion) and sends the list
(SendLocalList): a Full update replaces it, every entry with its idTokenInfo; a Differential update adds
or updates an entry that carries idTokenInfo and deletes one that does not, at a version above the
current one — the current version + 1, asked first (Authorization rule 11) — and is answered
VersionMismatch otherwise. Where the project's text (spec 001) is silent the rows cite the OCPP 2.0.1
requirements (D01.FR, D02.FR) of the public standard.

No certification id: the only public mapping found (TC_D_01/02/08_CSMS) is a third-party
re-implementation of the test tool, not a listing of the test cases themselves.
"""

import secrets

import pytest

from harness.roles import CS, CSMS
from harness.rules import RuleTable, must, should
from harness.suite import OCPP2, TC, case, checks, needs
from harness.usecases.local_list import (asks_about, carries, install_list, list_version, plain_token, send_local_list,
                                         update_list)
from harness.verdict import check_equal, dig, require


class C13(RuleTable):
    """The rules of C13/D01/D02 (spec 001 Authorization rule 11, Moves "Local list", SendLocalList)."""
    version_asked = must("spec 001 Authorization rule 11; GetLocalListVersionRequest (empty object)",
                         "the CSMS asks for the list version with an empty GetLocalListVersionRequest", by=CSMS)
    update_sent = must("spec 001 SendLocalListRequest; OCPP 2.0.1 D01.FR.01",
                       "the CSMS sends SendLocalList with the updateType it was asked for and a versionNumber",
                       by=CSMS)
    version_positive = must("OCPP 2.0.1 D01.FR.18", "a SendLocalList versionNumber is greater than 0", by=CSMS)
    unique = must("OCPP 2.0.1 D01.FR.06", "the idTokens of a localAuthorizationList are unique", by=CSMS)
    full_list = must("spec 001 Moves: Local list (SendLocalList Full: localAuthorizationList must be present)",
                     "a Full update carries localAuthorizationList, every entry with its idTokenInfo", by=CSMS)
    differential_entries = must("spec 001 Moves: Local list (SendLocalList Differential)",
                                "a Differential update carries the token to add or update with its idTokenInfo "
                                "and the token to delete without", by=CSMS)
    differential_version = must("spec 001 Authorization rule 11 (VersionMismatch); OCPP 2.0.1 D01.FR.19",
                                "a Differential update's versionNumber is above the station's current version",
                                by=CSMS)
    next_version = should("spec 001 Authorization rule 11",
                          "a Differential update carries the station's current version + 1, asked with "
                          "GetLocalListVersion first", by=CSMS)
    reports_version = must("spec 001 GetLocalListVersionResponse; OCPP 2.0.1 D01.FR.01, D02.FR.01",
                           "the station reports the version of the list it installed last", by=CS)
    full_applied = must("spec 001 Moves: Local list (Full: list replaced); OCPP 2.0.1 D01.FR.15",
                        "a Full update at a version above 0 is Accepted", by=CS)
    differential_applied = must("spec 001 Moves: Local list (Differential); OCPP 2.0.1 D01.FR.16, D01.FR.17",
                                "a Differential update at a newer version that adds, updates and deletes is "
                                "Accepted", by=CS)
    empty_differential = must("OCPP 2.0.1 D01.FR.05",
                              "a Differential update without entries is Accepted and takes the new version", by=CS)
    full_replaces = must("spec 001 Moves: Local list (SendLocalList Full: list replaced); OCPP 2.0.1 D01.FR.15",
                         "a token only the replaced list held is no longer accepted from the list: it is asked about",
                         by=CS)
    deleted = must("spec 001 Moves: Local list (Differential, entry without idTokenInfo: deleted); OCPP 2.0.1 "
                   "D01.FR.17", "a token deleted from the list is asked about when presented", by=CS)
    updated = must("spec 001 Moves: Local list (Differential, entry with idTokenInfo: added or updated); OCPP 2.0.1 "
                   "D01.FR.16", "a token a Differential update made Accepted starts a transaction without an "
                   "AuthorizeRequest", by=CS)
    differential_keeps = must("spec 001 Moves: Local list (SendLocalList Differential: the entries it carries are "
                              "added, updated or deleted); OCPP 2.0.1 UpdateEnumType Differential (the current list "
                              "must be updated, where Full replaces it)",
                              "a Differential update leaves the entries it does not name as they were: a token "
                              "listed Accepted still starts a transaction from the list", by=CS)
    mismatch = must("spec 001 Authorization rule 11; SendLocalListResponse VersionMismatch; OCPP 2.0.1 D01.FR.19",
                    "a Differential update whose version is not above the current one is answered VersionMismatch "
                    "and leaves the version as it was", by=CS)


pytestmark = case("C13", block="Authorization", roles=("csms", "cs"), protocols=OCPP2, requires=["local_list"])


def _tokens(profile, *statuses):
    """One plain token of the profile per status."""
    return [plain_token(profile, status) for status in statuses]


def _info(token):
    return {"status": token.status}


def _check_request(exchange, update_type):
    """What every SendLocalList of a CSMS under test must show."""
    request = exchange.request
    check_equal(C13.update_sent, "SendLocalListRequest updateType", update_type, request.get("updateType"))
    require(isinstance(request.get("versionNumber"), int) and request["versionNumber"] > 0, C13.version_positive,
            "SendLocalListRequest versionNumber is not above 0", expected="> 0", actual=request.get("versionNumber"))
    keys = [(str(dig(e, "idToken.idToken", "")).casefold(), str(dig(e, "idToken.type", "")).casefold())
            for e in request.get("localAuthorizationList", [])]
    require(len(keys) == len(set(keys)), C13.unique, "localAuthorizationList holds an idToken twice",
            expected="unique idTokens", actual=keys)


def _listed(exchange):
    """The entries of a SendLocalListRequest by idToken (casefolded)."""
    return {str(dig(e, "idToken.idToken", "")).casefold(): e for e in exchange.request.get("localAuthorizationList", [])}


@checks(C13.version_asked, C13.reports_version, csms=TC("TC_D_08_CSMS", "ocpp2.0.1"))
async def test_local_list_version_is_asked(ocpp, profile):
    """GetLocalListVersion is an empty request; a station answers the version of its list, an integer
    of 0 (no list) or more (the version can only be judged against a list the test installed: C13.full)."""
    exchange = await list_version(ocpp, C13.version_asked)
    version = dig(exchange.result, "versionNumber")
    require(isinstance(version, int) and version >= 0, C13.reports_version,
            "GetLocalListVersionResponse versionNumber is not 0 or more", expected=">= 0", actual=version)


def _full_entries(profile):
    """The accepted and the blocked token, each with its idTokenInfo."""
    return [(token, _info(token)) for token in _tokens(profile, "Accepted", "Blocked")]


@pytest.mark.sut_roles("csms")
@checks(C13.update_sent, C13.version_positive, C13.unique, C13.full_list, csms=TC("TC_D_01_CSMS", "ocpp2.0.1"))
@needs(lambda given: _tokens(given.profile, "Accepted", "Blocked"))
async def test_full_update_is_sent_as_asked(ocpp, profile):
    """A Full update with an accepted and a blocked token: the CSMS sends both with their idTokenInfo."""
    entries = _full_entries(profile)
    exchange = await send_local_list(ocpp, "Full", entries, C13.update_sent)
    _check_request(exchange, "Full")
    listed = _listed(exchange)
    for token, info in entries:
        check_equal(C13.full_list, f"the Full list's idTokenInfo.status of {token.name}", info["status"],
                    dig(listed.get(token.id.casefold(), {}), "idTokenInfo.status"))


@pytest.mark.sut_roles("cs")
@checks(C13.full_applied, C13.reports_version)
@needs(lambda given: _tokens(given.profile, "Accepted", "Blocked"))
async def test_full_update_installs_the_list(ocpp, profile):
    """A Full update with an accepted and a blocked token: the station accepts it and reports its version
    afterwards."""
    entries = _full_entries(profile)
    version = await install_list(ocpp, entries, C13.full_applied)
    reported = (await list_version(ocpp, C13.reports_version)).result["versionNumber"]
    check_equal(C13.reports_version, "GetLocalListVersionResponse versionNumber after the Full update", version,
                reported)


def _differential_changes(profile):
    """Block the accepted token, add the expired one, delete the blocked one."""
    accepted, blocked, expired = _tokens(profile, "Accepted", "Blocked", "Expired")
    return [(accepted, {"status": "Blocked"}), (expired, _info(expired)), (blocked, None)]


@pytest.mark.sut_roles("csms")
@checks(C13.update_sent, C13.version_positive, C13.unique, C13.differential_entries, C13.differential_version,
        C13.next_version, csms=(TC("TC_D_02_CSMS", "ocpp2.0.1"), TC("TC_D_03_CSMS", "ocpp2.0.1")))
@needs(lambda given: _tokens(given.profile, "Accepted", "Blocked", "Expired"))
async def test_differential_update_is_sent_as_asked(ocpp, profile):
    """A Differential update that blocks the accepted token, adds the expired one and deletes the blocked one,
    judged on the request: above the version of the harness's station's list (one of its own), every change
    with its status."""
    changes = _differential_changes(profile)
    current = secrets.randbelow(50) + 1
    ocpp.configure(local_list_version=current)
    start = ocpp.mark()
    exchange = await send_local_list(ocpp, "Differential", changes, C13.update_sent)
    _check_request(exchange, "Differential")
    version = exchange.request["versionNumber"]
    require(version > current, C13.differential_version, "the Differential update's versionNumber is not above "
            "the station's current version", expected=f"> {current}", actual=version)
    asked = await ocpp.expect("GetLocalListVersion", sender=CSMS, after=start, rule=C13.next_version,
                              timeout=ocpp.timeouts.quiet)
    if asked is not None:
        check_equal(C13.next_version, "the Differential update's versionNumber", current + 1, version)
    listed = _listed(exchange)
    for token, info in changes:
        entry = listed.get(token.id.casefold())
        require(entry is not None, C13.differential_entries, f"the Differential update leaves out {token.name}",
                expected=token.id, actual=sorted(listed))
        check_equal(C13.differential_entries, f"idTokenInfo.status of {token.name} in the Differential update",
                    None if info is None else info["status"], dig(entry, "idTokenInfo.status"))


@pytest.mark.sut_roles("cs")
@checks(C13.full_applied, C13.differential_applied, C13.reports_version)
@needs(lambda given: _tokens(given.profile, "Accepted", "Blocked", "Expired"))
async def test_differential_update_adds_updates_and_deletes(ocpp, profile):
    """A Differential update blocks the accepted token, adds the expired one and deletes the blocked one: the
    station accepts it and reports the update's version afterwards."""
    accepted, blocked, _ = _tokens(profile, "Accepted", "Blocked", "Expired")
    changes = _differential_changes(profile)
    version = await install_list(ocpp, [(accepted, _info(accepted)), (blocked, _info(blocked))], C13.full_applied)
    await update_list(ocpp, "Differential", changes, C13.differential_applied, version + 1)
    reported = (await list_version(ocpp, C13.reports_version)).result["versionNumber"]
    check_equal(C13.reports_version, "GetLocalListVersionResponse versionNumber after the Differential update",
                version + 1, reported)


@checks(C13.full_applied, C13.mismatch)
@pytest.mark.sut_roles("cs")
@pytest.mark.parametrize("step", [0, 1], ids=["same_version", "older_version"])
@needs(lambda given: _tokens(given.profile, "Accepted", "Blocked"))
async def test_stale_differential_update_is_a_version_mismatch(ocpp, profile, step):
    """A Differential update at the current version, or an older one, is answered VersionMismatch and the
    station keeps its version (D01.FR.19)."""
    accepted, blocked = _tokens(profile, "Accepted", "Blocked")
    version = await install_list(ocpp, [(accepted, _info(accepted))], C13.full_applied, ahead=1 + step)
    stale = version - step
    exchange = await send_local_list(ocpp, "Differential", [(blocked, _info(blocked))], C13.mismatch, version=stale)
    check_equal(C13.mismatch, f"SendLocalListResponse status of a Differential update at version {stale} "
                f"(current {version})", "VersionMismatch", exchange.result["status"])
    reported = (await list_version(ocpp, C13.mismatch)).result["versionNumber"]
    check_equal(C13.mismatch, "GetLocalListVersionResponse versionNumber after the refused update", version, reported)


@checks(C13.full_applied, C13.empty_differential, C13.reports_version)
@pytest.mark.sut_roles("cs")
@needs(lambda given: _tokens(given.profile, "Accepted"))
async def test_differential_update_without_entries_takes_the_version(ocpp, profile):
    """A Differential update without localAuthorizationList changes no entry and is Accepted at its version
    (D01.FR.05)."""
    [accepted] = _tokens(profile, "Accepted")
    version = await install_list(ocpp, [(accepted, _info(accepted))], C13.full_applied)
    await update_list(ocpp, "Differential", [], C13.empty_differential, version + 1)
    reported = (await list_version(ocpp, C13.reports_version)).result["versionNumber"]
    check_equal(C13.reports_version, "GetLocalListVersionResponse versionNumber", version + 1, reported)


async def _asked_about(ocpp, profile, token, rule):
    """``token`` presented at the first EVSE: the station must ask the CSMS about it (it is not in its list)."""
    start = ocpp.mark()
    await ocpp.act(CS, "present_id_token", id_token=token.wire(), evse_id=profile.evses[0].id)
    await ocpp.expect("Authorize", sender=CS, after=start, where=asks_about(token), rule=rule)


@checks(C13.full_applied, C13.full_replaces)
@pytest.mark.sut_roles("cs")
@needs(lambda given: _tokens(given.profile, "Invalid", "Accepted"))
async def test_full_update_replaces_the_list(ocpp, profile):
    """After a second Full update without it, a token of the first list is no longer the station's to
    accept: presented, it is asked about (D01.FR.15)."""
    unknown, accepted = _tokens(profile, "Invalid", "Accepted")
    version = await install_list(ocpp, [(unknown, {"status": "Accepted"})], C13.full_applied)
    await update_list(ocpp, "Full", [(accepted, _info(accepted))], C13.full_applied, version + 1)
    await _asked_about(ocpp, profile, unknown, C13.full_replaces)


@checks(C13.full_applied, C13.differential_applied, C13.deleted)
@pytest.mark.sut_roles("cs")
@needs(lambda given: _tokens(given.profile, "Invalid"))
async def test_differential_delete_removes_the_token(ocpp, profile):
    """A token deleted by a Differential update (no idTokenInfo) is asked about again when presented
    (D01.FR.17)."""
    [unknown] = _tokens(profile, "Invalid")
    version = await install_list(ocpp, [(unknown, {"status": "Accepted"})], C13.full_applied)
    await update_list(ocpp, "Differential", [(unknown, None)], C13.differential_applied, version + 1)
    await _asked_about(ocpp, profile, unknown, C13.deleted)


@checks(C13.full_applied, C13.differential_applied, C13.updated)
@pytest.mark.sut_roles("cs")
@needs(lambda given: _tokens(given.profile, "Invalid", "Accepted"))
async def test_differential_update_makes_a_token_accepted(ocpp, profile):
    """A token the list held as Blocked and a Differential update makes Accepted starts a transaction
    without an AuthorizeRequest (D01.FR.16), although the CSMS does not know it."""
    unknown, accepted = _tokens(profile, "Invalid", "Accepted")
    version = await install_list(ocpp, [(unknown, {"status": "Blocked"}), (accepted, _info(accepted))],
                                 C13.full_applied)
    await update_list(ocpp, "Differential", [(unknown, {"status": "Accepted"})], C13.differential_applied, version + 1)
    evse, start = profile.evses[0].id, ocpp.mark()
    await ocpp.act(CS, "present_id_token", id_token=unknown.wire(), evse_id=evse)
    await ocpp.act(CS, "plug_in", evse_id=evse)
    await ocpp.expect("TransactionEvent", sender=CS, after=start, where=carries(unknown, "Started"), rule=C13.updated)
    await ocpp.expect_none("Authorize", after=start, rule=C13.updated, within=0.01,
                           where=asks_about(unknown))   # it would have come before the Started event


@checks(C13.full_applied, C13.differential_applied, C13.differential_keeps)
@pytest.mark.sut_roles("cs")
@needs(lambda given: _tokens(given.profile, "Invalid", "Accepted"))
async def test_differential_update_keeps_the_entries_it_does_not_name(ocpp, profile):
    """A token listed Accepted by a Full update, which a later Differential update (blocking another token)
    does not name, still starts a transaction from the list without an AuthorizeRequest, although the CSMS
    does not know it: a station that dropped it asks, is answered Invalid and starts nothing."""
    kept, named = _tokens(profile, "Invalid", "Accepted")
    version = await install_list(ocpp, [(kept, {"status": "Accepted"}), (named, _info(named))], C13.full_applied)
    await update_list(ocpp, "Differential", [(named, {"status": "Blocked"})], C13.differential_applied, version + 1)
    evse, start = profile.evses[0].id, ocpp.mark()
    await ocpp.act(CS, "present_id_token", id_token=kept.wire(), evse_id=evse)
    await ocpp.act(CS, "plug_in", evse_id=evse)
    await ocpp.expect("TransactionEvent", sender=CS, after=start, where=carries(kept, "Started"),
                      rule=C13.differential_keeps, why="for the token the Differential update did not name")
    await ocpp.expect_none("Authorize", after=start, rule=C13.differential_keeps, within=0.01,
                           where=asks_about(kept))   # it would have come before the Started event
