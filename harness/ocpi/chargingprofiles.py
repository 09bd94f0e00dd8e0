"""The chargingprofiles module (2.2.1) as rules: the Smart Charging party (the eMSP, the module's Sender) asks
the CPO's Receiver at ``{chargingprofiles}/{session_id}`` for the ActiveChargingProfile (GET, ``duration`` and
``response_url`` in the query), sets a ChargingProfile (PUT, a SetChargingProfile) or clears it (DELETE,
``response_url`` in the query). The CPO answers each at once with a ChargingProfileResponse (result, timeout)
and, once the charge point answered, POSTs the ActiveChargingProfileResult, ChargingProfileResult or
ClearProfileResult to the ``response_url``; it PUTs a changed ActiveChargingProfile to the Sender's
``{chargingprofiles}/{session_id}`` for a Session the Sender once set a profile on, and never for another.

Readings where the text is silent (docs/requirements/ocpi-chargingprofiles.md): a request for a Session the CPO
does not know is not ACCEPTED (UNKNOWN_SESSION advised: the value exists for it), a refusal with an error status
is accepted too; changes the Sender caused itself (its own PUT or DELETE) need no PUT back, their result says
it; the 5 to 60 minutes of a pushed ActiveChargingProfile are a guide (SHOULD).
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from decimal import Decimal, InvalidOperation
from typing import Any

from harness.rules import RuleTable, must, should

CHARGINGPROFILES = "chargingprofiles"
GET, PUT, DELETE = "GET", "PUT", "DELETE"
ACCEPTED, REJECTED, NOT_SUPPORTED = "ACCEPTED", "REJECTED", "NOT_SUPPORTED"
TOO_OFTEN, UNKNOWN_SESSION, UNKNOWN = "TOO_OFTEN", "UNKNOWN_SESSION", "UNKNOWN"
RESPONSE = "charging_profile_response"
SET = "set_charging_profile"
ACTIVE_PROFILE = "active_charging_profile"
RESULTS = {GET: "active_charging_profile_result", PUT: "charging_profile_result", DELETE: "clear_profile_result"}
GUIDE = (5 * 60, 60 * 60)   # seconds an ActiveChargingProfile the CPO pushes should span, as the text's guide

_MOD = "OCPI 2.2.1 §14"
_RECEIVER = f"{_MOD}.4.1 Receiver interface"
_SENDER = f"{_MOD}.4.2 Sender interface"


class ChargingProfileRules(RuleTable, namespace="ocpi.chargingprofiles"):
    """The chargingprofiles module: the eMSP's requests and answers, the CPO's responses, results and updates."""
    request = must(f"{_RECEIVER} GET, PUT, DELETE request parameters (shall be provided as URL segments) and "
                   "body (SetChargingProfile, Card. 1)", "a GET names duration and response_url, a DELETE "
                   "response_url, a PUT carries a SetChargingProfile; each at {chargingprofiles}/{session_id}",
                   by="emsp")
    one_decimal = must(f"{_MOD}.6.3 ChargingProfile min_charging_rate, §14.6.4 ChargingProfilePeriod limit (at "
                       "most one digit fraction)", "a limit or min_charging_rate the eMSP sends has at most one "
                       "decimal", by="emsp")
    result_answered = must(f"{_SENDER} POST response body (SHALL: the Response Format, data omitted)", "the "
                           "eMSP answers the CPO's result POST with success and no data", by="emsp")
    update_answered = must(f"{_SENDER} PUT response body (SHALL: the Response Format, data omitted)", "the eMSP "
                           "answers the CPO's PUT of an ActiveChargingProfile with success and no data", by="emsp")
    unique_url = should(f"{_SENDER} POST request parameters (advised: a response_url unique to each request)",
                        "two requests of the eMSP carry two different response_urls", by="emsp")
    profile_response = must(f"{_RECEIVER} GET, PUT, DELETE response data (a ChargingProfileResponse, Card. 1); §14.5.1",
                    "each request is answered at once with a ChargingProfileResponse: a result and a timeout in "
                    "seconds", by="cpo")
    result_sent = must(f"{_SENDER} POST (the Receiver is required to use the URL for the asynchronous response); "
                       "§14.5.1 timeout", "after an ACCEPTED ChargingProfileResponse the CPO POSTs the result to "
                       "the response_url, within the timeout it gave", by="cpo")
    result_url = must(f"{_SENDER} POST request parameters (the URL the Sender gave, to be used)", "the result "
                      "goes to the response_url exactly, its query included", by="cpo")
    active_profile = must(f"{_MOD}.5.2 ActiveChargingProfileResult profile (the requested profile, if the result "
                          "is ACCEPTED)", "an ACCEPTED ActiveChargingProfileResult carries the ActiveChargingProfile",
                          by="cpo")
    not_accepted_unknown = must(f"{_MOD}.6.5 ChargingProfileResponseType ACCEPTED (the request will be forwarded "
                                "to the EVSE)", "a request for a Session the CPO does not know is not ACCEPTED",
                                by="cpo")
    unknown_session = should(f"{_MOD}.6.5 ChargingProfileResponseType UNKNOWN_SESSION", "a request for a Session "
                             "the CPO does not know is answered UNKNOWN_SESSION", by="cpo")
    methods = must(f"{_RECEIVER} (POST and PATCH: n/a)", "the CPO's chargingprofiles endpoint refuses a POST or "
                   "a PATCH", by="cpo")
    parameters = must(f"{_RECEIVER} GET and DELETE request parameters (response_url: required); PUT body "
                      "(SetChargingProfile: response_url Card. 1)", "a request without the response_url is refused or "
                      "not ACCEPTED: there is nowhere to send its result", by="cpo")
    duration_required = should(f"{_RECEIVER} GET request parameters (duration: required)", "a GET without duration "
                               "is refused or not ACCEPTED", by="cpo")
    update_sent = must(f"{_SENDER} PUT (the Receiver SHALL call it every time it knows the ActiveChargingProfile "
                       "changed, for a Session the Sender once set a profile on, cleared since or not)", "a change of the "
                       "ActiveChargingProfile the CPO knows of, after a successful SetChargingProfile, is PUT to "
                       "{chargingprofiles}/{session_id} of the Sender", by="cpo")
    no_update_unset = must(f"{_SENDER} PUT (the Receiver SHALL NOT call it for a Session the Sender never "
                           "successfully set a profile on)", "no ActiveChargingProfile is PUT for a Session "
                           "without a SetChargingProfile of the eMSP's", by="cpo")
    update_duration = should(f"{_SENDER} PUT (a useful duration; as a guide between 5 and 60 minutes)", "a PUT "
                             "ActiveChargingProfile spans between 5 and 60 minutes", by="cpo")
    ongoing_only = should(f"{_MOD}.3 Flow (a request to activate a profile on a running session); §14.2 use "
                          "cases (ongoing charging session)", "a SetChargingProfile for a Session that ended is "
                          "not ACCEPTED", by="cpo")


def extra_decimals(profile: Mapping[str, Any]) -> list[str]:
    """The members of a ChargingProfile with more than one decimal (each named by its path)."""
    found = []
    values = [("min_charging_rate", profile.get("min_charging_rate"))] + [
        (f"charging_profile_period[{n}].limit", period.get("limit"))
        for n, period in enumerate(profile.get("charging_profile_period") or []) if isinstance(period, Mapping)]
    for name, value in values:
        if isinstance(value, (int, float)) and not isinstance(value, bool) and _decimals(value) > 1:
            found.append(f"{name}={value!r}")
    return found


def _decimals(value: float) -> int:
    try:
        exponent = Decimal(repr(value)).normalize().as_tuple().exponent
    except InvalidOperation:
        return 0
    return -exponent if isinstance(exponent, int) and exponent < 0 else 0


def span(profile: Mapping[str, Any]) -> int | None:
    """The seconds a ChargingProfile covers: its duration; None when it runs on without one."""
    duration = profile.get("duration")
    return duration if isinstance(duration, int) and not isinstance(duration, bool) else None


def sample_profile(rnd: random.Random, start: str | None = None) -> dict[str, Any]:
    """A ChargingProfile a smart charging service might send, drawn from ``rnd`` (a seeded faker's): in A or
    W, one to four quarter-hour periods with one-decimal limits, sometimes a duration, a minimum rate, and an
    absolute ``start``."""
    unit = rnd.choice(("A", "W"))
    low, high = (6.0, 32.0) if unit == "A" else (1380.0, 22000.0)
    periods = [{"start_period": n * 900, "limit": round(rnd.uniform(low, high), 1)} for n in range(rnd.randint(1, 4))]
    profile: dict[str, Any] = {"charging_rate_unit": unit, "charging_profile_period": periods}
    if rnd.random() < 0.5:
        profile["duration"] = len(periods) * 900
    if rnd.random() < 0.5:
        profile["min_charging_rate"] = low
    if start is not None and rnd.random() < 0.5:
        profile["start_date_time"] = start
    return profile
