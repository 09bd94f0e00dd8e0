"""The 2.x reference station's meter values while charging (tx_updated_interval), without a socket."""

import asyncio

from harness.ocpp import schemas
from harness.ocpp.versions import OcppVersion
from harness.reference import ReferenceStation
from harness.settings import reference_profile

V201 = OcppVersion.V201


async def test_a_running_transaction_reports_a_growing_register_until_it_ends():
    station = ReferenceStation(reference_profile(), V201)
    station.configure(tx_updated_interval=0.01)
    sent, three_updates = [], asyncio.Event()

    async def call(action, payload):
        sent.append(payload)
        if sum(p["eventType"] == "Updated" for p in sent) == 3:
            three_updates.set()
        return {}

    station.call = call
    state = station.evses[1]
    await station.start_transaction(state, "Authorized", {"idToken": "AA00000001", "type": "ISO14443"})
    await asyncio.wait_for(three_updates.wait(), 5)
    await station.end_transaction(state, "StopAuthorized", "Local")
    await station.background.cancel_all()
    updates = [p for p in sent if p["eventType"] == "Updated"]
    assert [p["eventType"] for p in sent[:4]] == ["Started", "Updated", "Updated", "Updated"]
    assert {p["triggerReason"] for p in updates} == {"MeterValuePeriodic"}
    readings = [p["meterValue"][0]["sampledValue"][0]["value"] for p in updates]
    assert readings == sorted(readings) and len(set(readings)) == len(readings)
    assert [p["seqNo"] for p in sent] == list(range(len(sent)))
    assert all(schemas.validate(V201, "TransactionEvent", "request", p) == [] for p in sent)

