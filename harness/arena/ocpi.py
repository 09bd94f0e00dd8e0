"""The arena of an OCPI test: the SUT (a CPO or an eMSP platform, or its embedded stand-in), the
harness's peer facing it in the other role, the HTTP between them, and the actuator that makes
the SUT act.

A dialogue is written once and played from either side (``harness/usecases/ocpi_*.py``):
``exchange(initiator, method, module, ids, body, trigger=...)`` sends the request itself when the
harness initiates, and otherwise asks the actuator and awaits the SUT's request on the harness's
server, with a timeout. Suites reach the harness's side only through the verbs below; the one
verifier of an OCPI answer's outcome is ``check_answer``.

Wiring: against a real SUT the harness's peer listens on ``--listen`` (uvicorn) and calls
``--sut-url`` over the network. In the embedded run both peers are ASGI apps reached in-process
through httpx (fast); ``sockets=True`` serves both on real ports of 127.0.0.1 instead.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from harness import clock
from harness.actuators import ActionUnsupported, Actuator, InProcessActuator
from harness.arena.base import CLEANUP_TIMEOUT, Arena, Trigger
from harness.arena.ocpi_sides import SPENT_TOKENS_A, HarnessCpoSide, HarnessEmspSide
from harness.cistring import id_key, same_id
from harness.errors import HarnessError, NotApplicable
from harness.ocpi.envelope import Outcome, StatusError, expect_success, is_success, meaning, outcome
from harness.ocpi.versions import CREDENTIALS, VersionDetails, negotiate, read_details, read_versions
from harness.pki import VALID, harness_pki
from harness.profile import Profile
from harness.reference.ocpi import (
    VERSION, OcpiPeer, build_peer, harness_identity, secret_token, sut_identity)
from harness.roles import CPO, EMSP, OCPI_ROLES, Role
from harness.rules import Rule
from harness.transport.http import HttpClient, HttpExchange, HttpServer, InProcessNetwork, Served
from harness.transport.tls import TlsEnd
from harness.verdict import require
from harness.variance import Variance
from harness.wire import WireLog

PROTOCOL = "ocpi2.2.1"
_UNSET = object()



def check_answer(answer: HttpExchange, rule: Rule, what: str, *, success: bool | None = None,
                 status_code: int | None = None, http_status: int | None = None) -> Outcome:
    """The one verifier of an OCPI answer's outcome; ``rule`` is broken unless the answer
    - ``success=True``: succeeded, HTTP 2xx with a 1xxx status_code;
    - ``success=False``: reports an error in its status_code (no 1xxx, whatever the HTTP status);
    - carries ``status_code`` / has ``http_status``, when given.
    Returns what the answer said."""
    said = outcome(answer.status, answer.response_body)
    if success is True:
        require(said.ok, rule, f"{what} was refused", expected="HTTP 2xx, status_code 1xxx", actual=str(said))
    if success is False:
        require(said.status_code is None or not is_success(said.status_code), rule,
                f"{what} carries a success status_code", expected="status_code 2xxx, 3xxx or 4xxx", actual=str(said))
    if http_status is not None:
        require(said.http_status == http_status, rule, f"{what}: HTTP {said.http_status} where HTTP "
                f"{http_status} is due", expected=f"HTTP {http_status}", actual=str(said))
    if status_code is not None:
        require(said.status_code == status_code, rule, f"{what}: status_code {said.status_code} where "
                f"{status_code} ({meaning(status_code)}) is due", expected=status_code, actual=str(said))
    return said


def _addressed(method: str, module: str, ids: tuple[str, ...]) -> Callable[[Served], bool]:
    """A request of ``method`` to ``module`` whose path ends with ``ids`` (ignoring case: CiStrings)."""
    wanted = [id_key(i) for i in ids]

    def match(served: Served) -> bool:
        parts = [id_key(p) for p in served.exchange.path.rstrip("/").split("/")]
        return served.module == module and served.method == method and parts[len(parts) - len(wanted):] == wanted

    return match


def carrying(fields: dict[str, Any]) -> Callable[[Served], bool]:
    """A request whose JSON object holds each of ``fields`` that is not None (texts compared ignoring case): the
    one a test asked the SUT for, told from those a busy platform sends of its own meanwhile (``exchange``'s
    ``asked``). Only a preference: the test judges the request it gets."""
    wanted = {name: value for name, value in fields.items() if value is not None}

    def carries(served: Served) -> bool:
        body = served.exchange.request_json()
        return isinstance(body, dict) and all(
            same_id(body.get(name), value) if isinstance(value, str) else body.get(name) == value
            for name, value in wanted.items())
    return carries


@dataclass
class OcpiOptions:
    sut_url: str | None = None                   # the SUT's versions URL; None: the embedded stand-in
    listen: tuple[str, int] = ("127.0.0.1", 0)   # where the harness's peer listens for a real SUT
    public_url: str | None = None                # the harness's base URL as the SUT reaches it
    actuator: Actuator | None = None             # None: the stand-in's in-process actuator
    embedded_cls: type | None = None             # testing the harness: a faulty stand-in
    sockets: bool = False                        # embedded run over real sockets, not in-process
    https: bool = False                          # embedded run over real sockets with TLS (the run's PKI)
    variance: Variance | None = None             # the embedded stand-in takes legal freedoms (harness.variance)


class OcpiArena(Arena):
    roles = OCPI_ROLES

    def __init__(self, target, profile: Profile, wirelog: WireLog, options: OcpiOptions):
        super().__init__(target, profile, wirelog, options)
        self.version = VERSION
        self.harness: OcpiPeer | None = None
        self.standin: OcpiPeer | None = None
        self.sut_versions_url: str | None = options.sut_url
        self._servers: list[HttpServer] = []
        self._served_tls: TlsEnd | None = None

    @property
    def embedded(self) -> bool:
        return self.options.sut_url is None

    @property
    def sut_reference(self) -> type:
        return OcpiPeer

    @property
    def sockets(self) -> bool:
        return self.options.sockets or self.options.https or not self.embedded

    def _tls(self) -> tuple[TlsEnd | None, TlsEnd | None]:
        """(whom the clients trust, what the harness serves). Embedded over https: both peers serve a
        certificate of the run's PKI and trust its root. A real SUT: its https server is verified against
        [tls] sut_ca (without it, the default trust store); the harness serves https when [ocpi] public_url
        is an https URL, a certificate from its PKI for [tls] server_names (default the URL's host)."""
        def pki():   # made only when something is served over https (a root key costs a good part of a second)
            return harness_pki(self.profile.tls_path("harness_pki"))
        if self.embedded:
            if not self.options.https:
                return None, None
            return TlsEnd(trust=pki().root_path), TlsEnd(*pki().server(VALID, ("127.0.0.1", "localhost")))
        sut_ca, public = self.profile.tls_path("sut_ca"), self.options.public_url or ""
        served = None
        if urlsplit(public).scheme == "https":
            names = tuple(self.profile.get("tls.server_names") or (urlsplit(public).hostname,))
            served = TlsEnd(*pki().server(VALID, names))
        return (TlsEnd(trust=sut_ca) if sut_ca else None), served

    # ------------------------------------------------------------------ setting up
    async def open(self) -> "OcpiArena":
        network = None if self.sockets else InProcessNetwork()
        channel = f"ocpi-{self.sut_role}"
        trust, self._served_tls = self._tls()
        self.harness = build_peer(
            harness_identity(self.profile, Role(self.harness_role).party), self.profile, from_profile=False,
            http=HttpClient(transport=network, wirelog=self.wirelog, channel=channel, timeout=self.timeouts.call,
                            tls=trust),
            wirelog=self.wirelog, channel=channel)
        if self.embedded:
            self.standin = build_peer(sut_identity(self.profile, Role(self.sut_role).party), self.profile,
                                      from_profile=True, cls=self.options.embedded_cls or OcpiPeer,
                                      http=HttpClient(transport=network, timeout=self.timeouts.call, tls=trust))
            if self.options.variance is not None:
                self.standin.vary(self.options.variance)
            self.actuator = self.actuator or InProcessActuator(self.standin, self.options.variance)
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
        else:
            self.undo("end the registration the test made", self._unregister_quietly)
        return self

    async def _serve(self, peer: OcpiPeer, host: str, port: int) -> str:
        server = await HttpServer(peer.app, host, port, tls=self._served_tls).start()
        self._servers.append(server)
        return server.url

    async def close(self) -> None:
        try:
            await super().close()
        finally:
            for server in self._servers:
                await server.stop()

    async def _unregister_quietly(self) -> None:
        """A real SUT keeps no relationship a test made (best effort, bounded)."""
        try:
            if self.harness.client_registered:
                await self.harness.unregister_from()
            elif self.harness.server_registered:
                start = self.mark()
                await self.act(self.sut_role, "unregister")
                await self.harness.wait_served(_addressed("DELETE", CREDENTIALS, ()), CLEANUP_TIMEOUT, start=start)
        except Exception as error:   # cleanup must not hide the verdict
            self.wirelog.event(f"ocpi-{self.sut_role}", f"cleanup: could not unregister ({error!r})")

    # ------------------------------------------------------------------ the harness's side
    @property
    def harness_peer(self) -> HarnessCpoSide | HarnessEmspSide:
        """The harness's own platform, in the role it plays (``harness.arena.ocpi_sides``)."""
        return HarnessCpoSide(self) if self.harness_role == CPO else HarnessEmspSide(self)

    @property
    def harness_cpo(self) -> HarnessCpoSide:
        """The harness's CPO, when the SUT is an eMSP."""
        return self._side(HarnessCpoSide, "harness_cpo", EMSP)

    @property
    def harness_emsp(self) -> HarnessEmspSide:
        """The harness's eMSP, when the SUT is a CPO."""
        return self._side(HarnessEmspSide, "harness_emsp", CPO)

    @staticmethod
    def new_token() -> str:
        """A fresh credentials token nobody issued (masked in every log and report)."""
        return secret_token()

    # ------------------------------------------------------------------ the relationship
    @property
    def registered(self) -> bool:
        """The harness and the SUT have a registration, whichever registered with the other."""
        return self.harness.registered

    @property
    def token_to_sut(self) -> str | None:
        """What the harness presents to the SUT: token C when it registered with the SUT, else the SUT's B."""
        return self.harness.peer_token

    @property
    def token_from_sut(self) -> str | None:
        """What the SUT presents to the harness: the harness's B when it registered with the SUT, else C."""
        return self.harness.own_token

    async def sut_token_a(self) -> str:
        """A token A the SUT accepts for one new registration: one the actuator makes it accept
        (``issue_token_a``), else the profile's ``[ocpi] token_a`` while it is unused."""
        token = secret_token()
        try:
            issued = await self.act(self.sut_role, "issue_token_a", token=token)
            return issued if isinstance(issued, str) and issued else token   # an operator's own token A
        except ActionUnsupported as unsupported:
            fallback = self.profile.get("ocpi.token_a")
            if not fallback:
                raise NotApplicable(f"no token A for the SUT: the actuator cannot issue one ({unsupported}) "
                                    f"and the profile sets no [ocpi] token_a") from None
            if (self.sut_versions_url, fallback) in SPENT_TOKENS_A:
                raise NotApplicable("the profile's token A was used up by a registration earlier in this run "
                                    "and the actuator cannot issue another (action issue_token_a)") from None
            return fallback

    async def sut_endpoints(self, token: str) -> VersionDetails:
        """The SUT's endpoints of our version, fetched with ``token``."""
        versions = await self.send("GET", self.sut_versions_url, token=token)
        chosen = negotiate([VERSION], read_versions(expect_success(versions.status, versions.response_body)))
        details = await self.send("GET", chosen.url, token=token)
        return read_details(expect_success(details.status, details.response_body))

    def sut_url(self, module: str, *ids: str, endpoints: VersionDetails | None = None) -> str:
        """The SUT's URL of ``module`` for the object ``ids`` (see ``OcpiPeer.other_url``), from
        ``endpoints`` or the registration's; not applicable when the SUT lists no such endpoint."""
        try:
            return self.harness.other_url(module, *ids, endpoints=endpoints)
        except StatusError as missing:
            raise NotApplicable(f"the SUT's version details list no such endpoint: {missing.args[0]}") from None

    # ------------------------------------------------------------------ requests
    async def send(self, method: str, url: str, *, token: str | None = None, body: Any = None,
                   module: str | None = None, authorization: Any = _UNSET) -> HttpExchange:
        """One request of the harness to ``url`` as given (``authorization=None``: no header at all)."""
        extra = {} if authorization is _UNSET else {"authorization": authorization}
        return await self.harness.send(method, url, token=token, body=body, module=module, **extra)

    async def exchange(self, initiator: str, method: str, module: str, ids: tuple[str, ...] = (),
                       body: Any = None, *, trigger: Trigger | None = None, rule: Rule,
                       timeout: float | None = None, asked: Callable[[Served], bool] | None = None) -> HttpExchange:
        """One request of ``method`` to the ``module`` object ``ids``, started by ``initiator``
        (``"cpo"`` or ``"emsp"``). The harness's peer sends ``body`` to the SUT's endpoint when the
        harness initiates; otherwise the actuator performs ``trigger`` and the SUT's request is
        awaited on the harness's server, which must have served it with success (else the fault it
        found in it fails ``rule``, as does the SUT's silence). ``asked``: what the test will require of the
        SUT's request (see ``expect_request``'s ``prefer``)."""
        what = f"a {module} {method}" + (f" of {'/'.join(ids)}" if ids else "")
        since = self._faults()

        async def await_sut(start: int) -> HttpExchange:
            served = await self._expect_request(_addressed(method, module, ids), after=start, rule=rule, what=what,
                                                timeout=timeout, why=f"after the actuator action {trigger[0]}",
                                                prefer=asked)
            self._check_served(served, since=since, rule=rule, what=f"the SUT's {module} {method}")
            return served.exchange

        return await self.initiated(initiator, what, trigger=trigger, await_sut=await_sut,
                                    send=lambda: self.harness.call(method, module, ids, body))

    # ------------------------------------------------------------------ the SUT's requests
    def mark(self) -> int:
        """A point in the requests the harness's server served, for ``requests_since`` and the waits."""
        return len(self.harness.served)

    def requests_since(self, mark: int) -> list[Served]:
        """The SUT's requests the harness's server served from ``mark`` on."""
        return self.harness.served[mark:]

    async def expect_no_request(self, method: str, module: str, ids: tuple[str, ...] = (), *, after: int, rule: Rule,
                                within: float | None = None) -> None:
        """The SUT must NOT send ``method`` to the harness's ``module`` object ``ids`` (any object: none given) while
        we watch for ``within`` seconds. A platform pushes what changes as it happens, other drivers' Sessions too:
        a rule about one object names it."""
        served = await self.harness.wait_served(_addressed(method, module, ids), within or self.timeouts.quiet,
                                                start=after)
        if served is not None:
            self.unwanted(rule, f"a {module} {method}", f"{served.method} {served.exchange.url}")

    async def expect_request(self, method: str, module: str, *, after: int, rule: Rule,
                             where: Callable[[Served], bool] = lambda served: True, what: str = "",
                             timeout: float | None = None,
                             prefer: Callable[[Served], bool] | None = None) -> Served:
        """The SUT's ``method`` request to the harness's ``module`` from ``after`` on, matching ``where``
        (``what`` names it); its silence breaks ``rule``. ``prefer``: what the test will require of it. A platform
        sends requests of its own meanwhile (another driver's): the first ``prefer`` accepts is the one, else, once
        the wait is over, the first, for the test to judge."""
        addressed = _addressed(method, module, ())
        return await self._expect_request(lambda served: addressed(served) and where(served), after=after, rule=rule,
                                          what=what or f"a {module} {method}", timeout=timeout, why="", prefer=prefer)
    async def expect_fetch(self, url: str, *, after: int, rule: Rule, why: str = "") -> Served:
        """The SUT's GET of ``url``, a URL the harness serves (a canned one too), from ``after`` on: the
        proof that a dialogue the test asked for began; its silence breaks ``rule``."""
        path = urlsplit(url).path
        return await self._expect_request(lambda s: s.method == "GET" and urlsplit(s.exchange.url).path == path,
                                          after=after, rule=rule, what=f"a GET of {url}", timeout=None, why=why)

    async def _expect_request(self, where: Callable[[Served], bool], *, after: int, rule: Rule, what: str,
                              timeout: float | None, why: str,
                              prefer: Callable[[Served], bool] | None = None) -> Served | None:
        """The SUT's request matching ``where`` from ``after`` on (the first ``prefer`` accepts, when one comes
        within the wait); its silence breaks ``rule``."""
        wait = timeout or self.timeouts.action
        deadline = clock.now() + wait
        served = await self.harness.wait_served(where, wait, start=after)
        if served is None:
            self.silent(rule, what, wait, why)
        elif prefer is not None and not prefer(served):
            preferred = await self.harness.wait_served(lambda s: where(s) and prefer(s), max(0.0, deadline - clock.now()),
                                                       start=after)
            served = preferred or served
        return served

    def _faults(self) -> int:
        """A point in the faults the harness's peer found in what the SUT sent."""
        return len(self.harness.violations)

    def _check_served(self, served: Served, *, since: int, rule: Rule, what: str) -> None:
        """The harness's server answered the SUT's request with success; otherwise the fault it
        found in that request (recorded from ``since`` on) fails the test now."""
        if outcome(served.exchange.status, served.exchange.response_body).ok:
            return
        found = [v for v in self.harness.violations[since:] if v.strict]
        if found:
            raise found[0]
        check_answer(served.exchange, rule, f"{what} (as the harness served it)", success=True)
