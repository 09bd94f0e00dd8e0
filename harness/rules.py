"""Rules as data: every requirement the harness judges is a row of a namespaced table.

A table is a class whose attributes are rules; the namespace prefixes their ids::

    class C01(RuleTable):
        order = must("spec 001 Order of checks", "the CSMS decides in the fixed order of checks")
        language = should("spec 001 C01.FR.12", "the answer carries the driver's language")

    C01.order.id == "C01.order"; C01.order.strict is True

- the level (MUST/SHALL or SHOULD) lives in the table, never at a call site: breaking a MUST is a
  failure, breaking a SHOULD a finding. Where the texts of two versions give one requirement two
  levels, the row says so once (``levels={"ocpp1.6": SHOULD}``) and ``level_in(protocol)`` reads it;
- every id is unique across the project: ``REGISTRY`` refuses a second definition of an id from
  another module (a test imports every table and checks the registry);
- a rule is printed as its id; ``describe()`` adds its level, reference and text;
- a row of a dialogue played from either side names the side it binds (``by="cs"``: what the
  charging station must do): the verifiers blame the SUT only for a row of the role the SUT plays;
  a broken row of the harness's own role is a self-check, *broken* (``harness.verdict``). A row
  without ``by`` binds whichever side the check looks at, which is the SUT's.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, cast

MUST, SHOULD = "MUST", "SHOULD"
LEVELS = (MUST, SHOULD)
# the sides a row may bind: OCPP charging station and CSMS, OCPI CPO and eMSP
SIDES = ("cs", "csms", "cpo", "emsp")


@dataclass(frozen=True)
class Rule:
    id: str
    level: str
    ref: str
    text: str
    levels: Mapping[str, str] = field(default_factory=dict, compare=False)
    by: str | None = None   # the side the row binds (one of SIDES); None: the side the check looks at

    def level_in(self, protocol: str | None) -> str:
        """The level in ``protocol`` (for example ``ocpp1.6``): the row's exception, else its level."""
        return self.levels.get(protocol, self.level) if protocol else self.level

    def strict_in(self, protocol: str | None) -> bool:
        return self.level_in(protocol) == MUST

    @property
    def strict(self) -> bool:
        return self.level == MUST

    def describe(self) -> str:
        return f"{self.id} ({self.level}, {self.ref}): {self.text}"

    def __str__(self) -> str:
        return self.id


@dataclass(frozen=True)
class _Draft:
    level: str
    ref: str
    text: str
    levels: Mapping[str, str]
    by: str | None


# ``must`` and ``should`` return a draft that the table's class turns into its ``Rule`` as the class is made
# (``RuleTable.__init_subclass__``): typed as that Rule, which is all any code ever reads off a table.
def must(ref: str, text: str, *, levels: Mapping[str, str] | None = None, by: str | None = None) -> Rule:
    """A MUST/SHALL row: breaking it fails the test (``by``: the side it binds)."""
    return cast(Rule, _Draft(MUST, ref, text, MappingProxyType(dict(levels or {})), by))


def should(ref: str, text: str, *, levels: Mapping[str, str] | None = None, by: str | None = None) -> Rule:
    """A SHOULD row: breaking it is a finding, never a failure (``by``: the side it binds)."""
    return cast(Rule, _Draft(SHOULD, ref, text, MappingProxyType(dict(levels or {})), by))


class DuplicateRule(Exception):
    """Two tables define one rule id."""


class Registry:
    """Every rule of every imported table, by id."""

    def __init__(self) -> None:
        self._rules: dict[str, Rule] = {}
        self._origin: dict[str, str] = {}

    def add(self, rule: Rule, origin: str) -> None:
        known = self._origin.get(rule.id)
        if known is not None and known != origin:
            raise DuplicateRule(f"rule {rule.id} is defined in {known} and again in {origin}: ids are unique")
        self._rules[rule.id] = rule
        self._origin[rule.id] = origin

    def get(self, rule_id: str) -> Rule:
        return self._rules[rule_id]

    def __contains__(self, rule_id: object) -> bool:
        return rule_id in self._rules

    def __iter__(self) -> Iterator[Rule]:
        return iter(self._rules.values())

    def __len__(self) -> int:
        return len(self._rules)

    def origin(self, rule_id: str) -> str:
        return self._origin[rule_id]


REGISTRY = Registry()


def _origin_of(module_name: str) -> str:
    """The file a table was defined in: one file imported under two module names is one origin."""
    module = sys.modules.get(module_name)
    return getattr(module, "__file__", None) or module_name


class RuleTable:
    """Subclass it with rows made by ``must``/``should``; ``namespace`` defaults to the class name."""

    namespace: str = ""

    def __init_subclass__(cls, *, namespace: str | None = None, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls.namespace = namespace or cls.__name__
        origin = _origin_of(cls.__module__)
        for name, value in list(vars(cls).items()):
            if isinstance(value, _Draft):
                if value.level not in LEVELS or any(v not in LEVELS for v in value.levels.values()):
                    raise ValueError(f"{cls.namespace}.{name}: level must be MUST or SHOULD")
                if value.by is not None and value.by not in SIDES:
                    raise ValueError(f"{cls.namespace}.{name}: by= names a side, one of {', '.join(SIDES)}")
                rule = Rule(f"{cls.namespace}.{name}", value.level, value.ref, value.text, value.levels, value.by)
                setattr(cls, name, rule)
                REGISTRY.add(rule, origin)

    @classmethod
    def rules(cls) -> list[Rule]:
        return [v for v in vars(cls).values() if isinstance(v, Rule)]
