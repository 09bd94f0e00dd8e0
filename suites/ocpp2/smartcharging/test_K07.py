"""K07 — A transaction started while the station is offline (spec 001 Moves: TxDefaultProfile; rule 10):
the TxDefaultProfile the CSMS set before the outage applies to it. A driver presents a token the CSMS
accepts while the station is offline; the station must start for it alone, which needs the profile's
[authorization] offline_tx_for_unknown_id = true (the station cannot ask). Once back, the composite
of the transaction's EVSE is judged against the engine's, the transaction running.

The CSMS's side (rule 10: a conservative TxDefaultProfile for stations that may go offline) is the
operator's SetChargingProfile, judged in K01."""

from harness.roles import CS
from harness.errors import NotApplicable
from harness.rules import RuleTable, must
from harness.suite import OCPP2, case, checks, needs
from harness.usecases.local_list import plain_token, present_offline, started_with
from harness.usecases.smart_charging import (ChargingProfiles, Installed, charging_profile, composite, install,
                                             judge_composite, new_id, oracle_station)
from harness import clock, smartcharging as sc


class K07(RuleTable):
    """The rules of K07 (spec 001 Moves: TxDefaultProfile)."""
    applied = must("spec 001 Moves: TxDefaultProfile (transaction started while offline: profile applied)",
                   "a TxDefaultProfile set before an outage applies to a transaction started offline", by=CS)


pytestmark = case("K07", block="Smart charging", roles=("cs",), protocols=OCPP2, requires=["smart_charging"])


def _starts_offline(given) -> None:
    """``needs`` condition: the station starts a transaction offline for a token it cannot check."""
    if not given.profile.authorization("offline_tx_for_unknown_id", False):
        raise NotApplicable("the station does not start offline for a token it cannot check: the test needs "
                            "[authorization] offline_tx_for_unknown_id = true in the profile")


@needs(_starts_offline, lambda given: plain_token(given.profile, "Accepted"))
@checks(ChargingProfiles.accepted, K07.applied)
async def test_default_applies_to_a_transaction_started_offline(ocpp, profile):
    """A TxDefaultProfile of 12 A then 7 A at the EVSE; offline, a driver starts a transaction there; once
    back, the EVSE's composite is the engine's for that transaction (12 A, then 7 A)."""
    evse_id = profile.evses[0].id
    installed = Installed(oracle_station(ocpp))
    await install(ocpp, installed, evse_id, charging_profile(new_id(), [(0, "12.0"), (1800, "7.0")]))
    token = plain_token(profile, "Accepted")
    await present_offline(ocpp, token, evse_id, K07.applied)
    started = await started_with(ocpp, token, 0, K07.applied)
    installed.station.transactions[evse_id] = sc.Transaction(started.request["transactionInfo"]["transactionId"],
                                                             clock.utcnow())
    judge_composite(installed, await composite(ocpp, evse_id, 3600, "A", K07.applied), "A", K07.applied,
                    K07.applied)
