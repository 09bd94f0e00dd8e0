"""How a suite file declares what it tests: one call, ``pytestmark = case(...)``.

    pytestmark = case("C01", block="Authorization", roles=("csms", "cs"),
                      protocols=OCPP2, certification={"csms": "TC_C_02_CSMS"})

gives the test its use case id (selectable with ``-m C01`` or ``--usecase``), the roles and
protocol versions it can be played in, the Allure feature, and the certification ids.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import pytest

OCPP2 = ("ocpp2.0.1", "ocpp2.1")
OCPP16 = ("ocpp1.6",)

USECASE_IDS = tuple(
    [f"C{n:02d}" for n in range(1, 26)] + [f"K{n:02d}" for n in range(1, 18)] + ["P01", "P02"]
    + ["CONN", "RPC", "CORE16", "TRANSPORT16", "SECURITY16", "OCPI_CREDENTIALS", "OCPI_LOCATIONS", "OCPI_SESSIONS"])


def case(usecase: str, *, block: str, roles: Iterable[str], protocols: Iterable[str],
         certification: Mapping[str, str] | None = None, requires: Iterable[str] = (),
         severity: str = "critical") -> list[pytest.MarkDecorator]:
    return [
        pytest.mark.asyncio,
        pytest.mark.usecase(usecase, block=block, certification=dict(certification or {}), severity=severity),
        pytest.mark.sut_roles(*roles),
        pytest.mark.protocols(*protocols),
        *(pytest.mark.requires(feature) for feature in requires),
    ]
