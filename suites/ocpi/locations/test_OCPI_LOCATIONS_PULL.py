"""OCPI_LOCATIONS_PULL — the Sender's Location list and objects (locations 2.3.0, Sender
interface; ``LocationRules`` in harness/ocpi/locations.py, ``PaginationRules`` in
harness/ocpi/pagination.py).

The harness, as the eMSP, walks the CPO's list page by page: every page holds valid Locations,
the Link chain ends on the last page and repeats the filters, X-Total-Count stays the same and
matches what came, nothing is lost or repeated; date_from (inclusive) and date_to (exclusive)
filter on last_updated; one Location, EVSE or Connector can be fetched by its ids.
"""

import secrets

import pytest

from harness.cistring import id_key, same_id
from harness.errors import NotApplicable
from harness.ocpi.envelope import StatusCode
from harness.ocpi.locations import LOCATIONS, LocationRules
from harness.ocpi.pagination import PaginationRules as Pages, object_key
from harness.arena.ocpi import check_answer
from harness.roles import CPO
from harness.rules import RuleTable, must
from harness.suite import OCPI, case, checks
from harness.usecases import ocpi_credentials as creds
from harness.usecases import ocpi_locations as loc
from harness.verdict import check_equal, require


class OCPI_LOCATIONS_PULL(RuleTable):
    """What the pull use case judges beyond the rows of ``LocationRules`` and ``PaginationRules``."""
    lists_declared = must("spec 000 Locations module, Sender interface GET list; profile [[ocpi.locations]]",
                          "the Sender's list holds the Locations its profile declares")


pytestmark = case("OCPI_LOCATIONS_PULL", block="Locations", roles=(CPO,), protocols=OCPI)

WALK = (Pages.limit_header, Pages.total_count, Pages.next_link, Pages.empty_link, Pages.link_filters, Pages.page_size,
        Pages.complete, Pages.stable_total, Pages.same_host, LocationRules.listed)


async def _everything(ocpi) -> list[dict]:
    await creds.registered(ocpi)
    return (await loc.walk(ocpi)).items


def _keys(items) -> list:
    return sorted(object_key(item) for item in items)


@checks(*WALK, OCPI_LOCATIONS_PULL.lists_declared)
async def test_pages_chain_completely(ocpi, profile):
    """Small pages chain to the end and together hold the same Locations as the server's own page
    size, the profile's Locations among them."""
    everything = await _everything(ocpi)
    if len(everything) < 2:
        raise NotApplicable("the SUT serves fewer than two Locations: nothing to paginate")
    paged = await loc.walk(ocpi, limit=max(1, len(everything) // 2))
    require(paged.pages >= 2, Pages.page_size, "a limit below the total still gave one page",
            expected=">= 2 pages", actual=paged.pages)
    check_equal(Pages.complete, "Locations over the pages", _keys(everything), _keys(paged.items))
    listed = {id_key(item["id"]) for item in everything}
    declared = [entry["id"] for entry in profile.get("ocpi.locations", [])]
    missing = [location_id for location_id in declared if id_key(location_id) not in listed]
    require(not missing, OCPI_LOCATIONS_PULL.lists_declared, "Locations the profile declares are not listed",
            expected=declared, actual=missing)


@pytest.mark.parametrize("bound", ["date_from", "date_to"])
@checks(*WALK, Pages.date_filters)
async def test_date_filter_on_last_updated(ocpi, bound):
    """date_from keeps last_updated >= it (inclusive), date_to keeps last_updated < it."""
    await loc.check_date_filter(ocpi, await _everything(ocpi), bound)


@checks(LocationRules.object_by_ids)
async def test_object_get_returns_one_location_evse_connector(ocpi):
    """A Location, an EVSE and a Connector, each fetched by its ids, is that very object."""
    everything = await _everything(ocpi)
    location = next((item for item in everything if item.get("evses")), None)
    if location is None:
        raise NotApplicable("the SUT lists no Location with an EVSE")
    evse = location["evses"][0]
    connector = evse["connectors"][0]
    for ids, field in (((location["id"],), "id"), ((location["id"], evse["uid"]), "uid"),
                       ((location["id"], evse["uid"], connector["id"]), "id")):
        found = await loc.sut_object(ocpi, ids)
        check_equal(LocationRules.object_by_ids, f"{field} of GET {'/'.join(ids)}", ids[-1],
                    found.get(field), same=same_id)


@checks(LocationRules.object_by_ids, LocationRules.not_found)
async def test_unknown_location_is_not_found(ocpi):
    """A Location the CPO does not have is not answered with success (2003; HTTP 404 advised)."""
    await creds.registered(ocpi)
    answer = await loc.get(ocpi, ocpi.sut_url(LOCATIONS, f"NO-SUCH-LOCATION-{secrets.token_hex(4).upper()}"))
    check_answer(answer, LocationRules.object_by_ids, "an unknown Location", success=False,
                 status_code=StatusCode.UNKNOWN_LOCATION)
    check_answer(answer, LocationRules.not_found, "a GET of an unknown Location", http_status=404)


@checks(Pages.query)
async def test_bad_pagination_parameter_gets_2001(ocpi):
    """``limit=abc`` is answered in an envelope with status 2001, not a framework error."""
    await creds.registered(ocpi)
    answer = await loc.get(ocpi, f"{ocpi.sut_url(LOCATIONS)}?limit=abc")
    check_answer(answer, Pages.query, "a GET with limit=abc", status_code=StatusCode.INVALID_PARAMETERS)
