from urllib.parse import parse_qsl, urlsplit

import pytest

from harness.errors import HarnessError, PeerViolation
from harness.ocpi.envelope import StatusError
from harness.ocpi.pagination import (
    PageWalker, PaginationRules as P, page_headers, paginate, parse_query, read_page_headers)

URL = "https://cpo.example/ocpi/2.2.1/sessions"


def obj(ident: str, stamp: str) -> dict:
    return {"country_code": "NL", "party_id": "VOL", "id": ident, "last_updated": stamp}


# Given out of order on purpose; "c" and "d" share a time, and must keep their given order.
OBJECTS = [
    obj("e", "2024-01-05T00:00:00Z"),
    obj("a", "2024-01-01T00:00:00Z"),
    obj("c", "2024-01-03T00:00:00Z"),
    obj("d", "2024-01-03T00:00:00Z"),
    obj("b", "2024-01-02T00:00:00Z"),
]


def ids(items) -> list[str]:
    return [item["id"] for item in items]


def query_of(link_header: str) -> dict:
    return dict(parse_qsl(urlsplit(link_header[1:link_header.index(">")]).query))


# -- server: reading the query ------------------------------------------------------------------

def test_defaults_offset_zero_and_limit_the_server_maximum():
    query = parse_query({}, max_limit=50)
    assert (query.offset, query.limit, query.date_from, query.date_to) == (0, 50, None, None)


def test_limit_above_the_maximum_is_capped():
    assert parse_query({"limit": "1000"}, max_limit=100).limit == 100
    assert parse_query({"limit": "20"}, max_limit=100).limit == 20


@pytest.mark.parametrize("params, fragment", [
    ({"limit": "abc"}, "limit"),
    ({"limit": "0"}, "limit"),
    ({"limit": "-5"}, "limit"),
    ({"limit": "1.5"}, "limit"),
    ({"offset": "abc"}, "offset"),
    ({"offset": "-1"}, "offset"),
    ({"date_from": "yesterday"}, "date_from"),
    ({"date_to": "2024-01-01T00:00:00+01:00"}, "date_to"),
])
def test_bad_parameters_answer_2001_not_an_exception_of_the_framework(params, fragment):
    with pytest.raises(StatusError) as caught:
        parse_query(params, max_limit=10)
    error = caught.value
    assert (error.rule, int(error.status_code), error.http_status) == (P.query, 2001, 200)
    assert fragment in str(error)
    assert error.envelope()["status_code"] == 2001


def test_date_from_required_on_sessions():
    with pytest.raises(StatusError):
        parse_query({"offset": "0"}, max_limit=10, date_from_required=True)
    assert parse_query({"date_from": "2024-01-01T00:00:00Z"}, max_limit=10, date_from_required=True).date_from


# -- server: cutting the page -------------------------------------------------------------------

def test_sorted_by_last_updated_and_stable_on_ties():
    page = paginate(OBJECTS, parse_query({}, max_limit=10))
    assert ids(page.items) == ["a", "b", "c", "d", "e"]
    assert (page.total, page.next_offset) == (5, None)


def test_date_from_inclusive_and_date_to_exclusive():
    # from 01-02 (b included) to 01-05 (e excluded): b, c, d
    query = parse_query({"date_from": "2024-01-02T00:00:00Z", "date_to": "2024-01-05T00:00:00Z"}, max_limit=10)
    page = paginate(OBJECTS, query)
    assert ids(page.items) == ["b", "c", "d"]
    assert page.total == 3


def test_boundaries_are_compared_as_instants_not_text():
    query = parse_query({"date_from": "2024-01-02T00:00:00.000+00:00", "date_to": "2024-01-03T00:00:00"}, max_limit=10)
    assert ids(paginate(OBJECTS, query).items) == ["b"]


def test_offset_and_limit_slice_the_filtered_list():
    page = paginate(OBJECTS, parse_query({"offset": "1", "limit": "2"}, max_limit=10))
    assert ids(page.items) == ["b", "c"]
    assert (page.total, page.next_offset) == (5, 3)


def test_offset_past_the_end_gives_an_empty_last_page():
    page = paginate(OBJECTS, parse_query({"offset": "9"}, max_limit=10))
    assert (page.items, page.total, page.next_offset) == ([], 5, None)


def test_our_object_without_last_updated_is_our_bug():
    with pytest.raises(HarnessError):
        paginate([{"id": "x"}], parse_query({}, max_limit=10))


# -- server: headers ----------------------------------------------------------------------------

def test_headers_with_more_pages_repeat_the_filters():
    params = {"date_from": "2024-01-01T00:00:00Z", "date_to": "2024-02-01T00:00:00Z", "limit": "2"}
    query = parse_query(params, max_limit=3)
    headers = page_headers(paginate(OBJECTS, query), query, URL + "?ignored=1")
    assert headers["X-Total-Count"] == "5"
    assert headers["X-Limit"] == "3"
    assert headers["Link"].startswith("<https://cpo.example/ocpi/2.2.1/sessions?")
    assert headers["Link"].endswith('>; rel="next"')
    assert query_of(headers["Link"]) == {**params, "offset": "2"}


def test_x_limit_is_the_maximum_even_on_a_short_page_and_no_link_on_the_last():
    query = parse_query({"offset": "4"}, max_limit=3)
    headers = page_headers(paginate(OBJECTS, query), query, URL)
    assert headers == {"X-Total-Count": "5", "X-Limit": "3"}


def test_capped_limit_moves_the_offset_by_what_was_served():
    query = parse_query({"limit": "1000"}, max_limit=2)
    headers = page_headers(paginate(OBJECTS, query), query, URL)
    assert query_of(headers["Link"]) == {"limit": "1000", "offset": "2"}


# -- client: reading headers --------------------------------------------------------------------

def test_read_headers_ignores_case_and_finds_rel_next_among_links():
    found = read_page_headers([("x-total-count", "12"), ("X-LIMIT", "5"),
                               ("link", '<https://a/p?offset=0>; rel="prev", <https://a/p?offset=10>; rel=next')])
    assert (found.total_count, found.limit, found.next_url) == (12, 5, "https://a/p?offset=10")


def test_read_headers_rel_may_hold_several_types():
    assert read_page_headers({"Link": '<https://a/p?x>; title="a, b; c"; rel="next last"'}).next_url == "https://a/p?x"


def test_read_headers_without_link_means_last_page():
    assert read_page_headers({"X-Total-Count": "0", "X-Limit": "5"}).next_url is None


@pytest.mark.parametrize("value", ["", " ", ", ,"])
def test_read_headers_an_empty_link_field_is_an_empty_list(value):
    """RFC 9110 §5.6.1: a list may be empty; what that means on the last page the walker judges."""
    found = read_page_headers({"Link": value})
    assert (found.next_url, found.empty_link) == (None, True)


def test_read_headers_a_link_without_next_is_not_empty():
    found = read_page_headers({"Link": '<https://a/p?offset=0>; rel="prev"'})
    assert (found.next_url, found.empty_link) == (None, False)


@pytest.mark.parametrize("headers, rule", [
    ({"X-Total-Count": "many"}, P.total_count),
    ({"X-Limit": "-1"}, P.limit_header),
    ({"Link": "https://a/p?offset=10; rel=next"}, P.next_link),
    ({"Link": '<https://a/p?offset=10>; rel="next'}, P.next_link),
    ({"Link": "<https://a/p?offset=10> rel=next"}, P.next_link),
])
def test_read_headers_rejects_malformed_values(headers, rule):
    with pytest.raises(PeerViolation) as caught:
        read_page_headers(headers)
    assert caught.value.rule == rule


# -- client: walking ----------------------------------------------------------------------------

def serve(walker: PageWalker, pages: list[tuple[dict, list]]) -> list[str]:
    """Feed the walker each (headers, items) page in turn; return the URLs it asked for."""
    asked = []
    for headers, items in pages:
        asked.append(walker.next_url)
        walker.feed(walker.next_url, headers, items)
    return asked


def headers(total: int, link: str | None = None, limit: int = 2) -> dict:
    found = {"X-Total-Count": str(total), "X-Limit": str(limit)}
    if link:
        found["Link"] = f"<{link}>; rel=\"next\""
    return found


FIRST = URL + "?date_from=2024-01-01T00:00:00Z&limit=2"


def next_page(offset: int) -> str:
    """The link a well-behaved server gives after FIRST."""
    return f"{FIRST}&offset={offset}"


def first_page_fault(link: str, total: int = 5) -> PeerViolation:
    """The violation the walker finds on the first page of FIRST."""
    with pytest.raises(PeerViolation) as caught:
        PageWalker(FIRST).feed(FIRST, headers(total, link), OBJECTS[:2])
    return caught.value


def test_walker_follows_links_and_collects_everything():
    walker = PageWalker(FIRST)
    asked = serve(walker, [
        (headers(5, next_page(2)), OBJECTS[:2]),
        (headers(5, next_page(4)), OBJECTS[2:4]),
        (headers(5), OBJECTS[4:]),
    ])
    assert asked == [FIRST, next_page(2),
                     next_page(4)]
    assert walker.done and walker.pages == 3
    assert ids(walker.items) == ["e", "a", "c", "d", "b"]


def test_walker_against_our_own_server_side():
    """The two halves agree: every page our server cuts passes the walker."""
    walker = PageWalker(URL + "?limit=2")
    while not walker.done:
        params = dict(parse_qsl(urlsplit(walker.next_url).query))
        query = parse_query(params, max_limit=10)
        page = paginate(OBJECTS, query)
        walker.feed(walker.next_url, page_headers(page, query, walker.next_url), page.items)
    assert ids(walker.items) == ["a", "b", "c", "d", "e"] and walker.pages == 3


def test_lost_item_when_the_pages_end_early():
    walker = PageWalker(FIRST)
    walker.feed(FIRST, headers(5, next_page(2)), OBJECTS[:2])
    with pytest.raises(PeerViolation) as caught:
        walker.feed(walker.next_url, headers(5), OBJECTS[2:4])
    assert caught.value.rule == P.complete and "after 4 objects" in str(caught.value)


def test_lost_items_when_the_link_skips_ahead():
    fault = first_page_fault(next_page(3))
    assert fault.rule == P.complete and "skips" in str(fault)


def test_duplicate_across_pages_ignoring_case_of_ids():
    walker = PageWalker(FIRST)
    walker.feed(FIRST, headers(4, next_page(2)), OBJECTS[:2])
    again = dict(OBJECTS[1], id="A")
    with pytest.raises(PeerViolation) as caught:
        walker.feed(walker.next_url, headers(4), [OBJECTS[2], again])
    assert caught.value.rule == P.complete and "page 1 and again on page 2" in str(caught.value)


def test_inconsistent_total_count():
    walker = PageWalker(FIRST)
    walker.feed(FIRST, headers(5, next_page(2)), OBJECTS[:2])
    with pytest.raises(PeerViolation) as caught:
        walker.feed(walker.next_url, headers(6, next_page(4)),
                    OBJECTS[2:4])
    assert (caught.value.rule, caught.value.expected, caught.value.actual) == (P.stable_total, 5, 6)


def test_empty_link_on_the_last_page_is_a_finding():
    walker = PageWalker(FIRST)
    assert walker.feed(FIRST, {**headers(2), "Link": ""}, OBJECTS[:2]) is None and walker.done
    assert [(f.rule, f.strict) for f in walker.findings] == [(P.empty_link, False)]


def test_empty_link_before_the_last_page_loses_objects():
    with pytest.raises(PeerViolation) as caught:
        PageWalker(FIRST).feed(FIRST, {**headers(5), "Link": ""}, OBJECTS[:2])
    assert caught.value.rule == P.complete


def test_link_on_the_last_page():
    fault = first_page_fault(next_page(2), total=2)
    assert fault.rule == P.next_link and "last page" in str(fault)


@pytest.mark.parametrize("link", [
    URL + "?limit=2&offset=2",                                                  # date_from dropped
    URL + "?date_from=2024-02-01T00:00:00Z&limit=2&offset=2",                   # date_from changed
    URL + "?date_from=2024-01-01T00:00:00Z&date_to=None&limit=2&offset=2",      # None leaked
])
def test_link_must_keep_the_filters(link):
    fault = first_page_fault(link)
    assert fault.rule == P.link_filters and "date filters" in str(fault)


def test_link_may_respell_the_same_instant():
    walker = PageWalker(FIRST)
    link = URL + "?date_from=2024-01-01T00%3A00%3A00%2B00%3A00&limit=2&offset=2"
    assert walker.feed(FIRST, headers(5, link), OBJECTS[:2]) == link


def test_link_with_a_garbled_limit():
    fault = first_page_fault(URL + "?date_from=2024-01-01T00:00:00Z&limit=None&offset=2")
    assert fault.rule == P.link_filters and "limit" in str(fault)


def test_link_that_drops_to_http():
    assert first_page_fault(next_page(2).replace("https://", "http://")).rule == P.same_host


def test_page_larger_than_x_limit_or_the_limit_asked():
    with pytest.raises(PeerViolation) as caught:
        PageWalker(URL).feed(URL, headers(5, limit=2), OBJECTS[:3])
    assert (caught.value.rule, caught.value.expected) == (P.page_size, 2)
    with pytest.raises(PeerViolation) as caught:
        PageWalker(FIRST).feed(FIRST, headers(5, limit=10), OBJECTS[:3])
    assert caught.value.rule == P.page_size and "the limit asked" in str(caught.value)


@pytest.mark.parametrize("missing, rule", [("X-Total-Count", P.total_count), ("X-Limit", P.limit_header)])
def test_missing_pagination_headers(missing, rule):
    found = headers(2)
    del found[missing]
    with pytest.raises(PeerViolation) as caught:
        PageWalker(URL).feed(URL, found, OBJECTS[:2])
    assert caught.value.rule == rule


def test_relative_link_is_resolved_against_the_page_url():
    walker = PageWalker(URL + "?limit=2")
    assert walker.feed(URL + "?limit=2", headers(5, "?limit=2&offset=2"), OBJECTS[:2]) == URL + "?limit=2&offset=2"


def test_feeding_the_wrong_page_is_our_bug():
    with pytest.raises(HarnessError):
        PageWalker(URL).feed(URL + "?offset=2", headers(0), [])


def test_empty_list_is_one_page():
    walker = PageWalker(URL)
    assert walker.feed(URL, headers(0), []) is None and walker.done
