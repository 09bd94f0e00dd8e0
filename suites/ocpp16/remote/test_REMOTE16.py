"""REMOTE16 — RemoteStartTransaction and RemoteStopTransaction in 1.6 (spec 002 Messages
RemoteStartTransaction/RemoteStopTransaction, RemoteStartStopStatus, Reason; connector rules of
"What the service does" 8). A remote start is played with the cable in first, as TC_010 plays it.
"""

import secrets

import pytest

from harness.roles import CS, CSMS
from harness.rules import RuleTable, must
from harness.suite import OCPP16, TC, case, checks, needs
from harness.usecases.core16 import (
    Core16, connectors, id_tag_status, same_tag, start, tag16, tagged, transaction_id,
)
from harness.verdict import check_equal, require


class REMOTE16(RuleTable):
    """The rules of REMOTE16."""
    sent_as_asked = must("spec 002 Messages RemoteStartTransaction, RemoteStopTransaction",
                         "the central system sends what it was asked: the idTag and connector of a remote start, "
                         "the transactionId of a remote stop", by=CSMS)
    start_accepted = must("spec 002 Messages RemoteStartTransaction; Enumerations RemoteStartStopStatus",
                          "a remote start on a free connector the charge point has is Accepted", by=CS)
    remote_started = must("spec 002 Messages RemoteStartTransaction, StartTransaction",
                          "after an accepted remote start the transaction starts on that connector with the remote "
                          "idTag", by=CS)
    unknown_connector = must("spec 002 What the service does 8; Enumerations RemoteStartStopStatus",
                             "a remote start on a connector the charge point does not have is Rejected and nothing "
                             "starts", by=CS)
    stop_accepted = must("spec 002 Messages RemoteStopTransaction; Enumerations RemoteStartStopStatus",
                         "a remote stop of the running transaction is Accepted", by=CS)
    remote_stopped = must("spec 002 Messages StopTransaction; Enumerations Reason",
                          "a remotely stopped transaction ends with StopTransaction, reason Remote", by=CS)
    unknown_transaction = must("spec 002 Enumerations RemoteStartStopStatus; TC_028",
                               "a remote stop of a transactionId that does not run is Rejected", by=CS)


pytestmark = case("REMOTE16", block="Core (1.6)", roles=("csms", "cs"), protocols=OCPP16, requires=["remote_start"])


async def _remote_start(ocpp, id_tag, connector):
    exchange = await ocpp.exchange(
        CSMS, "RemoteStartTransaction", {"idTag": id_tag, "connectorId": connector},
        trigger=("remote_start_transaction", {"id_tag": id_tag, "connector_id": connector}),
        rule=REMOTE16.sent_as_asked)
    check_equal(REMOTE16.sent_as_asked, "RemoteStartTransaction.req connectorId", connector,
                exchange.request.get("connectorId"))
    check_equal(REMOTE16.sent_as_asked, "RemoteStartTransaction.req idTag", id_tag.casefold(),
                exchange.request["idTag"].casefold())
    return exchange


async def _remote_stop(ocpp, tx_id):
    exchange = await ocpp.exchange(CSMS, "RemoteStopTransaction", {"transactionId": tx_id},
                                   trigger=("remote_stop_transaction", {"transaction_id": tx_id}),
                                   rule=REMOTE16.sent_as_asked)
    check_equal(REMOTE16.sent_as_asked, "RemoteStopTransaction.req transactionId", tx_id,
                exchange.request["transactionId"])
    return exchange


@checks(REMOTE16.sent_as_asked, REMOTE16.start_accepted, REMOTE16.remote_started, Core16.accepted,
        cs=TC("TC_010_CS"), csms=TC("TC_010_CSMS"))
@needs(tagged("Accepted"))
async def test_remote_start_with_the_cable_in(ocpp, profile):
    """Cable in, then a remote start: Accepted, and StartTransaction with the remote idTag."""
    token, connector = tag16(profile, "Accepted"), connectors(profile)[0]
    mark = ocpp.mark()
    await ocpp.act(CS, "plug_in", connector_id=connector)
    exchange = await _remote_start(ocpp, token.id, connector)
    check_equal(REMOTE16.start_accepted, "RemoteStartTransaction.conf status", "Accepted",
                exchange.result["status"])
    started = await ocpp.expect("StartTransaction", sender=CS, after=mark,
                                where=lambda p: p["connectorId"] == connector, rule=REMOTE16.remote_started)
    check_equal(REMOTE16.remote_started, "StartTransaction.req idTag", token.id.casefold(),
                started.request["idTag"].casefold())
    if ocpp.is_sut(CSMS):
        check_equal(Core16.accepted, "StartTransaction.conf idTagInfo.status (TC_010_CSMS step 10)", "Accepted",
                    id_tag_status(started))


@checks(Core16.authorize, Core16.start, REMOTE16.sent_as_asked, REMOTE16.stop_accepted, REMOTE16.remote_stopped,
        cs=TC("TC_012_CS"), csms=TC("TC_012_CSMS"))
@needs(tagged("Accepted"))
async def test_remote_stop_of_the_running_transaction(ocpp, profile):
    """A remote stop of the running transaction is Accepted; StopTransaction has reason Remote."""
    connector = connectors(profile)[0]
    started = await start(ocpp, tag16(profile, "Accepted"), connector)
    tx_id = transaction_id(started)
    mark = ocpp.mark()
    exchange = await _remote_stop(ocpp, tx_id)
    check_equal(REMOTE16.stop_accepted, "RemoteStopTransaction.conf status", "Accepted",
                exchange.result["status"])
    stop = await ocpp.expect("StopTransaction", sender=CS, after=mark, where=lambda p: p["transactionId"] == tx_id,
                             rule=REMOTE16.remote_stopped)
    check_equal(REMOTE16.remote_stopped, "StopTransaction.req reason", "Remote",
                stop.request.get("reason"))


@checks(REMOTE16.sent_as_asked, REMOTE16.unknown_transaction, cs=TC("TC_028_CS"), csms=TC("TC_028_CSMS"))
async def test_remote_stop_of_an_unknown_transaction_is_rejected(ocpp):
    """A RemoteStopTransaction for a transactionId that does not run is Rejected."""
    unknown = 900_000_000 + secrets.randbelow(1_000_000)
    exchange = await _remote_stop(ocpp, unknown)
    check_equal(REMOTE16.unknown_transaction, "RemoteStopTransaction.conf status", "Rejected",
                exchange.result["status"])


@pytest.mark.sut_roles("cs")
@checks(REMOTE16.unknown_connector)
@needs(tagged("Accepted"))
async def test_remote_start_on_an_unknown_connector_is_rejected(ocpp, profile):
    """A remote start on a connector the charge point does not have is Rejected; nothing starts."""
    token, unknown = tag16(profile, "Accepted"), len(connectors(profile)) + 1
    mark = ocpp.mark()
    exchange = await _remote_start(ocpp, token.id, unknown)
    check_equal(REMOTE16.unknown_connector, "RemoteStartTransaction.conf status", "Rejected",
                exchange.result["status"])
    await ocpp.expect_none("StartTransaction", after=mark, where=lambda p: same_tag(p.get("idTag"), token.id),
                           rule=REMOTE16.unknown_connector)


@pytest.mark.sut_roles("csms")
@checks(REMOTE16.sent_as_asked, csms=TC("TC_026_CSMS"))
@needs(tagged("Accepted"))
async def test_remote_start_answered_rejected(ocpp, profile):
    """The charge point refuses the remote start (Rejected): the central system sent the idTag and connector it
    was asked for, and nothing starts; after Rejected the texts ask nothing more of it (spec 002
    RemoteStartStopStatus), so sending as asked is all this test judges."""
    ocpp.configure(remote_start_refused=True)
    token, connector = tag16(profile, "Accepted"), connectors(profile)[0]
    await _remote_start(ocpp, token.id, connector)


CABLE_TIMEOUT = 10   # seconds: the harness's charge point's ConnectionTimeOut in the timeout test (its own choice: a
# real central system judged here waits on it in real time, and the texts give it no lower bound)


@pytest.mark.sut_roles("csms")
@checks(REMOTE16.sent_as_asked, Core16.status_answered, csms=TC("TC_011_2_CSMS"))
@needs(tagged("Accepted"))
async def test_remote_start_times_out_without_a_cable(ocpp, profile, harness_station):
    """A remote start is Accepted but no cable comes: the connector is Preparing, then, ConnectionTimeOut
    later, Available again. The central system sent the start as asked and answers both StatusNotifications;
    the texts ask nothing more of it (no transaction started, none to close)."""
    token, connector = tag16(profile, "Accepted"), connectors(profile)[0]
    harness_station.set_configuration_key("ConnectionTimeOut", str(CABLE_TIMEOUT))
    mark = ocpp.mark()
    await _remote_start(ocpp, token.id, connector)
    await ocpp.elapse(CABLE_TIMEOUT + 1)
    for status in ("Preparing", "Available"):
        reported = await ocpp.expect("StatusNotification", sender=CS, after=mark,
                                     where=lambda p, s=status: p["connectorId"] == connector and p["status"] == s)
        require(reported.error is None, Core16.status_answered, f"the StatusNotification {status} was refused",
                expected="StatusNotification.conf", actual=reported.error)
