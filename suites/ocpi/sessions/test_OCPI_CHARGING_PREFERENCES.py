"""OCPI_CHARGING_PREFERENCES — the eMSP sets a driver's ChargingPreferences on the CPO's Sessions
Sender during a Session (sessions 2.2.1; ``SessionRules`` in harness/ocpi/sessions.py).

Played with either platform under test: the CPO starts a Session (at an EVSE that lists
CHARGING_PREFERENCES_CAPABLE, or at one that does not); the eMSP PUTs preferences to
``{sessions}/{session_id}/charging_preferences`` (an eMSP under test is asked:
``set_charging_preferences``, after the harness pushed it the Location, since the eMSP checks the
capability there). The CPO answers one ChargingPreferencesResponse value — which one is its own
choice, so a CPO under test passes with any of the five; the harness's CPO answers each of them
in turn (its policy: harness/reference/ocpi/sessions.py). Without the capability the eMSP sends
nothing, and a CPO answers HTTP 404 with 2001.
"""

from datetime import timedelta

import pytest

from harness.clock import utcnow
from harness.ocpi.envelope import StatusCode, expect_success
from harness.ocpi.sessions import CHARGING_PREFERENCES, PREFERENCES_RESPONSES, SESSIONS, SessionRules as Ses
from harness.ocpi.timestamps import format_datetime
from harness.arena.ocpi import check_answer
from harness.roles import CPO, EMSP
from harness.suite import OCPI, case, checks
from harness.usecases import ocpi_credentials as creds
from harness.usecases import ocpi_locations as loc
from harness.usecases import ocpi_sessions as ses
from harness.verdict import check_equal, check_in

pytestmark = case("OCPI_CHARGING_PREFERENCES", block="Sessions", roles=(CPO, EMSP), protocols=OCPI)


def _in_hours(hours: int) -> str:
    return format_datetime(utcnow() + timedelta(hours=hours))


# what the driver asks, and what the harness's CPO answers to it
SITUATIONS = {
    "ACCEPTED": lambda: {"profile_type": "FAST"},
    "DEPARTURE_REQUIRED": lambda: {"profile_type": "CHEAP", "energy_need": 20.0},
    "ENERGY_NEED_REQUIRED": lambda: {"profile_type": "CHEAP", "departure_time": _in_hours(4)},
    "NOT_POSSIBLE": lambda: {"profile_type": "REGULAR", "departure_time": _in_hours(-1), "energy_need": 5.0},
    "PROFILE_TYPE_NOT_SUPPORTED": lambda: {"profile_type": "GREEN", "departure_time": _in_hours(6),
                                           "energy_need": 30.0},
}


async def _session_at(ocpi, *, capable: bool) -> dict:
    """Registered; a Session started at an EVSE with or without the capability, whose Location an
    eMSP under test was pushed first."""
    await creds.registered(ocpi)
    where = ses.located(ocpi, capable=capable)
    if ocpi.is_sut(EMSP):
        push = await loc.push_location(ocpi, where["location_id"], rule=Ses.pushed)
        check_answer(push, Ses.preferences_only_capable, f"the PUT of the Location {where['location_id']}",
                     success=True)
    return await ses.start(ocpi, **where)


@pytest.mark.parametrize("situation", list(SITUATIONS))
@checks(Ses.preferences_answer, Ses.preferences_sent, Ses.pushed)
async def test_preferences_are_answered_with_a_response_value(ocpi, situation):
    """Preferences set during an ongoing Session at a capable EVSE are PUT to the Sender and
    answered with a ChargingPreferencesResponse value."""
    session = await _session_at(ocpi, capable=True)
    answer = await ses.set_preferences(ocpi, session["id"], SITUATIONS[situation](), rule=Ses.preferences_sent)
    check_answer(answer, Ses.preferences_answer, "the answer to the ChargingPreferences PUT", success=True)
    data = expect_success(answer.status, answer.response_body)
    check_in(Ses.preferences_answer, "the ChargingPreferencesResponse", PREFERENCES_RESPONSES, data)
    if ocpi.is_sut(EMSP):   # the harness's CPO: its own policy's answer (a self-check)
        check_equal(Ses.preferences_answer, f"the harness CPO's answer to {situation}", situation, data)


@checks(Ses.preferences_not_capable, Ses.preferences_only_capable, Ses.pushed)
async def test_no_preferences_without_the_capability(ocpi):
    """At an EVSE without CHARGING_PREFERENCES_CAPABLE an eMSP sends no preferences, and a CPO
    answers preferences sent anyway with HTTP 404 and 2001."""
    session = await _session_at(ocpi, capable=False)
    preferences = SITUATIONS["ACCEPTED"]()
    if ocpi.is_sut(EMSP):
        mark = ocpi.mark()
        await ocpi.act(EMSP, "set_charging_preferences", session_id=session["id"], **preferences)
        await ocpi.expect_no_request("PUT", SESSIONS, (session["id"], CHARGING_PREFERENCES), after=mark,
                                     rule=Ses.preferences_only_capable)
    else:
        answer = await ses.set_preferences(ocpi, session["id"], preferences, rule=Ses.preferences_sent)
        check_answer(answer, Ses.preferences_not_capable, "preferences at an EVSE without the capability",
                     http_status=404, status_code=StatusCode.INVALID_PARAMETERS)
