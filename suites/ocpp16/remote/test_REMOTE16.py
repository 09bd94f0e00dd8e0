"""REMOTE16 — RemoteStartTransaction and RemoteStopTransaction in 1.6.

Rules (spec 002 Messages RemoteStartTransaction/RemoteStopTransaction, RemoteStartStopStatus,
Reason; connector rules of "What the service does" 8):
- R1  the central system sends what it was asked: the idTag and connector of a remote start, the
      transactionId of a remote stop;
- R2  a remote start on a free, known connector is Accepted and the transaction starts with the
      remote idTag on that connector (the cable in first: TC_010); a connector the charge point
      does not have is Rejected and nothing starts;
- R3  a remote stop of the running transaction is Accepted and the transaction stops with reason
      Remote; an unknown transactionId is Rejected (TC_028).
"""

import secrets

import pytest

from harness.arena import CSMS
from harness.suite import OCPP16, case, certified
from harness.usecases.core16 import (
    at_charge_point, connectors, id_tag_status, same_tag, start, tag16, transaction_id, unplug,
)
from harness.verdict import check_equal

pytestmark = case("REMOTE16", block="Core (1.6)", roles=("csms", "cs"), protocols=OCPP16, requires=["remote_start"])


async def _remote_start(ocpp, id_tag, connector):
    exchange = await ocpp.exchange(
        CSMS, "RemoteStartTransaction", {"idTag": id_tag, "connectorId": connector},
        trigger=("remote_start_transaction", {"id_tag": id_tag, "connector_id": connector}),
        rule="R1: the central system sends RemoteStartTransaction when asked")
    check_equal("R1", "RemoteStartTransaction.req connectorId", connector, exchange.request.get("connectorId"))
    check_equal("R1", "RemoteStartTransaction.req idTag", id_tag.casefold(), exchange.request["idTag"].casefold())
    return exchange


async def _remote_stop(ocpp, tx_id):
    exchange = await ocpp.exchange(CSMS, "RemoteStopTransaction", {"transactionId": tx_id},
                                   trigger=("remote_stop_transaction", {"transaction_id": tx_id}),
                                   rule="R1: the central system sends RemoteStopTransaction when asked")
    check_equal("R1", "RemoteStopTransaction.req transactionId", tx_id, exchange.request["transactionId"])
    return exchange


@certified(pytestmark, cs="TC_010_CS", csms="TC_010_CSMS")
async def test_remote_start_with_the_cable_in(ocpp, profile):
    """R1/R2: cable in, then a remote start: Accepted, and StartTransaction with the remote idTag."""
    token, connector = tag16(profile, "Accepted"), connectors(profile)[0]
    mark = ocpp.mark()
    await at_charge_point(ocpp, "plug_in", connector_id=connector)
    exchange = await _remote_start(ocpp, token.id, connector)
    check_equal("R2 (TC_010_CS step 4): a free, known connector accepts a remote start",
                "RemoteStartTransaction.conf status", "Accepted", exchange.response["status"])
    started = await ocpp.expect("StartTransaction", after=mark, where=lambda p: p["connectorId"] == connector,
                                rule="R2: after an accepted remote start the transaction starts")
    check_equal("R2: the transaction is the remote idTag's", "StartTransaction.req idTag", token.id.casefold(),
                started.request["idTag"].casefold())
    if ocpp.is_sut(CSMS):
        check_equal("R2 (TC_010_CSMS step 10)", "StartTransaction.conf idTagInfo.status", "Accepted",
                    id_tag_status(started))
    await unplug(ocpp, connector)


@certified(pytestmark, cs="TC_012_CS", csms="TC_012_CSMS")
async def test_remote_stop_of_the_running_transaction(ocpp, profile):
    """R1/R3: a remote stop of the running transaction is Accepted; StopTransaction has reason Remote."""
    connector = connectors(profile)[0]
    started = await start(ocpp, tag16(profile, "Accepted"), connector)
    tx_id = transaction_id(started)
    mark = ocpp.mark()
    exchange = await _remote_stop(ocpp, tx_id)
    check_equal("R3 (TC_012_CS step 2): a running transaction accepts a remote stop",
                "RemoteStopTransaction.conf status", "Accepted", exchange.response["status"])
    stop = await ocpp.expect("StopTransaction", after=mark, where=lambda p: p["transactionId"] == tx_id,
                             rule="R3: a remotely stopped transaction ends with StopTransaction")
    check_equal("R3 (TC_012_CS step 3): stopped remotely", "StopTransaction.req reason", "Remote",
                stop.request.get("reason"))
    await unplug(ocpp, connector)


@certified(pytestmark, cs="TC_028_CS", csms="TC_028_CSMS")
async def test_remote_stop_of_an_unknown_transaction_is_rejected(ocpp):
    """R3: a RemoteStopTransaction for a transactionId that does not run is Rejected."""
    unknown = 900_000_000 + secrets.randbelow(1_000_000)
    exchange = await _remote_stop(ocpp, unknown)
    check_equal("R3 (TC_028_CS): an unknown transactionId is rejected", "RemoteStopTransaction.conf status",
                "Rejected", exchange.response["status"])


@pytest.mark.sut_roles("cs")
async def test_remote_start_on_an_unknown_connector_is_rejected(ocpp, profile):
    """R2: a remote start on a connector the charge point does not have is Rejected; nothing starts."""
    token, unknown = tag16(profile, "Accepted"), len(connectors(profile)) + 1
    mark = ocpp.mark()
    exchange = await _remote_start(ocpp, token.id, unknown)
    check_equal("R2: a connector the charge point does not have cannot start", "RemoteStartTransaction.conf status",
                "Rejected", exchange.response["status"])
    await ocpp.expect_none("StartTransaction", after=mark, where=lambda p: same_tag(p.get("idTag"), token.id),
                           rule="R2: after Rejected no transaction starts")
