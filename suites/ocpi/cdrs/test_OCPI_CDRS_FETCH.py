"""OCPI_CDRS_FETCH — the eMSP pulls the CDRs it missed (cdrs 2.2.1, Sender interface GET; §10.1.4 pull
model).

Asked to catch up (the actuator: ``fetch_cdrs``, with the moment it lost contact or none), the eMSP
under test GETs the harness CPO's CDR list — with that date_from when it was given one — and follows
the Link of every page to the last: the harness serves pages of two, so its CDRs take several pages.
"""

from urllib.parse import parse_qsl, urlsplit

from harness.ocpi.cdrs import CDRS
from harness.ocpi.pagination import PaginationRules as Pages
from harness.ocpi.timestamps import parse_datetime
from harness.roles import EMSP
from harness.rules import RuleTable, must
from harness.suite import OCPI, case, checks
from harness.usecases import ocpi_credentials as creds
from harness.verdict import check_equal

_PULL = "OCPI 2.2.1 §10.1.3 Pull model; §10.2.1 Sender interface GET"


class OCPI_CDRS_FETCH(RuleTable):
    """What the eMSP's pull is judged by."""
    date_from = must(f"{_PULL} (date_from: only CDRs last updated at or after it) -- MUST (definition)", "the eMSP "
                     "asked to catch up from a moment GETs the list with that date_from", by="emsp")
    every_page = must(f"{_PULL}; OCPI 2.2.1 transport and format, GET, Pagination (the Link header when more "
                      "pages follow) -- MUST (definition)",
                      "the eMSP follows the Link of every page to the last: it fetches every page",
                      by="emsp")


pytestmark = case("OCPI_CDRS_FETCH", block="CDRs", roles=(EMSP,), protocols=OCPI)

PAGE = 2


def _queries(ocpi, start) -> list[dict[str, str]]:
    return [dict(parse_qsl(urlsplit(s.exchange.url).query)) for s in ocpi.requests_since(start)
            if s.method == "GET" and s.module == CDRS]


async def _fetched(ocpi, **body) -> list[dict[str, str]]:
    """The eMSP under test asked to fetch (``body``), every page awaited: the query of each GET it sent."""
    await creds.registered(ocpi)
    ocpi.configure(page_limit=PAGE)
    total = len(ocpi.harness_peer.objects(CDRS))
    last = PAGE * ((total - 1) // PAGE)
    start = ocpi.mark()
    await ocpi.act(EMSP, "fetch_cdrs", **body)
    await ocpi.expect_request("GET", CDRS, after=start, rule=OCPI_CDRS_FETCH.every_page,
                              where=lambda served: dict(parse_qsl(urlsplit(served.exchange.url).query)).get(
                                  "offset", "0") == str(last),
                              what=f"the GET of the last page (offset {last} of {total} CDRs)")
    gets = _queries(ocpi, start)
    check_equal(OCPI_CDRS_FETCH.every_page, "the pages fetched (offsets)", list(range(0, total, PAGE)),
                sorted({int(query.get("offset", "0")) for query in gets}))
    return gets


@checks(OCPI_CDRS_FETCH.every_page, Pages.query)
async def test_whole_list_is_fetched_page_by_page(ocpi):
    """Asked for every CDR, the eMSP GETs the list and follows the Links through every page."""
    await _fetched(ocpi)


@checks(OCPI_CDRS_FETCH.date_from, OCPI_CDRS_FETCH.every_page, Pages.query)
async def test_missed_cdrs_are_fetched_from_a_date(ocpi):
    """Asked to catch up from a moment before every CDR, the eMSP GETs the list with that date_from on
    every page."""
    since = "2024-01-01T00:00:00Z"
    for query in await _fetched(ocpi, date_from=since):
        check_equal(OCPI_CDRS_FETCH.date_from, "date_from of the GET", parse_datetime(since),
                    parse_datetime(query["date_from"]) if "date_from" in query else None)
