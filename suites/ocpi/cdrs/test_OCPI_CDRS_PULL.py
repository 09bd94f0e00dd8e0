"""OCPI_CDRS_PULL — the eMSP pulls the CPO's CDRs with GET (cdrs 2.2.1, Sender interface, pull model;
``CdrRules`` in harness/ocpi/cdrs.py, ``PaginationRules`` in harness/ocpi/pagination.py).

The harness, as an eMSP back from an outage or one that does not take pushes, walks the CPO's list
page by page: every page holds valid CDRs, the Link chain ends on the last page and repeats the
filters, X-Total-Count and X-Limit are there and hold; date_from (inclusive) and date_to (exclusive)
filter on last_updated, which for a CDR is the moment it was made. A CDR the CPO posted to the harness
is in the list as posted (a finding otherwise: the CPO may list only what it deems relevant), its
Credit CDR too.
"""

import pytest

from harness.arena.ocpi import check_answer
from harness.errors import NotApplicable
from harness.ocpi.cdrs import CDRS, CdrRules as Cdr
from harness.ocpi.envelope import StatusCode
from harness.ocpi.pagination import PaginationRules as Pages, object_key
from harness.roles import CPO
from harness.suite import OCPI, case, checks
from harness.usecases import ocpi_cdrs as cdrs
from harness.usecases import ocpi_credentials as creds
from harness.usecases import ocpi_locations as loc
from harness.verdict import check_equal, require

pytestmark = case("OCPI_CDRS_PULL", block="CDRs", roles=(CPO,), protocols=OCPI)

WALK = (Pages.limit_header, Pages.total_count, Pages.next_link, Pages.empty_link, Pages.link_filters, Pages.page_size,
        Pages.complete, Pages.stable_total, Pages.same_host, Cdr.listed)


@checks(*WALK)
async def test_pages_chain_completely(ocpi):
    """Small pages chain to the end and together hold the same CDRs as the server's own page size."""
    everything = await cdrs.sut_cdrs(ocpi)
    if len(everything) < 2:
        raise NotApplicable("the CPO lists fewer than two CDRs: nothing to paginate")
    paged = await cdrs.listing(ocpi, limit=max(1, len(everything) // 2))
    require(paged.pages >= 2, Pages.page_size, "a limit below the total still gave one page",
            expected=">= 2 pages", actual=paged.pages)
    check_equal(Pages.complete, "CDRs over the pages", sorted(object_key(c) for c in everything),
                sorted(object_key(c) for c in paged.items))


@pytest.mark.parametrize("bound", ["date_from", "date_to"])
@checks(*WALK, Pages.date_filters)
async def test_date_filter_on_last_updated(ocpi, bound):
    """date_from keeps the CDRs whose last_updated is at or after it (inclusive), date_to those before it
    (exclusive); a CDR's last_updated is when it was made."""
    await loc.check_date_filter(ocpi, await cdrs.sut_cdrs(ocpi), bound, listing=cdrs.LISTING)


@checks(Cdr.listed, Cdr.dates_ordered, Cdr.session_only_dimensions, Cdr.total_time, Cdr.energy_consistent,
        Cdr.costs, Cdr.credit_negated, Cdr.credit_reference, *WALK)
async def test_listed_cdrs_are_consistent(ocpi):
    """Every CDR of the list stands on its own: ChargingPeriods in order, no Session Only dimension,
    total_time, total_energy, its Tariffs and costs, and a Credit CDR credits a CDR of the list."""
    listed = await cdrs.sut_cdrs(ocpi)
    if not listed:
        raise NotApplicable("the CPO lists no CDR")
    for cdr in listed:
        cdrs.judge(cdr)
    cdrs.credits_in(listed)


@checks(Cdr.listed_pushed, Cdr.listed, Cdr.posted, *WALK)
async def test_posted_cdr_and_its_credit_are_listed(ocpi):
    """A CDR the CPO posted to the harness is in its list from its last_updated on, as posted, and so is
    its Credit CDR: the list is what an eMSP that missed the POSTs catches up with."""
    posted = await cdrs.sent_cdr(ocpi)
    held = await cdrs.held_by_sut(ocpi, posted)
    if held is not None:
        cdrs.check_held(ocpi, posted.cdr, held)
    credit = await cdrs.credit(ocpi, posted)
    held = await cdrs.held_by_sut(ocpi, credit)
    if held is not None:
        cdrs.check_held(ocpi, credit.cdr, held)


@checks(Pages.query)
async def test_bad_date_from_gets_2001(ocpi):
    """``date_from=yesterday`` is no DateTime: answered in an envelope with status 2001."""
    await creds.registered(ocpi)
    answer = await loc.get(ocpi, f"{ocpi.sut_url(CDRS)}?date_from=yesterday", CDRS)
    check_answer(answer, Pages.query, "a GET with date_from=yesterday", status_code=StatusCode.INVALID_PARAMETERS)
