"""C05 — Authorization for a transaction started by the CSMS from an app (remote start).

Rules (spec 001, Remote start rules 1-2, moves "Transaction started by app"): the CSMS
sends RequestStartTransaction with a fresh idToken of type Central and a remoteStartId;
after Accepted the station starts a transaction whose TransactionEvent carries
triggerReason RemoteStart and the same remoteStartId; Rejected means the station refused
and no transaction starts. RequestStopTransaction stops a running transaction.
"""

import secrets

import pytest

from harness.arena import CSMS
from harness.suite import OCPP2, case
from harness.verdict import check_equal, dig, finding

pytestmark = case("C05", block="Authorization", roles=("csms", "cs"), protocols=OCPP2, requires=["remote_start"])


def _central_token():
    return {"idToken": "APP-" + secrets.token_hex(6).upper(), "type": "Central"}


async def _remote_start(ocpp, evse_id):
    payload = {"idToken": _central_token(), "remoteStartId": secrets.randbelow(1_000_000) + 1, "evseId": evse_id}
    return await ocpp.exchange(CSMS, "RequestStartTransaction", payload,
                               trigger=("request_start_transaction", {"evse_id": evse_id}),
                               rule="C05: the CSMS sends RequestStartTransaction when the app asks")


def _carries(remote_start_id):
    return lambda p: dig(p, "transactionInfo.remoteStartId") == remote_start_id


async def test_remote_start_is_correlated_by_remote_start_id(ocpp, profile):
    """The transaction that follows an accepted remote start carries its remoteStartId."""
    evse = profile.evses[0].id
    start = ocpp.mark()
    exchange = await _remote_start(ocpp, evse)
    remote_start_id = exchange.request["remoteStartId"]
    if ocpp.is_sut(CSMS):
        if dig(exchange.request, "idToken.type") != "Central":
            finding("C05 remote start rule 1", "an app start should use a fresh idToken of type Central, got "
                    f"{dig(exchange.request, 'idToken.type')!r}")
    check_equal("C05: a free, known EVSE accepts a remote start", "RequestStartTransactionResponse status",
                "Accepted", exchange.response["status"])
    event = await ocpp.expect("TransactionEvent", after=start, where=_carries(remote_start_id),
                              rule="C05.FR: remoteStartId SHALL appear in a TransactionEvent of the transaction")
    check_equal("C05: the transaction was started remotely", "TransactionEvent triggerReason",
                "RemoteStart", event.request["triggerReason"])
    if ocpp.is_sut(CSMS):
        status = dig(event.response, "idTokenInfo.status", "Accepted")
        check_equal("C05: the CSMS's own Central token is valid", "TransactionEventResponse idTokenInfo.status",
                    "Accepted", status)


async def test_remote_stop_ends_the_transaction(ocpp, profile):
    """RequestStopTransaction for the running transaction is Accepted and ends it (RemoteStop)."""
    evse = profile.evses[0].id
    start = ocpp.mark()
    exchange = await _remote_start(ocpp, evse)
    event = await ocpp.expect("TransactionEvent", after=start, where=_carries(exchange.request["remoteStartId"]),
                              rule="C05.FR: remoteStartId SHALL appear in a TransactionEvent of the transaction")
    transaction_id = event.request["transactionInfo"]["transactionId"]
    stop_mark = ocpp.mark()
    stop = await ocpp.exchange(CSMS, "RequestStopTransaction", {"transactionId": transaction_id},
                               trigger=("request_stop_transaction", {"transaction_id": transaction_id}),
                               rule="F03: the CSMS sends RequestStopTransaction when asked")
    check_equal("F03: the running transaction is the one to stop", "RequestStopTransaction transactionId",
                transaction_id, stop.request["transactionId"])
    check_equal("F03: a running transaction accepts a remote stop", "RequestStopTransactionResponse status",
                "Accepted", stop.response["status"])
    ended = await ocpp.expect("TransactionEvent", after=stop_mark,
                              where=lambda p: p["eventType"] == "Ended",
                              rule="F03: a remotely stopped transaction ends with a TransactionEvent Ended")
    check_equal("F03: the transaction ended is the one stopped", "TransactionEvent transactionId",
                transaction_id, ended.request["transactionInfo"]["transactionId"])
    check_equal("F03: stopped remotely", "TransactionEvent triggerReason", "RemoteStop", ended.request["triggerReason"])


@pytest.mark.sut_roles("cs")
async def test_remote_start_on_unknown_evse_is_rejected(ocpp, profile):
    """A remote start on an EVSE the station does not have is Rejected and starts nothing."""
    unknown_evse = max(e.id for e in profile.evses) + 1
    start = ocpp.mark()
    exchange = await _remote_start(ocpp, unknown_evse)
    check_equal("C05 remote start rule 2: the station refuses what it cannot do",
                "RequestStartTransactionResponse status", "Rejected", exchange.response["status"])
    await ocpp.expect_none("TransactionEvent", after=start, where=_carries(exchange.request["remoteStartId"]),
                           rule="C05: after Rejected no transaction starts")


@pytest.mark.sut_roles("csms")
async def test_csms_survives_a_rejected_remote_start(ocpp, profile):
    """After the station answers Rejected the CSMS keeps serving it (heartbeat answered)."""
    unknown_evse = max(e.id for e in profile.evses) + 1
    exchange = await _remote_start(ocpp, unknown_evse)
    check_equal("C05 remote start rule 2", "station's answer", "Rejected", exchange.response["status"])
    heartbeat = await ocpp.link.call("Heartbeat", {})
    check_equal("G02: the CSMS answers Heartbeat", "HeartbeatResponse has currentTime", True, "currentTime" in heartbeat)
