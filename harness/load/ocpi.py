"""OCPI load: many eMSP peers against one CPO platform (``python -m harness.load ocpi-run``).

1. **Registration storm**: every peer of the roster (``ocpi_roster``) registers with its own token A:
   GET versions, GET the 2.2.1 details, POST credentials. The platform connects back to the peer's own
   versions URL (served by this process, one HTTP server for every peer, each under ``/peers/<i>/``) with
   the peer's token B, and answers the peer's own token C. At most ``--storm`` registrations run at once.
2. **Pull at a set rate**: ``--rate`` requests a second, over every peer in turn, each a GET of one page of
   the platform's locations or sessions list (alternately), following each list's ``Link`` page by page
   with the peer's token C and its routing headers. A request that finds ``--in-flight`` requests still
   unanswered, or that this process reaches more than ``LATE`` seconds after its time, is not sent and
   counted as an error (``rate not sustained``): 0 errors means the rate asked was applied and answered.

Every round trip goes to the load report (``recorder``, ``report``): p50/p99 per request kind, errors by
kind, this process's CPU and memory (and the platform's with ``--watch platform=PID``). Tokens never go
into the report or the output; an error names the request kind and the HTTP or OCPI status only.

The client is one pool of keep-alive connections for the process: ``harness.load.http1`` by default, httpx's
``AsyncClient`` with ``--client httpx`` (side by side: see bench/LOAD.md and the README's "OCPI load").
"""

from __future__ import annotations

import asyncio
import base64
import functools
import itertools
import json
import sys
import time
import uuid
from urllib.parse import urlsplit
from dataclasses import dataclass, field
from typing import Any, TextIO

import httpx
from harness.load.gauges import Gauges, usage
from harness.load.http1 import HttpFailure, Pool
from harness.load.ocpi_roster import OcpiParty, OcpiRoster
from harness.load.recorder import Recorder

VERSION = "2.2.1"
MODULES = ("locations", "sessions")
DATE_FROM = "2000-01-01T00:00:00Z"   # sessions' list asks for date_from
LATE = 1.0           # seconds behind its time at which a request of the rate counts as not sent


@dataclass
class OcpiSettings:
    url: str                 # the platform's versions URL
    peers: int
    seed: int = 1
    storm: int = 50          # registrations at once
    rate: float = 200.0      # pull requests a second, all peers together
    hold: float = 30.0       # seconds of pulling after the storm
    page_limit: int = 2      # the limit each list GET asks for: small, so lists are walked page by page
    in_flight: int = 100     # requests unanswered at most: the pool's connections
    call_timeout: float = 30.0
    interval: float = 5.0
    client: str = "lean"     # "lean": harness.load.http1's pool; "httpx": httpx.AsyncClient (side by side)
    role: str = "emsp"       # the peers': eMSPs pull the platform's lists, CPOs push theirs to its Receivers

    def __post_init__(self) -> None:
        for name in ("peers", "storm", "in_flight", "page_limit"):
            if getattr(self, name) < 1:
                raise ValueError(f"--{name.replace('_', '-')} is {getattr(self, name)}: give 1 or more")
        for name in ("rate", "call_timeout", "interval"):
            if getattr(self, name) <= 0:
                raise ValueError(f"--{name.replace('_', '-')} is {getattr(self, name)}: give a number above 0")
        if self.role not in ("emsp", "cpo"):
            raise ValueError(f"--role is {self.role}: give emsp (pull) or cpo (push)")
        if self.client not in ("lean", "httpx"):
            raise ValueError(f"--client is {self.client}: give lean or httpx")
        if self.hold < 0:
            raise ValueError(f"--hold is {self.hold}: give 0 or more seconds")

    def describe(self) -> dict[str, Any]:
        return {"protocol": "ocpi2.2.1", "url": self.url, "peers": self.peers, "stations": self.peers,
                "seed": self.seed, "storm": self.storm, "rate": self.rate, "hold": self.hold,
                "page_limit": self.page_limit, "in_flight": self.in_flight,
                "client": self.client, "role": self.role}


def _token(token: str) -> str:
    return "Token " + base64.b64encode(token.encode()).decode()


def envelope(data: Any) -> bytes:
    return json.dumps({"data": data, "status_code": 1000,
                       "timestamp": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}).encode()


@dataclass
class Peer:
    """One simulated eMSP: its party, its token B (offered) and C (received), where its lists stand."""
    party: OcpiParty
    token_b: str = field(default_factory=lambda: uuid.uuid4().hex + uuid.uuid4().hex)
    token_c: str | None = None
    endpoints: dict[str, str] = field(default_factory=dict)
    cursor: dict[str, str | None] = field(default_factory=dict)
    platform_party: tuple[str, str] | None = None
    connect_backs: int = 0
    pushed: dict[str, int] = field(default_factory=dict)

    def __repr__(self) -> str:
        return f"Peer({self.party!r})"


class Failed(Exception):
    """A round trip that did not give what the protocol asks: ``kind`` is its name in the report."""
    def __init__(self, kind: str):
        super().__init__(kind)
        self.kind = kind


class OcpiLoad:
    def __init__(self, settings: OcpiSettings, recorder: Recorder, *, watch: dict[str, int] | None = None,
                 source: str = "local"):
        self.settings = settings
        self.recorder = recorder
        self.source = source
        self.roster = OcpiRoster(settings.seed, settings.peers)
        self.peers = [Peer(party) for party in self.roster.parties]
        self.gauges = Gauges(recorder, source, watch, lambda: {"connected": self.registered})
        self.registered = 0
        self.in_flight = 0
        self.rss_mb_at_start: float | None = None
        self.http: httpx.AsyncClient | None = None
        self.pool: Pool | None = None
        self.base: str | None = None      # where our peers' versions endpoints are served

    @staticmethod
    def clock() -> float:
        return time.time()

    # ---------------------------------------------------------------- the peers' own endpoints
    def app(self):
        """The ASGI app serving every peer's versions and details, for the platform's connect-back."""
        async def app(scope, receive, send) -> None:
            if scope["type"] != "http":
                return
            parts = scope["path"].strip("/").split("/")
            given = dict(scope["headers"])
            auth = given.get(b"authorization", b"").decode("latin-1")
            echoed = [(name, given[name]) for name in (b"x-request-id", b"x-correlation-id") if name in given]
            status, body = 404, b'{"status_code": 2000, "status_message": "no such endpoint"}'
            if len(parts) == 3 and parts[0] == "peers" and parts[1].isdigit() and int(parts[1]) < len(self.peers):
                peer = self.peers[int(parts[1])]
                if auth != _token(peer.token_b):   # the platform must present the token B this peer offered
                    status, body = 401, b'{"status_code": 2000, "status_message": "unknown token"}'
                    self.recorder.error("connect-back: not our token B", self.clock(), "connect-back")
                elif parts[2] == "versions":
                    status, body = 200, envelope([{"version": VERSION, "url": f"{self._peer_url(peer)}/{VERSION}"}])
                elif parts[2] == VERSION:
                    status, body = 200, envelope({"version": VERSION, "endpoints": [
                        {"identifier": "credentials", "role": "SENDER", "url": f"{self._peer_url(peer)}/credentials"},
                        *({"identifier": m, "role": "RECEIVER", "url": f"{self._peer_url(peer)}/{m}"}
                          for m in MODULES)]})
                if status == 200:
                    peer.connect_backs += 1
            await send({"type": "http.response.start", "status": status,
                        "headers": [(b"content-type", b"application/json"), *echoed]})
            await send({"type": "http.response.body", "body": body})
        return app

    def _peer_url(self, peer: Peer) -> str:
        return f"{self.base}/peers/{peer.party.index}"

    # ---------------------------------------------------------------- one round trip
    async def _request(self, kind: str, method: str, url: str, token: str, peer: Peer, *,
                       body: Any = None, routed: bool = False) -> tuple[Any, Any]:
        headers = {"Authorization": _token(token), "X-Request-ID": str(uuid.uuid4()),
                   "X-Correlation-ID": str(uuid.uuid4())}
        if routed and peer.platform_party is not None:
            headers |= {"OCPI-from-country-code": peer.party.country_code, "OCPI-from-party-id": peer.party.party_id,
                        "OCPI-to-country-code": peer.platform_party[0], "OCPI-to-party-id": peer.platform_party[1]}
        started = time.perf_counter()
        try:
            if self.pool is not None:
                parts = urlsplit(url)
                if f"{parts.hostname}:{parts.port or 80}".encode() != self.pool.authority:
                    raise Failed(f"{kind}: a URL of another origin")
                content = json.dumps(body).encode() if body is not None else b""
                if content:
                    headers["Content-Type"] = "application/json"
                status, answer, text = await self.pool.request(
                    method, parts.path + (f"?{parts.query}" if parts.query else ""), headers, content,
                    timeout=self.settings.call_timeout)
            else:
                response = await self.http.request(method, url, headers=headers, json=body,
                                                   timeout=self.settings.call_timeout)
                status, answer, text = response.status_code, response.headers, response.content
        except (httpx.TimeoutException, TimeoutError):
            raise Failed(f"{kind}: timed out") from None
        except (httpx.HTTPError, HttpFailure) as error:
            raise Failed(f"{kind}: {type(error).__name__}") from None
        elapsed = time.perf_counter() - started
        if status != 200 and not (status == 201 and method == "PUT"):
            raise Failed(f"{kind}: HTTP {status}")
        try:
            envelope = json.loads(text)
        except ValueError:
            raise Failed(f"{kind}: body is not JSON") from None
        if not isinstance(envelope, dict) or envelope.get("status_code") != 1000:
            raise Failed(f"{kind}: OCPI status {envelope.get('status_code') if isinstance(envelope, dict) else None}")
        self.recorder.round_trip(kind, elapsed, self.clock())
        return envelope, answer

    # ---------------------------------------------------------------- the storm
    async def register(self, peer: Peer) -> None:
        token_a = peer.party.token_a
        versions = (await self._request("GET versions", "GET", self.settings.url, token_a, peer))[0]["data"]
        details_url = next((v["url"] for v in versions if v.get("version") == VERSION), None)
        if details_url is None:
            raise Failed(f"GET versions: no {VERSION}")
        details = (await self._request("GET version details", "GET", details_url, token_a, peer))[0]["data"]
        peer.endpoints = {(e["identifier"], e["role"]): e["url"] for e in details["endpoints"]}
        credentials_url = peer.endpoints.get(("credentials", "SENDER")) or peer.endpoints.get(("credentials",
                                                                                                "RECEIVER"))
        if credentials_url is None:
            raise Failed("GET version details: no credentials endpoint")
        body = {"token": peer.token_b, "url": f"{self._peer_url(peer)}/versions",
                "roles": [{"role": self.settings.role.upper(), "business_details": {"name": f"load peer {peer.party.index}"},
                           "party_id": peer.party.party_id, "country_code": peer.party.country_code}]}
        data = (await self._request("POST credentials", "POST", credentials_url, token_a, peer, body=body))[0]["data"]
        if peer.connect_backs < 2:
            raise Failed("POST credentials: answered without connecting back")
        token_c = data.get("token") if isinstance(data, dict) else None
        if not token_c or token_c in (token_a, peer.token_b):
            raise Failed("POST credentials: no new token C")
        other = "CPO" if self.settings.role == "emsp" else "EMSP"
        theirs = next((r for r in data.get("roles", []) if r.get("role") == other), None)
        if theirs is None:
            raise Failed(f"POST credentials: no {other} role")
        peer.token_c, peer.platform_party = token_c, (theirs["country_code"], theirs["party_id"])
        self.registered += 1
        if self.registered == len(self.peers):
            self.recorder.held_from = self.clock()

    async def storm(self) -> None:
        if self.settings.role == "cpo":
            _ = self.objects   # made before the storm, not in the middle of the pushes
        gate = asyncio.Semaphore(self.settings.storm)

        async def one(peer: Peer) -> None:
            async with gate:
                try:
                    await self.register(peer)
                except Failed as failure:
                    self.recorder.error(failure.kind, self.clock(), "registration")
        await asyncio.gather(*(one(peer) for peer in self.peers))

    # ---------------------------------------------------------------- pulling at a rate
    async def pull(self, peer: Peer, module: str) -> None:
        url = peer.cursor.get(module)
        if url is None:
            first = peer.endpoints.get((module, "SENDER"))
            if first is None:
                raise Failed(f"GET {module}: the platform lists no {module} Sender")
            query = f"limit={self.settings.page_limit}" + (f"&date_from={DATE_FROM}" if module == "sessions" else "")
            url = f"{first}?{query}"
        _, headers = await self._request(f"GET {module}", "GET", url, peer.token_c, peer, routed=True)
        peer.cursor[module] = _next(headers.get("link"))   # None: the list is done, start again

    async def push(self, peer: Peer, module: str) -> None:
        """PUT the next of our sample objects of ``module`` to the platform's Receiver, under our party."""
        receiver = peer.endpoints.get((module, "RECEIVER"))
        if receiver is None:
            raise Failed(f"PUT {module}: the platform lists no {module} Receiver")
        objects = self.objects[module]
        n = peer.pushed[module] = peer.pushed.get(module, -1) + 1
        body = {**objects[n % len(objects)], "country_code": peer.party.country_code,
                "party_id": peer.party.party_id}
        url = f"{receiver.rstrip('/')}/{peer.party.country_code}/{peer.party.party_id}/{body['id']}"
        await self._request(f"PUT {module}", "PUT", url, peer.token_c, peer, body=body, routed=True)

    @functools.cached_property
    def objects(self) -> dict[str, list[dict[str, Any]]]:
        """What CPO peers push: the reference CPO's sample Locations and Sessions (faker loads only for a push run)."""
        from harness.reference.ocpi.locations import sample_locations
        from harness.reference.ocpi.sessions import sample_sessions
        locations = sample_locations("XX", "XXX")
        return {"locations": locations, "sessions": sample_sessions(("XX", "XXX"), locations)}

    async def _pull_counted(self, peer: Peer, module: str) -> None:
        verb = "GET" if self.settings.role == "emsp" else "PUT"
        try:
            await (self.pull if verb == "GET" else self.push)(peer, module)
        except Failed as failure:
            self.recorder.error(failure.kind, self.clock(), f"{verb} {module}")
        finally:
            self.in_flight -= 1

    async def pull_at_rate(self) -> None:
        """Pull (eMSP peers) or push (CPO peers) at ``--rate``, over every registered peer in turn."""
        ready = [peer for peer in self.peers if peer.token_c]
        if not ready or self.settings.hold == 0:
            return
        begin, tasks = self.clock(), set()
        turns = itertools.cycle((peer, module) for module in MODULES for peer in ready)
        for n in itertools.count():
            at = begin + n / self.settings.rate
            if at - begin >= self.settings.hold:
                break
            await asyncio.sleep(max(0.0, at - self.clock()))
            peer, module = next(turns)
            now = self.clock()
            if self.in_flight >= self.settings.in_flight:
                self.recorder.error("rate not sustained: requests in flight at --in-flight", now, f"GET {module}")
                continue
            if now - at > LATE:   # this process could not send at the rate (its CPU share, its own requests)
                self.recorder.error(f"rate not sustained: sent over {LATE:g} s late", now, f"GET {module}")
                continue
            self.in_flight += 1
            task = asyncio.create_task(self._pull_counted(peer, module))
            tasks.add(task)
            task.add_done_callback(tasks.discard)
        if tasks:   # each bounded by --call-timeout
            await asyncio.wait(tasks, timeout=self.settings.call_timeout * 2)

    # ---------------------------------------------------------------- the run
    async def run(self, progress: TextIO | None = sys.stderr) -> None:
        from harness.transport.http import HttpServer
        self.rss_mb_at_start = usage(self.gauges.process)["rss_mb"]
        limits = httpx.Limits(max_connections=max(self.settings.in_flight, self.settings.storm),
                              max_keepalive_connections=max(self.settings.in_flight, self.settings.storm))
        server = await HttpServer(self.app(), "127.0.0.1", 0).start()
        self.base = server.url
        begin = self.clock()
        sampler = asyncio.create_task(self.gauges.every_second(self.clock, progress, lambda now, rate, own: (
            f"{now - begin:6.0f} s  registered {self.registered}/{len(self.peers)}  requests {rate:,.0f}/s  "
            f"errors {self.recorder.error_count}  cpu {own['cpu_percent']:.0f} %  rss {own['rss_mb']:,.0f} MB")))
        try:
            if self.settings.client == "lean":
                self.pool = Pool(self.settings.url, limits.max_connections or self.settings.in_flight)
                try:
                    await self.storm()
                    await self.pull_at_rate()
                finally:
                    await self.pool.close()
            else:
                async with httpx.AsyncClient(limits=limits) as self.http:
                    await self.storm()
                    await self.pull_at_rate()
        finally:
            sampler.cancel()
            self.gauges.once(self.clock())
            await server.stop()
            if progress is not None:
                progress.write("\n")


def _next(link: str | None) -> str | None:
    """The URL of a ``Link: <url>; rel="next"`` header, or None."""
    if not link:
        return None
    for part in link.split(","):
        url, _, params = part.partition(";")
        if 'rel="next"' in params.replace(" ", "") or "rel=next" in params.replace(" ", ""):
            return url.strip().strip("<>")
    return None


def verdict(written: dict, peers: int, out: TextIO | None = None) -> int:
    """1 when peers failed to register, or any error was counted (a refused request, an OCPI status other
    than 1000, a request the rate could not send); they are named."""
    registered = written["actions"].get("POST credentials", {}).get("count", 0)
    failed = ([f"{peers - registered:,} of {peers:,} peers never registered"] if registered < peers else []) + [
        f"{n:,} × {kind}" for kind, n in written["errors"].items()]
    if failed:
        print(f"FAILED: {'; '.join(failed)}", file=out or sys.stderr)
        return 1
    return 0
