"""The load mode's numbers, measured on loopback (issue #11): run one, read its report, print the numbers.

    python bench/load_numbers.py held   --stations 10000 --ramp 200 --hold 120 --heartbeat 60
    python bench/load_numbers.py memory --stations 5000  --ramp 200 --hold 60  --heartbeat 30
    python bench/load_numbers.py soak   --stations 1000  --ramp 200 --hold 60  --heartbeat 1   # the issue: --hold 600
    python bench/load_numbers.py locust --stations 200   --ramp 50  --hold 20  --heartbeat 1
    python bench/load_numbers.py locust --stations 50000 --ramp 250 --hold 60 --workers 4 --csms-processes 4  # wide
    python bench/load_numbers.py client --stations 5000  --ramp 200 --hold 60  --heartbeat 10
    python bench/load_numbers.py ocpi   --stations 200   --rate 300 --hold 30                   # --stations: peers
    python bench/load_numbers.py ocpi   --stations 200   --rate 300 --hold 30 --role cpo        # CPO peers push
    python bench/load_numbers.py ocpi-locust --stations 100 --ramp 50 --rate 500 --hold 20       # Locust workers

held    one load process holds N stations against the reference CSMS (python -m harness.load csms, its
        own process): connections held, BootNotification and Heartbeat p50/p99, errors.
memory  the same load against the reference CSMS and against the `ocpp` library's (bench/ocpp_lib_csms.py),
        one after the other: each server's resident memory per connection, as the slope of its memory over
        the connections held during the ramp, and as (memory held − memory before) / N.
soak    N stations beating every --heartbeat seconds for --hold seconds: the server's memory after the
        ramp, its lowest and highest, and the spread (highest − lowest) / lowest.
client  the load client's own memory, side by side with a loop of the `ocpp` library's ChargePoint clients
        (bench/ocpp_lib_stations.py; --protocol ocpp1.6: its v16 ChargePoint, against the reference 1.6 CSMS),
        each against a reference CSMS of its own process: the client's resident
        memory before the first station, per station (the slope over the ramp, and (held − start) / N), and
        the Heartbeat round trips while every station was held.
ocpi    N eMSP peers (python -m harness.load ocpi-run) against the reference OCPI platform of parties
        (python -m harness.load ocpi-platform, its own process): the registration storm, then --rate list
        GETs a second for --hold seconds (--role cpo: CPO peers PUT locations and sessions to an eMSP
        platform); the requests/s answered after the storm, p50/p99 per request kind, errors, both
        processes' CPU (and the CPU milliseconds each spent per request: what limits the rate).
ocpi-locust  N eMSP peers as Locust users over --workers workers (python -m harness.load ocpi-locust) against
        the reference OCPI platform: every peer registered, --rate list GETs a second in all, each worker's peers
        and memory, no error.
locust  one Locust master and --workers workers on loopback against the reference CSMS (--csms-processes
        processes, the stations shared out over their ports); checks the report the master wrote (every
        station held and booted, every worker measured, no error) and prints each worker's stations and memory.

Every process binds 127.0.0.1 only, is bounded in time (the servers stop themselves after the run's
length plus a margin) and is stopped when the bench ends. Reports go to reports/bench-load/<name>/.
Exit status 1 when a run's own checks fail (a station not held, an error), never on a timing.
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
from contextlib import contextmanager
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PYTHON = sys.executable
MARGIN = 120    # seconds a server outlives the run it serves
SLACK = 3       # a run may take this many times its planned length on a busy machine before it is stopped


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def server(command: list[str], ready: str, log: Path):
    """A process started, awaited until it prints ``ready``, and stopped at the end."""
    log.parent.mkdir(parents=True, exist_ok=True)
    with open(log, "w") as out:
        process = subprocess.Popen(command, cwd=REPO, stdout=subprocess.PIPE, stderr=out, text=True)
        try:
            deadline = time.monotonic() + 60
            for line in process.stdout:
                out.write(line)
                if ready in line:
                    process.ready_line = line       # what it said it serves (a CSMS on ports of its choosing)
                    break
                if time.monotonic() > deadline:
                    raise RuntimeError(f"{command[:4]} did not start: see {log}")
            else:
                raise RuntimeError(f"{command[:4]} ended before it was ready: see {log}")
            yield process
        finally:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(30)
            except subprocess.TimeoutExpired:
                process.kill()


def reference_csms(args, port: int, seconds: float, name: str, processes: int = 1):
    return server([PYTHON, "-m", "harness.load", "csms", "--stations", str(args.stations), "--port", str(port),
                   "--seed", str(args.seed), "--seconds", str(seconds), "--protocol", args.protocol,
                   "--processes", str(processes)],
                  "listening", REPO / "reports" / "bench-load" / name / "csms.log")


def load(args, url: str, name: str, watch: int) -> dict:
    """One single-process load run; its report."""
    directory = REPO / "reports" / "bench-load" / name
    command = [PYTHON, "-m", "harness.load", "run", "--url", url, "--stations", str(args.stations),
               "--ramp", str(args.ramp), "--hold", str(args.hold), "--seed", str(args.seed),
               "--protocol", args.protocol, "--interval", str(args.interval), "--report", str(directory),
               "--watch", f"csms={watch}"]
    if args.heartbeat:
        command += ["--heartbeat", str(args.heartbeat)]
    print("$ " + " ".join(command[1:]), flush=True)
    # exit 1: stations failed; the report says which, and checked() lists them
    subprocess.run(command, cwd=REPO, timeout=run_seconds(args) + MARGIN)
    return json.loads((directory / "load.json").read_text())


def run_seconds(args) -> float:
    """The longest a run may take: its planned length (the ramp, then the hold) with room for a busy machine."""
    return SLACK * (args.stations / args.ramp + args.hold)


def server_memory(report: dict) -> list[tuple[float, int, float]]:
    """(t, connections held, server RSS in MB) per interval, as the load process recorded them."""
    return [(m["t"], m["connected"] or 0, m["processes"]["csms"]["rss_mb"]) for m in report["timeline"]
            if "csms" in m["processes"]]


def slope(points: list[tuple[float, float]]) -> float:
    """The least-squares slope; NaN with fewer than two distinct x (a ramp shorter than the report's interval:
    give a smaller --interval)."""
    n = len(points)
    if len({x for x, _ in points}) < 2:
        return float("nan")
    mx, my = sum(x for x, _ in points) / n, sum(y for _, y in points) / n
    return sum((x - mx) * (y - my) for x, y in points) / sum((x - mx) ** 2 for x, _ in points)


def checked(report: dict, stations: int) -> list[str]:
    """What went wrong in a run, in words (empty: every station held and booted, no error)."""
    problems = []
    if report["summary"]["connections_held"]["peak"] != stations:
        problems.append(f"held {report['summary']['connections_held']['peak']} of {stations} stations")
    if report["actions"].get("BootNotification", {}).get("count") != stations:
        problems.append(f"{report['actions'].get('BootNotification', {}).get('count', 0)} of {stations} booted")
    if report["errors"]:
        problems.append(f"errors: {report['errors']}")
    return problems


def summary(report: dict) -> str:
    s = report["summary"]
    lines = [f"stations held: peak {s['connections_held']['peak']:,}, at the end {s['connections_held']['end']:,}",
             f"calls answered: {s['calls']:,}; errors: {s['errors']:,} {report['errors'] or ''}"]
    for action, p in s["round_trip_ms"].items():
        lines.append(f"  {action:<20} p50 {p['p50']:>9} ms   p99 {p['p99']:>9} ms   "
                     f"({report['actions'][action]['count']:,} calls)")
    for source, usage in report["processes"].items():
        lines.append(f"  {source:<10} CPU mean {usage['cpu_percent_mean']} %, memory {usage['rss_mb_first']} → "
                     f"peak {usage['rss_mb_peak']} MB")
    return "\n".join(lines)


# ------------------------------------------------------------------------------------------------ the numbers
def held(args) -> list[str]:
    port = free_port()
    with reference_csms(args, port, run_seconds(args) + MARGIN, "held") as csms:
        report = load(args, f"ws://127.0.0.1:{port}/ocpp", "held", csms.pid)
    print(summary(report))
    return checked(report, args.stations)


def memory(args) -> list[str]:
    problems, per_connection = [], {}
    servers = {"reference": lambda port, seconds: reference_csms(args, port, seconds, "memory-reference"),
               "ocpp library": lambda port, seconds: server(
                   [PYTHON, "bench/ocpp_lib_csms.py", "--stations", str(args.stations), "--port", str(port),
                    "--seed", str(args.seed), "--seconds", str(seconds)], "listening",
                   REPO / "reports" / "bench-load" / "memory-ocpp-lib" / "csms.log")}
    for name, start in servers.items():
        port = free_port()
        with start(port, run_seconds(args) + MARGIN) as process:
            report = load(args, f"ws://127.0.0.1:{port}/ocpp", f"memory-{name.replace(' ', '-')}", process.pid)
        samples = server_memory(report)
        ramp = [(c, rss) for _, c, rss in samples if 0.1 * args.stations <= c <= 0.95 * args.stations]
        before = samples[0][2]
        full = [rss for _, c, rss in samples if c == args.stations]
        per_connection[name] = (slope(ramp) * 1024, (full[-1] - before) * 1024 / args.stations if full else None)
        print(f"{name}: server memory {before} MB before, {full[-1] if full else '?'} MB with "
              f"{args.stations:,} held", flush=True)
        problems += [f"{name}: {p}" for p in checked(report, args.stations)]
    print(f"\nserver memory per connection ({args.stations:,} stations, {args.protocol}):")
    for name, (by_slope, by_delta) in per_connection.items():
        print(f"  {name:<13} {by_slope:6.1f} KB (slope over the ramp)   "
              f"{by_delta if by_delta is None else round(by_delta, 1)} KB ((held − before) / N)")
    return problems


def soak(args) -> list[str]:
    port = free_port()
    with reference_csms(args, port, run_seconds(args) + MARGIN, "soak") as csms:
        report = load(args, f"ws://127.0.0.1:{port}/ocpp", "soak", csms.pid)
    held_samples = [rss for _, c, rss in server_memory(report) if c == args.stations]
    print(summary(report))
    if held_samples:
        low, high = min(held_samples), max(held_samples)
        print(f"server memory over the hold ({len(held_samples)} samples, every {args.interval:g} s): first "
              f"{held_samples[0]} MB, lowest {low} MB, highest {high} MB, last {held_samples[-1]} MB; "
              f"spread {(high - low) / low:.1%}")
    return checked(report, args.stations)


def locust_run(command: str, name: str, host: str, users: int, rate: float, run_time: float, workers: int,
               options: list[str], master_port: int, timeout: float) -> dict:
    """One Locust master and ``workers`` workers of ``python -m harness.load <command>`` on loopback; the report
    the master wrote."""
    directory = REPO / "reports" / "bench-load" / name
    directory.mkdir(parents=True, exist_ok=True)
    base = [PYTHON, "-m", "harness.load", command]
    worker = base + ["--worker", "--master-host", "127.0.0.1", "--master-port", str(master_port)]
    logs = [open(directory / f"worker-{i}.log", "w") for i in range(workers)]
    started = [subprocess.Popen(worker, cwd=REPO, stdout=log, stderr=log) for log in logs]
    master = base + ["--master", "--headless", "--master-bind-host", "127.0.0.1", "--master-bind-port",
                     str(master_port), "--expect-workers", str(workers), "--users", str(users), "--spawn-rate",
                     str(rate), "--run-time", f"{round(run_time)}s", "--host", host, "--load-report", str(directory),
                     "--only-summary", *options]
    print("$ " + " ".join(master[1:]), flush=True)
    try:
        subprocess.run(master, cwd=REPO, timeout=timeout)
    finally:
        for process, log in zip(started, logs):
            try:
                process.wait(30)
            except subprocess.TimeoutExpired:
                process.kill()
            log.close()
    return json.loads((directory / "load.json").read_text())


def workers_measured(report: dict, workers: int, what: str) -> list[str]:
    """Each worker's share and memory, printed; a problem when a worker is missing from the report."""
    measured = {s: v for s, v in report["processes"].items() if s.startswith("worker-")}
    for name, usage in sorted(measured.items()):
        held = usage.get("connected_peak") or 0
        per = (usage["rss_mb_peak"] - usage["rss_mb_first"]) * 1024 / held if held else float("nan")
        print(f"  {name}: {held:,} {what} at its peak, memory {usage['rss_mb_first']} → {usage['rss_mb_peak']} MB "
              f"({per:.1f} KB each over its first sample), CPU mean {usage['cpu_percent_mean']} %")
    if set(measured) != {f"worker-{i}" for i in range(workers)}:
        return [f"the report has the measurements of {sorted(measured)}, not of all {workers} workers"]
    return []


def locust(args) -> list[str]:
    workers = args.workers
    options = ["--stations", str(args.stations), "--seed", str(args.seed), "--protocol", args.protocol,
               "--interval", str(args.interval), "--hold", str(args.hold)] + (
        ["--heartbeat", str(args.heartbeat)] if args.heartbeat else [])
    seconds = run_seconds(args)     # the master stops --hold after the last start; --run-time only bounds a stuck run
    with reference_csms(args, 0, seconds + MARGIN, "locust", args.csms_processes) as csms:
        urls = csms.ready_line.rsplit(" listening on ", 1)[1].strip()
        report = locust_run("locust", "locust", urls, args.stations, args.ramp, seconds, workers, options,
                            free_port(), seconds + MARGIN)
    print(summary(report))
    print(f"while all {args.stations:,} held: {report['summary']['round_trip_ms_while_held']}")
    return checked(report, args.stations) + workers_measured(report, workers, "stations")


def ocpi_locust(args) -> list[str]:
    port = free_port()
    master_port = next(p for p in iter(free_port, None) if p != port)
    seconds = SLACK * (args.stations / 10 + args.hold)
    planned = args.stations / args.ramp + args.hold
    directory = REPO / "reports" / "bench-load" / "ocpi-locust"
    with server([PYTHON, "-m", "harness.load", "ocpi-platform", "--peers", str(args.stations), "--port", str(port),
                 "--seed", str(args.seed), "--seconds", str(seconds + MARGIN)], "versions URL",
                directory / "platform.log"):
        options = ["--peers", str(args.stations), "--seed", str(args.seed), "--interval", str(args.interval),
                   "--peer-rate", str(args.rate / args.stations)]
        report = locust_run("ocpi-locust", "ocpi-locust", f"http://127.0.0.1:{port}/ocpi/versions", args.stations,
                            args.ramp, planned, args.workers, options, master_port, seconds + MARGIN)
    print(summary(report))
    pulls = sum(report["actions"].get(f"GET {module}", {}).get("count", 0) for module in ("locations", "sessions"))
    print(f"{pulls:,} list GETs answered over the run ({args.rate:g}/s asked once every peer registered); while "
          f"all registered: {report['summary']['round_trip_ms_while_held']}")
    registered = report["actions"].get("POST credentials", {}).get("count", 0)
    problems = [] if registered == args.stations else [f"{registered} of {args.stations} peers registered"]
    return (problems + ([f"errors: {report['errors']}"] if report["errors"] else [])
            + workers_measured(report, args.workers, "peers"))


def client(args) -> list[str]:
    problems, rows = [], {}
    port = free_port()
    with reference_csms(args, port, run_seconds(args) + MARGIN, "client-harness") as csms:
        report = load(args, f"ws://127.0.0.1:{port}/ocpp", "client-harness", csms.pid)
    samples = [(m["connected"] or 0, m["processes"]["local"]["rss_mb"]) for m in report["timeline"]
               if "local" in m["processes"]]
    held = report["summary"]["round_trip_ms_while_held"] or {}
    samples.insert(0, (0, report["run"]["rss_mb_at_start"]))   # the report's first interval has stations already
    rows["harness load client"] = client_memory(samples, args.stations) + (held.get("Heartbeat", {}),)
    problems += [f"harness: {p}" for p in checked(report, args.stations)]
    port = free_port()
    out = REPO / "reports" / "bench-load" / "client-ocpp-lib" / "stations.json"
    with reference_csms(args, port, run_seconds(args) + MARGIN, "client-ocpp-lib"):
        command = [PYTHON, "bench/ocpp_lib_stations.py", "--url", f"ws://127.0.0.1:{port}/ocpp", "--stations",
                   str(args.stations), "--ramp", str(args.ramp), "--hold", str(args.hold), "--heartbeat",
                   str(args.heartbeat or 10), "--seed", str(args.seed), "--protocol", args.protocol,
                   "--out", str(out)]
        print("$ " + " ".join(command[1:]), flush=True)
        code = subprocess.run(command, cwd=REPO, timeout=run_seconds(args) + MARGIN).returncode
    lib = json.loads(out.read_text())
    rows["ocpp library clients"] = client_memory([(c, rss) for _, c, rss in lib["timeline"]], args.stations) + (
        lib["heartbeat_while_held_ms"],)
    if code or lib["connected_peak"] != args.stations or lib["booted"] != args.stations:
        problems.append(f"ocpp library: peak {lib['connected_peak']}, booted {lib['booted']}, failed {lib['failed']}")
    print(f"\nthe load client's memory ({args.stations:,} stations, {args.protocol}), and Heartbeat while all held:")
    for name, (start, by_slope, by_delta, heartbeat) in rows.items():
        print(f"  {name:<21} start {start:6.1f} MB   per station {by_slope:5.1f} KB (slope over the ramp), "
              f"{by_delta:5.1f} KB ((held − start) / N)   Heartbeat while all held p50 {heartbeat.get('p50')} ms, "
              f"p99 {heartbeat.get('p99')} ms")
    return problems


def ocpi(args) -> list[str]:
    port, name = free_port(), "ocpi"
    directory = REPO / "reports" / "bench-load" / name
    seconds = SLACK * (args.stations / 10 + args.hold)   # the storm: 10 registrations a second at the least
    with server([PYTHON, "-m", "harness.load", "ocpi-platform", "--peers", str(args.stations), "--port", str(port),
                 "--seed", str(args.seed), "--seconds", str(seconds + MARGIN),
                 "--role", "emsp" if args.role == "cpo" else "cpo"], "versions URL",
                directory / "platform.log") as platform:
        command = [PYTHON, "-m", "harness.load", "ocpi-run", "--url", f"http://127.0.0.1:{port}/ocpi/versions",
                   "--peers", str(args.stations), "--rate", str(args.rate), "--hold", str(args.hold),
                   "--in-flight", str(args.in_flight), "--role", args.role,
                   "--seed", str(args.seed), "--interval", str(args.interval), "--report", str(directory),
                   "--watch", f"platform={platform.pid}"]
        print("$ " + " ".join(command[1:]), flush=True)
        subprocess.run(command, cwd=REPO, timeout=seconds + MARGIN)   # exit 1: peers failed; checked below
    report = json.loads((directory / "load.json").read_text())
    print(summary(report))
    kinds = [f"{'GET' if args.role == 'emsp' else 'PUT'} {module}" for module in ("locations", "sessions")]
    answered = sum(report["actions"].get(kind, {}).get("count", 0) for kind in kinds)
    if answered:
        print(f"after the storm: {answered:,} {' and '.join(kinds)} answered over the {args.hold:g} s hold = "
              f"{answered / args.hold:,.0f} requests/s (asked {args.rate:g}/s); "
              f"while all registered: {report['summary']['round_trip_ms_while_held']}")
        for source, usage in report["processes"].items():
            cpu_ms = (usage["cpu_percent_mean"] or 0) / 100 * report["seconds"] * 1000
            per = cpu_ms / max(report["summary"]["calls"], 1)
            print(f"  {source:<10} CPU over the whole run {cpu_ms / 1000:,.1f} s = {per:.2f} ms per request")
    problems = [] if report["actions"].get("POST credentials", {}).get("count") == args.stations else [
        f"{report['actions'].get('POST credentials', {}).get('count', 0)} of {args.stations} peers registered"]
    return problems + ([f"errors: {report['errors']}"] if report["errors"] else [])


def client_memory(samples: list[tuple[int, float]], stations: int) -> tuple[float, float, float]:
    """(MB before the first station, KB per station by the slope over the ramp, KB per station by (held − start) / N)."""
    start = samples[0][1]
    ramp = [(c, rss) for c, rss in samples if 0.1 * stations <= c <= 0.95 * stations]
    full = [rss for c, rss in samples if c == stations]
    return start, slope(ramp) * 1024, ((full[-1] - start) * 1024 / stations if full else float("nan"))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("number", choices=["held", "memory", "soak", "locust", "client", "ocpi", "ocpi-locust"])
    parser.add_argument("--stations", type=int, required=True)
    parser.add_argument("--ramp", type=float, default=200.0, help="stations started per second")
    parser.add_argument("--hold", type=float, default=60.0, help="seconds after the last station started")
    parser.add_argument("--heartbeat", type=float, default=None, help="seconds between Heartbeats")
    parser.add_argument("--interval", type=float, default=5.0, help="the report's resolution, seconds")
    parser.add_argument("--protocol", default="ocpp2.0.1")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--rate", type=float, default=300.0, help="ocpi: list GETs a second after the storm")
    parser.add_argument("--in-flight", type=int, default=100, help="ocpi: requests unanswered at most")
    parser.add_argument("--role", choices=("emsp", "cpo"), default="emsp",
                        help="ocpi: the peers' role, emsp (pull lists from a CPO) or cpo (push to an eMSP)")
    parser.add_argument("--workers", type=int, default=2, help="locust: the Locust workers (default 2)")
    parser.add_argument("--csms-processes", type=int, default=1,
                        help="locust: the reference CSMS's processes, one port each (default 1); one process "
                             "holds ~19,700 connections under a hard limit of 20,000 open files")
    args = parser.parse_args()
    limits = subprocess.run(["sh", "-c", "ulimit -Sn; ulimit -Hn"], capture_output=True, text=True).stdout.split()
    print(f"{args.number}: {args.stations:,} stations, ramp {args.ramp:g}/s, hold {args.hold:g} s, "
          f"heartbeat {args.heartbeat or 'the CSMS interval'}; {os.cpu_count()} CPUs, open files "
          f"{' / '.join(limits)}, load average {os.getloadavg()[0]:.1f}", flush=True)
    problems = {"held": held, "memory": memory, "soak": soak, "locust": locust, "client": client,
                "ocpi": ocpi, "ocpi-locust": ocpi_locust}[args.number](args)
    for problem in problems:
        print(f"CHECK FAILED: {problem}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
