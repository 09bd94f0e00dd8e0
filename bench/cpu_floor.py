"""The floor under the embedded run's CPU per test (issue #26): what pytest, pytest-asyncio and the harness's plugin
cost a test that does nothing, beside what a suite test costs, measured by ``cpu_phases`` in one bench run.

    python bench/cpu_floor.py                 # 1,000 tests of each kind, then suites/ocpp2
    python bench/cpu_floor.py --tests 2000 --suite suites/ocpp16

Kinds: a plain test function; an ``async`` one (pytest-asyncio's runner and a fresh loop per test); an ``async`` one
with an async generator fixture (as the arena is); the same on the session's loop (as every suite test plays now).
The harness's plugin is loaded in every run (its entry point): its hooks run for every item, a suite test or not.
What a suite test costs above the last kind is the harness's own work (the arena's open and close, the frames);
below it, nothing the harness writes can take away.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
TESTS = '''
import pytest, pytest_asyncio

@pytest.mark.parametrize("n", range({tests}))
def test_plain(n):
    assert n >= 0

@pytest.mark.parametrize("n", range({tests}))
async def test_async(n):
    assert n >= 0

@pytest_asyncio.fixture
async def thing():
    yield object()

@pytest.mark.parametrize("n", range({tests}))
async def test_async_with_a_fixture(n, thing):
    assert thing is not None

@pytest_asyncio.fixture(loop_scope="session")
async def thing_on_the_session_loop():
    yield object()

@pytest.mark.asyncio(loop_scope="session")
@pytest.mark.parametrize("n", range({tests}))
async def test_session_loop_with_a_fixture(n, thing_on_the_session_loop):
    assert thing_on_the_session_loop is not None
'''
ROW = re.compile(r"^\s*(?P<label>\S.*?)\s+(?P<ms>\d+\.\d+)\s+\(\d+\)$", re.M)   # a cpu_phases row
KINDS = {"plain test": "test_plain", "async test": "test_async and not fixture",
         "async test with an async fixture": "test_async_with_a_fixture",
         "the same on the session's loop (as a suite test)": "test_session_loop"}


def phases(args: list[str], cwd: Path) -> dict[str, float]:
    """The ``cpu_phases`` rows of one pytest run: label → ms of CPU per test."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join((str(REPO), str(REPO / "bench"))))
    out = subprocess.run([sys.executable, "-m", "pytest", *args, "-q", "-p", "no:cacheprovider", "-p", "cpu_phases"],
                         cwd=cwd, env=env, capture_output=True, text=True, timeout=1200).stdout
    rows = {match["label"]: float(match["ms"]) for match in ROW.finditer(out)}
    if not rows:
        raise SystemExit(f"no cpu_phases rows in the run's output:\n{out[-3000:]}")
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tests", type=int, default=1000, help="tests of each kind (default 1000)")
    parser.add_argument("--suite", default="suites/ocpp2", help="the suite to set beside them (default suites/ocpp2)")
    options = parser.parse_args()
    columns = ("test, all of it", "set-up", "body", "tear-down", "around the phases (reports, pytest)")
    print(f"{'ms of CPU per test':45}" + "".join(f"{c.split(',')[0].split(' (')[0]:>20}" for c in columns))
    with tempfile.TemporaryDirectory() as folder:
        (Path(folder) / "test_floor.py").write_text(TESTS.format(tests=options.tests))
        (Path(folder) / "pytest.ini").write_text("[pytest]\nasyncio_mode = auto\n")
        for kind, selection in KINDS.items():
            rows = phases(["test_floor.py", "-k", selection], Path(folder))
            print(f"{kind:45}" + "".join(f"{rows.get(c, 0):20.2f}" for c in columns))
    rows = phases([options.suite], REPO)
    print(f"{options.suite:45}" + "".join(f"{rows.get(c, 0):20.2f}" for c in columns))


if __name__ == "__main__":
    main()
