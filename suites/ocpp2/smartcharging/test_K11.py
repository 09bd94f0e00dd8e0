"""K11 — External charging limit with an ongoing transaction (spec 001 SetChargingProfile rule 12;
Events: TransactionEventRequest triggerReason ChargingRateChanged): when an external limit changes
the rate of a charging EVSE beyond LimitChangeSignificance, the station tells the CSMS of the limit
(NotifyChargingLimit) and of the transaction's new rate (TransactionEvent Updated, triggerReason
ChargingRateChanged), and the composite of the charging EVSE obeys the limit. The test's change (a
TxProfile of 32 A cut to 6 A) is beyond any significance a station may configure below 80 %."""

import pytest

from harness.roles import CS, CSMS
from harness.rules import RuleTable, must
from harness.suite import OCPP2, case, checks
from harness.usecases.smart_charging import (ChargingProfiles, Installed, charging_profile, composite, external_limit,
                                             charging, install, judge_composite, new_id, oracle_station)
from harness.verdict import check_equal, require


class K11(RuleTable):
    """The rules of K11 (spec 001 rule 12; Events)."""
    rate_changed = must("spec 001 SetChargingProfile rule 12; Events (TransactionEventRequest ChargingRateChanged)",
                        "a charging transaction whose rate an external limit changes significantly reports "
                        "TransactionEvent Updated with triggerReason ChargingRateChanged", by=CS)
    bounded = must("spec 001 SetChargingProfile rule 12; Combination rules",
                   "the charging EVSE's composite obeys the external limit over its TxProfile", by=CS)
    answered = must("spec 001 Smart charging messages: NotifyChargingLimitRequest; TransactionEventResponse",
                    "the CSMS answers the limit's NotifyChargingLimit and the transaction's TransactionEvent",
                    by=CSMS)


pytestmark = case("K11", block="Smart charging", roles=("csms", "cs"), protocols=OCPP2,
                  requires=["smart_charging", "remote_start"])


@pytest.mark.sut_roles("csms")
@pytest.mark.parametrize("scope", ["evse", "station"])
@checks(ChargingProfiles.transaction, K11.answered)
async def test_external_limit_notifications_are_answered(ocpp, profile, scope):
    """During a transaction, an external 6 A limit on its EVSE or on the whole station: the CSMS answers the
    NotifyChargingLimit and the TransactionEvent Updated (ChargingRateChanged) that follow."""
    evse_id = profile.evses[0].id
    await charging(ocpp, evse_id)
    mark = ocpp.mark()
    await ocpp.act(CS, "set_external_limit", evse_id=evse_id if scope == "evse" else 0, source="EMS", limit=6.0)
    for action, where in (("NotifyChargingLimit", None),
                          ("TransactionEvent", lambda p: p.get("triggerReason") == "ChargingRateChanged")):
        answered = await ocpp.expect(action, sender=CS, after=mark, where=where)
        require(isinstance(answered.result, dict), K11.answered, f"{action} was not answered",
                expected="a response", actual=answered.result)


@pytest.mark.sut_roles("cs")
@pytest.mark.parametrize("scope", ["evse", "station"])
@checks(ChargingProfiles.transaction, ChargingProfiles.notified, K11.rate_changed)
async def test_external_limit_changes_the_rate_of_a_transaction(ocpp, profile, scope):
    """A transaction limited to 32 A by its TxProfile; an external 6 A limit on its EVSE or on the whole
    station: NotifyChargingLimit, then TransactionEvent Updated (ChargingRateChanged) for that transaction;
    the EVSE's composite obeys the limit."""
    evse_id = profile.evses[0].id
    limited = evse_id if scope == "evse" else 0
    transaction_id = await charging(ocpp, evse_id)
    installed = Installed(oracle_station(ocpp, {evse_id: transaction_id}))
    await install(ocpp, installed, evse_id, charging_profile(new_id(), [(0, "32.0")], purpose="TxProfile",
                                                             stack_level=1, duration=None, transactionId=transaction_id))
    mark = ocpp.mark()
    await external_limit(ocpp, installed, limited, "EMS", "6.0")
    event = await ocpp.expect("TransactionEvent", sender=CS, after=mark, rule=K11.rate_changed,
                              where=lambda p: p.get("triggerReason") == "ChargingRateChanged")
    check_equal(K11.rate_changed, "ChargingRateChanged TransactionEvent (eventType, transactionId)",
                ("Updated", transaction_id), (event.request["eventType"], event.request["transactionInfo"]["transactionId"]))
    judge_composite(installed, await composite(ocpp, evse_id, 1800, "A", K11.bounded), "A", K11.bounded, K11.bounded)
