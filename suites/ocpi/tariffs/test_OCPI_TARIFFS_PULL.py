"""OCPI_TARIFFS_PULL — the eMSP pulls the CPO's Tariffs with GET (tariffs 2.2.1, Sender interface, pull
model; ``TariffRules`` in harness/ocpi/tariffs.py, ``PaginationRules`` in harness/ocpi/pagination.py).

The harness, as an eMSP that does not take pushes or is unsure of its cache, walks the CPO's list page
by page: every page holds valid Tariffs (at least one element, each with a price component, ISO-4217
currency, restriction grammars), the Link chain ends on the last page and repeats the filters,
X-Total-Count and X-Limit are there and hold; date_from (inclusive) and date_to (exclusive) filter on
last_updated. The Sender interface of 2.2.1 is the list only: there is no object GET to judge.
"""

from harness.arena.ocpi import check_answer
from harness.errors import NotApplicable
from harness.ocpi.envelope import StatusCode
from harness.ocpi.pagination import PaginationRules as Pages, object_key
from harness.ocpi.tariffs import TARIFFS, TariffRules as Tar, advice, problems
from harness.roles import CPO
from harness.suite import OCPI, case, checks
from harness.usecases import ocpi_credentials as creds
from harness.usecases import ocpi_locations as loc
from harness.usecases import ocpi_tariffs as tar
from harness.verdict import check_equal, require, violated

pytestmark = case("OCPI_TARIFFS_PULL", block="Tariffs", roles=(CPO,), protocols=OCPI)

WALK = (Pages.limit_header, Pages.total_count, Pages.next_link, Pages.empty_link, Pages.link_filters, Pages.page_size,
        Pages.complete, Pages.stable_total, Pages.same_host, Tar.listed)


def _keys(items) -> list:
    return sorted(object_key(item) for item in items)


@checks(*WALK)
async def test_pages_chain_completely(ocpi):
    """Small pages chain to the end and together hold the same Tariffs as the server's own page size."""
    everything = await tar.sut_tariffs(ocpi)
    if len(everything) < 2:
        raise NotApplicable("the CPO lists fewer than two Tariffs: nothing to paginate")
    paged = await tar.listing(ocpi, limit=max(1, len(everything) // 2))
    require(paged.pages >= 2, Pages.page_size, "a limit below the total still gave one page",
            expected=">= 2 pages", actual=paged.pages)
    check_equal(Pages.complete, "Tariffs over the pages", _keys(everything), _keys(paged.items))


@checks(*WALK, Pages.date_filters)
async def test_date_from_filter_on_last_updated(ocpi):
    """date_from keeps the Tariffs whose last_updated is at or after it (inclusive)."""
    await loc.check_date_filter(ocpi, await tar.sut_tariffs(ocpi), "date_from", listing=tar.LISTING)


@checks(*WALK, Pages.date_filters)
async def test_date_to_filter_on_last_updated(ocpi):
    """date_to keeps the Tariffs whose last_updated is before it (exclusive)."""
    await loc.check_date_filter(ocpi, await tar.sut_tariffs(ocpi), "date_to", listing=tar.LISTING)


@checks(Tar.listed, Tar.elements, Tar.price_components, Tar.currency, Tar.restriction_times,
        Tar.reservation_dimensions, Tar.fallback_element)
async def test_listed_tariffs_are_well_formed(ocpi):
    """Every listed Tariff holds at least one element, each with at least one PriceComponent, an
    ISO-4217 currency, restriction times and dates in the text's grammars, a reservation priced only by
    FLAT and TIME; the advice of a last unrestricted element per dimension is judged as a finding."""
    listed = await tar.sut_tariffs(ocpi)
    if not listed:
        raise NotApplicable("the CPO lists no Tariff")
    for tariff in listed:
        for row, why in problems(tariff):
            violated(row, f"Tariff {tariff.get('id')}: {why}", expected="a Tariff as 2.2.1 §11.3 defines it",
                     actual=tariff.get("elements"))
    for tariff in listed:
        for row, why in advice(tariff):
            violated(row, f"Tariff {tariff.get('id')}: {why}", expected="the text's advice",
                     actual=tariff.get("elements"))


@checks(Pages.query)
async def test_bad_date_from_gets_2001(ocpi):
    """``date_from=yesterday`` is no DateTime: answered in an envelope with status 2001."""
    await creds.registered(ocpi)
    answer = await loc.get(ocpi, f"{ocpi.sut_url(TARIFFS)}?date_from=yesterday", TARIFFS)
    check_answer(answer, Pages.query, "a GET with date_from=yesterday", status_code=StatusCode.INVALID_PARAMETERS)
