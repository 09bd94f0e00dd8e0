"""AUTH16 — authorization of an idTag in 1.6: Authorize and the AuthorizationStatus values, groups
by parentIdTag, ConcurrentTx at StartTransaction (spec 002 AuthorizationStatus, IdTagInfo, "What the
service does" 3 and 8). The presenting and asking is core16's dialogue; the rules of the answers are
the table below.
"""

import pytest

from harness.roles import CS, CSMS
from harness.errors import NotApplicable
from harness.rules import RuleTable, must, should
from harness.suite import OCPP16, TC, case, checks, needs
from harness.usecases.core16 import (
    Core16, authorize, connectors, group16, grouped, id_tag_status, judge_group, same_tag, start, tag16, tagged,
)
from harness.verdict import check_equal


class AUTH16(RuleTable):
    """The rules of AUTH16."""
    status = must("spec 002 Enumerations AuthorizationStatus; Classes IdTagInfo",
                  "IdTagInfo carries the idTag's status: unknown Invalid, blocked Blocked, expired Expired, "
                  "valid Accepted", by=CSMS)
    accepted_only = must("spec 002 What the service does 3; TC_023_CS",
                         "a charge point starts a transaction for a presented idTag when it is Accepted, and only then",
                         by=CS)
    # a SHOULD: ConcurrentTx is for an idTag already in a transaction "when multiple transactions are not allowed"
    # (1.6 AuthorizationStatus); whether they are is the central system's policy, and no text makes it refuse them
    concurrent = should("spec 002 Enumerations AuthorizationStatus (ConcurrentTx)",
                        "a StartTransaction with an idTag that already charges is answered ConcurrentTx, unless the "
                        "central system allows an idTag several transactions", by=CSMS)


pytestmark = case("AUTH16", block="Core (1.6)", roles=("csms", "cs"), protocols=OCPP16)

PRESENTED = (Core16.authorize, AUTH16.status)
STATUSES = [pytest.param("Accepted", marks=checks(*PRESENTED)),
            pytest.param("Invalid", marks=checks(*PRESENTED, csms=TC("TC_023_1_CSMS"))),
            pytest.param("Expired", marks=checks(*PRESENTED, csms=TC("TC_023_2_CSMS"))),
            pytest.param("Blocked", marks=checks(*PRESENTED, csms=TC("TC_023_3_CSMS")))]


def _two_connectors(profile):
    if len(connectors(profile)) < 2:
        raise NotApplicable("ConcurrentTx needs a second connector; the profile has one")


@pytest.mark.parametrize("status", STATUSES)
@needs(lambda given: tag16(given.profile, given.params["status"]))
async def test_presented_tag_gets_its_status(ocpp, profile, status):
    """Each idTag of the profile is answered with the status the profile says it must get."""
    token = tag16(profile, status)
    exchange = await authorize(ocpp, token)
    if not ocpp.is_sut(CS):
        check_equal(AUTH16.status, f"Authorize.conf idTagInfo.status for the {token.name} idTag",
                    status, id_tag_status(exchange))


@pytest.mark.sut_roles("csms")
@checks(Core16.authorize, Core16.group)
@needs(grouped)
async def test_group_members_share_the_parent_tag(ocpp, profile):
    """Both members of a group are answered with the group as parentIdTag."""
    for token in group16(profile):
        judge_group(await authorize(ocpp, token), token)


@pytest.mark.sut_roles("csms")
@checks(Core16.authorize, Core16.accepted, Core16.start, AUTH16.status, AUTH16.concurrent)
@needs(tagged("Accepted"), lambda given: _two_connectors(given.profile))
async def test_charging_tag_is_concurrent_at_start_transaction(ocpp, profile):
    """A StartTransaction with an idTag already charging on another connector (authorized by the charge
    point on its own, without Authorize) gets ConcurrentTx."""
    token, (first, second) = tag16(profile, "Accepted"), connectors(profile)[:2]
    started = await start(ocpp, token, first)
    check_equal(AUTH16.status, "StartTransaction.conf idTagInfo.status", "Accepted", id_tag_status(started))
    mark = ocpp.mark()
    await ocpp.act(CS, "start_locally_authorized", id_tag=token.id, connector_id=second)
    concurrent = await ocpp.expect("StartTransaction", sender=CS, after=mark,
                                   where=lambda p: p["connectorId"] == second, rule=AUTH16.concurrent)
    check_equal(AUTH16.concurrent, "StartTransaction.conf idTagInfo.status for an idTag already charging",
                "ConcurrentTx", id_tag_status(concurrent))


@pytest.mark.sut_roles("cs")
@pytest.mark.parametrize("accepted", [pytest.param(True, marks=checks(Core16.authorize, AUTH16.accepted_only,
                                                                      cs=TC("TC_004_1_CS"))),
                                      pytest.param(False, marks=checks(Core16.authorize, AUTH16.accepted_only,
                                                                       cs=TC("TC_023_4_CS")))],
                         ids=["accepted", "rejected"])
@needs(lambda given: tag16(given.profile, "Accepted" if given.params["accepted"] else "Invalid"))
async def test_charge_point_starts_only_for_an_accepted_tag(ocpp, profile, accepted):
    """Identification first, then the cable: a transaction starts only for an Accepted idTag."""
    token = tag16(profile, "Accepted" if accepted else "Invalid")
    connector = connectors(profile)[0]
    await authorize(ocpp, token, connector)
    mark = ocpp.mark()
    await ocpp.act(CS, "plug_in", connector_id=connector)
    ours = lambda p: same_tag(p.get("idTag"), token.id)
    if accepted:
        await ocpp.expect("StartTransaction", sender=CS, after=mark, where=ours, rule=AUTH16.accepted_only)
    else:
        await ocpp.expect_none("StartTransaction", after=mark, where=ours, rule=AUTH16.accepted_only)
