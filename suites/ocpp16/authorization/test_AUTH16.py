"""AUTH16 — authorization of an idTag in 1.6: Authorize and the AuthorizationStatus values, groups
by parentIdTag, ConcurrentTx at StartTransaction.

Rules (spec 002 AuthorizationStatus, IdTagInfo, "What the service does" 3 and 8):
- A1  Authorize.conf carries the idTag's status: unknown → Invalid, blocked → Blocked, expired →
      Expired, valid → Accepted;
- A2  a charge point asks about the presented idTag and starts no transaction for an idTag that is
      not Accepted (TC_023_CS);
- A3  the members of a group are answered with the same parentIdTag: the group;
- A4  ConcurrentTx is for StartTransaction: an idTag that already charges gets it there.
"""

import pytest

from harness.arena import CS
from harness.errors import NotApplicable
from harness.suite import OCPP16, case, certified
from harness.usecases.core16 import (
    at_charge_point, authorize, connectors, group16, id_tag_status, same_tag, start, tag16, unplug,
)
from harness.verdict import check_equal, dig, require

pytestmark = case("AUTH16", block="Core (1.6)", roles=("csms", "cs"), protocols=OCPP16)

STATUSES = ["Accepted",
            pytest.param("Invalid", marks=certified(pytestmark, csms="TC_023_1_CSMS")),
            pytest.param("Expired", marks=certified(pytestmark, csms="TC_023_2_CSMS")),
            pytest.param("Blocked", marks=certified(pytestmark, csms="TC_023_3_CSMS"))]


@pytest.mark.parametrize("status", STATUSES)
async def test_presented_tag_gets_its_status(ocpp, profile, status):
    """A1/A2: each idTag of the profile is answered with the status the profile says it must get."""
    token = tag16(profile, status)
    exchange = await authorize(ocpp, token)
    if not ocpp.is_sut(CS):
        check_equal("A1 / AuthorizationStatus", f"Authorize.conf idTagInfo.status for the {token.name} idTag",
                    status, id_tag_status(exchange))


@pytest.mark.sut_roles("csms")
async def test_group_members_share_the_parent_tag(ocpp, profile):
    """A3: both members of a group are answered with the group as parentIdTag."""
    for token in group16(profile):
        exchange = await authorize(ocpp, token)
        parent = dig(exchange.response, "idTagInfo.parentIdTag")
        require(parent is not None and same_tag(parent, token.group), "A3 / spec 002 What the service does 8",
                f"Authorize.conf for the {token.name} idTag lacks its group as parentIdTag",
                expected=token.group, actual=dig(exchange.response, "idTagInfo"))


@pytest.mark.sut_roles("csms")
async def test_charging_tag_is_concurrent_at_start_transaction(ocpp, profile):
    """A4: a StartTransaction with an idTag already charging on another connector gets ConcurrentTx."""
    if len(connectors(profile)) < 2:
        raise NotApplicable("ConcurrentTx needs a second connector; the profile has one")
    token, (first, second) = tag16(profile, "Accepted"), connectors(profile)[:2]
    started = await start(ocpp, token, first)
    check_equal("A1: a valid idTag starts", "StartTransaction.conf idTagInfo.status", "Accepted", id_tag_status(started))
    connector, mark = ocpp.harness.connectors[second], ocpp.mark()
    connector.authorized, connector.plugged = token.id, True
    ocpp.harness.background.spawn(ocpp.harness.start_charging(connector))
    concurrent = await ocpp.expect("StartTransaction", after=mark, where=lambda p: p["connectorId"] == second,
                                   rule="A4")
    check_equal("A4 / AuthorizationStatus ConcurrentTx", "StartTransaction.conf idTagInfo.status for an idTag "
                "already charging", "ConcurrentTx", id_tag_status(concurrent))
    for connector_id in (first, second):   # end the transaction: a real central system keeps it open
        await unplug(ocpp, connector_id)


@pytest.mark.sut_roles("cs")
@pytest.mark.parametrize("accepted", [True, pytest.param(False, marks=certified(pytestmark, cs="TC_023_CS"))],
                         ids=["accepted", "rejected"])
async def test_charge_point_starts_only_for_an_accepted_tag(ocpp, profile, accepted):
    """A2: identification first, then the cable: a transaction starts only for an Accepted idTag."""
    token = tag16(profile, "Accepted" if accepted else "Invalid")
    connector = connectors(profile)[0]
    await authorize(ocpp, token, connector)
    mark = ocpp.mark()
    await at_charge_point(ocpp, "plug_in", connector_id=connector)
    ours = lambda p: same_tag(p.get("idTag"), token.id)
    if accepted:
        await ocpp.expect("StartTransaction", after=mark, where=ours,
                          rule="A2: an Accepted idTag with the cable in starts a transaction")
    else:
        await ocpp.expect_none("StartTransaction", after=mark, where=ours,
                               rule="A2 (TC_023_CS): an idTag that is not Accepted SHALL NOT start a transaction")
    await unplug(ocpp, connector)   # a real charge point keeps its state
