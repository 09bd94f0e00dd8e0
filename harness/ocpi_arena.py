"""The arena of an OCPI test: the SUT (a CPO or an eMSP platform, or its embedded stand-in), the
harness's peer facing it in the other role, the HTTP between them, and the actuator that makes
the SUT act.

A dialogue is written once and played from either side (``harness/usecases/ocpi_*.py``): when the
harness initiates, its peer sends the request itself; when the SUT initiates, the actuator is
asked and the request is awaited on the harness's server, with a timeout (``expect_request``).

Wiring: against a real SUT the harness's peer listens on ``--listen`` (uvicorn) and calls
``--sut-url`` over the network. In the embedded run both peers are ASGI apps reached in-process
through httpx (fast); ``sockets=True`` serves both on real ports of 127.0.0.1 instead.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from harness.actuators import ActionUnsupported, Actuator, InProcessActuator
from harness.errors import HarnessError, NotApplicable, PeerViolation
from harness.ocpi.envelope import expect_success, parse
from harness.ocpi.versions import VersionDetails, negotiate, read_details, read_versions
from harness.profile import Profile
from harness.reference.ocpi import (
    CPO as CPO_ROLE, EMSP as EMSP_ROLE, VERSION, OcpiPeer, Served, build_peer, harness_identity, secret_token,
    sut_identity)
from harness.transport.http import HttpClient, HttpServer, InProcessNetwork
from harness.verdict import fail
from harness.wire import WireLog

CPO, EMSP = "cpo", "emsp"
OCPI_ROLES = (CPO, EMSP)
PROTOCOL = "ocpi2.2.1"
_PEER_ROLE = {CPO: CPO_ROLE, EMSP: EMSP_ROLE}
CLEANUP_TIMEOUT = 5.0

# (versions URL, token A) of the profile that a registration in this run used up (C2): a SUT
# discards token A once registered, so a later test cannot use it again.
_SPENT_TOKENS_A: set[tuple[str, str]] = set()


@dataclass
class OcpiOptions:
    sut_url: str | None = None                   # the SUT's versions URL; None: the embedded stand-in
    listen: tuple[str, int] = ("127.0.0.1", 0)   # where the harness's peer listens for a real SUT
    public_url: str | None = None                # the harness's base URL as the SUT reaches it
    actuator: Actuator | None = None             # None: the stand-in's in-process actuator
    embedded_cls: type | None = None             # testing the harness: a faulty stand-in
    sockets: bool = False                        # embedded run over real sockets, not in-process


class OcpiArena:
    def __init__(self, target, profile: Profile, wirelog: WireLog, options: OcpiOptions):
        if target.role not in OCPI_ROLES:
            raise HarnessError(f"the OCPI arena serves the roles cpo and emsp, not {target.role}")
        self.target = target
        self.sut_role = target.role
        self.profile = profile
        self.wirelog = wirelog
        self.options = options
        self.actuator = options.actuator
        self.version = VERSION
        self.harness: OcpiPeer | None = None
        self.standin: OcpiPeer | None = None
        self.sut_versions_url: str | None = options.sut_url
        self._servers: list[HttpServer] = []

    @property
    def embedded(self) -> bool:
        return self.options.sut_url is None

    @property
    def sockets(self) -> bool:
        return self.options.sockets or not self.embedded

    @property
    def harness_role(self) -> str:
        return EMSP if self.sut_role == CPO else CPO

    @property
    def timeouts(self):
        return self.profile.timeouts

    def is_sut(self, role: str) -> bool:
        return role == self.sut_role

    # ------------------------------------------------------------------ setting up
    async def open(self) -> "OcpiArena":
        network = None if self.sockets else InProcessNetwork()
        channel = f"ocpi-{self.sut_role}"
        self.harness = build_peer(
            harness_identity(self.profile, _PEER_ROLE[self.harness_role]), self.profile, from_profile=False,
            http=HttpClient(transport=network, wirelog=self.wirelog, channel=channel, timeout=self.timeouts.call),
            wirelog=self.wirelog, channel=channel)
        if self.embedded:
            self.standin = build_peer(sut_identity(self.profile, _PEER_ROLE[self.sut_role]), self.profile,
                                      from_profile=True, cls=self.options.embedded_cls or OcpiPeer,
                                      http=HttpClient(transport=network, timeout=self.timeouts.call))
            self.actuator = self.actuator or InProcessActuator(self.standin)
        if network is not None:
            self.harness.bind(network.add("harness", self.harness.app))
            self.standin.bind(network.add("sut", self.standin.app), token_a=self.profile.get("ocpi.token_a"))
        else:
            host, port = self.options.listen
            url = await self._serve(self.harness, host, port)
            if not self.options.public_url and host in ("0.0.0.0", "::"):
                raise HarnessError(f"the harness listens on {host}: set [ocpi] public_url to the URL the SUT "
                                   f"reaches it at, e.g. http://<this host>:{url.rsplit(':', 1)[-1]}")
            self.harness.bind(self.options.public_url or url)
            if self.standin is not None:
                self.standin.bind(await self._serve(self.standin, "127.0.0.1", 0),
                                  token_a=self.profile.get("ocpi.token_a"))
        if self.standin is not None:
            self.sut_versions_url = self.standin.versions_url
        return self

    async def _serve(self, peer: OcpiPeer, host: str, port: int) -> str:
        server = await HttpServer(peer.app, host, port).start()
        self._servers.append(server)
        return server.url

    async def close(self) -> None:
        try:
            if not self.embedded and self.harness is not None:
                await self._unregister_quietly()
        finally:
            for peer in (self.standin, self.harness):
                if peer is not None:
                    await peer.close()
            for server in self._servers:
                await server.stop()

    async def _unregister_quietly(self) -> None:
        """A real SUT keeps no relationship a test made (best effort, bounded)."""
        try:
            if self.harness.client_registered:
                await self.harness.unregister_from()
            elif self.harness.server_registered:
                start = self.mark()
                await self.act("unregister")
                await self.harness.wait_served(lambda s: s.method == "DELETE", CLEANUP_TIMEOUT, start=start)
        except Exception as error:   # cleanup must not hide the verdict
            self.wirelog.event(f"ocpi-{self.sut_role}", f"cleanup: could not unregister ({error!r})")

    # ------------------------------------------------------------------ acting
    async def act(self, action: str, **body: Any) -> None:
        """Ask the SUT, through the actuator, to do something the protocol cannot cause."""
        if self.actuator is None:
            raise HarnessError("no actuator: give --actuator (manual, http or python)")
        await self.actuator.perform(action, body)

    async def sut_token_a(self) -> str:
        """A token A the SUT accepts for one new registration (C2): one the actuator makes it
        accept (``issue_token_a``), else the profile's ``[ocpi] token_a`` while it is unused."""
        token = secret_token()
        try:
            await self.act("issue_token_a", token=token)
            return token
        except ActionUnsupported as unsupported:
            fallback = self.profile.get("ocpi.token_a")
            if not fallback:
                raise NotApplicable(f"no token A for the SUT: the actuator cannot issue one ({unsupported}) "
                                    f"and the profile sets no [ocpi] token_a") from None
            if (self.sut_versions_url, fallback) in _SPENT_TOKENS_A:
                raise NotApplicable("the profile's token A was used up by a registration earlier in this run "
                                    "and the actuator cannot issue another (action issue_token_a)") from None
            return fallback

    def spend_token_a(self, token: str) -> None:
        """A registration with ``token`` succeeded: the SUT has discarded it (C2)."""
        _SPENT_TOKENS_A.add((self.sut_versions_url, token))

    async def sut_endpoints(self, token: str) -> VersionDetails:
        """V1-V3: the SUT's endpoints of our version, fetched with ``token``."""
        versions = await self.harness.send("GET", self.sut_versions_url, token=token)
        chosen = negotiate([VERSION], read_versions(expect_success(versions.status, versions.response_body)))
        details = await self.harness.send("GET", chosen.url, token=token)
        return read_details(expect_success(details.status, details.response_body))

    # ------------------------------------------------------------------ watching the SUT's requests
    def mark(self) -> int:
        """A point in the harness's served requests, for ``expect_request(after=...)``."""
        return len(self.harness.served)

    async def expect_request(self, where: Callable[[Served], bool], *, after: int, rule: str, what: str,
                             timeout: float | None = None, why: str = "") -> Served:
        """The SUT's request matching ``where`` from ``after`` on; its silence fails ``rule``."""
        wait = timeout or self.timeouts.action
        served = await self.harness.wait_served(where, wait, start=after)
        if served is None:
            fail(rule, f"the SUT did not send {what} within {wait:g} s {why}".rstrip(), expected=what,
                 actual="nothing")
        return served

    def faults(self) -> int:
        """A point in the faults the harness's peer found in what the SUT sent."""
        return len(self.harness.violations)

    def check_served(self, served: Served, *, since: int, rule: str, what: str) -> None:
        """The harness's server answered the SUT's request with success; otherwise the fault it
        found in that request (recorded from ``since`` on) fails the test now."""
        try:
            answer = parse(served.exchange.response_body)
        except PeerViolation:
            answer = None
        if answer is not None and answer.ok and 200 <= served.exchange.status <= 299:
            return
        found = [v for v in self.harness.violations[since:] if v.strict]
        if found:
            raise found[0]
        fail(rule, f"{what} could not be served", actual=f"HTTP {served.exchange.status} {served.exchange.text[:300]}")

    async def expect_no_request(self, where: Callable[[Served], bool], *, after: int, rule: str, what: str,
                                within: float | None = None) -> None:
        """The SUT must NOT send ``what`` while we watch for ``within`` seconds."""
        served = await self.harness.wait_served(where, within or self.timeouts.quiet, start=after)
        if served is not None:
            fail(rule, f"the SUT sent {what} when it must not", expected=f"no {what}",
                 actual=f"{served.method} {served.exchange.url}")
