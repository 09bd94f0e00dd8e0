"""Play a role's full run against ONE standalone reference process again and again without restarting it,
the last time in reverse order, and diff the verdicts: a vendor's SUT is not restarted between CI runs
("Leave the SUT as you found it", bench/PARALLEL.md "Running twice against one SUT").

    python bench/again_real_run.py --sut cs --version ocpp1.6
    python bench/again_real_run.py --sut cpo
    python bench/again_real_run.py --sut emsp --runs forward,reversed --suites suites/ocpi/tokens

Exit 1 when a later run's verdicts differ from the first's (each difference printed). The central system's
run (``--sut csms``) is bench/parallel_real_run.py's.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

from parallel_real_run import PROFILE, REPO, differences, verdicts   # bench/, beside this script

SUITES = {"ocpp1.6": "suites/ocpp16 suites/ocpp", "ocpp2.0.1": "suites/ocpp2 suites/ocpp",
          "ocpp2.1": "suites/ocpp2 suites/ocpp", "ocpi": "suites/ocpi"}
TOKEN_A = "again-token-a"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_peer(sut: str, version: str, listen: str) -> tuple[subprocess.Popen, dict[str, str]]:
    """The standalone reference playing ``sut`` and the URLs it printed (the station connects to ``listen``)."""
    if sut == "cs":
        command = ["-m", "harness.reference.station", "--version", version, "--profile", PROFILE,
                   "--csms-url", f"ws://{listen}/ocpp"]
        last = "actuator URL"
    else:
        command = ["-m", "harness.reference.ocpi", "--role", sut, "--profile", PROFILE, "--token-a", TOKEN_A]
        last = "versions URL"
    process = subprocess.Popen([sys.executable, *command], stdout=subprocess.PIPE, text=True, cwd=REPO)
    urls: dict[str, str] = {}
    assert process.stdout is not None
    while last not in urls:
        line = process.stdout.readline()
        if not line:
            raise SystemExit(f"the reference {sut} stopped before it listened (exit {process.wait()})")
        name, _, url = line.strip().partition(": ")
        urls[name] = url
    if sut != "cs":
        urls["actuator URL"] = urls["versions URL"].replace("/ocpi/versions", "/actuator")
    return process, urls


def pytest_command(sut: str, version: str, suites: str, reports: Path, urls: dict[str, str], listen: str,
                   reverse: bool) -> list[str]:
    command = [sys.executable, "-m", "pytest", *suites.split(), "-q", "-p", "no:cacheprovider", "--sut", sut,
               "--sut-profile", PROFILE, "--actuator", "http", "--actuator-url", urls["actuator URL"],
               "--reports-dir", str(reports), "--basetemp", str(reports.with_name(f"{reports.name}-tmp"))]
    if sut == "cs":
        command += ["--listen", listen, "--protocol", version]
    else:
        command += ["--sut-url", urls["versions URL"], "--listen", f"127.0.0.1:{free_port()}"]
    return command + (["-p", "reverse_order"] if reverse else [])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sut", choices=("cs", "cpo", "emsp"), default="cs")
    parser.add_argument("--version", default="ocpp1.6", choices=("ocpp1.6", "ocpp2.0.1", "ocpp2.1"))
    parser.add_argument("--runs", default="forward,forward,reversed",
                        help="comma-separated runs against the one process: forward or reversed")
    parser.add_argument("--suites", help="what to play, space-separated (default: every suite of the role)")
    parser.add_argument("--out", default="reports/again", help="where each run's reports go")
    args = parser.parse_args(argv)
    name = f"{args.sut}-{args.version}" if args.sut == "cs" else args.sut
    suites = args.suites or SUITES[args.version if args.sut == "cs" else "ocpi"]
    listen = f"127.0.0.1:{free_port()}"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(REPO / "bench"), os.environ.get("PYTHONPATH")])))
    peer, urls = start_peer(args.sut, args.version, listen)
    runs: list[dict] = []
    try:
        for i, order in enumerate(args.runs.split(",")):
            reports = Path(args.out) / f"{name}-{i + 1}-{order}"
            started = time.monotonic()
            completed = subprocess.run(pytest_command(args.sut, args.version, suites, reports, urls, listen,
                                                      order == "reversed"),
                                       cwd=REPO, env=env, capture_output=True, text=True, timeout=3600)
            report = json.loads((reports / "conformance.json").read_text())
            runs.append({"order": order, "wall_s": round(time.monotonic() - started, 1),
                         "exit": completed.returncode, "counts": report["counts"], "reports": str(reports)})
            print(f"run {i + 1} ({order}): {runs[-1]['wall_s']} s, {report['counts']}", flush=True)
    finally:
        peer.send_signal(signal.SIGTERM)
        peer.wait(timeout=30)
    first = verdicts(Path(runs[0]["reports"]) / "conformance.json")
    failed = False
    for i, run in enumerate(runs[1:], start=2):
        found = differences(first, verdicts(Path(run["reports"]) / "conformance.json"), ("in run 1", f"in run {i}"))
        run["differences"] = found
        failed |= bool(found)
        print(f"run {i} ({run['order']}) against run 1: "
              + (f"{len(found)} verdicts differ:\n  " + "\n  ".join(found) if found else "same verdicts"))
    Path(args.out, f"{name}-again.json").write_text(json.dumps({"sut": args.sut, "version": args.version,
                                                                "runs": runs}, indent=1))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
