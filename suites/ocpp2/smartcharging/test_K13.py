"""K13 — Reset / release of an external charging limit (spec 001 Smart charging messages:
ClearedChargingLimit; rule 12): when the external system releases its limit the station tells the
CSMS in ClearedChargingLimit, with the limit's source and EVSE, and no longer applies it: the
composite is the engine's without it. A CSMS answers ClearedChargingLimit with an empty response; spec 001
asks nothing more of it (it marks the limit released, internally, and MAY send profiles with higher limits,
rule 12)."""

import pytest

from harness.roles import CS, CSMS
from harness.rules import RuleTable, must, should
from harness.suite import OCPP2, TC, case, checks
from harness.usecases.smart_charging import (ChargingProfiles, Installed, charging, charging_profile, composite,
                                             external_limit, held_external_limit, install, judge_composite,
                                             judge_empty_answer, new_id, oracle_station, release_external_limit)
from harness.verdict import check_equal


class K13(RuleTable):
    """The rules of K13 (spec 001 ClearedChargingLimitRequest; rule 12)."""
    cleared = must("spec 001 Smart charging messages: ClearedChargingLimitRequest; Events",
                   "a station tells the CSMS of a released external limit in ClearedChargingLimit, with its source "
                   "and EVSE", by=CS)
    released = must("spec 001 SetChargingProfile rule 12; Combination rules",
                    "a released external limit no longer bounds the composite", by=CS)
    answered = must("spec 001 Smart charging messages: ClearedChargingLimitRequest",
                    "the CSMS answers ClearedChargingLimit with an empty response", by=CSMS)
    rate_changed = should("spec 001 SetChargingProfile rule 12 (on a significant change the CSMS is to expect "
                          "ChargingRateChanged: no SHALL); Events", "a charging transaction whose rate the release "
                          "changes reports TransactionEvent Updated with triggerReason ChargingRateChanged", by=CS)


pytestmark = case("K13", block="Smart charging", roles=("csms", "cs"), protocols=OCPP2, requires=["smart_charging"])


@pytest.mark.parametrize("source", ["EMS", "SO"])
@checks(ChargingProfiles.notified, K13.cleared, K13.answered, csms=TC("TC_K_50_CSMS", "ocpp2.0.1", when="EMS"))
async def test_released_limit_is_notified(ocpp, profile, source):
    """ClearedChargingLimit names the released limit's source and EVSE; the CSMS answers it empty."""
    evse_id = profile.evses[0].id
    installed = Installed(oracle_station(ocpp))
    await external_limit(ocpp, installed, evse_id, source, "10.0")
    exchange = await release_external_limit(ocpp, installed, evse_id, source, K13.cleared)
    if ocpp.is_sut(CS):
        check_equal(K13.cleared, "ClearedChargingLimitRequest (chargingLimitSource, evseId)", (source, evse_id),
                    (exchange.request["chargingLimitSource"], exchange.request.get("evseId")))
        return
    judge_empty_answer(K13.answered, "ClearedChargingLimit", exchange)


@pytest.mark.sut_roles("cs")
@checks(ChargingProfiles.accepted, K13.cleared, K13.released)
async def test_released_limit_no_longer_bounds_the_composite(ocpp, profile):
    """A 16 A TxDefaultProfile under an external 10 A limit; once released the composite is 16 A again."""
    evse_id = profile.evses[0].id
    installed = Installed(oracle_station(ocpp))
    await install(ocpp, installed, evse_id, charging_profile(new_id(), [(0, "16.0")], stack_level=1))
    await external_limit(ocpp, installed, evse_id, "EMS", "10.0")
    await release_external_limit(ocpp, installed, evse_id, "EMS", K13.cleared)
    judge_composite(installed, await composite(ocpp, evse_id, 1800, "A", K13.released), "A", K13.released,
                    K13.released)


@pytest.mark.requires("remote_start")
@checks(ChargingProfiles.transaction, ChargingProfiles.notified, K13.cleared, K13.answered, K13.rate_changed,
        csms=TC("TC_K_51_CSMS", "ocpp2.0.1"))
async def test_release_during_a_transaction(ocpp, profile):
    """A transaction charges under an external 6 A limit on its EVSE; the limit is released: ClearedChargingLimit
    (source, EVSE), answered empty, then TransactionEvent Updated with ChargingRateChanged for the transaction.
    That event is a SHOULD: spec 001 rule 12 only says the CSMS is to expect it on a significant change (the
    station's LimitChangeSignificance decides), so its absence is a finding; the CSMS answers it (rpc.answered)
    and the texts ask nothing more of it (it may send profiles with higher limits, rule 12: a MAY)."""
    evse_id = profile.evses[0].id
    transaction_id = await charging(ocpp, evse_id)
    await held_external_limit(ocpp, evse_id, "EMS", 6.0)
    mark = ocpp.mark()
    await ocpp.act(CS, "release_external_limit", evse_id=evse_id, source="EMS")
    cleared = await ocpp.expect("ClearedChargingLimit", sender=CS, after=mark, rule=K13.cleared)
    if ocpp.is_sut(CS):
        check_equal(K13.cleared, "ClearedChargingLimitRequest (chargingLimitSource, evseId)", ("EMS", evse_id),
                    (cleared.request["chargingLimitSource"], cleared.request.get("evseId")))
    else:
        judge_empty_answer(K13.answered, "ClearedChargingLimit", cleared)
    event = await ocpp.expect("TransactionEvent", sender=CS, after=mark, rule=K13.rate_changed,
                              where=lambda p: p.get("triggerReason") == "ChargingRateChanged")
    if event is not None:
        check_equal(K13.rate_changed, "ChargingRateChanged TransactionEvent (eventType, transactionId)",
                    ("Updated", transaction_id),
                    (event.request["eventType"], event.request["transactionInfo"]["transactionId"]))
