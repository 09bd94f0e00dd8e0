"""K12 — External charging limit without an ongoing transaction (spec 001 SetChargingProfile rule 12;
Smart charging messages: NotifyChargingLimit): an external system (an EMS, the grid operator, ...)
limits the station; it tells the CSMS in NotifyChargingLimit, with the limit's source (never CSO),
holds the limit as a ChargingStationExternalConstraints profile of that source, and no composite
exceeds it. A CSMS answers NotifyChargingLimit with an empty response. The engine
(harness/smartcharging/engine.py, composite rule C5, report rule K3) is the oracle.

What the CSMS owes beyond the empty answer: nothing observable. Spec 001 has it store the limit (internal) and
names no later GetChargingProfiles or GetCompositeSchedule it must send; when it asks for the profiles, it asks
as its operator asked (TC_K_52)."""

import pytest

from harness.roles import CS, CSMS
from harness.rules import RuleTable, must
from harness.suite import OCPP2, TC, case, checks
from harness.usecases.smart_charging import (ChargingProfiles, Installed, charging_profile, composite, external_limit,
                                             held_external_ids, held_external_limit, install, judge_composite,
                                             judge_empty_answer, new_id, oracle_station)
from harness.verdict import check_equal, check_in, dig


class K12(RuleTable):
    """The rules of K12 (spec 001 rule 12; NotifyChargingLimitRequest; ChargingLimitType; Purposes)."""
    answered = must("spec 001 Smart charging messages: NotifyChargingLimitRequest",
                    "the CSMS answers NotifyChargingLimit with an empty response", by=CSMS)
    bounded = must("spec 001 SetChargingProfile rule 12; Combination rules",
                   "no composite of the limited EVSE exceeds the external limit", by=CS)


pytestmark = case("K12", block="Smart charging", roles=("csms", "cs"), protocols=OCPP2, requires=["smart_charging"])

SOURCES = ["EMS", "SO", "Other"]


@pytest.mark.parametrize("source", SOURCES)
@checks(ChargingProfiles.notified, K12.answered, csms=TC("TC_K_48_CSMS", "ocpp2.0.1", when="EMS"))
async def test_external_limit_is_notified(ocpp, profile, source):
    """The station's NotifyChargingLimit names the limit's source (EMS, SO or Other; never CSO) and the EVSE;
    the CSMS answers it with an empty response."""
    evse_id = profile.evses[0].id
    exchange = await external_limit(ocpp, Installed(oracle_station(ocpp)), evse_id, source, "10.0")
    if ocpp.is_sut(CS):
        sent = dig(exchange.request, "chargingLimit.chargingLimitSource")
        check_in(ChargingProfiles.notified, "NotifyChargingLimitRequest chargingLimit.chargingLimitSource",
                 ("EMS", "SO", "Other"), sent)
        check_equal(ChargingProfiles.notified, "NotifyChargingLimitRequest (chargingLimitSource, evseId)",
                    (source, evse_id), (sent, exchange.request.get("evseId")))
        return
    judge_empty_answer(K12.answered, "NotifyChargingLimit", exchange)


@pytest.mark.sut_roles("cs")
@checks(ChargingProfiles.accepted, ChargingProfiles.notified, K12.bounded)
async def test_external_limit_bounds_the_composite(ocpp, profile):
    """Over a 16 A TxDefaultProfile, an external 10 A limit on the EVSE: its composite is the engine's (10 A)."""
    evse_id = profile.evses[0].id
    installed = Installed(oracle_station(ocpp))
    await install(ocpp, installed, evse_id, charging_profile(new_id(), [(0, "16.0")], stack_level=1))
    await external_limit(ocpp, installed, evse_id, "EMS", "10.0")
    judge_composite(installed, await composite(ocpp, evse_id, 1800, "A", K12.bounded), "A", K12.bounded,
                    K12.bounded)


@pytest.mark.parametrize("source", SOURCES)
@checks(ChargingProfiles.notified, K12.answered, ChargingProfiles.external_held, ChargingProfiles.tbc,
        ChargingProfiles.report_sent, csms=TC("TC_K_52_CSMS", "ocpp2.0.1"))
async def test_external_limit_is_reported_under_its_source(ocpp, profile, source):
    """GetChargingProfiles for the EVSE and the limit's source reports it: an ExternalConstraints profile,
    under that chargingLimitSource. A CSMS answers the NotifyChargingLimit empty and asks for the profiles
    as its operator asked; the report's response is not shown in the texts (spec 001 Messages sent by the
    CSMS), so they ask nothing more of it than an answer (rpc.answered)."""
    evse_id = profile.evses[0].id
    notified = await held_external_limit(ocpp, evse_id, source, 10.0)
    if ocpp.is_sut(CSMS):
        judge_empty_answer(K12.answered, "NotifyChargingLimit", notified)
    await held_external_ids(ocpp, evse_id, source)
