"""OCPI_LOCATIONS_PULL — the Sender's Location list and objects (locations 2.3.0, Sender
interface; L1-L2 in harness/reference/ocpi/locations.py, P1-P8 in harness/ocpi/pagination.py).

The harness, as the eMSP, walks the CPO's list page by page: every page holds valid Locations,
the Link chain ends on the last page and repeats the filters, X-Total-Count stays the same and
matches what came, nothing is lost or repeated; date_from (inclusive) and date_to (exclusive)
filter on last_updated; one Location, EVSE or Connector can be fetched by its ids.
"""

import secrets

import pytest

from harness.errors import NotApplicable
from harness.ocpi.envelope import StatusCode
from harness.ocpi.pagination import object_key
from harness.ocpi_arena import CPO
from harness.reference.ocpi.peer import LOCATIONS
from harness.suite import OCPI, case
from harness.usecases import ocpi_credentials as creds
from harness.usecases.ocpi_locations import last_updated, sut_locations_url, sut_object, sut_object_url, walk
from harness.verdict import check_equal, finding, require

pytestmark = case("OCPI_LOCATIONS_PULL", block="Locations", roles=(CPO,), protocols=OCPI)


async def _everything(ocpi) -> list[dict]:
    await creds.register(ocpi, ocpi.harness_role)
    return (await walk(ocpi)).items


def _keys(items) -> list:
    return sorted(object_key(item) for item in items)


async def test_pages_chain_completely(ocpi, profile):
    """P2-P8, L1: small pages chain to the end and together hold the same Locations as the
    server's own page size, the profile's Locations among them."""
    everything = await _everything(ocpi)
    if len(everything) < 2:
        raise NotApplicable("the SUT serves fewer than two Locations: nothing to paginate")
    paged = await walk(ocpi, limit=max(1, len(everything) // 2))
    require(paged.pages >= 2, "P5", "a limit below the total still gave one page",
            expected=">= 2 pages", actual=paged.pages)
    check_equal("P6: the pages hold every Location once", "Locations over the pages", _keys(everything),
                _keys(paged.items))
    listed = {str(item["id"]).lower() for item in everything}
    declared = [entry["id"] for entry in profile.get("ocpi.locations", [])]
    missing = [location_id for location_id in declared if location_id.lower() not in listed]
    require(not missing, "L1: the Sender lists its Locations", "Locations the profile declares are not listed",
            expected=declared, actual=missing)


@pytest.mark.parametrize("bound", ["date_from", "date_to"])
async def test_date_filter_on_last_updated(ocpi, bound):
    """L1: date_from keeps last_updated >= it (inclusive), date_to keeps last_updated < it."""
    everything = await _everything(ocpi)
    stamps = sorted({last_updated(item) for item in everything})
    if len(stamps) < 2:
        raise NotApplicable("the SUT's Locations share one last_updated: no filter can split them")
    pivot = stamps[len(stamps) // 2]
    text = next(item["last_updated"] for item in everything if last_updated(item) == pivot)
    keep = (lambda stamp: stamp >= pivot) if bound == "date_from" else (lambda stamp: stamp < pivot)
    expected = [item for item in everything if keep(last_updated(item))]
    filtered = await walk(ocpi, **{bound: text, "limit": 1})
    check_equal(f"L1: {bound} is {'inclusive' if bound == 'date_from' else 'exclusive'} on last_updated",
                f"Locations listed with {bound}={text}", _keys(expected), _keys(filtered.items))


async def test_object_get_returns_one_location_evse_connector(ocpi):
    """L2: a Location, an EVSE and a Connector, each fetched by its ids, is that very object."""
    everything = await _everything(ocpi)
    location = next((item for item in everything if item.get("evses")), None)
    if location is None:
        raise NotApplicable("the SUT lists no Location with an EVSE")
    evse = location["evses"][0]
    connector = evse["connectors"][0]
    for ids, field in (((location["id"],), "id"), ((location["id"], evse["uid"]), "uid"),
                       ((location["id"], evse["uid"], connector["id"]), "id")):
        found = await sut_object(ocpi, ids, "L2")
        check_equal("L2: GET by id answers that object", f"{field} of GET {'/'.join(ids)}",
                    ids[-1].lower(), str(found.get(field)).lower())


async def test_unknown_location_is_not_found(ocpi):
    """L2: a Location the CPO does not have is not answered with success (2003; HTTP 404 advised)."""
    await creds.register(ocpi, ocpi.harness_role)
    url = sut_object_url(ocpi, (f"NO-SUCH-LOCATION-{secrets.token_hex(4).upper()}",))
    answer = await ocpi.harness.send("GET", url, token=ocpi.harness.peer_token, module=LOCATIONS)
    body = answer.json() if isinstance(answer.json(), dict) else {}
    code = body.get("status_code")
    require(not (200 <= answer.status <= 299 and isinstance(code, int) and 1000 <= code <= 1999), "L2",
            "an unknown Location was answered with success", expected="status_code 2003",
            actual=f"HTTP {answer.status}, status_code {code}")
    check_equal("L2: unknown Location → 2003", "status_code", StatusCode.UNKNOWN_LOCATION.value, code)
    if answer.status != 404:
        finding("L2", f"a GET of an unknown Location should get HTTP 404, got HTTP {answer.status}")


async def test_bad_pagination_parameter_gets_2001(ocpi):
    """P1: ``limit=abc`` is answered in an envelope with status 2001, not a framework error."""
    await creds.register(ocpi, ocpi.harness_role)
    answer = await ocpi.harness.send("GET", f"{sut_locations_url(ocpi)}?limit=abc", token=ocpi.harness.peer_token,
                                     module=LOCATIONS)
    body = answer.json()
    check_equal("P1: a bad pagination parameter → 2001", f"status_code (HTTP {answer.status})",
                StatusCode.INVALID_PARAMETERS.value, body.get("status_code") if isinstance(body, dict) else None)
