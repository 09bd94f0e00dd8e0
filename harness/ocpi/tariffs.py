"""The tariffs module (2.2.1) as rules and a sans-I/O store: the CPO owns its Tariffs, pushes them to
the eMSP's Receiver (PUT whole, DELETE) and serves them as a paginated list (Sender GET, no object
GET); the eMSP keeps what was pushed to it, reads it back to the CPO (Receiver GET) and may pull the
CPO's list instead.

A Tariff is a Client Owned Object identified by the URL's country_code, party_id and tariff_id
(CiStrings: compared ignoring case, echoed as stored). The Receiver has no PATCH in 2.2.1: a change is
a PUT of the whole Tariff, and a Tariff no longer used is DELETEd. The store raises ``StatusError``
with the status code to answer; the reference peer serves it over HTTP and the use cases judge a SUT by
the same rows.

Readings where the text is silent (docs/requirements/ocpi-tariffs.md): the answer to a GET or DELETE of
a Tariff the eMSP does not have is not given; any error passes, the reference answers 2000 with HTTP
404. A PATCH is not defined for the Receiver: any error passes, the reference answers HTTP 405.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from harness.cistring import id_key, same_id
from harness.ocpi.envelope import StatusCode, StatusError, json_copy
from harness.ocpi.locations import checked, invalid
from harness.rules import Rule, RuleTable, must, should

TARIFFS = "tariffs"
TARIFF = "tariff"   # the schema of a Tariff
IDS = ("country_code", "party_id", "id")
ENERGY, FLAT, PARKING_TIME, TIME = "ENERGY", "FLAT", "PARKING_TIME", "TIME"
DAYS = ("MONDAY", "TUESDAY", "WEDNESDAY", "THURSDAY", "FRIDAY", "SATURDAY", "SUNDAY")
_TIME = re.compile(r"([0-1][0-9]|2[0-3]):[0-5][0-9]")
_DATE = re.compile(r"([12][0-9]{3})-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])")
_CURRENCY = re.compile(r"[A-Z]{3}")

_MOD = "OCPI 2.2.1 §11"
_SENDER = f"{_MOD}.2.1 Sender interface"
_RECEIVER = f"{_MOD}.2.2 Receiver interface"
_TARIFF = f"{_MOD}.3.1 Tariff object"
_RESTRICTIONS = f"{_MOD}.4.6 TariffRestrictions"


class TariffRules(RuleTable, namespace="ocpi.tariffs"):
    """The tariffs module: the CPO's pushes and list; the eMSP's Receiver and pull."""
    pushed = must(f"{_MOD}.1.1 Push model; {_RECEIVER} PUT (request body: the new or updated Tariff, Card. 1)",
                  "the CPO pushes a new or changed Tariff whole with PUT (MUST, definition)", by="cpo")
    put_only = must(f"{_RECEIVER} (PATCH n/a: a change is a PUT of the whole Tariff)", "the CPO never PATCHes a "
                    "Tariff (MUST, definition)", by="cpo")
    receiver_url = must(f"{_RECEIVER} (endpoint {{tariffs}}/{{country_code}}/{{party_id}}/{{tariff_id}}; the "
                        "parameters SHALL be URL segments); OCPI 2.2.1 §4.1.8 Client Owned Object push",
                        "the CPO pushes and deletes at {tariffs}/{its country_code}/{its party_id}/{tariff_id}",
                        by="cpo")
    put_ids = must(f"{_RECEIVER} PUT request parameters (country_code and party_id SHALL equal the pushed "
                   "Tariff's; tariff_id: the Tariff.id to create or replace)", "a PUT's URL country_code, "
                   "party_id and tariff_id equal the Tariff's", by="cpo")
    elements = must(f"{_TARIFF} (elements: TariffElement, Card. +)", "a Tariff holds at least one TariffElement "
                    "(MUST, definition)", by="cpo")
    price_components = must(f"{_MOD}.3.2 TariffElement (price_components: PriceComponent, Card. +)", "every "
                            "TariffElement holds at least one PriceComponent (MUST, definition)", by="cpo")
    currency = must(f"{_TARIFF} (currency: ISO-4217 code, string(3))", "a Tariff's currency is an ISO-4217 "
                    "code: three upper-case letters (MUST, definition)", by="cpo")
    restriction_times = must(f"{_RESTRICTIONS} (start_time, end_time: 24h with leading zeros, regex given; "
                             "start_date, end_date: regex given)", "restriction times are HH:MM and dates "
                             "YYYY-MM-DD as the text's grammars say (MUST, definition)", by="cpo")
    reservation_dimensions = must(f"{_RESTRICTIONS} reservation (a reservation can only have FLAT and TIME "
                                  "TariffDimensions)", "a TariffElement with a reservation restriction prices "
                                  "only FLAT and TIME", by="cpo")
    fallback_element = should(f"{_TARIFF} (it is advised to always add a default TariffElement per dimension, "
                              "without restrictions, after the restricted ones)", "every dimension a Tariff "
                              "prices has a last element without restrictions", by="cpo")
    last_updated_moves = must(f"{_TARIFF} (last_updated: when the Tariff was last updated or created)",
                              "a Tariff pushed again changed carries a later last_updated than before (MUST, "
                              "definition)", by="cpo")
    stored = must(f"{_RECEIVER} GET (response data: the requested Tariff, Card. 1, as stored in the eMSP "
                  f"system); {_MOD}.1.1 (the CPO validates with a GET)", "the eMSP stores a Tariff pushed to it "
                  "and a GET answers that Tariff as stored, its elements in their order", by="emsp")
    put_replaces = must(f"{_RECEIVER} PUT (new or updated Tariff object: create or replace)", "a PUT of a Tariff "
                        "the eMSP holds replaces it whole: a member left out is gone", by="emsp")
    ids_case_insensitive = must("OCPI 2.2.1 §16.1 CiString (case-insensitive); "
                                f"{_RECEIVER} (tariff_id: CiString(36))", "the eMSP finds a Tariff by its ids in "
                                "any case, and a PUT in another case replaces the same Tariff", by="emsp")
    deleted = must(f"{_RECEIVER} DELETE (remove a Tariff no longer in use)", "after a DELETE the eMSP no "
                   "longer answers the Tariff with success", by="emsp")
    unknown_refused = must(f"{_RECEIVER} GET (the requested Tariff, Card. 1; the code to answer an unknown one is "
                           "not shown: any error)", "a GET of a Tariff the eMSP does not have is not answered "
                           "with success", by="emsp")
    patch_refused = should(f"{_RECEIVER} (PATCH n/a)", "a PATCH of a Tariff is answered with an error and "
                           "changes nothing", by="emsp")
    mismatch_refused = must(f"{_RECEIVER} PUT (the URL's country_code and party_id SHALL equal the Tariff's); "
                            "OCPI 2.2.1 §4.1.8.1 Errors", "a PUT whose URL ids differ from the Tariff's is "
                            "refused and stores nothing", by="emsp")
    mismatch_2001 = should("OCPI 2.2.1 §4.1.8.1 Errors (server implementations are advised to return 2001)",
                           "a PUT whose URL ids differ from the Tariff's is answered 2001", by="emsp")
    party_registered = should("OCPI 2.2.1 §4.1.8.1 Errors (a URL party none of the credentials roles declares "
                              "may be answered HTTP 404)", "a push under a party that is none of the pushing "
                              "platform's roles is refused", by="emsp")
    unreferenced_deleted = should(f"{_RECEIVER} DELETE (RECOMMENDED: no Connector's tariff_ids references a "
                                  "Tariff before it is deleted)", "the CPO deletes only Tariffs no Connector it "
                                  "pushed still references", by="cpo")
    listed = must(f"{_SENDER} GET (the list of valid Tariffs, paginated, filtered on last_updated: date_from "
                  "inclusive, date_to exclusive; no object GET); §11.1.2 Pull model", "the CPO lists its Tariffs, "
                  "paginated and filtered on last_updated; a Tariff it pushed is in the list", by="cpo")
    listed_as_pushed = must(f"{_SENDER} GET; {_MOD}.1.1 (the CPO owns the Tariff; the eMSP's copy equals it)",
                            "the list holds a pushed Tariff as it was pushed, a later PUT too", by="cpo")
    deleted_unlisted = must(f"{_SENDER} GET response data (the list of valid Tariffs; what it does not hold is "
                            "no longer valid)", "a Tariff the CPO deleted is no longer in its list", by="cpo")
    pulled_by_list = must(f"{_SENDER} (GET returns the list; POST, PUT, PATCH, DELETE n/a; no object URL); "
                          "§11.1.2 Pull model", "the eMSP pulls Tariffs with GET on the CPO's list endpoint, "
                          "along the pages' Link headers", by="emsp")
    pulled_kept = must(f"{_MOD}.1.2 Pull model (the eMSP receives all Tariffs, replacing its list of known ones)",
                       "a Tariff the eMSP pulled from the CPO's list is held by it, as listed", by="emsp")


# ------------------------------------------------------------------------------ the Tariff's own rules
def problems(tariff: Mapping[str, Any]) -> list[tuple[Rule, str]]:
    """What breaks the rows of the Tariff object itself (elements, price components, currency,
    restriction grammars, reservation dimensions): (rule, why), the MUST rows; the schema checks the
    rest."""
    found: list[tuple[Rule, str]] = []
    currency = tariff.get("currency")
    if isinstance(currency, str) and not _CURRENCY.fullmatch(currency):
        found.append((TariffRules.currency, f"currency {currency!r} is no ISO-4217 code"))
    elements = tariff.get("elements")
    if not isinstance(elements, list) or not elements:
        found.append((TariffRules.elements, f"elements is {elements!r}: at least one TariffElement is needed"))
        return found
    for n, element in enumerate(elements):
        components = element.get("price_components") if isinstance(element, Mapping) else None
        if not isinstance(components, list) or not components:
            found.append((TariffRules.price_components, f"elements[{n}] has no PriceComponent"))
            continue
        limits = element.get("restrictions") or {}
        for name, grammar in (("start_time", _TIME), ("end_time", _TIME), ("start_date", _DATE),
                              ("end_date", _DATE)):
            value = limits.get(name)
            if value is not None and not (isinstance(value, str) and grammar.fullmatch(value)):
                found.append((TariffRules.restriction_times, f"elements[{n}].restrictions.{name} is {value!r}"))
        if limits.get("reservation") is not None:
            kinds = sorted({str(c.get("type")) for c in components if isinstance(c, Mapping)} - {FLAT, TIME})
            if kinds:
                found.append((TariffRules.reservation_dimensions, f"elements[{n}] prices a reservation by {kinds}"))
    return found


def advice(tariff: Mapping[str, Any]) -> list[tuple[Rule, str]]:
    """The advice a Tariff departs from (SHOULD rows): a dimension without a last, unrestricted element."""
    last: dict[str, bool] = {}
    for element in tariff.get("elements") or []:
        for component in element.get("price_components") or []:
            last[component.get("type")] = not element.get("restrictions")
    bare = sorted(kind for kind, open_ in last.items() if not open_)
    return [(TariffRules.fallback_element, f"no unrestricted last element for {bare}")] if bare else []


def check_tariff(tariff: Any, rule: Rule = TariffRules.pushed) -> dict[str, Any]:
    """``tariff`` without its null members when it is a valid Tariff; StatusError 2001 naming the first
    broken row otherwise."""
    if not isinstance(tariff, dict):
        raise invalid(rule, "a Tariff is a JSON object", tariff)
    for row, why in problems(tariff):
        raise invalid(row, why, tariff.get("elements") if row is not TariffRules.currency else tariff.get("currency"))
    return checked(TARIFF, tariff)


def unknown_tariff(ids: Sequence[str], rule: Rule = TariffRules.unknown_refused) -> StatusError:
    """A request naming a Tariff that is not there: HTTP 404, 2000, no data."""
    return StatusError(rule, f"unknown Tariff {'/'.join(ids)}", status_code=StatusCode.CLIENT_ERROR,
                       http_status=404, actual=list(ids))


def referencing(locations: Iterable[Mapping[str, Any]], tariff_id: str) -> list[str]:
    """The Connectors (location/evse/connector) of ``locations`` whose tariff_ids name ``tariff_id``."""
    return [f"{loc.get('id')}/{evse.get('uid')}/{conn.get('id')}" for loc in locations
            for evse in loc.get("evses") or [] for conn in evse.get("connectors") or []
            if any(same_id(t, tariff_id) for t in conn.get("tariff_ids") or [])]


# ------------------------------------------------------------------------------ the store
Key = tuple[str, str, str]


class TariffStore:
    """Tariffs by (country_code, party_id, id), ids compared ignoring case (CiStrings). The CPO keeps its
    own here, the eMSP what was pushed to it or what it pulled."""

    def __init__(self, tariffs: Iterable[Mapping[str, Any]] = ()):
        self._tariffs: dict[Key, dict[str, Any]] = {}
        for tariff in tariffs:
            self._tariffs[self._key(*(tariff[name] for name in IDS))] = json_copy(dict(tariff))

    @staticmethod
    def _key(country_code: str, party_id: str, tariff_id: str) -> Key:
        return id_key(country_code), id_key(party_id), id_key(tariff_id)

    def all(self) -> list[dict[str, Any]]:
        return list(self._tariffs.values())

    def get(self, country_code: str, party_id: str, tariff_id: str) -> dict[str, Any] | None:
        return self._tariffs.get(self._key(country_code, party_id, tariff_id))

    def owned(self, tariff_id: str) -> dict[str, Any] | None:
        """A Tariff by id alone (the CPO's view: they are all its own)."""
        return next((t for t in self._tariffs.values() if same_id(t["id"], tariff_id)), None)

    def put(self, country_code: str, party_id: str, tariff_id: str, tariff: Any) -> bool:
        """Store ``tariff`` whole, replacing what was there; True when it is new. The URL's ids must be
        the Tariff's."""
        tariff = check_tariff(tariff)
        for name, value in zip(IDS, (country_code, party_id, tariff_id)):
            if not same_id(tariff[name], value):
                raise invalid(TariffRules.put_ids, f"the Tariff's {name} differs from the URL's",
                              actual={"url": value, "body": tariff[name]})
        key = self._key(country_code, party_id, tariff_id)
        new = key not in self._tariffs
        self._tariffs[key] = json_copy(tariff)
        return new

    def delete(self, country_code: str, party_id: str, tariff_id: str) -> dict[str, Any]:
        """Remove the Tariff; the one removed (StatusError when there is none)."""
        gone = self._tariffs.pop(self._key(country_code, party_id, tariff_id), None)
        if gone is None:
            raise unknown_tariff((country_code, party_id, tariff_id), TariffRules.deleted)
        return gone
