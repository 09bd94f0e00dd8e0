"""One simulated station: the reference station (harness.reference) with a roster card, run to a plan.

Everything the station says is the reference's: its boot (BootNotification, a StatusNotification per
connector), its Authorize, its transactions through the actuator actions the suites use (``plug_in``,
``present_id_token`` / ``present_id_tag``, ``unplug``) with meter values from its own sampler (2.x
``tx_updated_interval``, 1.6 MeterValueSampleInterval), and its answers to whatever the CSMS sends. The
load adds the card's identity, password and serial number, the plan's timing, and the Heartbeats: the
plan's, at a random phase, instead of the station's own timer (off: ``heartbeats``), so that the fleet holds
one timer (``harness.load.timers``) and no station beats twice. A 2.x station beats at the plan's period or
the boot's interval; a 1.6 charge point at its HeartbeatInterval, which the load sets as an operator would,
through ChangeConfiguration, and which the central system may change (followed at once).

Round trips are measured on the wire (``harness.load.wire``), so the reference's background CALLs count too.
"""

from __future__ import annotations

import asyncio
import collections
import functools
from collections.abc import Callable, Iterable
from typing import Any

from harness.errors import HarnessError, PeerViolation
from harness.ocpp.versions import OcppVersion
from harness.profile import Profile
from harness.profile import from_dict as profile_from_dict
from harness.reference import references_for
from harness.reference.base import StationBase
from harness.transport.ws import CallFailed
from harness.load.mix import Activity, Draws, Mix, Plan
from harness.load.recorder import Recorder
from harness.load.timers import Wheel
from harness.load.roster import Card
from harness.load.wire import WireMeter, forget_answered

RECONNECT_DELAY = 5.0    # seconds before a station whose connection failed or closed tries again
EVSE = 1                 # every simulated station has one EVSE with one connector


def load_profile(call_timeout: float) -> Profile:
    """What every simulated station shares: the layout (one EVSE, one AC connector), vendor, model, timeouts."""
    return profile_from_dict({"station": {"vendor": "evse-conformance", "model": "load", "evse": [{"id": EVSE}]},
                              "timeouts": {"call": call_timeout}}, "<load>")


@functools.cache
def station_class(version: OcppVersion) -> type[StationBase]:
    """The reference station of ``version``, with a roster card's serial number in its boot."""
    reference = references_for(version)[1]

    class LoadStation(reference):
        reconnects = False   # the runner reconnects, alike in every version; on the class, not set per station
        heartbeats = False   # the plan beats (harness.load.mix), for the fleet on one timer

        def __init__(self, *args: Any, serial: str, meter_interval: float, runner: StationRunner | None = None,
                     **kwargs: Any):
            """Every key a station of the load sets is set here: CPython then shares one key table among all
            the stations (``common.store``); a key added later, once thousands exist, costs each ~1.6 KB."""
            super().__init__(*args, **kwargs)
            self.serial = serial
            if version.is_2x:
                self.configure(tx_updated_interval=meter_interval)
            else:
                self.runner = runner   # told the charge point's HeartbeatInterval

        if not version.is_2x:
            def _schedule_heartbeat(self) -> None:
                """1.6: where the charge point would set its own timer (Accepted, reconnected, HeartbeatInterval
                changed) its runner's plan beats at HeartbeatInterval instead (0: no Heartbeat)."""
                if self.runner is not None and self.online:
                    self.runner.heartbeat_interval(self.config.integer("HeartbeatInterval"))

        def boot_payload(self) -> dict:
            payload = super().boot_payload()
            if version.is_2x:
                payload["chargingStation"]["serialNumber"] = self.serial
            else:
                payload["chargePointSerialNumber"] = self.serial
            return payload

    LoadStation.__name__ = LoadStation.__qualname__ = f"Load{reference.__name__}"
    return LoadStation


def share_connection_keys() -> None:
    """websockets' client connection gets ``transport`` and ``recv_messages`` when its socket is up, after its
    ``__init__``: once thousands of connections exist, CPython no longer adds such a key to the class's shared key
    table, and each connection takes a dictionary of its own (~1.6 KB). One connection made here first, before any
    station, with those keys set, puts them in the table for all (call it in the running loop, once)."""
    from websockets.asyncio.client import ClientConnection
    from websockets.client import ClientProtocol
    from websockets.uri import parse_uri
    first = ClientConnection(ClientProtocol(parse_uri("ws://127.0.0.1/")))
    first.transport = first.recv_messages = None   # type: ignore[assignment]
    first.connection_lost_waiter.cancel()
    first.response_rcvd.cancel()


class FrameQueue(list):
    """websockets' queue of a connection's incoming frames, as a list: what its ``SimpleQueue`` does with its deque
    (``append``, ``popleft``, ``extendleft``, ``len``), for the few frames a station has unread at once (websockets
    pauses reading past 16), at 56 bytes empty instead of ~0.7 KB."""
    __slots__ = ()

    def popleft(self) -> Any:
        return self.pop(0)

    def extendleft(self, items: Iterable[Any]) -> None:
        """As a deque's: each item put at the front in turn, so the last one given comes first."""
        self[0:0] = reversed(list(items))


class StationRunner:
    """Connects one station, boots it, and performs its plan until cancelled."""

    def __init__(self, card: Card, *, url: str, version: OcppVersion, mix: Mix, profile: Profile,
                 meter: WireMeter, recorder: Recorder, clock: Callable[[], float], seed: int, wheel: Wheel):
        self.card = card
        self.wheel = wheel
        self.url = url
        self.version = version
        self.mix = mix
        self.meter = meter
        self.recorder = recorder
        self.clock = clock
        self.plan = Plan(mix, Draws(f"{seed}/{card.index}"), clock())
        self._waiter: asyncio.Future | None = None   # the wait for the plan's next step, while it lasts
        self.station = station_class(version)(profile, version, identity=card.identity,
                                              password=card.basic_auth(version), wirelog=meter, serial=card.serial,
                                              meter_interval=mix.meter_interval, runner=self)
        if not version.is_2x:
            self._operator_sets("MeterValueSampleInterval", mix.meter_interval)
        self._booted = False        # a BootNotification went out (1.6: the charge point boots again by itself)
        self._planned = False       # accepted, and the plan's heartbeat settled

    async def run(self, on_change: Callable[[int], None]) -> None:
        """The station's life, until the task is cancelled (the load is over); ``on_change(+1 / -1)`` as its
        connection opens and closes."""
        connected = False
        try:
            while True:
                if await self._connect():
                    on_change(+1)
                    connected = True
                    await self._live()
                    connected = False
                    on_change(-1)
                    self.meter.unanswered(self.card.identity)
                    self.recorder.error("connection closed by the CSMS", self.clock())
                await asyncio.sleep(RECONNECT_DELAY)
        finally:
            if connected:
                on_change(-1)
            self.meter.unanswered(self.card.identity, count=False)
            await self.station.stop()
            if not self.version.is_2x:
                self.station.runner = None   # no cycle: a stopped station is freed at once

    async def _connect(self) -> bool:
        started = self.clock()
        try:
            handshake = await self.station.connect(self.url, boot=False)
        except HarnessError as error:
            self.recorder.error(f"connect failed: {_reason(error)}", self.clock())
            return False
        if handshake.status is not None:
            self.recorder.error(f"connect refused: HTTP {handshake.status}", self.clock())
            return False
        if handshake.subprotocol is None:
            self.recorder.error(f"connect: the CSMS does not speak {self.version.value}", self.clock())
            await self.station.stop()
            return False
        self.recorder.round_trip("connect", self.clock() - started, self.clock())
        ws = handshake.connection.ws   # the handshake's request and headers (~4.6 KB) are read by now: a
        ws.request = None              # station of the load keeps its link (websockets needs a response)
        ws.response.headers.clear()
        if isinstance(ws.drain_waiters, collections.deque) and not ws.drain_waiters:
            ws.drain_waiters = []   # appended to, removed from, iterated (~0.6 KB as an empty deque, 56 bytes so)
        frames = getattr(getattr(ws, "recv_messages", None), "frames", None)   # websockets' incoming frames
        if isinstance(getattr(frames, "queue", None), collections.deque) and not frames.queue:
            frames.queue = FrameQueue()   # ~0.7 KB as an empty deque: a station's largest allocation
        return True

    async def _live(self) -> None:
        connection = self.station.connection
        closed = connection.reader   # waited on, never cancelled: a task less per station
        while not connection.closed:
            if not self._accepted():
                if self.version.is_2x or not self._booted:
                    await self._step(self._boot())
                if not self._accepted():   # the boot interval is the least wait before the next (B02, 1.6 4.2)
                    await self.wheel.until(closed, (self.station.boot_response or {}).get("interval") or RECONNECT_DELAY)
                    continue
            if not self._planned:
                self._settle_heartbeat()
            step, now = self.plan.peek(), self.clock()
            self._waiter = waiter = asyncio.get_running_loop().create_future()
            try:
                await self.wheel.until(closed, None if step is None else step.at - now, waiter=waiter)
            finally:
                self._waiter = None
            # due, unless the plan changed meanwhile (woken early: True; or changed once due): then look again
            if step is not None and not connection.closed and not waiter.result() and self.plan.peek() is step:
                self.plan.next(now)
                await self._step(self._perform(step.activity))

    def heartbeat_interval(self, seconds: int) -> None:
        """1.6: the charge point's HeartbeatInterval, once Accepted and at each change: the plan beats at it from
        now on (at a new random phase; 0: no Heartbeat), and a wait for a later step ends to take it."""
        if seconds == (self.plan.heartbeat or 0):
            return   # reconnected, or set to what it was: the beat goes on at its phase
        self.plan.beat_every(seconds, self.clock())
        if self._waiter is not None and not self._waiter.done():
            self._waiter.set_result(True)

    def _accepted(self) -> bool:
        if self.version.is_2x:
            return (self.station.boot_response or {}).get("status") == "Accepted"
        return self.station.registration == "Accepted"

    async def _boot(self) -> None:
        self._booted = True
        response = await self.station.boot()
        if response.get("status") != "Accepted":
            self.recorder.error(f"boot answered {response.get('status')}", self.clock(), "BootNotification")

    def _settle_heartbeat(self) -> None:
        """Accepted: 2.x beats at the plan's period or the CSMS's interval; the 1.6 charge point at its
        HeartbeatInterval (``heartbeat_interval``), set to the plan's period when one is given."""
        self._planned = True
        if self.version.is_2x:
            if self.mix.heartbeat is None:
                self.plan.beat_every(self.station.boot_response["interval"], self.clock())
        elif self.mix.heartbeat is not None:
            self._operator_sets("HeartbeatInterval", self.mix.heartbeat)

    async def _perform(self, activity: Activity) -> None:
        station, card = self.station, self.card
        if activity is Activity.HEARTBEAT:
            await station.call("Heartbeat", {})
        elif activity is Activity.AUTHORIZE:
            await station.authorize(card.token() if self.version.is_2x else card.id_token)
        elif self.version.is_2x:
            if activity is Activity.START:
                await station.perform("plug_in", {"evse_id": EVSE})
                await station.perform("present_id_token", {"id_token": card.token(), "evse_id": EVSE})
            else:
                await station.perform("unplug", {"evse_id": EVSE})
        elif activity is Activity.START:
            await station.perform("plug_in", {"connector_id": EVSE})
            await station.perform("present_id_tag", {"id_tag": card.id_token, "connector_id": EVSE})
        else:
            await station.perform("unplug", {"connector_id": EVSE})

    async def _step(self, work) -> None:
        """Run one step; count what went wrong that the wire meter does not see (invalid answers, our errors)."""
        try:
            await work
        except (CallFailed, PeerViolation):
            pass     # a CALLERROR or no answer: counted on the wire; an invalid answer: below
        except HarnessError as error:
            if not self.station.connection.closed:
                self.recorder.error(f"station: {_reason(error)}", self.clock())
        self._collect()

    def _collect(self) -> None:
        """Count the peer's rule breaks and the station's own failures since the last step, then forget them
        (and the answered exchanges: the load keeps no wire log)."""
        connection = self.station.connection
        for violation in connection.violations:
            self.recorder.error(f"invalid answer [{violation.rule.id}]", self.clock())
        connection.violations.clear()
        for failure in self.station.background.failures:
            if not isinstance(failure, (CallFailed, PeerViolation)) and not connection.closed:
                self.recorder.error(f"station: {_reason(failure)}", self.clock())
        self.station.background.failures.clear()
        if not len(getattr(self.station, "queue", ())):   # 1.6: a queued message is read back by position
            forget_answered(connection)

    def _operator_sets(self, key: str, seconds: float) -> None:
        """1.6: a configuration key set as the operator would, through the reference's ChangeConfiguration
        (whole seconds: a period under a second is one second; 0 stays 0, none)."""
        whole = max(1, round(seconds)) if seconds > 0 else 0
        self.station.on_ChangeConfiguration(None, {"key": key, "value": str(whole)})


def _reason(error: BaseException) -> str:
    """An error's kind, never its text: the text names the station, and errors are counted by kind."""
    return type(error.__cause__ or error).__name__
