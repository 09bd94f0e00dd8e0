"""Request-tracking and routing headers (OCPI 2.2 and later).

Header names are case-insensitive (RFC 9110 §5.1): every lookup goes through ``header_map``.
Routing headers are judged at SHOULD level: the 2.2.1 text (Message routing) asks every
implementation to support the four headers on functional modules, but says they need not be
present on every request, and a platform-to-platform connection without a hub does not act on
them; a missing or malformed one is a finding, never a failure. Values are CiStrings of 2
(country code) and 3 (party id) characters, compared ignoring case.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from harness.cistring import same_id
from harness.errors import PeerViolation
from harness.ocpi.versions import version_key
from harness.rules import RuleTable, must, should

_IDS = ("OCPI 2.2.1 §4.2 Unique message IDs (SHALL; spec 000 names no header but Authorization); "
        "facts/ocpi-wire.md Request/correlation headers")
_ROUTING = "OCPI 2.2.1 transport and format, Message routing; facts/ocpi-wire.md"


class HeaderRules(RuleTable, namespace="ocpi.headers"):
    """The request ids every message carries, and the route of functional-module messages."""
    request_ids = must(_IDS, "every request carries X-Request-ID (new for each request) and X-Correlation-ID, "
                             "the SUT's own requests to the harness included")
    echo_ids = must(_IDS, "a response repeats the request's X-Request-ID and X-Correlation-ID unchanged")
    routing = should(_ROUTING, "a request to a functional module names its route in OCPI-from/to-country-code "
                               "and OCPI-from/to-party-id; versions, credentials and hubclientinfo do not")
    routing_values = should(_ROUTING, "routing header values are CiString(2) country codes and CiString(3) "
                                      "party ids")
    routing_answer = should(_ROUTING, "the response of a functional module names the request's route swapped")

REQUEST_ID = "X-Request-ID"
CORRELATION_ID = "X-Correlation-ID"
FROM_COUNTRY = "OCPI-from-country-code"
FROM_PARTY = "OCPI-from-party-id"
TO_COUNTRY = "OCPI-to-country-code"
TO_PARTY = "OCPI-to-party-id"
UNROUTED_MODULES = frozenset({"versions", "credentials", "hubclientinfo"})

Headers = Mapping[str, str] | Iterable[tuple[str, str]]


def header_map(headers: Headers) -> dict[str, str]:
    """The headers keyed by lower-case name; repeated headers joined with ", " (RFC 9110 §5.3)."""
    pairs = headers.items() if isinstance(headers, Mapping) else headers
    joined: dict[str, str] = {}
    for name, value in pairs:
        key = name.lower()
        joined[key] = f"{joined[key]}, {value}" if key in joined else value
    return joined


def new_id() -> str:
    return str(uuid.uuid4())


def tracking_headers(correlation_id: str | None = None) -> dict[str, str]:
    """The ids for one new request; pass the chain's correlation id to keep it."""
    return {REQUEST_ID: new_id(), CORRELATION_ID: correlation_id or new_id()}


def missing_ids(headers: Headers) -> list[str]:
    """The request ids a request lacks (absent or empty)."""
    found = header_map(headers)
    return [name for name in (REQUEST_ID, CORRELATION_ID) if not found.get(name.lower())]


def check_request_ids(requests: Iterable[tuple[str, Headers]]) -> None:
    """Each request, given as (what it was, its headers), carries X-Request-ID and
    X-Correlation-ID, and no two share an X-Request-ID. The correlation id may repeat: it
    follows a chain of requests (2.2.1 §4.2)."""
    first_with: dict[str, str] = {}
    for what, headers in requests:
        missing = missing_ids(headers)
        if missing:
            raise PeerViolation(HeaderRules.request_ids, f"{what} carries no {' and no '.join(missing)}",
                                expected=[REQUEST_ID, CORRELATION_ID], actual=sorted(header_map(headers)))
        request_id = header_map(headers)[REQUEST_ID.lower()]
        if request_id in first_with:
            raise PeerViolation(HeaderRules.request_ids, f"{what} repeats the X-Request-ID of "
                                f"{first_with[request_id]}", expected="a new X-Request-ID", actual=request_id)
        first_with[request_id] = what


def check_echo(sent: Headers, received: Headers) -> None:
    """The response repeats the request's X-Request-ID and X-Correlation-ID."""
    sent_map, received_map = header_map(sent), header_map(received)
    for name in (REQUEST_ID, CORRELATION_ID):
        expected = sent_map.get(name.lower())
        actual = received_map.get(name.lower())
        if actual != expected:
            what = "missing from" if actual is None else "changed in"
            raise PeerViolation(HeaderRules.echo_ids, f"{name} {what} the response", expected=expected, actual=actual)


@dataclass(frozen=True)
class Party:
    country_code: str
    party_id: str

    def same_as(self, other: "Party") -> bool:
        return same_id(self.country_code, other.country_code) and same_id(self.party_id, other.party_id)


@dataclass(frozen=True)
class Route:
    sender: Party
    receiver: Party


def addressee(headers: Headers) -> Party | None:
    """The party a message names in OCPI-to-country-code and OCPI-to-party-id, None when it names
    none (judging their presence is ``read_route``'s)."""
    found = header_map(headers)
    country_code, party_id = found.get(TO_COUNTRY.lower()), found.get(TO_PARTY.lower())
    return Party(country_code, party_id) if country_code and party_id else None


def needs_routing(module: str, version: str) -> bool:
    """Only functional modules of 2.2 and later are routed."""
    return version_key(version) >= (2, 2) and module not in UNROUTED_MODULES


def routing_headers(route: Route) -> dict[str, str]:
    return {FROM_COUNTRY: route.sender.country_code, FROM_PARTY: route.sender.party_id,
            TO_COUNTRY: route.receiver.country_code, TO_PARTY: route.receiver.party_id}


def read_route(headers: Headers) -> Route:
    """The route a message names; PeerViolation when a header is missing or too long."""
    found = header_map(headers)
    values = {}
    for name, limit in ((FROM_COUNTRY, 2), (FROM_PARTY, 3), (TO_COUNTRY, 2), (TO_PARTY, 3)):
        value = found.get(name.lower())
        if not value:
            raise PeerViolation(HeaderRules.routing, f"{name} header missing", expected=name, actual=sorted(found))
        if len(value) > limit or not value.isascii() or not value.isprintable():
            raise PeerViolation(HeaderRules.routing_values, f"{name} is not a CiString({limit})", actual=value)
        values[name] = value
    return Route(Party(values[FROM_COUNTRY], values[FROM_PARTY]), Party(values[TO_COUNTRY], values[TO_PARTY]))


def check_response_route(request: Route, response_headers: Headers) -> None:
    """The response names the request's route reversed."""
    try:
        answered = read_route(response_headers)
    except PeerViolation as violation:
        raise PeerViolation(HeaderRules.routing_answer, f"the response: {violation.args[0]}",
                            expected=violation.expected, actual=violation.actual) from None
    if not (answered.sender.same_as(request.receiver) and answered.receiver.same_as(request.sender)):
        raise PeerViolation(HeaderRules.routing_answer, "response routing headers are not the request's, swapped",
                            expected=Route(request.receiver, request.sender), actual=answered)
