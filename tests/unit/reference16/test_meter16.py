"""Register readings of a 1.6 transaction (rules M1-M3): no sockets."""

from decimal import Decimal

from harness.ocpp.meter16 import ENERGY, decreases, readings, transaction_readings
from harness.reference.v16.meter import Register


def _mv(at, value, **fields):
    return {"timestamp": at, "sampledValue": [{"value": value, **fields}]}


START = {"connectorId": 1, "idTag": "AA", "meterStart": 1000, "timestamp": "2025-01-01T10:00:00Z"}


def test_defaults_units_and_what_is_no_register():
    found = readings([_mv("2025-01-01T10:01:00Z", "1.5", unit="kWh"),
                      _mv("2025-01-01T10:01:00Z", "7000", measurand="Power.Active.Import"),
                      _mv("2025-01-01T10:01:00Z", "AB12", format="SignedData"),
                      _mv("2025-01-01T10:01:00.5+01:00", "2")], "MeterValues")
    assert [(r.series[0], r.wh) for r in found] == [(ENERGY, Decimal(1500)), (ENERGY, Decimal(2))]


def test_a_growing_transaction_has_no_decrease():
    samples = [{"meterValue": [_mv("2025-01-01T10:01:00Z", "1100")]}, {"meterValue": [_mv("2025-01-01T10:02:00Z", "1100")]}]
    stop = {"transactionId": 1, "meterStop": 1300, "timestamp": "2025-01-01T10:03:00Z",
            "transactionData": [_mv("2025-01-01T10:03:00Z", "1.3", unit="kWh", context="Transaction.End")]}
    assert decreases(transaction_readings(START, samples, stop)) == []


def test_a_stop_below_the_start_is_a_decrease():
    stop = {"transactionId": 1, "meterStop": 999, "timestamp": "2025-01-01T10:03:00Z"}
    (earlier, later), = decreases(transaction_readings(START, [], stop))
    assert (earlier.wh, later.wh, later.source) == (1000, 999, "StopTransaction meterStop")


def test_readings_are_ordered_by_time_not_by_arrival():
    late_but_earlier = {"meterValue": [_mv("2025-01-01T09:59:00Z", "900")]}
    assert decreases(transaction_readings(START, [late_but_earlier], None)) == []
    assert decreases(transaction_readings(START, [{"meterValue": [_mv("2025-01-01T10:05:00Z", "900")]}], None))


def test_series_are_judged_apart():
    samples = [{"meterValue": [_mv("2025-01-01T10:01:00Z", "5", phase="L1"), _mv("2025-01-01T10:01:00Z", "1200")]}]
    assert decreases(transaction_readings(START, samples, None)) == []


def test_the_reference_register_only_grows():
    register = Register(wh=10, step=5)
    values = [register.advance() for _ in range(3)]
    assert values == [15, 20, 25] and register.sample("Sample.Periodic")["sampledValue"][0]["value"] == "25"
