"""A full run against a real CSMS, serial and spread over xdist workers, each worker one of the profile's
station identities: the wall time of each and whether their verdicts are the same (README "A real CSMS in
parallel", bench/PARALLEL.md).

    python bench/parallel_real_run.py --version ocpp1.6 --workers 0,2,4
    python bench/parallel_real_run.py --version ocpp2.0.1 --workers 4,2 --history <serial>/conformance.json
    python bench/parallel_real_run.py --compare serial/conformance.json parallel/conformance.json

Each run gets a reference CSMS of its own (``python -m harness.reference.csms``, the profile
``builtin:standalone``, which lists four identities), started fresh because a CSMS under test keeps what a run
left (a rotated AuthorizationKey). ``--workers 0`` is the serial run, the one the others are compared with.
Exit 1 when a parallel run's verdicts differ from the serial run's (each difference printed).

The runs write byte code, as a lab machine's do (Python's default), in a cache of the bench's own (``PYCACHE``,
warmed by an untimed collection before the first run): this machine's environment sets PYTHONDONTWRITEBYTECODE,
under which every pytest process (the controller and each xdist worker) compiles and assertion-rewrites the harness,
its plugins' packages and the suites anew, a cost a lab machine does not pay on its second run. ``--bytecode as-is``
runs in the environment as given, for the figure with that cost (bench/PARALLEL.md gives both).
``--timeline`` writes when each pytest process starts, collects, plays each test and exits (bench/timeline.py).
Each run has a temporary directory of its own (``--basetemp``): without it, pytest ends every run by deleting the
oldest of its numbered directories under the system's temporary folder, whatever run left it (an interop replay's,
31,744 files, took 3.6 s of one ``-n 4`` run's end), so a run's wall depended on what this machine ran before it.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import timeline  # bench/timeline.py, beside this script

REPO = Path(__file__).resolve().parents[1]
PROFILE = "builtin:standalone"


def verdicts(path: Path) -> dict[str, str]:
    """{node id: verdict} of a run's conformance.json."""
    return {r["nodeid"]: r["verdict"] for r in json.loads(path.read_text())["results"]}


def differences(serial: dict[str, str], parallel: dict[str, str],
                names: tuple[str, str] = ("serially", "in parallel")) -> list[str]:
    """Each test whose verdict differs between two runs, or that only one of them played (``names``: the runs')."""
    return [f"{nodeid}: {serial.get(nodeid, 'not run')} {names[0]}, {parallel.get(nodeid, 'not run')} {names[1]}"
            for nodeid in sorted(serial.keys() | parallel.keys()) if serial.get(nodeid) != parallel.get(nodeid)]


def start_csms(version: str, env: dict[str, str] | None = None) -> tuple[subprocess.Popen, dict[str, str]]:
    """A fresh reference CSMS on free ports, and the URLs it printed."""
    process = subprocess.Popen([sys.executable, "-m", "harness.reference.csms", "--version", version,
                                "--profile", PROFILE], stdout=subprocess.PIPE, text=True, cwd=REPO, env=env)
    urls: dict[str, str] = {}
    assert process.stdout is not None
    while "actuator URL" not in urls:   # the actuator's line is printed last
        line = process.stdout.readline()
        if not line:
            raise SystemExit(f"the reference CSMS stopped before it listened (exit {process.wait()})")
        name, _, url = line.strip().partition(": ")
        urls[name] = url
    return process, urls


def cpu_of(pid: int) -> float:
    """The CPU seconds a running process used so far (user and system), 0.0 where /proc cannot tell."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


# The suites a version's run collects: each xdist worker collects them again, and the others' tests would only be
# deselected (collecting every suite costs ~6 s of CPU a worker, the 1.6 ones ~3.5 s)
SUITES = {"ocpp1.6": "suites/ocpp16 suites/ocpp", "ocpp2.0.1": "suites/ocpp2 suites/ocpp", "ocpp2.1": "suites/ocpp2 suites/ocpp"}


# Where the bench's pytest processes cache their byte code (--bytecode written): a lab machine writes byte code (Python's
# default), so its second run imports the harness, its plugins and the assertion-rewritten suites from it; this
# machine's environment sets PYTHONDONTWRITEBYTECODE, and each pytest process (the controller, every xdist worker)
# would compile all of it anew: ~1.8 s of CPU a process, ~9 s in a -n 4 run (bench/PARALLEL.md)
PYCACHE = Path(tempfile.gettempdir()) / "evse-conformance-bench-pycache"


def environment(bytecode: str, timeline: Path | None = None) -> dict[str, str]:
    """The environment of the runs: ``bytecode`` "written" (a lab machine's: byte code cached, in ``PYCACHE``) or
    "as-is" (this process's environment, PYTHONDONTWRITEBYTECODE included); ``timeline``: where each pytest process
    writes its timeline (bench/timeline.py)."""
    env = dict(os.environ)
    if bytecode == "written":
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = str(PYCACHE)
    if timeline is not None:
        env.update(TIMELINE=str(timeline), PYTHONPATH=os.pathsep.join(filter(None, [str(REPO / "bench"),
                                                                                    env.get("PYTHONPATH")])),
                   PYTEST_ADDOPTS=" ".join(filter(None, [env.get("PYTEST_ADDOPTS"), "-p timeline"])))
    return env


def warm(suites: str, env: dict[str, str]) -> None:
    """The byte code a lab machine has from its earlier runs: the suites collected once (untimed), which imports
    and assertion-rewrites what a run does, and the reference CSMS imported."""
    subprocess.run([sys.executable, "-m", "pytest", *suites.split(), "--co", "-q", "-p", "no:cacheprovider"],
                   cwd=REPO, env=env, capture_output=True, timeout=600, check=False)
    subprocess.run([sys.executable, "-c", "import harness.reference.csms"], cwd=REPO, env=env, timeout=600,
                   check=True)


def pytest_command(version: str, workers: int, suites: str, reports: Path, urls: dict[str, str]) -> list[str]:
    """The run against the CSMS at ``urls``: its reports in ``reports``, its temporary files beside them."""
    command = [sys.executable, "-m", "pytest", *suites.split(), "-q", "-p", "no:cacheprovider", "--sut", "csms",
               "--sut-url", urls["OCPP URL"], "--protocol", version, "--sut-profile", PROFILE,
               "--actuator", "http", "--actuator-url", urls["actuator URL"], "--reports-dir", str(reports),
               "--basetemp", str(reports.with_name(f"{reports.name}-tmp"))]
    return command + (["-n", str(workers)] if workers else [])


def play(version: str, workers: int, suites: str, reports: Path, history: Path | None = None,
         bytecode: str = "written", timeline: bool = False) -> dict:
    """One run against a fresh reference CSMS: its wall time, counts and verdicts. ``history``: an earlier run's
    conformance.json, put in the reports directory first (a parallel run plays the longest tests it lists first).
    ``bytecode`` and ``timeline``: see ``environment``; the timeline goes to ``<reports>/timeline``."""
    if history is not None and workers:
        reports.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(history, reports / "conformance.json")
    if timeline:
        shutil.rmtree(reports / "timeline", ignore_errors=True)
    env = environment(bytecode, reports / "timeline" if timeline else None)
    csms_started = time.monotonic()
    csms, urls = start_csms(version, env)
    csms_s = time.monotonic() - csms_started
    started, cpu = time.monotonic(), os.times()
    try:
        completed = subprocess.run(pytest_command(version, workers, suites, reports, urls), cwd=REPO, env=env,
                                   capture_output=True, text=True, timeout=3600)
    finally:
        wall, csms_cpu = time.monotonic() - started, cpu_of(csms.pid)
        csms.send_signal(signal.SIGTERM)
        csms.wait(timeout=30)
    used = os.times()
    report = json.loads((reports / "conformance.json").read_text())
    children = used.children_user + used.children_system - cpu.children_user - cpu.children_system
    return {"workers": workers, "wall_s": round(wall, 1), "csms_start_s": round(csms_s, 1),
            "cpu_s": round(children - csms_cpu, 1), "csms_cpu_s": round(csms_cpu, 1),
            "exit": completed.returncode, "counts": report["counts"], "tests": len(report["results"]),
            "reports": str(reports), "tail": completed.stdout[-600:]}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--version", default="ocpp1.6", choices=("ocpp1.6", "ocpp2.0.1", "ocpp2.1"))
    parser.add_argument("--workers", default="0,2,4", help="comma-separated xdist worker counts; 0: serial")
    parser.add_argument("--suites", help="what to play, space-separated (default: every suite of the version)")
    parser.add_argument("--out", default="reports/parallel", help="where each run's reports and summary.json go")
    parser.add_argument("--history", type=Path, help="an earlier run's conformance.json (of this version), which "
                                                     "each parallel run finds in its reports directory")
    parser.add_argument("--bytecode", choices=("written", "as-is"), default="written",
                        help="written (default): the runs write and read byte code in a cache of the bench's own, as "
                             "a lab machine's runs do (warmed before the first run); as-is: this environment's "
                             "setting (PYTHONDONTWRITEBYTECODE=1 here: every pytest process compiles every module)")
    parser.add_argument("--timeline", action="store_true",
                        help="each run's pytest processes write a timeline (bench/timeline.py) beside its reports")
    parser.add_argument("--compare", nargs=2, metavar=("SERIAL", "PARALLEL"),
                        help="only compare two conformance.json files")
    args = parser.parse_args(argv)
    if args.compare:
        found = differences(*(verdicts(Path(p)) for p in args.compare))
        print("\n".join(found) or "same verdicts")
        return 1 if found else 0
    out = Path(args.out)
    runs = []
    suites = args.suites or SUITES[args.version]
    if args.bytecode == "written":
        warm(suites, environment(args.bytecode))
    for workers in (int(w) for w in args.workers.split(",")):
        run = play(args.version, workers, suites, out / f"{args.version}-n{workers}", args.history, args.bytecode,
                   args.timeline)
        runs.append(run)
        print(f"-n {workers or '0 (serial)'}: {run['wall_s']} s wall, {run['cpu_s']} s CPU, {run['counts']} "
              f"(the CSMS: started in {run['csms_start_s']} s, {run['csms_cpu_s']} s CPU)", flush=True)
        if args.timeline:
            print(timeline.summary(Path(run["reports"]) / "timeline"), flush=True)
    serial = runs[0]
    if serial["workers"]:
        print("no serial run (--workers 0) to compare with; --compare diffs two runs' verdicts")
        return 0
    failed = False
    for run in runs[1:]:
        found = differences(verdicts(Path(serial["reports"]) / "conformance.json"),
                            verdicts(Path(run["reports"]) / "conformance.json"))
        run["speedup"] = round(serial["wall_s"] / run["wall_s"], 2)
        run["differences"] = found
        failed |= bool(found)
        print(f"-n {run['workers']} against -n {serial['workers']}: {run['speedup']}x, "
              + (f"{len(found)} verdicts differ:\n  " + "\n  ".join(found) if found else "same verdicts"))
    (out / f"{args.version}-summary.json").write_text(json.dumps({"version": args.version, "bytecode": args.bytecode,
                                                                  "runs": runs,
                                                                  "load": os.getloadavg()}, indent=1))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
