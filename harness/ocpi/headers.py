"""Request-tracking and routing headers (OCPI 2.2 and later).

Rules (OCPI 2.2.1 transport and format, "Unique message IDs" and "Message routing";
facts/ocpi-wire.md):
- H1  every request carries X-Request-ID, new for each request, and X-Correlation-ID, kept for
      every request of one chain; UUIDs are advised;
- H2  a response repeats both values unchanged;
- H3  requests of functional modules carry OCPI-from-country-code, OCPI-from-party-id,
      OCPI-to-country-code and OCPI-to-party-id; versions, credentials and hubclientinfo
      do not use them;
- H4  a response of a functional module carries them too, with from and to swapped; values
      are CiStrings of 2 (country code) and 3 (party id) characters, compared ignoring case;
- H5  header names are case-insensitive (RFC 9110 §5.1).
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from harness.errors import PeerViolation
from harness.ocpi.versions import version_key

REQUEST_ID = "X-Request-ID"
CORRELATION_ID = "X-Correlation-ID"
FROM_COUNTRY = "OCPI-from-country-code"
FROM_PARTY = "OCPI-from-party-id"
TO_COUNTRY = "OCPI-to-country-code"
TO_PARTY = "OCPI-to-party-id"
UNROUTED_MODULES = frozenset({"versions", "credentials", "hubclientinfo"})

Headers = Mapping[str, str] | Iterable[tuple[str, str]]


def header_map(headers: Headers) -> dict[str, str]:
    """H5: the headers keyed by lower-case name; repeated headers joined with ", " (RFC 9110 §5.3)."""
    pairs = headers.items() if isinstance(headers, Mapping) else headers
    joined: dict[str, str] = {}
    for name, value in pairs:
        key = name.lower()
        joined[key] = f"{joined[key]}, {value}" if key in joined else value
    return joined


def new_id() -> str:
    return str(uuid.uuid4())


def tracking_headers(correlation_id: str | None = None) -> dict[str, str]:
    """H1: the ids for one new request; pass the chain's correlation id to keep it."""
    return {REQUEST_ID: new_id(), CORRELATION_ID: correlation_id or new_id()}


def check_echo(sent: Headers, received: Headers) -> None:
    """H2: the response repeats the request's X-Request-ID and X-Correlation-ID."""
    sent_map, received_map = header_map(sent), header_map(received)
    for name in (REQUEST_ID, CORRELATION_ID):
        expected = sent_map.get(name.lower())
        actual = received_map.get(name.lower())
        if actual != expected:
            what = "missing from" if actual is None else "changed in"
            raise PeerViolation("H2", f"{name} {what} the response", expected=expected, actual=actual)


@dataclass(frozen=True)
class Party:
    country_code: str
    party_id: str

    def same_as(self, other: "Party") -> bool:
        return (self.country_code.lower(), self.party_id.lower()) == \
            (other.country_code.lower(), other.party_id.lower())


@dataclass(frozen=True)
class Route:
    sender: Party
    receiver: Party


def needs_routing(module: str, version: str) -> bool:
    """H3: only functional modules of 2.2 and later are routed."""
    return version_key(version) >= (2, 2) and module not in UNROUTED_MODULES


def routing_headers(route: Route) -> dict[str, str]:
    return {FROM_COUNTRY: route.sender.country_code, FROM_PARTY: route.sender.party_id,
            TO_COUNTRY: route.receiver.country_code, TO_PARTY: route.receiver.party_id}


def read_route(headers: Headers) -> Route:
    """H3/H4: the route a message names; PeerViolation when a header is missing or too long."""
    found = header_map(headers)
    values = {}
    for name, limit in ((FROM_COUNTRY, 2), (FROM_PARTY, 3), (TO_COUNTRY, 2), (TO_PARTY, 3)):
        value = found.get(name.lower())
        if not value:
            raise PeerViolation("H3", f"{name} header missing", expected=name, actual=sorted(found))
        if len(value) > limit or not value.isascii() or not value.isprintable():
            raise PeerViolation("H4", f"{name} is not a CiString({limit})", actual=value)
        values[name] = value
    return Route(Party(values[FROM_COUNTRY], values[FROM_PARTY]), Party(values[TO_COUNTRY], values[TO_PARTY]))


def check_response_route(request: Route, response_headers: Headers) -> None:
    """H4: the response names the request's route reversed."""
    answered = read_route(response_headers)
    if not (answered.sender.same_as(request.receiver) and answered.receiver.same_as(request.sender)):
        raise PeerViolation("H4", "response routing headers are not the request's, swapped",
                            expected=Route(request.receiver, request.sender), actual=answered)
