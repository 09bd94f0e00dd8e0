"""Sessions dialogues (module at 2.2.1): the CPO starting, changing, stopping and reserving
Sessions it pushes to the eMSP's Receiver, reading a Session back from the SUT, and the eMSP's
charging preferences. The rules are the rows of ``harness.ocpi.sessions.SessionRules``.

Played from either side: a CPO under test is asked by the actuator (``start_session``,
``update_session``, ``stop_session``, ``reserve``) and its request is awaited on the harness's
Receiver, which judges it (schema, ids, last_updated, the status table); the harness's own CPO
performs the same action and returns the request it sent. Every Session a test starts is stopped
when the test ends (a Session is never deleted: COMPLETED is how one is left).
"""

from __future__ import annotations

import copy
from datetime import timedelta
from typing import Any

from harness.cistring import same_id
from harness.errors import NotApplicable
from harness.ocpi import schemas
from harness.ocpi.envelope import expect_success
from harness.ocpi.locations import LOCATIONS
from harness.ocpi.sessions import (
    ACTIVE, CHARGING_PREFERENCES, PREFERENCES_CAPABLE, RESERVATION, SESSIONS, SessionRules, repeated_periods,
    unchanged_fields)
from harness.ocpi.timestamps import format_datetime, parse_datetime
from harness.arena.ocpi import OcpiArena, carrying, check_answer
from harness.roles import CPO, EMSP
from harness.rules import Rule
from harness.transport.http import HttpExchange
from harness.usecases import ocpi_locations as loc
from harness.verdict import require, violated

LISTING = (SESSIONS, "session", SessionRules.listed)


def _pushed(push: HttpExchange | None, rule: Rule, what: str) -> dict[str, Any]:
    """The Session (or the change) the CPO's request carried."""
    body = push.request_json() if push is not None else None
    require(isinstance(body, dict), rule, f"the CPO's {what} carries no Session", expected="a JSON object",
            actual=body)
    return body


async def _cpo_does(arena: OcpiArena, action: str, method: str, ids: tuple[str, ...], *, rule: Rule,
                    accepted: Rule, carries: dict[str, Any] | None = None, **body: Any) -> HttpExchange | None:
    """The CPO performs ``action``: a CPO under test through its actuator (its ``method`` request
    awaited: the one that ``carries`` what was asked, when given, not another driver's), the harness's own CPO
    directly (the request it sent, which the eMSP under test must have accepted: ``accepted``)."""
    if arena.is_sut(CPO):
        return await arena.exchange(CPO, method, SESSIONS, ids, trigger=(action, body), rule=rule,
                                    asked=None if carries is None else carrying(carries))
    push = await arena.act(CPO, action, **body)
    if push is not None:
        check_answer(push, accepted, f"the Session {method} ({action})", success=True)
    return push


def _stop_at_end(arena: OcpiArena, session_id: str) -> None:
    body = {"session_id": session_id}
    arena.undo(f"stop_session {body}", lambda: arena.act(CPO, "stop_session", **body))


async def start(arena: OcpiArena, *, rule: Rule = SessionRules.pushed, **body: Any) -> dict[str, Any]:
    """The CPO starts a Session (``body``: status, authorization_reference, location_id, ...) and
    PUTs it: the Session it pushed."""
    session = _pushed(await _cpo_does(arena, "start_session", "PUT", (), rule=rule, accepted=SessionRules.put_stored,
                                      carries={"status": ACTIVE, **body}, **body), rule, "PUT")
    _stop_at_end(arena, session["id"])
    return session


async def reserve(arena: OcpiArena, *, rule: Rule = SessionRules.reservation, accepted: Rule = SessionRules.put_stored,
                  **body: Any) -> dict[str, Any]:
    """A driver reserves (``body``: location_id, evse_uid): the RESERVATION Session the CPO PUT."""
    session = _pushed(await _cpo_does(arena, "reserve", "PUT", (), rule=rule, accepted=accepted,
                                      carries={"status": RESERVATION, **body}, **body), rule, "PUT")
    _stop_at_end(arena, session["id"])
    return session


async def change(arena: OcpiArena, session_id: str, action: str = "update_session", *,
                 rule: Rule = SessionRules.pushed, **body: Any) -> dict[str, Any]:
    """The CPO changes a Session (``update_session`` with kwh, status, authorization_reference; or
    ``stop_session``) and PATCHes it: the change it sent. From a CPO under test the change must hold
    only what changed, and no ChargingPeriod pushed before (judged against the Session as the
    harness held it before the PATCH)."""
    before = copy.deepcopy(held_by_harness(arena, session_id)) if arena.is_sut(CPO) else None
    push = await _cpo_does(arena, action, "PATCH", (session_id,), rule=rule, accepted=SessionRules.patch_applied,
                           session_id=session_id, **body)
    patch = _pushed(push, rule, "PATCH")
    if before is not None:
        repeated = repeated_periods(before, patch)
        require(not repeated, SessionRules.periods_only_new, "the PATCH repeats ChargingPeriods pushed before: the "
                "Receiver appends them a second time", expected="only new ChargingPeriods", actual=repeated)
        unchanged = unchanged_fields(before, patch)
        require(not unchanged, SessionRules.patch_only_changed, "the PATCH carries fields that did not change",
                expected="only the changed fields and last_updated", actual=unchanged)
    return patch


async def stop(arena: OcpiArena, session_id: str, *, rule: Rule = SessionRules.pushed) -> dict[str, Any]:
    """The driver stops: the CPO PATCHes the Session to COMPLETED."""
    return await change(arena, session_id, "stop_session", rule=rule)


def held_by_harness(arena: OcpiArena, session_id: str) -> dict[str, Any]:
    """The Session as the harness holds it, live: the harness's CPO's own, or what its eMSP was pushed."""
    found = next((s for s in arena.harness_peer.objects(SESSIONS) if same_id(s["id"], session_id)), None)
    require(found is not None, SessionRules.pushed, f"the harness holds no Session {session_id}",
            expected=session_id, actual=[s["id"] for s in arena.harness_peer.objects(SESSIONS)])
    return found


async def held_by_sut(arena: OcpiArena, session: dict[str, Any]) -> dict[str, Any]:
    """The Session as the SUT holds it: an eMSP's by GET on its Receiver; a CPO's from its list
    (date_from: the Session's first last_updated, so a list that still holds it must show it)."""
    if arena.is_sut(EMSP):
        exchange = await loc.get(arena, arena.sut_url(SESSIONS, session["id"]), SESSIONS)
        found = expect_success(exchange.status, exchange.response_body)
        require(isinstance(found, dict), SessionRules.stored, "a GET of the Session answered no object",
                expected="a Session", actual=found)
    else:
        listed = (await listing(arena, date_from=session["last_updated"])).items
        found = next((s for s in listed if same_id(s.get("id"), session["id"])), None)
        require(found is not None, SessionRules.listed, f"the Sender's list from {session['last_updated']} lacks "
                f"the Session {session['id']} it pushed", expected=session["id"], actual=[s.get("id") for s in listed])
    schemas.check("session", found)
    return found


async def listing(arena: OcpiArena, **query: Any):
    """Every page of the CPO under test's Session list for ``query`` (see ``ocpi_locations.walk``)."""
    return await loc.walk(arena, listing=LISTING, **query)


def seconds_later(stamp: str, seconds: int) -> str:
    return format_datetime(parse_datetime(stamp) + timedelta(seconds=seconds))


def check_held(arena: OcpiArena, field: str, expected: Any, actual: Any, *, what: str | None = None) -> None:
    """The SUT holds what the CPO pushed: an eMSP kept it as stored, a CPO serves it in its list. The
    Session member ``field`` is compared as the text reads it: a CiString ignoring case, a null as absent."""
    rule = SessionRules.patch_applied if arena.is_sut(EMSP) else SessionRules.listed
    if not schemas.same_object({field: expected}, {field: actual}):
        violated(rule, f"the SUT holds another {what or field} than was pushed", expected=expected, actual=actual)


# ------------------------------------------------------------------------------ charging preferences
async def set_preferences(arena: OcpiArena, session_id: str, preferences: dict[str, Any], *,
                          rule: Rule) -> HttpExchange:
    """The eMSP PUTs ChargingPreferences on the CPO's Sender: the harness's eMSP sends
    ``preferences``; an eMSP under test is asked to (``set_charging_preferences``)."""
    return await arena.exchange(EMSP, "PUT", SESSIONS, (session_id, CHARGING_PREFERENCES), preferences, rule=rule,
                                trigger=("set_charging_preferences", {"session_id": session_id, **preferences}))


def located(arena: OcpiArena, capable: bool) -> dict[str, str]:
    """Where a Session is started for a preferences test: the EVSE of the harness's own first
    Location that lists CHARGING_PREFERENCES_CAPABLE (``capable``) or does not; for a CPO under test
    the profile's ``[ocpi] preferences_evse`` / ``no_preferences_evse`` ("location_id/evse_uid")."""
    if arena.is_sut(CPO):
        name = "preferences_evse" if capable else "no_preferences_evse"
        where = arena.profile.get(f"ocpi.{name}")
        if not where:
            raise NotApplicable(f"the profile names no [ocpi] {name} (\"location_id/evse_uid\") to start the "
                                "Session at")
        location_id, evse_uid = where.split("/", 1)
        return {"location_id": location_id, "evse_uid": evse_uid}
    for location in arena.harness_peer.objects(LOCATIONS):
        for evse in location.get("evses", []):
            if (PREFERENCES_CAPABLE in evse.get("capabilities", [])) == capable:
                return {"location_id": location["id"], "evse_uid": evse["uid"]}
    raise NotApplicable("the harness's Locations hold no such EVSE")
