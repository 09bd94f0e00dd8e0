"""OCPI_LOCATIONS_OBJECTS — EVSEs, Connectors and Parking places as objects of their own
(locations 2.3.0; ``LocationRules`` in harness/ocpi/locations.py).

The CPO PUTs one EVSE or one Connector whole (the actuator asks a CPO under test: ``push_evse``,
``push_connector``); the SUT then holds it, and its parents' last_updated are at least as new. An
eMSP under test is also PUT an EVSE it has never seen (it joins the Location), asked to DELETE an
EVSE (never: an EVSE is removed by status REMOVED) and PUT a Location whose party differs from the
URL's. A CPO under test lists Parking places (2.3.0) that its EVSEs' parking references name;
Parking objects are optional (not applicable when the CPO lists none).
"""

import copy
import secrets

import pytest

from harness.cistring import same_id
from harness.errors import NotApplicable
from harness.ocpi.envelope import StatusCode
from harness.ocpi.locations import LOCATIONS, LocationRules as Locs, parking_problems
from harness.ocpi.timestamps import parse_datetime
from harness.arena.ocpi import check_answer
from harness.roles import CPO, EMSP
from harness.rules import RuleTable, must
from harness.suite import OCPI, case, checks
from harness.usecases import ocpi_credentials as creds
from harness.usecases import ocpi_locations as loc
from harness.verdict import check_equal, require


class OCPI_LOCATIONS_OBJECTS(RuleTable):
    """What the objects use case judges beyond the rows of ``LocationRules``."""
    pushes_when_asked = must("spec 000 Events (Location, EVSE or Connector created or replaced: PUT); "
                             "docs/actuators.md (push_evse, push_connector)",
                             "asked through its actuator, the CPO PUTs the EVSE or Connector to the Receiver", by="cpo")


pytestmark = case("OCPI_LOCATIONS_OBJECTS", block="Locations", roles=(CPO, EMSP), protocols=OCPI)

ASKED = OCPI_LOCATIONS_OBJECTS.pushes_when_asked


def _not_older(rule, what: str, obj: dict, stamp: str) -> None:
    require(parse_datetime(obj["last_updated"]) >= parse_datetime(stamp), rule, f"{what}'s last_updated was not "
            "brought up to the PUT", expected=f">= {stamp}", actual=obj["last_updated"])


async def _object_put(ocpi, depth: int) -> tuple[tuple[str, ...], str]:
    """The Location pushed, then its EVSE (depth 2) or Connector (depth 3) PUT: ids and the PUT's last_updated."""
    ids, _ = await loc.location_pushed(ocpi, rule=ASKED)
    push = await loc.push_object(ocpi, ids[:depth], rule=ASKED)
    check_answer(push, Locs.put, f"the PUT of {'/'.join(ids[:depth])}", success=True)
    return ids[:depth], push.request_json()["last_updated"]


@checks(ASKED, Locs.put, Locs.stored, Locs.object_by_ids, Locs.propagation)
async def test_evse_put_is_held_and_bumps_the_location(ocpi):
    """An EVSE PUT whole is held as sent, and its Location is at least as new."""
    ids, stamp = await _object_put(ocpi, 2)
    evse = await loc.sut_object(ocpi, ids)
    check_equal(Locs.stored if ocpi.is_sut(EMSP) else Locs.object_by_ids, "EVSE uid", ids[1],
                evse["uid"], same=same_id)
    _not_older(Locs.put, "the EVSE", evse, stamp)
    _not_older(Locs.propagation, "the Location", await loc.sut_object(ocpi, ids[:1]), stamp)


@checks(ASKED, Locs.put, Locs.stored, Locs.object_by_ids, Locs.propagation)
async def test_connector_put_is_held_and_bumps_its_parents(ocpi):
    """A Connector PUT whole is held as sent, and its EVSE and Location are at least as new."""
    ids, stamp = await _object_put(ocpi, 3)
    connector = await loc.sut_object(ocpi, ids)
    _not_older(Locs.put, "the Connector", connector, stamp)
    _not_older(Locs.propagation, "the EVSE", await loc.sut_object(ocpi, ids[:2]), stamp)
    _not_older(Locs.propagation, "the Location", await loc.sut_object(ocpi, ids[:1]), stamp)


async def _emsp_holding_a_location(ocpi) -> tuple[dict, str]:
    ids, _ = await loc.location_pushed(ocpi, rule=Locs.put)
    return copy.deepcopy(next(item for item in ocpi.harness_peer.objects(LOCATIONS) if same_id(item["id"], ids[0]))), ids[1]


@pytest.mark.sut_roles(EMSP)
@checks(Locs.put, Locs.stored, Locs.propagation)
async def test_new_evse_put_joins_its_location(ocpi):
    """An EVSE with a uid the eMSP has not seen, PUT under a known Location, joins that Location."""
    location, evse_uid = await _emsp_holding_a_location(ocpi)
    evse = copy.deepcopy(next(e for e in location["evses"] if same_id(e["uid"], evse_uid)))
    evse.pop("parking", None)
    evse["uid"] = f"EVSE-NEW-{secrets.token_hex(3).upper()}"
    answer = await ocpi.exchange(CPO, "PUT", LOCATIONS, (location["id"], evse["uid"]), evse, rule=Locs.put)
    check_answer(answer, Locs.put, "the PUT of a new EVSE", success=True)
    held = await loc.sut_object(ocpi, (location["id"],))
    check_equal(Locs.put, "the new EVSE in its Location", True,
                any(same_id(evse["uid"], e.get("uid")) for e in held.get("evses") or []))
    _not_older(Locs.propagation, "the Location", held, evse["last_updated"])


@pytest.mark.sut_roles(EMSP)
@checks(Locs.removal)
async def test_evse_delete_is_refused_and_it_stays(ocpi):
    """Nothing is deleted: a DELETE of an EVSE is refused (REMOVED is PATCHed instead) and the EVSE
    is still there."""
    location, evse_uid = await _emsp_holding_a_location(ocpi)
    url = ocpi.sut_url(LOCATIONS, location["id"], evse_uid)
    answer = await ocpi.send("DELETE", url, token=ocpi.token_to_sut, module=LOCATIONS)
    check_answer(answer, Locs.removal, "a DELETE of an EVSE", success=False)
    check_equal(Locs.removal, "EVSE uid after the DELETE", evse_uid,
                (await loc.sut_object(ocpi, (location["id"], evse_uid)))["uid"], same=same_id)


@pytest.mark.sut_roles(EMSP)
@checks(Locs.put)
async def test_location_whose_party_differs_from_the_url_gets_2001(ocpi):
    """A Location PUT whose country_code and party_id are not the URL's is refused with 2001."""
    location, _ = await _emsp_holding_a_location(ocpi)
    body = {**location, "country_code": "XX", "party_id": "ZZZ", "id": f"LOC-ELSE-{secrets.token_hex(3).upper()}"}
    answer = await ocpi.exchange(CPO, "PUT", LOCATIONS, (body["id"],), body, rule=Locs.put)
    check_answer(answer, Locs.put, "a Location PUT whose party differs from the URL's",
                 status_code=StatusCode.INVALID_PARAMETERS)


@pytest.mark.sut_roles(CPO)
@checks(Locs.parking_reference, Locs.listed)
async def test_parking_references_name_parking_of_the_location(ocpi):
    """Every EVSE parking reference names a Parking place of its own Location, whose ids are unique."""
    await creds.registered(ocpi)
    locations = (await loc.walk(ocpi)).items
    if not any(item.get("parking_places") for item in locations):
        raise NotApplicable("the CPO lists no Parking places (2.3.0 lets a CPO omit them)")
    for location in locations:
        problems = parking_problems(location)
        require(not problems, Locs.parking_reference, f"Location {location.get('id')}: {'; '.join(problems)}",
                expected="references to the Location's own Parking ids", actual=problems)
