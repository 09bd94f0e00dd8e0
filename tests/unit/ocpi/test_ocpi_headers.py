import uuid

import pytest

from harness.errors import PeerViolation
from harness.ocpi.headers import (
    HeaderRules, Party, Route, addressee, check_echo, check_request_ids, check_response_route, header_map, needs_routing,
    read_route, routing_headers, tracking_headers)

CPO, EMSP = Party("NL", "VOL"), Party("DE", "EXA")


def test_tracking_headers_are_fresh_uuid4s():
    first, second = tracking_headers(), tracking_headers()
    assert uuid.UUID(first["X-Request-ID"]).version == 4
    assert uuid.UUID(first["X-Correlation-ID"]).version == 4
    assert first["X-Request-ID"] != second["X-Request-ID"]


def test_correlation_id_is_kept_across_a_chain():
    chain = tracking_headers()["X-Correlation-ID"]
    follow_up = tracking_headers(chain)
    assert follow_up["X-Correlation-ID"] == chain
    assert follow_up["X-Request-ID"] != chain


def test_echo_accepted_whatever_the_case_of_the_names():
    sent = {"X-Request-ID": "r-1", "X-Correlation-ID": "c-1"}
    check_echo(sent, [("x-request-id", "r-1"), ("X-CORRELATION-ID", "c-1")])


@pytest.mark.parametrize("received, fragment", [
    ({"X-Correlation-ID": "c-1"}, "X-Request-ID missing"),
    ({"X-Request-ID": "r-2", "X-Correlation-ID": "c-1"}, "X-Request-ID changed"),
    ({"X-Request-ID": "r-1"}, "X-Correlation-ID missing"),
])
def test_echo_faults(received, fragment):
    with pytest.raises(PeerViolation) as caught:
        check_echo({"X-Request-ID": "r-1", "X-Correlation-ID": "c-1"}, received)
    assert caught.value.rule == HeaderRules.echo_ids and fragment in str(caught.value)


def test_header_map_joins_repeated_headers():
    assert header_map([("Link", "<a>; rel=prev"), ("link", "<b>; rel=next")]) == {"link": "<a>; rel=prev, <b>; rel=next"}


@pytest.mark.parametrize("module, version, routed", [
    ("locations", "2.2.1", True), ("sessions", "2.3.0", True),
    ("versions", "2.2.1", False), ("credentials", "2.2.1", False), ("hubclientinfo", "2.2.1", False),
    ("locations", "2.1.1", False),
])
def test_which_requests_are_routed(module, version, routed):
    assert needs_routing(module, version) is routed


def test_routing_headers_round_trip():
    route = Route(CPO, EMSP)
    sent = routing_headers(route)
    assert sent == {"OCPI-from-country-code": "NL", "OCPI-from-party-id": "VOL",
                    "OCPI-to-country-code": "DE", "OCPI-to-party-id": "EXA"}
    assert read_route({name.upper(): value for name, value in sent.items()}) == route


@pytest.mark.parametrize("drop, change, rule", [
    ("OCPI-to-party-id", None, HeaderRules.routing),
    (None, ("OCPI-from-party-id", "VOLT"), HeaderRules.routing_values),
    (None, ("OCPI-to-country-code", "D\n"), HeaderRules.routing_values),
])
def test_read_route_faults(drop, change, rule):
    headers = routing_headers(Route(CPO, EMSP))
    if drop:
        del headers[drop]
    if change:
        headers[change[0]] = change[1]
    with pytest.raises(PeerViolation) as caught:
        read_route(headers)
    assert caught.value.rule == rule


def test_response_route_is_the_request_swapped_ignoring_case():
    check_response_route(Route(CPO, EMSP), routing_headers(Route(Party("de", "exa"), Party("nl", "vol"))))


def test_response_route_not_swapped():
    with pytest.raises(PeerViolation) as caught:
        check_response_route(Route(CPO, EMSP), routing_headers(Route(CPO, EMSP)))
    assert caught.value.rule == HeaderRules.routing_answer and not caught.value.strict


def test_a_response_without_routing_headers_breaks_the_answer_row():
    with pytest.raises(PeerViolation) as caught:
        check_response_route(Route(CPO, EMSP), {})
    assert caught.value.rule == HeaderRules.routing_answer and "the response" in str(caught.value)


def test_request_ids_present_and_new_for_each_request():
    check_request_ids([("first", tracking_headers()), ("second", [("x-request-id", "r-2"), ("x-correlation-id", "c")]),
                       ("third", {"X-Request-ID": "r-3", "X-Correlation-ID": "c"})])   # the chain keeps c


@pytest.mark.parametrize("requests, fragment", [
    ([("GET versions", {"X-Correlation-ID": "c"})], "GET versions carries no X-Request-ID"),
    ([("GET versions", {})], "carries no X-Request-ID and no X-Correlation-ID"),
    ([("GET versions", {"X-Request-ID": "", "X-Correlation-ID": "c"})], "carries no X-Request-ID"),
    ([("GET versions", {"X-Request-ID": "r", "X-Correlation-ID": "c"}),
      ("GET details", {"X-Request-ID": "r", "X-Correlation-ID": "d"})], "GET details repeats the X-Request-ID of "
                                                                       "GET versions"),
])
def test_request_id_faults(requests, fragment):
    with pytest.raises(PeerViolation) as caught:
        check_request_ids(requests)
    assert caught.value.rule == HeaderRules.request_ids and fragment in str(caught.value)


def test_addressee_is_read_as_written_or_none():
    assert addressee({"ocpi-to-country-code": "nl", "OCPI-to-party-id": "Vol"}) == Party("nl", "Vol")
    assert addressee({"OCPI-to-country-code": "NL"}) is None
