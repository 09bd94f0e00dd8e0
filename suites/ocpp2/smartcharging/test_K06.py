"""K06 — Offline behaviour of smart charging during a transaction (spec 001 Moves: TxProfile; rule 10):
a TxProfile set before the station went offline stays in use, and once it expires the station falls
back to its TxDefaultProfile and ChargingStationMaxProfile. What the station used while nobody could
ask is not on the wire: the composite it reports once back is judged, which must still hold the
TxProfile (or, past its expiry, the fallback) exactly as the engine computes it.

The CSMS's side (rule 10: send the TxProfile before an outage) is the operator's SetChargingProfile,
judged in K01 and K02."""

import pytest

from harness.rules import RuleTable, must
from harness.roles import CS
from harness.suite import OCPP2, case, checks
from harness.usecases.local_list import outage
from harness.usecases.smart_charging import (ChargingProfiles, Installed, charging, charging_profile, composite,
                                             install, judge_composite, new_id, oracle_station)


class K06(RuleTable):
    """The rules of K06 (spec 001 Moves: TxProfile when the station goes offline)."""
    stays = must("spec 001 Moves: TxProfile (CS goes offline, profile set before: profile stays in use)",
                 "a TxProfile set before the station went offline stays in use through the outage", by=CS)
    fallback = must("spec 001 Moves: TxProfile (after the TxProfile expires the station falls back to "
                    "TxDefaultProfile and ChargingStationMaxProfile)",
                    "once the TxProfile expires the composite is the TxDefaultProfile within the "
                    "ChargingStationMaxProfile", by=CS)


pytestmark = case("K06", block="Smart charging", roles=("cs",), protocols=OCPP2,
                  requires=["smart_charging", "remote_start"])

# name: (the TxProfile's duration in seconds: None lasts as long as its transaction, the rule judged)
TX_PROFILES = {"lasting": (None, K06.stays), "expiring": (900, K06.fallback)}


@pytest.mark.parametrize("name", list(TX_PROFILES))
@checks(ChargingProfiles.accepted, K06.stays, K06.fallback)
async def test_tx_profile_holds_through_an_outage(ocpp, profile, name):
    """A station max of 20 A, a TxDefaultProfile of 16 A then 10 A and the transaction's TxProfile of 6 A (lasting,
    or ending 900 s after its start a minute ago); the station goes offline and comes back: the composite of
    its EVSE is the engine's (6 A throughout, or 6 A then the fallback to 16 A and 10 A)."""
    duration, rule = TX_PROFILES[name]
    evse_id = profile.evses[0].id
    transaction_id = await charging(ocpp, evse_id)
    installed = Installed(oracle_station(ocpp, {evse_id: transaction_id}))
    await install(ocpp, installed, 0, charging_profile(new_id(), [(0, "20.0")], purpose="ChargingStationMaxProfile"))
    await install(ocpp, installed, evse_id, charging_profile(new_id(), [(0, "16.0"), (2400, "10.0")]))
    await install(ocpp, installed, evse_id, charging_profile(new_id(), [(0, "6.0")], purpose="TxProfile",
                                                             stack_level=1, duration=duration,
                                                             transactionId=transaction_id))
    await outage(ocpp, rule)
    judge_composite(installed, await composite(ocpp, evse_id, 3600, "A", rule), "A", rule, rule)
