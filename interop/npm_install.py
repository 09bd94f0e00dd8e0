"""The npm implementations of the ledger: installed from interop/npm/package.json and its package-lock.json (the
project's own pins) into a cache folder by ``npm ci``, again only when the pins change. Nothing from them is kept
in the repository.

    python interop/npm_install.py      # what interop/run.py does before it plays an npm target
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

PINS = Path(__file__).resolve().parent / "npm"
INSTALL_LIMIT = 600    # seconds for npm ci


def folder() -> Path:
    """Where the npm targets are installed: $OCPP_HARNESS_NPM_CACHE, else <user cache>/ocpp-harness/interop-npm."""
    if os.environ.get("OCPP_HARNESS_NPM_CACHE"):
        return Path(os.environ["OCPP_HARNESS_NPM_CACHE"])
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "ocpp-harness" / "interop-npm"


def package_dir(package: str) -> Path:
    """The installed package's folder; LookupError when it is not installed (run interop/npm_install.py)."""
    found = folder() / "node_modules" / package
    if not (found / "package.json").exists():
        raise LookupError(f"the npm package {package} is not installed under {folder()}: "
                          f"run python interop/npm_install.py (needs node and npm)")
    return found


def pins() -> dict[str, bytes]:
    """The files ``npm ci`` installs from, by path relative to interop/npm."""
    return {str(path.relative_to(PINS)): path.read_bytes() for path in sorted(PINS.rglob("*")) if path.is_file()}


def install() -> Path:
    """``npm ci`` the pinned packages into folder() unless the installed pins are these; the folder."""
    target = folder()
    wanted = pins()
    if (target / "node_modules").is_dir() and all(
            (target / name).exists() and (target / name).read_bytes() == text for name, text in wanted.items()):
        return target
    npm = shutil.which("npm")
    if npm is None or shutil.which("node") is None:
        raise RuntimeError("the npm targets need node (>= 18) and npm on PATH, which are not here: install Node.js "
                           "or leave them out (interop/run.py --only <key>)")
    shutil.rmtree(target, ignore_errors=True)
    target.mkdir(parents=True)
    for name, text in wanted.items():
        (target / name).parent.mkdir(parents=True, exist_ok=True)
        (target / name).write_bytes(text)
    # --ignore-scripts: no install script of theirs runs here (the WebSocket library falls back to plain JS)
    done = subprocess.run([npm, "ci", "--ignore-scripts", "--no-audit", "--no-fund"], cwd=target,
                          capture_output=True, text=True, timeout=INSTALL_LIMIT)
    if done.returncode != 0:
        shutil.rmtree(target / "node_modules", ignore_errors=True)
        raise RuntimeError(f"npm ci of interop/npm failed (exit {done.returncode}; is the npm registry reachable?):\n"
                           f"{done.stderr[-2000:]}")
    return target


if __name__ == "__main__":
    print(f"installed under {install()}")
