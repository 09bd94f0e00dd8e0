"""OCPI_TARIFFS_FETCH — the eMSP pulls the CPO's Tariffs (tariffs 2.2.1, pull model §11.1.2, Sender
interface GET).

Asked by the actuator (``fetch_tariffs``), the eMSP under test GETs the harness CPO's Tariff list — the
only thing the CPO's Sender interface offers in 2.2.1, no object GET — and follows the Link of every
page to the last: the harness serves pages of two. What it pulled it then holds as listed: the harness,
as the CPO, validates each Tariff with a GET on the eMSP's Receiver.
"""

from urllib.parse import parse_qsl, urlsplit

from harness.ocpi.pagination import PaginationRules as Pages
from harness.ocpi.tariffs import TARIFFS, TariffRules as Tar
from harness.roles import EMSP
from harness.suite import OCPI, case, checks
from harness.usecases import ocpi_credentials as creds
from harness.usecases import ocpi_tariffs as tar
from harness.verdict import check_equal, require

pytestmark = case("OCPI_TARIFFS_FETCH", block="Tariffs", roles=(EMSP,), protocols=OCPI)

PAGE = 2


def _offset(url: str) -> int:
    """The offset a GET asked for (0 when none, -1 when it is no number)."""
    value = dict(parse_qsl(urlsplit(url).query)).get("offset", "0")
    return int(value) if value.isdigit() else -1


async def _fetched(ocpi) -> tuple[int, list]:
    """The eMSP pulled every page: (the number of Tariffs, the GETs it sent)."""
    await creds.registered(ocpi)
    ocpi.configure(page_limit=PAGE)
    total = len(ocpi.harness_peer.objects(TARIFFS))
    last = PAGE * ((total - 1) // PAGE)
    start = ocpi.mark()
    await ocpi.act(EMSP, "fetch_tariffs")
    await ocpi.expect_request("GET", TARIFFS, after=start, rule=Tar.pulled_by_list,
                              where=lambda served: _offset(served.exchange.url) == last,
                              what=f"the GET of the last page (offset {last} of {total} Tariffs)")
    return total, [s for s in ocpi.requests_since(start) if s.module == TARIFFS]


@checks(Tar.pulled_by_list, Pages.query)
async def test_tariffs_are_pulled_from_the_list_page_by_page(ocpi):
    """The eMSP GETs the list endpoint (no object URL: the 2.2.1 Sender has none) and follows the Links
    through every page."""
    total, requests = await _fetched(ocpi)
    for served in requests:
        check_equal(Tar.pulled_by_list, f"the method of {served.exchange.url}", "GET", served.method)
        require(served.exchange.status < 400, Tar.pulled_by_list, "the eMSP asked for something the CPO's "
                "Sender does not offer", expected="the list endpoint", actual=served.exchange.url)
    offsets = sorted({_offset(s.exchange.url) for s in requests})
    check_equal(Tar.pulled_by_list, "the pages fetched (offsets)", list(range(0, total, PAGE)), offsets)


@checks(Tar.pulled_kept, Tar.stored)
async def test_pulled_tariffs_are_held_as_listed(ocpi):
    """Every Tariff the eMSP pulled is then held by it as the CPO lists it (a GET on its Receiver)."""
    await _fetched(ocpi)
    for tariff in ocpi.harness_peer.objects(TARIFFS):
        held = await tar.held_by_sut(ocpi, tariff)
        require(held is not None, Tar.pulled_kept, f"the eMSP does not hold the pulled Tariff {tariff['id']}",
                expected=tariff["id"], actual=None)
        for field in ("currency", "elements"):
            if not tar.same(tariff.get(field), held.get(field)):
                check_equal(Tar.pulled_kept, f"{field} of the pulled Tariff {tariff['id']}", tariff.get(field),
                            held.get(field))
