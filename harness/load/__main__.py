"""python -m harness.load: load a CSMS with simulated stations, serve the reference CSMS to load, export a roster.

    python -m harness.load csms --stations 1000 --port 9300 --seconds 600      # the reference CSMS, for trying
    python -m harness.load run --url ws://127.0.0.1:9300/ocpp --stations 1000 --ramp 200 --hold 60
    python -m harness.load roster --stations 1000 > roster.csv                 # provision a CSMS under test
    python -m harness.load locust --master ...  /  --worker ...                  # Locust, see the README
    python -m harness.load ocpi-platform --peers 200 --port 9400                 # the reference OCPI platform (CPO)
    python -m harness.load ocpi-run --url http://127.0.0.1:9400/ocpi/versions --peers 200 --rate 500 --hold 30
    python -m harness.load ocpi-roster --peers 200 > parties.csv                 # provision an OCPI platform
"""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import sys
from pathlib import Path

from harness.ocpp.versions import OcppVersion
from harness.load import report
from harness.load.csms import roster_csms
from harness.load.fleet import Fleet, LoadSettings, raise_file_limit
from harness.load.options import add_shared_arguments, mix_of
from harness.load.recorder import Recorder
from harness.load.roster import Roster

STARTUP_SECONDS = 60.0   # a further process of the CSMS has this long to listen
STOP_SECONDS = 30.0      # and this long to close its connections at the end


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] in (["locust"], ["ocpi-locust"]):   # a fresh process: Locust patches the standard library first
        locustfile = Path(__file__).with_name("locustfile.py" if argv[0] == "locust" else "ocpi_locustfile.py")
        os.execv(sys.executable, [sys.executable, "-m", "locust", "-f", str(locustfile), *argv[1:]])
    parser = argparse.ArgumentParser(prog="python -m harness.load", description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)

    run = commands.add_parser("run", help="ramp simulated stations against a CSMS and write the report")
    run.add_argument("--url", required=True,
                     help="the CSMS endpoint, ws://host:port/path (the station identity is appended)")
    run.add_argument("--stations", type=int, required=True, help="how many stations")
    run.add_argument("--ramp", type=float, default=100.0, help="stations started per second (default 100)")
    run.add_argument("--hold", type=float, default=60.0, help="seconds after the last station started (default 60)")
    run.add_argument("--report", default="reports/load", help="where load.json and load.png go (default reports/load)")
    run.add_argument("--watch", action="append", default=[], metavar="NAME=PID",
                     help="also record this process's CPU and memory under NAME (the CSMS, when it runs here: "
                          "csms=PID); repeatable")
    add_shared_arguments(run)

    csms = commands.add_parser("csms", help="serve the reference CSMS for the roster's stations, on 127.0.0.1")
    csms.add_argument("--stations", type=int, required=True, help="the roster's size")
    csms.add_argument("--port", type=int, default=9300)
    csms.add_argument("--seconds", type=float, default=600.0, help="stop after this many seconds (default 600)")
    csms.add_argument("--heartbeat-interval", type=int, default=300, help="the interval its boot answers give")
    csms.add_argument("--processes", type=int, default=1,
                      help="serve from this many processes, on --port and the ports after it (--port 0: free ports "
                           "of the system's choosing; default 1): one process holds as many connections as its "
                           "open-file limit allows (ulimit -Hn)")
    add_shared_arguments(csms)

    commands.add_parser("locust", add_help=False,
                        help="run the stations under Locust, as --master or --worker (every argument goes to "
                             "Locust; see the README's 'Beyond one machine')")

    roster = commands.add_parser("roster", help="print the roster as CSV: identity, password, serial, idToken")
    roster.add_argument("--stations", type=int, required=True)
    roster.add_argument("--seed", type=int, default=1)

    commands.add_parser("ocpi-locust", add_help=False,
                        help="the OCPI peers as Locust HTTP users, --master or --worker (every argument goes to "
                             "Locust; see the README's 'OCPI load')")
    _ocpi_commands(commands)

    args = parser.parse_args(argv)
    if args.command == "ocpi-roster":
        from harness.load.ocpi_roster import OcpiRoster
        sys.stdout.write(OcpiRoster(args.seed, args.peers).csv())
        return 0
    if args.command == "roster":
        sys.stdout.write(Roster(args.seed, args.stations).csv())
        return 0
    try:
        if args.command.startswith("ocpi-"):
            return asyncio.run(ocpi_load(args) if args.command == "ocpi-run" else ocpi_serve(args))
        return asyncio.run(load(args) if args.command == "run" else serve(args))
    except ValueError as error:   # a setting out of range: the message says which and what to give
        parser.error(str(error))


async def load(args) -> int:
    settings = LoadSettings(url=args.url, stations=args.stations, version=OcppVersion.parse(args.protocol),
                            mix=mix_of(args), ramp=args.ramp, hold=args.hold, seed=args.seed,
                            call_timeout=args.call_timeout, interval=args.interval)
    recorder = Recorder(args.interval)
    fleet = Fleet(settings, recorder, watch=watched(args.watch))
    print(f"{settings.stations:,} stations → {settings.url} ({settings.version.value}), "
          f"about {settings.seconds:,.0f} s", file=sys.stderr)
    await fleet.run()
    return _verdict(_written(recorder, settings.describe(), fleet.rss_mb_at_start, args.report), settings.stations)


def _written(recorder: Recorder, run: dict, rss_mb_at_start: float | None, directory: str) -> dict:
    """The report of a finished run, on disk and in one line on stderr."""
    written = recorder.report({**run, "rss_mb_at_start": rss_mb_at_start})
    report.publish(written, directory)
    return written


def _verdict(written: dict, stations: int) -> int:
    """1 when the stations were never all connected at once (the load asked for was not applied), or when
    stations failed: fewer boots than stations, or any error (a refused or lost connection, an invalid or
    refused answer, a station's own failure)."""
    if written["summary"]["round_trip_ms_while_held"] is not None:
        booted = written["actions"].get("BootNotification", {}).get("count", 0)
        failed = ([f"{stations - booted:,} of {stations:,} stations never booted"] if booted < stations else []) + [
            f"{n:,} × {kind}" for kind, n in written["errors"].items()]
        if failed:
            print(f"FAILED: stations failed: {'; '.join(failed)}", file=sys.stderr)
            return 1
        return 0
    causes = ", ".join(f"{n:,} × {kind}" for kind, n in written["errors"].items() if kind.startswith("connect"))
    print(f"FAILED: the {stations:,} stations were never all connected at once (peak "
          f"{written['summary']['connections_held']['peak']:,})" + (f": {causes}" if causes else "")
          + "; check --url, and that the CSMS knows the roster (python -m harness.load roster)", file=sys.stderr)
    return 1


def _ocpi_commands(commands) -> None:
    """The OCPI load's commands: its platform, the run, the roster (their modules load only when used)."""
    run = commands.add_parser("ocpi-run", help="register many eMSP peers with an OCPI platform (a storm), then "
                                               "pull its locations and sessions at a rate; write the report")
    run.add_argument("--url", required=True, help="the platform's versions URL")
    run.add_argument("--peers", type=int, required=True, help="how many eMSP peers (the roster's first N)")
    run.add_argument("--seed", type=int, default=1, help="the roster's seed: the same seed, the same parties")
    run.add_argument("--storm", type=int, default=50, help="registrations at once (default 50)")
    run.add_argument("--rate", type=float, default=200.0, help="list GETs per second after the storm (default 200)")
    run.add_argument("--hold", type=float, default=30.0, help="seconds of pulling after the storm (default 30)")
    run.add_argument("--page-limit", type=int, default=2, help="the limit each list GET asks for (default 2)")
    run.add_argument("--in-flight", type=int, default=100,
                     help="requests unanswered at most (the pool's connections, default 100); a request the "
                          "rate wants beyond it is an error")
    run.add_argument("--call-timeout", type=float, default=30.0, help="seconds a request waits for its answer")
    run.add_argument("--interval", type=float, default=5.0, help="the report's time resolution in seconds")
    run.add_argument("--role", choices=("emsp", "cpo"), default="emsp",
                     help="the peers' role: emsp pulls the platform's locations and sessions lists (default); cpo "
                          "pushes locations and sessions to its Receivers (start the platform with --role emsp)")
    run.add_argument("--client", choices=("lean", "httpx"), default="lean",
                     help="the HTTP client: lean (harness.load.http1, default) or httpx; one pool per process")
    run.add_argument("--report", default="reports/load-ocpi", help="where load.json and load.png go")
    run.add_argument("--watch", action="append", default=[], metavar="NAME=PID",
                     help="also record this process's CPU and memory under NAME (platform=PID); repeatable")

    platform = commands.add_parser("ocpi-platform", help="serve the reference OCPI platform (a CPO) that every "
                                                         "party of the roster may register with, on 127.0.0.1")
    platform.add_argument("--peers", type=int, required=True, help="the roster's size")
    platform.add_argument("--seed", type=int, default=1)
    platform.add_argument("--port", type=int, default=9400)
    platform.add_argument("--role", choices=("cpo", "emsp"), default="cpo",
                          help="the platform's role (default cpo: eMSP peers pull; emsp: CPO peers push)")
    platform.add_argument("--page-limit", type=int, default=50, help="the most objects a list page holds")
    platform.add_argument("--seconds", type=float, default=600.0, help="stop after this many seconds (default 600)")

    roster = commands.add_parser("ocpi-roster", help="print the OCPI roster as CSV: country code, party id, token A")
    roster.add_argument("--peers", type=int, required=True)
    roster.add_argument("--seed", type=int, default=1)


async def ocpi_load(args) -> int:
    from harness.load.ocpi import OcpiLoad, OcpiSettings, verdict
    settings = OcpiSettings(url=args.url, peers=args.peers, seed=args.seed, storm=args.storm, rate=args.rate,
                            hold=args.hold, page_limit=args.page_limit, in_flight=args.in_flight,
                            call_timeout=args.call_timeout, interval=args.interval, client=args.client,
                            role=args.role)
    recorder = Recorder(args.interval)
    run = OcpiLoad(settings, recorder, watch=watched(args.watch))
    print(f"{settings.peers:,} {settings.role} peers → {settings.url}: storm, then {settings.rate:,.0f} requests/s for "
          f"{settings.hold:g} s", file=sys.stderr)
    await run.run()
    return verdict(_written(recorder, settings.describe(), run.rss_mb_at_start, args.report), settings.peers)


async def ocpi_serve(args) -> int:
    from harness.load.ocpi_platform import ROLES, serve as serve_platform
    raise_file_limit(1024)
    return await serve_platform(args.peers, args.seed, args.port, args.seconds, args.page_limit, ROLES[args.role])


def watched(pairs: list[str]) -> dict[str, int]:
    named = {}
    for pair in pairs:
        name, _, pid = pair.rpartition("=")
        if not name or not pid.isdigit():
            raise ValueError(f"--watch {pair}: give NAME=PID, for example csms=4242")
        named[name] = int(pid)
    return named


async def serve(args) -> int:
    """The reference CSMS for the roster, on 127.0.0.1, until SIGINT/SIGTERM or ``--seconds``; with
    ``--processes N``, N processes on N ports, every one knowing the whole roster."""
    if args.processes < 1:
        raise ValueError(f"--processes {args.processes}: give 1 or more")
    raise_file_limit(args.stations + 256)
    others = [await _serving_process(args, args.port and args.port + i) for i in range(1, args.processes)]
    csms = roster_csms(OcppVersion.parse(args.protocol), Roster(args.seed, args.stations),
                       call_timeout=args.call_timeout, heartbeat_interval=args.heartbeat_interval)
    await csms.start("127.0.0.1", args.port)
    stop = asyncio.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        asyncio.get_running_loop().add_signal_handler(sig, stop.set)
    urls = ",".join([csms.url] + [url for _, url in others])
    print(f"reference CSMS for {args.stations:,} stations (seed {args.seed}) listening on {urls}", flush=True)
    try:
        await asyncio.wait_for(stop.wait(), args.seconds)
    except TimeoutError:
        pass
    await csms.stop()
    for process, _ in others:
        process.terminate()
    for process, _ in others:
        try:
            await asyncio.wait_for(process.wait(), STOP_SECONDS)
        except TimeoutError:
            process.kill()
    return 0


async def _serving_process(args, port: int) -> tuple[asyncio.subprocess.Process, str]:
    """One more process of the CSMS, on ``port``, once it listens: (the process, its URL)."""
    command = [sys.executable, "-m", "harness.load", "csms", "--stations", str(args.stations), "--port", str(port),
               "--seed", str(args.seed), "--seconds", str(args.seconds), "--protocol", args.protocol,
               "--heartbeat-interval", str(args.heartbeat_interval), "--call-timeout", str(args.call_timeout)]
    process = await asyncio.create_subprocess_exec(*command, stdout=asyncio.subprocess.PIPE)
    try:
        line = (await asyncio.wait_for(process.stdout.readline(), STARTUP_SECONDS)).decode()
    except TimeoutError:
        line = ""
    if " listening on " not in line:
        if process.returncode is None:
            process.kill()
        raise ValueError(f"the CSMS process for port {port} did not start within {STARTUP_SECONDS:g} s "
                         f"(is the port free?): {line.strip() or 'it printed nothing'}")
    return process, line.rsplit(" listening on ", 1)[1].strip()


if __name__ == "__main__":
    sys.exit(main())
