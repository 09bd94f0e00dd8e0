"""interop/npm_install.py: the npm targets installed from the project's pins, once, and a plain error without npm."""

import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "interop"))

import npm_install


@pytest.fixture
def cache(tmp_path, monkeypatch) -> Path:
    monkeypatch.setenv("OCPP_HARNESS_NPM_CACHE", str(tmp_path / "npm"))
    return tmp_path / "npm"


def test_without_node_or_npm_the_error_says_what_to_install(cache, monkeypatch):
    monkeypatch.setattr(npm_install.shutil, "which", lambda name: None)
    with pytest.raises(RuntimeError, match="node .* and npm on PATH"):
        npm_install.install()
    with pytest.raises(LookupError, match="npm_install.py"):
        npm_install.package_dir("ocppsim")


def test_installed_pins_are_not_installed_again(cache, monkeypatch):
    """The cache holds these pins and node_modules: no npm ci (and so no registry) is needed."""
    for name, text in npm_install.pins().items():
        (cache / name).parent.mkdir(parents=True, exist_ok=True)
        (cache / name).write_bytes(text)
    (cache / "node_modules").mkdir()

    def no_npm(*args, **kwargs):
        raise AssertionError(f"npm ran: {args}")

    monkeypatch.setattr(npm_install.subprocess, "run", no_npm)
    assert npm_install.install() == cache


def test_changed_pins_install_again_and_a_failed_install_says_why(cache, monkeypatch):
    (cache / "node_modules").mkdir(parents=True)
    (cache / "package.json").write_text("{}")          # other pins than the project's
    calls = []

    def failing(command, **kwargs):
        calls.append((command, kwargs["cwd"]))
        return subprocess.CompletedProcess(command, 1, "", "npm error 404 Not Found")

    monkeypatch.setattr(npm_install.shutil, "which", lambda name: f"/usr/bin/{name}")
    monkeypatch.setattr(npm_install.subprocess, "run", failing)
    with pytest.raises(RuntimeError, match="(?s)npm ci of interop/npm failed .*404"):
        npm_install.install()
    assert calls == [(["/usr/bin/npm", "ci", "--ignore-scripts", "--no-audit", "--no-fund"], cache)]
    assert (cache / "package-lock.json").read_bytes() == (npm_install.PINS / "package-lock.json").read_bytes()
    assert not (cache / "node_modules").exists()
