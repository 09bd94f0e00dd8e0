"""The CDRs module (2.2.1) as rules and a sans-I/O store: the CPO owns its Charge Detail Records,
POSTs each one, full and final, to the eMSP's Receiver (which answers with the Location of the CDR it
created) and serves them as a paginated list (Sender GET); the eMSP keeps what was posted to it, reads
it back at that Location and never lets it change.

A CDR is sealed: once sent it is never replaced, updated or removed (OCPI 2.2.1 §10.1); a change is a
Credit CDR (another id, ``credit`` true, ``credit_reference_id`` the original's, ``total_cost``
negated) followed by a new CDR. The consistency rules between a CDR, its Session and its Tariffs are
functions of this module (``cdr_problems``, ``session_problems``, ``credit_problems``), each finding a
row of ``CdrRules`` and why.

Readings where the text is silent (docs/requirements/ocpi-cdrs.md):
- the answer to a PUT, PATCH or DELETE on the Receiver (n/a in the text) is not given: any error passes,
  the reference answers 2000 with HTTP 405; a second POST of a CDR id the eMSP holds is refused (2001)
  and leaves the stored one as it was;
- the GET of a Location the eMSP never gave is not given either: any error, the reference answers 2001
  with HTTP 404;
- the URL the eMSP gives is opaque (the text defines no structure); the reference gives
  ``{cdrs}/{a key of its own}``;
- total_time is compared with end_date_time - start_date_time within one minute (the texts give no
  precision for the number of hours); costs within one cent.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from harness.cistring import id_key, same_id
from harness.ocpi.envelope import StatusCode, StatusError, json_copy
from harness.ocpi.locations import checked, invalid
from harness.ocpi.timestamps import parse_datetime
from harness.rules import Rule, RuleTable, must, should

CDRS = "cdrs"
CDR = "cdr"   # the schema of a CDR
IDS = ("country_code", "party_id", "id")
NORMAL_ID = 36     # a CDR that is no Credit CDR: at most 36 characters (§10.3.1 id)
SESSION_ONLY = ("CURRENT", "ENERGY_EXPORT", "ENERGY_IMPORT", "POWER", "STATE_OF_CHARGE")
TIME_SLACK_HOURS = 1 / 60   # total_time against the end - start: one minute
CENT = 0.01
COST_FIELDS = ("total_fixed_cost", "total_energy_cost", "total_time_cost", "total_parking_cost",
               "total_reservation_cost")

_MOD = "OCPI 2.2.1 §10"
_RECEIVER = f"{_MOD}.2.2 Receiver interface"
_SENDER = f"{_MOD}.2.1 Sender interface"
_CDR = f"{_MOD}.3.1 CDR object"


class CdrRules(RuleTable, namespace="ocpi.cdrs"):
    """The CDRs module: the CPO's POSTs and list, the eMSP's Receiver, the CDR's own consistency."""
    posted = must(f"{_MOD}.1.2 Push model; {_RECEIVER} POST (request body: the new CDR, Card. 1) -- MUST "
                  "(definition)", "the CPO pushes a new CDR with a POST whose body is the whole CDR", by="cpo")
    post_url = must(f"{_RECEIVER} POST (endpoint structure {{cdr_endpoint_url}}) -- MUST (definition)",
                    "the CPO POSTs to the eMSP's cdrs endpoint itself, no ids appended", by="cpo")
    after_session = should(f"{_MOD} introduction (CDRs are sent after the charging session has ended)",
                           "the CDR of a Session is posted once the Session is COMPLETED", by="cpo")
    location_header = must(f"{_RECEIVER} POST response headers (Location: required)", "the eMSP answers a "
                           "POST that created a CDR with success and a Location header, the URL of the CDR",
                           by="emsp")
    stored = must(f"{_RECEIVER} GET (response data: the requested CDR, Card. 1); §10.1.3 (the CPO reads the CDR "
                  "at the URL of the POST's answer) -- MUST (definition)", "a GET at the Location answers the CDR "
                  "as it was posted", by="emsp")
    ids_as_sent = should("OCPI 2.2.1 §16.1 CiString; facts/ocpi-wire.md Other rules (compare ignoring case, echo "
                         "as sent)", "a CDR's ids come back as they were posted, in the same case", by="emsp")
    unknown_refused = must(f"{_RECEIVER} GET (the requested CDR, if it exists) -- MUST (definition); the code to "
                           "answer is not shown: any error", "a GET of a CDR the eMSP does not have is not "
                           "answered with success", by="emsp")
    never_changed = must(f"{_MOD}.1 Flow and lifecycle (a CDR cannot be changed or replaced once sent); {_RECEIVER} "
                         "(PUT, PATCH, DELETE n/a) -- MUST (definition)", "a PUT, PATCH or DELETE of a CDR is "
                         "refused and the CDR stays as posted", by="emsp")
    not_replaced = must(f"{_MOD}.1 Flow and lifecycle (a CDR cannot be changed or replaced once sent) -- MUST "
                        "(definition)", "a second POST with the id of a CDR the eMSP holds leaves the stored CDR "
                        "as it was first posted", by="emsp")
    party_registered = should("OCPI 2.2.1 transport and format, Client Owned Object Push, Errors (a party none "
                              "of the credentials roles declares may be refused)",
                              "a CDR posted under a party that is none of the posting platform's "
                              "roles is refused", by="emsp")
    credit_kept = must(f"{_MOD}.1.1 Credit CDRs (a CDR is credited, never deleted) -- MUST (definition)",
                       "a Credit CDR is accepted beside the CDR it credits, which stays", by="emsp")
    unique_id = must(f"{_CDR} id (SHALL be unique per country_code and party_id)", "every CDR the CPO posts has "
                     "an id none of its earlier CDRs had", by="cpo")
    id_length = must(f"{_CDR} id (a CDR that is no Credit CDR SHALL have an id of at most 36 characters)",
                     "a CDR that is no Credit CDR has an id of at most 36 characters", by="cpo")
    session_id = must(f"{_CDR} session_id (only allowed to be omitted without the Sessions module or for a "
                      "reservation that never became a Session)", "the CDR of a pushed Session names it in "
                      "session_id", by="cpo")
    same_token = must(f"{_CDR} cdr_token (the Token used to start this charging session) -- MUST (definition)",
                      "the CDR's cdr_token is its Session's", by="cpo")
    same_location = must(f"{_CDR} cdr_location (where the charging session took place, only its EVSE and "
                         "Connector) -- MUST (definition)", "the CDR's cdr_location id, evse_uid and connector_id "
                         "are its Session's location_id, evse_uid and connector_id", by="cpo")
    location_details = should(f"{_MOD}.4.4 CdrLocation (only the relevant information of the Location, as it was at "
                              "the start of the session: §10.3.1)", "cdr_location's address, city, postal_code, "
                              "country, coordinates, evse_id and connector standard, format and power type are the "
                              "published Location's, EVSE's and Connector's", by="cpo")
    auth_method = must(f"{_CDR} auth_method (the last method SHALL be used in the CDR)", "the CDR's auth_method "
                       "is the last one of its Session", by="cpo")
    authorization_reference = must(f"{_CDR} authorization_reference (SHALL contain the last value the eMSP "
                                   "gave)", "the CDR's authorization_reference is its Session's last one", by="cpo")
    session_times = should(f"{_CDR} start_date_time, end_date_time; OCPI 2.2.1 §9.3.1 Session start_date_time, "
                           "end_date_time", "the CDR starts and ends when its Session did", by="cpo")
    dates_ordered = must(f"{_CDR} start_date_time, end_date_time; §10.4.6 ChargingPeriod start_date_time (a period "
                         "ends when the next starts, the last when the session ends) -- MUST (definition)",
                         "end_date_time is not before start_date_time, and the ChargingPeriods follow each other "
                         "within them", by="cpo")
    session_only_dimensions = must("OCPI 2.2.1 §10.4.3 CdrDimensionType (the Session Only values SHALL only be "
                                   "used in Sessions)", "a CDR's ChargingPeriods carry no CURRENT, ENERGY_EXPORT, "
                                   "ENERGY_IMPORT, POWER or STATE_OF_CHARGE dimension", by="cpo")
    total_time = must(f"{_CDR} total_time (the duration of the session, charging and not, in hours), "
                      "total_parking_time (the part not charging) -- MUST (definition)", "total_time is "
                      "end_date_time - start_date_time in hours, and total_parking_time is not more", by="cpo")
    energy_consistent = should(f"{_MOD}.1.2 Push model (a CDR should hold the dimensions to validate the total "
                               "cost)", "total_energy is the sum of the ENERGY dimensions and its Session's kwh",
                               by="cpo")
    currency = should(f"{_CDR} currency, total_cost (in the specified currency); OCPI 2.2.1 §11.3.1 Tariff currency",
                      "the CDR's currency is its Tariffs' and its Session's", by="cpo")
    tariff_ids = should(f"{_CDR} tariffs (the relevant Tariffs); §10.4.6 ChargingPeriod tariff_id (the Tariff "
                        "relevant for the period)", "a ChargingPeriod's tariff_id names a Tariff the CDR lists",
                        by="cpo")
    costs = should(f"{_MOD}.1.2 Push model (enough information to validate the total cost); {_CDR} total_cost "
                   "(the sum of all the costs)", "total_cost is what the CDR's Tariff gives for its energy and "
                   "time, and no less than the sum of the cost parts it lists", by="cpo")
    credit_reference = must(f"{_MOD}.1.1 Credit CDRs (credit true; credit_reference_id SHALL contain the original "
                            "id); {_CDR} credit_reference_id (required for a Credit CDR)", "a Credit CDR has credit "
                            "true and credit_reference_id the id of the CDR it credits", by="cpo")
    credit_id = must(f"{_MOD}.1.1 Credit CDRs (the Credit CDR SHALL have another id)", "a Credit CDR has an id "
                     "other than the CDR it credits", by="cpo")
    credit_negated = must(f"{_MOD}.1.1 Credit CDRs (total_cost SHALL hold the negative amounts of the original)",
                          "a Credit CDR's total_cost is the original's, negated", by="cpo")
    listed = must(f"{_SENDER} GET (CDRs last updated between date_from, inclusive, and date_to, exclusive; "
                  "paginated) -- MUST (definition)", "the CPO lists its CDRs, paginated and filtered on "
                  "last_updated", by="cpo")
    listed_pushed = should(f"{_MOD}.1.3 Pull model (the list gives the CDRs an eMSP missed; the CPO may limit it "
                           "to the CDRs relevant to the eMSP)", "a CDR posted to the eMSP is in the list it pulls, "
                           "as posted", by="cpo")


# ------------------------------------------------------------------------------ consistency
Problem = tuple[Rule, str]


def _hours(start: str, end: str) -> float | None:
    try:
        return (parse_datetime(end) - parse_datetime(start)).total_seconds() / 3600
    except ValueError:
        return None


def _volume(cdr: Mapping[str, Any], kind: str) -> float:
    return sum(float(dimension.get("volume") or 0) for period in cdr.get("charging_periods") or []
               for dimension in period.get("dimensions") or [] if dimension.get("type") == kind)


def period_problems(cdr: Mapping[str, Any]) -> list[Problem]:
    """The ChargingPeriods out of order or outside the CDR, and the Session Only dimensions."""
    found: list[Problem] = []
    try:
        start, end = parse_datetime(cdr["start_date_time"]), parse_datetime(cdr["end_date_time"])
        starts = [parse_datetime(period["start_date_time"]) for period in cdr.get("charging_periods") or []]
    except (KeyError, TypeError, ValueError):
        return found   # the schema judges a missing or malformed DateTime
    if end < start:
        found.append((CdrRules.dates_ordered, f"end_date_time {cdr['end_date_time']} before start_date_time "
                                              f"{cdr['start_date_time']}"))
    outside = [n for n, moment in enumerate(starts) if moment < start or moment > end]
    if outside:
        found.append((CdrRules.dates_ordered, f"ChargingPeriods {outside} start outside the CDR's "
                                              f"{cdr['start_date_time']} .. {cdr['end_date_time']}"))
    if starts != sorted(starts):
        found.append((CdrRules.dates_ordered, "the ChargingPeriods are not in the order of their start_date_time"))
    used = sorted({d.get("type") for p in cdr.get("charging_periods") or [] for d in p.get("dimensions") or []
                   if d.get("type") in SESSION_ONLY})
    if used:
        found.append((CdrRules.session_only_dimensions, f"Session Only dimensions in the CDR: {used}"))
    return found


def total_problems(cdr: Mapping[str, Any]) -> list[Problem]:
    """total_time against the CDR's span, total_parking_time within it, total_energy against ENERGY."""
    found: list[Problem] = []
    span = _hours(cdr.get("start_date_time", ""), cdr.get("end_date_time", ""))
    total = cdr.get("total_time")
    if span is not None and isinstance(total, (int, float)) and abs(total - span) > TIME_SLACK_HOURS:
        found.append((CdrRules.total_time, f"total_time {total} h where end - start is {span:.4f} h"))
    parking = cdr.get("total_parking_time")
    if isinstance(parking, (int, float)) and isinstance(total, (int, float)) and parking > total + TIME_SLACK_HOURS:
        found.append((CdrRules.total_time, f"total_parking_time {parking} h above total_time {total} h"))
    energy = _volume(cdr, "ENERGY")
    has_energy = any(d.get("type") == "ENERGY" for p in cdr.get("charging_periods") or []
                     for d in p.get("dimensions") or [])
    stated = cdr.get("total_energy")
    if has_energy and isinstance(stated, (int, float)) and abs(stated - energy) > 0.001:
        found.append((CdrRules.energy_consistent, f"total_energy {stated} kWh where the ENERGY dimensions add up "
                                                  f"to {round(energy, 3)} kWh"))
    return found


def _stepped(amount: float, step: float) -> float:
    """``amount`` rounded up to whole ``step``s (a step of 0 or less: as it is)."""
    if step <= 0:
        return amount
    blocks = -(-round(amount / step, 9) // 1)
    return float(blocks * step)


def expected_cost(cdr: Mapping[str, Any]) -> float | None:
    """total_cost.excl_vat as the CDR's one Tariff gives it, when it can be worked out alone: one Tariff of
    elements without restrictions and without min_price or max_price, every ChargingPeriod under it; else
    None (not judged). ``step_size`` applies once per session (OCPI 2.2.1 §10.3.1 step_size): ENERGY in Wh,
    TIME and PARKING_TIME in seconds; the first component of each type counts (§11.4.4)."""
    tariffs = cdr.get("tariffs") or []
    if len(tariffs) != 1:
        return None
    tariff = tariffs[0]
    elements = tariff.get("elements") or []
    if any(e.get("restrictions") for e in elements) or tariff.get("min_price") or tariff.get("max_price"):
        return None
    if any(p.get("tariff_id") is not None and not same_id(p.get("tariff_id"), tariff.get("id"))
           for p in cdr.get("charging_periods") or []):
        return None
    components: dict[str, Mapping[str, Any]] = {}
    for element in elements:
        for component in element.get("price_components") or []:
            components.setdefault(str(component.get("type")), component)
    given = cdr.get("total_parking_time")
    parking = float(given) if isinstance(given, (int, float)) else _volume(cdr, "PARKING_TIME")
    amounts = {"FLAT": 1.0, "ENERGY": float(cdr.get("total_energy") or 0),
               "TIME": max(0.0, float(cdr.get("total_time") or 0) - parking), "PARKING_TIME": parking}
    units = {"FLAT": 1.0, "ENERGY": 1 / 1000, "TIME": 1 / 3600, "PARKING_TIME": 1 / 3600}
    cost = 0.0
    for kind, component in components.items():
        if kind not in amounts:
            return None
        step = float(component.get("step_size") or 0) * units[kind] if kind != "FLAT" else 0
        cost += float(component.get("price") or 0) * _stepped(amounts[kind], step)
    return cost


def cost_problems(cdr: Mapping[str, Any]) -> list[Problem]:
    """Currency against the Tariffs, tariff_ids against the Tariffs, total_cost against the Tariff and the
    cost parts."""
    found: list[Problem] = []
    tariffs = cdr.get("tariffs") or []
    other = sorted({str(t.get("currency")) for t in tariffs if t.get("currency") != cdr.get("currency")})
    if other:
        found.append((CdrRules.currency, f"the CDR is in {cdr.get('currency')}, its Tariffs in {other}"))
    if tariffs:
        listed = {id_key(t.get("id", "")) for t in tariffs}
        unknown = sorted({str(p["tariff_id"]) for p in cdr.get("charging_periods") or []
                          if p.get("tariff_id") is not None and id_key(p["tariff_id"]) not in listed})
        if unknown:
            found.append((CdrRules.tariff_ids, f"ChargingPeriods name Tariffs the CDR does not list: {unknown}"))
    if cdr.get("credit"):
        return found
    total = (cdr.get("total_cost") or {}).get("excl_vat")
    if not isinstance(total, (int, float)):
        return found
    expected = expected_cost(cdr)
    if expected is not None and abs(expected - total) > CENT + 1e-9:
        found.append((CdrRules.costs, f"total_cost excl_vat {total} where the Tariff gives {round(expected, 4)}"))
    parts = sum(float((cdr.get(name) or {}).get("excl_vat") or 0) for name in COST_FIELDS)
    if parts > total + CENT:
        found.append((CdrRules.costs, f"the cost parts add up to {round(parts, 2)}, more than total_cost {total}"))
    incl = (cdr.get("total_cost") or {}).get("incl_vat")
    if isinstance(incl, (int, float)) and incl + CENT < total:
        found.append((CdrRules.costs, f"total_cost incl_vat {incl} below excl_vat {total}"))
    return found


def cdr_problems(cdr: Mapping[str, Any]) -> list[Problem]:
    """What a CDR breaks on its own (the schema aside): its id, periods, totals and costs."""
    found: list[Problem] = []
    if not cdr.get("credit") and len(str(cdr.get("id", ""))) > NORMAL_ID:
        found.append((CdrRules.id_length, f"id of {len(str(cdr.get('id')))} characters in a CDR that is no "
                                          "Credit CDR"))
    if cdr.get("credit") and not cdr.get("credit_reference_id"):
        found.append((CdrRules.credit_reference, "a Credit CDR without credit_reference_id"))
    return found + period_problems(cdr) + total_problems(cdr) + cost_problems(cdr)


def session_problems(cdr: Mapping[str, Any], session: Mapping[str, Any]) -> list[Problem]:
    """Where a CDR departs from the Session it is the record of (both as the CPO pushed them)."""
    found: list[Problem] = []
    if not same_id(cdr.get("session_id"), session.get("id")):
        found.append((CdrRules.session_id, f"session_id {cdr.get('session_id')} for the Session {session.get('id')}"))
    token, held = cdr.get("cdr_token") or {}, session.get("cdr_token") or {}
    for name in ("country_code", "party_id", "uid", "contract_id"):
        if not same_id(token.get(name), held.get(name)):
            found.append((CdrRules.same_token, f"cdr_token {name} {token.get(name)}, the Session's {held.get(name)}"))
    if token.get("type") != held.get("type"):
        found.append((CdrRules.same_token, f"cdr_token type {token.get('type')}, the Session's {held.get('type')}"))
    where = cdr.get("cdr_location") or {}
    for mine, theirs in (("id", "location_id"), ("evse_uid", "evse_uid"), ("connector_id", "connector_id")):
        if not same_id(where.get(mine), session.get(theirs)):
            found.append((CdrRules.same_location, f"cdr_location {mine} {where.get(mine)}, the Session's {theirs} "
                                                  f"{session.get(theirs)}"))
    if cdr.get("auth_method") != session.get("auth_method"):
        found.append((CdrRules.auth_method, f"auth_method {cdr.get('auth_method')}, the Session's "
                                            f"{session.get('auth_method')}"))
    if not same_id(cdr.get("authorization_reference"), session.get("authorization_reference")):
        found.append((CdrRules.authorization_reference, f"authorization_reference {cdr.get('authorization_reference')}"
                                                        f", the Session's {session.get('authorization_reference')}"))
    for name in ("start_date_time", "end_date_time"):
        if session.get(name) is not None and not _same_instant(cdr.get(name), session.get(name)):
            found.append((CdrRules.session_times, f"{name} {cdr.get(name)}, the Session's {session.get(name)}"))
    if session.get("currency") is not None and cdr.get("currency") != session.get("currency"):
        found.append((CdrRules.currency, f"currency {cdr.get('currency')}, the Session's {session.get('currency')}"))
    kwh, total = session.get("kwh"), cdr.get("total_energy")
    if isinstance(kwh, (int, float)) and isinstance(total, (int, float)) and abs(kwh - total) > 0.001:
        found.append((CdrRules.energy_consistent, f"total_energy {total} kWh, the Session's kwh {kwh}"))
    return found


LOCATION_MEMBERS = ("address", "city", "postal_code", "country", "coordinates")
CONNECTOR_MEMBERS = (("connector_standard", "standard"), ("connector_format", "format"),
                     ("connector_power_type", "power_type"))


def location_problems(cdr: Mapping[str, Any], location: Mapping[str, Any]) -> list[Problem]:
    """Where ``cdr_location`` departs from the published ``location`` (its EVSE and Connector found by the
    CDR's evse_uid and connector_id; a member the Location leaves out is not compared)."""
    where = cdr.get("cdr_location") or {}
    found: list[Problem] = []
    evse: Mapping[str, Any] = next((e for e in location.get("evses") or []
                                    if same_id(e.get("uid"), where.get("evse_uid"))), {})
    connector: Mapping[str, Any] = next((c for c in evse.get("connectors") or []
                                         if same_id(c.get("id"), where.get("connector_id"))), {})
    pairs = [(name, name, location) for name in LOCATION_MEMBERS] + [("evse_id", "evse_id", evse)] + [
        (mine, theirs, connector) for mine, theirs in CONNECTOR_MEMBERS]
    for mine, theirs, source in pairs:
        if source.get(theirs) is not None and where.get(mine) != source.get(theirs):
            found.append((CdrRules.location_details, f"cdr_location {mine} {where.get(mine)!r}, the published "
                                                     f"{theirs} {source.get(theirs)!r}"))
    return found


def _same_instant(a: Any, b: Any) -> bool:
    try:
        return parse_datetime(a) == parse_datetime(b)
    except ValueError:
        return bool(a == b)


def negated(price: Mapping[str, Any]) -> dict[str, Any]:
    return {name: -value for name, value in price.items() if isinstance(value, (int, float))}


def credit_problems(credit: Mapping[str, Any], original: Mapping[str, Any]) -> list[Problem]:
    """Where a Credit CDR departs from the rules of crediting ``original``."""
    found: list[Problem] = []
    if credit.get("credit") is not True or not same_id(credit.get("credit_reference_id"), original.get("id")):
        found.append((CdrRules.credit_reference, f"credit {credit.get('credit')}, credit_reference_id "
                                                 f"{credit.get('credit_reference_id')} for the CDR {original.get('id')}"))
    if same_id(credit.get("id"), original.get("id")):
        found.append((CdrRules.credit_id, f"the Credit CDR has the id {credit.get('id')} of the CDR it credits"))
    owed, given = negated(original.get("total_cost") or {}), credit.get("total_cost") or {}
    if any(abs(float(given.get(name, 0)) - value) > CENT / 2 for name, value in owed.items()):
        found.append((CdrRules.credit_negated, f"total_cost {dict(given)} where {owed} (the original's, negated) "
                                               "is due"))
    return found


# ------------------------------------------------------------------------------ the store
Key = tuple[str, str, str]


class CdrStore:
    """CDRs by (country_code, party_id, id), ids compared ignoring case. The CPO keeps its own here, the
    eMSP what was posted to it, each under the key of the URL it gave (``location``)."""

    def __init__(self, cdrs: Iterable[Mapping[str, Any]] = ()):
        self._cdrs: dict[Key, dict[str, Any]] = {}
        self._paths: dict[str, Key] = {}
        for cdr in cdrs:
            self._cdrs[self._key(*(cdr[name] for name in IDS))] = json_copy(dict(cdr))

    @staticmethod
    def _key(country_code: str, party_id: str, cdr_id: str) -> Key:
        return id_key(country_code), id_key(party_id), id_key(cdr_id)

    def all(self) -> list[dict[str, Any]]:
        return list(self._cdrs.values())

    def get(self, country_code: str, party_id: str, cdr_id: str) -> dict[str, Any] | None:
        return self._cdrs.get(self._key(country_code, party_id, cdr_id))

    def owned(self, cdr_id: str) -> dict[str, Any] | None:
        """A CDR by id alone (the CPO's view: they are all its own)."""
        return next((c for c in self._cdrs.values() if same_id(c["id"], cdr_id)), None)

    def of_session(self, session_id: str) -> dict[str, Any] | None:
        return next((c for c in self._cdrs.values() if same_id(c.get("session_id"), session_id)
                     and not c.get("credit")), None)

    def add(self, cdr: Any) -> dict[str, Any]:
        """Keep a new CDR (the CPO's own); 2001 for one whose id is held already (a CDR is never replaced)."""
        cdr = checked(CDR, cdr)
        key = self._key(*(cdr[name] for name in IDS))
        if key in self._cdrs:
            raise invalid(CdrRules.unique_id, f"a CDR {cdr['id']} is held already: a CDR is never replaced",
                          actual=cdr["id"])
        self._cdrs[key] = json_copy(cdr)
        return self._cdrs[key]

    def post(self, cdr: Any) -> str:
        """Keep a CDR posted to the eMSP; the key of the URL it is read back at."""
        stored = self.add(cdr)
        path = f"CDR-{secrets.token_hex(6).upper()}"
        self._paths[path] = self._key(*(stored[name] for name in IDS))
        return path

    def at(self, path: str) -> dict[str, Any] | None:
        """The CDR read at the URL key ``path`` (None when no CDR was given it)."""
        key = self._paths.get(path)
        return self._cdrs.get(key) if key else None


def unknown_cdr(where: Sequence[str], rule: Rule = CdrRules.posted) -> StatusError:
    """A GET naming a CDR that is not there (by default the CPO's fault: it reads a CDR at the URL the
    eMSP gave): HTTP 404, 2001, no data."""
    return StatusError(rule, f"no CDR at {'/'.join(where)}", status_code=StatusCode.INVALID_PARAMETERS,
                       http_status=404, actual=list(where))


def never_changed(method: str) -> StatusError:
    """A PUT, PATCH or DELETE of a CDR: refused, HTTP 405 (n/a in the text); the CPO's fault (it only POSTs)."""
    return StatusError(CdrRules.posted, f"a CDR is never changed: {method} is not defined on the CDRs "
                       "Receiver", status_code=StatusCode.CLIENT_ERROR, http_status=405)
