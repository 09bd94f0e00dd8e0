"""The reference charge point's energy register (the reading rules M1-M3 are in harness/ocpp/meter16.py)."""

from __future__ import annotations

from typing import Any

from harness.ocpp.meter16 import ENERGY
from harness.reference.common import now_iso


class Register:
    """The reference charge point's energy register: it only ever grows."""

    def __init__(self, wh: int = 0, step: int = 120):
        self.wh = wh
        self.step = step

    def advance(self) -> int:
        self.wh += self.step
        return self.wh

    def sample(self, context: str, wh: int | None = None, at: str | None = None) -> dict[str, Any]:
        """One MeterValue with the register (M1 defaults written out)."""
        return {"timestamp": at or now_iso(), "sampledValue": [{
            "value": str(self.wh if wh is None else wh), "context": context, "format": "Raw",
            "measurand": ENERGY, "location": "Outlet", "unit": "Wh"}]}
