"""The harness's side of an OCPP test, typed by the role it plays: ``HarnessStationSide`` when the SUT is a
CSMS, ``HarnessCsmsSide`` when it is a station.

The arena (``harness.arena.ocpp.OcppArena``) holds what a test does the same way from either side: one
dialogue (``exchange``), what the SUT sent (``expect``, ``sent``), an outage, the station's variables. What
only one side can do lives here: the harness's station connects and boots by hand, reports a connector's
status, runs its own transactions; the harness's CSMS awaits a station under test, its boot and its restart,
and sees the upgrades it refused. A test of one role receives its side from a fixture (``harness_station``,
``harness_csms``), which also limits the test to that role; code for both roles asks the arena
(``arena.harness_station``), which refuses, with the fix, in a test where the harness plays the other role.
"""

from __future__ import annotations

import ssl
from typing import TYPE_CHECKING

from harness import clock
from harness.errors import HarnessError, Refused, clip
from harness.ocpp.v16 import interval_of
from harness.ocpp.versions import OcppVersion
from harness.pki import VALID
from harness.roles import CS, CSMS
from harness.rules import RuleTable, must
from harness.transport.tls import TLS12, spoken
from harness.transport.ws import CallFailed, Exchange, Handshake, HandshakeSeen, OcppConnection, open_station
from harness.verdict import violated

if TYPE_CHECKING:
    from harness.arena.ocpp import OcppArena
    from harness.reference.base import CsmsBase, StationBase

TlsVersions = tuple[ssl.TLSVersion, ssl.TLSVersion | None]
# The Reset that restarts a station at once: 1.6 ResetType Hard, 2.x ResetEnumType Immediate.
RESET_TYPE = {OcppVersion.V16: "Hard", OcppVersion.V201: "Immediate", OcppVersion.V21: "Immediate"}


class Registration(RuleTable, namespace="registration"):
    """What a CSMS under test must answer the harness's station's boot, when the profile says so."""
    accepted = must("spec 002 Enumerations RegistrationStatus; OCPP 2.0.1 B01 (BootNotificationResponse)",
                    "a CSMS answers the boot of the station the profile declares registered ([station] registered "
                    "= true) Accepted", by=CSMS)


class Restart(RuleTable, namespace="restart"):
    """What the harness's CSMS relies on when it restarts a station under test that did not boot on connecting."""
    boots = must("spec 002 What the service does 4 and Messages Reset; spec 001 B11/B12 (Reset)",
                 "a station that accepted a Reset restarts, and a restarted station sends BootNotification", by=CS)


class HarnessStationSide:
    """The harness's station facing a CSMS under test: it connects, boots and reports when the test says so.
    Each verb only does; the test judges what comes back."""

    def __init__(self, arena: OcppArena) -> None:
        self._arena = arena

    @property
    def _station(self) -> StationBase:
        return self._arena.harness

    async def connect(self, *, boot: bool = True) -> None:
        """Connects to the CSMS under test for a test's setup, and boots unless ``boot`` is False. A refused
        handshake there is the profile's to fix, never the SUT's fault: the test is broken with the fix (the
        transport tests judge the handshake itself, with ``open_connection``)."""
        arena = self._arena
        try:
            handshake = await self._station.connect(arena.sut_url, boot=boot)
        except CallFailed as refused:   # no answer the boot can go on with: the test's prerequisite fails
            raise HarnessError(f"prerequisite failed: the CSMS under test answered the boot of station "
                               f"{arena.profile.identity} with CALLERROR {refused.error.code} "
                               f"({clip(refused.error.description, 200)!r})") from None
        if handshake.status is not None:
            raise Refused(f"prerequisite failed: {self._refusal(handshake)}")
        if handshake.subprotocol is None:
            raise HarnessError(f"prerequisite failed: {self._refusal(handshake)}")
        arena.link = self._station.connection
        if boot:
            self.boot_answered(await self._past_pending())

    async def _past_pending(self) -> str | None:
        """The status the CSMS under test answers the station's boot with, once past Pending: a CSMS may answer
        Pending first and prepare the station meanwhile (OCPP 2.0.1 B02; 1.6 RegistrationStatus), which boots
        again after the interval it was given. Waited on for up to the connect timeout: a CSMS that keeps the
        station Pending longer has answered Pending."""
        arena = self._arena
        status = (self._station.boot_response or {}).get("status")
        deadline = clock.now() + arena.timeouts.connect
        while status == "Pending" and (left := deadline - clock.now()) > 0:
            again = await arena.next_call("BootNotification", sender=CS, within=left, after=arena.mark())
            if again is None or again.response is None:
                break
            status = again.response.get("status")
        return status

    def boot_answered(self, status: str | None) -> None:
        """The CSMS under test answered the station's BootNotification ``status``; the test goes on when it is
        Accepted. Pending and Rejected are the CSMS's right (RegistrationStatus): unless the profile declares
        the station registered (then ``Registration.accepted`` is broken), the test cannot go on and is broken,
        with the reason and the fix."""
        if status == "Accepted":
            return
        profile = self._arena.profile
        if profile.registered:
            violated(Registration.accepted, f"the CSMS answered the boot of station {profile.identity} "
                     f"{status!r}", expected="Accepted", actual=status)
        raise HarnessError(f"the CSMS under test answered the boot of station {profile.identity} {status!r}, "
                           f"which it may; the test needs the station Accepted: register the station at the CSMS, "
                           f"and set [station] registered = true in the profile to have a refusal judged")

    def _refusal(self, handshake: Handshake) -> str:
        """Why the CSMS under test refused the station, as the profile setting to check."""
        arena = self._arena
        identity, url = arena.profile.identity, arena.sut_url
        key = "authorization_key" if arena.version is OcppVersion.V16 else "password"
        if handshake.tls_refused is not None:
            return (f"the TLS handshake with the CSMS at {url} failed ({handshake.tls_refused}); check that [tls] "
                    f"sut_ca is the authority of its certificate, issued for the URL's host, and in security "
                    f"profile 3 that the CSMS trusts the harness's root {arena.pki().root_path}")
        if handshake.status in (401, 403):
            if not self._station.password:
                return (f"the CSMS asks station {identity} for a password (HTTP {handshake.status}) and the "
                        f"profile gives none; add [station] {key} to the profile")
            if identity in arena.profile.rotated_key or identity in arena.profile.rotated_password:
                return (f"the CSMS refused the password from [station] {identity} (the one a rotation earlier in "
                        f"this run set, HTTP {handshake.status})")
            undo = "set_authorization_key" if key == "authorization_key" else "set_basic_auth_password"
            return (f"the CSMS refused the password from [station] {identity} (HTTP {handshake.status}); check "
                    f"[station] {key} in the profile. A run before this one may have rotated it (SECURITY16, A01) "
                    f"without putting it back, which takes the actuator action {undo} (docs/actuators.md): give "
                    f"the station that {key} again at the CSMS")
        if handshake.status == 404:
            return (f"the CSMS does not know station {identity} at {url} (HTTP 404); check [station] identity in "
                    f"the profile, that the CSMS has this station registered, and the path of --sut-url")
        if handshake.status is not None:
            return (f"the CSMS refused the handshake of station {identity} with HTTP {handshake.status}; "
                    f"check --sut-url {url} and [station] in the profile")
        return (f"the CSMS at {url} upgraded without agreeing on the subprotocol {arena.version.subprotocol}: it "
                f"does not serve {arena.version.value} there; check --protocol and --sut-url")

    async def open_connection(self, *, boot: bool) -> Handshake:
        """Opens a new connection to the CSMS under test (with the station's current password), booting on it
        only when ``boot``; an upgraded connection becomes the link. Returns the handshake for the test to
        judge."""
        handshake = await self._station.connect(self._arena.sut_url, boot=boot)
        if handshake.connection is not None:
            self._arena.link = handshake.connection
        return handshake

    async def over_tls(self, *, certificate: str | None = VALID, versions: TlsVersions = (TLS12, None),
                       ciphers: str | None = None, boot: bool = False) -> Handshake:
        """Opens a connection over wss at the arena's security profile (``harness_tls``; Basic auth in profile
        2), presenting ``certificate`` in profile 3 and offering ``versions`` and the TLS 1.2 suites ``ciphers``
        (None: its default), booting when ``boot``. Returns the handshake (``tls_refused``: the TLS handshake
        failed, and why); an upgraded one is the link."""
        arena = self._arena
        self._station.use_tls(arena.harness_tls(certificate=certificate, versions=versions, ciphers=ciphers),
                              arena.security_profile)
        return await self.open_connection(boot=boot)

    def hold_csms_root(self) -> None:
        """The station holds the CSMS under test's authority ([tls] sut_ca) as its CSMSRootCertificate, as its
        operator sets it up before an upgrade to security profile 2 (A05's prerequisite)."""
        self._station.hold_ca("CSMSRootCertificate", self._arena.sut_ca().read_text())

    async def try_profile(self, security_profile: int, url: str) -> Handshake:
        """A connection of the station at ``security_profile`` (1: ws, 2: wss trusting [tls] sut_ca; Basic auth
        with its password) to ``url``, beside the link and closed again at once: the handshake to judge."""
        arena, station = self._arena, self._station
        tls = arena.harness_tls() if security_profile >= 2 else None
        handshake = await open_station(url, station.identity, versions=[arena.version], password=station.password,
                                       handler=None, call_timeout=station.call_timeout, wirelog=arena.wirelog,
                                       tls=tls, open_timeout=arena.timeouts.connect)
        if handshake.connection is not None:
            await handshake.connection.close()
        return handshake

    async def boot(self) -> Exchange:
        """Sends the station's own BootNotification on the link: the exchange, with its answer."""
        return await self._arena.link.call_exchange("BootNotification", self._station.boot_payload())

    async def settled_boot(self) -> Exchange:
        """``boot``, sent again after each Pending answer's interval, as a station does (OCPP 2.0.1 B02; 1.6
        RegistrationStatus), until the CSMS under test answers otherwise, for up to the connect timeout: the last
        exchange. A CSMS may answer Pending first and prepare the station meanwhile."""
        arena = self._arena
        boot = await self.boot()
        deadline = clock.now() + arena.timeouts.connect
        while (boot.response or {}).get("status") == "Pending" and \
                clock.now() + (wait := interval_of(boot.response)) < deadline:
            await arena.elapse(wait)
            boot = await self.boot()
        return boot

    async def send_boot(self) -> dict:
        """Sends one BootNotification on the link and returns the answer of the CSMS under test (a 1.6
        interval read under either name); reports no connector after it."""
        return await self._station.boot_once()

    async def report_status(self, connector_id: int, status: str) -> Exchange:
        """The 1.6 charge point reports ``status`` of ``connector_id`` (0: the main controller) in a
        StatusNotification of its own making; returns the exchange."""
        return await self._arena.link.call_exchange("StatusNotification",
                                                    self._station.connector_status(connector_id, status))

    def set_configuration_key(self, key: str, value: str) -> None:
        """The 1.6 charge point's configuration key ``key`` is ``value`` for this test (its station is the
        test's own: nothing to put back)."""
        self._station.config.set(key, value)

    def set_variable(self, component: str, variable: str, value: str) -> None:
        """The 2.x station's device-model variable (its Actual attribute) is ``value`` for this test."""
        self._station.set_variable(component, variable, value)

    def transaction_at(self, connector_id: int) -> int | None:
        """The transactionId of the transaction the 1.6 charge point runs at ``connector_id``; None when none
        runs there (or its StartTransaction is not answered yet)."""
        running = self._station.connectors[connector_id].transaction
        return None if running is None else running.id

    async def drained(self, timeout: float) -> None:
        """Returns once the station has delivered (or dropped) every message it queued, is offline, or
        ``timeout`` seconds passed; a station without a queue (the 2.x one sends as it goes) returns at once."""
        drained = getattr(self._station, "drained", None)
        if drained is not None:
            await drained(timeout)


class HarnessCsmsSide:
    """The harness's CSMS facing a station under test: it awaits the station's connection, boot and restart,
    serves it over TLS anew, and shows the upgrades it saw and refused. Each verb only does; the test judges
    what comes back."""

    def __init__(self, arena: OcppArena) -> None:
        self._arena = arena

    @property
    def _csms(self) -> CsmsBase:
        return self._arena.harness

    @property
    def url(self) -> str:
        """Where the harness's CSMS listens (what a station is told to connect to)."""
        return self._csms.url

    def key_put_back(self, key: bytes) -> None:
        """When the test ends, whatever its outcome, the station's 1.6 AuthorizationKey goes back to ``key`` (a
        station keeps a rotated key beyond the run: the next run's connections would be refused)."""
        arena = self._arena
        arena.undo("set the AuthorizationKey from before the rotation again",
                   lambda: self._csms.key_put_back(arena.link, arena.profile.identity, key))

    def password_put_back(self, password: str) -> None:
        """When the test ends, whatever its outcome, the station's 2.x BasicAuthPassword goes back to ``password``."""
        arena = self._arena
        arena.undo("set the BasicAuthPassword from before the update again",
                   lambda: self._csms.password_put_back(arena.link, arena.profile.identity, password))

    async def await_station(self) -> None:
        """The station under test connects (the stand-in is told to; a real station is awaited for the connect
        timeout): its connection becomes the link. None that connects breaks the test with the fix: why the
        harness refused it, or where to point it."""
        arena, server = self._arena, self._csms.server
        after, refusals_before, handshakes_before = len(server.connections), len(server.refused), len(server.handshakes)
        if arena.standin is not None:  # a station connects (and boots) on its own
            arena.standin.background.spawn(arena.standin.connect(self._csms.url))
        connection = await server.wait_connection(arena.timeouts.connect, after=after)
        if connection is None:
            refusals = server.refused[refusals_before:]
            if refusals:
                raise Refused(f"prerequisite failed: {self._station_refused(refusals, server.handshakes[handshakes_before:])}",
                              len(refusals))
            raise HarnessError(f"prerequisite failed: no station connected to {self._csms.url} "
                               f"within {arena.timeouts.connect:g} s; point the station under test at it")
        arena.link = connection

    def _station_refused(self, refusals: list[tuple[str, int]], seen: list[HandshakeSeen]) -> str:
        """Why the harness's CSMS refused the station under test's upgrades, as the setting to fix."""
        arena = self._arena
        identity, status = refusals[-1]
        times = f"{len(refusals)} time{'s' if len(refusals) > 1 else ''} within {arena.timeouts.connect:g} s"
        expected = arena.profile.identity
        if status == 404:
            return (f"the harness refused station {identity!r} {times} (HTTP 404): the profile's station is "
                    f"{expected!r}; fix [station] identity in the profile, or the identity the station connects with")
        key = "authorization_key" if arena.version is OcppVersion.V16 else "password"
        last = next((h for h in reversed(seen) if h.identity == identity), None)
        if last is None or last.username is None:
            why = "it sent no Basic-auth credentials"
        elif last.username != identity:
            why = f"its Basic-auth username {last.username!r} is not its identity"
        else:
            why = f"its Basic-auth password is not the profile's [station] {key}"
            if key == "authorization_key":   # SECURITY16 puts the key back when it ends; a run cut short does not
                why += (" (a run stopped during SECURITY16's rotation leaves the charge point with the rotated key: "
                        "set its AuthorizationKey back to the profile's)")
        return (f"the harness refused station {identity} {times} (HTTP {status}): {why}; give the station and "
                f"[station] {key} in the profile the same {'AuthorizationKey' if key == 'authorization_key' else 'password'}")

    async def wait_booted(self) -> None:
        """A station that boots on connecting is answered before the test talks to it; one that reconnects
        without booting (allowed) is given ``quiet`` seconds to show it."""
        link = self._arena.link
        held = "BootNotification" in link.held
        boot = await link.wait_for_call("BootNotification", self._arena.timeouts.quiet, answered=not held)
        if boot is not None and not held and boot.error is not None:
            raise HarnessError(f"prerequisite failed: the harness refused the station's boot: {boot.error}")

    async def station_boot(self, *, answered: bool = True) -> Exchange:
        """The station under test's BootNotification in this test. A station that reconnects without booting
        (it need not: 1.6 behaviour rule 4) is restarted with a Hard/Immediate Reset, and its boot is awaited on
        the connection it opens after restarting; ``answered=False`` returns it before the harness answers (for
        a held boot)."""
        arena = self._arena
        boot = await arena.link.wait_for_call("BootNotification", arena.timeouts.quiet, answered=answered)
        if boot is not None:
            return boot
        before, mark = len(self._csms.server.connections), arena.mark()
        reset = await arena.link.call_exchange("Reset", {"type": RESET_TYPE[arena.version]})
        if reset.error is not None or (reset.result or {}).get("status") != "Accepted":
            raise HarnessError(f"prerequisite failed: the station did not boot when it connected, and the harness "
                               f"could not restart it: Reset answered {reset.error or reset.result}; restart the "
                               f"station before this test")
        restarted = await self.restarted(before, mark, answered=answered)
        if restarted is None:
            arena.silent(Restart.boots, "BootNotification", arena.timeouts.connect, "of the accepted Reset")
        return restarted

    async def restarted(self, connections: int, mark: int, *, answered: bool = True) -> Exchange | None:
        """The BootNotification of the station under test after a restart: on the connection it opens after the
        harness's first ``connections`` (it becomes the link), else on the current link after ``mark``; None
        when none comes within ``connect`` seconds."""
        arena = self._arena
        connection = await self._csms.server.wait_connection(arena.timeouts.connect, after=connections)
        if connection is not None:
            arena.link, mark = connection, 0
        return await arena.link.wait_for_call("BootNotification", arena.timeouts.connect, answered=answered,
                                              start=mark)

    def handshakes(self) -> list[HandshakeSeen]:
        """The upgrade requests the CSMS has seen (identity, subprotocols offered, whether the Basic password
        was right), oldest first."""
        return list(self._csms.server.handshakes)

    def url_under(self, segment: str) -> str | None:
        """The URL of this CSMS under the path ``/segment``, as a NetworkConnectionProfile would name it (the
        station adds its identity), at the address the harness listens on; None when it listens on every address
        (no one URL a station could be given: [sut] listen names the one)."""
        host, _ = self._arena.options.listen
        if host in ("0.0.0.0", "::", ""):
            return None
        server = self._csms.server
        return f"{'ws' if server.tls is None else 'wss'}://{host}:{server.port}/{segment}"

    def refused(self) -> list[tuple[str, int]]:
        """The upgrades the CSMS refused, (identity, HTTP status), oldest first."""
        return list(self._csms.server.refused)

    async def serve_over_tls(self, *, certificate: str = VALID,
                             versions: TlsVersions = (TLS12, None)) -> OcppConnection | None:
        """The CSMS serves wss anew where it listens (``harness_tls``) with ``certificate``, offering
        ``versions``, and the station connects (the stand-in at once; a real station when it retries). Returns
        the connection, which becomes the link, or None when none opens within the connect timeout
        (``tls_refusals`` says why the harness refused a handshake)."""
        arena = self._arena
        await self._csms.stop()
        arena.harness = arena.harness_csms_serving()
        self._csms.use_tls(arena.harness_tls(certificate=certificate, versions=versions), arena.security_profile)
        await self._csms.start(*arena.options.listen)
        served = certificate.replace("_", " ")
        arena.wirelog.event("tls", f"the harness's CSMS serves {self._csms.url} with a {served} certificate, "
                                   f"{spoken(versions)}")
        if arena.standin is not None:
            arena.standin.background.spawn(arena.standin.connect(self._csms.url))
        connection = await self._csms.server.wait_connection(arena.timeouts.connect)
        if connection is not None:
            arena.link = connection
            await self.wait_booted()
        return connection

    async def serve_tls_beside(self) -> str | None:
        """The CSMS also serves wss (``harness_tls`` at the profile one above the test's) on a port of its own
        at the address it listens on, beside its listener: the URL a network profile of the higher security
        profile names (A05), whose connections the test follows like any other; None when it listens on every
        address (no one URL a station could be given: [sut] listen names the one). Closed when the test ends."""
        arena = self._arena
        host, _ = arena.options.listen
        if host in ("0.0.0.0", "::", ""):
            return None
        port = await self._csms.server.serve_tls_beside(arena.harness_tls(), host)
        url = f"wss://{host}:{port}/ocpp"
        arena.wirelog.event("tls", f"the harness's CSMS also serves {url}")
        return url

    def tls_refusals(self) -> list[str]:
        """Why the TLS handshakes the CSMS refused failed (OpenSSL's reasons), oldest first."""
        return self._csms.server.tls_refusals()

    def tls_completed(self) -> int:
        """How many TLS handshakes the station completed with the CSMS since it last served anew."""
        return self._csms.server.tls_completed()
