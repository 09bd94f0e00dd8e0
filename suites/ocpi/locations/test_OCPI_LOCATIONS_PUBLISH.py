"""OCPI_LOCATIONS_PUBLISH — who may be shown a Location: publish and publish_allowed_to
(locations 2.3.0; ``LocationRules`` in harness/ocpi/locations.py).

A CPO under test never publishes a Location its profile declares private (``private = true`` in
``[[ocpi.locations]]``): wherever it serves one — its list, or a GET by id — publish is false. It
may also leave it out of the list (the text recommends not sending such Locations), which passes.

An eMSP under test is pushed an unpublished Location (PUT whole, or a PATCH that unpublishes a
published one) with publish_allowed_to entries. What it shows in its app is not on the wire; what
is: it keeps publish = false and every entry as pushed, which it needs to show the Location only to
the owners of a matching Token. publish_allowed_to holds CiStrings (uid, group_id): compared
ignoring case. A Receiver that refuses the unpublished Location fails too, since it can no longer
show it to those owners (the reading chosen where the text gives the Receiver no rule of its own).
"""

import copy
import secrets

import pytest

from harness.cistring import id_key
from harness.clock import utcnow
from harness.errors import NotApplicable
from harness.ocpi import schemas
from harness.ocpi.locations import LOCATIONS, LocationRules as Locs
from harness.ocpi.timestamps import format_datetime
from harness.arena.ocpi import check_answer
from harness.roles import CPO, EMSP
from harness.suite import OCPI, case, checks
from harness.usecases import ocpi_credentials as creds
from harness.usecases import ocpi_locations as loc
from harness.verdict import check_equal

pytestmark = case("OCPI_LOCATIONS_PUBLISH", block="Locations", roles=(CPO, EMSP), protocols=OCPI)


@pytest.mark.sut_roles(CPO)
@checks(Locs.private_unpublished, Locs.listed, Locs.object_by_ids)
async def test_private_locations_are_not_published(ocpi, profile):
    """Every Location the profile declares private carries publish = false in the CPO's list and in
    a GET by its id."""
    private = [entry["id"] for entry in profile.get("ocpi.locations", []) if entry.get("private")]
    if not private:
        raise NotApplicable("the profile declares no private Location ([[ocpi.locations]] private = true)")
    await creds.registered(ocpi)
    listed = {id_key(item["id"]): item for item in (await loc.walk(ocpi)).items}
    for location_id in private:
        fetched, _ = await loc.read_object(ocpi, (location_id,))
        for where, served in (("listed", listed.get(id_key(location_id))), ("fetched by id", fetched)):
            if served is not None:
                check_equal(Locs.private_unpublished, f"publish of the private Location {location_id}, {where}",
                            False, served["publish"])


def _allowed_to() -> list[dict]:
    """Who may be shown the Location: one Token by uid and type, and one Token group."""
    return [{"uid": f"04A{secrets.token_hex(5).upper()}", "type": "RFID"},
            {"group_id": f"Group-{secrets.token_hex(3)}"}]


def _entries(entries) -> list[list[tuple[str, str]]]:
    """publish_allowed_to entries in a comparable form: CiStrings ignoring case, nulls as absent, any order."""
    return sorted(sorted(schemas.comparable(entry).items()) for entry in entries or [])


async def _check_kept(ocpi, location_id: str, allowed_to: list[dict]) -> None:
    held = await loc.sut_object(ocpi, (location_id,))
    check_equal(Locs.unpublished_kept, f"publish of {location_id} as stored", False, held["publish"])
    check_equal(Locs.unpublished_kept, f"publish_allowed_to of {location_id} as stored", _entries(allowed_to),
                _entries(held.get("publish_allowed_to")))


@pytest.mark.sut_roles(EMSP)
@checks(Locs.unpublished_kept, Locs.put, Locs.stored)
async def test_unpublished_location_is_kept_with_who_may_see_it(ocpi, harness_cpo):
    """A Location PUT with publish = false and publish_allowed_to is accepted and held as pushed."""
    await creds.registered(ocpi)
    location = copy.deepcopy(harness_cpo.objects(LOCATIONS)[0])
    allowed_to = _allowed_to()
    location.update(id=f"LOC-PRIVATE-{secrets.token_hex(3).upper()}", publish=False, publish_allowed_to=allowed_to)
    answer = await ocpi.exchange(CPO, "PUT", LOCATIONS, (location["id"],), location, rule=Locs.put)
    check_answer(answer, Locs.unpublished_kept, "the PUT of an unpublished Location", success=True)
    await _check_kept(ocpi, location["id"], allowed_to)


@pytest.mark.sut_roles(EMSP)
@checks(Locs.unpublished_kept, Locs.patch, Locs.stored)
async def test_unpublishing_patch_is_kept(ocpi):
    """A PATCH that sets publish = false with publish_allowed_to on a published Location is applied."""
    (location_id, _, _), _ = await loc.location_pushed(ocpi, rule=Locs.put)
    allowed_to = _allowed_to()
    changes = {"publish": False, "publish_allowed_to": allowed_to, "last_updated": format_datetime(utcnow())}
    patch = await ocpi.exchange(CPO, "PATCH", LOCATIONS, (location_id,), changes, rule=Locs.patch)
    check_answer(patch, Locs.unpublished_kept, "the PATCH that unpublishes the Location", success=True)
    await _check_kept(ocpi, location_id, allowed_to)
