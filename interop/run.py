"""Play every suite against the independent implementations of interop/targets.py, each started here on
127.0.0.1 (a station: pointed at the harness's central system) and stopped when its run ends; write each run's
conformance.json under --out, then the ledger.

    pip install -e ".[interop]"            # the PyPI targets; the npm ones install themselves (node, npm)
    python interop/run.py                 # every target; then interop/LEDGER.md and ledger.json
    python interop/run.py --only arthexis --out /tmp/interop --no-ledger

The harness runs on the real clock (a SUT of its own process): a run mostly waits, so the runs go side by side,
each target in shards (SHARDS), six runs at a time.
"""

from __future__ import annotations

import argparse
import ast
import json
import signal
import socket
import subprocess
import sys
import tempfile
import time
from typing import IO
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))

import npm_install  # noqa: E402
from targets import OCPP2_SUITES, OCPP16_SUITES, TARGETS, Target  # noqa: E402

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


def by_name(file: str, *names: str) -> tuple[str, ...]:
    """Some tests of one suite file (below suites/), by their function names: a shard's entries."""
    return tuple(f"{file}::{name}" for name in names)


def played_by(entry: str) -> list[str]:
    """``file::function`` of each test a shard's entry plays: a folder or a file below suites/, or a test by name."""
    file, _, name = entry.partition("::")
    path = REPO / "suites" / file
    found = [f"{p.relative_to(REPO / 'suites').as_posix()}::{node.name}"
             for p in ([path] if path.is_file() else sorted(path.rglob("test_*.py")))
             for node in ast.parse(p.read_text(encoding="utf-8")).body
             if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name.startswith("test")]
    if not found or (name and entry not in found):
        raise ValueError(f"the shard entry {entry} plays no test")
    return [entry] if name else found


def uncovered(shards: tuple[tuple[str, ...], ...], suites: tuple[str, ...]) -> dict[str, list[str]]:
    """What keeps ``shards`` from playing every test of ``suites`` once: tests missing, outside, played twice."""
    played = [test for shard in shards for entry in shard for test in played_by(entry)]
    every = {test for folder in suites for test in played_by(folder)}
    gaps = {"missing": sorted(every - set(played)), "outside the suites": sorted(set(played) - every),
            "played twice": sorted({test for test in played if played.count(test) > 1})}
    return {what: tests for what, tests in gaps.items() if tests}


# A target's suites in shards played side by side, each against an instance of the target of its own (its own
# database, its own ports): on the real clock a run takes as long as its waits add up. In one run arthexis 2.0.1
# took 8.5 minutes (J01 and J02, clock-aligned and periodic meter values, 4 of them: 20-40 s a test), a 1.6 central
# system 1.5-2.5 (meter values and remote control ~80 s). The shards hold every test of the suites once
# (tests/interop/test_ledger.py); a target's summary joins its shards' results.
SHARDS = {
    OCPP16_SUITES: (("ocpp16/meter", "ocpp16/boot", "ocpp16/firmware", "ocpp16/transactions", "ocpp16/reservation",
                     "ocpp16/unlock", "ocpp16/security", "ocpp16/smartcharging", "ocpp/security"),
                    ("ocpp16/remote", "ocpp/transport", "ocpp16/authorization", "ocpp16/availability",
                     "ocpp16/configuration", "ocpp16/datatransfer", "ocpp16/reset", "ocpp16/trigger")),
    OCPP2_SUITES: (("ocpp2/reservation", "ocpp2/availability", "ocpp2/datatransfer", "ocpp2/displaymessage"),
                   ("ocpp2/transactions", "ocpp2/security"),
                   ("ocpp2/provisioning", "ocpp2/remotecontrol", "ocpp2/authorization", "ocpp2/smartcharging", "ocpp"),
                   by_name("ocpp2/metervalues/test_J01.py", "test_clock_aligned_meter_values_without_a_transaction",
                         "test_clock_aligned_meter_values_during_a_transaction",
                         "test_clock_aligned_values_are_on_the_clock"),
                   by_name("ocpp2/metervalues/test_J01.py", "test_signed_clock_aligned_meter_values",
                         "test_signed_clock_aligned_values_during_a_transaction",
                         "test_no_clock_aligned_values_at_interval_zero"),
                   by_name("ocpp2/metervalues/test_J02.py", "test_the_register_never_goes_down",
                         "test_periodic_samples_during_a_transaction", "test_started_and_ended_values_name_their_context"),
                   by_name("ocpp2/metervalues/test_J02.py", "test_signed_periodic_samples",
                         "test_samples_stop_with_the_transaction", "test_started_and_ended_carry_the_configured_measurands",
                         "test_signed_started_and_ended_values", "test_no_periodic_samples_at_interval_zero")),
}


def shards(target: Target) -> tuple[tuple[str, ...], ...]:
    return SHARDS.get(target.suites, (target.suites,))


def play(target: Target, out: Path) -> dict:
    """Start the target with its adapter, run its suites against it, stop it; its shards side by side, each against
    an instance of its own. Returns its conformance.json (the shards' results joined), written to out/<slug>/
    (a shard's run, with the SUT's log, to out/<slug>/<shard>/)."""
    return play_all((target,), out)[target.key]


def joined(target: Target, played: list[dict], out: Path) -> dict:
    """A target's summary from its shards' (their results, their counts added up), written to out/<slug>/reports."""
    if len(played) == 1:
        return played[0]
    summary = {**played[0], "results": [r for run in played for r in run["results"]],
               "counts": {verdict: sum(run["counts"][verdict] for run in played) for verdict in played[0]["counts"]}}
    (out / target.slug / "reports").mkdir(parents=True, exist_ok=True)
    (out / target.slug / "reports" / "conformance.json").write_text(json.dumps(summary, indent=1))
    return summary


# a port picked free may be taken by another process before the SUT binds it (runs side by side, CI's workers
# beside them): a SUT that exits on "address already in use" is started again on other ports
START_ATTEMPTS = 3


def start_sut(target: Target, folder: Path, profile: Path) -> tuple[subprocess.Popen, IO[str], list[str], int, int]:
    """The target's SUT started with its adapter and its ports open: the process, its open log, the harness's
    options to reach it, the actuator's port and the port the harness listens on."""
    station = target.role == "cs"     # it connects to the harness's central system, which listens
    attempt = 0
    while True:
        attempt += 1
        port, actuator, listen = free_ports(3)
        if station:
            started, sut = ["--csms-url", f"ws://127.0.0.1:{listen}/"], []
        else:
            started = ["--port", str(port)]
            sut = ["--sut-url", f"{'http' if target.ocpi else 'ws'}://127.0.0.1:{port}{target.path}"]
        log = open(folder / "sut.log", "w")
        process = subprocess.Popen([sys.executable, str(HERE / target.adapter), target.role, *started,
                                    "--actuator-port", str(actuator), "--profile", str(profile)],
                                   cwd=folder, stdout=log, stderr=subprocess.STDOUT)
        try:
            for each in (actuator,) if station else (port, actuator):
                wait_for_port(each, process)
            return process, log, sut, actuator, listen
        except RuntimeError:
            stop(process)
            log.close()
            if attempt == START_ATTEMPTS or "address already in use" not in (folder / "sut.log").read_text():
                raise


def play_shard(target: Target, suites: tuple[str, ...], folder: Path) -> dict:
    """One run of ``suites`` against an instance of the target of its own."""
    folder.mkdir(parents=True, exist_ok=True)
    profile = REPO / "profiles" / target.profile
    process, log, sut, actuator, listen = start_sut(target, folder, profile)
    try:
        harness = subprocess.run(
            [sys.executable, "-m", "pytest", *(str(REPO / "suites" / s) for s in suites), "-q",
             "-p", "no:cacheprovider", "-p", "no:randomly", "--tb=line", "--sut-profile", str(profile), *sut,
             *(("--listen", f"127.0.0.1:{listen}") if target.ocpi or target.role == "cs" else ()),
             "--actuator-url", f"http://127.0.0.1:{actuator}", "--reports-dir", str(folder / "reports")],
            cwd=REPO, capture_output=True, text=True, timeout=RUN_LIMIT)
    finally:
        stop(process)
        log.close()
    (folder / "harness.log").write_text(harness.stdout + harness.stderr)
    summary = folder / "reports" / "conformance.json"
    if not summary.exists():
        raise RuntimeError(f"{target.key}: the harness wrote no conformance summary:\n{harness.stdout[-3000:]}"
                           f"{harness.stderr[-2000:]}")
    return json.loads(summary.read_text())


# Runs at a time (a target's shards are runs of their own): each mostly waits on its SUT, but a SUT and a harness
# are two processes a run, and the machine may be running other tests beside them (CI's pytest-xdist). The longest
# first (arthexis 2.0.1's shards), so that the others fill in behind them.
PARALLEL = 6
LONGEST_FIRST = ("arthexis ocpp2.0.1 csms", "arthexis ocpp1.6 csms", "ocppsim ocpp1.6 cs", "ocpp-csms ocpp1.6 csms")


def play_all(targets: tuple[Target, ...], out: Path) -> dict[str, dict]:
    """Every target, in its shards, PARALLEL runs at a time: key → its conformance.json."""
    if any(t.registry == "npm" for t in targets):
        npm_install.install()     # before the runs start: one npm ci (when the pins changed), not one a thread
    order = sorted(targets, key=lambda t: LONGEST_FIRST.index(t.key) if t.key in LONGEST_FIRST else len(LONGEST_FIRST))
    with ThreadPoolExecutor(PARALLEL) as pool:
        runs = {target.key: [pool.submit(play_shard, target, part, out / target.slug / str(n) if len(shards(target)) > 1
                                         else out / target.slug)
                             for n, part in enumerate(shards(target))] for target in order}
        return {target.key: joined(target, [run.result() for run in runs[target.key]], out) for target in targets}


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
