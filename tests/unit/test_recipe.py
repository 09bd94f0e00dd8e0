"""ARCHITECTURE.md's recipe ("How to add a use case") checked against the tree: what the recipe has a
newcomer add is what the tree requires, and the tree holds no use case that skipped a step.

- every actuator action a reference offers (``act_<name>`` of a class under ``harness/reference``) has its
  row in docs/actuators.md (section "Actions");
- every rule table (a module-level ``RuleTable`` subclass in ``suites/`` or ``harness/``) is imported by
  ``load_rule_tables``, the registry the rule-table tests read;
- every suite file registers its use case with ``pytestmark = case("<ID>", ...)``, the id of its file name;
- every use case has a fault in the catalogs (2.x by block, 1.6, OCPI) whose rule is one of its own rows or
  of the rows its tests declare with ``checks``, or an entry in ``NO_FAULT`` with the reason;
- every file the recipe names exists.

Each check is a function of what it reads; the negative cases hand it a fake and see it fail.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
import re
import runpy
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path

import harness
import harness.reference
from harness.reference.blocks.remote_control import RemoteControlCsms2x
from harness.reference.common import V16
from harness.rules import REGISTRY, Registry, RuleTable, must
from harness.suite import load_rule_tables

REPO = Path(__file__).resolve().parents[2]
SUITE_FILES = sorted((REPO / "suites").rglob("test_*.py"))
# a use case no fault of the catalogs can break yet, and why (empty today: every use case has one)
NO_FAULT: dict[str, str] = {}


# --------------------------------------------------------------------------------- actions documented
def reference_classes() -> list[type]:
    """Every class defined in a module of harness/reference (blocks, bases, the OCPI peer and its modules)."""
    classes = []
    for info in pkgutil.walk_packages(harness.reference.__path__, "harness.reference."):
        module = importlib.import_module(info.name)
        classes += [c for c in vars(module).values() if inspect.isclass(c) and c.__module__ == module.__name__]
    return classes


def table_of(cls: type) -> str:
    """The table of docs/actuators.md a class's actions belong in: a block's by its side and versions
    ("2.x cs", "1.6 csms", ...); any other class's (the OCPI peer and its modules) anywhere ("any")."""
    versions = getattr(cls, "versions", None)
    side = "cs" if "Station" in cls.__name__ else "csms" if "Csms" in cls.__name__ else None
    if not cls.__module__.startswith("harness.reference.blocks.") or not versions or side is None:
        return "any"
    return f"{'1.6' if set(versions) <= V16 else '2.x'} {side}"


def actions_of(classes: Iterable[type]) -> dict[tuple[str, str], set[str]]:
    """(table, action name) -> the classes that define ``act_<name>``."""
    found: dict[tuple[str, str], set[str]] = {}
    for cls in classes:
        for name in vars(cls):
            if name.startswith("act_"):
                found.setdefault((table_of(cls), name.removeprefix("act_")), set()).add(cls.__qualname__)
    return found


HEADINGS = {"Performed by a charging station": ("2.x cs",), "Performed by a CSMS": ("2.x csms",),
            "OCPP 1.6": (), "Performed by an OCPI": ("ocpi",)}
PERFORMED_BY_16 = {"charge point": ("1.6 cs",), "central system": ("1.6 csms",), "both": ("1.6 cs", "1.6 csms")}


def documented_actions(markdown: str) -> set[tuple[str, str]]:
    """(table, action) of every row of the tables of the section "## Actions" of docs/actuators.md; the 1.6
    table says in its second column who performs the action."""
    section = markdown.split("\n## Actions\n", 1)[1].split("\n## ", 1)[0]
    documented = set()
    for part in section.split("\n### ")[1:]:
        tables = next(t for heading, t in HEADINGS.items() if part.startswith(heading))
        for row in re.finditer(r"^\| `([a-z0-9_]+)` \|([^|]*)\|", part, re.MULTILINE):
            for table in tables or PERFORMED_BY_16[row[2].strip()]:
                documented |= {(table, row[1]), ("any", row[1])}
    return documented


def undocumented(actions: Mapping[tuple[str, str], set[str]], documented: set[tuple[str, str]]) -> dict:
    return {key: classes for key, classes in actions.items() if key not in documented}


def test_every_action_a_reference_offers_is_documented():
    missing = undocumented(actions_of(reference_classes()),
                           documented_actions((REPO / "docs/actuators.md").read_text(encoding="utf-8")))
    assert not missing, f"actions without a row in docs/actuators.md (section Actions): {missing}"


def test_an_undocumented_action_is_found():
    class Fake:
        async def act_fly_to_the_moon(self) -> None: ...

    documented = documented_actions((REPO / "docs/actuators.md").read_text(encoding="utf-8"))
    assert ("2.x csms", "unlock_connector") in documented and ("1.6 csms", "unlock_connector") in documented
    assert ("any", "manual") not in documented   # a kind of actuator is no action
    assert list(undocumented(actions_of([Fake]), documented)) == [("any", "fly_to_the_moon")]
    without_f05 = documented - {("2.x csms", "unlock_connector")}   # the 1.6 row does not document the 2.x action
    assert list(undocumented(actions_of([RemoteControlCsms2x]), without_f05)) == [("2.x csms", "unlock_connector")]


# ------------------------------------------------------------------------------------ rule tables loaded
def rule_tables(*roots: Path) -> list[tuple[str, str, list[str]]]:
    """(file, namespace, row names) of every module-level RuleTable subclass under ``roots``."""
    tables = []
    for path in sorted(p for root in roots for p in root.rglob("*.py")):
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.ClassDef) and any(getattr(b, "id", getattr(b, "attr", "")) == "RuleTable"
                                                      for b in node.bases):
                namespace = next((k.value.value for k in node.keywords if k.arg == "namespace"), node.name)
                rows = [t.id for s in node.body if isinstance(s, ast.Assign) and isinstance(s.value, ast.Call)
                        for t in s.targets if isinstance(t, ast.Name)]
                tables.append((str(path.relative_to(REPO) if path.is_relative_to(REPO) else path), namespace, rows))
    return tables


def unloaded(tables: Iterable[tuple[str, str, list[str]]], registry: Registry) -> list[str]:
    """The tables some row of which the registry does not hold."""
    return [f"{file}: {namespace}" for file, namespace, rows in tables
            if any(f"{namespace}.{row}" not in registry for row in rows)]


def test_every_rule_table_is_imported_by_the_registry():
    load_rule_tables(REPO / "suites")
    tables = rule_tables(REPO / "suites", REPO / "harness")
    assert len(tables) > 50 and not unloaded(tables, REGISTRY)


def test_a_table_the_registry_does_not_import_is_found(tmp_path):
    (tmp_path / "test_GHOST.py").write_text(
        'class GHOST(RuleTable, namespace="recipe.ghost"):\n    row = must("spec 999", "never loaded", by=CS)\n')
    assert unloaded(rule_tables(tmp_path), REGISTRY) == [f"{tmp_path / 'test_GHOST.py'}: recipe.ghost"]

    class Loaded(RuleTable, namespace="recipe.loaded"):
        row = must("spec 999", "loaded")

    assert unloaded([("x.py", "recipe.loaded", ["row"])], REGISTRY) == []


# ---------------------------------------------------------------------------------- use cases registered
def use_case_of(path: Path) -> str | None:
    """The id a suite file passes to ``case(...)`` in its module-level ``pytestmark``; None without one."""
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "pytestmark" for t in node.targets):
            for call in ast.walk(node.value):
                if isinstance(call, ast.Call) and getattr(call.func, "id", None) == "case" and call.args:
                    return ast.literal_eval(call.args[0])
    return None


def unregistered(paths: Iterable[Path]) -> list[str]:
    """The suite files that register no use case, or one that is not their file's ``test_<ID>``."""
    return [f"{path.name}: {use_case_of(path)}" for path in paths if f"test_{use_case_of(path)}" != path.stem]


def test_every_suite_file_registers_its_use_case():
    assert len(SUITE_FILES) > 80 and not unregistered(SUITE_FILES)


def test_a_suite_file_without_its_case_is_found(tmp_path):
    (tmp_path / "test_X98.py").write_text("import pytest\n\npytestmark = [pytest.mark.asyncio]\n")
    (tmp_path / "test_X99.py").write_text('pytestmark = case("X98", block="B", roles=("cs",), protocols=OCPP2)\n')
    assert unregistered(sorted(tmp_path.glob("test_*.py"))) == ["test_X98.py: None", "test_X99.py: X98"]


# ---------------------------------------------------------------------------------- a fault per use case
def rules_of_use_case(path: Path) -> set[str]:
    """The rows a suite file defines and the rows its tests declare with ``checks`` (on the test or a param)."""
    names = runpy.run_path(str(path), run_name=f"recipe_{path.stem}")
    own = {rule.id for rule in REGISTRY if REGISTRY.origin(rule.id) == str(path)}
    declared = set()
    for test in (v for k, v in names.items() if k.startswith("test_") and callable(v)):
        for mark in getattr(test, "pytestmark", []):
            params = mark.args[1] if mark.name == "parametrize" else ()
            marks = [mark, *(m for p in params for m in getattr(p, "marks", ()))]
            declared |= {rule.id for m in marks if m.name == "checks" for rule in m.args}
    return own | declared


def fault_rules() -> set[str]:
    sys.path.insert(0, str(REPO / "tests/faults"))
    try:
        import catalog
        import catalog16
        import catalog_ocpi
    finally:
        sys.path.remove(str(REPO / "tests/faults"))
    return {fault.rule for fault in catalog.FAULTS + catalog16.FAULTS + catalog_ocpi.FAULTS}


def without_fault(use_cases: Mapping[str, set[str]], faults: set[str], exceptions: Mapping[str, str]) -> list[str]:
    """The use cases no fault breaks a rule of and that are no exception; an exception that has a fault is stale."""
    return [uc for uc, rules in use_cases.items() if bool(rules & faults) == (uc in exceptions)]


def test_every_use_case_has_a_fault_that_names_one_of_its_rules():
    load_rule_tables(REPO / "suites")
    use_cases = {use_case_of(path): rules_of_use_case(path) for path in SUITE_FILES}
    assert not without_fault(use_cases, fault_rules(), NO_FAULT), "add a fault to the catalog or to NO_FAULT"


def test_a_use_case_without_a_fault_is_found():
    use_cases = {"X99": {"X99.row"}, "F05": {"F05.ongoing"}}
    assert without_fault(use_cases, {"F05.ongoing"}, {}) == ["X99"]
    assert without_fault(use_cases, {"F05.ongoing"}, {"X99": "no faulty stand-in can break it"}) == []
    assert without_fault(use_cases, {"F05.ongoing"}, {"X99": "reason", "F05": "stale"}) == ["F05"]


# ------------------------------------------------------------------------------------ the recipe's files
def named_files(markdown: str) -> list[str]:
    """The repository paths in backquotes in the section "How to add a use case" (globs and <placeholders> aside)."""
    section = markdown.split("## How to add a use case", 1)[1].split("\n## ", 1)[0]
    return [p for p in re.findall(r"`([\w./-]+\.(?:py|md))`", section) if "/" in p]


def missing_files(markdown: str, root: Path) -> list[str]:
    return [path for path in named_files(markdown) if not (root / path).exists()]


def test_every_file_the_recipe_names_exists():
    recipe = (REPO / "ARCHITECTURE.md").read_text(encoding="utf-8")
    assert "suites/ocpp2/remotecontrol/test_F05.py" in named_files(recipe) and not missing_files(recipe, REPO)


def test_a_file_the_recipe_names_that_is_gone_is_found():
    recipe = "## How to add a use case\n1. Write `suites/ocpp2/nowhere/test_Z01.py` and `docs/actuators.md`.\n"
    assert missing_files(recipe, REPO) == ["suites/ocpp2/nowhere/test_Z01.py"]
