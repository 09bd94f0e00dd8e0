"""OCPI_SESSIONS_FETCH — the eMSP fetches the Sessions it missed (sessions 2.2.1, Sender
interface GET; spec 000 Operating rules for Sessions 3).

Back from an outage (the actuator: ``fetch_sessions`` with the moment it lost contact), the eMSP
under test GETs the harness CPO's Session list from that date_from on — date_from is required on
this list — and follows the Link of every page to the last: the harness serves pages of two, so
its Sessions take several pages. Across all pages the result is the new truth; an eMSP that stops
early keeps a stale view.
"""

from urllib.parse import parse_qsl, urlsplit

from harness.ocpi.pagination import PaginationRules as Pages
from harness.ocpi.sessions import SESSIONS
from harness.ocpi.timestamps import parse_datetime
from harness.roles import EMSP
from harness.rules import RuleTable, must
from harness.suite import OCPI, case, checks
from harness.usecases import ocpi_credentials as creds
from harness.verdict import check_equal, require


class OCPI_SESSIONS_FETCH(RuleTable):
    """What the eMSP's fetch is judged by."""
    date_from = must("spec 000 Sessions module, Sender interface GET (date_from DateTime required)", "the eMSP's GET "
                     "of the Sender's Session list carries date_from, the DateTime it asked from", by="emsp")
    every_page = must("spec 000 Operating rules for Sessions 3; Endpoints, Pagination (across all pages the result "
                      "is the new truth); facts/ocpi-wire.md Pagination (the Link when more pages follow)",
                      "the eMSP follows the Link of every page to the last: it fetches every page", by="emsp")


pytestmark = case("OCPI_SESSIONS_FETCH", block="Sessions", roles=(EMSP,), protocols=OCPI)

PAGE = 2
SINCE = "2024-01-01T00:00:00Z"   # before every Session the harness's CPO holds


def _query(served) -> dict[str, str]:
    return dict(parse_qsl(urlsplit(served.exchange.url).query))


def _instant(text: str):
    """The moment ``text`` names, or the text itself when it is no DateTime (then it compares unequal)."""
    try:
        return parse_datetime(text)
    except ValueError:
        return text


@checks(OCPI_SESSIONS_FETCH.date_from, OCPI_SESSIONS_FETCH.every_page, Pages.query)
async def test_missed_sessions_are_fetched_page_by_page(ocpi):
    """Asked to catch up from a moment before every Session, the eMSP GETs the list with that
    date_from and follows the Links through every page."""
    await creds.registered(ocpi)
    ocpi.configure(page_limit=PAGE)
    total = len(ocpi.harness_peer.objects(SESSIONS))
    last = PAGE * ((total - 1) // PAGE)   # the offset of the last page
    start = ocpi.mark()
    await ocpi.act(EMSP, "fetch_sessions", date_from=SINCE)
    await ocpi.expect_request("GET", SESSIONS, after=start, rule=OCPI_SESSIONS_FETCH.every_page,
                              where=lambda served: _query(served).get("offset", "0") == str(last),
                              what=f"the GET of the last page (offset {last} of {total} Sessions)")
    gets = [_query(s) for s in ocpi.requests_since(start) if s.method == "GET" and s.module == SESSIONS]
    for query in gets:
        require("date_from" in query, OCPI_SESSIONS_FETCH.date_from, "the GET carries no date_from",
                expected="date_from", actual=query)
        check_equal(OCPI_SESSIONS_FETCH.date_from, "date_from", parse_datetime(SINCE), _instant(query["date_from"]))
    check_equal(OCPI_SESSIONS_FETCH.every_page, "the pages fetched (offsets)", list(range(0, total, PAGE)),
                sorted({int(query.get("offset", "0")) for query in gets}))
