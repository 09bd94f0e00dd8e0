"""How a suite file declares what it tests.

    class C01(RuleTable):                     # the use case's rules, at the top of its file
        order = must("spec 001 Order of checks", "...")

    pytestmark = case("C01", block="Authorization", roles=("csms", "cs"), protocols=OCPP2)

    @checks(C01.order, csms=TC("TC_C_02_CSMS", "ocpp2.0.1"))
    async def test_...(ocpp): ...

``case`` registers the use case (its id becomes a marker, ``-m C01``, and a ``--usecase`` key), the
roles and protocol versions it can be played in and its Allure feature. ``checks`` declares, per
test, the rules the test judges (listed in the report) and the public certification ids that
correspond to it, per SUT role, for the versions the listing covers (all of the use case's
versions when none are named). ``needs`` declares what a test needs of the profile; it is checked
before anything connects, so a test that does not apply is skipped the same way in every run::

    @needs(lambda given: tag16(given.profile, "Accepted"))
"""

from __future__ import annotations

import importlib
import pkgutil
import runpy
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

import harness
from harness.profile import Profile
from harness.rules import REGISTRY, Registry, Rule

OCPP2 = ("ocpp2.0.1", "ocpp2.1")
OCPP16 = ("ocpp1.6",)
OCPP_ALL = OCPP16 + OCPP2
OCPI = ("ocpi2.2.1",)

# The use cases that not every version of their block defines, and the versions that do: OCPP 2.0.1's C block
# ends at C16; the prepaid card (C17), the payments at a station terminal (C18 to C23) and the ad hoc payments
# (C24, C25) came with 2.1 (spec 001 "What the service does": authorization at generation 2.1).
DEFINED_IN: dict[str, tuple[str, ...]] = {f"C{n}": ("ocpp2.1",) for n in range(17, 26)} | {
    "F07": ("ocpp2.1",), "B13": ("ocpp2.1",), "E16": ("ocpp2.1",), "E17": ("ocpp2.1",)}


@dataclass(frozen=True)
class UseCase:
    id: str
    block: str
    roles: tuple[str, ...]
    protocols: tuple[str, ...]
    severity: str


USECASES: dict[str, UseCase] = {}


@dataclass(frozen=True)
class TC:
    """A public certification id, the protocol versions its listing covers (empty: every version) and, for a
    parametrized test, the parameter value it is played with (``when``; None: every parameter)."""
    id: str
    protocols: tuple[str, ...] = ()
    when: str | None = None

    def __init__(self, id: str, *protocols: str, when: str | None = None):
        object.__setattr__(self, "id", id)
        object.__setattr__(self, "protocols", tuple(protocols))
        object.__setattr__(self, "when", when)

    def applies_to(self, protocol: str | None, params: Iterable[str] = ()) -> bool:
        return (not self.protocols or protocol in self.protocols) and (self.when is None or self.when in params)


Certification = TC | str | tuple["Certification", ...] | list["Certification"]


def _tcs(value: Certification) -> tuple[TC, ...]:
    if isinstance(value, (tuple, list)):
        return tuple(tc for each in value for tc in _tcs(each))
    return (value if isinstance(value, TC) else TC(value),)


def case(usecase: str, *, block: str, roles: Iterable[str], protocols: Iterable[str],
         requires: Iterable[str] = (), severity: str = "critical") -> list[pytest.MarkDecorator]:
    """The marks of a suite file; registers the use case (one declaration per id). A use case is played
    only in the versions whose text defines it (``DEFINED_IN``)."""
    declared = UseCase(usecase, block, tuple(roles), tuple(protocols), severity)
    undefined = [p for p in declared.protocols if p not in DEFINED_IN.get(usecase, declared.protocols)]
    if undefined:
        raise ValueError(f"use case {usecase} is not defined in {', '.join(undefined)}: declare protocols="
                         f"{DEFINED_IN[usecase]}")
    known = USECASES.setdefault(usecase, declared)
    if known != declared:
        raise ValueError(f"use case {usecase} is declared twice, differently: {known} and {declared}")
    return [
        pytest.mark.asyncio,
        pytest.mark.usecase(usecase, block=block, severity=severity),
        pytest.mark.sut_roles(*declared.roles),
        pytest.mark.protocols(*declared.protocols),
        *(pytest.mark.requires(feature) for feature in requires),
    ]


def checks(*rules: Rule, **certification: Certification) -> pytest.MarkDecorator:
    """One test's rules and, per SUT role, its public certification ids: one (``csms=TC("TC_C_02_CSMS",
    "ocpp2.0.1")``) or several, a case per version or per parameter (``cs=(TC("TC_013_CS", when="Hard"),
    TC("TC_014_CS", when="Soft"))``)."""
    if not rules or not all(isinstance(r, Rule) for r in rules):
        raise TypeError("checks() takes the Rule rows the test judges (at least one)")
    ids = {role: _tcs(tc) for role, tc in certification.items()}
    return pytest.mark.checks(*rules, certification=ids)


@dataclass(frozen=True)
class Given:
    """What decides, before any connection, whether a test applies: the profile, the protocol version the
    test is played in and its parameters."""
    profile: Profile
    protocol: str
    params: dict[str, Any] = field(default_factory=dict)


def needs(*conditions: Callable[[Given], Any], variant: bool = False) -> pytest.MarkDecorator:
    """What a test needs of the profile: each condition raises ``NotApplicable`` (with the reason) when the
    profile does not give it. Checked before the arena opens: the test is skipped before any connection.

    ``variant``: what the built-in reference profile cannot give (a station with one chargingRateUnit,
    when the reference station supports both). The embedded run then leaves the test out rather than
    skip it, unless its profile gives it: tests/selfcheck plays it with a variant of the reference profile
    (harness/profiles/). A real run skips it as not applicable, like any other need."""
    if not conditions or not all(callable(c) for c in conditions):
        raise TypeError("needs() takes the conditions a test needs: callables of a Given")
    return pytest.mark.needs.with_args(*conditions, variant=variant)


def certifications_of(item: pytest.Item, role: str | None, protocol: str | None) -> tuple[str, ...]:
    """The certification ids of ``item`` when played with the SUT as ``role`` in ``protocol``."""
    marker = item.get_closest_marker("checks")
    if marker is None or role is None:
        return ()
    callspec = getattr(item, "callspec", None)
    values = [v for k, v in callspec.params.items() if k != "target"] if callspec else []
    params = {str(v) for v in values} | {str(v.id) for v in values if isinstance(getattr(v, "id", None), str)}
    tcs = marker.kwargs.get("certification", {}).get(role, ())
    return tuple(dict.fromkeys(tc.id for tc in tcs if tc.applies_to(protocol, params)))


def certification_of(item: pytest.Item, role: str | None, protocol: str | None) -> str | None:
    """The certification ids of ``item`` in ``role`` and ``protocol`` as one text (None: it has none)."""
    return ", ".join(certifications_of(item, role, protocol)) or None


def rules_of(item: pytest.Item, role: str | None = None) -> tuple[Rule, ...]:
    """The rows ``item`` judges; with the SUT's ``role``, only those that bind that side (or either):
    a row of the harness's side is a self-check there, not a rule the SUT is judged by."""
    marker = item.get_closest_marker("checks")
    rules = tuple(marker.args) if marker else ()
    return tuple(r for r in rules if r.by in (None, role)) if role else rules


# The load mode holds no rule table, needs the optional [load] extra, and its Locust glue patches the
# standard library for gevent as it loads: only ``python -m harness.load`` and Locust import it.
NO_RULES = ["harness", "load"]


def load_rule_tables(*suite_dirs: Path) -> Registry:
    """Every rule table: the harness's modules and the suite files under ``suite_dirs`` (each table
    registers its rows as it is imported; an id defined twice raises ``DuplicateRule``)."""
    for info in pkgutil.walk_packages(harness.__path__, "harness."):
        if info.name.split(".")[:2] != NO_RULES:
            importlib.import_module(info.name)
    for directory in suite_dirs:
        for path in sorted(Path(directory).rglob("test_*.py")):
            runpy.run_path(str(path), run_name=f"rules_of_{path.stem}")
    return REGISTRY
