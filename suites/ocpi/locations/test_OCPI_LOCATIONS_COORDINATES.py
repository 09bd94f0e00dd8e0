"""OCPI_LOCATIONS_COORDINATES — the coordinates format (locations 2.3.0; ``LocationRules`` in
harness/ocpi/locations.py).

Latitudes and longitudes are strings: decimal degrees (WGS 84) with a dot, an optional minus, 1-2
(latitude) or 1-3 (longitude) integer digits and 5 to 7 decimals. The schemas check the form of
every object; this use case judges the rule itself: a CPO under test serves only coordinates of
that form within WGS 84's range (latitude to 90, longitude to 180 degrees: the grammar alone lets
99.99999 through) on its Locations, their related locations and EVSEs; an eMSP under test is
pushed coordinates at the edges of the form (7 decimals, trailing zeros, a minus, three integer
digits) and must keep each string as sent — a Receiver that stores them as numbers rounds or trims
them.
"""

import copy
import secrets

import pytest

from harness.cistring import same_id
from harness.ocpi import schemas
from harness.ocpi.envelope import expect_success
from harness.ocpi.locations import LOCATIONS, LocationRules as Locs, coordinate_problems
from harness.arena.ocpi import check_answer
from harness.roles import CPO, EMSP
from harness.suite import OCPI, case, checks
from harness.usecases import ocpi_credentials as creds
from harness.usecases import ocpi_locations as loc
from harness.verdict import check_equal, require

pytestmark = case("OCPI_LOCATIONS_COORDINATES", block="Locations", roles=(CPO, EMSP), protocols=OCPI)


@pytest.mark.sut_roles(CPO)
@checks(Locs.coordinates, Locs.listed)
async def test_served_coordinates_are_decimal_degrees(ocpi):
    """Every coordinate of every Location the CPO lists is a decimal-degree string within WGS 84."""
    await creds.registered(ocpi)
    for location in (await loc.walk(ocpi)).items:
        problems = coordinate_problems(location)
        require(not problems, Locs.coordinates, f"Location {location.get('id')}: {'; '.join(problems)}",
                expected="decimal degrees such as 52.089444 and -5.1102780", actual=problems)


# at the edges of the form and of the lengths (latitude string(10), longitude string(11)): 7 decimals with a
# trailing zero, a minus, 3 integer digits; 5 decimals with trailing zeros
EDGES = {"latitude": "-8.1234560", "longitude": "-179.999990"}
EVSE_EDGES = {"latitude": "52.10000", "longitude": "5.1102781"}


@pytest.mark.sut_roles(EMSP)
@checks(Locs.coordinates, Locs.put, Locs.stored)
async def test_coordinates_are_kept_as_sent(ocpi, harness_cpo):
    """A Location whose coordinates, and its first EVSE's, sit at the edges of the form is held with
    each latitude and longitude string unchanged."""
    await creds.registered(ocpi)
    location = copy.deepcopy(harness_cpo.objects(LOCATIONS)[0])
    location.update(id=f"LOC-EDGE-{secrets.token_hex(3).upper()}", coordinates=dict(EDGES),
                    related_locations=[{**EVSE_EDGES}])
    location["evses"][0]["coordinates"] = dict(EVSE_EDGES)
    answer = await ocpi.exchange(CPO, "PUT", LOCATIONS, (location["id"],), location, rule=Locs.put)
    check_answer(answer, Locs.coordinates, "the PUT of a Location with coordinates at the edges of the form",
                 success=True)
    got = await loc.get(ocpi, ocpi.sut_url(LOCATIONS, location["id"]))
    held = expect_success(got.status, got.response_body)
    require(isinstance(held, dict), Locs.stored, "the GET answered no Location", expected="location", actual=held)
    evse_uid = location["evses"][0]["uid"]
    evse = next((e for e in held.get("evses") or [] if same_id(e.get("uid"), evse_uid)), {})
    for where, sent, kept in (("coordinates", EDGES, held.get("coordinates")),
                              ("related_locations[0]", EVSE_EDGES, (held.get("related_locations") or [{}])[0]),
                              ("the EVSE's coordinates", EVSE_EDGES, evse.get("coordinates"))):
        for axis in ("latitude", "longitude"):
            check_equal(Locs.coordinates, f"{where}.{axis} as stored", sent[axis], (kept or {}).get(axis))
    schemas.check("location", held)
