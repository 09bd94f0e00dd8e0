"""OCPI_CHARGINGPROFILES_RECEIVER — the CPO's chargingprofiles Receiver facing what a careful Receiver must refuse
or handle by the letter (chargingprofiles 2.2.1; ``ChargingProfileRules`` in harness/ocpi/chargingprofiles.py;
docs/requirements/ocpi-chargingprofiles.md).

The harness plays the eMSP: a response_url carrying a query (the result must go there, query included), a
Session the CPO does not know (not ACCEPTED; UNKNOWN_SESSION advised), a Session that ended (not ACCEPTED,
advised), methods the Receiver does not define, requests without their parameters, and a local limit at the EVSE
of a Session nobody set a profile on (no ActiveChargingProfile PUT).
"""

import secrets
from urllib.parse import urlencode

import pytest

from harness.arena.ocpi import check_answer
from harness.ocpi.chargingprofiles import (
    ACCEPTED, CHARGINGPROFILES, DELETE, GET, PUT, UNKNOWN_SESSION, ChargingProfileRules as Cp)
from harness.ocpi.envelope import outcome
from harness.roles import CPO
from harness.suite import OCPI, case, checks
from harness.usecases import ocpi_chargingprofiles as cp
from harness.usecases import ocpi_credentials as creds
from harness.usecases import ocpi_sessions as ses
from harness.usecases.ocpi_async import Asked
from harness.verdict import check_equal, require

pytestmark = case("OCPI_CHARGINGPROFILES_RECEIVER", block="ChargingProfiles", roles=(CPO,), protocols=OCPI)


def _body(method: str) -> dict:
    return {"duration": 900} if method == GET else {"charging_profile": cp.a_profile()} \
        if method == PUT else {}


async def _session(ocpi) -> str:
    await creds.registered(ocpi)
    return (await ses.start(ocpi))["id"]


@pytest.mark.parametrize("method", [GET, PUT, DELETE])
@checks(Cp.result_url, Cp.result_sent, Cp.profile_response)
async def test_result_goes_to_a_response_url_with_a_query(ocpi, method):
    """A response_url of the form ``…/{kind}?request_id={ref}`` (as the text's examples write some): the result
    is POSTed to it, its query included."""
    session_id = await _session(ocpi)
    await cp.followed(ocpi, method, session_id, query=True, **_body(method))


@pytest.mark.parametrize("method", [GET, PUT, DELETE])
@checks(Cp.not_accepted_unknown, Cp.unknown_session, Cp.profile_response)
async def test_unknown_session_is_not_accepted(ocpi, method):
    """A request for a Session the CPO never had is not ACCEPTED; UNKNOWN_SESSION is the answer made for it."""
    await creds.registered(ocpi)
    asked = await cp.ask(ocpi, method, f"SES-NONE-{secrets.token_hex(4).upper()}", **_body(method))
    if not outcome(asked.answer.status, asked.answer.response_body).ok:
        return   # refused outright: not ACCEPTED either
    result = cp.response(asked)["result"]
    require(result != ACCEPTED, Cp.not_accepted_unknown, f"a {method} for an unknown Session is ACCEPTED",
            expected=UNKNOWN_SESSION, actual=result)
    check_equal(Cp.unknown_session, f"result of a {method} for an unknown Session", UNKNOWN_SESSION, result)


@checks(Cp.ongoing_only, Cp.profile_response)
async def test_set_on_an_ended_session_is_not_accepted(ocpi):
    """A SetChargingProfile for a Session that is COMPLETED: there is no charging left to limit."""
    session_id = await _session(ocpi)
    await ses.stop(ocpi, session_id)
    asked = await cp.ask(ocpi, PUT, session_id, **_body(PUT))
    if not outcome(asked.answer.status, asked.answer.response_body).ok:
        return
    result = cp.response(asked)["result"]
    require(result != ACCEPTED, Cp.ongoing_only, "a SetChargingProfile for a COMPLETED Session is ACCEPTED",
            expected="REJECTED (or another refusal)", actual=result)


@pytest.mark.parametrize("method", ["POST", "PATCH"])
@checks(Cp.methods)
async def test_other_methods_are_refused(ocpi, method):
    """The Receiver defines GET, PUT and DELETE: a POST or PATCH of {chargingprofiles}/{session_id} is refused."""
    session_id = await _session(ocpi)
    answer = await ocpi.send(method, ocpi.sut_url(CHARGINGPROFILES, session_id), token=ocpi.token_to_sut,
                             module=CHARGINGPROFILES, body={"charging_profile": cp.a_profile(),
                                                            "response_url": _url(ocpi)})
    check_answer(answer, Cp.methods, f"a {method} of the chargingprofiles endpoint", success=False)


def _url(ocpi) -> str:
    """A URL of the harness's that takes any result with success (the CPO may well POST to it)."""
    return ocpi.harness_emsp.can(f"chargingprofile-{secrets.token_hex(6)}", 200,
                                 {"status_code": 1000, "timestamp": "2024-01-01T00:00:00Z"})


@pytest.mark.parametrize("lacking", ["GET-duration", "GET-response_url", "DELETE-response_url", "PUT-response_url"])
@checks(Cp.parameters, Cp.duration_required)
async def test_request_without_its_parameters(ocpi, lacking):
    """A GET, DELETE or PUT without response_url: refused, or answered with something else than ACCEPTED (there is
    no URL for its result); a GET without duration the same (advised: a CPO may pick a duration itself)."""
    method, missing = lacking.split("-")
    session_id = await _session(ocpi)
    url = ocpi.sut_url(CHARGINGPROFILES, session_id)
    body = None
    if method == PUT:
        body = {"charging_profile": cp.a_profile()}
    else:
        query = {"duration": 900, "response_url": _url(ocpi)} if method == GET else {"response_url": _url(ocpi)}
        query.pop(missing)
        url = f"{url}?{urlencode(query)}" if query else url
    answer = await ocpi.send(method, url, token=ocpi.token_to_sut, module=CHARGINGPROFILES, body=body)
    if outcome(answer.status, answer.response_body).ok:
        said = cp.response(Asked(method, {}, answer, 0, ""))
        rule = Cp.duration_required if missing == "duration" else Cp.parameters
        require(said["result"] != ACCEPTED, rule, f"a {method} without {missing} is ACCEPTED",
                expected="refused, or not ACCEPTED", actual=said["result"])


@checks(Cp.no_update_unset)
async def test_no_update_for_a_session_without_a_set_profile(ocpi):
    """A local limit at the EVSE of a Session the eMSP never set a profile on: the CPO PUTs no
    ActiveChargingProfile to the eMSP."""
    session_id = await _session(ocpi)
    await cp.no_update(ocpi, session_id)
