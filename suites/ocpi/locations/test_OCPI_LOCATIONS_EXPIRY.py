"""OCPI_LOCATIONS_EXPIRY — a Location without a valid EVSE (locations 2.3.0; ``LocationRules``
in harness/ocpi/locations.py).

The CPO removes every EVSE of a Location by PATCHing its status to REMOVED (the actuator asks a
CPO under test: ``patch_evse_status``, once per EVSE). The Location is then expired and should no
longer be displayed, but nothing is deleted: the SUT still answers the Location and each EVSE by
their ids — the eMSP as it stored them, the CPO from its Sender — every EVSE REMOVED. The Sender's
list may leave an expired Location out (it lists "Locations with valid EVSEs"), so the list is not
judged here. An eMSP under test is also PUT a Location whose every EVSE is REMOVED, and an EVSE whose
status is REMOVED (removal by PUT): it holds them, REMOVED.
"""

import copy
import secrets

import pytest

from harness.cistring import id_key, same_id
from harness.clock import utcnow
from harness.ocpi.locations import LOCATIONS, LocationRules as Locs
from harness.ocpi.timestamps import format_datetime
from harness.arena.ocpi import check_answer
from harness.roles import CPO, EMSP
from harness.rules import RuleTable, must
from harness.suite import OCPI, case, checks
from harness.usecases import ocpi_credentials as creds
from harness.usecases import ocpi_locations as loc
from harness.verdict import check_equal


class OCPI_LOCATIONS_EXPIRY(RuleTable):
    """What the expiry use case judges beyond the rows of ``LocationRules``."""
    removes_when_asked = must("spec 000 Events (EVSE removal: PATCH or PUT with status REMOVED); docs/actuators.md "
                              "(patch_evse_status)", "asked through its actuator, the CPO PATCHes the EVSE's status "
                              "REMOVED to the Receiver", by="cpo")


pytestmark = case("OCPI_LOCATIONS_EXPIRY", block="Locations", roles=(CPO, EMSP), protocols=OCPI)


async def _answered(ocpi, ids: tuple[str, ...], rule=Locs.expired,
                    after: str = "once every EVSE of its Location is REMOVED") -> dict:
    """The object at ``ids``, which must still be answered (``rule`` broken otherwise)."""
    answer = await loc.get(ocpi, ocpi.sut_url(LOCATIONS, *ids))
    check_answer(answer, rule, f"a GET of {'/'.join(ids)} {after}", success=True)
    return await loc.sut_object(ocpi, ids)


@checks(OCPI_LOCATIONS_EXPIRY.removes_when_asked, Locs.put, Locs.removal, Locs.expired, Locs.stored,
        Locs.object_by_ids)
async def test_location_whose_every_evse_is_removed_is_kept(ocpi):
    """Every EVSE of a pushed Location PATCHed to REMOVED: the Location and each EVSE still answer,
    every EVSE REMOVED."""
    (location_id, _, _), _ = await loc.location_pushed(ocpi, rule=OCPI_LOCATIONS_EXPIRY.removes_when_asked)
    uids = await loc.remove_every_evse(ocpi, location_id, rule=OCPI_LOCATIONS_EXPIRY.removes_when_asked)
    location = await _answered(ocpi, (location_id,))
    held = {id_key(evse.get("uid")): evse.get("status") for evse in location.get("evses") or []}
    for uid in uids:
        check_equal(Locs.expired, f"EVSE {uid} in the expired Location", "REMOVED", held.get(id_key(uid)))
        check_equal(Locs.expired, f"status of EVSE {uid} by its ids", "REMOVED",
                    (await _answered(ocpi, (location_id, uid)))["status"])


@pytest.mark.sut_roles(EMSP)
@checks(Locs.put, Locs.removal, Locs.expired, Locs.stored)
async def test_location_put_with_every_evse_removed_is_kept(ocpi, harness_cpo):
    """A Location PUT whole with every EVSE REMOVED (removal by PUT) is accepted and held, expired."""
    await creds.registered(ocpi)
    location = copy.deepcopy(harness_cpo.objects(LOCATIONS)[0])
    location["id"] = f"LOC-EXPIRED-{secrets.token_hex(3).upper()}"
    for evse in location["evses"]:
        evse["status"] = "REMOVED"
    answer = await ocpi.exchange(CPO, "PUT", LOCATIONS, (location["id"],), location, rule=Locs.put)
    check_answer(answer, Locs.removal, "the PUT of a Location whose every EVSE is REMOVED", success=True)
    held = await _answered(ocpi, (location["id"],))
    check_equal(Locs.expired, "EVSE statuses of the expired Location as stored",
                sorted((id_key(evse["uid"]), "REMOVED") for evse in location["evses"]),
                sorted((id_key(evse.get("uid")), evse.get("status")) for evse in held.get("evses") or []))


@pytest.mark.sut_roles(EMSP)
@checks(Locs.put, Locs.removal, Locs.stored)
async def test_evse_put_removed_stays(ocpi, harness_cpo):
    """An EVSE PUT whole with status REMOVED (removal by PUT) stays in its Location, REMOVED."""
    (location_id, evse_uid, _), _ = await loc.location_pushed(ocpi, rule=Locs.put)
    evse = next(e for e in harness_cpo.objects(LOCATIONS)[0]["evses"] if same_id(e["uid"], evse_uid))
    removed = {**copy.deepcopy(evse), "status": "REMOVED", "last_updated": format_datetime(utcnow())}
    answer = await ocpi.exchange(CPO, "PUT", LOCATIONS, (location_id, evse_uid), removed, rule=Locs.put)
    check_answer(answer, Locs.removal, "the PUT of an EVSE with status REMOVED", success=True)
    check_equal(Locs.removal, f"status of EVSE {evse_uid} after its PUT as REMOVED", "REMOVED",
                (await _answered(ocpi, (location_id, evse_uid), Locs.removal, "after its PUT as REMOVED"))["status"])
