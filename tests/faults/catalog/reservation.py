"""Reservation faults (H01-H04)."""

from __future__ import annotations

from harness.reference import ReferenceCsms, ReferenceStation

from .records import Fault, cs_test, csms_test


class StationNeverShowsReserved(ReferenceStation):
    """A reserved EVSE's connectors keep reporting Available."""

    async def _report_reserved_status(self, state, status):
        await super()._report_reserved_status(state, "Available" if status == "Reserved" else status)


class StationReservesBusyEvses(ReferenceStation):
    """ReserveNow of an EVSE in a transaction is Accepted (and nothing reserved), not Occupied."""

    def on_ReserveNow(self, session, payload):
        state = self.evses.get(payload.get("evseId"))
        if state is not None and state.transaction is not None:
            return {"status": "Accepted"}
        return super().on_ReserveNow(session, payload)


class CsmsReservesTheNextEvse(ReferenceCsms):
    """ReserveNow: the operator's EVSE plus one is sent."""

    async def act_reserve_now(self, id, expiry_date_time, id_token, evse_id=None, connector_type=None,
                              group_id_token=None, station=None):
        await super().act_reserve_now(id, expiry_date_time, id_token, evse_id + 1 if evse_id else evse_id,
                                      connector_type, group_id_token, station)


class StationKeepsCancelledReservations(ReferenceStation):
    """CancelReservation is Accepted, and the reservation stays (the EVSE never reports Available)."""

    def on_CancelReservation(self, session, payload):
        return {"status": "Accepted"}


class StationCancelsAnything(ReferenceStation):
    """CancelReservation of a reservationId it does not hold is Accepted."""

    def on_CancelReservation(self, session, payload):
        super().on_CancelReservation(session, payload)
        return {"status": "Accepted"}


class CsmsCancelsAnotherReservation(ReferenceCsms):
    """CancelReservation: a reservationId other than the operator's is sent."""

    async def act_cancel_reservation(self, reservation_id, station=None):
        await super().act_cancel_reservation(reservation_id + 1, station)


class StationIgnoresReservations(ReferenceStation):
    """A reserved EVSE starts a transaction for any token."""

    def reserved_for_another(self, state, id_token, group):
        return False


class StationForgetsReservationId(ReferenceStation):
    """The transaction that uses a reservation does not carry its reservationId."""

    def claim_reservation(self, state, id_token, group):
        super().claim_reservation(state, id_token, group)
        return None


class StationExpiresSilently(ReferenceStation):
    """At the expiry the reservation ends without ReservationStatusUpdate."""

    def _end(self, reservation_id, update):
        return super()._end(reservation_id, None)


class StationKeepsExpiredReservations(ReferenceStation):
    """The reservation never expires: the EVSE stays Reserved."""

    async def _expire2x(self, state, reservation):
        return None


class CsmsRefusesReservationUpdates(ReferenceCsms):
    """ReservationStatusUpdate is answered with a CALLERROR."""

    def on_ReservationStatusUpdate(self, session, payload):
        raise NotImplementedError("ReservationStatusUpdate")


class StationKeepsFaultedReservations(ReferenceStation):
    """An EVSE that becomes Faulted keeps its reservation: no ReservationStatusUpdate Removed."""

    def evse_faulted(self, state):
        return None


class StationReservesFaultedEvses(ReferenceStation):
    """ReserveNow of a Faulted EVSE is answered Occupied, not Faulted."""

    def on_ReserveNow(self, session, payload):
        answer = super().on_ReserveNow(session, payload)
        return {"status": "Occupied"} if answer["status"] == "Faulted" else answer


class StationRefusesReusedReservationIds(ReferenceStation):
    """H01: a ReserveNow with the id of a reservation it holds is answered Occupied, not taken as a replacement."""

    def on_ReserveNow(self, session, payload):
        if any(s.reservation is not None and s.reservation.id == payload["id"] for s in self.evses.values()):
            return {"status": "Occupied"}
        return super().on_ReserveNow(session, payload)


class StationReservesUnknownEvses(ReferenceStation):
    """H01: ReserveNow of an EVSE it does not have is Accepted (and nothing reserved)."""

    def on_ReserveNow(self, session, payload):
        if payload.get("evseId") is not None and payload["evseId"] not in self.evses:
            return {"status": "Accepted"}
        return super().on_ReserveNow(session, payload)


class StationReservesTwice(ReferenceStation):
    """H01: ReserveNow of an EVSE another reservation holds is Accepted (the first reservation kept)."""

    def on_ReserveNow(self, session, payload):
        state = self.evses.get(payload.get("evseId"))
        if state is not None and state.reservation is not None and state.reservation.id != payload["id"]:
            return {"status": "Accepted"}
        return super().on_ReserveNow(session, payload)


class StationReservesAnyConnectorType(ReferenceStation):
    """H01: ReserveNow of a connector type it does not have is Accepted (and nothing reserved)."""

    def on_ReserveNow(self, session, payload):
        if payload.get("connectorType") not in (None, self.connector_type()):
            return {"status": "Accepted"}
        return super().on_ReserveNow(session, payload)


class StationReservesInoperativeEvses(ReferenceStation):
    """H01: an Inoperative EVSE (or station) still takes reservations."""

    def _reservable(self, state):
        return True


class CsmsRefusesRemovedReservations(ReferenceCsms):
    """H01: the ReservationStatusUpdate of a removed reservation is answered with a CALLERROR."""

    def on_ReservationStatusUpdate(self, session, payload):
        if payload["reservationUpdateStatus"] == "Removed":
            raise NotImplementedError("ReservationStatusUpdate Removed")
        return super().on_ReservationStatusUpdate(session, payload)


class StationIgnoresReservationsAtRemoteStart(ReferenceStation):
    """H03: a reserved EVSE accepts a remote start for any token (the reservation stays)."""

    def on_RequestStartTransaction(self, session, payload):
        state = self.evses.get(payload.get("evseId"))
        held = state.reservation if state is not None else None
        if held is not None:
            state.reservation = None
        try:
            return super().on_RequestStartTransaction(session, payload)
        finally:
            if held is not None:
                state.reservation = held


class StationCancelsTwice(ReferenceStation):
    """H02: a reservation already cancelled is cancelled again (Accepted)."""

    def on_CancelReservation(self, session, payload):
        self.cancelled = getattr(self, "cancelled", set())
        answer = super().on_CancelReservation(session, payload)
        if payload["reservationId"] in self.cancelled:
            return {"status": "Accepted"}
        self.cancelled.add(payload["reservationId"])
        return answer


class StationCancelsUsedReservations(ReferenceStation):
    """H03: a reservation its transaction used is still cancelled (Accepted)."""

    def claim_reservation(self, state, id_token, group):
        claimed = super().claim_reservation(state, id_token, group)
        self.used = getattr(self, "used", set()) | ({claimed} if claimed is not None else set())
        return claimed

    def on_CancelReservation(self, session, payload):
        answer = super().on_CancelReservation(session, payload)
        return {"status": "Accepted"} if payload["reservationId"] in getattr(self, "used", set()) else answer


class StationKeepsTheEvseAfterACancel(ReferenceStation):
    """H02: a cancelled reservation (Accepted, Available reported) keeps holding its EVSE."""

    def on_CancelReservation(self, session, payload):
        held = [(s, s.reservation) for s in self.evses.values()
                if s.reservation is not None and s.reservation.id == payload["reservationId"]]
        answer = super().on_CancelReservation(session, payload)
        for state, reservation in held:
            state.reservation = reservation
        return answer


class StationKeepsTheEvseAfterExpiry(ReferenceStation):
    """H04: at the expiry the station reports Expired but keeps the reservation on its EVSE."""

    async def _expire2x(self, state, reservation):
        await super()._expire2x(state, reservation)
        state.reservation = reservation


H01, H02, H03, H04 = (f"reservation/test_H0{n}.py" for n in (1, 2, 3, 4))


FAULTS: tuple[Fault, ...] = (
    Fault("H01-station-never-shows-reserved", "H01.reserved", StationNeverShowsReserved,
          (cs_test(H01, "test_reserve_a_specific_evse"),), "the SUT did not send StatusNotification",
          verdict="finding"),
    Fault("H01-station-reserves-busy-evses", "H01.occupied", StationReservesBusyEvses,
          (cs_test(H01, "test_an_evse_in_a_transaction_is_occupied"),), "ReserveNowResponse status",
          verdict="finding"),
    Fault("H01-csms-reserves-the-next-evse", "H01.request", CsmsReservesTheNextEvse,
          (csms_test(H01, "test_reserve_a_specific_evse"),), "ReserveNowRequest"),
    Fault("H01-station-keeps-faulted-reservations", "H01.removed", StationKeepsFaultedReservations,
          (cs_test(H01, "test_reservation_removed_when_the_evse_faults"),), "ReservationStatusUpdate",
          verdict="finding"),
    Fault("H01-station-reserves-faulted-evses", "H01.faulted", StationReservesFaultedEvses,
          (cs_test(H01, "test_a_faulted_evse_is_not_reserved"),), "ReserveNowResponse status", verdict="finding"),
    Fault("H01-csms-refuses-removed-reservation-updates", "H01.answered", CsmsRefusesRemovedReservations,
          (csms_test(H01, "test_reservation_removed_when_the_evse_faults"),),
          "ReservationStatusUpdate was answered with a CALLERROR"),
    Fault("H02-station-keeps-cancelled-reservations", "H02.cancelled", StationKeepsCancelledReservations,
          (cs_test(H02, "test_cancel_a_reservation"),), "the SUT did not send StatusNotification", verdict="finding"),
    Fault("H02-station-cancels-anything", "H02.unknown", StationCancelsAnything,
          (cs_test(H02, "test_cancel_of_an_unknown_reservation"),), "CancelReservationResponse status",
          verdict="finding"),
    Fault("H02-csms-cancels-another-reservation", "H02.request", CsmsCancelsAnotherReservation,
          (csms_test(H02, "test_cancel_a_reservation"),), "CancelReservationRequest"),
    Fault("H03-station-ignores-reservations", "H03.other_refused", StationIgnoresReservations,
          (cs_test(H03, "test_reserved_evse_serves_only_its_token"),), "TransactionEvent", verdict="finding"),
    Fault("H03-station-forgets-reservation-id", "H03.used", StationForgetsReservationId,
          (cs_test(H03, "test_a_group_member_uses_the_reservation"),
           cs_test(H03, "test_remote_start_uses_the_reservation")), "TransactionEventRequest reservationId",
          verdict="finding"),
    Fault("H04-station-expires-silently", "H04.expired", StationExpiresSilently,
          (cs_test(H04, "test_reservation_expires"),), "ReservationStatusUpdate", verdict="finding"),
    Fault("H04-station-keeps-expired-reservations", "H04.expired", StationKeepsExpiredReservations,
          (cs_test(H04, "test_reservation_expires"),), "ReservationStatusUpdate", verdict="finding"),
    Fault("H04-csms-refuses-reservation-updates", "H04.answered", CsmsRefusesReservationUpdates,
          (csms_test(H04, "test_reservation_expires"),), "ReservationStatusUpdate was answered with a CALLERROR"),
    Fault("H01-station-refuses-reused-reservation-ids", "H01.replaced", StationRefusesReusedReservationIds,
          (cs_test(H01, "test_reservation_id_reused_replaces_the_reservation"),),
          "ReserveNowResponse status of a reservation id reused", verdict="finding"),
    Fault("H01-station-reserves-unknown-evses", "H01.unknown", StationReservesUnknownEvses,
          (cs_test(H01, "test_unknown_evse_is_rejected"),), "ReserveNowResponse status", verdict="finding"),
    Fault("H03-station-ignores-reservations-at-remote-start", "H03.other_refused", StationIgnoresReservationsAtRemoteStart,
          (cs_test(H03, "test_reserved_evse_refuses_another_remote_start"),), "RequestStartTransactionResponse status",
          verdict="finding"),
    Fault("H04-station-keeps-the-evse-after-expiry", "H04.freed", StationKeepsTheEvseAfterExpiry,
          (cs_test(H04, "test_expired_reservation_frees_the_evse"),),
          "RequestStartTransactionResponse status after the reservation expired", verdict="finding"),
    Fault("H01-station-reserves-twice", "H01.reserved_twice", StationReservesTwice,
          (cs_test(H01, "test_a_reserved_evse_is_occupied"),), "ReserveNowResponse status", verdict="finding"),
    Fault("H01-station-reserves-any-connector-type", "H01.other_type", StationReservesAnyConnectorType,
          (cs_test(H01, "test_a_connector_type_the_station_lacks_is_rejected"),), "ReserveNowResponse status",
          verdict="finding"),
    Fault("H02-station-cancels-twice", "H02.unknown", StationCancelsTwice,
          (cs_test(H02, "test_a_cancelled_reservation_cannot_be_cancelled_again"),),
          "CancelReservationResponse status of a reservation already cancelled", verdict="finding"),
    Fault("H01-station-reserves-inoperative-evses", "H01.unavailable", StationReservesInoperativeEvses,
          (cs_test(H01, "test_an_inoperative_evse_is_unavailable", "evse"),
           cs_test(H01, "test_an_inoperative_evse_is_unavailable", "station")), "ReserveNowResponse status",
          verdict="finding"),
    Fault("H03-station-cancels-used-reservations", "H03.ended", StationCancelsUsedReservations,
          (cs_test(H03, "test_a_used_reservation_is_over"),), "CancelReservationResponse status of a used reservation",
          verdict="finding"),
    Fault("H02-station-keeps-the-evse-after-a-cancel", "H02.charges_again", StationKeepsTheEvseAfterACancel,
          (cs_test(H02, "test_a_cancelled_reservation_frees_the_evse"),),
          "RequestStartTransactionResponse status after the cancel", verdict="finding"),
)
