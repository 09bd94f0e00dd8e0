"""Decode + validate received OCPP 2.0.1 frames: this harness against the ``ocpp`` library (pytest-benchmark;
no timed assertion).

Run: ``pytest bench/bench_validation.py --benchmark-only -s``. The frame mix is Authorize, BootNotification,
TransactionEvent (with meter values) and DataTransfer, each CALL and its CALLRESULT, as text. Each side turns
a frame into a payload and judges it against the official schema:
- the harness: ``framing.parse`` then ``schemas.validate`` (what ``RpcEndpoint.receive`` does per frame);
- the library: ``ocpp.messages.unpack`` then ``_validate_payload``, what its ``validate_payload`` runs
  (without the asyncio hop, which would only slow the library down).
``test_decode_and_validate`` times each side alone in pytest-benchmark's table (with fastjsonschema
compiled on the same schemas and date-time check, the alternative measured for harness/ocpp/schemas.py,
when it is installed); ``test_harness_against_the_library_in_interleaved_rounds`` alternates the two in
the same process, round after round, so both see the same machine load, and prints the ratio.

Both measure CPU time (``time.process_time``: this process's user + system time), not wall time: on a shared
machine a wall clock counts the time other processes had the core, and inflated the ratio (40-50x on wall time,
12.5-14x on CPU time for the same frames, issue #26).
"""

from __future__ import annotations

import statistics
import time

import pytest
from ocpp import messages

from harness.ocpp import schemas
from harness.ocpp.framing import CALL, dumps, parse
from harness.ocpp.versions import OcppVersion

V201 = OcppVersion.V201
ID_TOKEN = {"idToken": "04A2B3C4D5E6F7", "type": "ISO14443"}
EXCHANGES = {   # action: (request, response)
    "Authorize": ({"idToken": ID_TOKEN},
                  {"idTokenInfo": {"status": "Accepted", "cacheExpiryDateTime": "2024-01-02T00:00:00Z"}}),
    "BootNotification": (
        {"chargingStation": {"model": "Wallbox X", "vendorName": "Example", "serialNumber": "SN-0001",
                             "firmwareVersion": "1.2.3", "modem": {"iccid": "8901", "imsi": "3101"}},
         "reason": "PowerUp"},
        {"currentTime": "2024-01-01T00:00:00.000Z", "interval": 300, "status": "Accepted"}),
    "TransactionEvent": (
        {"eventType": "Updated", "timestamp": "2024-01-01T00:05:00Z", "triggerReason": "MeterValuePeriodic",
         "seqNo": 3, "transactionInfo": {"transactionId": "TX-0001", "chargingState": "Charging"},
         "evse": {"id": 1, "connectorId": 1}, "idToken": ID_TOKEN,
         "meterValue": [{"timestamp": "2024-01-01T00:05:00Z", "sampledValue": [
             {"value": 1234.5, "measurand": "Energy.Active.Import.Register", "unitOfMeasure": {"unit": "Wh"}},
             {"value": 7.2, "measurand": "Power.Active.Import", "unitOfMeasure": {"unit": "kW", "multiplier": 3}},
             {"value": 16.0, "measurand": "Current.Import", "phase": "L1"},
             {"value": 230.1, "measurand": "Voltage", "phase": "L1-N"}]}]},
        {"totalCost": 1.25, "idTokenInfo": {"status": "Accepted"}}),
    "DataTransfer": ({"vendorId": "org.example", "messageId": "Ping", "data": {"n": 1, "s": "hello"}},
                     {"status": "Accepted", "data": "pong"}),
}
FRAMES = [(action, dumps(frame)) for n, (action, (request, response)) in enumerate(EXCHANGES.items())
          for frame in ([CALL, f"m-{n}", action, request], [3, f"m-{n}", response])]
ROUNDS, PASSES = 40, 25    # interleaved rounds, and passes over the mix in each


def harness_side(frames=FRAMES) -> None:
    for action, text in frames:
        frame = parse(text, V201)
        direction = "request" if frame.type_number == CALL else "response"
        if schemas.validate(V201, action, direction, frame.payload):
            raise AssertionError(f"{action} {direction} rejected")


def library_side(frames=FRAMES) -> None:
    for action, text in frames:
        message = messages.unpack(text)
        message.action = action          # what the library's ChargePoint does for a CALLRESULT
        messages._validate_payload(message, "2.0.1")


def fastjsonschema_side():
    """The alternative to jsonschema-rs: fastjsonschema on the same schemas and date-time check."""
    fastjsonschema = pytest.importorskip("fastjsonschema", reason="pip install fastjsonschema to compare it")
    check = {(action, direction): fastjsonschema.compile(
                 schemas._schema(V201, action, direction),
                 formats={"date-time": lambda value: schemas.is_date_time(V201, value)})
             for action in EXCHANGES for direction in ("request", "response")}

    def decode_and_validate(frames=FRAMES) -> None:
        for action, text in frames:
            frame = parse(text, V201)
            check[action, "request" if frame.type_number == CALL else "response"](frame.payload)
    return decode_and_validate


SIDES = {"harness (jsonschema-rs first)": lambda: harness_side, "ocpp library (jsonschema)": lambda: library_side,
         "fastjsonschema, for comparison": fastjsonschema_side}


@pytest.mark.benchmark(timer=time.process_time)   # CPU time, not wall time (the module's docstring)
@pytest.mark.parametrize("side", SIDES)
def test_decode_and_validate(benchmark, side):
    benchmark.group = f"decode + validate the 2.0.1 mix ({len(FRAMES)} frames)"
    benchmark(SIDES[side]())


def _seconds(run, passes: int) -> float:
    """CPU seconds of ``passes`` runs."""
    start = time.process_time()
    for _ in range(passes):
        run()
    return time.process_time() - start


def interleaved() -> dict[str, float]:
    """Median CPU microseconds per frame of each side over ROUNDS alternating rounds, and their ratio."""
    harness_side(), library_side()     # warm: validators compiled, schemas read
    times: dict[str, list[float]] = {"harness": [], "library": []}
    for round_number in range(ROUNDS):
        order = [("harness", harness_side), ("library", library_side)]
        for name, run in order if round_number % 2 else reversed(order):
            times[name].append(_seconds(run, PASSES) / (PASSES * len(FRAMES)) * 1e6)
    harness, library = statistics.median(times["harness"]), statistics.median(times["library"])
    return {"harness_us_per_frame": harness, "library_us_per_frame": library, "speedup": library / harness}


def test_harness_against_the_library_in_interleaved_rounds(measure_once):
    measure_once(interleaved, lambda result: (
        f"decode + validate, 2.0.1 mix, median of {ROUNDS} interleaved rounds, CPU time: harness "
        f"{result['harness_us_per_frame']:.1f} µs/frame, ocpp library {result['library_us_per_frame']:.1f} "
        f"µs/frame: {result['speedup']:.1f}x the library"))
