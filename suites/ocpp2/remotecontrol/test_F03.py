"""F03 — Remote stop: the operator has the CSMS send RequestStopTransaction for a transaction a driver
started at the station (C05 plays the stop of a transaction the CSMS started itself, and of one the
station does not know). The station accepts it and ends the transaction: TransactionEvent Ended with
triggerReason RemoteStop, and a stoppedReason (E03.FR.05), Remote by the enumeration's meaning. The
requirements, in our words: docs/requirements/remote_control.md."""

from harness.roles import CS, CSMS
from harness.rules import RuleTable, must, should
from harness.suite import OCPP2, case, checks
from harness.usecases.authorization import token_with
from harness.usecases.remote_control import driver_transaction, stop_and_judge


class F03(RuleTable):
    """The rules of F03 (OCPP 2.0.1 part 2, F03 and E03.FR.05; the same in 2.1)."""
    started = must("spec 001 Events: TransactionEventRequest (Started)",
                   "a transaction a driver authorized at the station begins with TransactionEvent Started", by=CS)
    request = must("OCPP 2.0.1 part 2 RequestStopTransactionRequest (transactionId required)",
                   "the CSMS sends RequestStopTransaction naming the transaction its operator chose", by=CSMS)
    accepted = must("spec 001 Other authorization messages: RequestStopTransactionResponse; OCPP 2.0.1 F03",
                    "a station accepts the remote stop of a transaction it runs, whoever started it", by=CS)
    ended = must("spec 001 Events: TransactionEvent (Ended)",
                 "the stopped transaction ends with TransactionEvent Ended, triggerReason RemoteStop", by=CS)
    stopped_reason = must("OCPP 2.0.1 E03.FR.05",
                          "the Ended TransactionEvent of a remote stop carries a stoppedReason (only Local may be "
                          "left out)", by=CS)
    remote = should("OCPP 2.0.1 part 2 ReasonEnumType (Remote: stopped by the CSMS)",
                    "the stoppedReason of a remote stop is Remote", by=CS)


pytestmark = case("F03", block="Remote control", roles=("csms", "cs"), protocols=OCPP2)


@checks(F03.started, F03.request, F03.accepted, F03.ended, F03.stopped_reason, F03.remote)
async def test_remote_stop_of_a_driver_transaction(ocpp, profile):
    """A driver's transaction (cable, then the profile's valid token) stopped by the operator: Accepted, Ended
    with RemoteStop and stoppedReason Remote."""
    evse, token = profile.evses[0].id, token_with(profile, "Accepted", type="ISO14443")
    started = await driver_transaction(ocpp, evse, token, F03.started)
    await stop_and_judge(ocpp, F03, started.request["transactionInfo"]["transactionId"])
