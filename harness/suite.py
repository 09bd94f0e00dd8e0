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
OCPI = ("ocpi2.2.1",)

USECASE_IDS = tuple(
    [f"C{n:02d}" for n in range(1, 26)] + [f"K{n:02d}" for n in range(1, 18)] + ["P01", "P02"]
    + ["CONN", "RPC", "CORE16", "TRANSPORT16", "SECURITY16", "OCPI_CREDENTIALS", "OCPI_LOCATIONS", "OCPI_SESSIONS"]
    + ["OCPI_AUTH", "OCPI_FORMAT", "OCPI_LOCATIONS_PULL", "OCPI_LOCATIONS_PUSH"]
    + ["BOOT16", "AUTH16", "TX16", "OFFLINE16", "REMOTE16", "CONFIG16", "DATA16", "RESET16"])


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


def certified(marks: list[pytest.MarkDecorator], **ids: str) -> pytest.MarkDecorator:
    """One test's own certification ids, role → id: ``@certified(pytestmark, cs="TC_001_CS")``
    (the module's use-case mark with ``certification`` replaced; the closest mark wins)."""
    usecase = next(m for m in marks if m.name == "usecase")
    return pytest.mark.usecase(*usecase.args, **(usecase.kwargs | {"certification": ids}))
