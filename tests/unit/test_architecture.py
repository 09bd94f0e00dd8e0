"""ARCHITECTURE.md's table of who may import whom, enforced on every module."""

import ast
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

LAYERS = {  # top-level name under harness → rank; a module may import ranks <= its own
    "__init__": 0, "clock": 0, "pki": 0, "contract_pki": 0, "errors": 0, "wire": 0, "verdict": 0, "profile": 0, "rules": 0,
    "cistring": 0, "roles": 0, "lazy": 0, "loopback": 0,
    "ocpp": 1, "ocpi": 1, "smartcharging": 1, "variance": 1,
    "transport": 2,
    "reference": 3, "actuators": 3,
    "arena": 4, "usecases": 4, "suite": 4,
    "load": 4,   # the load mode: references and transport, beside the arena
    "fuzz": 4,   # the fuzzer: the references run on their own as SUTs, beside the arena
    "plugin": 5, "settings": 5, "report": 5, "preflight": 5, "certification": 5, "parallel": 5,
}
SUITES_RANK = 4  # suites may use the composition layer and below, never the plugin layer


def _harness_imports(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return {n.split(".")[1] for n in names if n.startswith("harness.") and n.count(".") >= 1} | \
        ({"__init__"} if "harness" in names else set())


def _rank_of(path: Path) -> int:
    if path.is_relative_to(REPO / "suites"):
        return SUITES_RANK
    part = path.relative_to(REPO / "harness").parts[0].removesuffix(".py")
    return LAYERS[part]


MODULES = sorted((REPO / "harness").rglob("*.py")) + sorted((REPO / "suites").rglob("*.py"))


def test_every_harness_module_has_a_layer():
    unknown = {p.relative_to(REPO / "harness").parts[0].removesuffix(".py")
               for p in (REPO / "harness").rglob("*.py")} - set(LAYERS)
    assert not unknown, f"add these to ARCHITECTURE.md and LAYERS: {sorted(unknown)}"


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(REPO)))
def test_imports_point_down_the_layers(path):
    rank = _rank_of(path)
    upward = sorted(name for name in _harness_imports(path) if LAYERS.get(name, 0) > rank)
    assert not upward, f"{path.relative_to(REPO)} (layer {rank}) imports upward: {upward}"


def test_the_check_catches_an_upward_import(tmp_path):
    module = tmp_path / "bad.py"
    module.write_text("from harness.plugin import SETTINGS\nimport harness.arena\n")
    assert _harness_imports(module) == {"plugin", "arena"}


# ---------------------------------------------------------------------------- the suite contract
# A suite reaches the harness's side only through the arena's verbs: never a reference module, never the
# arena's own peers (``arena.harness`` is the harness's reference, ``arena.standin`` the embedded SUT's) or
# its link (``arena.link``: the verbs read and wait on it), never a private attribute; and it lets time pass
# only through a verb that says why (``arena.elapse``, a bounded wait), never by sleeping.
FORBIDDEN_MODULES = ("harness.reference",)
FORBIDDEN_ATTRIBUTES = {"harness", "standin", "link"}
SLEEPS = {"sleep"}   # asyncio.sleep, time.sleep, trio.sleep, ...
SUITES = sorted((REPO / "suites").rglob("*.py")) + sorted((REPO / "harness" / "usecases").rglob("*.py"))


def _reaches_behind_the_arena(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
            found += [f"line {node.lineno}: imports {a.name}" for a in node.names if a.name in SLEEPS]
        elif isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        else:
            names = []
        found += [f"line {node.lineno}: imports {n}" for n in names
                  if any(n == m or n.startswith(m + ".") for m in FORBIDDEN_MODULES)]
        if isinstance(node, ast.Attribute):
            if node.attr in FORBIDDEN_ATTRIBUTES or node.attr.startswith("_") and not node.attr.startswith("__"):
                found.append(f"line {node.lineno}: reads .{node.attr}")
            elif node.attr in SLEEPS:
                found.append(f"line {node.lineno}: sleeps (.{node.attr}); let scenario time pass with arena.elapse")
    return found


@pytest.mark.parametrize("path", SUITES, ids=lambda p: str(p.relative_to(REPO)))
def test_suites_reach_the_harness_side_only_through_the_arena(path):
    found = _reaches_behind_the_arena(path)
    assert not found, (f"{path.relative_to(REPO)} goes behind the arena (use arena.act, arena.configure, "
                       f"arena.exchange, arena.expect, arena.sent, arena.next_call, arena.elapse): {found}")


def test_the_contract_check_catches_a_suite_that_goes_behind_the_arena(tmp_path):
    suite = tmp_path / "test_bad.py"
    suite.write_text("import asyncio\nfrom harness.reference.csms import ReferenceCsms\n"
                     "async def test_x(ocpp):\n    ocpp.harness.registration = 'Pending'\n"
                     "    ocpp.link.held.add('StopTransaction')\n    ocpp._undo.clear()\n"
                     "    await asyncio.sleep(1)\n")
    assert sorted(_reaches_behind_the_arena(suite)) == ["line 2: imports harness.reference.csms",
                                                        "line 2: imports harness.reference.csms.ReferenceCsms",
                                                        "line 4: reads .harness", "line 5: reads .link",
                                                        "line 6: reads ._undo",
                                                        "line 7: sleeps (.sleep); let scenario time pass with "
                                                        "arena.elapse"]


def _reference_classes() -> dict[str, type]:
    """Every class defined in ``harness.reference`` and its subpackages, by qualified name."""
    import importlib
    import inspect
    import pkgutil

    import harness.reference as package
    classes = {}
    for info in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
        module = importlib.import_module(info.name)
        for _, cls in inspect.getmembers(module, inspect.isclass):
            if cls.__module__ == module.__name__:
                classes[f"{cls.__module__}.{cls.__qualname__}"] = cls
    return classes


def _bases_of_other_versions(cls: type) -> list[str]:
    """The bases of ``cls`` that do not serve every version ``cls`` serves (a 1.6 class on a 2.x one)."""
    served = getattr(cls, "versions", None)
    return [f"{base.__module__}.{base.__qualname__}" for base in cls.__mro__[1:]
            if served and vars(base).get("versions") and not set(served) <= set(vars(base)["versions"])]


def test_no_16_reference_class_subclasses_a_2x_reference_class():
    """Versions are siblings: a reference class (a block, a composed reference) inherits only classes that
    serve every version it serves, so no 1.6 class subclasses a 2.x one, nor the other way round; and
    every block says which versions it serves instead of inheriting that from another block."""
    from harness.reference.common import Block
    for name, cls in _reference_classes().items():
        assert not _bases_of_other_versions(cls), f"{name} inherits {_bases_of_other_versions(cls)}"
        if issubclass(cls, Block) and cls is not Block:
            assert vars(cls).get("versions"), f"{name} does not declare the versions it serves"


def test_the_sibling_check_catches_a_16_class_on_a_2x_one():
    from harness.reference.common import V2X, V16, Block
    from harness.reference.compose import ReferenceStation

    class Reset2x(Block):
        versions = V2X

    class Reset16(Reset2x):
        versions = V16

    class Station16(Reset2x, ReferenceStation):   # a 2.x block composed into a 1.6 reference
        versions = V16

    assert _bases_of_other_versions(Reset16) == [f"{__name__}.{Reset2x.__qualname__}"]
    assert f"{__name__}.{Reset2x.__qualname__}" in _bases_of_other_versions(Station16)
    assert "harness.reference.compose.ReferenceStation" in _bases_of_other_versions(Station16)
