"""OCPI_CHARGINGPROFILES — the smart charging party's requests to the CPO and their asynchronous results, and the
CPO's updates of the ActiveChargingProfile (chargingprofiles 2.2.1; ``ChargingProfileRules`` in
harness/ocpi/chargingprofiles.py; docs/requirements/ocpi-chargingprofiles.md).

Played with either platform under test; the eMSP always asks (an eMSP under test through the actuator:
``charging_profile_get``, ``charging_profile_set``, ``charging_profile_clear``), on a Session the CPO started. The
CPO answers at once with a ChargingProfileResponse (result, timeout); an ACCEPTED request's result is POSTed to
the response_url the eMSP gave, within the timeout, and the eMSP answers it with success and no data. After a
profile was set, a local limit at the EVSE (``change_active_profile`` at a CPO under test) makes the CPO PUT the
new ActiveChargingProfile to the eMSP, which answers it with success and no data.
"""

import pytest

from harness.errors import NotApplicable
from harness.ocpi.chargingprofiles import (
    ACCEPTED, DELETE, GET, PUT, UNKNOWN, ChargingProfileRules as Cp)
from harness.roles import CPO, EMSP
from harness.suite import OCPI, case, checks
from harness.usecases import ocpi_chargingprofiles as cp
from harness.usecases import ocpi_credentials as creds
from harness.usecases import ocpi_sessions as ses
from harness.verdict import check_equal, require

pytestmark = case("OCPI_CHARGINGPROFILES", block="ChargingProfiles", roles=(CPO, EMSP), protocols=OCPI)

FOLLOWED = (Cp.request, Cp.profile_response, Cp.result_sent, Cp.result_url, Cp.result_answered)


async def _session(ocpi) -> str:
    """An ongoing Session the CPO started and pushed (stopped when the test ends)."""
    await creds.registered(ocpi)
    return (await ses.start(ocpi))["id"]


async def _set(ocpi, session_id: str, n: int = 0) -> dict:
    """The ``n``-th ChargingProfile of the test set on ``session_id``, and its ChargingProfileResult."""
    _, done = await cp.followed(ocpi, PUT, session_id, charging_profile=cp.a_profile(n))
    return done


@pytest.mark.parametrize("method", [GET, PUT, DELETE])
@checks(*FOLLOWED, Cp.one_decimal, Cp.active_profile)
async def test_request_is_answered_then_its_result_posted(ocpi, method):
    """A GET, PUT or DELETE on an ongoing Session (a DELETE after a PUT): a ChargingProfileResponse at once; when
    ACCEPTED, the result of the method's kind POSTed to the response_url as given, within the timeout, answered
    with success and no data by the eMSP."""
    session_id = await _session(ocpi)
    if method == DELETE:
        await _set(ocpi, session_id)
    body = {"duration": 900} if method == GET else {"charging_profile": cp.a_profile()} \
        if method == PUT else {}
    _, done = await cp.followed(ocpi, method, session_id, **body)
    if ocpi.is_sut(EMSP):   # the harness's CPO's charge points do what they are asked
        check_equal(Cp.result_answered, f"result of the {method}", ACCEPTED, done["result"])


@checks(*FOLLOWED, Cp.active_profile)
async def test_set_then_active_profile(ocpi):
    """A profile set, then the ActiveChargingProfile asked for an hour: the ActiveChargingProfileResult follows
    and, when ACCEPTED, carries the profile the charge point calculated."""
    session_id = await _session(ocpi)
    await _set(ocpi, session_id)
    await cp.followed(ocpi, GET, session_id, duration=3600)


@checks(*FOLLOWED, Cp.unique_url)
async def test_set_again_replaces_the_profile(ocpi):
    """A second SetChargingProfile on the same Session (an update) is followed through like the first; the eMSP
    gives each its own response_url (advised, to tell the results apart)."""
    session_id = await _session(ocpi)
    first, _ = await cp.followed(ocpi, PUT, session_id, charging_profile=cp.a_profile())
    again, _ = await cp.followed(ocpi, PUT, session_id, charging_profile=cp.a_profile(1))
    require(first.response_url != again.response_url, Cp.unique_url, "two SetChargingProfile requests share one "
            "response_url", expected="two URLs", actual=again.response_url)


@checks(*FOLLOWED)
async def test_clear_where_no_profile_was_set(ocpi):
    """A ClearProfile on a Session without a profile of the eMSP's: followed through; the charge point may find
    nothing to clear (UNKNOWN), which the eMSP answers like any other result."""
    session_id = await _session(ocpi)
    asked = await cp.ask(ocpi, DELETE, session_id)
    done = await cp.result(ocpi, asked, cp.accepted(asked)["timeout"])
    if ocpi.is_sut(EMSP):   # a CPO under test may post any ChargingProfileResultType (its schema)
        check_equal(Cp.result_answered, "result of clearing where nothing was set", UNKNOWN, done["result"])


@checks(Cp.update_sent, Cp.update_answered, Cp.update_duration)
async def test_changed_active_profile_is_put_after_a_set(ocpi):
    """After a SetChargingProfile the CPO's result of which was ACCEPTED, a local limit at the EVSE changes the
    ActiveChargingProfile: the CPO PUTs it to the eMSP's {chargingprofiles}/{session_id} (an ActiveChargingProfile
    of 5 to 60 minutes advised), and the eMSP answers with success and no data."""
    session_id = await _session(ocpi)
    done = await _set(ocpi, session_id)
    if done["result"] != ACCEPTED:
        raise NotApplicable(f"the charge point answered the SetChargingProfile {done['result']}: nothing was set")
    await cp.update(ocpi, session_id)


@checks(Cp.update_sent, Cp.update_answered, Cp.update_duration)
async def test_changed_active_profile_is_put_after_a_clear(ocpi):
    """A profile set, then cleared: the eMSP once set one on the Session, so a local limit at the EVSE is still
    PUT to it (the ActiveChargingProfile without the eMSP's profile)."""
    session_id = await _session(ocpi)
    if (await _set(ocpi, session_id))["result"] != ACCEPTED:
        raise NotApplicable("the charge point did not take the SetChargingProfile: nothing was set")
    await cp.followed(ocpi, DELETE, session_id)
    await cp.update(ocpi, session_id)
