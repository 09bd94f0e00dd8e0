"""Locust: OCPI eMSP peers as Locust HTTP users (``python -m harness.load ocpi-locust --master/--worker ...``).

Each user is one peer of the roster (worker w of W takes peers w, w + W, ...): a ``FastHttpUser``
(geventhttpclient) that registers on start (GET versions, GET details, POST credentials with its token A;
the platform connects back to this process's gevent server, ``/peers/<i>/versions``, with the peer's token
B) and then pulls one page of the platform's locations or sessions list per task, following each list's
Link, paced at ``--peer-rate`` requests a second. Every round trip is a Locust request (its console, CSV
and HTML show them) and goes to the load recorder, which each worker ships to the master every second; the
master writes the same report as ``ocpi-run`` (``--load-report``, default reports/load-ocpi).
"""

from __future__ import annotations

import itertools
import json
import sys
import time

import gevent
import psutil
from gevent.pywsgi import WSGIServer
from locust import FastHttpUser, events, task
from locust.env import Environment
from locust.runners import MasterRunner, WorkerRunner

from harness.load import report
from harness.load.gauges import usage
from harness.load.ocpi import DATE_FROM, MODULES, VERSION, Peer, _next, _token, envelope
from harness.load.ocpi_roster import OcpiRoster
from harness.load.recorder import Recorder

MESSAGE = "evse-load-ocpi"
SHIP_EVERY = 1.0


@events.init_command_line_parser.add_listener
def _arguments(parser) -> None:
    parser.add_argument("--peers", type=int, default=100, help="the roster's size: the parties the platform knows")
    parser.add_argument("--seed", type=int, default=1, help="the roster's seed")
    parser.add_argument("--peer-rate", type=float, default=1.0, help="list GETs a second per peer (default 1)")
    parser.add_argument("--page-limit", type=int, default=2, help="the limit each list GET asks for (default 2)")
    parser.add_argument("--interval", type=float, default=5.0, help="the report's time resolution in seconds")
    parser.add_argument("--load-report", default="reports/load-ocpi", help="where the master writes the report")


class Process:
    """This Locust process's part: the recorder, and (unless it is the master) the peers and their versions server."""

    def __init__(self, environment: Environment):
        self.environment = environment
        self.recorder: Recorder | None = None
        self.peers: dict[int, Peer] = {}
        self.roster: OcpiRoster | None = None
        self.server: WSGIServer | None = None
        self.registered = 0
        self.process = psutil.Process()
        self._next = itertools.count()

    @property
    def options(self):
        return self.environment.parsed_options

    def record(self) -> Recorder:
        if self.recorder is None:
            self.recorder = Recorder(self.options.interval)
        return self.recorder

    def peer(self) -> Peer:
        """The next peer of this process, its versions endpoint served."""
        if self.server is None:
            self.roster = OcpiRoster(self.options.seed, self.options.peers)
            self.server = WSGIServer(("127.0.0.1", 0), self.app, log=None, error_log=None)
            self.server.start()
            if isinstance(self.environment.runner, WorkerRunner):
                gevent.spawn(self._ship)
        runner = self.environment.runner
        workers = self.options.expect_workers if isinstance(runner, WorkerRunner) else 1
        index = max(runner.worker_index, 0) + workers * next(self._next)
        if index >= len(self.roster):
            raise ValueError(f"user {index + 1} has no peer: the roster has {len(self.roster)}; give --peers at "
                             "least --users (and the platform the same roster)")
        self.peers[index] = Peer(self.roster[index])
        return self.peers[index]

    def url(self, peer: Peer) -> str:
        return f"http://127.0.0.1:{self.server.server_port}/peers/{peer.party.index}"

    def app(self, environ, start_response):
        parts = environ["PATH_INFO"].strip("/").split("/")
        peer = self.peers.get(int(parts[1])) if len(parts) == 3 and parts[1].isdigit() else None
        status, body = "404 Not Found", b'{"status_code": 2000}'
        if peer is not None and environ.get("HTTP_AUTHORIZATION") != _token(peer.token_b):
            status, body = "401 Unauthorized", b'{"status_code": 2000}'
            self.record().error("connect-back: not our token B", time.time(), "connect-back")
        elif peer is not None and parts[2] == "versions":
            status, body = "200 OK", envelope([{"version": VERSION, "url": f"{self.url(peer)}/{VERSION}"}])
        elif peer is not None and parts[2] == VERSION:
            status, body = "200 OK", envelope({"version": VERSION, "endpoints": [
                {"identifier": "credentials", "role": "SENDER", "url": f"{self.url(peer)}/credentials"}]})
        if status.startswith("200"):
            peer.connect_backs += 1
        echoed = [(name, environ[key]) for name, key in (("X-Request-ID", "HTTP_X_REQUEST_ID"),
                                                         ("X-Correlation-ID", "HTTP_X_CORRELATION_ID")) if key in environ]
        start_response(status, [("Content-Type", "application/json"), *echoed])
        return [body]

    def _ship(self) -> None:
        while True:
            gevent.sleep(SHIP_EVERY)
            self.ship()

    def ship(self) -> None:
        if self.recorder is not None:
            self.record().gauge(time.time(), f"worker-{self.environment.runner.worker_index}",
                                connected=self.registered, **usage(self.process))
            self.environment.runner.send_message(MESSAGE, self.record().drain())

    def received(self, msg, **_) -> None:
        """A worker's measurements (the report finds when every peer was registered from their gauges)."""
        self.record().merge(msg.data)

    def write_report(self) -> None:
        options = self.options
        distributed = isinstance(self.environment.runner, MasterRunner)
        if not distributed:
            self.record().gauge(time.time(), "local", connected=self.registered, **usage(self.process))
        run = {"protocol": "ocpi2.2.1", "url": self.environment.host, "peers": options.num_users,
               "stations": options.num_users, "seed": options.seed, "engine": "locust",
               "peer_rate": options.peer_rate, "spawn_rate": options.spawn_rate,
               "workers": options.expect_workers if distributed else 0}
        written = self.record().report(run, stations=options.num_users)
        report.publish(written, options.load_report, sys.stdout)


PROCESS: Process | None = None


@events.init.add_listener
def _init(environment: Environment, **_) -> None:
    global PROCESS
    PROCESS = Process(environment)
    if isinstance(environment.runner, MasterRunner):
        environment.runner.register_message(MESSAGE, PROCESS.received)


@events.test_stop.add_listener
def _stopped(environment: Environment, **_) -> None:
    if isinstance(environment.runner, WorkerRunner):
        PROCESS.ship()


@events.quitting.add_listener
def _quitting(environment: Environment, **_) -> None:
    if not isinstance(environment.runner, WorkerRunner):
        PROCESS.write_report()
    if PROCESS.server is not None:
        PROCESS.server.stop(timeout=5)


class Failed(Exception):
    pass


class OcpiPeerUser(FastHttpUser):
    """One eMSP peer of the roster: registers on start, then pulls a list page per task."""

    def wait_time(self) -> float:
        return 1 / PROCESS.options.peer_rate

    def _call(self, kind: str, method: str, url: str, token: str, body=None, routed: bool = False):
        headers = {"Authorization": _token(token), "X-Request-ID": f"{time.time_ns()}",
                   "X-Correlation-ID": f"{id(self)}-{time.time_ns()}"}
        if routed:
            headers |= {"OCPI-from-country-code": self.peer.party.country_code,
                        "OCPI-from-party-id": self.peer.party.party_id,
                        "OCPI-to-country-code": self.peer.platform_party[0],
                        "OCPI-to-party-id": self.peer.platform_party[1]}
        data = json.dumps(body).encode() if body is not None else None
        if data:
            headers["Content-Type"] = "application/json"
        started = time.perf_counter()
        with self.client.request(method, url, name=kind, headers=headers, data=data, catch_response=True) as answer:
            elapsed = time.perf_counter() - started
            problem = None
            try:
                text = json.loads(answer.content or b"null")
            except ValueError:
                text = None
            if answer.status_code != 200:
                problem = f"{kind}: HTTP {answer.status_code}"
            elif not isinstance(text, dict) or text.get("status_code") != 1000:
                problem = f"{kind}: OCPI status {text.get('status_code') if isinstance(text, dict) else None}"
            if problem:
                answer.failure(problem)
                PROCESS.record().error(problem, time.time(), kind)
                raise Failed(problem)
            PROCESS.record().round_trip(kind, elapsed, time.time())
            return text, answer.headers

    def on_start(self) -> None:
        self.peer = PROCESS.peer()
        self.turn = itertools.cycle(MODULES)
        token_a = self.peer.party.token_a
        try:
            versions = self._call("GET versions", "GET", self.host, token_a)[0]["data"]
            details_url = next(v["url"] for v in versions if v.get("version") == VERSION)
            details = self._call("GET version details", "GET", details_url, token_a)[0]["data"]
            self.peer.endpoints = {(e["identifier"], e["role"]): e["url"] for e in details["endpoints"]}
            body = {"token": self.peer.token_b, "url": f"{PROCESS.url(self.peer)}/versions",
                    "roles": [{"role": "EMSP", "business_details": {"name": f"load peer {self.peer.party.index}"},
                               "party_id": self.peer.party.party_id, "country_code": self.peer.party.country_code}]}
            data = self._call("POST credentials", "POST", self.peer.endpoints[("credentials", "SENDER")], token_a,
                              body)[0]["data"]
        except Failed:
            return
        cpo = next(r for r in data["roles"] if r.get("role") == "CPO")
        self.peer.token_c, self.peer.platform_party = data["token"], (cpo["country_code"], cpo["party_id"])
        PROCESS.registered += 1
        if PROCESS.registered == PROCESS.options.num_users and not isinstance(self.environment.runner, WorkerRunner):
            PROCESS.record().held_from = time.time()   # a local runner: every peer registered

    @task
    def pull(self) -> None:
        if self.peer.token_c is None:
            return
        module = next(self.turn)
        url = self.peer.cursor.get(module)
        if url is None:
            query = f"limit={PROCESS.options.page_limit}" + (f"&date_from={DATE_FROM}" if module == "sessions" else "")
            url = f"{self.peer.endpoints[(module, 'SENDER')]}?{query}"
        try:
            _, headers = self._call(f"GET {module}", "GET", url, self.peer.token_c, routed=True)
        except Failed:
            return
        self.peer.cursor[module] = _next(headers.get("Link") or headers.get("link"))
