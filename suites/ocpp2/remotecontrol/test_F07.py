"""F07 — Remote start of a transaction with a fixed cost, energy or time (OCPP 2.1 only): the operator has the
CSMS start a transaction remotely and limit it. The 2.1 RequestStartTransactionRequest carries no limit: the
CSMS gives it in its answer to the transaction's Started event (TransactionEventResponse.transactionLimit:
maxCost, maxEnergy, maxTime, maxSoC), and the station stops the transaction when the limit is reached
(TriggerReasonEnumType and ReasonEnumType TimeLimitReached, EnergyLimitReached, CostLimitReached). The
requirements, in our words: docs/requirements/remote_control.md.

Readings chosen where the texts are silent: the F07 requirement texts (F07.FR.01-04) could not be checked, so
what either side does beyond the schema is SHOULD (a finding). The limits played are maxTime and maxEnergy (the
cable in first, the energy counted by the periodic samples of SampledDataCtrlr.TxUpdatedInterval); maxCost needs
a tariff the station prices by and maxSoC an EV reporting its state of charge: not played. The station may end
the transaction when a limit is reached or only suspend it (an Updated event, SuspendedEVSE): the first
TransactionEvent with triggerReason TimeLimitReached (EnergyLimitReached) is judged, and an Ended one should carry
the same stoppedReason."""

import secrets

from harness.ocpp.equivalence import same
from harness.roles import CS, CSMS
from harness.rules import Rule, RuleTable, must, should
from harness.suite import case, checks
from harness.transport.ws import Exchange
from harness.usecases.authorization import station_variable
from harness.usecases.smart_charging import ChargingProfiles
from harness.verdict import check_equal, dig


class F07(RuleTable):
    """The rules of F07 (OCPP 2.1 part 2, F07; TransactionEventResponse.transactionLimit)."""
    request = must("OCPP 2.1 part 2 RequestStartTransactionRequest (idToken, remoteStartId required; evseId)",
                   "the CSMS sends RequestStartTransaction for the EVSE its operator chose", by=CSMS)
    accepted = must("spec 001 Moves: Transaction started by app; Remote start rule 2",
                    "a station accepts a remote start on its free, known EVSE", by=CS)
    limit = should("OCPP 2.1 part 2 F07; TransactionEventResponse.transactionLimit (TransactionLimitType)",
                   "the CSMS answers the Started event of the limited remote start with the transactionLimit its "
                   "operator asked for", by=CSMS)
    time_limit = should("OCPP 2.1 part 2 F07; TransactionLimitType.maxTime; TriggerReasonEnumType and "
                        "ReasonEnumType (TimeLimitReached)",
                        "once maxTime seconds have passed since the start the station stops the transaction and "
                        "says so (triggerReason TimeLimitReached; an Ended event with stoppedReason "
                        "TimeLimitReached)", by=CS)
    energy_limit = should("OCPP 2.1 part 2 F07; TransactionLimitType.maxEnergy; TriggerReasonEnumType and "
                          "ReasonEnumType (EnergyLimitReached)",
                          "once the transaction took maxEnergy Wh the station stops the energy and says so "
                          "(triggerReason EnergyLimitReached: Updated with SuspendedEVSE, or Ended with stoppedReason "
                          "EnergyLimitReached)", by=CS)


pytestmark = case("F07", block="Remote control", roles=("csms", "cs"), protocols=("ocpp2.1",),
                  requires=["remote_start"])

MAX_TIME = 2   # seconds: a limit reached within the test


MAX_ENERGY = 200   # Wh: a limit the periodic samples reach within the test
INTERVAL, PATIENCE = 10, 6   # seconds between periodic samples; the intervals the station is given to count it


async def limited_start(ocpp, evse: int, limit: dict) -> Exchange | None:
    """The operator starts a transaction on ``evse`` remotely, limited to ``limit``: the request and its answer
    judged, the Started event's answer carries the limit (a finding otherwise); returns the Started event (None: the
    answer carried no limit, so the station has none to keep)."""
    mark = ocpp.mark()
    await ocpp.act(CSMS, "request_start_transaction_with_limit", evse_id=evse, transaction_limit=limit,
                   remote_start_id=secrets.randbelow(10**6) + 1)
    start = await ocpp.expect("RequestStartTransaction", sender=CSMS, after=mark, rule=F07.request)
    check_equal(F07.request, "RequestStartTransactionRequest evseId", evse, start.request.get("evseId"))
    check_equal(F07.accepted, "RequestStartTransactionResponse status", "Accepted", start.result["status"])
    started = await ocpp.expect("TransactionEvent", sender=CS, after=mark, rule=ChargingProfiles.transaction,
                                where=lambda p: p["eventType"] == "Started" and dig(p, "evse.id", evse) == evse)
    check_equal(F07.limit, "TransactionEventResponse transactionLimit of the Started event", limit,
                started.result.get("transactionLimit"), same=same(ocpp.version))
    return started if all(dig(started.result, f"transactionLimit.{k}") is not None for k in limit) else None


async def reached(ocpp, started: Exchange, trigger: str, within: float, rule: Rule) -> None:
    """The station says the limit of the transaction ``started`` began was reached (``trigger``) within ``within``
    seconds; an Ended event carries it as stoppedReason (``rule``; silence is a finding)."""
    transaction_id = started.request["transactionInfo"]["transactionId"]
    event = await ocpp.expect("TransactionEvent", sender=CS, after=ocpp.mark_after(started), rule=rule,
                              timeout=within, where=lambda p: p["transactionInfo"]["transactionId"] == transaction_id
                              and p["triggerReason"] == trigger)
    if event is not None and event.request["eventType"] == "Ended":
        check_equal(rule, f"stoppedReason of the transaction its limit ended ({trigger})", trigger,
                    event.request["transactionInfo"].get("stoppedReason"))


@checks(F07.request, F07.accepted, ChargingProfiles.transaction, F07.limit, F07.time_limit)
async def test_remote_start_with_a_time_limit(ocpp, profile):
    """The operator starts a transaction on the first EVSE limited to two seconds: the Started event is answered
    with transactionLimit.maxTime 2, and after two seconds the station reports TimeLimitReached."""
    started = await limited_start(ocpp, profile.evses[0].id, {"maxTime": MAX_TIME})
    if started is not None:
        await reached(ocpp, started, "TimeLimitReached", MAX_TIME + ocpp.timeouts.action, F07.time_limit)


@checks(F07.request, F07.accepted, ChargingProfiles.transaction, F07.limit, F07.energy_limit)
async def test_remote_start_with_an_energy_limit(ocpp, profile):
    """The cable in, the operator starts a transaction on the first EVSE limited to 200 Wh: the Started event is
    answered with transactionLimit.maxEnergy 200, and once 200 Wh flowed the station reports EnergyLimitReached."""
    evse = profile.evses[0].id
    await station_variable(ocpp, "SampledDataCtrlr", "TxUpdatedInterval", str(INTERVAL))
    await ocpp.act(CS, "plug_in", evse_id=evse)
    started = await limited_start(ocpp, evse, {"maxEnergy": MAX_ENERGY})
    if started is not None:
        await reached(ocpp, started, "EnergyLimitReached", PATIENCE * INTERVAL, F07.energy_limit)
