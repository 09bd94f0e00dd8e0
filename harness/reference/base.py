"""The version-neutral sides of the OCPP references: what a station and a CSMS do in every version.

``StationBase``: the connection to the CSMS (connect, the RPC link, stop), dispatch of the CSMS's
CALLs to the blocks' ``on_<Action>`` methods, the actuator plumbing and background tasks.
``CsmsBase``: the WebSocket server (identity, Basic auth, an outage on request), one session per
connected station, the reports answered alike in every version (Heartbeat with the time;
StatusNotification and MeterValues taken without a word), and the same plumbing. Both define the
hooks through which one block reacts to another (a no-op here; a block that extends one passes it
on with super()).

What differs between versions (BootNotification and StatusNotification payloads, what happens to an
answer that is not Accepted, ...) is in the blocks (``harness.reference.blocks``).
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from harness.errors import HarnessError
from harness.ocpp.framing import Call
from harness.ocpp.versions import OcppVersion
from harness.profile import Profile
from harness.reference.common import Actions, Background, Dispatcher, now_iso
from harness.transport.tls import TlsEnd
from harness.transport.ws import CallFailed, Exchange, Handshake, OcppConnection, OcppServer, open_station
from harness.variance import Variance
from harness.wire import WireLog


class StationBase(Dispatcher, Actions):
    """A charging station (charge point) that connects to a CSMS and answers its CALLs."""

    # None until set (on the class: a station of the load keeps no key for what it never sets)
    tls: TlsEnd | None = None   # security profiles 2 and 3: wss (see use_tls)
    variance: Variance | None = None   # a stand-in's legal variance (see vary)

    def __init__(self, profile: Profile, version: OcppVersion, *, identity: str | None = None,
                 password: str | bytes | None = None, wirelog: WireLog | None = None,
                 call_timeout: float | None = None):
        self.profile = profile
        self.version = version
        self.identity = identity or profile.identity
        self.password = password if password is not None else self.basic_auth_password()
        self.wirelog = wirelog
        self.call_timeout = call_timeout or profile.timeouts.call
        self.background = Background()
        self.connection: OcppConnection | None = None
        self.csms_url: str | None = None
        self.boot_response: dict | None = None

    def basic_auth_password(self) -> str | bytes | None:
        """The Basic-auth password when none is given (security profile 1: the profile's password)."""
        return self.profile.password

    def use_tls(self, end: TlsEnd, security_profile: int) -> None:
        """Connect over wss from now on, as ``end`` says (the CSMS's authority it trusts; in security
        profile 3 its client certificate, and no Basic auth: the certificate names the station)."""
        self.tls = self.station_tls(end)
        if security_profile >= 3:
            self.password = None

    def vary(self, variance: Variance) -> None:
        """Stand in with legal variance (``harness.variance``): on every connection from now on, and with
        a Heartbeat now and then once the CSMS accepted the station."""
        self.variance = variance
        if variance.allows("ocpp.unsolicited_heartbeat"):
            self.background.spawn(self._unsolicited_heartbeats())

    async def _unsolicited_heartbeats(self) -> None:
        while True:
            await asyncio.sleep(self.variance.pause())
            connection = self.connection
            if connection is None or connection.closed or (self.boot_response or {}).get("status") != "Accepted":
                continue
            self.variance.took("ocpp.unsolicited_heartbeat")
            with contextlib.suppress(Exception):   # the CSMS's answer is the test's to judge, not this sender's
                await connection.call("Heartbeat", {})

    def in_any_order(self, reports: list) -> list:
        """Independent reports (one StatusNotification per connector after a boot) in the order this station
        sends them: as listed, or under variance in any order."""
        return reports if self.variance is None else self.variance.any_order(reports)

    def new_transaction_id(self) -> str:
        """The id of a transaction this station starts (2.x: the station makes it up)."""
        default = str(uuid.uuid4())
        return default if self.variance is None else self.variance.transaction_id(default)

    def station_tls(self, end: TlsEnd) -> TlsEnd:
        """The TLS this station speaks when it is set up with ``end`` (a faulty station's differs)."""
        return end

    # ------------------------------------------------------------ lifecycle
    async def connect(self, csms_url: str, *, boot: bool = True, offered: list[str] | None = None) -> Handshake:
        """Open the WebSocket to ``csms_url`` and, once a subprotocol is agreed, boot (unless ``boot`` is False)."""
        self.csms_url = csms_url
        handshake = await open_station(
            csms_url, self.identity, versions=offered or self.offered_versions(), password=self.password,
            handler=self._handle, call_timeout=self.call_timeout, wirelog=self.wirelog, tls=self.tls,
            variance=self.variance, open_timeout=self.profile.timeouts.connect)
        self.connection = handshake.connection
        if handshake.subprotocol is not None:
            await self.connected(handshake.connection)
            if boot:
                await self.boot()
        return handshake

    def offered_versions(self) -> list[OcppVersion | str]:
        """The subprotocols this station offers, in its order of preference: its version, and under variance
        others after it (a client may offer several; the server picks one)."""
        return [self.version] if self.variance is None else self.variance.offer(self.version)

    async def boot(self) -> dict:
        """BootNotification and what its answer leads to: the provisioning block of the version."""
        raise NotImplementedError

    async def stop(self) -> None:
        await self.background.cancel_all()
        if self.connection is not None:
            await self.connection.close()

    async def call(self, action: str, payload: dict[str, Any]) -> dict[str, Any]:
        if self.connection is None:
            raise HarnessError("the station is not connected")
        return await self.connection.call(action, payload)

    async def send_and_go_on(self, action: str, payload: dict[str, Any]) -> None:
        """A report the station sends and goes on after, whatever the answer: a CSMS that refuses it (a
        StatusNotification, a SHOULD of G01; a triggered MeterValues) is judged from the wire by the tests that
        own the rule, and the station does what comes next all the same."""
        try:
            await self.call(action, payload)
        except CallFailed:
            pass

    async def _handle(self, call: Call) -> dict[str, Any]:
        return await self.dispatch(None, call)

    # ------------------------------------------------------------ hooks (blocks extend them)
    async def connected(self, connection: OcppConnection) -> None:
        """A connection is open (before its boot)."""

    def went_online(self) -> None:
        """The CSMS accepted the station: what waited for that may go."""

    def transaction_started(self, outlet: int, transaction_id: str) -> None:
        """A transaction runs on ``outlet`` (the EVSE id in 2.x, the connector id in 1.6)."""

    def transaction_ended(self, outlet: int) -> None:
        """The transaction on ``outlet`` ended."""

    def id_token_answered(self, id_token: dict, info: dict) -> None:
        """The CSMS answered ``id_token`` with the 2.x idTokenInfo ``info`` (Authorize, TransactionEvent)."""
    def remote_start_refusal(self, outlet: int, charging_profile: dict) -> dict | None:
        """A remote start on ``outlet`` carries ``charging_profile``: the answer that refuses the start for
        it, or None (the profile is then the smart-charging block's to apply; without one, ignored)."""
        return None

    def configuration_changed(self, key: str, value: str, status: str) -> None:
        """The CSMS asked to set ``key`` to ``value``; ``status`` is the answer it got."""

    def variable_changed(self, component: str, name: str) -> None:
        """2.x: the device-model variable ``component``.``name`` was set (SetVariables, a boot's interval, a test)."""

    def id_tag_info_received(self, id_tag: str, info: dict, action: str) -> None:
        """The 1.6 central system answered ``action`` (Authorize, StartTransaction, StopTransaction) for
        ``id_tag`` with the IdTagInfo ``info``."""

    async def end_transactions(self) -> None:
        """A test ended: end every transaction still running here, so the CSMS keeps none open."""


@dataclass
class StationSession:
    """What the CSMS knows of one connected station."""
    identity: str
    version: OcppVersion
    connection: OcppConnection | None = None
    transactions: dict = field(default_factory=dict)   # by transaction id: the transactions block's records


class CsmsBase(Dispatcher, Actions):
    """A CSMS (central system): a WebSocket server for the profile's station."""

    heartbeat_interval = 300
    configurable = frozenset({"heartbeat_interval"})
    resumes_sessions = False   # True: a reconnecting station keeps its session (its transactions)

    def __init__(self, profile: Profile, versions: Sequence[OcppVersion], *, wirelog: WireLog | None = None,
                 call_timeout: float | None = None):
        self.profile = profile
        self.versions = list(versions)
        self.sessions: dict[str, StationSession] = {}
        self.background = Background()
        self.unreachable: set[str] = set()
        self.server = OcppServer(
            versions=self.versions, on_connect=self._on_connect, accept_identity=self.accepts_identity,
            check_password=self.check_password if self.basic_auth_required() else None,
            call_timeout=call_timeout or profile.timeouts.call, wirelog=wirelog, open_timeout=profile.timeouts.connect)
        self.server.accept_profile = self.accepts_profile

    # ------------------------------------------------------------ lifecycle
    async def start(self, host: str = "127.0.0.1", port: int = 0) -> "CsmsBase":
        await self.server.start(host, port)
        return self

    async def stop(self) -> None:
        await self.background.cancel_all()
        await self.server.stop()

    @property
    def url(self) -> str:
        return self.server.url

    # ------------------------------------------------------------ who may connect
    def accepts_identity(self, identity: str) -> bool:
        """The profile's stations: [station] identity and, for a run spread over workers, [station] identities."""
        return identity not in self.unreachable and identity in self.profile.known_identities()

    def accepts_profile(self, identity: str, security_profile: int) -> bool:
        """Whether a station that passed the password check may connect at ``security_profile`` (any, here)."""
        return True

    def use_tls(self, end: TlsEnd, security_profile: int) -> None:
        """Serve wss from the next ``start`` on, as ``end`` says (the server certificate; in security
        profile 3 the authority of the stations' client certificates, which replace Basic auth)."""
        self.server.tls = self.csms_tls(end)
        if security_profile >= 3:
            self.server.check_password = None

    def vary(self, variance: Variance) -> None:
        """Stand in with legal variance (``harness.variance``) on every connection accepted from now on."""
        self.server.variance = variance

    def transaction_number(self, default: int, taken) -> int:
        """The id of a 1.6 transaction this central system assigns, other than those ``taken``."""
        variance = self.server.variance
        return default if variance is None else variance.transaction_number(default, taken)

    def csms_tls(self, end: TlsEnd) -> TlsEnd:
        """The TLS this CSMS serves when it is set up with ``end`` (a faulty CSMS's differs)."""
        return end

    def basic_auth_required(self) -> bool:
        """Security profile 1: the profile gives the station a password."""
        return bool(self.profile.password)

    def check_password(self, identity: str, password: bytes) -> bool:
        return secrets.compare_digest(password, (self.profile.password_of(identity) or "").encode())

    # ------------------------------------------------------------ what a station under test leaves running
    # Facing a station under test, the harness's CSMS notes each transaction the station starts, on whichever
    # connection (one an outage or a reboot closed counts the same), and stops those left running when the test
    # ends; the transactions block of each version says which CALLs start and end one, and how one is stopped.
    def note_transactions(self, already: Sequence[Any] = ()) -> None:
        """From now on, note the transactions the station starts and ends (``open_transactions``), besides those
        ``already`` open (noted by the CSMS this one replaces)."""
        self.opened: dict[Any, None] = dict.fromkeys(already)
        self.server.on_answered.append(self._note_transaction)

    def _note_transaction(self, exchange: Exchange) -> None:
        """One CALL of the station, answered by this CSMS (a CALL refused as malformed changes nothing)."""
        if exchange.error is not None:
            return
        started, ended = self.transaction_of(exchange)
        if started is not None:
            self.opened[started] = None
        if ended is not None:
            self.opened.pop(ended, None)

    def transaction_of(self, exchange: Exchange) -> tuple[Any, Any]:
        """(the transaction ``exchange`` starts or goes on with, the one it ends), each None when none: the
        transactions block's to say."""
        return None, None

    def remote_stop(self, transaction_id: Any) -> tuple[str, dict[str, Any]]:
        """The CALL that asks a station to stop ``transaction_id``: the transactions block's to say."""
        raise NotImplementedError

    def open_transactions(self) -> list[Any]:
        """The transactions the station started since ``note_transactions`` and has not ended, oldest first."""
        return [t for t in getattr(self, "opened", {}) if t is not None]

    async def stop_open_transactions(self, link: OcppConnection, timeout: float) -> None:
        """Asks the station, on ``link``, to stop each open transaction, and waits up to ``timeout`` seconds for
        each to end."""
        for transaction_id in self.open_transactions():
            mark = len(link.history)
            stop = await link.call_exchange(*self.remote_stop(transaction_id))
            if stop.error is None and (stop.result or {}).get("status") == "Accepted":
                await link.wait_for(lambda e: e.incoming and self.transaction_of(e)[1] == transaction_id,  # noqa: B023
                                    timeout, start=mark)

    async def cut(self, identity: str | None = None) -> None:
        """The harness's side of an outage: the station's connection closes, reconnecting is refused."""
        identity = identity or self.profile.identity
        self.unreachable.add(identity)
        session = self.sessions.get(identity)
        if session is not None and session.connection is not None:
            await session.connection.close()

    def restore(self, identity: str | None = None) -> None:
        self.unreachable.discard(identity or self.profile.identity)

    # ------------------------------------------------------------ sessions
    def _on_connect(self, identity: str, version: OcppVersion):
        session = self.sessions.get(identity)
        if not self.resumes_sessions or session is None or session.version is not version:
            session = self.sessions[identity] = StationSession(identity, version)

        async def handler(call: Call) -> dict[str, Any]:
            return await self.dispatch(session, call)

        async def attach(connection: OcppConnection) -> None:
            session.connection = connection

        return handler, attach

    def session(self, identity: str | None = None) -> StationSession:
        identity = identity or self.profile.identity
        if identity not in self.sessions:
            raise LookupError(f"station {identity} is not connected")
        return self.sessions[identity]

    def send(self, station: str | None, action: str, payload: dict[str, Any]) -> None:
        """Send ``action`` to the station in the background (an actuator action only starts it)."""
        self.background.spawn(self.session(station).connection.call(action, payload))

    # ------------------------------------------------------------ CS → CSMS
    def on_Heartbeat(self, session: StationSession, payload: dict) -> dict:
        return {"currentTime": now_iso()}

    def on_StatusNotification(self, session: StationSession, payload: dict) -> dict:
        return {}

    def on_MeterValues(self, session: StationSession, payload: dict) -> dict:
        return {}

    # ------------------------------------------------------------ hooks (blocks extend them)
    def boot_status(self, session: StationSession, status: str) -> str:
        """The registration status the next BootNotification of ``session`` is answered with."""
        return status
