"""F04 — Remote stop of an ISO 15118 charging session: the EV talks ISO 15118 with the station (high-level
communication), the driver identified at the station, and the operator has the CSMS stop the transaction.
On the OCPP wire the stop is F03's (RequestStopTransaction, Accepted, TransactionEvent Ended with
RemoteStop); how the station ends the ISO 15118 session with the EV is not on the wire and is not judged.
The requirements, in our words: docs/requirements/remote_control.md.

Reading chosen where the sources are silent: F04's own requirements could not be checked against a public
text, so what the station does is judged as F03 judges it, at SHOULD where F03 has no public SHALL either.
A station that cannot play an ISO 15118 EV (``plug_in_hlc``) makes the test not applicable."""

from harness.roles import CS, CSMS
from harness.rules import RuleTable, must, should
from harness.suite import OCPP2, case, checks
from harness.usecases.authorization import token_with
from harness.usecases.remote_control import driver_transaction, stop_and_judge


class F04(RuleTable):
    """The rules of F04 (OCPP 2.0.1 part 2, F04 and E03.FR.05; the same in 2.1)."""
    started = must("spec 001 Events: TransactionEventRequest (Started)",
                   "the ISO 15118 EV's transaction begins with TransactionEvent Started", by=CS)
    request = must("OCPP 2.0.1 part 2 RequestStopTransactionRequest (transactionId required)",
                   "the CSMS sends RequestStopTransaction naming the ISO 15118 transaction its operator chose",
                   by=CSMS)
    accepted = must("spec 001 Other authorization messages: RequestStopTransactionResponse; OCPP 2.0.1 F04",
                    "a station accepts the remote stop of an ISO 15118 transaction it runs", by=CS)
    ended = should("OCPP 2.0.1 part 2 F04 (as F03)",
                   "the stopped ISO 15118 transaction ends with TransactionEvent Ended, triggerReason RemoteStop",
                   by=CS)
    stopped_reason = must("OCPP 2.0.1 E03.FR.05",
                          "the Ended TransactionEvent carries a stoppedReason (only Local may be left out)", by=CS)
    remote = should("OCPP 2.0.1 part 2 ReasonEnumType (Remote: stopped by the CSMS)",
                    "the stoppedReason of a remote stop is Remote", by=CS)


pytestmark = case("F04", block="Remote control", roles=("csms", "cs"), protocols=OCPP2, requires=["iso15118"])


@checks(F04.started, F04.request, F04.accepted, F04.ended, F04.stopped_reason, F04.remote)
async def test_remote_stop_of_an_iso15118_transaction(ocpp, profile):
    """An ISO 15118 EV plugged in, the driver's valid token, then the operator's stop: Accepted, Ended with
    RemoteStop and stoppedReason Remote."""
    evse, token = profile.evses[0].id, token_with(profile, "Accepted", type="ISO14443")
    started = await driver_transaction(ocpp, evse, token, F04.started, cable="plug_in_hlc")
    await stop_and_judge(ocpp, F04, started.request["transactionInfo"]["transactionId"])
