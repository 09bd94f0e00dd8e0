"""interop/common.py's entry point: an adapter's class plays the role it is started in, a station's too (before,
`cs` ran the example's own charge point, whose behaviour is ours, instead of the implementation)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "interop"))

import common


def test_the_adapter_s_class_plays_every_role(monkeypatch):
    seen = {}

    async def main(argv, *, csms=None, station=None, doc=""):
        seen.update(argv=argv, csms=csms, station=station)

    class Implementation:
        pass

    monkeypatch.setattr(common.ocpp_lib_sut, "main", main)
    for role in ("cs", "csms", "cpo"):
        monkeypatch.setattr(sys, "argv", ["adapter.py", role, "--actuator-port", "1"])
        common.run(Implementation, "doc")
        assert seen["csms"] is Implementation and seen["station"] is Implementation
        assert seen["argv"][0] == ("cs" if role == "cs" else "csms")
