"""Reservation: ReserveNow and CancelReservation (1.6; 2.x: H01-H04, docs/requirements/reservation.md).

Charge point 1.6 (spec 002 ReserveNow, CancelReservation; ReservationStatus, CancelReservationStatus;
Behavior rule 9; the Reservation moves):
- ReserveNow on a connector, or on connector 0 (any connector: held on the first free one, and the
  reserved idTag may charge on any connector), until expiryDate, for an idTag and optionally its group
  (parentIdTag); a new reservation with the id of an existing one replaces it;
- the answer: Faulted, Unavailable (Inoperative) or Occupied (a transaction, a cable, an idTag or
  another reservation already there) when no connector asked for is free; Rejected for a connector it
  does not have, or when ``reservations_refused`` (not configured for reservations); else Accepted,
  and the connector reports Reserved;
- a reserved connector refuses every other idTag without asking the central system, unless the
  reservation names a group: then the idTag is authorized and refused unless its parentIdTag is the
  group's; the reservation's idTag (or group) starts a transaction whose StartTransaction carries the
  reservationId, which releases the reservation;
- at the expiry the reservation is released and the connector reports Available;
- CancelReservation of an active reservation releases it (Accepted), otherwise Rejected.

Station 2.x (OCPP 2.0.1 and 2.1 H01-H04): ReserveNowRequest for an EVSE (evseId), for any EVSE with a
connector of a type (connectorType: the profile's ``station.connector_type``, cType2 by default) or for any
EVSE, held on the first free one that fits, which reports its connectors Reserved; until expiryDateTime, for
an idToken and optionally a groupIdToken; a new reservation with the id of an existing one replaces it.
Rejected for an EVSE or connector type it does not have, or when ``reservations_refused``; Faulted when every
EVSE asked for is Faulted, Unavailable when none is operative (G03, G04), Occupied when no EVSE that fits is free
(a transaction, a cable or another reservation). A reserved EVSE starts no
transaction for another token (nor a remote start: Rejected) unless its groupIdToken is the reservation's;
the reserved token's (or group's) TransactionEvent Started carries reservationId, which ends the
reservation. At the expiry the reservation ends: ReservationStatusUpdate Expired and the connectors report
Available. CancelReservation of an active reservation ends it (Accepted, Available), otherwise Rejected.

Central system 1.6, CSMS 2.x: both messages as actuator actions; 2.x answers ReservationStatusUpdate.
"""

from __future__ import annotations

import asyncio
from typing import Any

from harness import clock
from harness.ocpp.meter16 import parse_time
from harness.ocpp.v16 import WHOLE_CHARGE_POINT
from harness.reference.common import V2X, V16, Block, Undo
from harness.reference.model import Connector, EvseReservation, EvseState, Reservation
from harness.reference.tokens import token_key


def _same(a: str | None, b: str | None) -> bool:
    return a is not None and b is not None and a.casefold() == b.casefold()


def for_tag(reservation: Reservation, id_tag: str, parent: str | None) -> bool:
    """The reservation is ``id_tag``'s, or its group's (equal parentIdTag)."""
    return _same(reservation.id_tag, id_tag) or _same(reservation.parent, parent)


class ReservationStation16(Block):
    versions = V16
    requires = ("ProvisioningStation16", "TransactionsStation16", "ConfigurationStation16")
    configurable = frozenset({"reservations_refused"})
    reservations_refused = False

    def on_ReserveNow(self, _: None, payload: dict) -> dict:
        requested = payload["connectorId"]
        if self.reservations_refused or not (requested in self.connectors or (
                requested == WHOLE_CHARGE_POINT and self.config.flag("ReserveConnectorZeroSupported"))):
            return {"status": "Rejected"}
        reservation = Reservation(payload["reservationId"], requested, payload["idTag"], payload.get("parentIdTag"),
                                  parse_time(payload["expiryDate"]))
        self._release(reservation.id)
        asked = list(self.connectors.values()) if requested == WHOLE_CHARGE_POINT else [self.connectors[requested]]
        free = [c for c in asked if c.operative and not c.faulted and c.transaction is None and not c.plugged
                and c.authorized is None and c.reservation is None]
        if not free:
            return {"status": "Faulted" if all(c.faulted for c in asked) else
                    "Unavailable" if all(not c.operative for c in asked) else "Occupied"}
        connector = free[0]
        connector.reservation = reservation
        self.background.spawn(self.set_status(connector, "Available"))
        self.background.spawn(self._expire(connector, reservation))
        return {"status": "Accepted"}

    def on_CancelReservation(self, _: None, payload: dict) -> dict:
        return {"status": "Accepted" if self._release(payload["reservationId"]) else "Rejected"}

    def _holder(self, reservation_id: int) -> Connector | None:
        return next((c for c in self.connectors.values()
                     if c.reservation is not None and c.reservation.id == reservation_id), None)

    def _release(self, reservation_id: int) -> bool:
        """The reservation is over: its connector reports its idle status again. False: none had the id."""
        connector = self._holder(reservation_id)
        if connector is None:
            return False
        connector.reservation = None
        if connector.transaction is None:
            self.background.spawn(self.set_status(connector, "Available"))
        return True

    async def _expire(self, connector: Connector, reservation: Reservation) -> None:
        await asyncio.sleep(max(0.0, (reservation.expiry - clock.utcnow()).total_seconds()))
        if connector.reservation is reservation:
            self._release(reservation.id)

    def reservation_refuses(self, connector: Connector, id_tag: str, parent: str | None) -> bool:
        """A connector reserved for another idTag (and not for the group of ``parent``) refuses it."""
        return connector.reservation is not None and not for_tag(connector.reservation, id_tag, parent)

    def claim_reservation(self, connector: Connector, id_tag: str, parent: str | None) -> int | None:
        """The reservation a transaction of ``id_tag`` at ``connector`` uses (its own connector's, or one
        on connector 0), released; its id for StartTransaction.reservationId. None: none."""
        holders = [connector] + [c for c in self.connectors.values() if c is not connector and c.reservation
                                 and c.reservation.requested == WHOLE_CHARGE_POINT]
        holder = next((c for c in holders if c.reservation and for_tag(c.reservation, id_tag, parent)), None)
        if holder is None:
            return None
        reservation_id = holder.reservation.id
        holder.reservation = None
        if holder is not connector:
            self.background.spawn(self.set_status(holder, "Available"))
        return reservation_id


class ReservationCsms16(Block):
    versions = V16

    async def undo_ReserveNow(self, payload: dict, link: Any) -> Undo:
        cancel = {"reservationId": payload["reservationId"]}
        return Undo(f"cancel the reservation {cancel}", lambda now: now.call_exchange("CancelReservation", cancel))

    async def act_reserve_now(self, connector_id: int, expiry_date: str, id_tag: str, reservation_id: int,
                              parent_id_tag: str | None = None, station: str | None = None) -> None:
        payload: dict[str, Any] = {"connectorId": connector_id, "expiryDate": expiry_date, "idTag": id_tag,
                                   "reservationId": reservation_id}
        if parent_id_tag is not None:
            payload["parentIdTag"] = parent_id_tag
        self.send(station, "ReserveNow", payload)

    async def act_cancel_reservation(self, reservation_id: int, station: str | None = None) -> None:
        self.send(station, "CancelReservation", {"reservationId": reservation_id})


# ---------------------------------------------------------------------------------------------- 2.x
def _same_token(a: dict | None, b: dict | None) -> bool:
    return a is not None and b is not None and token_key(a) == token_key(b)


class ReservationStation2x(Block):
    versions = V2X
    requires = ("ProvisioningStation2x", "TransactionsStation2x", "AvailabilityStation2x")
    precedes = ("TransactionsStation2x",)   # its reservation hooks replace the transactions block's defaults
    configurable = frozenset({"reservations_refused"})
    reservations_refused = False

    def connector_type(self) -> str:
        return str(self.profile.get("station.connector_type", "cType2"))

    def on_ReserveNow(self, _: None, payload: dict) -> dict:
        evse_id, kind = payload.get("evseId"), payload.get("connectorType")
        if self.reservations_refused or (evse_id is not None and evse_id not in self.evses) or \
                (kind is not None and kind != self.connector_type()):
            return {"status": "Rejected"}
        self._end(payload["id"], None)
        asked = [self.evses[evse_id]] if evse_id is not None else list(self.evses.values())
        free = [s for s in asked if s.transaction is None and not s.plugged and s.authorized is None
                and s.reservation is None and not s.faulted and self._reservable(s)]
        if not free:
            return {"status": "Faulted" if all(s.faulted for s in asked) else
                    "Unavailable" if not any(self._reservable(s) for s in asked) else "Occupied"}
        state = free[0]
        state.reservation = reservation = EvseReservation(payload["id"], payload["idToken"],
                                                          payload.get("groupIdToken"),
                                                          parse_time(payload["expiryDateTime"]), evse_id)
        self.background.spawn(self._report_reserved_status(state, "Reserved"))
        self.background.spawn(self._expire2x(state, reservation))
        return {"status": "Accepted"}

    def on_CancelReservation(self, _: None, payload: dict) -> dict:
        return {"status": "Accepted" if self._end(payload["reservationId"], None) else "Rejected"}

    def _reservable(self, state: EvseState) -> bool:
        """An EVSE made Inoperative (or of an Inoperative station: G03, G04) is Unavailable for reservations."""
        return self.connector_operative(state.evse.id, state.evse.connectors[0])

    def evse_faulted(self, state: EvseState) -> None:
        """TC_H_20: the reservation of an EVSE that became Faulted is removed (ReservationStatusUpdate Removed)."""
        super().evse_faulted(state)
        if state.reservation is not None:
            self._end(state.reservation.id, "Removed")

    async def _report_reserved_status(self, state: EvseState, status: str) -> None:
        for connector in state.evse.connectors:
            await self.call("StatusNotification", self.status_payload(state.evse.id, connector, status))

    def _end(self, reservation_id: int, update: str | None) -> bool:
        """The reservation is over: its EVSE reports Available again (and, ``update``, the CSMS is told why
        in ReservationStatusUpdate). False: none had the id."""
        state = next((s for s in self.evses.values() if s.reservation and s.reservation.id == reservation_id), None)
        if state is None:
            return False
        state.reservation = None

        async def ended() -> None:
            if update is not None:
                await self.call("ReservationStatusUpdate", {"reservationId": reservation_id,
                                                            "reservationUpdateStatus": update})
            if state.transaction is None and not state.plugged and not state.faulted:
                await self._report_reserved_status(state, "Available")

        self.background.spawn(ended())
        return True

    async def _expire2x(self, state: EvseState, reservation: EvseReservation) -> None:
        await asyncio.sleep(max(0.0, (reservation.expiry - clock.utcnow()).total_seconds()))
        if state.reservation is reservation:
            self._end(reservation.id, "Expired")

    def _for(self, reservation: EvseReservation, id_token: dict, group: dict | None) -> bool:
        """The reservation is ``id_token``'s, or its group's (a group compared by its idToken alone: the CSMS
        that answered the token's groupIdToken may give it another type than the reservation's)."""
        return _same_token(reservation.id_token, id_token) or (
            reservation.group is not None and group is not None and _same(reservation.group["idToken"], group["idToken"]))

    def reserved_for_another(self, state: EvseState, id_token: dict, group: dict | None) -> bool:
        return state.reservation is not None and not self._for(state.reservation, id_token, group)

    def claim_reservation(self, state: EvseState, id_token: dict, group: dict | None) -> int | None:
        """The reservation of ``state`` (or an unspecified one held elsewhere) for ``id_token`` or its group
        ends with this transaction: its id; the EVSE that held it elsewhere reports Available."""
        holders = [state] + [s for s in self.evses.values() if s is not state and s.reservation is not None
                             and s.reservation.requested is None]
        holder = next((s for s in holders if s.reservation and self._for(s.reservation, id_token, group)), None)
        if holder is None:
            return None
        reservation_id = holder.reservation.id
        if holder is state:
            state.reservation = None
        else:
            self._end(reservation_id, None)
        return reservation_id


class ReservationCsms2x(Block):
    versions = V2X

    def on_ReservationStatusUpdate(self, _: Any, payload: dict) -> dict:
        return {}

    async def undo_ReserveNow(self, payload: dict, link: Any) -> Undo:
        cancel = {"reservationId": payload["id"]}
        return Undo(f"cancel the reservation {cancel}", lambda now: now.call_exchange("CancelReservation", cancel))

    async def act_reserve_now(self, id: int, expiry_date_time: str, id_token: dict, evse_id: int | None = None,
                              connector_type: str | None = None, group_id_token: dict | None = None,
                              station: str | None = None) -> None:
        payload: dict[str, Any] = {"id": id, "expiryDateTime": expiry_date_time, "idToken": id_token}
        for key, value in (("evseId", evse_id), ("connectorType", connector_type), ("groupIdToken", group_id_token)):
            if value is not None:
                payload[key] = value
        self.send(station, "ReserveNow", payload)

    async def act_cancel_reservation(self, reservation_id: int, station: str | None = None) -> None:
        self.send(station, "CancelReservation", {"reservationId": reservation_id})
