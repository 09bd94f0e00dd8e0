"""Energy registers in 1.6 meter values: what a transaction's readings are, and whether they grow
(the 1.6 suites judge a charge point's readings with it; the reference meter follows it).

Rules (spec 002 Classes MeterValue/SampledValue, Enumerations, "All Register measurand values of a
single transaction ... MUST increase monotonically in time"):
- M1  a SampledValue without measurand is Energy.Active.Import.Register; without unit an energy
      value is in Wh (kWh counts 1000); a SignedData value carries no readable number and is skipped;
- M2  StartTransaction.meterStart and StopTransaction.meterStop are Energy.Active.Import.Register
      readings in Wh at their timestamps;
- M3  the readings of one transaction (meterStart, its MeterValues, the StopTransaction's
      transactionData and meterStop) never decrease in time, per measurand, phase and location.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal, InvalidOperation
from typing import Any

ENERGY = "Energy.Active.Import.Register"
_SCALE = {"Wh": 1, "kWh": 1000, "varh": 1, "kvarh": 1000}


@dataclass(frozen=True)
class Reading:
    at: datetime
    series: tuple[str, str | None, str]   # measurand, phase, location
    wh: Decimal
    source: str                           # where it was read, for a failure message

    def __str__(self) -> str:
        return f"{self.wh} Wh at {self.at.isoformat()} ({self.source})"


def parse_time(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def readings(meter_values: list[dict[str, Any]], source: str) -> list[Reading]:
    """The register readings of a MeterValue list (M1)."""
    found = []
    for value in meter_values:
        at = parse_time(value["timestamp"])
        for sampled in value.get("sampledValue", []):
            measurand = sampled.get("measurand", ENERGY)
            if not measurand.endswith(".Register") or sampled.get("format") == "SignedData":
                continue
            try:
                number = Decimal(str(sampled["value"])) * _SCALE.get(sampled.get("unit", "Wh"), 1)
            except InvalidOperation:
                continue
            found.append(Reading(at, (measurand, sampled.get("phase"), sampled.get("location", "Outlet")),
                                 number, f"{source} {measurand}"))
    return found


def transaction_readings(start: dict[str, Any], meter_values: list[dict[str, Any]],
                         stop: dict[str, Any] | None) -> list[Reading]:
    """Every reading of one transaction, in the order the charge point reported them (M2)."""
    series = (ENERGY, None, "Outlet")
    found = [Reading(parse_time(start["timestamp"]), series, Decimal(start["meterStart"]), "StartTransaction meterStart")]
    for payload in meter_values:
        found += readings(payload.get("meterValue", []), "MeterValues")
    if stop is not None:
        found += readings(stop.get("transactionData", []), "StopTransaction transactionData")
        found.append(Reading(parse_time(stop["timestamp"]), series, Decimal(stop["meterStop"]), "StopTransaction meterStop"))
    return found


def decreases(found: list[Reading]) -> list[tuple[Reading, Reading]]:
    """Pairs (earlier, later) of one series where the later reading is lower (M3)."""
    broken = []
    by_series: dict[tuple[Any, ...], list[Reading]] = {}
    for reading in found:
        by_series.setdefault(reading.series, []).append(reading)
    for series in by_series.values():
        ordered = sorted(series, key=lambda r: r.at)   # stable: same-time readings keep their order
        highest = ordered[0]
        for reading in ordered[1:]:
            if reading.wh < highest.wh:
                broken.append((highest, reading))
            elif reading.wh > highest.wh:
                highest = reading
    return broken
