"""B13 — Reset with an ongoing transaction, without terminating it (OCPP 2.1 only): the operator has the CSMS
reset the station with type ImmediateAndResume while a transaction runs. The station restarts at once (boot
reason RemoteReset) but does not end the transaction: once back it resumes it and says so (TransactionEvent of
the same transactionId with triggerReason TxResumed), and the CSMS answers it. The requirements, in our words:
docs/requirements/provisioning.md.

Readings chosen where the texts are silent: the B13 requirement texts (B13.FR.01-31) could not be checked, so
what the station does is SHOULD (a finding); Rejected is a legal answer (a station that cannot resume
transactions, or whose TxCtrlr.ResumptionTimeout does not allow it: not applicable). Whether the station reports
the reset in an Updated event before the restart, and which chargingState the resumed transaction shows, is not
judged."""

from harness.arena.ocpp_sides import Restart
from harness.roles import CS, CSMS
from harness.rules import RuleTable, must, should
from harness.suite import case, checks
from harness.usecases.reset import Resets, accepted, rebooted, reset
from harness.usecases.smart_charging import ChargingProfiles, charging
from harness.verdict import check_equal, require


class B13(RuleTable):
    """The rules of B13 (OCPP 2.1 part 2, B13; ResetEnumType ImmediateAndResume)."""
    accepted = should("OCPP 2.1 part 2 B13; ResetEnumType (ImmediateAndResume); ResetStatusEnumType",
                      "a station that resumes transactions accepts an ImmediateAndResume reset at once (Accepted, "
                      "not Scheduled)", by=CS)
    kept = should("OCPP 2.1 part 2 B13 (reset without termination)",
                  "the reset does not end the running transaction: no TransactionEvent Ended for it", by=CS)
    resumed = should("OCPP 2.1 part 2 B13; TriggerReasonEnumType (TxResumed)",
                     "after the restart the station resumes the transaction: a TransactionEvent of the same "
                     "transactionId with triggerReason TxResumed", by=CS)
    answered = must("OCPP 2.1 part 2 TransactionEventResponse; RPC framework (every CALL answered)",
                    "the CSMS answers the TransactionEvent of the resumed transaction", by=CSMS)


pytestmark = case("B13", block="Provisioning", roles=("csms", "cs"), protocols=("ocpp2.1",),
                  requires=["remote_start"])


@checks(ChargingProfiles.transaction, Resets.request, B13.accepted, Restart.boots, Resets.boot_answered,
        Resets.reason, B13.kept, B13.resumed, B13.answered)
async def test_reset_and_resume_keeps_the_transaction(ocpp, profile):
    """ImmediateAndResume during a transaction: Accepted; the station reboots (RemoteReset) and resumes the same
    transaction (TxResumed) without ending it."""
    evse = profile.evses[0].id
    transaction_id = await charging(ocpp, evse)
    connections, mark, link = ocpp.connections(), ocpp.mark(), ocpp.link_number()
    accepted(await reset(ocpp, "ImmediateAndResume"), "Accepted", B13.accepted)
    await rebooted(ocpp, connections, "RemoteReset")

    def ours(p: dict) -> bool:
        return p["transactionInfo"]["transactionId"] == transaction_id

    resumed = await ocpp.expect("TransactionEvent", sender=CS, after=0, rule=B13.resumed,
                                where=lambda p: ours(p) and p["triggerReason"] == "TxResumed")
    ended = ocpp.sent("TransactionEvent", sender=CS, after=mark, on=link,
                      where=lambda p: ours(p) and p["eventType"] == "Ended") + \
        ocpp.sent("TransactionEvent", sender=CS, after=0, where=lambda p: ours(p) and p["eventType"] == "Ended")
    require(not ended, B13.kept, "the ImmediateAndResume reset ended the transaction",
            expected=f"transaction {transaction_id} running", actual=[e.request for e in ended])
    if resumed is not None:   # silence is a finding (SHOULD)
        check_equal(B13.resumed, "eventType of the resumed transaction's event", "Updated",
                    resumed.request["eventType"])
        if ocpp.is_sut(CSMS):
            require(resumed.error is None, B13.answered, "the CSMS answered the resumed transaction's "
                    "TransactionEvent with a CALLERROR", expected="TransactionEventResponse", actual=resumed.error)
