"""The reference charge point's meter (the reading rules M1-M3 are in harness/ocpp/meter16.py): an
energy register that only ever grows, and the current drawn on each of the three phases, so the
suites see a measurand reported at several phases (spec 002 Meter values: all of them are reported).
"""

from __future__ import annotations

from typing import Any

from harness.ocpp.meter16 import ENERGY
from harness.reference.common import now_iso

CURRENT = "Current.Import"
PHASES = ("L1", "L2", "L3")
# The measurands the reference meter samples (spec 002 Measurand; rule 16 metering keys).
SUPPORTED_MEASURANDS = frozenset({ENERGY, CURRENT})


def measurand_list(value: str | None) -> list[str]:
    """A configured measurand list (MeterValuesSampledData, ...): comma-separated, empty means none."""
    return [item.strip() for item in (value or "").split(",") if item.strip()]


class Register:
    """The reference charge point's meter: the energy register and a steady current per phase."""

    def __init__(self, wh: int = 0, step: int = 120, amps: int = 16):
        self.wh = wh
        self.step = step
        self.amps = amps

    def advance(self, limit: int | None = None) -> int:
        """Energy flows for one step, never past ``limit`` (Wh on the register) when one is given."""
        self.wh = self.wh + self.step if limit is None else max(self.wh, min(self.wh + self.step, limit))
        return self.wh

    def sample(self, context: str, measurands: list[str] | tuple[str, ...] = (ENERGY,), wh: int | None = None,
               at: str | None = None) -> dict[str, Any]:
        """One MeterValue of ``measurands`` (M1 defaults written out): the register, the current of every phase."""
        common = {"context": context, "format": "Raw", "location": "Outlet"}
        values = []
        for measurand in measurands:
            if measurand == ENERGY:
                values.append({"value": str(self.wh if wh is None else wh), "measurand": ENERGY, "unit": "Wh",
                               **common})
            elif measurand == CURRENT:
                values += [{"value": str(self.amps), "measurand": CURRENT, "phase": phase, "unit": "A", **common}
                           for phase in PHASES]
        return {"timestamp": at or now_iso(), "sampledValue": values}
