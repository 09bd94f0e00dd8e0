"""Pagination of list GETs: the server side (read the query, cut a page, write the headers) and
the client side (read the headers, walk the pages, check the rules that span pages).

The server may return fewer objects than asked and may cap ``limit``; a bad parameter is answered
with status 2001 in an envelope, never with a framework error. Test data does not change during a
walk, so X-Total-Count must not either. Objects are served oldest ``last_updated`` first, ties in
the order given, so the same URL gives the same page.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any
from urllib.parse import parse_qsl, urlencode, urljoin, urlsplit, urlunsplit

from harness.cistring import id_key
from harness.errors import HarnessError, PeerViolation
from harness.ocpi.envelope import StatusCode, StatusError
from harness.ocpi.headers import Headers, header_map
from harness.ocpi.timestamps import parse_datetime
from harness.ocpi.weblinks import parse_links
from harness.rules import RuleTable, must, should

_PAGES = "OCPI 2.2.1 transport and format §4.1.4 Pagination; spec 000 Endpoints, Limits; facts/ocpi-wire.md"


class PaginationRules(RuleTable, namespace="ocpi.pagination"):
    """Paginated list GETs, as the server answers them and as a client walks them."""
    query = must(_PAGES, "offset (>= 0), limit (>= 1), date_from and date_to (DateTimes) are read as such; a bad "
                         "value is answered status 2001 in an envelope")
    date_filters = must(_PAGES, "date_from keeps last_updated >= it (inclusive), date_to keeps last_updated < it "
                                "(exclusive)")
    limit_header = must(_PAGES, "every page carries X-Limit, the server's maximum page size, also on a short page")
    total_count = must(_PAGES, "every page carries X-Total-Count, the number of objects matching the filters")
    next_link = must(f"{_PAGES}; RFC 8288 §3", "a well-formed 'Link: <url>; rel=\"next\"' comes when, and only "
                                              "when, more pages follow")
    empty_link = should(f"{_PAGES} (the next-page Link is provided when this is not the last page); RFC 9110 "
                        "§5.6.1 (an empty list is legal); facts/ocpi-wire.md traps (an empty Link on the last "
                        "page)", "the last page leaves the Link header out rather than sending it empty")
    link_filters = must(_PAGES, "the next-page Link repeats the filters of the original request")
    page_size = must(_PAGES, "a page holds no more objects than X-Limit, nor than the limit asked")
    complete = must(_PAGES, "across the pages no object comes twice and none is lost: together they hold "
                            "X-Total-Count objects")
    stable_total = must(_PAGES, "X-Total-Count stays the same from page to page while the data does not change")
    same_host = must(f"{_PAGES} (traps: a Link with the wrong scheme)", "the next-page Link stays on the scheme "
                                                                        "and host that were asked")

_INTEGER = re.compile(r"[0-9]+")
_FILTERS = ("date_from", "date_to")


def _integer(value: str | None) -> int | None:
    return int(value) if value is not None and _INTEGER.fullmatch(value) else None


def _invalid(message: str, actual: Any) -> StatusError:
    return StatusError(PaginationRules.query, message, status_code=StatusCode.INVALID_PARAMETERS, actual=actual)


@dataclass(frozen=True)
class PageQuery:
    """A list request as the server understood it."""
    offset: int
    limit: int                  # what will be served: the asked limit capped at max_limit
    max_limit: int
    date_from: datetime | None
    date_to: datetime | None
    params: tuple[tuple[str, str], ...]   # as received, to repeat in the Link

    def matches(self, last_updated: datetime) -> bool:
        return ((self.date_from is None or last_updated >= self.date_from)
                and (self.date_to is None or last_updated < self.date_to))


def parse_query(params: Mapping[str, str] | Iterable[tuple[str, str]], *, max_limit: int,
                date_from_required: bool = False) -> PageQuery:
    """Read the pagination parameters; StatusError 2001 names the bad one."""
    pairs = tuple(params.items() if isinstance(params, Mapping) else params)
    found = dict(pairs)
    offset = _integer(found.get("offset", "0"))
    if offset is None:
        raise _invalid("offset is not a non-negative integer", found.get("offset"))
    limit = max_limit
    if "limit" in found:
        asked = _integer(found["limit"])
        if not asked:
            raise _invalid("limit is not a positive integer", found["limit"])
        limit = min(asked, max_limit)
    if date_from_required and "date_from" not in found:
        raise _invalid("date_from is required on this endpoint", None)
    dates: dict[str, datetime | None] = {}
    for name in _FILTERS:
        try:
            dates[name] = parse_datetime(found[name]) if name in found else None
        except ValueError as error:
            raise _invalid(f"{name}: {error}", found[name]) from None
    return PageQuery(offset, limit, max_limit, dates["date_from"], dates["date_to"], pairs)


@dataclass(frozen=True)
class Page:
    items: list[Any]
    total: int
    offset: int

    @property
    def next_offset(self) -> int | None:
        end = self.offset + len(self.items)
        return end if end < self.total else None


def paginate(objects: Sequence[Mapping[str, Any]], query: PageQuery) -> Page:
    """The page ``query`` asks for out of our own ``objects`` (each with ``last_updated``)."""
    try:
        stamped = [(parse_datetime(obj["last_updated"]), obj) for obj in objects]
    except (KeyError, ValueError) as error:
        raise HarnessError(f"our own object has no usable last_updated: {error}") from None
    matching = [obj for stamp, obj in sorted(stamped, key=lambda pair: pair[0]) if query.matches(stamp)]
    return Page(matching[query.offset:query.offset + query.limit], len(matching), query.offset)


def next_link(next_url: str, first_url: str) -> str:
    """The advised form of a next-page Link (``first_url``, the first page, is for writers that add it)."""
    return f'<{next_url}>; rel="next"'


def page_headers(page: Page, query: PageQuery, url: str, *,
                 link: Callable[[str, str], str] | None = None) -> dict[str, str]:
    """The headers of a page served at ``url`` (the public URL the client asked); ``link`` writes the
    Link of the next page and the first (``next_link`` by default)."""
    headers = {"X-Total-Count": str(page.total), "X-Limit": str(query.max_limit)}
    if page.next_offset is not None:
        parts = urlsplit(url)
        kept = [(k, v) for k, v in query.params if k != "offset"]

        def at(offset: int) -> str:
            query_text = urlencode(kept + [("offset", str(offset))], safe=":")
            return urlunsplit((parts.scheme, parts.netloc, parts.path, query_text, ""))

        headers["Link"] = (link or next_link)(at(page.next_offset), at(0))
    return headers


# -- client side -----------------------------------------------------------------------------

@dataclass(frozen=True)
class PageHeaders:
    total_count: int | None
    limit: int | None
    next_url: str | None
    empty_link: bool = False   # a Link header that holds no link at all


def read_page_headers(headers: Headers) -> PageHeaders:
    """The pagination headers of a response; PeerViolation when one is malformed."""
    found = header_map(headers)
    counts = {}
    for name, rule in (("x-total-count", PaginationRules.total_count),
                       ("x-limit", PaginationRules.limit_header)):
        value = found.get(name)
        counts[name] = _integer(value.strip()) if value is not None else None
        if value is not None and counts[name] is None:
            raise PeerViolation(rule, f"{name} is not a non-negative integer", actual=value)
    link = found.get("link")
    links = []
    if link is not None:
        try:
            links = parse_links(link)
        except ValueError as error:
            raise PeerViolation(PaginationRules.next_link, f"Link header is not RFC 8288: {error}",
                                actual=link) from None
    next_url = next((candidate.target for candidate in links if "next" in candidate.rels), None)
    return PageHeaders(counts["x-total-count"], counts["x-limit"], next_url, link is not None and not links)


def object_key(item: Any) -> Hashable | None:
    """Identity of a listed object: (country_code, party_id, id), ignoring case (CiStrings); a Token's,
    which has no id, is its uid and type (OCPI 2.2.1 §12.3.2)."""
    if isinstance(item, Mapping) and "id" not in item and "uid" in item:
        return (*(id_key(item.get(name, "")) for name in ("country_code", "party_id", "uid")), str(item.get("type")))
    if not isinstance(item, Mapping) or "id" not in item:
        return None
    return tuple(id_key(item.get(name, "")) for name in ("country_code", "party_id", "id"))


def _query(url: str) -> dict[str, str]:
    return dict(parse_qsl(urlsplit(url).query, keep_blank_values=True))


def _filters(url: str) -> dict[str, Any]:
    """The date filters of a URL, as instants where they parse, so equal times in other
    spellings compare equal."""
    query, filters = _query(url), dict[str, Any]()
    for name in _FILTERS:
        if name in query:
            try:
                filters[name] = parse_datetime(query[name])
            except ValueError:
                filters[name] = query[name]
    return filters


class PageWalker:
    """Walks a paginated list without doing I/O: feed it each page, it names the next URL.

    Checks the rules that span pages and raises PeerViolation naming the broken row; a break of a
    SHOULD row does not stop the walk and is kept in ``findings`` for the caller to report.
    """

    def __init__(self, url: str, key: Callable[[Any], Hashable | None] = object_key):
        self.next_url: str | None = url
        self.items: list[Any] = []
        self.pages = 0
        self.findings: list[PeerViolation] = []
        self._key = key
        self._filters = _filters(url)
        self._total: int | None = None
        self._seen: dict[Hashable, int] = {}
        self._visited: set[str] = set()

    @property
    def done(self) -> bool:
        return self.next_url is None

    def feed(self, url: str, headers: Headers, items: Sequence[Any]) -> str | None:
        """Take the page fetched from ``url``; return the next URL to GET, or None when done."""
        if url != self.next_url:
            raise HarnessError(f"fed page {url!r}, but the page due is {self.next_url!r}")
        self.pages += 1
        self._visited.add(url)
        page = read_page_headers(headers)
        total = self._check_sizes(url, page, items)
        self._collect(items)
        self.next_url = self._follow(url, page, len(items), total)
        return self.next_url

    def _check_sizes(self, url: str, page: PageHeaders, items: Sequence[Any]) -> int:
        """The page's X-Total-Count, once the page's counts are checked."""
        if page.total_count is None:
            raise PeerViolation(PaginationRules.total_count, f"page {self.pages} has no X-Total-Count header")
        if page.limit is None:
            raise PeerViolation(PaginationRules.limit_header, f"page {self.pages} has no X-Limit header")
        if self._total is not None and page.total_count != self._total:
            raise PeerViolation(PaginationRules.stable_total, f"X-Total-Count changed on page {self.pages}",
                                expected=self._total, actual=page.total_count)
        self._total = page.total_count
        asked = _integer(_query(url).get("limit"))
        for bound, name in ((page.limit, "X-Limit"), (asked, "the limit asked")):
            if bound is not None and len(items) > bound:
                raise PeerViolation(PaginationRules.page_size, f"page {self.pages} holds more objects than {name}",
                                    expected=bound, actual=len(items))
        return page.total_count

    def _collect(self, items: Sequence[Any]) -> None:
        for item in items:
            key = self._key(item)
            if key is not None and key in self._seen:
                raise PeerViolation(PaginationRules.complete, f"object {key} came on page {self._seen[key]} and again "
                                    f"on page {self.pages}", actual=item)
            if key is not None:
                self._seen[key] = self.pages
            self.items.append(item)

    def _follow(self, url: str, page: PageHeaders, count: int, total: int) -> str | None:
        if page.next_url is None:
            if len(self.items) != total:
                raise PeerViolation(PaginationRules.complete, f"the pages ended after {len(self.items)} objects but "
                                    f"X-Total-Count is {total}", expected=total, actual=len(self.items))
            if page.empty_link:
                self.findings.append(PeerViolation(PaginationRules.empty_link, f"the last page (page {self.pages}) "
                                                   "carries an empty Link header", expected="no Link header",
                                                   actual="Link: "))
            return None
        next_url = urljoin(url, page.next_url)
        if len(self.items) >= total:
            raise PeerViolation(PaginationRules.next_link, f"Link on the last page: all {total} objects were delivered",
                                actual=page.next_url)
        here, there = urlsplit(url), urlsplit(next_url)
        if (there.scheme, there.netloc) != (here.scheme, here.netloc):
            raise PeerViolation(PaginationRules.same_host, "Link leaves the scheme or host that was asked",
                                expected=f"{here.scheme}://{here.netloc}", actual=next_url)
        if _filters(next_url) != self._filters:
            raise PeerViolation(PaginationRules.link_filters, "Link does not repeat the original date filters",
                                expected=self._filters, actual=next_url)
        query = _query(next_url)
        if "limit" in query and not _integer(query["limit"]):
            raise PeerViolation(PaginationRules.link_filters, "Link carries a limit that is not a positive integer",
                                actual=next_url)
        if "offset" in query:
            expected = (_integer(_query(url).get("offset", "0")) or 0) + count
            offset = _integer(query["offset"])
            if offset != expected:
                what = "skips" if offset is not None and offset > expected else "repeats or garbles"
                raise PeerViolation(PaginationRules.complete, f"Link {what} objects: next offset should be {expected}",
                                    expected=expected, actual=query["offset"])
        if next_url in self._visited:
            raise PeerViolation(PaginationRules.complete, "Link points back to a page already fetched", actual=next_url)
        return next_url
