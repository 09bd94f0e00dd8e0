"""K03 — Local smart charging: a local controller shares a group limit among the stations behind it
(spec 001 SetChargingProfile rule 11). The CSMS sets the group limit (a ChargingStationMaxProfile at
evseId 0) and a TxDefaultProfile, may give a transaction a chargingPriority (-9 to 9, Limits) in its
TransactionEventResponse — for that transaction only —, and otherwise only observes.

Both 2.0.1 and 2.1 carry chargingPriority in TransactionEventResponse (2.1 adds the PriorityCharging
purpose, which these tests never send). How a controller shares its limit by priority is not
specified: the station side is judged on what is, that a prioritised transaction's composite is still
the engine's minimum of the group limit and the default (a priority never lifts a limit). That the
priority holds for its transaction only leaves nothing on the wire to judge and is not tested."""

import pytest

from harness.roles import CS, CSMS
from harness.rules import RuleTable, must
from harness.suite import OCPP2, case, checks
from harness.usecases.smart_charging import (ChargingProfiles, Installed, charging, charging_profile, composite,
                                             install, judge_composite, judge_sent_profile, new_id, oracle_station,
                                             set_profile)
from harness.verdict import require


class K03(RuleTable):
    """The rules of K03 (spec 001 SetChargingProfile rule 11; Limits; TransactionEventResponse)."""
    limits_sent = must("spec 001 SetChargingProfile rules 3 and 11",
                       "the CSMS sets a local controller's group limit (a ChargingStationMaxProfile at evseId 0) "
                       "and its TxDefaultProfile as its operator asked", by=CSMS)
    priority = must("spec 001 TransactionEventResponse (chargingPriority); Limits",
                    "a chargingPriority the CSMS gives a transaction lies within -9 to 9", by=CSMS)
    bounded = must("spec 001 SetChargingProfile rule 11; Combination rules",
                   "the composite of a transaction the CSMS gave a priority is still the minimum of the group "
                   "limit and the TxDefaultProfile", by=CS)


pytestmark = case("K03", block="Smart charging", roles=("csms", "cs"), protocols=OCPP2,
                  requires=["smart_charging", "remote_start"])


def _group_limit() -> dict:
    return charging_profile(new_id(), [(0, "10.0"), (1200, "20.0")], purpose="ChargingStationMaxProfile")


def _default() -> dict:
    return charging_profile(new_id(), [(0, "16.0"), (1800, "8.0")], stack_level=2)


@pytest.mark.sut_roles("cs")
@checks(ChargingProfiles.accepted, K03.bounded)
async def test_priority_never_lifts_the_group_limit(ocpp, profile):
    """The CSMS gives the transaction chargingPriority 9; a group limit of 10 A then 20 A over a default of
    16 A then 8 A: the EVSE's composite is the engine's (10, 16, 8 A)."""
    ocpp.configure(charging_priority=9)
    evse_id = profile.evses[0].id
    transaction_id = await charging(ocpp, evse_id)
    installed = Installed(oracle_station(ocpp, {evse_id: transaction_id}))
    await install(ocpp, installed, 0, _group_limit())
    await install(ocpp, installed, 0, _default())
    judge_composite(installed, await composite(ocpp, evse_id, 3600, "A", K03.limits_sent), "A", K03.bounded,
                    K03.bounded)


@pytest.mark.sut_roles("csms")
@pytest.mark.parametrize("which", ["group-limit", "default"])
@checks(ChargingProfiles.sent, K03.limits_sent)
async def test_csms_sets_the_controller_limits(ocpp, which):
    """The operator sets the local controller's group limit or its TxDefaultProfile at evseId 0: sent as asked,
    and the rules allow it."""
    asked = _group_limit() if which == "group-limit" else _default()
    exchange = await set_profile(ocpp, 0, asked)
    judge_sent_profile(exchange, 0, asked, oracle_station(ocpp), K03.limits_sent)


@pytest.mark.sut_roles("csms")
@checks(K03.priority)
async def test_csms_gives_a_priority_within_range(ocpp, profile):
    """The transaction the CSMS starts at the controller: a chargingPriority in its answer to Started, if any,
    lies within -9 to 9 (none is as valid: the priority is optional, default 0)."""
    evse_id = profile.evses[0].id
    mark = ocpp.mark()
    await charging(ocpp, evse_id)
    started = await ocpp.expect("TransactionEvent", sender=CS, after=mark, rule=ChargingProfiles.transaction,
                                where=lambda p: p["eventType"] == "Started")
    priority = started.result.get("chargingPriority", 0)
    require(-9 <= priority <= 9, K03.priority, "the chargingPriority is out of range",
            expected="an integer from -9 to 9", actual=priority)
