"""A loop of the `ocpp` library's own ChargePoint clients (`ocpp.v201`, or `ocpp.v16` with --protocol ocpp1.6), the
load client the harness's is compared with (bench/load_numbers.py client): N stations of a load roster connect at a
ramp, boot, report their connector Available and beat every --heartbeat seconds at a random phase, until --hold
seconds after the last one started.

    python bench/ocpp_lib_stations.py --url ws://127.0.0.1:9300/ocpp --stations 5000 --ramp 200 --hold 60 \\
        --heartbeat 10 [--protocol ocpp1.6] --out reports/bench-load/client-ocpp-lib/stations.json

A 1.6 charge point authenticates with the roster's AuthorizationKey as its Basic-auth password (the reference
CSMS's check), and reports connector 1 only, as the 2.0.1 one reports its one EVSE's connector.

What it writes (JSON): this process's resident memory once a second with the stations connected (the first sample
before any station), the round trips of the Heartbeats sent while every station was connected (p50, p99), and
how many stations connected, booted Accepted, and failed. Exit 1 when a station failed to connect or boot.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import json
import random
import resource
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

import psutil
import websockets

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from harness.load.roster import Roster   # the roster only (faker): not the harness's references, nor its client


class Run:
    def __init__(self, stations: int):
        self.stations = stations
        self.connected = self.booted = 0
        self.failed: dict[str, int] = {}
        self.held_from: float | None = None
        self.heartbeats_held: list[float] = []

    def fail(self, why: str) -> None:
        self.failed[why] = self.failed.get(why, 0) + 1


class Speaks201:
    """What a 2.0.1 station of the library says: its boot, its connector's status."""
    subprotocol = "ocpp2.0.1"

    def __init__(self) -> None:
        from ocpp import v201   # only the version spoken: the library's start-up memory is one version's
        self.ChargePoint, self.call = v201.ChargePoint, v201.call

    @staticmethod
    def password(card) -> bytes:
        return card.password.encode()

    def boot(self, card):
        return self.call.BootNotification(
            charging_station={"model": "load", "vendor_name": "evse-conformance", "serial_number": card.serial},
            reason="PowerUp")

    def available(self):
        return self.call.StatusNotification(timestamp=datetime.now(timezone.utc).isoformat(),
                                            connector_status="Available", evse_id=1, connector_id=1)


class Speaks16:
    """The same for a 1.6 charge point: the roster's AuthorizationKey as its password (the bytes, as the harness's
    1.6 load station sends them), its boot with its serial number, connector 1 Available."""
    subprotocol = "ocpp1.6"

    def __init__(self) -> None:
        from ocpp import v16
        self.ChargePoint, self.call, self.enums = v16.ChargePoint, v16.call, v16.enums

    @staticmethod
    def password(card) -> bytes:
        return card.authorization_key

    def boot(self, card):
        return self.call.BootNotification(charge_point_model="load", charge_point_vendor="evse-conformance",
                                          charge_point_serial_number=card.serial)

    def available(self):
        return self.call.StatusNotification(connector_id=1, error_code=self.enums.ChargePointErrorCode.no_error,
                                            status=self.enums.ChargePointStatus.available,
                                            timestamp=datetime.now(timezone.utc).isoformat())


SPEAKS = {"ocpp2.0.1": Speaks201, "ocpp1.6": Speaks16}


async def station(run: Run, card, url: str, heartbeat: float, phase: float, speaks) -> None:
    auth = base64.b64encode(card.identity.encode() + b":" + speaks.password(card)).decode()
    try:
        ws = await websockets.connect(f"{url}/{card.identity}", subprotocols=[speaks.subprotocol],
                                      additional_headers={"Authorization": f"Basic {auth}"}, open_timeout=60)
    except Exception as error:
        run.fail(f"connect: {type(error).__name__}")
        return
    point = speaks.ChargePoint(card.identity, ws, response_timeout=30)
    reader = asyncio.create_task(point.start())
    run.connected += 1
    if run.connected == run.stations:
        run.held_from = time.monotonic()
    try:
        boot = await point.call(speaks.boot(card))
        if boot.status != "Accepted":
            run.fail(f"boot {boot.status}")
            return
        run.booted += 1
        await point.call(speaks.available())
        await asyncio.sleep(phase)
        while True:
            started = time.monotonic()
            await point.call(speaks.call.Heartbeat())
            if run.held_from is not None and started >= run.held_from:
                run.heartbeats_held.append((time.monotonic() - started) * 1000)
            await asyncio.sleep(heartbeat)
    except asyncio.CancelledError:
        raise
    except Exception as error:
        run.fail(f"station: {type(error).__name__}")
    finally:
        reader.cancel()
        await ws.close()


def percentile(values: list[float], q: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, int(q * len(ordered)))], 2)


async def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", required=True)
    parser.add_argument("--stations", type=int, required=True)
    parser.add_argument("--ramp", type=float, default=200.0)
    parser.add_argument("--hold", type=float, default=60.0)
    parser.add_argument("--heartbeat", type=float, default=10.0)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--protocol", choices=sorted(SPEAKS), default="ocpp2.0.1")
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)   # a file per connection
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, min(args.stations + 256, hard)), hard))
    roster, run, process = Roster(args.seed, args.stations), Run(args.stations), psutil.Process()
    speaks = SPEAKS[args.protocol]()
    samples = [(0.0, 0, round(process.memory_info().rss / 2**20, 1))]
    begin = time.monotonic()

    async def sample() -> None:
        while True:
            await asyncio.sleep(1.0)
            samples.append((round(time.monotonic() - begin, 1), run.connected,
                            round(process.memory_info().rss / 2**20, 1)))

    sampler = asyncio.create_task(sample())
    tasks, phases = [], random.Random(args.seed)   # one generator: a station keeps no state of its own for it
    for index in range(args.stations):
        await asyncio.sleep(max(0.0, begin + index / args.ramp - time.monotonic()))
        tasks.append(asyncio.create_task(station(run, roster[index], args.url, args.heartbeat,
                                                 phases.uniform(0, args.heartbeat), speaks)))
    await asyncio.sleep(args.hold)
    sampler.cancel()
    for task in tasks:
        task.cancel()
    await asyncio.wait(tasks, timeout=30)
    result = {"stations": args.stations, "protocol": args.protocol, "connected_peak": max(c for _, c, _ in samples),
              "booted": run.booted, "failed": run.failed, "timeline": samples,
              "heartbeat_while_held_ms": {"count": len(run.heartbeats_held), "p50": percentile(run.heartbeats_held, .5),
                                          "p99": percentile(run.heartbeats_held, .99)}}
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(result))
    return 1 if run.failed or run.booted < args.stations else 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
