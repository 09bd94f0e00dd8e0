"""The arena of an OCPP test: the SUT, the harness's side facing it, the link between them,
and the actuator that makes the SUT act.

A use case is written once against the arena and played from either side:
``exchange(initiator, action, ...)`` sends the CALL itself when the harness is the
initiator, and otherwise asks the actuator to make the SUT send it and waits for it on
the wire; either way it returns the same ``Exchange`` (request and answer) to verify.

What a test creates at the SUT is undone when it ends (``Arena.undo``): what the harness's CALLs changed at
a station under test and what the actuator did at the SUT, as the blocks that send those CALLs or offer
those actions declare (``undo_<Action>``, ``undone_by``, ``acted``: a 1.6 idTag left waiting for a cable), and every
transaction still running — the station under test's are stopped remotely (noted as they start, on
whichever connection: one an outage or a reboot closed counts the same), the harness's own
station ends its own, so that a CSMS under test keeps none open.
"""

from __future__ import annotations

import asyncio
import ssl
from dataclasses import dataclass
from pathlib import Path
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

from harness import clock
from harness.actuators import Actuator, InProcessActuator
from harness.arena.base import CLEANUP_TIMEOUT, Arena, Trigger
from harness.arena.ocpp_sides import HarnessCsmsSide, HarnessStationSide
from harness.errors import ConfigError, HarnessError
from harness.pki import EC, VALID, HarnessPki, harness_pki
from harness.ocpp.rpc import Rpc
from harness.ocpp.versions import OcppVersion
from harness.profile import Profile
from harness.reference import references_for
from harness.reference.base import CsmsBase, StationBase
from harness.reference.standalone import reference_tls
from harness.transport.tls import TLS12, TlsEnd
from harness.transport.ws import CallErrorReply, Exchange, OcppConnection
from harness.roles import CS, CSMS, OCPP_ROLES
from harness.rules import Rule
from harness.variance import Variance
from harness.verdict import violated
from harness.wire import WireLog

QUEUE_PATIENCE = 20   # call timeouts a harness's own CALL may wait behind its earlier ones (see _behind_our_calls)

@dataclass(frozen=True)
class Target:
    """Which role the SUT plays, in which protocol version."""
    role: str
    protocol: str

    @property
    def id(self) -> str:
        return f"{self.role}-{self.protocol}"


@dataclass
class ArenaOptions:
    sut_url: str | None = None          # SUT is a CSMS: where it listens
    listen: tuple[str, int] = ("127.0.0.1", 0)   # SUT is a station: where the harness CSMS listens
    actuator: Actuator | None = None    # the SUT's; none in the embedded run (the stand-in's in-process one)
    embedded_cls: type | None = None    # testing the harness: a faulty stand-in
    embedded: bool = True               # the SUT is the reference stand-in, not a real system
    variance: Variance | None = None    # the embedded stand-in takes legal freedoms (harness.variance)
    # the SUT serves other workers' tests meanwhile (a run spread over xdist workers, the test not csms_wide): an
    # action the SUT's reference declares csms_wide is refused
    shared: bool = False


class TlsVerbs:
    """The verbs of the TLS tests (security profiles 2 and 3, ``harness/usecases/tls.py``), mixed into
    ``OcppArena``. Certificates come from the harness's PKI (``HarnessPki``, kept in [tls] harness_pki;
    in the embedded run made for the run, and the stand-in's come from it too); the SUT's certificate
    is verified against [tls] sut_ca."""

    def pki(self) -> HarnessPki:
        return harness_pki(self.profile.tls_path("harness_pki"))

    def sut_ca(self) -> Path:
        """The authority that signed the SUT's certificate."""
        if self.embedded:
            return self.pki().root_path
        path = self.profile.tls_path("sut_ca")
        if path is None:
            raise ConfigError("the TLS tests verify the SUT's certificate: give [tls] sut_ca = \"<the PEM file of "
                              "the authority that signed it>\" in the profile")
        return path

    def server_names(self) -> tuple[str, ...]:
        """The names the harness's server certificate carries: [tls] server_names, else where it listens."""
        given = self.profile.get("tls.server_names")
        return tuple(given) if given else tuple(dict.fromkeys((self.options.listen[0], "localhost", "127.0.0.1")))

    def harness_tls(self, *, certificate: str | None = VALID,
                    versions: tuple[ssl.TLSVersion, ssl.TLSVersion | None] = (TLS12, None),
                    ciphers: str | None = None) -> TlsEnd:
        """The harness's own end at the arena's security profile: its station verifies the CSMS under test,
        presents the client certificate ``certificate`` in profile 3 (None: none) and offers the TLS 1.2 suites
        ``ciphers`` (an OpenSSL list; None: its default); its CSMS serves the server certificate ``certificate``,
        RSA and ECDSA (every mandatory suite, ``tls.SERVED``), and in profile 3 requires a client certificate from
        the SUT's authority. ``certificate`` is ``VALID``, one of ``pki.BROKEN``, or (a client's)
        ``pki.OTHER_OPERATOR``/``pki.OTHER_STATION``."""
        pki, mutual = self.pki(), self.security_profile >= 3
        if self.is_sut(CSMS):
            own = pki.client(certificate, self.profile.serial_number, self.profile.get("tls.operator")) \
                if mutual and certificate is not None else (None, None)
            return TlsEnd(*own, trust=self.sut_ca(), versions=versions, ciphers=ciphers)
        names = self.server_names()
        return TlsEnd(*pki.server(certificate, names), trust=self.sut_ca() if mutual else None, versions=versions,
                      extra=(pki.server(certificate, names, kind=EC),))

    def link_tls(self) -> TlsEnd | None:
        """The TLS of a connection the harness's station opens to the CSMS under test at the arena's security
        profile (None: plain ws)."""
        return self.harness_tls() if self.security_profile >= 2 else None

    def _standin_tls(self) -> TlsEnd:
        """The embedded stand-in's end, as a vendor sets a SUT up: certificates from the run's PKI, which
        it trusts (``reference_tls``)."""
        return reference_tls(self.profile, self.security_profile >= 3,
                             ("127.0.0.1", "localhost") if self.is_sut(CSMS) else ())

    def link_tls_version(self) -> str | None:
        """The TLS version of the connection the test plays on now ("TLSv1.2", "TLSv1.3"); None: plain ws."""
        return self.link.tls_version

    async def sut_tls_url(self) -> str:
        """Where the CSMS under test serves security profile 2 (wss) beside the test's connection, for a network
        profile to name (A05): the embedded stand-in opens that listener now, on a port of its own; a real CSMS's
        is [tls] sut_upgrade_url, else --sut-url over wss."""
        if self.embedded:
            server = self.standin.server
            end = TlsEnd(*self.pki().server(VALID, ("127.0.0.1", "localhost")))
            return f"wss://127.0.0.1:{await server.serve_tls_beside(self.standin.csms_tls(end), '127.0.0.1')}/ocpp"
        return self.profile.get("tls.sut_upgrade_url") or self.sut_url.replace("ws://", "wss://", 1)

    async def secure(self, security_profile: int) -> None:
        """The test plays security profile ``security_profile`` (2: TLS and Basic auth; 3: mutual TLS). A real
        SUT is set up for it by its vendor; the embedded stand-in is set up here (a CSMS restarts serving wss)."""
        self.security_profile = security_profile
        if self.is_sut(CSMS) and urlsplit(self.sut_url).scheme != "wss" and not self.embedded:
            raise ConfigError(f"security profile {security_profile} is TLS: --sut-url {self.sut_url} must be a "
                              f"wss:// URL")
        if not self.embedded:
            return
        if self.is_sut(CSMS):
            await self.standin.stop()
            self.standin = self._varied(type(self.standin)(self.profile, [self.version]))
            self.standin.use_tls(self._standin_tls(), security_profile)
            self.sut_url = (await self.standin.start()).url
            self.actuator = InProcessActuator(self.standin, self.options.variance)
        else:
            self.standin.use_tls(self._standin_tls(), security_profile)

class OcppArena(Arena, TlsVerbs):
    roles = OCPP_ROLES

    def __init__(self, target: Target, profile: Profile, wirelog: WireLog, options: ArenaOptions):
        super().__init__(target, profile, wirelog, options)
        self.version = OcppVersion.parse(target.protocol)
        self.harness: CsmsBase | StationBase | None = None
        self.standin: CsmsBase | StationBase | None = None
        self.links: list[OcppConnection] = []   # every connection that was the link in this test, in turn
        self.sut_url: str | None = options.sut_url
        # the security profile the test plays: a real SUT's from the profile; the embedded stand-ins' 1 until
        # a TLS test asks for another (``secure``)
        self.security_profile: int = 1 if options.embedded else profile.security_profile
        self.cache_filled = False   # the harness's CSMS answered a station under test about a token (``tidy``)

    @property
    def embedded(self) -> bool:
        return self.options.embedded

    @property
    def link(self) -> OcppConnection | None:
        """The connection between the SUT and the harness's side the test plays on now."""
        return self.links[-1] if self.links else None

    @link.setter
    def link(self, connection: OcppConnection | None) -> None:
        if connection is not None and connection is not self.link:
            self.links.append(connection)

    def link_number(self) -> int:
        """Which link the test plays on now (0: the first; a reconnection takes the next number), for
        ``sent(on=...)``: what was sent on a link the test has since left."""
        return len(self.links) - 1

    @property
    def references(self) -> tuple[type, type]:
        """The reference (CSMS, station) classes that speak the arena's version."""
        return references_for(self.version)

    @property
    def sut_reference(self) -> type:
        return self.references[OCPP_ROLES.index(self.sut_role)]

    @property
    def harness_station(self) -> HarnessStationSide:
        """The harness's station, when the SUT is a CSMS (``harness.arena.ocpp_sides``)."""
        return self._side(HarnessStationSide, "harness_station", CSMS)

    @property
    def harness_csms(self) -> HarnessCsmsSide:
        """The harness's CSMS, when the SUT is a station (``harness.arena.ocpp_sides``)."""
        return self._side(HarnessCsmsSide, "harness_csms", CS)

    # ------------------------------------------------------------------ setting up
    def _varied(self, standin):
        """The embedded stand-in, taking the run's legal variance if it has one."""
        if self.options.variance is not None:
            standin.vary(self.options.variance)
        return standin

    async def open(self, *, connect: bool = True) -> "OcppArena":
        self.undo("end the transactions the test left running", self._end_transactions)
        if self.sut_role == CSMS:
            await self._open_csms_under_test(connect)
        else:
            await self._open_station_under_test(connect)
        return self

    async def _open_csms_under_test(self, connect: bool) -> None:
        if self.sut_url is None:
            cls = self.options.embedded_cls or self.references[0]
            self.standin = await self._varied(cls(self.profile, [self.version])).start()
            self.sut_url = self.standin.url
            self.actuator = self.actuator or InProcessActuator(self.standin, self.options.variance)
        self.harness = self.references[1](self.profile, self.version, wirelog=self.wirelog)
        if self.security_profile >= 2:   # a real CSMS set up for TLS: every test over wss
            self.harness.use_tls(self.harness_tls(), self.security_profile)
        if connect:
            await self.harness_station.connect()

    async def _open_station_under_test(self, connect: bool) -> None:
        host, port = self.options.listen
        self.harness = self.harness_csms_serving()
        if self.security_profile >= 2:   # a real station set up for TLS: every test over wss
            self.harness.use_tls(self.harness_tls(), self.security_profile)
        await self.harness.start(host, port)
        if self.embedded:
            cls = self.options.embedded_cls or self.references[1]
            self.standin = self._varied(cls(self.profile, self.version))
            self.actuator = InProcessActuator(self.standin, self.options.variance)
        if connect:
            await self.harness_csms.await_station()
            await self.harness_csms.wait_booted()

    def harness_csms_serving(self) -> CsmsBase:
        """A new harness's CSMS to face a station under test; it notes what the station starts
        (``CsmsBase.note_transactions``)."""
        csms = self.references[0](self.profile, [self.version], wirelog=self.wirelog)
        csms.note_transactions(self.harness.open_transactions() if isinstance(self.harness, CsmsBase) else ())
        csms.server.on_answered.append(self._noted_answer)
        return csms

    def _noted_answer(self, exchange: Exchange) -> None:
        """An answer about a token (idTokenInfo, 1.6 idTagInfo) goes into the station's authorization cache."""
        if exchange.error is None and {"idTokenInfo", "idTagInfo"} & set(exchange.result or ()):
            self.cache_filled = True

    async def exchange(self, initiator: str, action: str, payload: dict[str, Any] | None = None, *,
                       trigger: Trigger | None = None, rule: Rule | None = None,
                       timeout: float | None = None, asked: Callable[[dict], bool] | None = None) -> Exchange:
        """One request/answer of ``action`` started by ``initiator`` (``"cs"`` or ``"csms"``): the harness
        sends ``payload`` itself, or the actuator performs ``trigger`` and the SUT's CALL is awaited
        (its silence breaks ``rule``). ``asked``: the check the test makes of the SUT's request, so that a
        CALL of the same action the SUT sends on its own meanwhile is passed over (see ``expect``'s ``prefer``)."""
        async def send() -> Exchange:
            if payload is None:
                raise HarnessError(f"the harness sends {action}: give its payload")
            return await self.call_sut(action, payload)

        return await self.initiated(initiator, action, send=send, trigger=trigger, await_sut=lambda start: self.expect(
            action, sender=initiator, after=start, rule=rule, timeout=timeout, prefer=asked,
            why=f"after the actuator action {trigger[0]}"))

    async def call_sut(self, action: str, payload: dict[str, Any], *, validate: bool | None = None) -> Exchange:
        """A CALL of the harness on the link, answered (``validate=False``: sent as is, a payload the schema
        refuses on purpose). What it changes at a station under test is undone when the test ends, as the
        harness's block that sends ``action`` declares (``undo_<Action>``)."""
        undo = await self.harness.undo_at_sut(action, payload, self.link) if self.is_sut(CS) else None
        exchange = await self.link.call_exchange(action, payload, validate=validate)
        if undo is not None and exchange.error is None and undo.took(exchange.result):
            self.undo(undo.what, lambda: undo.step(self.link))
        return exchange

    async def _end_transactions(self) -> None:
        """No transaction the test started stays open at the SUT: the harness's own station ends its own
        (the CSMS under test then closes them); a station under test is asked, on its current link, to stop
        each transaction it started in this test and did not end (``CsmsBase.open_transactions``: on any of its
        connections, before an outage or a reboot too)."""
        if not self.is_sut(CS):
            await self.harness.end_transactions()
            await self.harness_station.drained(CLEANUP_TIMEOUT)
            return
        await self.harness.stop_open_transactions(self.link, CLEANUP_TIMEOUT)

    async def tidy(self) -> None:
        """Undo what the test changed, on the station under test's current link: an outage the test left is
        ended first, and after an outage or a reboot the connection the station opened last is used (awaited
        for the connect timeout when none is open and something is left to undo)."""
        if self.is_sut(CS) and self.harness is not None:
            self.harness.restore()
            # more than the step that ends the transactions, or a transaction to end
            left = len(self._undo) > 1 or self.harness.open_transactions() or self.cache_filled
            if self.link is not None and self.link.closed and left:
                self.link = await self._following(self.link, self.timeouts.connect) or self.link
        await super().tidy()
        if self.is_sut(CS) and self.cache_filled and self.link is not None:
            await self._cache_emptied()

    async def _cache_emptied(self) -> None:
        """The tokens the harness's answers put in a station under test's authorization cache (C10; 1.6 the
        Authorization Cache) go last, after the transactions' ends: a cached Accepted token would start the next
        test's (or the next run's) transaction without the AuthorizeRequest it waits for (LocalPreAuthorize).
        ClearCache empties all of it; a station whose cache is off answers Rejected, which changes nothing."""
        try:
            await asyncio.wait_for(self.link.call("ClearCache", {}), CLEANUP_TIMEOUT)
        except Exception as error:   # cleanup never changes the verdict
            self.wirelog.event(f"cleanup {self.sut_role}", f"could not empty the authorization cache: {error!r}")

    async def expect(self, action: str, *, sender: str, after: int, rule: Rule | None = None,
                     timeout: float | None = None, where=None, prefer=None, why: str = "") -> Exchange | None:
        """The answered ``action`` CALL that ``sender`` (``"cs"`` or ``"csms"``) sent from ``after`` on.

        The direction is read off the wire log: only a CALL the sender put on the link counts (a station
        under test that reboots is followed onto its new connection, see ``_watch``). When
        the SUT is the sender its silence breaks ``rule`` (None comes back only when that row is a
        SHOULD); when the harness is, its silence is a harness bug and no rule is needed.
        ``prefer``: what the test will require of the request. A SUT may send CALLs of the same action on its own
        (a CSMS reads a setting when it likes): the first whose request ``prefer`` accepts is the one, else, once the
        wait is over, the first sent, for the test to judge.
        """
        from_sut = self.is_sut(sender)
        if from_sut and rule is None:
            raise HarnessError(f"expect({action!r}) from the SUT: name the rule its silence breaks")
        wait = timeout or self.timeouts.action
        deadline = clock.now() + wait
        hung_up: list[tuple[str, str]] = []

        def matches(e: Exchange) -> bool:
            return e.action == action and e.incoming == from_sut and (where is None or where(e.request))

        watched = self.link
        exchange = await self._watch(matches, wait, after, hung_up=hung_up)
        if exchange is not None and prefer is not None and not prefer(exchange.request):
            preferred = await self._watch(lambda e: matches(e) and prefer(e.request), max(0.0, deadline - clock.now()),
                                          after if self.link is watched else 0)
            exchange = preferred or exchange
        if exchange is None and not from_sut:
            exchange = await self._behind_our_calls(matches, after)
        if exchange is None:
            if not from_sut:
                if await self.link.wait_for(matches, 0, start=after, answered=False) is not None:
                    violated(Rpc.answered, f"the SUT did not answer the harness's {action} within the call timeout "
                             f"({self.link.endpoint.call_timeout:g} s)", expected="a CALLRESULT or CALLERROR",
                             actual="no answer")
                raise HarnessError(f"the harness's own side did not send {action} within {wait:g} s")
            ended = self.link.ended or (hung_up[0] if hung_up else None)
            if ended is not None and not self.link.closed:   # it opened another connection and stayed silent there
                why = f"{why} (nor on the connection it opened next, within {wait:g} s)".strip()
            self.silent(rule, action, wait, why, ended=ended, refused=self._refused(action))
        return exchange

    def _refused(self, action: str) -> str | None:
        """Why the SUT's ``action`` CALL on this link was refused for its schema (the rpc.schema violation the
        link recorded), when it sent one: its silence is then not what happened."""
        prefix = f"{action} request breaks its schema"
        return next((f"[{v.rule.id}] {v.args[0]}" for v in reversed(self.link.violations)
                     if str(v.args[0]).startswith(prefix)), None)

    async def expect_none(self, action: str, *, after: int, rule: Rule, within: float | None = None,
                          where=None) -> None:
        """The SUT must NOT send ``action`` while we watch for ``within`` seconds."""
        wait = within or self.timeouts.quiet
        exchange = await self._watch(
            lambda e: e.incoming and e.action == action and (where is None or where(e.request)), wait, after,
            answered=False)
        if exchange is not None:
            self.unwanted(rule, action, exchange.request)

    async def _behind_our_calls(self, predicate, after: int) -> Exchange | None:
        """A CALL of the harness's own side that may still wait behind its earlier CALLs: one at a time, each
        answered by the SUT within the call timeout, as it may (never later: an unanswered one times out).
        Waited for while the harness's queue moves, at most ``QUEUE_PATIENCE`` call timeouts."""
        endpoint = self.link.endpoint
        for _ in range(QUEUE_PATIENCE):
            if endpoint.in_flight is None and not endpoint.queued:
                return None
            found = await self.link.wait_for(predicate, endpoint.call_timeout, start=after)
            if found is not None:
                return found
        return None

    async def _watch(self, predicate, wait: float, after: int, *, answered: bool = True,
                     hung_up: list | None = None) -> Exchange | None:
        """The first exchange on the link from ``after`` on that matches ``predicate``, within ``wait`` seconds.
        A station under test that closes the link (it reboots, it drops the connection) is followed onto the
        connection it opens next: that becomes the link, watched from its start for the time left; how the
        station ended the link it left goes into ``hung_up``."""
        deadline, start = clock.now() + wait, after
        while True:
            link = self.link
            found = await link.wait_for(predicate, max(0.0, deadline - clock.now()), start=start, answered=answered)
            if found is not None or not link.closed or not self.is_sut(CS):
                return found
            if hung_up is not None and link.ended is not None and link.ended[0] == "peer":
                hung_up.append(link.ended)
            following = await self._following(link, deadline - clock.now())
            if following is None:
                return None
            self.link, start = following, 0

    async def _following(self, closed: OcppConnection, timeout: float) -> OcppConnection | None:
        """The station under test's connection after ``closed``: the newest open one, else the next it opens
        within ``timeout`` seconds."""
        server = self.harness.server
        open_now = [c for c in server.connections if c is not closed and not c.closed]
        return open_now[-1] if open_now else await server.wait_connection(max(0.0, timeout),
                                                                           after=len(server.connections))

    def mark(self) -> int:
        """A point in the link's history, for ``expect(after=...)``."""
        return len(self.link.history)

    # ---- reading the link: what was sent, and bounded waits that blame no one
    # A test reads back what it already awaited (``sent``), or waits for a CALL whose absence it judges itself
    # (``next_call``: None after ``within`` seconds). Neither follows a station onto a new connection.
    def mark_after(self, exchange: Exchange) -> int:
        """The mark just after ``exchange`` on the link: what came after it."""
        return self.link.history.index(exchange) + 1

    def _sent_by(self, sender: str, action: str | None, where) -> Any:
        incoming = self.is_sut(sender)
        return lambda e: e.incoming == incoming and (action is None or e.action == action) and \
            (where is None or where(e.request))

    def sent(self, action: str | None = None, *, sender: str, after: int = 0, where=None,
             on: int | None = None) -> list[Exchange]:
        """The CALLs ``sender`` put on the link from ``after`` on (only ``action``'s, and those whose payload
        ``where`` accepts, when given), oldest first; on the link numbered ``on`` (``link_number``) when given."""
        link = self.link if on is None else self.links[on]
        return [e for e in link.history[after:] if self._sent_by(sender, action, where)(e)]

    async def next_call(self, action: str | None = None, *, sender: str, within: float, after: int = 0,
                        answered: bool = True, where=None) -> Exchange | None:
        """The first CALL ``sender`` puts on the link from ``after`` on (``action``'s only, when given), answered
        unless ``answered=False``; None after ``within`` seconds: the test judges its absence."""
        return await self.link.wait_for(self._sent_by(sender, action, where), within, start=after, answered=answered)

    async def send_raw(self, text: str, *, reply_id: str | None = None, timeout: float | None = None):
        """Any text sent as is on the link (a deliberately malformed frame): the reply frame to ``reply_id``,
        or None (none within ``timeout``, or the link closed)."""
        return await self.link.send_raw(text, reply_id=reply_id, timeout=timeout)

    async def link_closed(self, within: float) -> bool:
        """Whether the link closes within ``within`` seconds (a peer that must hang up)."""
        return await self.link.wait_closed(within)


    # ---- verbs for the harness's side (1.6 and shared)
    # What a test needs of the harness's own side beyond act() and configure(): its station connected
    # and booted by hand, an outage, its queue, and what it saw of the station's connections. Each
    # verb only does; the test judges what comes back.
    def connections(self) -> int:
        """How many connections the station has opened so far (the harness's station, or the station
        under test as the harness's CSMS accepted them): the mark ``reconnected`` counts from."""
        return len(self._station_links())

    def _station_links(self) -> list[OcppConnection]:
        return self.harness.links if self.is_sut(CSMS) else self.harness.server.connections

    async def reconnected(self, after: int, timeout: float | None = None) -> OcppConnection | None:
        """A connection the station opened after its first ``after`` (see ``connections``): it becomes
        the link. None when none opens within ``timeout`` seconds (default: the connect timeout). The harness's
        own station first sends what it queued on the link it leaves (a StopTransaction before a reset), each
        CALL answered by the CSMS under test within the call timeout, as it may: the wait starts once it did."""
        wait = self.timeouts.connect if timeout is None else timeout
        if self.is_sut(CSMS):
            links, endpoint = self.harness.links, self.link.endpoint
            deadline = clock.now() + wait
            patience = deadline + QUEUE_PATIENCE * endpoint.call_timeout
            while len(links) <= after and clock.now() < min(deadline, patience):
                if not self.link.closed and (endpoint.in_flight is not None or endpoint.queued):
                    deadline = clock.now() + wait   # still sending what it queued: its restart has not begun
                await asyncio.sleep(0.05)
            connection = links[-1] if len(links) > after else None
        else:
            connection = await self.harness.server.wait_connection(wait, after=after)
        if connection is not None:
            self.link = connection
        return connection

    async def cut(self) -> None:
        """An outage at the harness's end: the link closes, and until ``restore`` the harness's CSMS
        refuses the station's reconnection, or the harness's station does not reconnect."""
        if self.is_sut(CSMS):
            self.harness.configure(reconnects=False)
            await self.link.close()
        else:
            await self.harness.cut()

    async def restore(self) -> None:
        """The outage is over: the harness's station reconnects at once, without booting (the new
        connection becomes the link; a refusal breaks the test, see ``HarnessStationSide.connect``); the
        harness's CSMS accepts the station again, whose reconnection the test awaits with ``reconnected``."""
        if self.is_sut(CSMS):
            self.harness.configure(reconnects=True)
            await self.harness_station.connect(boot=False)
        else:
            self.harness.restore()

    def hold(self, action: str, where: Callable[[dict[str, Any]], bool] | None = None) -> None:
        """The harness's side leaves the SUT's ``action`` CALLs (those whose payload ``where`` picks) unanswered
        until the test answers them (``answer_held``): on the link, and on every connection the station under
        test opens from now on. The others are answered as usual: a station may send them before the one the
        test waits for, and one held without need would keep it from sending the next (one CALL at a time)."""
        if self.link is not None:
            self.link.held[action] = where
        if self.sut_role == CS:
            self.harness.server.hold[action] = where

    async def answer_held(self, exchange: Exchange, payload: dict[str, Any] | None = None, *,
                          error: CallErrorReply | None = None) -> None:
        """Answer a held CALL on the link: with ``payload`` or the CALLERROR ``error``, else as the harness's
        side would have answered it."""
        if payload is None and error is None:
            await self.link.release(exchange)
        else:
            self.link.answer(exchange, payload, error=error)
