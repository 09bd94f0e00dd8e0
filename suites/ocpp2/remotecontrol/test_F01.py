"""F01 — Remote start, cable plugged in first: the EV is connected before the operator has the CSMS send
RequestStartTransaction. The station accepts it on the free EVSE, and the transaction (started when the
cable came in, or at the remote start: the station's TxStartPoint decides, both readings pass) carries the
request's remoteStartId with triggerReason RemoteStart; a station that had started the transaction already
names it in the answer's transactionId. A Central token is not authorized again (F01.FR.02). The
requirements, in our words: docs/requirements/remote_control.md. C05 judges the rest of a remote start
(the CSMS's Central token, its own answer, the stop)."""

from harness.roles import CS
from harness.rules import RuleTable, must, should
from harness.suite import OCPP2, TC, case, checks
from harness.usecases.remote_control import RemoteStart, authorizes, carries_remote_start, remote_start
from harness.verdict import check_equal, dig, require


class F01(RuleTable):
    """The rules of F01 (OCPP 2.0.1 part 2, F01; the same in 2.1)."""
    accepted = must("spec 001 Moves: Transaction started by app; Remote start rule 2",
                    "a station accepts a remote start on its free, known EVSE where an EV is plugged in", by=CS)
    remote_start_id = must("spec 001 Remote start rule 1; OCPP 2.0.1 F02.FR.01",
                           "the transaction carries the request's remoteStartId in a TransactionEvent", by=CS)
    trigger_reason = must("spec 001 Moves: Transaction started by app",
                          "the TransactionEvent that carries the remoteStartId says triggerReason RemoteStart", by=CS)
    transaction_id = should("OCPP 2.0.1 part 2 RequestStartTransactionResponse transactionId (description)",
                            "a transactionId in the answer is the one of the transaction the station had started",
                            by=CS)
    connected = should("OCPP 2.0.1 part 2 ConnectorStatusEnumType (Occupied); StatusNotificationRequest",
                       "the connector where the EV is plugged in is reported Occupied", by=CS)
    central_not_authorized = must("OCPP 2.0.1 F01.FR.02",
                                  "a remote start with a Central token is not authorized again (no AuthorizeRequest "
                                  "for it)", by=CS)


pytestmark = case("F01", block="Remote control", roles=("csms", "cs"), protocols=OCPP2, requires=["remote_start"])


@checks(F01.connected, RemoteStart.request, F01.accepted, F01.remote_start_id, F01.trigger_reason, F01.transaction_id,
        F01.central_not_authorized, csms=TC("TC_F_01_CSMS", "ocpp2.0.1"))
async def test_remote_start_after_the_cable(ocpp, profile):
    """The cable in first, then the remote start: Accepted, and the transaction carries its remoteStartId."""
    evse = profile.evses[0].id
    plugged = ocpp.mark()
    await ocpp.act(CS, "plug_in", evse_id=evse)
    await ocpp.expect("StatusNotification", sender=CS, after=plugged, rule=F01.connected,
                      where=lambda p: p["evseId"] == evse and p["connectorStatus"] == "Occupied")
    # a station whose TxStartPoint is EVConnected starts the transaction now: given the time to (no one is blamed)
    await ocpp.next_call("TransactionEvent", sender=CS, within=ocpp.timeouts.quiet, after=plugged,
                         where=lambda p: dig(p, "evse.id", evse) == evse)
    mark = ocpp.mark()
    exchange = await remote_start(ocpp, evse, RemoteStart.request)
    check_equal(F01.accepted, "RequestStartTransactionResponse status", "Accepted", exchange.result["status"])
    remote_start_id = exchange.request["remoteStartId"]
    event = await ocpp.expect("TransactionEvent", sender=CS, after=mark, where=carries_remote_start(remote_start_id),
                              rule=F01.remote_start_id)
    check_equal(F01.trigger_reason, "TransactionEvent triggerReason", "RemoteStart", event.request["triggerReason"])
    if "transactionId" in exchange.result:
        check_equal(F01.transaction_id, "RequestStartTransactionResponse transactionId",
                    event.request["transactionInfo"]["transactionId"], exchange.result["transactionId"])
    asked = ocpp.sent("Authorize", sender=CS, after=mark, where=authorizes(exchange.request["idToken"]))
    require(not asked, F01.central_not_authorized, "the station sent AuthorizeRequest for the Central token of the "
            "remote start", expected="no AuthorizeRequest", actual=[a.request for a in asked])
