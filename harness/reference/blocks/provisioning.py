"""Provisioning: how a station introduces itself and reports its connectors (BootNotification,
StatusNotification; the 1.6 charge point's Heartbeat and reconnection), and how the CSMS answers.

Station 2.x (spec 001 Provisioning): BootNotification with its reason (PowerUp; RemoteReset after a
Reset), then, once Accepted, a StatusNotification Available per connector (Unavailable while inoperative:
ChangeAvailability), and a Heartbeat every OCPPCommCtrlr.HeartbeatInterval seconds (the boot's interval until
the CSMS sets another: G02). A status that changes while it is offline is reported once it is back without
booting (B04); after a reboot it connects with the first entry of
OCPPCommCtrlr.NetworkConfigurationPriority whose slot holds a profile (SetNetworkProfile, B09/B10; slot 1 is
where it first connected), the next one when that fails.

Charge point 1.6 (spec 002):
- connectors numbered 1..N without gaps (``harness.ocpp.v16.connector_ids``); after an Accepted
  boot a StatusNotification for connector 0 (the main controller, Available) and for each connector;
- not Accepted: the next BootNotification after the interval (its own wait when 0), nothing else
  before (1.6 section 4.2); the interval is read under both names (``interval``, and the
  ``heartbeatInterval`` of the wire example, recorded as a finding [ref16.interval_name]); Accepted
  sets HeartbeatInterval, and a Heartbeat goes every HeartbeatInterval seconds;
- when the central system closes the connection the charge point reconnects, booting again only
  when it was not Accepted (behaviour rule 4); while Rejected it answers no central-system CALL.

The station's equipment (``self.evses`` in 2.x, ``self.connectors`` in 1.6: ``harness.reference.model``)
is set up here, for every block of the station.

CSMS 2.x: every boot Accepted with the heartbeat interval, or as ``registration`` says (Pending, Rejected: with
``retry_interval``); NotifyEvent answered empty. A 2.x station answered Pending or Rejected sends nothing but its
next BootNotification, after the interval (B02, B03); the CSMS answers anything else such a station sends
CALLERROR SecurityError (B02.FR.09, B03.FR.07; a Pending station's reports it asked for aside). Central system
1.6: the registration status set for the station (Accepted by default; ``registration``), with the
heartbeat interval when Accepted and ``retry_interval`` otherwise (1.6 section 4.2); Pending is where
the central system may query and configure the charge point (spec 002 moves). A charge point's
session outlives its connection: one that reconnects without booting (behaviour rule 4) is still
registered, with its transactions.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

from harness.errors import HarnessError, PeerViolation
from harness.ocpp import schemas
from harness.ocpp.v16 import connector_ids, interval_of
from harness.ocpp.versions import OcppVersion
from harness.reference.base import StationSession
from harness.reference.common import EVERY_VERSION, V2X, V16, Block, ReconnectsOnLinkEnd, now_iso, store
from harness.reference.model import Connector, EvseState
from harness.rules import RuleTable, should
from harness.ocpp.framing import Call
from harness.transport.ws import CallErrorReply, CallFailed, Handshake, OcppConnection
from harness.variance import Variance

MAIN_CONTROLLER = 0
REGISTRATION_STATUSES = ("Accepted", "Pending", "Rejected")


class Ref16(RuleTable, namespace="ref16"):
    """What the reference 1.6 charge point notes about the central system it talks to."""
    interval_name = should("spec 002 Messages and payload shapes (BootNotification.conf; heartbeatInterval in the "
                           "wire example)", "BootNotification.conf names the heartbeat interval interval")


def interval_alias(version: OcppVersion, response: Any) -> dict | None:
    """``response`` read with ``heartbeatInterval`` as ``interval``, when that alone broke its schema."""
    if not isinstance(response, dict) or "heartbeatInterval" not in response or "interval" in response:
        return None
    read = {k: v for k, v in response.items() if k != "heartbeatInterval"} | {"interval": response["heartbeatInterval"]}
    return None if schemas.validate(version, "BootNotification", "response", read) else read


# -------------------------------------------------------------------------------------- the station
class ProvisioningStation2x(Block):
    versions = V2X
    requires = ("DeviceModelStation2x", "OfflineStation2x")
    configurable = frozenset({"provisioning_network_profile_status", "heartbeats"})
    provisioning_network_profile_status = "Accepted"   # B09: how a valid SetNetworkProfile is answered (TC_B_44)
    heartbeats = True   # False: no Heartbeat of its own (G02); a load runner beats for it at its plan's times
    boot_retry = 5   # own wait before the next boot when a Pending or Rejected answer's interval is 0
    accepted_wait = 60   # seconds a restarted station waits to be accepted before it gives up what it owed

    boot_reason: str = store(default="PowerUp")
    station_operative: bool = store(default=True)   # ChangeAvailability of the whole station (G04)
    network_profiles: dict[int, dict] = store(dict)   # B09: configurationSlot → NetworkConnectionProfile
    _heartbeat_due: asyncio.TimerHandle | None = store()   # the next Heartbeat (G02), once Accepted

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.evses = {e.id: EvseState(e) for e in self.profile.evses}
        # both used at every connect: started here (see common.store)
        self.provisioning_home_url: str | None = None   # B10: where it first connected (the slot 1 it starts with)
        self.unreported: dict[tuple[int, int], dict] = {}   # B04: statuses that changed while offline

    async def connect(self, csms_url: str, *, boot: bool = True, offered: list[str] | None = None) -> Handshake:
        """B04: back from an outage without booting, the connectors whose status changed meanwhile are reported."""
        if self.provisioning_home_url is None:
            self.provisioning_home_url = csms_url
        handshake = await super().connect(csms_url, boot=boot, offered=offered)
        if not boot and handshake.connection is not None and self.unreported:
            self.background.spawn(self._report_missed(handshake.connection))
        return handshake

    async def call(self, action: str, payload: dict[str, Any]) -> dict[str, Any]:
        if action == "StatusNotification" and not self.online:   # B04: kept for the next connection
            self.unreported[(payload["evseId"], payload["connectorId"])] = payload
            return {}
        try:
            return await super().call(action, payload)
        except (HarnessError, CallFailed):
            if action != "StatusNotification" or self.online:
                raise
            self.unreported[(payload["evseId"], payload["connectorId"])] = payload   # the link closed meanwhile
            return {}

    async def _report_missed(self, connection: OcppConnection) -> None:
        missed, self.unreported = list(self.unreported.values()), {}
        for payload in self.in_any_order(missed):
            if connection is not self.connection:
                return
            try:
                await self.call("StatusNotification", payload)
            except CallFailed:
                pass

    async def connected(self, connection: OcppConnection) -> None:
        await super().connected(connection)
        self._schedule_heartbeat()

    def variable_changed(self, component: str, name: str) -> None:
        """OCPPCommCtrlr.HeartbeatInterval was set: the wait for the next Heartbeat starts again."""
        super().variable_changed(component, name)
        if (component, name) == ("OCPPCommCtrlr", "HeartbeatInterval"):
            self._schedule_heartbeat()

    def _schedule_heartbeat(self) -> None:
        """G02: once Accepted, a Heartbeat every OCPPCommCtrlr.HeartbeatInterval seconds (the boot's interval
        until the CSMS sets another) on the open connection, counted from the last answer or setting (a timer,
        not a task: thousands of stations of the load wait so at once)."""
        if self._heartbeat_due is not None:
            self._heartbeat_due.cancel()
            self._heartbeat_due = None
        connection = self.connection
        if not self.heartbeats or connection is None or connection.closed \
                or (self.boot_response or {}).get("status") != "Accepted":
            return
        interval = int(self.variable("OCPPCommCtrlr", "HeartbeatInterval"))
        if interval:
            self._heartbeat_due = asyncio.get_running_loop().call_later(interval, self._heartbeat_now, connection)

    async def stop(self) -> None:
        try:
            await super().stop()
        finally:   # a stopped station's timer must not outlive it on a loop that runs on
            if self._heartbeat_due is not None:
                self._heartbeat_due.cancel()
                self._heartbeat_due = None

    def _heartbeat_now(self, connection: OcppConnection) -> None:
        self._heartbeat_due = None
        if connection is self.connection and not connection.closed:
            self.background.spawn(self._heartbeat(connection))

    async def _heartbeat(self, connection: OcppConnection) -> None:
        try:
            await connection.call("Heartbeat", {})
        except (HarnessError, PeerViolation, CallFailed):
            pass
        if self._heartbeat_due is None:   # not set again meanwhile
            self._schedule_heartbeat()

    async def boot(self) -> dict:
        self.boot_response = await self.call("BootNotification", self.boot_payload())
        if self.boot_response.get("status") != "Accepted":   # B02/B03: nothing but the next boot, after the interval
            self.background.spawn(self._boot_again(self.connection, self.boot_response.get("interval", 0)))
        else:
            self.set_variable("OCPPCommCtrlr", "HeartbeatInterval", str(self.boot_response["interval"]))
            reports = [(state.evse.id, connector) for state in self.evses.values() for connector in state.evse.connectors]
            for evse_id, connector in self.in_any_order(reports):
                try:   # a refused report is the test's to judge (B01); the station goes on
                    await self.call("StatusNotification", self.status_payload(
                        evse_id, connector, self.shown_status(evse_id, connector)))   # Occupied with a cable in
                except CallFailed:
                    pass
        return self.boot_response

    async def _boot_again(self, connection: OcppConnection, interval: int) -> None:
        if not await connection.wait_closed(interval or self.boot_retry) and connection is self.connection:
            await self.boot()

    async def boot_accepted(self) -> bool:
        """Whether the CSMS accepts the boot of the current connection, awaited for ``accepted_wait`` seconds: a
        station answered Pending sends nothing but its next boots until then (B02), what it owes the CSMS after
        a restart (a resumed transaction) too."""
        connection = self.connection
        if connection is None:
            return False
        accepted = await connection.wait_for(
            lambda e: e.action == "BootNotification" and not e.incoming and (e.response or {}).get("status") ==
            "Accepted", self.accepted_wait)
        return accepted is not None and connection is self.connection

    async def boot_once(self) -> dict:
        """One BootNotification and nothing after it, whatever the answer: the harness's station booting by hand
        at a CSMS under test (B02, B03)."""
        self.boot_response = await self.call("BootNotification", self.boot_payload())
        return self.boot_response

    def on_SetNetworkProfile(self, _: None, payload: dict) -> dict:
        """B09: the profile is stored in its slot (Accepted; ``provisioning_network_profile_status`` Failed: storing
        failed, nothing kept); it is used once NetworkConfigurationPriority names its slot first and the station
        reboots (B10). One of a lower security profile than the connection's is Rejected (B09.FR.04; no
        AllowSecurityProfileDowngrade here)."""
        if self.provisioning_network_profile_status != "Accepted":
            return {"status": self.provisioning_network_profile_status}
        if payload["connectionData"]["securityProfile"] < self.current_security_profile():
            return {"status": "Rejected", "statusInfo": {"reasonCode": "NoSecurityDowngrade"}}
        self.network_profiles[payload["configurationSlot"]] = payload["connectionData"]
        return {"status": "Accepted"}

    def priority_urls(self) -> list[str]:
        """B10: the CSMS URL of each entry of OCPPCommCtrlr.NetworkConfigurationPriority, in its order: a slot's
        stored profile (SetNetworkProfile), or for slot 1 without one where the station first connected."""
        urls = []
        for entry in self.variable("OCPPCommCtrlr", "NetworkConfigurationPriority").split(","):
            slot = int(entry) if entry.strip().isdigit() else None
            if slot in self.network_profiles:
                urls.append(self.network_profiles[slot]["ocppCsmsUrl"])
            elif slot == 1 and self.provisioning_home_url is not None:
                urls.append(self.provisioning_home_url)
        return urls or [self.csms_url]

    async def connect_by_priority(self) -> None:
        """B10.FR.03/04: after a reboot the first entry of NetworkConfigurationPriority is tried first,
        OCPPCommCtrlr.NetworkProfileConnectionAttempts times, then the next; it boots on the one that connects
        (B10.FR.10)."""
        attempts = max(1, int(self.variable("OCPPCommCtrlr", "NetworkProfileConnectionAttempts") or 1))
        *first, last = self.priority_urls()
        for url in first:
            for _ in range(attempts):
                try:
                    if (await self.connect(url)).connection is not None:
                        return
                except HarnessError:
                    continue
        await self.connect(last)

    def variable_fits(self, component: str, name: str, value: str) -> bool:
        """NetworkConfigurationPriority: a list of slots, each with a stored profile (or slot 1, where the
        station first connected)."""
        if (component, name) == ("OCPPCommCtrlr", "NetworkConfigurationPriority"):
            slots = [e.strip() for e in value.split(",")]
            return bool(slots) and all(e.isdigit() and (int(e) in self.network_profiles or int(e) == 1)
                                       for e in slots)
        return super().variable_fits(component, name, value)

    def current_security_profile(self) -> int:
        """The security profile of the station's connection: 1 without TLS, 3 with a client certificate in place
        of Basic auth, else 2."""
        if self.tls is None:
            return 1
        return 3 if self.password is None else 2

    def boot_payload(self) -> dict:
        return {"chargingStation": {"model": self.profile.get("station.model", "reference"),
                                    "vendorName": self.profile.get("station.vendor", "evse-conformance")},
                "reason": self.boot_reason}

    def status_payload(self, evse_id: int, connector_id: int, status: str) -> dict:
        """``status`` of the connector as reported: Available (or Reserved) is Unavailable while the station, the EVSE
        or the connector is Inoperative (ChangeAvailability, G03/G04), Faulted while the EVSE is (``fault_evse``)."""
        state = self.evses.get(evse_id)
        if status in ("Available", "Reserved") and state is not None and state.faulted:
            status = "Faulted"
        elif status in ("Available", "Reserved") and not self.connector_operative(evse_id, connector_id):
            status = "Unavailable"
        return {"timestamp": now_iso(), "connectorStatus": status, "evseId": evse_id, "connectorId": connector_id}

    def connector_operative(self, evse_id: int, connector_id: int) -> bool:
        state = self.evses.get(evse_id)
        return self.station_operative and (state is None or (state.operative and connector_id not in state.inoperative))

    def shown_status(self, evse_id: int, connector_id: int) -> str:
        """What the connector shows now: Occupied while a cable is in, Reserved while the EVSE is (a ReserveNow
        that came before the boot's reports), else Available (or Unavailable)."""
        state = self.evses[evse_id]
        free = "Reserved" if state.reservation is not None else "Available"
        return self.status_payload(evse_id, connector_id, "Occupied" if state.plugged else free)["connectorStatus"]


class ProvisioningStation16(ReconnectsOnLinkEnd, Block):
    versions = V16
    requires = ("ConfigurationStation16",)
    configurable = frozenset({"reconnects", "heartbeats"})   # reconnects False: a closed connection stays closed
    heartbeats = True       # False: no Heartbeat of its own; a load runner beats for it at its plan's times
    boot_retry = 5          # own wait before the next boot when the interval is 0 (1.6 section 4.2)
    main_operative: bool = store(default=True)
    _heartbeat_due: asyncio.TimerHandle | None = store()   # the next Heartbeat, once Accepted

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.connectors = {n: Connector(n) for n in connector_ids(self.profile)}
        self.registration: str | None = None
        self.links: list[OcppConnection] = []

    @property
    def online(self) -> bool:
        return self.connection is not None and not self.connection.closed and self.registration == "Accepted"

    async def connected(self, connection: OcppConnection) -> None:
        await super().connected(connection)
        self.links.append(connection)
        self.watch_link(connection)   # the central system closing it: connect again, with the current key
        self._schedule_heartbeat()   # reconnected without a boot (behaviour rule 4): the beat goes on

    def boots_on_reconnect(self) -> bool:
        return self.registration != "Accepted"

    async def stop(self) -> None:
        try:
            await super().stop()
        finally:
            if self._heartbeat_due is not None:
                self._heartbeat_due.cancel()
                self._heartbeat_due = None

    async def boot(self) -> dict:
        response = await self.boot_once()
        if response.get("status") == "Accepted":
            await self.registered(response)
        else:
            self.background.spawn(self._boot_again(self.connection, interval_of(response)))
        return response

    async def boot_once(self) -> dict:
        """One BootNotification; the interval read under either name."""
        mark = len(self.connection.history)
        try:
            response = await self.call("BootNotification", self.boot_payload())
        except PeerViolation as violation:
            response = interval_alias(self.version, self.connection.history[mark].response)
            if response is None:
                raise
            self.connection.violations.remove(violation)
            self.connection.violations.append(PeerViolation(
                Ref16.interval_name, "BootNotification.conf names the heartbeat interval heartbeatInterval",
                expected="interval", actual="heartbeatInterval"))
        self.boot_response, self.registration = response, response.get("status")
        return response

    async def _boot_again(self, connection: OcppConnection, interval: int) -> None:
        """Not Accepted: the interval is the least wait before the next BootNotification (1.6 section 4.2)."""
        if not await connection.wait_closed(interval or self.boot_retry) and connection is self.connection:
            await self.boot()

    async def registered(self, response: dict) -> None:
        """Accepted: the heartbeat interval is the central system's; report every connector."""
        self.config.set("HeartbeatInterval", str(interval_of(response)))
        for connector in self.in_any_order([None, *self.connectors.values()]):   # None: the main controller
            if connector is None:   # each status read as it is sent: a test may have changed it meanwhile
                status = self.connector_status(MAIN_CONTROLLER, "Available" if self.main_operative else "Unavailable")
            else:
                status = self.connector_status(connector.id, connector.status)
            await self.call("StatusNotification", status)
        self.went_online()
        self._schedule_heartbeat()

    def _schedule_heartbeat(self) -> None:
        """Once Accepted, a Heartbeat every HeartbeatInterval seconds (the boot's until the central system sets
        another; 0: none) on the open connection, counted from the last answer or setting (a timer, not a task:
        thousands of charge points of the load wait so at once)."""
        if self._heartbeat_due is not None:
            self._heartbeat_due.cancel()
            self._heartbeat_due = None
        if not self.heartbeats or not self.online:
            return
        interval = self.config.integer("HeartbeatInterval")
        if interval:
            self._heartbeat_due = asyncio.get_running_loop().call_later(interval, self._heartbeat_now, self.connection)

    def _heartbeat_now(self, connection: OcppConnection) -> None:
        self._heartbeat_due = None
        if connection is self.connection and self.online:
            self.background.spawn(self._heartbeat())

    async def _heartbeat(self) -> None:
        try:
            await self.call("Heartbeat", {})
        except (HarnessError, PeerViolation):
            pass
        if self._heartbeat_due is None:   # not set again meanwhile
            self._schedule_heartbeat()

    def configuration_changed(self, key: str, value: str, status: str) -> None:
        super().configuration_changed(key, value, status)
        self._schedule_heartbeat()   # HeartbeatInterval may have changed: the wait starts again

    async def _handle(self, call):
        if self.registration == "Rejected":   # while Rejected no central-system CALL is answered
            await asyncio.Event().wait()
        return await super()._handle(call)

    def boot_payload(self) -> dict:
        return {"chargePointVendor": str(self.profile.get("station.vendor", "evse-conformance"))[:20],
                "chargePointModel": str(self.profile.get("station.model", "reference"))[:20]}

    def connector_status(self, connector_id: int, status: str, error_code: str = "NoError") -> dict:
        return {"connectorId": connector_id, "errorCode": error_code, "status": status, "timestamp": now_iso()}

    def idle_status(self, connector: Connector) -> str:
        """What a connector without a transaction shows instead of Available: Faulted, Unavailable once
        Inoperative (ChangeAvailability), Reserved (ReserveNow)."""
        if connector.faulted:
            return "Faulted"
        if not connector.operative:
            return "Unavailable"
        return "Reserved" if connector.reservation is not None else "Available"

    async def set_status(self, connector: Connector, status: str, *, changed_only: bool = False) -> None:
        """``status`` reported for ``connector`` (Available as its idle status); ``changed_only``: only
        when it differs from the one reported last."""
        if status == "Available":
            status = self.idle_status(connector)
        if changed_only and status == connector.status:
            return
        connector.status = status
        if self.online:
            await self.call("StatusNotification", self.connector_status(
                connector.id, status, "OtherError" if status == "Faulted" else "NoError"))

    async def set_main_status(self, operative: bool) -> None:
        """The main controller (connector 0): Available or Unavailable."""
        if operative != self.main_operative:
            self.main_operative = operative
            if self.online:
                await self.call("StatusNotification", self.connector_status(
                    MAIN_CONTROLLER, "Available" if operative else "Unavailable"))


# ----------------------------------------------------------------------------------------- the CSMS
class RegistrationCsms(Block):
    """What both versions' CSMS do alike at a boot: answer it with the registration status set for the station
    (``registration``: configured, or ``set_registration`` at a CSMS under test, undone by Accepted), with the
    heartbeat interval when Accepted and ``retry_interval`` otherwise. Composed through its versions' subclasses."""
    versions = EVERY_VERSION
    undone_by = {"set_registration": lambda body: ("set_registration", {"status": "Accepted"})}
    configurable = frozenset({"registration", "retry_interval"})
    csms_wide = frozenset({"set_registration"})   # a CSMS may have one registration answer for every station
    registration = "Accepted"   # how BootNotifications are answered (B02/BOOT16 Pending, B03 Rejected)
    registration_of: dict[str, str] = store(dict)   # a station's own answer (set_registration with "station")
    retry_interval = 1          # the interval of a Pending or Rejected answer: the wait before the next boot

    accepted: set[str] = store(set)   # the stations whose last boot was answered Accepted
    own_read: tuple[str, dict] = ("", {})   # a CALL that reads a setting of the station (its version's)

    def on_BootNotification(self, session: StationSession, payload: dict) -> dict:
        status = self.boot_status(session, self.registration_of.get(session.identity, self.registration))
        self.registration_answered(session, status)
        (self.accepted.add if status == "Accepted" else self.accepted.discard)(session.identity)
        variance = self.server.variance
        soon = variance.read_after_boot() if status == "Accepted" and variance is not None else None
        if soon is not None:
            self.background.spawn(self._read(session.identity, variance, after=soon))
        interval = self.heartbeat_interval if status == "Accepted" else self.retry_interval
        return {"currentTime": now_iso(), "interval": interval, "status": status}

    def vary(self, variance: Variance) -> None:
        """Under variance, also a read of its own (``own_read``) now and then of each accepted station, and at
        random one soon after its boot is accepted, as many CSMSs do."""
        super().vary(variance)
        if variance.allows("ocpp.unsolicited_read"):
            self.background.spawn(self._unsolicited_reads(variance))

    async def perform(self, action: str, body: dict[str, Any]) -> None:
        """Under variance, at random a read of its own first, as a CSMS that looks before it changes something."""
        variance = self.server.variance
        if variance is not None and variance.read_first():
            self.background.spawn(self._read(body.get("station") or self.profile.identity, variance))
        await super().perform(action, body)

    async def _unsolicited_reads(self, variance: Variance) -> None:
        while True:
            await asyncio.sleep(variance.pause())
            for identity in list(self.accepted):
                await self._read(identity, variance)

    async def _read(self, identity: str, variance: Variance, *, after: float = 0) -> None:
        """A CSMS may query an accepted station whenever it likes (variance row ``ocpp.unsolicited_read``); what
        the station answers is no test's to judge here."""
        await asyncio.sleep(after)
        session = self.sessions.get(identity)
        if identity not in self.accepted or session is None or session.connection is None or session.connection.closed:
            return
        variance.took("ocpp.unsolicited_read")
        with contextlib.suppress(Exception):
            await session.connection.call(*self.own_read)

    def registration_answered(self, session: StationSession, status: str) -> None:
        """The station's boot was answered ``status`` (a hook: 2.x keeps it to refuse what may not follow)."""

    async def act_set_registration(self, status: str, station: str | None = None) -> None:
        """How the next BootNotifications are answered: Accepted, Pending or Rejected; those of ``station``
        alone when given (a CSMS serving several stations), else of every station."""
        if status not in REGISTRATION_STATUSES:
            raise HarnessError(f"registration status {status!r} is not one of {REGISTRATION_STATUSES}")
        if station is None:
            self.registration = status
        else:
            self.registration_of[station] = status


# What a station answered Pending may send besides BootNotification (B02.FR.09): what the CSMS asked it for. The
# reference CSMS asks a Pending station only for reports (GetBaseReport, GetReport), never with TriggerMessage.
ASKED_WHILE_PENDING = frozenset({"BootNotification", "NotifyReport"})


class ProvisioningCsms2x(RegistrationCsms):
    """B02.FR.09, B03.FR.07: a CALL from a station whose last boot was answered Pending (but a report it was asked
    for) or Rejected (but its next boot) is answered CALLERROR SecurityError."""
    versions = V2X

    own_read = ("GetVariables", {"getVariableData": [{"component": {"name": "OCPPCommCtrlr"},
                                                       "variable": {"name": "HeartbeatInterval"}}]})

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.not_accepted: dict[str, str] = {}   # identity → Pending or Rejected: how its last boot was answered

    def registration_answered(self, session: StationSession, status: str) -> None:
        if status == "Accepted":
            self.not_accepted.pop(session.identity, None)
        else:
            self.not_accepted[session.identity] = status
        super().registration_answered(session, status)

    async def dispatch(self, session: StationSession, call: Call) -> dict[str, Any]:
        status = self.not_accepted.get(session.identity)
        allowed = ASKED_WHILE_PENDING if status == "Pending" else {"BootNotification"}
        if status is not None and call.action not in allowed:
            raise CallErrorReply("SecurityError", f"{call.action} from a station whose boot was answered {status}")
        return await super().dispatch(session, call)

    def on_NotifyEvent(self, session: StationSession, payload: dict) -> dict:
        return {}


class ProvisioningCsms16(RegistrationCsms):
    versions = V16
    resumes_sessions = True
    own_read = ("GetConfiguration", {"key": ["HeartbeatInterval"]})
