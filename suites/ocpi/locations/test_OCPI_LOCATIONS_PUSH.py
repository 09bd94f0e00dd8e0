"""OCPI_LOCATIONS_PUSH — the CPO pushes Locations to the eMSP's Receiver (locations 2.3.0;
L3-L7 in harness/reference/ocpi/locations.py).

Played with either platform under test; the CPO always initiates (the actuator asks a CPO under
test: ``push_location``, ``patch_evse_status``, ``patch_connector``). What the CPO sent is then
read back from the SUT: from the eMSP's Receiver as stored, or from the CPO's own Sender.
A PUT stores the whole Location; a PATCH changes only its fields and carries last_updated; a
changed EVSE or Connector bumps its parents' last_updated; a removed EVSE stays, as REMOVED.
"""

import pytest

from harness.ocpi.envelope import StatusCode
from harness.ocpi.timestamps import parse_datetime
from harness.ocpi_arena import CPO, EMSP
from harness.suite import OCPI, case
from harness.usecases import ocpi_credentials as creds
from harness.usecases import ocpi_locations as loc
from harness.verdict import check_equal, require

pytestmark = case("OCPI_LOCATIONS_PUSH", block="Locations", roles=(CPO, EMSP), protocols=OCPI)


async def _pushed(ocpi) -> tuple[tuple[str, str, str], loc.Push]:
    """Registered, and the CPO's first Location PUT to the Receiver: its ids, and the PUT."""
    await creds.register(ocpi, ocpi.harness_role)
    ids = loc.pushed_location(ocpi)
    push = await loc.push_location(ocpi, ids[0])
    creds.check_accepted(push.exchange, "L3: the Receiver accepts a valid Location PUT", f"the PUT of {ids[0]}")
    return ids, push


def _stamp(push: loc.Push, rule: str):
    require(isinstance(push.body, dict) and push.body.get("last_updated"), rule, "the PATCH carries no last_updated",
            expected="last_updated", actual=sorted(push.body) if isinstance(push.body, dict) else push.body)
    return parse_datetime(push.body["last_updated"])


def _not_older(rule: str, what: str, obj: dict, stamp) -> None:
    require(parse_datetime(obj["last_updated"]) >= stamp, rule, f"{what}'s last_updated was not brought up to "
            "the change", expected=f">= {stamp.isoformat()}", actual=obj["last_updated"])


async def test_location_put_is_stored(ocpi):
    """L3/L7: the Location the CPO PUT is the one the SUT holds, EVSEs and all."""
    (location_id, _, _), push = await _pushed(ocpi)
    held = await loc.sut_object(ocpi, (location_id,), "L7")
    if ocpi.is_sut(EMSP):
        sent = push.body
        check_equal("L7: the Receiver answers the object as stored", "last_updated", sent["last_updated"],
                    held["last_updated"])
        check_equal("L3: a PUT stores the whole Location", "EVSE uids",
                    sorted(e["uid"].lower() for e in sent["evses"]), sorted(e["uid"].lower() for e in held["evses"]))
    check_equal("L3/L7: the stored Location is the pushed one", "id", location_id.lower(), held["id"].lower())


@pytest.mark.parametrize("ocpi", ["in_process", "sockets"], indirect=True)
async def test_evse_status_patch_propagates(ocpi):
    """L4/L5: an EVSE status PATCH (with last_updated) changes the EVSE and bumps its Location."""
    (location_id, evse_uid, _), _ = await _pushed(ocpi)
    patch = await loc.patch_evse_status(ocpi, location_id, evse_uid, "CHARGING")
    creds.check_accepted(patch.exchange, "L4: the Receiver accepts an EVSE status PATCH", "the EVSE PATCH")
    stamp = _stamp(patch, "L4: a PATCH SHALL contain last_updated")
    evse = await loc.sut_object(ocpi, (location_id, evse_uid), "L7")
    check_equal("L4: the PATCH changed the status", "EVSE status", "CHARGING", evse["status"])
    _not_older("L4: the EVSE carries the PATCH's last_updated", "the EVSE", evse, stamp)
    _not_older("L5: an EVSE change updates its Location", "the Location",
               await loc.sut_object(ocpi, (location_id,), "L7"), stamp)


async def test_connector_patch_propagates(ocpi):
    """L4/L5: a Connector PATCH changes the Connector and bumps its EVSE and Location."""
    (location_id, evse_uid, connector_id), _ = await _pushed(ocpi)
    patch = await loc.patch_connector(ocpi, location_id, evse_uid, connector_id, ["AC-PEAK"])
    creds.check_accepted(patch.exchange, "L4: the Receiver accepts a Connector PATCH", "the Connector PATCH")
    stamp = _stamp(patch, "L4: a PATCH SHALL contain last_updated")
    connector = await loc.sut_object(ocpi, (location_id, evse_uid, connector_id), "L7")
    check_equal("L4: the PATCH changed the tariffs", "Connector tariff_ids", ["AC-PEAK"], connector.get("tariff_ids"))
    _not_older("L5: a Connector change updates its EVSE", "the EVSE",
               await loc.sut_object(ocpi, (location_id, evse_uid), "L7"), stamp)
    _not_older("L5: a Connector change updates its Location", "the Location",
               await loc.sut_object(ocpi, (location_id,), "L7"), stamp)


async def test_removed_evse_stays_with_status_removed(ocpi):
    """L6: an EVSE is removed by status REMOVED and stays readable; nothing is deleted."""
    (location_id, evse_uid, _), _ = await _pushed(ocpi)
    patch = await loc.patch_evse_status(ocpi, location_id, evse_uid, "REMOVED")
    creds.check_accepted(patch.exchange, "L6: the Receiver accepts status REMOVED", "the PATCH to REMOVED")
    check_equal("L6: a removed EVSE is kept, as REMOVED", "EVSE status", "REMOVED",
                (await loc.sut_object(ocpi, (location_id, evse_uid), "L6"))["status"])


@pytest.mark.sut_roles(EMSP)
async def test_patch_without_last_updated_gets_2001(ocpi):
    """L4: the Receiver answers a PATCH without last_updated with 2001 and keeps the object."""
    (location_id, evse_uid, _), _ = await _pushed(ocpi)
    answer = await ocpi.harness.push("PATCH", (location_id, evse_uid), {"status": "BLOCKED"})
    body = answer.json()
    check_equal("L4: a PATCH without last_updated → 2001", f"status_code (HTTP {answer.status})",
                StatusCode.INVALID_PARAMETERS.value, body.get("status_code") if isinstance(body, dict) else None)
    evse = await loc.sut_object(ocpi, (location_id, evse_uid), "L7")
    require(evse["status"] != "BLOCKED", "L4", "the Receiver applied the PATCH it refused",
            expected="the status before", actual=evse["status"])
