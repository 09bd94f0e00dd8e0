"""Play every suite against the independent implementations of interop/targets.py, each started here on
127.0.0.1 (a station: pointed at the harness's central system) and stopped when its run ends; write each run's
conformance.json under --out, then the ledger.

    pip install -e ".[interop]"            # the PyPI targets; the npm ones install themselves (node, npm)
    python interop/run.py                 # every target; then interop/LEDGER.md and ledger.json
    python interop/run.py --only arthexis --out /tmp/interop --no-ledger

The harness runs on the real clock (a SUT of its own process): a run mostly waits, so the runs go side by side,
three at a time.
"""

from __future__ import annotations

import argparse
import json
import signal
import socket
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))

import npm_install  # noqa: E402
from targets import TARGETS, Target  # noqa: E402

RUN_LIMIT = 900    # seconds for one target's run, however it goes


def free_ports(count: int) -> list[int]:
    """``count`` distinct free ports: each socket stays bound until all are picked."""
    sockets = [socket.socket() for _ in range(count)]
    try:
        for s in sockets:
            s.bind(("127.0.0.1", 0))
        return [s.getsockname()[1] for s in sockets]
    finally:
        for s in sockets:
            s.close()


def wait_for_port(port: int, process: subprocess.Popen, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the SUT exited with {process.returncode} before port {port} opened")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return
        except OSError:
            time.sleep(0.05)
    raise TimeoutError(f"the SUT did not open port {port} within {timeout:g} s")


def stop(process: subprocess.Popen) -> None:
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def play(target: Target, out: Path) -> dict:
    """Start the target with its adapter, run its suites against it, stop it. Returns its conformance.json,
    written to out/<slug>/ beside the SUT's log."""
    folder = out / target.slug
    folder.mkdir(parents=True, exist_ok=True)
    port, actuator, listen = free_ports(3)
    profile = REPO / "profiles" / target.profile
    station = target.role == "cs"     # it connects to the harness's central system, which listens
    if station:
        started, sut = ["--csms-url", f"ws://127.0.0.1:{listen}/"], []
    else:
        started = ["--port", str(port)]
        sut = ["--sut-url", f"{'http' if target.ocpi else 'ws'}://127.0.0.1:{port}{target.path}"]
    with open(folder / "sut.log", "w") as log:
        process = subprocess.Popen([sys.executable, str(HERE / target.adapter), target.role, *started,
                                    "--actuator-port", str(actuator), "--profile", str(profile)],
                                   cwd=folder, stdout=log, stderr=subprocess.STDOUT)
        try:
            for each in (actuator,) if station else (port, actuator):
                wait_for_port(each, process)
            harness = subprocess.run(
                [sys.executable, "-m", "pytest", *(str(REPO / "suites" / s) for s in target.suites), "-q",
                 "-p", "no:cacheprovider", "-p", "no:randomly", "--tb=line", "--sut-profile", str(profile), *sut,
                 *(("--listen", f"127.0.0.1:{listen}") if target.ocpi or station else ()),
                 "--actuator-url", f"http://127.0.0.1:{actuator}", "--reports-dir", str(folder / "reports")],
                cwd=REPO, capture_output=True, text=True, timeout=RUN_LIMIT)
        finally:
            stop(process)
    (folder / "harness.log").write_text(harness.stdout + harness.stderr)
    summary = folder / "reports" / "conformance.json"
    if not summary.exists():
        raise RuntimeError(f"{target.key}: the harness wrote no conformance summary:\n{harness.stdout[-3000:]}"
                           f"{harness.stderr[-2000:]}")
    return json.loads(summary.read_text())


# Runs at a time: each mostly waits on its SUT, but a SUT and a harness are two processes, and the machine may be
# running other tests beside them (CI's pytest-xdist); the longest first, so that the others fill in behind it.
PARALLEL = 3
LONGEST_FIRST = ("arthexis ocpp1.6 csms", "arthexis ocpp2.0.1 csms", "ocpp-csms ocpp1.6 csms")


def play_all(targets: tuple[Target, ...], out: Path) -> dict[str, dict]:
    """Every target, PARALLEL at a time: key → its conformance.json."""
    if any(t.registry == "npm" for t in targets):
        npm_install.install()     # before the runs start: one npm ci (when the pins changed), not one a thread
    order = sorted(targets, key=lambda t: LONGEST_FIRST.index(t.key) if t.key in LONGEST_FIRST else len(LONGEST_FIRST))
    with ThreadPoolExecutor(PARALLEL) as pool:
        runs = {target.key: pool.submit(play, target, out) for target in order}
        return {target.key: runs[target.key].result() for target in targets}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", help="the targets whose key contains this (e.g. arthexis, ocpp1.6)")
    parser.add_argument("--out", type=Path, help="where the runs' reports go (default: a temporary folder)")
    parser.add_argument("--no-ledger", action="store_true", help="play only; leave interop/LEDGER.md as it is")
    args = parser.parse_args(argv)
    targets = tuple(t for t in TARGETS if not args.only or args.only in t.key)
    out = args.out or Path(tempfile.mkdtemp(prefix="interop-"))
    results = play_all(targets, out)
    for key, summary in results.items():
        print(f"{key}: {summary['counts']}")
    print(f"reports under {out}")
    if not args.no_ledger:
        import ledger
        ledger.write(results, partial=len(targets) < len(TARGETS))


if __name__ == "__main__":
    main()
