"""F02 — Remote start, remote start first: the operator has the CSMS send RequestStartTransaction before the
EV is connected. With AuthCtrlr.AuthorizeRemoteStart true the station authorizes the token first, as if it
were presented there (F01.FR.01); with it false it does not (F01.FR.02). The next TransactionEvent the
station sends for the EVSE carries the remoteStartId (F02.FR.01); the cable plugged in afterwards goes on
with that transaction (no second one starts). The requirements, in our words:
docs/requirements/remote_control.md.

Readings chosen where the text is silent: the transaction may start at the remote start (TxStartPoint
Authorized) or only once the cable is in (EVConnected); the first TransactionEvent after the request that
carries a remoteStartId is judged, whichever comes. A station that refuses to set AuthorizeRemoteStart
makes the test not applicable."""

import secrets

import pytest

from harness.errors import NotApplicable

from harness.roles import CS, CSMS
from harness.rules import RuleTable, must, should
from harness.suite import OCPP2, TC, case, checks
from harness.usecases.authorization import station_variable, token_with
from harness.usecases.smart_charging import ChargingProfiles, charging
from harness.usecases.remote_control import (authorizes, carries_remote_start, central_token, own_token_on_the_way,
                                             remote_start, start_refused)
from harness.verdict import check_equal, dig, require


class F02(RuleTable):
    """The rules of F02 (OCPP 2.0.1 part 2, F02 and F01.FR.01-02; the same in 2.1)."""
    request = must("OCPP 2.0.1 part 2 RequestStartTransactionRequest (evseId, idToken, remoteStartId)",
                   "the CSMS sends RequestStartTransaction for the EVSE and idToken its operator chose", by=CSMS)
    accepted = must("spec 001 Moves: Transaction started by app; Remote start rule 2",
                    "a station accepts a remote start on its free, known EVSE", by=CS)
    next_event = must("OCPP 2.0.1 F02.FR.01; spec 001 Remote start rule 1",
                      "the next TransactionEvent for the EVSE after the request carries its remoteStartId", by=CS)
    authorized_first = must("OCPP 2.0.1 F01.FR.01",
                            "with AuthorizeRemoteStart true a token that is not Central is authorized (AuthorizeRequest) "
                            "before the transaction starts", by=CS)
    not_authorized = must("OCPP 2.0.1 F01.FR.02",
                          "with AuthorizeRemoteStart false the token is not authorized again (no AuthorizeRequest)",
                          by=CS)
    authorize_answered = must("OCPP 2.0.1 F01.FR.01; spec 001 C01",
                              "the CSMS answers the AuthorizeRequest of the token it sent in the remote start Accepted",
                              by=CSMS)
    ev_connect_timeout = should("OCPP 2.0.1 part 2 TxCtrlr.EVConnectionTimeOut; TriggerReasonEnumType "
                                "(EVConnectTimeout); TC_F_04",
                                "a remotely started transaction whose cable does not come within EVConnectionTimeOut "
                                "is reported with triggerReason EVConnectTimeout (Updated or Ended)", by=CS)
    refused = should("spec 001 Remote start rule 2 (Rejected: the station refuses what it cannot do)",
                     "a remote start on an EVSE the station does not have, on one where a transaction runs, or "
                     "on a Faulted one, is Rejected", by=CS)
    one_transaction = should("OCPP 2.0.1 part 2 F02 (the cable completes the remotely started transaction)",
                             "plugging the cable in after the remote start starts no second transaction", by=CS)


pytestmark = case("F02", block="Remote control", roles=("csms", "cs"), protocols=OCPP2, requires=["remote_start"])


@pytest.mark.parametrize("authorize_remote_start", [
    pytest.param("true", marks=checks(F02.request, F02.accepted, F02.next_event, F02.authorized_first,
                                      F02.authorize_answered, F02.one_transaction,
                                      csms=TC("TC_F_02_CSMS", "ocpp2.0.1"))),
    pytest.param("false", marks=checks(F02.request, F02.accepted, F02.next_event, F02.not_authorized,
                                       F02.one_transaction, csms=TC("TC_F_03_CSMS", "ocpp2.0.1")))])
async def test_remote_start_before_the_cable(ocpp, profile, authorize_remote_start):
    """The remote start with the profile's valid token, then the cable: the token authorized first only with
    AuthorizeRemoteStart true; the remoteStartId in the next TransactionEvent; one transaction."""
    evse, token = profile.evses[0].id, token_with(profile, "Accepted", type="ISO14443")
    await station_variable(ocpp, "AuthCtrlr", "AuthorizeRemoteStart", authorize_remote_start)
    mark = ocpp.mark()
    exchange = await remote_start(ocpp, evse, F02.request, id_token=token.wire())
    check_equal(F02.accepted, "RequestStartTransactionResponse status", "Accepted", exchange.result["status"])
    if authorize_remote_start == "true":
        asked = await ocpp.expect("Authorize", sender=CS, after=mark, where=authorizes(token.wire()),
                                  rule=F02.authorized_first)
        if ocpp.is_sut(CSMS):
            check_equal(F02.authorize_answered, "AuthorizeResponse idTokenInfo.status", "Accepted",
                        dig(asked.result, "idTokenInfo.status"))
    await ocpp.act(CS, "plug_in", evse_id=evse)
    event = await ocpp.expect("TransactionEvent", sender=CS, after=mark, rule=F02.next_event,
                              where=lambda p: dig(p, "evse.id", evse) == evse)
    check_equal(F02.next_event, "remoteStartId of the first TransactionEvent after the request",
                exchange.request["remoteStartId"], dig(event.request, "transactionInfo.remoteStartId"))
    asked_for = ocpp.sent("Authorize", sender=CS, after=mark, where=authorizes(token.wire()))
    if authorize_remote_start == "true":
        require(len(asked_for) == 1, F02.authorized_first, "the token was authorized more than once", expected=1,
                actual=len(asked_for))
    else:
        require(not asked_for, F02.not_authorized, "the station sent AuthorizeRequest for the remote start's token",
                expected="no AuthorizeRequest", actual=[a.request for a in asked_for])
    started = event.request["transactionInfo"]["transactionId"]
    await ocpp.expect_none("TransactionEvent", after=mark, rule=F02.one_transaction,
                           where=lambda p: p["eventType"] == "Started" and dig(p, "evse.id", evse) == evse
                           and p["transactionInfo"]["transactionId"] != started)


@pytest.mark.sut_roles("cs")
@checks(F02.request, F02.next_event)
async def test_remote_start_on_any_evse(ocpp):
    """A remote start without evseId: the station picks a free EVSE; its next TransactionEvent carries the
    remoteStartId (a station that needs an evseId may answer Rejected: the test is then not applicable)."""
    mark = ocpp.mark()
    remote_start_id = secrets.randbelow(1_000_000) + 1
    exchange = await ocpp.exchange(CSMS, "RequestStartTransaction", {
        "idToken": central_token(), "remoteStartId": remote_start_id}, rule=F02.request)
    if exchange.result["status"] != "Accepted":
        raise NotApplicable("the station refuses a remote start without evseId (an answer it may give)")
    await ocpp.expect("TransactionEvent", sender=CS, after=mark, where=carries_remote_start(remote_start_id),
                      rule=F02.next_event)


TIMEOUT = 2   # seconds of TxCtrlr.EVConnectionTimeOut for the test


@checks(F02.request, F02.accepted, F02.ev_connect_timeout, csms=TC("TC_F_04_CSMS", "ocpp2.0.1"))
async def test_no_cable_within_the_connection_timeout(ocpp, profile):
    """EVConnectionTimeOut of two seconds, a remote start and no cable: a TransactionEvent of the EVSE with
    triggerReason EVConnectTimeout follows (the transaction deauthorized or ended: either reading passes)."""
    evse = profile.evses[0].id
    await station_variable(ocpp, "TxCtrlr", "EVConnectionTimeOut", str(TIMEOUT))
    mark = ocpp.mark()
    exchange = await remote_start(ocpp, evse, F02.request)
    check_equal(F02.accepted, "RequestStartTransactionResponse status", "Accepted", exchange.result["status"])
    if ocpp.is_sut(CSMS):   # the harness's station began the transaction at once: a refused token would end it
        begun = await ocpp.next_call("TransactionEvent", sender=CS, within=ocpp.timeouts.quiet, after=mark,
                                     where=carries_remote_start(exchange.request["remoteStartId"]))
        if begun is not None:
            await own_token_on_the_way(ocpp, begun)
    await ocpp.expect("TransactionEvent", sender=CS, after=mark, rule=F02.ev_connect_timeout,
                      timeout=TIMEOUT + ocpp.timeouts.action,
                      where=lambda p: p["triggerReason"] == "EVConnectTimeout" and dig(p, "evse.id", evse) == evse)


@pytest.mark.sut_roles("cs")
@checks(F02.request, F02.refused)
async def test_remote_start_on_an_unknown_evse(ocpp, profile):
    """A remote start on an EVSE id one above the station's highest: Rejected."""
    await start_refused(ocpp, max(e.id for e in profile.evses) + 1, F02.request, F02.refused)


@pytest.mark.sut_roles("cs")
@checks(ChargingProfiles.transaction, F02.request, F02.refused)
async def test_remote_start_on_a_busy_evse(ocpp, profile):
    """A transaction runs on the first EVSE: a second remote start on it is Rejected."""
    evse = profile.evses[0].id
    await charging(ocpp, evse)
    await start_refused(ocpp, evse, F02.request, F02.refused)


@pytest.mark.sut_roles("cs")
@checks(F02.request, F02.refused)
async def test_remote_start_on_a_faulted_evse(ocpp, profile):
    """The first EVSE Faulted (the station's action fault_evse): a remote start on it is Rejected."""
    evse = profile.evses[0].id
    await ocpp.act(CS, "fault_evse", evse_id=evse)
    await start_refused(ocpp, evse, F02.request, F02.refused)
