"""ARCHITECTURE.md's table of who may import whom, enforced on every module."""

import ast
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

LAYERS = {  # top-level name under harness → rank; a module may import ranks <= its own
    "__init__": 0, "errors": 0, "wire": 0, "verdict": 0, "profile": 0,
    "ocpp": 1, "ocpi": 1, "smartcharging": 1,
    "transport": 2,
    "reference": 3, "actuators": 3,
    "arena": 4, "ocpi_arena": 4, "usecases": 4, "suite": 4,
    "plugin": 5, "settings": 5, "report": 5,
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
