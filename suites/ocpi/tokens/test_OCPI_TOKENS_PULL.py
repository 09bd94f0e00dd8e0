"""OCPI_TOKENS_PULL — the CPO pulls the eMSP's Tokens with GET (tokens 2.2.1, Sender interface, pull
model; ``TokenRules`` in harness/ocpi/tokens.py, ``PaginationRules`` in harness/ocpi/pagination.py).

The harness, as a CPO starting up or unsure of its cache, walks the eMSP's list page by page: every
page holds valid Tokens, the Link chain ends on the last page and repeats the filters, X-Total-Count and
X-Limit are there and hold; date_from (inclusive) and date_to (exclusive) filter on last_updated; a Token
the eMSP pushed, and a later change of it, is in the list as pushed.
"""

from harness.arena.ocpi import check_answer
from harness.errors import NotApplicable
from harness.ocpi.envelope import StatusCode
from harness.ocpi.pagination import PaginationRules as Pages, object_key
from harness.ocpi.tokens import RFID, TOKENS, TokenRules as Tok
from harness.roles import EMSP
from harness.suite import OCPI, case, checks
from harness.usecases import ocpi_credentials as creds
from harness.usecases import ocpi_locations as loc
from harness.usecases import ocpi_tokens as tok
from harness.verdict import check_equal, require

pytestmark = case("OCPI_TOKENS_PULL", block="Tokens", roles=(EMSP,), protocols=OCPI)

WALK = (Pages.limit_header, Pages.total_count, Pages.next_link, Pages.empty_link, Pages.link_filters, Pages.page_size,
        Pages.complete, Pages.stable_total, Pages.same_host, Tok.listed)


def _keys(items) -> list:
    return sorted(object_key(item) for item in items)


@checks(*WALK)
async def test_pages_chain_completely(ocpi):
    """Small pages chain to the end and together hold the same Tokens as the server's own page size."""
    everything = await tok.sut_tokens(ocpi)
    if len(everything) < 2:
        raise NotApplicable("the eMSP lists fewer than two Tokens: nothing to paginate")
    paged = await tok.listing(ocpi, limit=max(1, len(everything) // 2))
    require(paged.pages >= 2, Pages.page_size, "a limit below the total still gave one page",
            expected=">= 2 pages", actual=paged.pages)
    check_equal(Pages.complete, "Tokens over the pages", _keys(everything), _keys(paged.items))


@checks(*WALK, Pages.date_filters)
async def test_date_from_filter_on_last_updated(ocpi):
    """date_from keeps the Tokens whose last_updated is at or after it (inclusive)."""
    await loc.check_date_filter(ocpi, await tok.sut_tokens(ocpi), "date_from", listing=tok.LISTING)


@checks(*WALK, Pages.date_filters)
async def test_date_to_filter_on_last_updated(ocpi):
    """date_to keeps the Tokens whose last_updated is before it (exclusive)."""
    await loc.check_date_filter(ocpi, await tok.sut_tokens(ocpi), "date_to", listing=tok.LISTING)


@checks(Tok.listed, Tok.listed_as_pushed, Tok.pushed, *WALK)
async def test_pushed_token_and_its_change_are_listed(ocpi):
    """A Token the eMSP issued and pushed is in its list from its last_updated on, and so is its later
    invalidation (listed with valid false, or left out of a list of valid Tokens only): the list is what a
    CPO that missed the pushes syncs with."""
    await creds.registered(ocpi)
    sent = await tok.issue(ocpi, type=RFID)
    held = await tok.held_by_sut(ocpi, sent)
    check_equal(Tok.listed_as_pushed, "whitelist of the listed Token", sent["whitelist"], held.get("whitelist"))
    patch = await tok.change(ocpi, sent["uid"], RFID, valid=False)
    held = await tok.held_unless_dropped(ocpi, {**sent, "last_updated": patch["last_updated"]})
    if held is not None:   # listed still, then as invalid (left out is the other legal reading)
        check_equal(Tok.listed_as_pushed, "valid of the listed Token after the PATCH", False, held.get("valid"))


@checks(Pages.query)
async def test_bad_date_from_gets_2001(ocpi):
    """``date_from=yesterday`` is no DateTime: answered in an envelope with status 2001."""
    await creds.registered(ocpi)
    answer = await loc.get(ocpi, f"{ocpi.sut_url(TOKENS)}?date_from=yesterday", TOKENS)
    check_answer(answer, Pages.query, "a GET with date_from=yesterday", status_code=StatusCode.INVALID_PARAMETERS)
