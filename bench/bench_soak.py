"""Soak: the reference CSMS's memory while stations connect, exchange and disconnect in cycles
(pytest-benchmark; no timed assertion; loopback only; Linux, for /proc).

Run: ``pytest bench -k soak --benchmark-only -s``. The reference CSMS (OCPP 2.0.1) runs in a process of its
own (this file run as a script), so its resident memory is read alone from /proc. Each cycle, STATIONS
reference stations (a pool of identities, as a fleet reconnects) connect at once, boot, exchange
Heartbeats, an Authorize and a transaction's TransactionEvents, and disconnect. The CSMS's resident
memory is read after every cycle; once WARM_UP cycles have filled its caches, every later reading is
compared with the first after warm-up. Bounded: CYCLES cycles or BUDGET seconds, whichever ends first.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time
from pathlib import Path

from harness.ocpp.versions import OcppVersion
from harness.reference.compose import ReferenceCsms, ReferenceStation
from harness.settings import reference_profile

V201 = OcppVersion.V201
CYCLES, WARM_UP, STATIONS, HEARTBEATS = 25, 5, 100, 10
BUDGET = 180.0   # seconds: the soak stops after the cycle that crosses it
TOKEN = {"idToken": "AA00000001", "type": "ISO14443"}


class SoakCsms(ReferenceCsms):
    """The reference CSMS, open to the soak's station identities."""

    def accepts_identity(self, identity: str) -> bool:
        return identity.startswith("soak-") and identity not in self.unreachable


async def serve() -> None:
    """The CSMS process: prints its URL, serves until stdin closes."""
    csms = await SoakCsms(reference_profile(), [V201]).start()
    print(csms.url, flush=True)
    await asyncio.get_running_loop().run_in_executor(None, sys.stdin.read)
    await csms.stop()


def transaction_event(event_type: str, seq_no: int, trigger: str) -> dict:
    return {"eventType": event_type, "timestamp": "2024-01-01T00:00:00Z", "triggerReason": trigger, "seqNo": seq_no,
            "transactionInfo": {"transactionId": "TX-1"}, "evse": {"id": 1, "connectorId": 1}, "idToken": TOKEN,
            "meterValue": [{"timestamp": "2024-01-01T00:00:00Z", "sampledValue": [{"value": 1234.5}]}]}


async def station_visit(url: str, number: int) -> None:
    """One station's visit: connect and boot, exchange, disconnect."""
    station = ReferenceStation(reference_profile(), V201, identity=f"soak-{number}")
    handshake = await station.connect(url)
    if handshake.connection is None:
        raise RuntimeError(f"soak-{number} was refused: HTTP {handshake.status}")
    try:
        for _ in range(HEARTBEATS):
            await station.call("Heartbeat", {})
        await station.call("Authorize", {"idToken": TOKEN})
        for seq_no, (event_type, trigger) in enumerate([("Started", "Authorized"), ("Updated", "MeterValuePeriodic"),
                                                        ("Ended", "StopAuthorized")]):
            await station.call("TransactionEvent", transaction_event(event_type, seq_no, trigger))
    finally:
        await station.stop()


def resident_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError(f"no VmRSS for process {pid}")


async def cycles(url: str, pid: int) -> list[float]:
    readings: list[float] = []
    started = time.monotonic()
    for _ in range(CYCLES):
        await asyncio.gather(*(station_visit(url, n) for n in range(STATIONS)))
        await asyncio.sleep(0.5)   # the CSMS process notices the last closes
        readings.append(resident_mb(pid))
        if time.monotonic() - started > BUDGET:
            break
    return readings


def soak() -> dict:
    script = Path(__file__).resolve()
    csms = subprocess.Popen([sys.executable, str(script)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                            env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    try:
        url = csms.stdout.readline().strip()
        readings = asyncio.run(cycles(url, csms.pid))
    finally:
        csms.stdin.close()
        csms.wait(10)
    measured = readings[WARM_UP:] or readings[-1:]
    base = measured[0]
    return {"cycles": len(readings), "stations_per_cycle": STATIONS, "resident_mb": [round(r, 1) for r in readings],
            "base_mb": round(base, 1), "max_drift_percent": round(max(abs(r - base) / base * 100 for r in measured), 1)}


def test_the_reference_csms_memory_over_connect_exchange_disconnect_cycles(measure_once):
    measure_once(soak, lambda result: (
        f"soak: {result['cycles']} cycles of {STATIONS} stations (boot, {HEARTBEATS} Heartbeats, Authorize, "
        f"3 TransactionEvents, disconnect); reference CSMS resident memory per cycle (MB): {result['resident_mb']}; "
        f"after {WARM_UP} warm-up cycles: base {result['base_mb']} MB, largest drift {result['max_drift_percent']} %"))

if __name__ == "__main__":
    asyncio.run(serve())
