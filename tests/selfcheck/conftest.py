"""What the self-checks that start a reference as a process of its own share."""

import queue
import subprocess
import sys
import threading
import time
from contextlib import contextmanager
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
START_TIMEOUT = 20


@contextmanager
def _standalone(module: str, *args: str, last: str = "actuator URL", python: str = sys.executable, cwd=REPO,
                env=None):
    """``python -m module args`` running on its own (in ``cwd``, by this interpreter unless ``python`` names
    another: an installed wheel's): the ``name: URL`` lines it printed once it listens, up to the line named
    ``last``; stopped with SIGTERM afterwards."""
    process = subprocess.Popen([python, "-m", module, *args], cwd=cwd, env=env, text=True,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    lines: queue.Queue[str] = queue.Queue()   # read by a thread: a wait on the pipe misses buffered lines
    threading.Thread(target=lambda: [lines.put(line) for line in process.stdout], daemon=True).start()
    try:
        urls: dict[str, str] = {}
        deadline = time.monotonic() + START_TIMEOUT
        while last not in urls:
            try:
                line = lines.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                line = ""
            if not line:
                stderr = process.stderr.read() if process.poll() is not None else "(still running)"
                pytest.fail(f"{module} did not start within {START_TIMEOUT} s: printed {urls}; stderr {stderr}")
            name, _, url = line.strip().partition(": ")
            urls[name] = url
        yield urls
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)


@pytest.fixture(scope="session")   # a plain function: module fixtures that start runs up front use it too
def standalone():
    """``with standalone("harness.reference.csms", "--version", "ocpp1.6") as urls: ...``"""
    return _standalone
