"""Availability: the CSMS makes a connector, an EVSE or the whole station operative or inoperative
(ChangeAvailability), and the station reports what its connectors show (StatusNotification).

Station 2.x (OCPP 2.0.1 part 2 G03/G04, docs/requirements/availability.md): ChangeAvailability without
``evse`` addresses the whole station, with ``evse`` (and ``connectorId``) one EVSE (one connector); an EVSE
or connector it does not have is Rejected. A change is Accepted and each idle connector whose status it
changes reports it (Unavailable, or Available again); Inoperative for a target where a transaction runs is
Scheduled: the transaction goes on and its connector reports Unavailable once it is free. What a connector
shows is the provisioning block's (``status_payload``). ``availability_refused``: every request Rejected.

The actions ``fail_lock`` and ``repair_lock`` (G05) report a connector's cable lock failing and mended
(NotifyEvent of ConnectorPlugRetentionLock.Problem, true / false). ``fault_evse`` makes an idle EVSE Faulted
(its connectors report Faulted; a reservation it held is removed: ``evse_faulted``, the reservation block's) and
``clear_evse_fault`` well again (its connectors report what they show).

Central system 2.x: ChangeAvailability as an actuator action; an Inoperative change is undone with Operative,
and the undoing waits for the station to report its connectors out of Unavailable (``operative_again``).

Availability (1.6 Core): the central system makes a connector, or the whole charge point, operative
or inoperative with ChangeAvailability.

Charge point 1.6 (spec 002 ChangeAvailability; AvailabilityStatus; ChargePointStatus; What the service
does 8): connectorId 0 addresses the whole charge point, another id one connector; an id it does not
have is Rejected. An idle connector changes at once (Accepted) and reports its new status
(Unavailable, or Available / Reserved again) in a StatusNotification, only when it changed; one with
a running transaction keeps charging and the answer is Scheduled: it becomes Unavailable when the
transaction ends. Connector 0 also reports the main controller. An inoperative connector starts no
transaction. ``availability_refused`` makes every request Rejected (a charge point that cannot change
its availability now). The actions ``fault_connector`` and ``clear_fault`` make an idle connector
Faulted (StatusNotification Faulted, errorCode OtherError) and well again (its idle status).

Central system 1.6: ChangeAvailability as an actuator action; an Inoperative change undone as in 2.x.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from harness.errors import HarnessError
from harness.ocpp.v16 import WHOLE_CHARGE_POINT
from harness.reference.common import V2X, V16, Block, Undo, now_iso, store
from harness.reference.model import EvseState


REPORTED_WITHIN = 4.0   # seconds an undo waits for the station's reports (the arena bounds one step at 5)
# what a StatusNotification is about (a connector) and the status it reports, per version
STATUS_16 = (lambda p: p.get("connectorId"), "status")
STATUS_2X = (lambda p: (p.get("evseId"), p.get("connectorId")), "connectorStatus")


async def operative_again(link: Any, operative: dict, shape: tuple[Callable[[dict], Any], str],
                          addressed: Callable[[Any], bool]) -> Any:
    """The undoing of an Inoperative change at a station under test: ChangeAvailability ``operative`` on ``link``,
    then, once Accepted, the StatusNotification (answered) of every ``addressed`` connector the station last
    reported Unavailable on the link, in another status. The test ends only then: its end closed the connection
    while the station was still reporting, and the reference charge point (a real one may do the same) kept the
    status it had last reported for the connectors it had not reached yet (Unavailable), so a later Inoperative
    changed nothing there and reported nothing (AVAIL16 played in reverse twice against one charge point)."""
    about, field = shape

    def status_notification(exchange: Any) -> bool:
        return exchange.incoming and exchange.action == "StatusNotification"
    last = {about(e.request): e.request.get(field) for e in link.history if status_notification(e)}
    waiting = sorted((key for key, status in last.items() if status == "Unavailable" and addressed(key)), key=str)
    start = len(link.history)
    exchange = await link.call_exchange("ChangeAvailability", operative)
    if exchange.error is not None or (exchange.response or {}).get("status") != "Accepted" or not waiting:
        return exchange   # Scheduled: a transaction runs there, and its connector reports what it shows

    async def reported_back(key: Any) -> bool:
        return await link.wait_for(lambda e: status_notification(e) and about(e.request) == key
                                   and e.request.get(field) != "Unavailable", REPORTED_WITHIN, start=start) is not None
    silent = [key for key, back in zip(waiting, await asyncio.gather(*map(reported_back, waiting))) if not back]
    if silent:
        raise HarnessError(f"the station accepted ChangeAvailability {operative} but reported no other status than "
                           f"Unavailable within {REPORTED_WITHIN:g} s for {', '.join(map(str, silent))}, which it "
                           f"had reported Unavailable: the next test may find it so")
    return exchange


# -------------------------------------------------------------------------------------------- 2.x
class AvailabilityStation2x(Block):
    versions = V2X
    undone_by = {"fail_lock": lambda body: ("repair_lock", body),
                 "fault_evse": lambda body: ("clear_evse_fault", body)}
    requires = ("ProvisioningStation2x", "TransactionsStation2x")
    configurable = frozenset({"availability_refused"})
    availability_refused = False

    scheduled_changes: set[int] = store(set)   # EVSEs whose change waits for their transaction's end

    def on_ChangeAvailability(self, _: None, payload: dict) -> dict:
        operative, evse = payload["operationalStatus"] == "Operative", payload.get("evse")
        state = self.evses.get(evse["id"]) if evse is not None else None
        connector = evse.get("connectorId") if evse is not None else None
        if self.availability_refused or (evse is not None and (
                state is None or (connector is not None and connector not in state.evse.connectors))):
            return {"status": "Rejected"}
        targets = list(self.evses.values()) if state is None else [state]
        shown = {(s.evse.id, c): self.shown_status(s.evse.id, c) for s in targets for c in s.evse.connectors}
        if evse is None:
            self.station_operative = operative
        elif connector is None:
            state.operative = operative
        elif operative:
            state.inoperative.discard(connector)
        else:
            state.inoperative.add(connector)
        busy = {s.evse.id for s in targets if s.busy}   # these report once their transaction ended
        self.scheduled_changes |= busy
        changed = [(e, c) for (e, c), before in shown.items() if e not in busy and self.shown_status(e, c) != before]
        self.background.spawn(self._report(changed))
        return {"status": "Scheduled" if busy and not operative else "Accepted"}

    def transaction_ended(self, outlet: int) -> None:
        super().transaction_ended(outlet)
        if outlet in self.scheduled_changes:
            self.scheduled_changes.discard(outlet)
            state = self.evses[outlet]
            changed = [(outlet, c) for c in state.evse.connectors if self.shown_status(outlet, c) == "Unavailable"]
            self.background.spawn(self._report(changed))   # queued behind the TransactionEvent Ended

    async def act_fail_lock(self, evse_id: int = 1, connector_id: int | None = None) -> None:
        """G05: the connector's cable lock fails: NotifyEvent ConnectorPlugRetentionLock.Problem true."""
        self.background.spawn(self._lock_problem(evse_id, connector_id, True))   # the CSMS's answer is the test's

    async def act_repair_lock(self, evse_id: int = 1, connector_id: int | None = None) -> None:
        self.background.spawn(self._lock_problem(evse_id, connector_id, False))

    async def act_fault_evse(self, evse_id: int = 1) -> None:
        """The idle EVSE becomes Faulted: its connectors report Faulted; what it held is the hook's."""
        state = self.evses[evse_id]
        state.faulted = True
        await self._report([(evse_id, c) for c in state.evse.connectors])
        self.evse_faulted(state)

    async def act_clear_evse_fault(self, evse_id: int = 1) -> None:
        state = self.evses[evse_id]
        state.faulted = False
        for connector in state.evse.connectors:
            await self.send_and_go_on("StatusNotification", self.status_payload(evse_id, connector, self.shown_status(
                evse_id, connector)))

    def evse_faulted(self, state: EvseState) -> None:
        """The EVSE of ``state`` became Faulted (the reservation block removes its reservation)."""

    async def _lock_problem(self, evse_id: int, connector_id: int | None, problem: bool) -> None:
        connector = connector_id or self.evses[evse_id].evse.connectors[0]
        self._event_ids = getattr(self, "_event_ids", 0) + 1
        await self.call("NotifyEvent", {"generatedAt": now_iso(), "seqNo": 0, "eventData": [{
            "eventId": self._event_ids, "timestamp": now_iso(), "trigger": "Delta",
            "actualValue": "true" if problem else "false", "eventNotificationType": "HardWiredNotification",
            "component": {"name": "ConnectorPlugRetentionLock", "evse": {"id": evse_id, "connectorId": connector}},
            "variable": {"name": "Problem"}}]})

    async def _report(self, changed: list[tuple[int, int]]) -> None:
        for evse_id, connector in self.in_any_order(changed):   # one refused report does not keep back the next
            await self.send_and_go_on("StatusNotification", self.status_payload(evse_id, connector, "Available"))


class AvailabilityCsms2x(Block):
    versions = V2X

    async def undo_ChangeAvailability(self, payload: dict, link: Any) -> Undo | None:
        """What was made Inoperative (the station, an EVSE, a connector) is made Operative again."""
        if payload["operationalStatus"] != "Inoperative":
            return None
        operative = {k: v for k, v in payload.items() if k == "evse"} | {"operationalStatus": "Operative"}
        evse = payload.get("evse") or {}

        def addressed(key: tuple[int, int]) -> bool:   # (evseId, connectorId) of a StatusNotificationRequest
            return all(want is None or want == got for want, got in zip((evse.get("id"), evse.get("connectorId")), key))
        return Undo(f"make {payload.get('evse', 'the station')} operative",
                    lambda now: operative_again(now, operative, STATUS_2X, addressed))

    async def act_change_availability(self, operational_status: str, evse: dict | None = None,
                                      station: str | None = None) -> None:
        payload: dict[str, Any] = {"operationalStatus": operational_status}
        if evse is not None:
            payload["evse"] = evse
        self.send(station, "ChangeAvailability", payload)


# -------------------------------------------------------------------------------------------- 1.6


class AvailabilityStation16(Block):
    versions = V16
    undone_by = {"fault_connector": lambda body: ("clear_fault", body)}
    requires = ("ProvisioningStation16", "TransactionsStation16")
    configurable = frozenset({"availability_refused"})
    availability_refused = False

    def on_ChangeAvailability(self, _: None, payload: dict) -> dict:
        connector_id, operative = payload["connectorId"], payload["type"] == "Operative"
        whole = connector_id == WHOLE_CHARGE_POINT
        if self.availability_refused or not (whole or connector_id in self.connectors):
            return {"status": "Rejected"}
        targets = list(self.connectors.values()) if whole else [self.connectors[connector_id]]
        for connector in targets:
            connector.operative = operative
        self.background.spawn(self._report(targets, operative if whole else None))
        busy = any(c.transaction is not None for c in targets)
        return {"status": "Scheduled" if busy and not operative else "Accepted"}

    async def act_fault_connector(self, connector_id: int = 1) -> None:
        connector = self.connectors[connector_id]
        connector.faulted = True
        await self.set_status(connector, "Faulted")

    async def act_clear_fault(self, connector_id: int = 1) -> None:
        connector = self.connectors[connector_id]
        connector.faulted = False
        await self.set_status(connector, "Available")

    async def _report(self, targets: list, main: bool | None) -> None:
        """The new status of every idle connector changed (and of the main controller for connector 0)."""
        if main is not None:
            await self.set_main_status(main)
        for connector in targets:
            if connector.transaction is None and connector.status in ("Available", "Reserved", "Unavailable"):
                await self.set_status(connector, "Available", changed_only=True)


class AvailabilityCsms16(Block):
    versions = V16

    async def undo_ChangeAvailability(self, payload: dict, link: Any) -> Undo | None:
        """A connector made Inoperative is made Operative again."""
        if payload["type"] != "Inoperative":
            return None
        connector_id = payload["connectorId"]
        operative = {"connectorId": connector_id, "type": "Operative"}
        return Undo(f"make connector {connector_id} operative", lambda now: operative_again(
            now, operative, STATUS_16, lambda key: connector_id in (WHOLE_CHARGE_POINT, key)))

    async def act_change_availability(self, connector_id: int, type: str, station: str | None = None) -> None:
        self.send(station, "ChangeAvailability", {"connectorId": connector_id, "type": type})

