"""The wheel carries everything the plugin needs outside this repository."""

import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def test_every_harness_package_is_declared():
    declared = set(tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    present = {".".join(p.parent.relative_to(REPO).parts) for p in (REPO / "harness").rglob("__init__.py")}
    assert present - declared == set(), "add these packages to [tool.setuptools] packages in pyproject.toml"


def test_wheel_contains_the_plugin_profile_and_ocpi_schemas(tmp_path):
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w",
                    str(tmp_path), str(REPO)], check=True, timeout=300, capture_output=True)
    wheel = next(tmp_path.glob("evse_conformance-*.whl"))
    names = set(zipfile.ZipFile(wheel).namelist())
    assert "harness/plugin.py" in names
    assert "harness/profiles/reference.toml" in names
    schemas = {n for n in names if n.startswith("harness/ocpi_schemas/") and n.endswith(".json")}
    assert len(schemas) == len(list((REPO / "schemas" / "ocpi").glob("*.json"))) > 10
    entry_points = next(n for n in names if n.endswith("entry_points.txt"))
    assert "evse_conformance = harness.plugin" in zipfile.ZipFile(wheel).read(entry_points).decode()
