"""F07 — Remote start of a transaction with a fixed cost, energy or time (OCPP 2.1 only): the operator has the
CSMS start a transaction remotely and limit it. The 2.1 RequestStartTransactionRequest carries no limit: the
CSMS gives it in its answer to the transaction's Started event (TransactionEventResponse.transactionLimit:
maxCost, maxEnergy, maxTime, maxSoC), and the station stops the transaction when the limit is reached
(TriggerReasonEnumType and ReasonEnumType TimeLimitReached, EnergyLimitReached, CostLimitReached). The
requirements, in our words: docs/requirements/remote_control.md.

Readings chosen where the texts are silent: the F07 requirement texts (F07.FR.01-04) could not be checked, so
what either side does beyond the schema is SHOULD (a finding). The limit played is maxTime (the one a test can
reach without a metered EV). The station may end the transaction when the time is up or only suspend it
(an Updated event): the first TransactionEvent with triggerReason TimeLimitReached is judged, and an Ended
one should carry stoppedReason TimeLimitReached."""

import secrets

from harness.roles import CS, CSMS
from harness.rules import RuleTable, must, should
from harness.suite import case, checks
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


pytestmark = case("F07", block="Remote control", roles=("csms", "cs"), protocols=("ocpp2.1",),
                  requires=["remote_start"])

MAX_TIME = 2   # seconds: a limit reached within the test


@checks(F07.request, F07.accepted, ChargingProfiles.transaction, F07.limit, F07.time_limit)
async def test_remote_start_with_a_time_limit(ocpp, profile):
    """The operator starts a transaction on the first EVSE limited to two seconds: the Started event is answered
    with transactionLimit.maxTime 2, and after two seconds the station reports TimeLimitReached."""
    evse, limit = profile.evses[0].id, {"maxTime": MAX_TIME}
    mark = ocpp.mark()
    await ocpp.act(CSMS, "request_start_transaction_with_limit", evse_id=evse, transaction_limit=limit,
                   remote_start_id=secrets.randbelow(10**6) + 1)
    start = await ocpp.expect("RequestStartTransaction", sender=CSMS, after=mark, rule=F07.request)
    check_equal(F07.request, "RequestStartTransactionRequest evseId", evse, start.request.get("evseId"))
    check_equal(F07.accepted, "RequestStartTransactionResponse status", "Accepted", start.result["status"])
    started = await ocpp.expect("TransactionEvent", sender=CS, after=mark, rule=ChargingProfiles.transaction,
                                where=lambda p: p["eventType"] == "Started" and dig(p, "evse.id", evse) == evse)
    check_equal(F07.limit, "TransactionEventResponse transactionLimit of the Started event", limit,
                started.result.get("transactionLimit"))
    if dig(started.result, "transactionLimit.maxTime") is None:
        return   # a CSMS under test gave no time limit (the finding above): the station has none to keep
    transaction_id = started.request["transactionInfo"]["transactionId"]
    reached = await ocpp.expect("TransactionEvent", sender=CS, after=ocpp.mark_after(started), rule=F07.time_limit,
                                timeout=MAX_TIME + ocpp.timeouts.action,
                                where=lambda p: p["transactionInfo"]["transactionId"] == transaction_id
                                and p["triggerReason"] == "TimeLimitReached")
    if reached is not None and reached.request["eventType"] == "Ended":   # silence is a finding (SHOULD)
        check_equal(F07.time_limit, "stoppedReason of the transaction its time limit ended", "TimeLimitReached",
                    reached.request["transactionInfo"].get("stoppedReason"))
