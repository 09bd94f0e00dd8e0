"""The wheel carries everything the plugin and the suites need outside this repository, and the
installed harness runs a slice of every protocol in a fresh virtual environment in an empty directory
(``pytest -m wheel`` selects the slow half)."""

import json
import os
import shutil
import subprocess
import sys
import tomllib
import venv
import zipfile
from pathlib import Path

import pytest
from packaging.requirements import Requirement

REPO = Path(__file__).resolve().parents[2]
# one use case per protocol: OCPP 2.x (both versions), OCPP 1.6, OCPI (schemas validate every body); and
# FIRMWARE16, whose async fixture must be pytest-asyncio's to run in its strict mode, an installed wheel's
SLICE = "P01,DATA16,OCPI_FORMAT,FIRMWARE16"


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    """Built from a copy of the work tree: setuptools' build/ of the repository may hold files since removed."""
    out = tmp_path_factory.mktemp("wheel")
    source = shutil.copytree(REPO, out / "source", ignore=shutil.ignore_patterns(
        ".git", "build", "dist", "reports", "*.egg-info", "__pycache__", ".venv", ".pytest_cache"))
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(out), str(source)],
                   check=True, timeout=300, capture_output=True)
    return next(out.glob("evse_conformance-*.whl"))


def _folders(root: Path, name: str, holding: str) -> set[str]:
    """The dotted names, under ``name``, of ``root``'s folders with a file matching ``holding``."""
    return {".".join((name, *p.parent.relative_to(root).parts)) for p in root.rglob(holding)
            if "__pycache__" not in p.parts}


def test_every_folder_the_wheel_carries_is_declared():
    """setuptools ignores a folder missing from ``packages`` (it warns in every build, and will drop it): a new
    suite's folder, or a data folder such as the profiles, would then be missing from the wheel."""
    declared = set(tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    present = _folders(REPO / "harness", "harness", "*.*") | _folders(REPO / "suites", "harness.suites", "*.py")
    assert present - declared == set(), "add these packages to [tool.setuptools] packages in pyproject.toml"


# what only ``python -m harness.load`` needs: Locust (and its gevent), matplotlib (and its numpy), the
# histograms, the process meter; installing them took README command 1 from 14 s to 80 s
LOAD_ONLY = {"locust", "gevent", "matplotlib", "numpy", "hdrhistogram", "psutil"}


def _installs(requirements: list[str], extras: dict[str, list[str]]) -> set[str]:
    """The distributions ``requirements`` name, the project's own extras among them expanded."""
    names = set()
    for requirement in map(Requirement, requirements):
        if requirement.name == "evse-conformance":
            for extra in requirement.extras:
                names |= _installs(extras[extra], extras)
        else:
            names.add(requirement.name.lower())
    return names


def test_the_load_mode_s_dependencies_come_only_with_the_load_extra():
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    extras = project["optional-dependencies"]
    assert _installs(project["dependencies"] + extras["test"], extras) & LOAD_ONLY == set(), \
        "the load mode's dependencies belong in the [load] extra alone, not in the dependencies or [test]"
    assert {"locust", "matplotlib"} <= _installs(extras["load"], extras)


def test_wheel_contains_the_plugin_profile_templates_schemas_and_suites(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    assert {"harness/plugin.py", "harness/profiles/reference.toml", "harness/templates/conformance.html.j2",
            "harness/suites/__init__.py"} <= names
    schemas = {n for n in names if n.startswith("harness/ocpi_schemas/") and n.endswith(".json")}
    assert len(schemas) == len(list((REPO / "schemas" / "ocpi").glob("*.json"))) > 10
    suites = {n.removeprefix("harness/suites/") for n in names if n.startswith("harness/suites/test_")
              or (n.startswith("harness/suites/") and "/test_" in n)}
    assert suites == {str(p.relative_to(REPO / "suites")) for p in (REPO / "suites").rglob("test_*.py")}
    entry_points = next(n for n in names if n.endswith("entry_points.txt"))
    assert "evse_conformance = harness.plugin" in zipfile.ZipFile(wheel).read(entry_points).decode()
    metadata = zipfile.ZipFile(wheel).read(next(n for n in names if n.endswith(".dist-info/METADATA"))).decode()
    assert "License-Expression: Apache-2.0" in metadata.splitlines()


@pytest.mark.wheel
def test_the_installed_wheel_runs_every_protocol_outside_the_repository(wheel, tmp_path, standalone):
    """Installed from the wheel alone (its dependencies from a wheelhouse, no index), in an empty
    directory: the suites load as ``harness.suites`` and pass in pytest-asyncio's strict mode (no ini
    file sets another), the OCPI schemas load from the package data, and the reports are written; then
    the README's standalone reference CSMS, run from the package, passes against the harness given the
    built-in standalone profile by name."""
    wheelhouse, work = tmp_path / "wheelhouse", tmp_path / "empty"
    work.mkdir()
    subprocess.run([sys.executable, "-m", "pip", "download", "-q", "-d", str(wheelhouse), str(wheel)],
                   check=True, timeout=300, capture_output=True)
    venv.create(tmp_path / "venv")   # without pip of its own (ensurepip costs seconds): this one installs into it
    python = str(tmp_path / "venv" / "bin" / "python")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")} | \
        {"PYTHONDONTWRITEBYTECODE": "1"}
    # --no-compile: byte code is the interpreter's business (this run writes none); compiling the whole
    # environment cost more CPU than the run itself
    subprocess.run([sys.executable, "-m", "pip", "--python", python, "install", "-q", "--no-compile", "--no-index",
                    "--find-links", str(wheelhouse), str(wheel)], check=True, timeout=300, capture_output=True,
                   env=env, cwd=work)
    where = subprocess.run([python, "-c", "import harness.ocpi.schemas as s; print(s.__file__, len(s.names()))"],
                           capture_output=True, text=True, timeout=60, env=env, cwd=work, check=True).stdout.split()
    assert where[0].startswith(str(tmp_path / "venv")) and not where[0].startswith(str(REPO))
    assert int(where[1]) == len(list((REPO / "schemas" / "ocpi").glob("*.json")))
    run = subprocess.run([python, "-m", "pytest", "--pyargs", "harness.suites", "--usecase", SLICE, "-q",
                          "-p", "no:cacheprovider", "--reports-dir", "out"],
                         capture_output=True, text=True, timeout=300, env=env, cwd=work)
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]
    summary = json.loads((work / "out" / "conformance.json").read_text())
    assert summary["counts"]["passed"] == len(summary["results"]) > 20
    assert {r["protocol"] for r in summary["results"]} == {"ocpp2.0.1", "ocpp2.1", "ocpp1.6", "ocpi2.2.1"}
    assert (work / "out" / "conformance.html").read_text().count("<tr") > len(summary["results"])
    assert sorted(p.name for p in work.iterdir()) == ["out"], "the run wrote outside its reports directory"
    with standalone("harness.reference.csms", "--version", "ocpp2.0.1", python=python, cwd=work, env=env) as urls:
        real = subprocess.run([python, "-m", "pytest", "--pyargs", "harness.suites", "--usecase", "P01", "-q",
                               "-p", "no:cacheprovider", "--reports-dir", "out/standalone", "--sut", "csms",
                               "--sut-url", urls["OCPP URL"], "--protocol", "ocpp2.0.1",
                               "--sut-profile", "builtin:standalone", "--actuator", "http",
                               "--actuator-url", urls["actuator URL"]],
                              capture_output=True, text=True, timeout=300, env=env, cwd=work)
    assert real.returncode == 0, real.stdout[-4000:] + real.stderr[-2000:]
    verdicts = json.loads((work / "out" / "standalone" / "conformance.json").read_text())["counts"]
    assert verdicts["passed"] > 0 and verdicts["failed"] == verdicts["broken"] == 0, verdicts
