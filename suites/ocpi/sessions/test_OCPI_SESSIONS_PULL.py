"""OCPI_SESSIONS_PULL — the eMSP pulls the CPO's Sessions with GET (sessions 2.2.1, Sender
interface; ``SessionRules`` in harness/ocpi/sessions.py, ``PaginationRules`` in
harness/ocpi/pagination.py).

The harness, as an eMSP without push support or back from an outage, walks the CPO's list page
by page (date_from is required on this list): every page holds valid Sessions, the Link chain
ends on the last page and repeats the filters, X-Total-Count and X-Limit are there and hold;
date_from (inclusive) and date_to (exclusive) filter on last_updated; a Session started while
the eMSP was away is in the list from date_from on, and a COMPLETED one stays there.
"""

import pytest

from harness.cistring import same_id
from harness.errors import NotApplicable
from harness.ocpi.envelope import StatusCode
from harness.ocpi.pagination import PaginationRules as Pages, object_key
from harness.ocpi.sessions import COMPLETED, SESSIONS, SessionRules as Ses
from harness.arena.ocpi import check_answer
from harness.roles import CPO
from harness.suite import OCPI, case, checks
from harness.usecases import ocpi_credentials as creds
from harness.usecases import ocpi_locations as loc
from harness.usecases import ocpi_sessions as ses
from harness.verdict import check_equal, require

pytestmark = case("OCPI_SESSIONS_PULL", block="Sessions", roles=(CPO,), protocols=OCPI)

WALK = (Pages.limit_header, Pages.total_count, Pages.next_link, Pages.empty_link, Pages.link_filters, Pages.page_size,
        Pages.complete, Pages.stable_total, Pages.same_host, Ses.listed)
EPOCH = "2000-01-01T00:00:00Z"   # date_from is required: this one keeps every Session


async def _everything(ocpi) -> list[dict]:
    await creds.registered(ocpi)
    return (await ses.listing(ocpi, date_from=EPOCH)).items


def _keys(items) -> list:
    return sorted(object_key(item) for item in items)


@pytest.mark.parametrize("ocpi", ["in_process", "sockets"], indirect=True)
@checks(*WALK)
async def test_pages_chain_completely(ocpi):
    """Small pages chain to the end and together hold the same Sessions as the server's own page size."""
    everything = await _everything(ocpi)
    if len(everything) < 2:
        raise NotApplicable("the SUT lists fewer than two Sessions: nothing to paginate")
    paged = await ses.listing(ocpi, date_from=EPOCH, limit=max(1, len(everything) // 2))
    require(paged.pages >= 2, Pages.page_size, "a limit below the total still gave one page",
            expected=">= 2 pages", actual=paged.pages)
    check_equal(Pages.complete, "Sessions over the pages", _keys(everything), _keys(paged.items))


@pytest.mark.parametrize("bound", ["date_from", "date_to"])
@checks(*WALK, Pages.date_filters)
async def test_date_filter_on_last_updated(ocpi, bound):
    """date_from keeps last_updated >= it (inclusive), date_to keeps last_updated < it (exclusive)."""
    fixed = {} if bound == "date_from" else {"date_from": EPOCH}   # date_from is required on this list
    await loc.check_date_filter(ocpi, await _everything(ocpi), bound, listing=ses.LISTING, **fixed)


@checks(Ses.listed, Ses.pushed, *WALK)
async def test_session_missed_while_away_is_fetched(ocpi):
    """A Session started while the eMSP was away (its push aside) is in the list from date_from on:
    the eMSP fetches what it missed."""
    await creds.registered(ocpi)
    sent = await ses.start(ocpi)
    held = await ses.held_by_sut(ocpi, sent)
    check_equal(Ses.listed, "status of the fetched Session", sent["status"], held["status"])


@checks(Ses.still_listed, Ses.listed, *WALK)
async def test_completed_session_stays_listed(ocpi):
    """Sessions are never deleted: a stopped Session is still listed, COMPLETED."""
    await creds.registered(ocpi)
    sent = await ses.start(ocpi)
    stopped = await ses.stop(ocpi, sent["id"])
    listed = (await ses.listing(ocpi, date_from=sent["last_updated"])).items
    found = next((s for s in listed if same_id(s.get("id"), sent["id"])), None)
    require(found is not None, Ses.still_listed, "the COMPLETED Session is gone from the list", expected=sent["id"],
            actual=[s.get("id") for s in listed])
    check_equal(Ses.still_listed, "status of the listed Session", COMPLETED, found["status"])
    check_equal(Ses.still_listed, "end_date_time", stopped.get("end_date_time"), found.get("end_date_time"))


@checks(Pages.query)
async def test_bad_date_from_gets_2001(ocpi):
    """``date_from=yesterday`` is no DateTime: answered in an envelope with status 2001."""
    await creds.registered(ocpi)
    answer = await loc.get(ocpi, f"{ocpi.sut_url(SESSIONS)}?date_from=yesterday", SESSIONS)
    check_answer(answer, Pages.query, "a GET with date_from=yesterday", status_code=StatusCode.INVALID_PARAMETERS)
