"""The 2.x reference station's moves when the CSMS refuses the token of its transaction (spec 001 moves
"Offline-authorized transaction"), every combination of StopTxOnInvalidId, TxStopPoint and
MaxEnergyOnInvalidId, without a socket."""

import asyncio

import pytest

from harness.ocpp.versions import OcppVersion
from harness.reference import ReferenceStation
from harness.settings import reference_profile

TOKEN = {"idToken": "FF00000001", "type": "ISO14443"}


@pytest.mark.parametrize("stop, stop_point, max_energy, moves", [
    (True, ("EVConnected", "Authorized"), 0, [("Ended", "Deauthorized", None)]),
    (True, ("EnergyTransfer",), 0, [("Ended", "Deauthorized", None)]),
    (True, ("EVConnected",), 0, [("Updated", "Deauthorized", "SuspendedEVSE")]),
    (False, ("Authorized",), 0, [("Updated", "ChargingStateChanged", "SuspendedEVSE")]),
    (False, ("Authorized",), 240, [("Updated", "MeterValuePeriodic", "Charging"),
                                   ("Updated", "MeterValuePeriodic", "Charging"),
                                   ("Updated", "EnergyLimitReached", "SuspendedEVSE")]),
], ids=["ends-authorized", "ends-energy-transfer", "suspends", "pauses", "runs-to-the-energy-limit"])
async def test_a_refused_transaction_moves_as_configured(stop, stop_point, max_energy, moves):
    station = ReferenceStation(reference_profile(), OcppVersion.V201)
    station.configure(stop_tx_on_invalid_id=stop, tx_stop_point=stop_point, max_energy_on_invalid_id=max_energy,
                      tx_updated_interval=0.01 if max_energy else 0)
    sent, enough = [], asyncio.Event()

    async def call(action, payload):
        sent.append(payload)
        if len(sent) > len(moves):
            enough.set()
        return {"idTokenInfo": {"status": "Invalid"}} if payload["eventType"] == "Started" else {}

    station.call = call
    await station.start_transaction(station.evses[1], "Authorized", TOKEN)
    await asyncio.wait_for(enough.wait(), 5)
    await station.background.cancel_all()
    assert [(p["eventType"], p["triggerReason"], p["transactionInfo"].get("chargingState"))
            for p in sent[1:len(moves) + 1]] == moves
    if moves[0][0] == "Ended":
        assert sent[1]["transactionInfo"]["stoppedReason"] == "DeAuthorized"
