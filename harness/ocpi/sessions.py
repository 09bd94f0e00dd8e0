"""The sessions module (2.2.1) as rules and a sans-I/O store: what the CPO's Sender serves and
what a Receiver keeps of the Sessions pushed to it, and how a Session may change.

A Session is a Client Owned Object: the Receiver keeps it under the URL's country_code, party_id
and session_id (CiStrings: compared ignoring case, echoed as stored). A PUT replaces the whole
Session, charging_periods included; a PATCH changes the fields it carries, appends the
charging_periods it carries, and must carry last_updated. Sessions are never deleted; COMPLETED is
final. The store raises ``StatusError`` with the status code to answer when a request breaks a
rule; the reference peer serves it over HTTP and the use cases judge a SUT by the same rows.

Readings where the text is silent (spec 000 "Session status": transitions into INVALID and out
of PENDING other than to ACTIVE are not shown): every change into INVALID and every change out of
PENDING or INVALID is accepted, and so is RESERVATION → PENDING; what is refused is any change of a
COMPLETED Session and an ACTIVE one going back to a state before charging (PENDING, RESERVATION).
The answer to a request naming a Session that does not exist is not shown: any error status code
is accepted, the reference answers 2001 with HTTP 404.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from harness.cistring import id_key, same_id
from harness.ocpi.envelope import StatusCode, StatusError, json_copy
from harness.ocpi.locations import checked, invalid
from harness.rules import Rule, RuleTable, must, should

SESSIONS = "sessions"
CHARGING_PREFERENCES = "charging_preferences"
NA = "#NA"   # evse_uid and connector_id of a reservation without an assigned EVSE or connector
PENDING, ACTIVE, COMPLETED, INVALID, RESERVATION = "PENDING", "ACTIVE", "COMPLETED", "INVALID", "RESERVATION"
PREFERENCES_RESPONSES = ("ACCEPTED", "DEPARTURE_REQUIRED", "ENERGY_NEED_REQUIRED", "NOT_POSSIBLE",
                         "PROFILE_TYPE_NOT_SUPPORTED")
PREFERENCES_CAPABLE = "CHARGING_PREFERENCES_CAPABLE"
IDS = ("country_code", "party_id", "id")

_RULES = "spec 000 Operating rules for Sessions"
_RECEIVER = "spec 000 Sessions module, Receiver interface"
_SENDER = "spec 000 Sessions module, Sender interface"
_STATES = "spec 000 Session status table; SessionStatus"


class SessionRules(RuleTable, namespace="ocpi.sessions"):
    """The sessions module: the CPO's pushes and list, the Receiver's PUT, PATCH and GET."""
    pushed = must(f"{_RULES} 1, 5; spec 000 Events", "the CPO pushes a new Session (a reservation too) with PUT and "
                  "every change with PATCH", by="cpo")
    receiver_url = must(f"{_RECEIVER}; spec 000 What the service does 6 (Client Owned Objects)", "the CPO sends "
                        "to {sessions}/{its country_code}/{its party_id}/{session_id} only GET, PUT and PATCH",
                        by="cpo")
    put_ids = must(f"{_RECEIVER} PUT", "a PUT's URL country_code, party_id and session_id equal the Session's",
                   by="cpo")
    put_stored = must(f"{_RECEIVER} PUT, GET", "the Receiver stores the Session PUT to it and answers it as stored",
                      by="emsp")
    ids_as_sent = should("spec 000 Notation (CiString), Session table (country_code, party_id, id, location_id, "
                         "evse_uid, connector_id); facts/ocpi-wire.md Other rules (compare CiStrings ignoring case, "
                         "echo them as sent)", "a Session's ids come back as they were pushed, in the same case")
    put_replaces_periods = must(f"{_RECEIVER} PUT", "a PUT replaces the stored Session with its charging_periods: "
                                "an omitted or empty list removes the stored ones", by="emsp")
    mismatch_refused = must(f"{_RECEIVER} PUT (country_code and party_id SHALL equal those in the pushed Session); "
                            "facts/ocpi-wire.md (a URL id that differs from the body id: 2001)",
                            "a PUT whose URL country_code, party_id or session_id differ from the Session's is "
                            "refused", by="emsp")
    party_registered = must(f"{_RECEIVER} (the URL's country_code and party_id identify the requesting CPO); spec 000 "
                            "Credentials (the roles tell the server which party a client pushes Client Owned Objects "
                            "as)", "a push under a party that is none of the pushing platform's credentials roles is "
                            "refused", by="emsp")
    patch_last_updated = must(f"{_RECEIVER} PATCH (SHALL contain last_updated)", "the CPO's PATCH carries "
                              "last_updated", by="cpo")
    patch_refused_without_last_updated = must(f"{_RECEIVER} PATCH; facts/ocpi-wire.md (missing last_updated: "
                                              "2001)", "a PATCH without last_updated is answered 2001 and changes "
                                              "nothing", by="emsp")
    patch_applied = must(f"{_RECEIVER} PATCH", "a PATCH changes the fields it carries and leaves the others as they "
                         "were", by="emsp")
    patch_only_changed = should("spec 000 Operating rules for Locations 2 (a PATCH holds only the changed fields); "
                                "facts/ocpi-wire.md Other rules", "a PATCH carries only the fields that changed, "
                                "besides last_updated and the ids", by="cpo")
    periods_appended = must(f"{_RECEIVER} PATCH", "a PATCH's charging_periods are appended to the stored ones; an "
                            "omitted or empty list changes nothing", by="emsp")
    periods_only_new = must(f"{_RECEIVER} PATCH (to replace or remove periods the Sender SHALL PUT the whole "
                            "Session)", "a PATCH carries only new ChargingPeriods: the pushed ones are changed only "
                            "by a PUT of the whole Session", by="cpo")
    patch_whole_session = must(f"{_RECEIVER} PATCH (works on the whole Session only, not on inner objects through "
                               "extra URL segments)", "a PATCH with URL segments after the session_id is refused",
                               by="emsp")
    patch_unknown = must(f"{_RECEIVER} PATCH (a partial Session changes a stored one); spec 000 Errors (the answer "
                         "for a missing Session is not shown: any error)", "a PATCH of a Session the Receiver does "
                         "not have is refused, not answered with success", by="emsp")
    stored = must(f"{_RULES} 2; {_RECEIVER} GET", "a GET of a Session answers it as stored (the CPO validates with "
                  "it); an unknown one is not answered with success", by="emsp")
    transitions = must(f"{_STATES}", "status changes follow the Session status table: an ACTIVE Session never goes "
                       "back to PENDING or RESERVATION", by="cpo")
    final = must(f"{_RULES} 1; {_STATES} (ACTIVE to COMPLETED: final; no further modification)", "a COMPLETED "
                 "Session is final: the CPO pushes no further change of it", by="cpo")
    completed_kept = should(f"{_STATES} (COMPLETED: no more modifications)", "the Receiver keeps a COMPLETED "
                            "Session as it is: a later change of its status is refused or ignored", by="emsp")
    activation_start = must("spec 000 Session table start_date_time; Session status table (PENDING to ACTIVE)",
                            "on PENDING → ACTIVE start_date_time is updated to the moment of activation", by="cpo")
    reservation = must(f"{_RULES} 5; Session status table", "a reservation creates a Session with status "
                       "RESERVATION, pushed with PUT", by="cpo")
    reservation_token = must(f"{_STATES} (RESERVATION to ACTIVE: same Token)", "a RESERVATION becomes ACTIVE with "
                             "the same Token", by="cpo")
    na_only_reservation = must("spec 000 Session table evse_uid, connector_id", "evse_uid and connector_id are #NA "
                               "only in a RESERVATION without an assigned EVSE or connector", by="cpo")
    na_accepted = must("spec 000 Session table evse_uid, connector_id (may be #NA)", "the Receiver stores a "
                       "RESERVATION whose evse_uid and connector_id are #NA", by="emsp")
    authorization_reference = must("spec 000 Session table authorization_reference", "authorization_reference "
                                   "equals the last value the eMSP gave", by="cpo")
    total_cost = must("spec 000 Session table total_cost (0.00 means free; an omitted value does not imply free)",
                      "the Receiver keeps total_cost as sent: 0.00 stays 0.00, an absent one stays absent",
                      by="emsp")
    never_deleted = must(f"{_RULES} 1 (Sessions cannot be deleted); {_RECEIVER} (DELETE n/a)", "a DELETE of a "
                         "Session is refused and the Session stays", by="emsp")
    still_listed = must(f"{_RULES} 1, 3", "a COMPLETED Session stays in the Sender's list", by="cpo")
    listed = must(f"{_SENDER} GET; {_RULES} 3", "the Sender lists its Sessions, paginated and filtered on "
                  "last_updated (date_from inclusive, date_to exclusive); a Session started after date_from is in "
                  "the list", by="cpo")
    preferences_answer = must(f"{_SENDER} PUT charging_preferences; spec 000 ChargingPreferencesResponse",
                              "a ChargingPreferences PUT on an ongoing Session is answered with one "
                              "ChargingPreferencesResponse value", by="cpo")
    preferences_not_capable = must(f"{_SENDER} (without CHARGING_PREFERENCES_CAPABLE: HTTP 404, 2001); spec 000 "
                                   "Errors", "a ChargingPreferences PUT for a Session whose EVSE lacks "
                                   "CHARGING_PREFERENCES_CAPABLE is answered HTTP 404 with status 2001", by="cpo")
    preferences_sent = must(f"{_RULES} 4; {_SENDER} PUT charging_preferences", "the eMSP PUTs valid "
                            "ChargingPreferences to {sessions}/{session_id}/charging_preferences", by="emsp")
    preferences_only_capable = must(f"{_RULES} 4 (the eMSP checks that the EVSE lists CHARGING_PREFERENCES_CAPABLE)",
                                    "the eMSP sends no ChargingPreferences for a Session at an EVSE without "
                                    "CHARGING_PREFERENCES_CAPABLE", by="emsp")


# ------------------------------------------------------------------------------ the status table
def transition_problem(before: str, after: str) -> str | None:
    """Why the status may not go from ``before`` to ``after`` (None when it may: see the readings)."""
    if before == after:
        return None
    if before == COMPLETED:
        return "a COMPLETED Session is final"
    if before == ACTIVE and after in (PENDING, RESERVATION):
        return f"an ACTIVE Session cannot go back to {after}"
    return None


def na_problem(session: Mapping[str, Any]) -> str | None:
    """Why ``session``'s evse_uid or connector_id may not be #NA (None when they may)."""
    named = [field for field in ("evse_uid", "connector_id") if same_id(session.get(field), NA)]
    if named and session.get("status") != RESERVATION:
        return f"{' and '.join(named)} #NA in a {session.get('status')} Session"
    return None


def unknown_session(ids: Iterable[str], rule: Rule = SessionRules.pushed) -> StatusError:
    """A request naming a Session that is not there: by default the CPO's fault (it pushes a new
    Session with PUT before it changes or reads it)."""
    return StatusError(rule, f"unknown Session {'/'.join(ids)}", status_code=StatusCode.INVALID_PARAMETERS,
                       http_status=404, actual=list(ids))


# ------------------------------------------------------------------------------ the store
class SessionStore:
    """Sessions by (country_code, party_id, id), ids compared ignoring case (CiStrings). The CPO
    keeps its own here, the eMSP what was pushed to it."""

    def __init__(self, sessions: Iterable[Mapping[str, Any]] = ()):
        self._sessions: dict[tuple[str, str, str], dict[str, Any]] = {}
        for session in sessions:
            self._sessions[self._key(*(session[name] for name in IDS))] = json_copy(dict(session))

    @staticmethod
    def _key(country_code: str, party_id: str, session_id: str) -> tuple[str, str, str]:
        return id_key(country_code), id_key(party_id), id_key(session_id)

    def all(self) -> list[dict[str, Any]]:
        return list(self._sessions.values())

    def get(self, country_code: str, party_id: str, session_id: str) -> dict[str, Any] | None:
        return self._sessions.get(self._key(country_code, party_id, session_id))

    def owned(self, session_id: str) -> dict[str, Any] | None:
        """A Session by id alone (the Sender's view: they are all its own)."""
        return next((s for s in self._sessions.values() if same_id(s["id"], session_id)), None)

    def put(self, country_code: str, party_id: str, session_id: str, session: Any) -> bool:
        """Store ``session`` whole (its charging_periods replace the stored ones); True when it is new."""
        session = checked("session", session)
        for name, value in zip(IDS, (country_code, party_id, session_id)):
            if not same_id(session[name], value):
                raise invalid(SessionRules.put_ids, f"the Session's {name} differs from the URL's",
                              actual={"url": value, "body": session[name]})
        problem = na_problem(session)
        if problem:
            raise invalid(SessionRules.na_only_reservation, problem, actual=session.get("status"))
        key = self._key(country_code, party_id, session_id)
        held = self._sessions.get(key)
        if held is not None:
            self._check_change(held, session)
        self._sessions[key] = json_copy(session)
        return held is None

    def patch(self, country_code: str, party_id: str, session_id: str, changes: Any) -> dict[str, Any]:
        """Apply ``changes`` (charging_periods appended) to the stored Session; the Session after it."""
        if not isinstance(changes, dict):
            raise invalid(SessionRules.pushed, "a PATCH body is a JSON object", changes)
        if changes.get("last_updated") is None:
            raise invalid(SessionRules.patch_last_updated, "the PATCH has no last_updated", sorted(changes))
        held = self._sessions.get(self._key(country_code, party_id, session_id))
        if held is None:
            raise unknown_session((country_code, party_id, session_id))
        for name in IDS:
            if name in changes and not same_id(changes[name], held[name]):
                raise invalid(SessionRules.put_ids, f"the PATCH changes the Session's {name}",
                              actual={"stored": held[name], "body": changes[name]})
        merged = {**held, **{k: v for k, v in changes.items() if v is not None and k != "charging_periods"}}
        merged["charging_periods"] = held.get("charging_periods", []) + list(changes.get("charging_periods") or [])
        merged = checked("session", merged)
        self._check_change(held, merged)
        problem = na_problem(merged)
        if problem:
            raise invalid(SessionRules.na_only_reservation, problem, actual=merged.get("status"))
        held.clear()
        held.update(merged)
        return held

    @staticmethod
    def _check_change(held: Mapping[str, Any], after: Mapping[str, Any]) -> None:
        if held["status"] == COMPLETED and dict(after) != dict(held):
            raise invalid(SessionRules.final, "the Session is COMPLETED: no further modification",
                          actual={k: v for k, v in after.items() if held.get(k) != v})
        problem = transition_problem(held["status"], after["status"])
        if problem:
            raise invalid(SessionRules.transitions, problem, actual={"from": held["status"], "to": after["status"]})


def unchanged_fields(held: Mapping[str, Any], changes: Mapping[str, Any]) -> list[str]:
    """The fields of a PATCH that change nothing of ``held`` (ids and last_updated aside)."""
    return sorted(name for name, value in changes.items()
                  if name not in (*IDS, "last_updated", "charging_periods") and held.get(name) == value)


def repeated_periods(held: Mapping[str, Any], changes: Mapping[str, Any]) -> list[Any]:
    """The ChargingPeriods of a PATCH that were pushed already."""
    pushed = held.get("charging_periods") or []
    return [period for period in changes.get("charging_periods") or [] if period in pushed]
