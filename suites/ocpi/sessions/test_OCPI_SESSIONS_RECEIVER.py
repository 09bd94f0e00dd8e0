"""OCPI_SESSIONS_RECEIVER — the eMSP's Sessions Receiver facing requests a CPO may get wrong
(sessions 2.2.1, Receiver interface; ``SessionRules`` in harness/ocpi/sessions.py).

The harness plays the CPO and sends what a careful Receiver must refuse or handle by the letter:
a PUT that replaces the periods, a PATCH without last_updated, of an unknown Session or on an
inner object, a DELETE, a URL whose party or id differs from the body or from the registered
party; and total_cost 0.00 (free) beside an absent one (not free). Where the text does not say
which error code answers a refused request, any error status code passes (2001 where the facts
name it).
"""

import copy
import secrets

import pytest

from harness.ocpi.envelope import StatusCode
from harness.ocpi.sessions import SESSIONS, SessionRules as Ses
from harness.arena.ocpi import check_answer
from harness.roles import CPO, EMSP
from harness.suite import OCPI, case, checks
from harness.usecases import ocpi_credentials as creds
from harness.usecases import ocpi_locations as loc
from harness.usecases import ocpi_sessions as ses
from harness.verdict import check_equal, require

pytestmark = case("OCPI_SESSIONS_RECEIVER", block="Sessions", roles=(EMSP,), protocols=OCPI)


async def _started(ocpi) -> dict:
    """Registered, one Session of the harness's CPO pushed and held by the eMSP: the harness's own."""
    await creds.registered(ocpi)
    sent = await ses.start(ocpi)
    return copy.deepcopy(ses.held_by_harness(ocpi, sent["id"]))


def _later(session: dict, seconds: int = 60) -> str:
    return ses.seconds_later(session["last_updated"], seconds)


async def _stored(ocpi, session_id: str):
    """The eMSP's answer to a GET of the Session."""
    return await loc.get(ocpi, ocpi.sut_url(SESSIONS, session_id), SESSIONS)


@checks(Ses.put_replaces_periods, Ses.put_stored, Ses.periods_appended)
async def test_put_replaces_the_charging_periods(ocpi):
    """Two PATCHed periods, then the whole Session PUT with an empty list: the periods are gone."""
    sent = await _started(ocpi)
    await ses.change(ocpi, sent["id"], kwh=2.0)
    await ses.change(ocpi, sent["id"], kwh=4.0)
    check_equal(Ses.periods_appended, "charging_periods after two PATCHes", 2,
                len((await ses.held_by_sut(ocpi, sent)).get("charging_periods") or []))
    whole = {**copy.deepcopy(ses.held_by_harness(ocpi, sent["id"])), "charging_periods": [],
             "last_updated": _later(sent)}
    answer = await ocpi.exchange(CPO, "PUT", SESSIONS, (sent["id"],), whole, rule=Ses.put_stored)
    check_answer(answer, Ses.put_stored, "the PUT of the whole Session", success=True)
    check_equal(Ses.put_replaces_periods, "charging_periods after the PUT", [],
                (await ses.held_by_sut(ocpi, sent)).get("charging_periods") or [])


@checks(Ses.patch_refused_without_last_updated)
async def test_patch_without_last_updated_gets_2001(ocpi):
    """A PATCH without last_updated is answered 2001 and changes nothing."""
    sent = await _started(ocpi)
    answer = await ocpi.exchange(CPO, "PATCH", SESSIONS, (sent["id"],), {"kwh": 42.0},
                                 rule=Ses.patch_refused_without_last_updated)
    check_answer(answer, Ses.patch_refused_without_last_updated, "a PATCH without last_updated",
                 status_code=StatusCode.INVALID_PARAMETERS)
    check_equal(Ses.patch_refused_without_last_updated, "kwh after the refused PATCH", sent["kwh"],
                (await ses.held_by_sut(ocpi, sent))["kwh"])


@checks(Ses.patch_unknown, Ses.stored, Ses.put_stored)
async def test_unknown_session_patch_refused_then_validated_and_put(ocpi):
    """A PATCH of a Session the eMSP never got is refused; the CPO validates with a GET (also
    refused: unknown), then PUTs the whole Session, which a GET then answers."""
    sent = await _started(ocpi)
    missing = {**sent, "id": f"SES-NEVER-PUT-{secrets.token_hex(4).upper()}", "last_updated": _later(sent)}
    answer = await ocpi.exchange(CPO, "PATCH", SESSIONS, (missing["id"],), {"kwh": 1.0, "last_updated": _later(sent)},
                                 rule=Ses.patch_unknown)
    check_answer(answer, Ses.patch_unknown, "a PATCH of an unknown Session", success=False)
    check_answer(await _stored(ocpi, missing["id"]), Ses.stored, "a GET of an unknown Session", success=False)
    put = await ocpi.exchange(CPO, "PUT", SESSIONS, (missing["id"],), missing, rule=Ses.put_stored)
    check_answer(put, Ses.put_stored, "the PUT of the whole Session", success=True)
    validated = await ses.held_by_sut(ocpi, missing)
    check_equal(Ses.stored, "kwh of the validated Session", missing["kwh"], validated["kwh"])


@checks(Ses.patch_whole_session)
async def test_patch_on_an_inner_object_is_refused(ocpi):
    """A PATCH works on the whole Session: one at .../{session_id}/charging_periods is refused and
    the Session's periods stay as they were."""
    sent = await _started(ocpi)
    period = {"start_date_time": sent["start_date_time"], "dimensions": [{"type": "ENERGY", "volume": 1.5}]}
    answer = await ocpi.send("PATCH", ocpi.sut_url(SESSIONS, sent["id"], "charging_periods"), token=ocpi.token_to_sut,
                             module=SESSIONS, body={"charging_periods": [period], "last_updated": _later(sent)})
    check_answer(answer, Ses.patch_whole_session, "a PATCH on the Session's charging_periods", success=False)
    check_equal(Ses.patch_whole_session, "charging_periods", sent.get("charging_periods") or [],
                (await ses.held_by_sut(ocpi, sent)).get("charging_periods") or [])


@checks(Ses.never_deleted)
async def test_delete_is_refused_and_the_session_stays(ocpi):
    """Sessions are never deleted: a DELETE is refused and the Session is still there."""
    sent = await _started(ocpi)
    answer = await ocpi.send("DELETE", ocpi.sut_url(SESSIONS, sent["id"]), token=ocpi.token_to_sut, module=SESSIONS)
    check_answer(answer, Ses.never_deleted, "a DELETE of a Session", success=False)
    check_answer(await _stored(ocpi, sent["id"]), Ses.never_deleted, "a GET after the DELETE", success=True)


@pytest.mark.parametrize("field", ["country_code", "party_id", "id"])
@checks(Ses.mismatch_refused)
async def test_put_whose_url_differs_from_the_body_is_refused(ocpi, field):
    """A PUT whose URL country_code, party_id or session_id is not the Session's is refused."""
    sent = await _started(ocpi)
    other = {"country_code": "XX", "party_id": "ZZZ", "id": f"SES-OTHER-{secrets.token_hex(4).upper()}"}[field]
    body = {**sent, "last_updated": _later(sent)}
    if field != "id":
        body[field] = other
    ids = (other,) if field == "id" else (sent["id"],)
    answer = await ocpi.exchange(CPO, "PUT", SESSIONS, ids, body, rule=Ses.mismatch_refused)
    check_answer(answer, Ses.mismatch_refused, f"a PUT whose {field} differs between URL and body", success=False)


@checks(Ses.party_registered)
async def test_push_under_another_party_is_refused(ocpi):
    """A CPO pushes only under the party its credentials roles declare: a Session PUT under
    another country_code/party_id (URL and body agreeing) is refused."""
    sent = await _started(ocpi)
    session_id = f"SES-ELSEWHERE-{secrets.token_hex(4).upper()}"
    body = {**sent, "country_code": "XX", "party_id": "ZZZ", "id": session_id}
    url = f"{ocpi.sut_url(SESSIONS).rstrip('/').rsplit('/', 2)[0]}/XX/ZZZ/{session_id}"
    answer = await ocpi.send("PUT", url, token=ocpi.token_to_sut, module=SESSIONS, body=body)
    check_answer(answer, Ses.party_registered, "a PUT under a party the harness never declared", success=False)


@pytest.mark.parametrize("cost", ["free", "unknown"])
@checks(Ses.total_cost, Ses.put_stored)
async def test_total_cost_is_kept_as_sent(ocpi, cost):
    """total_cost 0.00 means free and stays 0.00; an absent total_cost is unknown, never free, and
    stays absent (null counts as absent)."""
    sent = await _started(ocpi)
    body = {**sent, "last_updated": _later(sent)}
    body.pop("total_cost", None)
    if cost == "free":
        body["total_cost"] = {"excl_vat": 0.0, "incl_vat": 0.0}
    answer = await ocpi.exchange(CPO, "PUT", SESSIONS, (sent["id"],), body, rule=Ses.put_stored)
    check_answer(answer, Ses.put_stored, "the PUT of the whole Session", success=True)
    held = (await ses.held_by_sut(ocpi, sent)).get("total_cost")
    if cost == "free":
        require(isinstance(held, dict) and held.get("excl_vat") == 0, Ses.total_cost, "a free Session (total_cost "
                "0.00) is not held as free", expected={"excl_vat": 0.0}, actual=held)
    else:
        check_equal(Ses.total_cost, "total_cost of a Session pushed without one", None, held)
