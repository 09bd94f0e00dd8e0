"""OCPI_LOCATIONS_PUSH — the CPO pushes Locations to the eMSP's Receiver (locations 2.3.0;
``LocationRules`` in harness/ocpi/locations.py).

Played with either platform under test; the CPO always initiates (the actuator asks a CPO under
test: ``push_location``, ``patch_evse_status``, ``patch_connector``). What the CPO sent is then
read back from the SUT: from the eMSP's Receiver as stored, or from the CPO's own Sender.
A PUT stores the whole Location; a PATCH changes only its fields and carries last_updated; a
changed EVSE or Connector bumps its parents' last_updated; a removed EVSE stays, as REMOVED; ids
and parties come back in the case they were sent.
"""

import copy
import secrets

import pytest

from harness.cistring import same_id, same_ids
from harness.ocpi.credentials import CredentialsRules as Creds
from harness.ocpi.envelope import StatusCode
from harness.ocpi.locations import LOCATIONS, LocationRules as Locs
from harness.ocpi.timestamps import parse_datetime
from harness.arena.ocpi import check_answer
from harness.roles import CPO, EMSP
from harness.rules import RuleTable, must
from harness.suite import OCPI, case, checks
from harness.usecases import ocpi_credentials as creds
from harness.usecases import ocpi_locations as loc
from harness.verdict import check_equal, require


class OCPI_LOCATIONS_PUSH(RuleTable):
    """What the push use case judges beyond the rows of ``LocationRules``."""
    pushes_when_asked = must("spec 000 Events (the CPO pushes creations and changes); docs/actuators.md "
                             "(push_location, patch_evse_status, patch_connector)",
                             "asked through its actuator, the CPO pushes the change to the Receiver")


pytestmark = case("OCPI_LOCATIONS_PUSH", block="Locations", roles=(CPO, EMSP), protocols=OCPI)

ASKED = OCPI_LOCATIONS_PUSH.pushes_when_asked


async def _pushed(ocpi):
    """Registered, and the CPO's first Location PUT to the Receiver: its ids, and the PUT."""
    return await loc.location_pushed(ocpi, rule=ASKED)


def _stamp(push):
    body = push.request_json()
    require(isinstance(body, dict) and body.get("last_updated"), Locs.patch_last_updated,
            "the PATCH carries no last_updated", expected="last_updated",
            actual=sorted(body) if isinstance(body, dict) else body)
    return parse_datetime(body["last_updated"])


def _not_older(rule, what: str, obj: dict, stamp) -> None:
    require(parse_datetime(obj["last_updated"]) >= stamp, rule, f"{what}'s last_updated was not brought up to "
            "the change", expected=f">= {stamp.isoformat()}", actual=obj["last_updated"])


@checks(ASKED, Locs.put, Locs.stored)
async def test_location_put_is_stored(ocpi):
    """The Location the CPO PUT is the one the SUT holds, EVSEs and all."""
    (location_id, _, _), push = await _pushed(ocpi)
    held = await loc.sut_object(ocpi, (location_id,))
    if ocpi.is_sut(EMSP):
        sent = push.request_json()
        check_equal(Locs.stored, "last_updated", sent["last_updated"], held["last_updated"])
        check_equal(Locs.put, "EVSE uids", [e["uid"] for e in sent["evses"]], [e["uid"] for e in held["evses"]],
                    same=same_ids)
    check_equal(Locs.stored, "id", location_id, held["id"], same=same_id)


@pytest.mark.parametrize("ocpi", ["in_process", "sockets"], indirect=True)
@checks(ASKED, Locs.put, Locs.patch, Locs.patch_last_updated, Locs.propagation)
async def test_evse_status_patch_propagates(ocpi):
    """An EVSE status PATCH (with last_updated) changes the EVSE and bumps its Location."""
    (location_id, evse_uid, _), _ = await _pushed(ocpi)
    patch = await loc.patch_evse_status(ocpi, location_id, evse_uid, "CHARGING", rule=ASKED)
    check_answer(patch, Locs.patch, "the EVSE PATCH", success=True)
    stamp = _stamp(patch)
    evse = await loc.sut_object(ocpi, (location_id, evse_uid))
    check_equal(Locs.patch, "EVSE status", "CHARGING", evse["status"])
    _not_older(Locs.patch, "the EVSE", evse, stamp)
    _not_older(Locs.propagation, "the Location", await loc.sut_object(ocpi, (location_id,)), stamp)


@checks(ASKED, Locs.put, Locs.patch, Locs.patch_last_updated, Locs.propagation)
async def test_connector_patch_propagates(ocpi):
    """A Connector PATCH changes the Connector and bumps its EVSE and Location."""
    (location_id, evse_uid, connector_id), _ = await _pushed(ocpi)
    patch = await loc.patch_connector(ocpi, location_id, evse_uid, connector_id, ["AC-PEAK"], rule=ASKED)
    check_answer(patch, Locs.patch, "the Connector PATCH", success=True)
    stamp = _stamp(patch)
    connector = await loc.sut_object(ocpi, (location_id, evse_uid, connector_id))
    check_equal(Locs.patch, "Connector tariff_ids", ["AC-PEAK"], connector.get("tariff_ids"), same=same_ids)
    _not_older(Locs.propagation, "the EVSE", await loc.sut_object(ocpi, (location_id, evse_uid)), stamp)
    _not_older(Locs.propagation, "the Location", await loc.sut_object(ocpi, (location_id,)), stamp)


@checks(ASKED, Locs.put, Locs.removal)
async def test_removed_evse_stays_with_status_removed(ocpi):
    """An EVSE is removed by status REMOVED and stays readable; nothing is deleted."""
    (location_id, evse_uid, _), _ = await _pushed(ocpi)
    patch = await loc.patch_evse_status(ocpi, location_id, evse_uid, "REMOVED", rule=ASKED)
    check_answer(patch, Locs.removal, "the PATCH to REMOVED", success=True)
    check_equal(Locs.removal, "EVSE status", "REMOVED", (await loc.sut_object(ocpi, (location_id, evse_uid)))["status"])


@pytest.mark.sut_roles(EMSP)
@checks(Locs.put, Locs.patch_last_updated)
async def test_patch_without_last_updated_gets_2001(ocpi):
    """The Receiver answers a PATCH without last_updated with 2001 and keeps the object."""
    (location_id, evse_uid, _), _ = await _pushed(ocpi)
    answer = await ocpi.exchange(CPO, "PATCH", LOCATIONS, (location_id, evse_uid), {"status": "BLOCKED"},
                                 rule=Locs.patch_last_updated)
    check_answer(answer, Locs.patch_last_updated, "a PATCH without last_updated",
                 status_code=StatusCode.INVALID_PARAMETERS)
    evse = await loc.sut_object(ocpi, (location_id, evse_uid))
    require(evse["status"] != "BLOCKED", Locs.patch_last_updated, "the Receiver applied the PATCH it refused",
            expected="the status before", actual=evse["status"])


def _in_mixed_case(location: dict) -> dict:
    """A copy of ``location`` with one EVSE of one Connector and fresh ids in mixed case, which a
    SUT that lower- or upper-cases ids would change."""
    suffix = secrets.token_hex(3)
    copied = copy.deepcopy(location)
    evse = copied["evses"][0]
    evse["uid"], evse["connectors"] = f"Evse-Case-{suffix}", [{**evse["connectors"][0], "id": "Con-1a"}]
    copied["id"], copied["evses"] = f"Loc-Case-{suffix}", [evse]
    return copied


def _identity(location: dict, evse_uid: str, connector_id: str, rule) -> dict:
    """The ids of ``location`` down to the EVSE and Connector named (found ignoring case)."""
    evse = next((e for e in location.get("evses") or [] if same_id(e["uid"], evse_uid)), {})
    connector = next((c for c in evse.get("connectors") or [] if same_id(c["id"], connector_id)), {})
    require(bool(connector), rule, f"the Location holds no EVSE {evse_uid} with a Connector {connector_id}",
            expected=(evse_uid, connector_id), actual=[e.get("uid") for e in location.get("evses", [])])
    return {"Location country_code": location["country_code"], "Location party_id": location["party_id"],
            "Location id": location["id"], "EVSE uid": evse["uid"], "Connector id": connector["id"]}


@checks(ASKED, Locs.put, Locs.stored, Locs.object_by_ids, Locs.ids_as_sent, Creds.party_as_declared)
async def test_ids_and_party_come_back_as_sent(ocpi):
    """Ids are CiStrings: a SUT compares them ignoring case but gives them back as they were sent,
    and names the harness's party as its credentials roles declared it. The text makes them
    case-insensitive without forbidding a rewrite, so a changed case is a finding, not a failure.
    The eMSP under test is pushed a Location with mixed-case ids and read back; the CPO under test
    pushes its own, names the harness in the push's OCPI-to-* headers, and serves it back."""
    if ocpi.is_sut(EMSP):
        await creds.registered(ocpi)
        sent = _in_mixed_case(ocpi.harness_peer.objects(LOCATIONS)[0])
        push = await ocpi.exchange(CPO, "PUT", LOCATIONS, (sent["id"],), sent, rule=Locs.put)
        check_answer(push, Locs.put, f"the PUT of {sent['id']}", success=True)
    else:
        _, push = await _pushed(ocpi)
        sent = push.request_json()
        creds.check_party_as_declared(ocpi, push.request_headers, "the CPO's PUT")
    evse_uid, connector_id = sent["evses"][0]["uid"], sent["evses"][0]["connectors"][0]["id"]
    held, answer = await loc.read_object(ocpi, (sent["id"],))
    creds.check_party_as_declared(ocpi, answer.response_headers, "the answer to the harness's GET")
    rule = Locs.stored if ocpi.is_sut(EMSP) else Locs.object_by_ids
    came_back = _identity(held, evse_uid, connector_id, rule)
    for name, value in _identity(sent, evse_uid, connector_id, Locs.put).items():
        check_equal(rule, f"{name} (ignoring case)", value, came_back[name], same=same_id)
        check_equal(Locs.ids_as_sent, name, value, came_back[name])
