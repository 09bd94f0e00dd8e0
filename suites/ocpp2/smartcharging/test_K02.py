"""K02 — Central smart charging: the CSMS limits a running transaction with a TxProfile naming it
(spec 001 SetChargingProfile rules 2 and 7): the station applies it over its TxDefaultProfiles,
refuses one for a transaction it is not running (TxNotFound) or a second one at the same stackLevel
(DuplicateProfile), and deletes it when the transaction ends. The engine
(harness/smartcharging/engine.py) is the oracle of every answer and composite."""

import pytest

from harness.roles import CS, CSMS
from harness.errors import HarnessError
from harness.rules import RuleTable, must, should
from harness.suite import OCPP2, TC, case, checks, needs
from harness.usecases.smart_charging import (ChargingProfiles, Installed, charging, charging_profile, composite, get_profiles,
                                             install, judge_composite, judge_sent_profile, new_id, oracle_station,
                                             set_profile, two_evses)
from harness.verdict import check_equal, check_in, dig


class K02(RuleTable):
    """The rules of K02 (spec 001 SetChargingProfile rules 2, 4 and 7; Combination rules; Errors)."""
    tx_profile = must("spec 001 SetChargingProfile rules 2 and 7",
                      "the CSMS limits a running transaction with a TxProfile naming it, at its EVSE", by=CSMS)
    overrules = must("spec 001 Combination rules; Purposes (TxProfile overrules TxDefaultProfile)",
                     "while its transaction runs, the TxProfile replaces the TxDefaultProfiles in the composite", by=CS)
    deleted = must("spec 001 SetChargingProfile rule 7; OCPP 2.0.1 K02.FR.05",
                   "when its transaction ends the station deletes the TxProfile", by=CS)
    refused = must("spec 001 SetChargingProfile rules 2 and 4; Errors",
                   "a TxProfile for a transaction the EVSE is not running, or a second one at the same stackLevel "
                   "for the transaction, is Rejected", by=CS)
    reason_code = should("spec 001 Errors (TxNotFound, DuplicateProfile)",
                         "the refusal names its cause: TxNotFound or DuplicateProfile", by=CS)


pytestmark = case("K02", block="Smart charging", roles=("csms", "cs"), protocols=OCPP2,
                  requires=["smart_charging", "remote_start"])


def _tx_profile(transaction_id: str, limits=((0, "8.0"), (900, "12.0")), stack_level: int = 1) -> dict:
    """A TxProfile without duration: it lasts as long as its transaction (rule 7)."""
    return charging_profile(new_id(), list(limits), purpose="TxProfile", stack_level=stack_level, duration=None,
                            transactionId=transaction_id)


async def _charging(ocpp, evse_id: int) -> tuple[Installed, str]:
    """A transaction on ``evse_id`` and the engine's model of the station running it."""
    transaction_id = await charging(ocpp, evse_id)
    return Installed(oracle_station(ocpp, {evse_id: transaction_id})), transaction_id


@pytest.mark.sut_roles("cs")
@checks(ChargingProfiles.accepted, K02.overrules)
async def test_tx_profile_overrules_the_default(ocpp, profile):
    """A TxDefaultProfile of 16 A and the transaction's TxProfile: the EVSE's composite follows the TxProfile."""
    evse_id = profile.evses[0].id
    installed, transaction_id = await _charging(ocpp, evse_id)
    await install(ocpp, installed, evse_id, charging_profile(new_id(), [(0, "16.0")], stack_level=5))
    await install(ocpp, installed, evse_id, _tx_profile(transaction_id))
    judge_composite(installed, await composite(ocpp, evse_id, 1800, "A", K02.tx_profile), "A", K02.overrules,
                    K02.overrules)


@pytest.mark.sut_roles("cs")
@checks(ChargingProfiles.accepted, K02.deleted, ChargingProfiles.reported)
async def test_tx_profile_is_deleted_when_its_transaction_ends(ocpp, profile):
    """Installed and reported while the transaction runs; after the transaction ended, no longer reported."""
    evse_id = profile.evses[0].id
    installed, transaction_id = await _charging(ocpp, evse_id)
    wire = _tx_profile(transaction_id)
    await install(ocpp, installed, evse_id, wire)
    query = {"chargingProfile": {"chargingProfileId": [wire["id"]]}}
    _, reports = await get_profiles(ocpp, query | {"requestId": new_id()})
    check_equal(ChargingProfiles.reported, "TxProfile reported while its transaction runs", [wire["id"]],
                [p["id"] for r in reports for p in r["chargingProfile"]])
    mark = ocpp.mark()
    stop = await ocpp.exchange(CSMS, "RequestStopTransaction", {"transactionId": transaction_id})
    check_equal(K02.deleted, "RequestStopTransactionResponse status", "Accepted", stop.result["status"])
    await ocpp.expect("TransactionEvent", sender=CS, after=mark, rule=K02.deleted,
                      where=lambda p: p["eventType"] == "Ended")
    after, reports = await get_profiles(ocpp, query | {"requestId": new_id()})
    check_equal(K02.deleted, "profiles reported after the transaction ended (GetChargingProfiles status, ids)",
                ("NoProfiles", []), (after.result["status"], [p["id"] for r in reports for p in r["chargingProfile"]]))


# name: (the EVSE of the TxProfile: the charging one or the other, its transactionId: the running one or
# another, stackLevel the same as an installed TxProfile's or not, the reasonCode)
REFUSALS = {
    "another-transaction": (False, False, False, "TxNotFound"),
    "idle-evse": (True, True, False, "TxNotFound"),
    "same-stack-level": (False, True, True, "DuplicateProfile"),
}


@pytest.mark.sut_roles("cs")
@needs(two_evses)
@pytest.mark.parametrize("name", list(REFUSALS))
@checks(ChargingProfiles.accepted, K02.refused, K02.reason_code)
async def test_tx_profile_that_does_not_fit_the_transaction_is_rejected(ocpp, profile, name):
    """A TxProfile naming another transaction, or the running one at an idle EVSE, is TxNotFound; a second
    TxProfile at the stackLevel of the transaction's first is DuplicateProfile."""
    other_evse, running, twin, code = REFUSALS[name]
    evse_id, idle = profile.evses[0].id, profile.evses[1].id
    installed, transaction_id = await _charging(ocpp, evse_id)
    if twin:
        await install(ocpp, installed, evse_id, _tx_profile(transaction_id, stack_level=2))
    wire = _tx_profile(transaction_id if running else f"not-{transaction_id}"[:36], stack_level=2 if twin else 1)
    at = idle if other_evse else evse_id
    expected = installed.decide(at, wire)
    if expected.accepted or expected.rule.reason_code != code:
        raise HarnessError(f"test data error: the rules answer the {name} case {expected.response()}")
    exchange = await set_profile(ocpp, at, wire)
    check_equal(K02.refused, f"SetChargingProfileResponse status ({expected.rule.id})", "Rejected",
                exchange.result["status"])
    check_in(K02.reason_code, "SetChargingProfileResponse statusInfo.reasonCode", (code,),
             dig(exchange.result, "statusInfo.reasonCode"))


@pytest.mark.sut_roles("csms")
@checks(ChargingProfiles.sent, K02.tx_profile, csms=TC("TC_K_60_CSMS", "ocpp2.0.1"))
async def test_csms_limits_the_running_transaction(ocpp, profile):
    """The operator limits the running transaction: the CSMS sends that TxProfile with its transactionId, at
    its EVSE, as asked, and the rules allow it for the transaction running there."""
    evse_id = profile.evses[0].id
    installed, transaction_id = await _charging(ocpp, evse_id)
    asked = _tx_profile(transaction_id)
    exchange = await set_profile(ocpp, evse_id, asked)
    judge_sent_profile(exchange, evse_id, asked, installed.station, K02.tx_profile)
