"""C05 — Authorization for a transaction started by the CSMS from an app (remote start).

The CSMS sends RequestStartTransaction with a fresh idToken of type Central and a remoteStartId;
after Accepted the station starts a transaction whose TransactionEvent carries triggerReason
RemoteStart and the same remoteStartId; Rejected means the station refused and no transaction
starts. RequestStopTransaction stops a running transaction.
"""

import secrets

import pytest

from harness.roles import CS, CSMS
from harness.rules import RuleTable, must, should
from harness.suite import OCPP2, case, checks
from harness.usecases.operations import operate
from harness.usecases.remote_control import RemoteStart, judge_own_token
from harness.verdict import check_equal, dig, require


class C05(RuleTable):
    """The rules of C05 (spec 001 Remote start rules 1-2, moves "Transaction started by app") and of
    the remote stop that ends such a transaction (spec 001 RequestStopTransaction)."""
    start_request = must("spec 001 Remote start rule 1",
                         "the CSMS sends RequestStartTransaction with a remoteStartId for the EVSE the app asked for",
                         by=CSMS)
    central_token = should("spec 001 Remote start rule 1", "an app start carries a fresh idToken of type Central",
                           by=CSMS)
    start_accepted = must("spec 001 Moves: Transaction started by app; Remote start rule 2",
                          "a station accepts a remote start on a free, known EVSE", by=CS)
    remote_start_id = must("spec 001 Remote start rule 1",
                           "the remoteStartId appears in a TransactionEvent of the transaction it started", by=CS)
    trigger_reason = must("spec 001 Moves: Transaction started by app",
                          "the transaction's TransactionEvent carries triggerReason RemoteStart", by=CS)
    refused = must("spec 001 Remote start rule 2",
                   "a station answers Rejected to a remote start it cannot serve, and starts nothing", by=CS)
    keeps_serving = must("spec 001 Remote start rule 2; spec 002 Messages: Heartbeat",
                         "after a refused remote start the CSMS keeps answering the station", by=CSMS)
    stop_request = must("spec 001 Other authorization messages: RequestStopTransactionRequest",
                        "the CSMS sends RequestStopTransaction naming the transaction it was asked to stop", by=CSMS)
    stop_accepted = must("spec 001 Other authorization messages: RequestStopTransactionResponse",
                         "a station accepts a remote stop of its running transaction", by=CS)
    stop_ends = must("spec 001 Events: TransactionEvent (Ended)",
                     "a remotely stopped transaction ends with TransactionEvent Ended, triggerReason RemoteStop", by=CS)
    stop_unknown = must("spec 001 Other authorization messages: RequestStopTransactionResponse (Accepted, Rejected); "
                        "OCPP 2.0.1 F03.FR.08 (SHALL: an unknown transactionId is Rejected)",
                        "a station answers Rejected to a RequestStopTransaction for a transaction it does not run",
                        by=CS)
    seq_no = should("spec 001 TransactionEventRequest seqNo; OCPP 2.0.1 part 2 TransactionEventRequest seqNo "
                    "(an incremental sequence number of the transaction's messages, E block; no SHALL)",
                    "the TransactionEvents of one transaction carry seqNo increasing in the order they are sent",
                    by=CS)


pytestmark = case("C05", block="Authorization", roles=("csms", "cs"), protocols=OCPP2, requires=["remote_start"])


def _central_token():
    return {"idToken": "APP-" + secrets.token_hex(6).upper(), "type": "Central"}


async def _remote_start(ocpp, evse_id):
    payload = {"idToken": _central_token(), "remoteStartId": secrets.randbelow(1_000_000) + 1, "evseId": evse_id}
    return await ocpp.exchange(CSMS, "RequestStartTransaction", payload,
                               trigger=("request_start_transaction", {"evse_id": evse_id}),
                               rule=C05.start_request)


def _carries(remote_start_id):
    return lambda p: dig(p, "transactionInfo.remoteStartId") == remote_start_id


@checks(C05.start_request, C05.central_token, C05.start_accepted, C05.remote_start_id, C05.trigger_reason,
        RemoteStart.own_token)
async def test_remote_start_is_correlated_by_remote_start_id(ocpp, profile):
    """The transaction that follows an accepted remote start carries its remoteStartId."""
    evse = profile.evses[0].id
    start = ocpp.mark()
    exchange = await _remote_start(ocpp, evse)
    remote_start_id = exchange.request["remoteStartId"]
    if ocpp.is_sut(CSMS):
        check_equal(C05.central_token, "RequestStartTransactionRequest idToken.type", "Central",
                    dig(exchange.request, "idToken.type"))
    check_equal(C05.start_accepted, "RequestStartTransactionResponse status", "Accepted", exchange.result["status"])
    event = await ocpp.expect("TransactionEvent", sender="cs", after=start, where=_carries(remote_start_id),
                              rule=C05.remote_start_id)
    check_equal(C05.trigger_reason, "TransactionEvent triggerReason", "RemoteStart", event.request["triggerReason"])
    judge_own_token(ocpp, event)


@checks(C05.start_request, C05.remote_start_id, RemoteStart.own_token, C05.stop_request, C05.stop_accepted,
        C05.stop_ends, C05.seq_no)
async def test_remote_stop_ends_the_transaction(ocpp, profile):
    """RequestStopTransaction for the running transaction is Accepted and ends it (RemoteStop). A CSMS
    must have accepted its own Central token first: a station whose transaction the CSMS refused ends it
    (Deauthorized), and its Rejected to the stop would be the harness's, not the SUT's."""
    evse = profile.evses[0].id
    start = ocpp.mark()
    exchange = await _remote_start(ocpp, evse)
    event = await ocpp.expect("TransactionEvent", sender="cs", after=start,
                              where=_carries(exchange.request["remoteStartId"]), rule=C05.remote_start_id)
    judge_own_token(ocpp, event)
    transaction_id = event.request["transactionInfo"]["transactionId"]
    stop_mark = ocpp.mark()
    stop = await operate(ocpp, "RequestStopTransaction", {"transactionId": transaction_id}, C05.stop_request)
    check_equal(C05.stop_accepted, "RequestStopTransactionResponse status", "Accepted", stop.result["status"])
    ended = await ocpp.expect("TransactionEvent", sender="cs", after=stop_mark,
                              where=lambda p: p["eventType"] == "Ended", rule=C05.stop_ends)
    check_equal(C05.stop_ends, "TransactionEvent transactionId", transaction_id,
                ended.request["transactionInfo"]["transactionId"])
    check_equal(C05.stop_ends, "TransactionEvent triggerReason", "RemoteStop", ended.request["triggerReason"])
    require(ended.request["seqNo"] > event.request["seqNo"], C05.seq_no, "the Ended TransactionEvent's seqNo is not "
            "above the one of the transaction's earlier TransactionEvent", expected=f"> {event.request['seqNo']}",
            actual=ended.request["seqNo"])


@checks(C05.stop_unknown)
@pytest.mark.sut_roles("cs")
async def test_remote_stop_of_an_unknown_transaction_is_rejected(ocpp):
    """RequestStopTransaction for a transactionId the station never started: Rejected."""
    unknown = f"unknown-{secrets.token_hex(8)}"
    stop = await ocpp.exchange(CSMS, "RequestStopTransaction", {"transactionId": unknown})
    check_equal(C05.stop_unknown, "RequestStopTransactionResponse status", "Rejected", stop.result["status"])


@checks(C05.refused)
@pytest.mark.sut_roles("cs")
async def test_remote_start_on_unknown_evse_is_rejected(ocpp, profile):
    """A remote start on an EVSE the station does not have is Rejected and starts nothing."""
    unknown_evse = max(e.id for e in profile.evses) + 1
    start = ocpp.mark()
    exchange = await _remote_start(ocpp, unknown_evse)
    check_equal(C05.refused, "RequestStartTransactionResponse status", "Rejected", exchange.result["status"])
    await ocpp.expect_none("TransactionEvent", after=start, where=_carries(exchange.request["remoteStartId"]),
                           rule=C05.refused)


@checks(C05.start_request, C05.keeps_serving)
@pytest.mark.sut_roles("csms")
async def test_csms_survives_a_rejected_remote_start(ocpp, profile):
    """After the station answers Rejected the CSMS keeps serving it (heartbeat answered). The CSMS is
    judged on what it sends: the start for the EVSE it was asked about; the harness's station then
    refuses it (C05.refused binds the station: a self-check here, never the SUT's failure)."""
    unknown_evse = max(e.id for e in profile.evses) + 1
    exchange = await _remote_start(ocpp, unknown_evse)
    check_equal(C05.start_request, "RequestStartTransactionRequest evseId", unknown_evse,
                exchange.request.get("evseId"))
    check_equal(C05.refused, "RequestStartTransactionResponse status", "Rejected", exchange.result["status"])
    beat = await ocpp.call_sut("Heartbeat", {})
    require(beat.error is None, C05.keeps_serving, "the CSMS answered a Heartbeat with a CALLERROR after the refused "
            "remote start", expected="HeartbeatResponse", actual=beat.error)
    heartbeat = beat.result
    require("currentTime" in heartbeat, C05.keeps_serving, "HeartbeatResponse lacks currentTime",
            expected="currentTime", actual=heartbeat)
