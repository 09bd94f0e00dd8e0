"""The arena of an OCPP test: the SUT, the harness's side facing it, the link between them,
and the actuator that makes the SUT act.

A use case is written once against the arena and played from either side:
``exchange(initiator, action, ...)`` sends the CALL itself when the harness is the
initiator, and otherwise asks the actuator to make the SUT send it and waits for it on
the wire; either way it returns the same ``Exchange`` (request and answer) to verify.

What a test creates at the SUT is undone when it ends (``Arena.undo``): what the harness's CALLs changed at
a station under test and what the actuator did at the SUT, as the blocks that send those CALLs or offer
those actions declare (``undo_<Action>``, ``undone_by``), a 1.6 idTag left waiting for a cable, and every
transaction still running — the station under test's are stopped remotely (noted as they start, on
whichever connection: one an outage or a reboot closed counts the same), the harness's own
station ends its own, so that a CSMS under test keeps none open.
"""

from __future__ import annotations

import asyncio
import ssl
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from harness import clock
from harness.actuators import Actuator, InProcessActuator
from harness.arena.base import CLEANUP_TIMEOUT, Arena, Trigger
from harness.errors import ConfigError, HarnessError, Refused, clip
from harness.pki import VALID, HarnessPki, harness_pki
from harness.ocpp.versions import OcppVersion
from harness.profile import Profile
from harness.reference import references_for
from harness.reference.base import CsmsBase, StationBase
from harness.transport.tls import TLS12, TlsEnd, spoken
from harness.transport.ws import CallErrorReply, CallFailed, Exchange, Handshake, HandshakeSeen, OcppConnection
from harness.roles import CS, CSMS, OCPP_ROLES
from harness.rules import Rule, RuleTable, must
from harness.verdict import violated
from harness.variance import Variance
from harness.wire import WireLog

# The Reset that restarts a station at once: 1.6 ResetType Hard, 2.x ResetEnumType Immediate.
RESET_TYPE = {OcppVersion.V16: "Hard", OcppVersion.V201: "Immediate", OcppVersion.V21: "Immediate"}
# The CALL that stops a transaction at a station, by version
REMOTE_STOP = {OcppVersion.V16: "RemoteStopTransaction", OcppVersion.V201: "RequestStopTransaction",
               OcppVersion.V21: "RequestStopTransaction"}

# the actuator actions that plug a cable in at a station
PLUGS_IN = ("plug_in", "plug_in_hlc", "plug_in_pnc")
QUEUE_PATIENCE = 20   # call timeouts a harness's own CALL may wait behind its earlier ones (see _behind_our_calls)

class Restart(RuleTable, namespace="restart"):
    """What the arena relies on when it restarts a station under test that did not boot on connecting."""
    boots = must("spec 002 What the service does 4 and Messages Reset; spec 001 B11/B12 (Reset)",
                 "a station that accepted a Reset restarts, and a restarted station sends BootNotification", by=CS)


class Registration(RuleTable, namespace="registration"):
    """What a CSMS under test must answer the harness's station's boot, when the profile says so."""
    accepted = must("spec 002 Enumerations RegistrationStatus; OCPP 2.0.1 B01 (BootNotificationResponse)",
                    "a CSMS answers the boot of the station the profile declares registered ([station] registered "
                    "= true) Accepted", by=CSMS)


class Started:
    """What a station under test started in this test and has not ended, noted as the harness answers it on
    whichever connection (one that closed since, by an outage or a reboot, counts the same): the transactions,
    oldest first."""

    def __init__(self) -> None:
        self._transactions: dict[Any, None] = {}

    def note(self, exchange: Exchange) -> None:
        """One CALL of the station, answered by the harness (``OcppServer.on_answered``; a CALL the harness
        refused as malformed changes nothing)."""
        if exchange.error is not None:
            return
        payload, action = exchange.request, exchange.action
        if action == "StartTransaction":
            self._transactions[(exchange.result or {}).get("transactionId")] = None
        elif action == "StopTransaction":
            self._transactions.pop(payload.get("transactionId"), None)
        elif action == "TransactionEvent":
            transaction_id = payload.get("transactionInfo", {}).get("transactionId")
            if payload.get("eventType") == "Ended":
                self._transactions.pop(transaction_id, None)
            else:
                self._transactions[transaction_id] = None

    def transactions(self) -> list:
        return [t for t in self._transactions if t is not None]


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
                    versions: tuple[ssl.TLSVersion, ssl.TLSVersion | None] = (TLS12, None)) -> TlsEnd:
        """The harness's own end at the arena's security profile: its station verifies the CSMS under test
        and presents the client certificate ``certificate`` in profile 3 (None: none); its CSMS serves the
        server certificate ``certificate`` and in profile 3 requires a client certificate from the SUT's
        authority. ``certificate`` is ``VALID`` or one of ``pki.BROKEN``."""
        pki, mutual = self.pki(), self.security_profile >= 3
        if self.is_sut(CSMS):
            own = pki.client(certificate, self.profile.serial_number, self.profile.get("tls.operator")) \
                if mutual and certificate is not None else (None, None)
            return TlsEnd(*own, trust=self.sut_ca(), versions=versions)
        return TlsEnd(*pki.server(certificate, self.server_names()), trust=self.sut_ca() if mutual else None,
                      versions=versions)

    def link_tls(self) -> TlsEnd | None:
        """The TLS of a connection the harness's station opens to the CSMS under test at the arena's security
        profile (None: plain ws)."""
        return self.harness_tls() if self.security_profile >= 2 else None

    def _standin_tls(self) -> TlsEnd:
        """The embedded stand-in's end, as a vendor sets a SUT up: certificates from the run's PKI, which
        it trusts."""
        pki, mutual = self.pki(), self.security_profile >= 3
        if self.is_sut(CSMS):
            return TlsEnd(*pki.server(VALID, ("127.0.0.1", "localhost")), trust=pki.root_path if mutual else None)
        own = (None, None)
        if mutual:
            own = pki.client(VALID, self.profile.serial_number, self.profile.get("tls.operator"))
        return TlsEnd(*own, trust=pki.root_path)

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

    async def station_over_tls(self, *, certificate: str | None = VALID,
                               versions: tuple[ssl.TLSVersion, ssl.TLSVersion | None] = (TLS12, None),
                               boot: bool = False) -> Handshake:
        """SUT = CSMS: the harness's station opens a connection to the CSMS under test over wss at the
        arena's security profile (``harness_tls``; Basic auth in profile 2), booting when ``boot``. Returns
        the handshake (``tls_refused``: the TLS handshake failed, and why); an upgraded one is the link."""
        self.harness.use_tls(self.harness_tls(certificate=certificate, versions=versions), self.security_profile)
        return await self.connect_station(boot=boot)

    async def serve_station(self, *, certificate: str = VALID,
                            versions: tuple[ssl.TLSVersion, ssl.TLSVersion | None] = (TLS12, None),
                            ) -> OcppConnection | None:
        """SUT = station: the harness's CSMS serves wss anew where it listens (``harness_tls``), and the station
        connects (the stand-in at once; a real station when it retries). Returns the connection, which
        becomes the link, or None when none opens within the connect timeout (``tls_refusals`` says why
        the harness refused a handshake)."""
        await self.harness.stop()
        self.harness = self._harness_csms()
        self.harness.use_tls(self.harness_tls(certificate=certificate, versions=versions), self.security_profile)
        await self.harness.start(*self.options.listen)
        served = certificate.replace("_", " ")
        self.wirelog.event("tls", f"the harness's CSMS serves {self.harness.url} with a {served} certificate, "
                                  f"{spoken(versions)}")
        if self.standin is not None:
            self.standin.background.spawn(self.standin.connect(self.harness.url))
        connection = await self.harness.server.wait_connection(self.timeouts.connect)
        if connection is not None:
            self.link = connection
            await self.wait_station_booted()
        return connection

    def tls_refusals(self) -> list[str]:
        """Why the TLS handshakes the harness's CSMS refused failed (OpenSSL's reasons), oldest first."""
        return self.harness.server.tls_refusals()

    def tls_completed(self) -> int:
        """How many TLS handshakes the station completed with the harness's CSMS since it last served anew."""
        return self.harness.server.tls_completed()


class OcppArena(Arena, TlsVerbs):
    roles = OCPP_ROLES

    def __init__(self, target: Target, profile: Profile, wirelog: WireLog, options: ArenaOptions):
        super().__init__(target, profile, wirelog, options)
        self.version = OcppVersion.parse(target.protocol)
        self.harness: CsmsBase | StationBase | None = None
        self.standin: CsmsBase | StationBase | None = None
        self.links: list[OcppConnection] = []   # every connection that was the link in this test, in turn
        self.sut_url: str | None = options.sut_url
        self.started = Started()          # a station under test's transactions, whatever connection they began on
        self._plugged: set[int] = set()   # the 1.6 connectors the test plugged a cable in at the SUT
        # the security profile the test plays: a real SUT's from the profile; the embedded stand-ins' 1 until
        # a TLS test asks for another (``secure``)
        self.security_profile: int = 1 if options.embedded else profile.security_profile

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
            await self.connect_harness_station()

    async def connect_harness_station(self, *, boot: bool = True) -> None:
        """The harness's station connects to the CSMS under test for a test's setup, and boots unless
        ``boot`` is False. A refused handshake there is the profile's to fix, never the SUT's fault: the
        test is broken with the fix (the transport tests judge the handshake itself, with ``connect_station``)."""
        try:
            handshake = await self.harness.connect(self.sut_url, boot=boot)
        except CallFailed as refused:   # no answer the boot can go on with: the test's prerequisite fails
            raise HarnessError(f"prerequisite failed: the CSMS under test answered the boot of station "
                               f"{self.profile.identity} with CALLERROR {refused.error.code} "
                               f"({clip(refused.error.description, 200)!r})") from None
        if handshake.status is not None:
            raise Refused(f"prerequisite failed: {self._refusal(handshake)}")
        if handshake.subprotocol is None:
            raise HarnessError(f"prerequisite failed: {self._refusal(handshake)}")
        self.link = self.harness.connection
        if boot:
            self.boot_answered((self.harness.boot_response or {}).get("status"))

    def boot_answered(self, status: str | None) -> None:
        """The CSMS under test answered the harness's station's BootNotification ``status``; the test goes on
        when it is Accepted. Pending and Rejected are the CSMS's right (RegistrationStatus): unless the profile
        declares the station registered (then ``Registration.accepted`` is broken), the test cannot go on and
        is broken, with the reason and the fix."""
        if status == "Accepted":
            return
        if self.profile.registered:
            violated(Registration.accepted, f"the CSMS answered the boot of station {self.profile.identity} "
                     f"{status!r}", expected="Accepted", actual=status)
        raise HarnessError(f"the CSMS under test answered the boot of station {self.profile.identity} {status!r}, "
                           f"which it may; the test needs the station Accepted: register the station at the CSMS, "
                           f"and set [station] registered = true in the profile to have a refusal judged")

    def _refusal(self, handshake: Handshake) -> str:
        """Why the CSMS under test refused the harness's station, as the profile setting to check."""
        identity, url = self.profile.identity, self.sut_url
        key = "authorization_key" if self.version is OcppVersion.V16 else "password"
        if handshake.tls_refused is not None:
            return (f"the TLS handshake with the CSMS at {url} failed ({handshake.tls_refused}); check that [tls] "
                    f"sut_ca is the authority of its certificate, issued for the URL's host, and in security "
                    f"profile 3 that the CSMS trusts the harness's root {self.pki().root_path}")
        if handshake.status in (401, 403):
            if not self.harness.password:
                return (f"the CSMS asks station {identity} for a password (HTTP {handshake.status}) and the "
                        f"profile gives none; add [station] {key} to the profile")
            rotated = " (the key a rotation earlier in this run set)" if identity in self.profile.rotated_key else ""
            return (f"the CSMS refused the password from [station] {identity}{rotated} (HTTP {handshake.status}); "
                    f"check [station] {key} in the profile")
        if handshake.status == 404:
            return (f"the CSMS does not know station {identity} at {url} (HTTP 404); check [station] identity in "
                    f"the profile, that the CSMS has this station registered, and the path of --sut-url")
        if handshake.status is not None:
            return (f"the CSMS refused the handshake of station {identity} with HTTP {handshake.status}; "
                    f"check --sut-url {url} and [station] in the profile")
        return (f"the CSMS at {url} upgraded without agreeing on the subprotocol {self.version.subprotocol}: it "
                f"does not serve {self.version.value} there; check --protocol and --sut-url")

    async def _open_station_under_test(self, connect: bool) -> None:
        host, port = self.options.listen
        self.harness = self._harness_csms()
        if self.security_profile >= 2:   # a real station set up for TLS: every test over wss
            self.harness.use_tls(self.harness_tls(), self.security_profile)
        await self.harness.start(host, port)
        if self.embedded:
            cls = self.options.embedded_cls or self.references[1]
            self.standin = self._varied(cls(self.profile, self.version))
            self.actuator = InProcessActuator(self.standin, self.options.variance)
        if connect:
            await self.connect_station_under_test()
            await self.wait_station_booted()

    def _harness_csms(self) -> CsmsBase:
        """The harness's CSMS facing a station under test; what the station starts is noted in ``started``."""
        csms = self.references[0](self.profile, [self.version], wirelog=self.wirelog)
        csms.server.on_answered.append(self.started.note)
        return csms

    async def connect_station_under_test(self) -> None:
        server = self.harness.server
        after, refusals_before, handshakes_before = len(server.connections), len(server.refused), len(server.handshakes)
        if self.standin is not None:  # a station connects (and boots) on its own
            self.standin.background.spawn(self.standin.connect(self.harness.url))
        connection = await server.wait_connection(self.timeouts.connect, after=after)
        if connection is None:
            refusals = server.refused[refusals_before:]
            if refusals:
                raise Refused(f"prerequisite failed: {self._station_refused(refusals, server.handshakes[handshakes_before:])}",
                              len(refusals))
            raise HarnessError(f"prerequisite failed: no station connected to {self.harness.url} "
                               f"within {self.timeouts.connect:g} s; point the station under test at it")
        self.link = connection

    def _station_refused(self, refusals: list[tuple[str, int]], seen: list[HandshakeSeen]) -> str:
        """Why the harness's CSMS refused the station under test's upgrades, as the setting to fix."""
        identity, status = refusals[-1]
        times = f"{len(refusals)} time{'s' if len(refusals) > 1 else ''} within {self.timeouts.connect:g} s"
        expected = self.profile.identity
        if status == 404:
            return (f"the harness refused station {identity!r} {times} (HTTP 404): the profile's station is "
                    f"{expected!r}; fix [station] identity in the profile, or the identity the station connects with")
        key = "authorization_key" if self.version is OcppVersion.V16 else "password"
        last = next((h for h in reversed(seen) if h.identity == identity), None)
        if last is None or last.username is None:
            why = "it sent no Basic-auth credentials"
        elif last.username != identity:
            why = f"its Basic-auth username {last.username!r} is not its identity"
        else:
            why = f"its Basic-auth password is not the profile's [station] {key}"
        return (f"the harness refused station {identity} {times} (HTTP {status}): {why}; give the station and "
                f"[station] {key} in the profile the same {'AuthorizationKey' if key == 'authorization_key' else 'password'}")

    async def wait_station_booted(self) -> None:
        """A station that boots on connecting is answered before the test talks to it; one that
        reconnects without booting (allowed) is given ``quiet`` seconds to show it."""
        held = "BootNotification" in self.link.held
        boot = await self.link.wait_for_call("BootNotification", self.timeouts.quiet, answered=not held)
        if boot is not None and not held and boot.error is not None:
            raise HarnessError(f"prerequisite failed: the harness refused the station's boot: {boot.error}")

    async def station_boot(self, *, answered: bool = True) -> Exchange:
        """The station under test's BootNotification in this test. A station that reconnects without
        booting (it need not: 1.6 behaviour rule 4) is restarted with a Hard/Immediate Reset, and its
        boot is awaited on the connection it opens after restarting; ``answered=False`` returns it
        before the harness answers (for a held boot)."""
        boot = await self.link.wait_for_call("BootNotification", self.timeouts.quiet, answered=answered)
        if boot is not None:
            return boot
        before, mark = len(self.harness.server.connections), self.mark()
        reset = await self.link.call_exchange("Reset", {"type": RESET_TYPE[self.version]})
        if reset.error is not None or (reset.result or {}).get("status") != "Accepted":
            raise HarnessError(f"prerequisite failed: the station did not boot when it connected, and the harness "
                               f"could not restart it: Reset answered {reset.error or reset.result}; restart the "
                               f"station before this test")
        boot = await self.restarted(before, mark, answered=answered)
        if boot is None:
            self.silent(Restart.boots, "BootNotification", self.timeouts.connect, "of the accepted Reset")
        return boot

    async def restarted(self, connections: int, mark: int, *, answered: bool = True) -> Exchange | None:
        """The BootNotification of the station under test after a restart: on the connection it opens
        after the harness's first ``connections`` (it becomes the link), else on the current link after
        ``mark``; None when none comes within ``connect`` seconds."""
        connection = await self.harness.server.wait_connection(self.timeouts.connect, after=connections)
        if connection is not None:
            self.link, mark = connection, 0
        return await self.link.wait_for_call("BootNotification", self.timeouts.connect, answered=answered,
                                             start=mark)

    # ------------------------------------------------------------------ playing
    async def exchange(self, initiator: str, action: str, payload: dict[str, Any] | None = None, *,
                       trigger: Trigger | None = None, rule: Rule | None = None,
                       timeout: float | None = None) -> Exchange:
        """One request/answer of ``action`` started by ``initiator`` (``"cs"`` or ``"csms"``): the harness
        sends ``payload`` itself, or the actuator performs ``trigger`` and the SUT's CALL is awaited
        (its silence breaks ``rule``)."""
        async def send() -> Exchange:
            if payload is None:
                raise HarnessError(f"the harness sends {action}: give its payload")
            return await self.call_sut(action, payload)

        return await self.initiated(initiator, action, send=send, trigger=trigger, await_sut=lambda start: self.expect(
            action, sender=initiator, after=start, rule=rule, timeout=timeout,
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
        each transaction it started in this test and did not end (``started``: on any of its connections,
        before an outage or a reboot too)."""
        if not self.is_sut(CS):
            await self.harness.end_transactions()
            await self.drained(CLEANUP_TIMEOUT)
            return
        for transaction_id in self.started.transactions():
            mark = self.mark()
            stop = await self.link.call_exchange(REMOTE_STOP[self.version], {"transactionId": transaction_id})
            if stop.error is None and stop.result.get("status") == "Accepted":
                await self.link.wait_for(lambda e: e.incoming and _ends(e) == transaction_id,  # noqa: B023 (awaited here)
                                         CLEANUP_TIMEOUT,
                                         start=mark)

    async def tidy(self) -> None:
        """Undo what the test changed, on the station under test's current link: an outage the test left is
        ended first, and after an outage or a reboot the connection the station opened last is used (awaited
        for the connect timeout when none is open and something is left to undo)."""
        if self.is_sut(CS) and self.harness is not None:
            self.harness.restore()
            # more than the step that ends the transactions, or a transaction to end
            left = len(self._undo) > 1 or self.started.transactions()
            if self.link is not None and self.link.closed and left:
                self.link = await self._following(self.link, self.timeouts.connect) or self.link
        await super().tidy()

    # ---- an authorization left waiting for a cable
    async def act(self, role: str, action: str, **body: Any) -> Any:
        result = await super().act(role, action, **body)
        if self.is_sut(role) and role == CS and self.version is OcppVersion.V16:
            self._authorization_left(action, body.get("connector_id") or 1)
        return result

    def _authorization_left(self, action: str, connector_id: int) -> None:
        """A 1.6 idTag presented at a connector without a cable is authorized and waits there for one (spec 002
        ChargePointStatus Preparing: tag presented, no transaction yet) until the station's configuration key
        ConnectionTimeOut (OCPP 1.6, not shown in spec 002) ends it, so the next test's cable would start a
        transaction on it: its undoing is registered, and dropped when the test plugs a cable in there itself."""
        pending = f"use up the authorization waiting at connector {connector_id}"
        if action in PLUGS_IN:
            self._plugged.add(connector_id)
            self._undone(pending)
        elif action == "unplug":
            self._plugged.discard(connector_id)
        elif action == "present_id_tag" and connector_id not in self._plugged:
            self.undo(pending, lambda: self._use_up_authorization(connector_id))

    async def _use_up_authorization(self, connector_id: int) -> None:
        """A cable plugged in and out again: the authorization waiting at ``connector_id`` starts its
        transaction and unplugging ends it (a station that keeps it running has it stopped remotely, see
        ``_end_transactions``); a station that no longer holds one goes from Preparing to Available. Waiting
        out ConnectionTimeOut instead would take as long as the station is configured to wait."""
        body = {"connector_id": connector_id}
        mark = self.mark()
        await self.actuator.perform("plug_in", body)
        await self.link.wait_for_call("StartTransaction", self.timeouts.quiet, start=mark,
                                      where=lambda p: p.get("connectorId") == connector_id)
        await self.actuator.perform("unplug", body)

    async def expect(self, action: str, *, sender: str, after: int, rule: Rule | None = None,
                     timeout: float | None = None, where=None, why: str = "") -> Exchange | None:
        """The answered ``action`` CALL that ``sender`` (``"cs"`` or ``"csms"``) sent from ``after`` on.

        The direction is read off the wire log: only a CALL the sender put on the link counts (a station
        under test that reboots is followed onto its new connection, see ``_watch``). When
        the SUT is the sender its silence breaks ``rule`` (None comes back only when that row is a
        SHOULD); when the harness is, its silence is a harness bug and no rule is needed.
        """
        from_sut = self.is_sut(sender)
        if from_sut and rule is None:
            raise HarnessError(f"expect({action!r}) from the SUT: name the rule its silence breaks")
        wait = timeout or self.timeouts.action
        hung_up: list[tuple[str, str]] = []

        def matches(e: Exchange) -> bool:
            return e.action == action and e.incoming == from_sut and (where is None or where(e.request))

        exchange = await self._watch(matches, wait, after, hung_up=hung_up)
        if exchange is None and not from_sut:
            exchange = await self._behind_our_calls(matches, after)
        if exchange is None:
            if not from_sut:
                raise HarnessError(f"the harness's own side did not send {action} within {wait:g} s")
            ended = self.link.ended or (hung_up[0] if hung_up else None)
            if ended is not None and not self.link.closed:   # it opened another connection and stayed silent there
                why = f"{why} (nor on the connection it opened next, within {wait:g} s)".strip()
            self.silent(rule, action, wait, why, ended=ended)
        return exchange

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
    async def connect_station(self, *, boot: bool) -> Handshake:
        """The harness's station opens a new connection to the CSMS under test (with its current
        password), booting on it only when ``boot``; an upgraded connection becomes the link. Returns
        the handshake for the test to judge."""
        handshake = await self.harness.connect(self.sut_url, boot=boot)
        if handshake.connection is not None:
            self.link = handshake.connection
        return handshake

    async def send_boot(self) -> dict:
        """The harness's station sends one BootNotification on the link and returns the answer of the
        CSMS under test (a 1.6 interval read under either name); it reports no connector after it."""
        return await self.harness.boot_once()

    async def report_status(self, connector_id: int, status: str) -> Exchange:
        """The harness's 1.6 charge point reports ``status`` of ``connector_id`` (0: the main
        controller) in a StatusNotification of its own making; returns the exchange."""
        return await self.link.call_exchange("StatusNotification", self.harness.connector_status(connector_id, status))

    async def set_configuration_key(self, key: str, value: str) -> str:
        """A 1.6 charge point's configuration key for this test: sent in ChangeConfiguration to a
        charge point under test, whose ConfigurationStatus is returned; set directly in the harness's
        own charge point ("Accepted")."""
        if self.is_sut(CS):
            answer = await self.call_sut("ChangeConfiguration", {"key": key, "value": value})
            if answer.error is not None:
                raise CallFailed(answer.call, answer.error)
            return answer.result["status"]
        self.harness.config.set(key, value)
        return "Accepted"

    async def set_variable(self, component: str, variable: str, value: str) -> str:
        """A 2.x station's device-model variable (its Actual attribute) for this test: sent in SetVariables
        to a station under test, whose attributeStatus is returned and whose old value (read with
        GetVariables) is set again when the test ends; set directly in the harness's own station
        ("Accepted")."""
        if not self.is_sut(CS):
            self.harness.variables[(component, variable)] = value
            return "Accepted"

        answer = await self.call_sut("SetVariables", {"setVariableData": [
            {"component": {"name": component}, "variable": {"name": variable}, "attributeValue": value}]})
        if answer.error is not None:
            raise CallFailed(answer.call, answer.error)
        status = answer.result["setVariableResult"][0]["attributeStatus"]
        return status

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

    def handshakes(self) -> list[HandshakeSeen]:
        """The upgrade requests the harness's CSMS has seen (identity, subprotocols offered, whether the
        Basic password was right), oldest first."""
        return list(self.harness.server.handshakes)

    def refused(self) -> list[tuple[str, int]]:
        """The upgrades the harness's CSMS refused, (identity, HTTP status), oldest first."""
        return list(self.harness.server.refused)

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
        connection becomes the link; a refusal breaks the test, see ``connect_harness_station``); the
        harness's CSMS accepts the station again, whose reconnection the test awaits with ``reconnected``."""
        if self.is_sut(CSMS):
            self.harness.configure(reconnects=True)
            await self.connect_harness_station(boot=False)
        else:
            self.harness.restore()

    async def drained(self, timeout: float | None = None) -> None:
        """Returns once the harness's side has delivered (or dropped) every message it queued, is
        offline, or ``timeout`` seconds (default: the action timeout) passed; a side without a queue
        returns at once."""
        drained = getattr(self.harness, "drained", None)
        if drained is not None:
            await drained(self.timeouts.action if timeout is None else timeout)

    def transaction_at(self, connector_id: int) -> int | None:
        """The transactionId of the transaction the harness's 1.6 charge point runs at ``connector_id``;
        None when none runs there (or its StartTransaction is not answered yet)."""
        running = self.harness.connectors[connector_id].transaction
        return None if running is None else running.id

    # ---- verbs for transport tests
    async def boot_harness_station(self) -> Exchange:
        """The harness's station sends its own BootNotification on the link: the exchange, with its answer."""
        return await self.link.call_exchange("BootNotification", self.harness.boot_payload())

    def hold(self, action: str) -> None:
        """The harness's side leaves the SUT's ``action`` CALLs unanswered until the test answers them
        (``answer_held``): on the link, and on every connection the station under test opens from now on."""
        if self.link is not None:
            self.link.held.add(action)
        if self.sut_role == CS:
            self.harness.server.hold.add(action)

    async def answer_held(self, exchange: Exchange, payload: dict[str, Any] | None = None, *,
                          error: CallErrorReply | None = None) -> None:
        """Answer a held CALL on the link: with ``payload`` or the CALLERROR ``error``, else as the harness's
        side would have answered it."""
        if payload is None and error is None:
            await self.link.release(exchange)
        else:
            self.link.answer(exchange, payload, error=error)


def _ends(exchange: Exchange):
    """The transaction ``exchange`` (a station's CALL) ends, if it ends one."""
    if exchange.action == "StopTransaction":
        return exchange.request["transactionId"]
    if exchange.action == "TransactionEvent" and exchange.request["eventType"] == "Ended":
        return exchange.request["transactionInfo"]["transactionId"]
    return None

