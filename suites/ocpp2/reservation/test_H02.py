"""H02 — Cancel reservation: the operator has the CSMS send CancelReservationRequest for a reservation it
made; the station ends it (Accepted) and the EVSE reports Available again; a reservationId it does not
hold is answered Rejected. The requirements, in our words: docs/requirements/reservation.md (the H02
requirement texts could not be checked: what the station does is SHOULD)."""

import pytest

from harness.roles import CS, CSMS
from harness.rules import RuleTable, must, should
from harness.suite import OCPP2, TC, case, checks
from harness.usecases.authorization import token_with
from harness.usecases.operations import operate
from harness.usecases.remote_control import remote_start
from harness.usecases.reservation import reports, reserve
from harness.verdict import check_equal


class H02(RuleTable):
    """The rules of H02 (OCPP 2.0.1 part 2, H02; the same in 2.1)."""
    reserve_request = must("OCPP 2.0.1 part 2 ReserveNowRequest (id, expiryDateTime, idToken required)",
                           "the CSMS sends the ReserveNow its operator asked for", by=CSMS)
    request = must("OCPP 2.0.1 part 2 CancelReservationRequest (reservationId required)",
                   "the CSMS sends CancelReservation naming the reservation its operator chose", by=CSMS)
    reserved = should("OCPP 2.0.1 part 2 H01; ReserveNowStatusEnumType (Accepted)",
                      "a free EVSE is reserved (Accepted, its connectors Reserved)", by=CS)
    cancelled = should("OCPP 2.0.1 part 2 H02; CancelReservationStatusEnumType (Accepted)",
                       "CancelReservation of an active reservation is Accepted and the EVSE reports Available", by=CS)
    start_request = must("OCPP 2.0.1 part 2 RequestStartTransactionRequest (evseId, idToken, remoteStartId)",
                         "the CSMS sends the remote start for the EVSE its operator chose", by=CSMS)
    charges_again = should("OCPP 2.0.1 part 2 H02; OCA errata of 2025-06 to H02 (H02.FR.03: after a cancel the "
                           "EVSE allows charging again)", "once its reservation is cancelled the EVSE takes a "
                           "remote start for any token (Accepted)", by=CS)
    unknown = should("OCPP 2.0.1 part 2 H02; CancelReservationStatusEnumType (Rejected: no reservation of that id)",
                     "CancelReservation of a reservationId the station does not hold is Rejected", by=CS)


pytestmark = case("H02", block="Reservation", roles=("csms", "cs"), protocols=OCPP2, requires=["reservations"])


async def _reserved(ocpp, profile) -> tuple[int, int]:
    """The first EVSE reserved for the profile's valid token, reported Reserved: (EVSE, reservation id)."""
    evse, mark = profile.evses[0].id, ocpp.mark()
    reservation_id, _ = await reserve(ocpp, H02.reserve_request, H02.reserved,
                                      token_with(profile, "Accepted", type="ISO14443").wire(), evseId=evse)
    await reports(ocpp, evse, "Reserved", mark, H02.reserved)
    return evse, reservation_id


@checks(H02.reserve_request, H02.reserved, H02.request, H02.cancelled, csms=TC("TC_H_17_CSMS", "ocpp2.0.1"))
async def test_cancel_a_reservation(ocpp, profile):
    """CancelReservation of the reservation just made: Accepted, and the EVSE reports Available."""
    evse, reservation_id = await _reserved(ocpp, profile)
    mark = ocpp.mark()
    exchange = await operate(ocpp, "CancelReservation", {"reservationId": reservation_id}, H02.request)
    check_equal(H02.cancelled, "CancelReservationResponse status", "Accepted", exchange.result["status"])
    await reports(ocpp, evse, "Available", mark, H02.cancelled)


@pytest.mark.sut_roles("cs")
@checks(H02.reserved, H02.unknown)
async def test_cancel_of_an_unknown_reservation(ocpp, profile):
    """CancelReservation of a reservationId other than the one the station holds: Rejected."""
    _, reservation_id = await _reserved(ocpp, profile)
    exchange = await operate(ocpp, "CancelReservation", {"reservationId": reservation_id + 1}, H02.request)
    check_equal(H02.unknown, "CancelReservationResponse status", "Rejected", exchange.result["status"])


@checks(H02.reserve_request, H02.reserved, H02.request, H02.cancelled)
async def test_cancel_a_reservation_of_any_evse(ocpp, profile):
    """A reservation without evseId, then CancelReservation of it: Accepted."""
    reservation_id, _ = await reserve(ocpp, H02.reserve_request, H02.reserved,
                                      token_with(profile, "Accepted", type="ISO14443").wire())
    exchange = await operate(ocpp, "CancelReservation", {"reservationId": reservation_id}, H02.request)
    check_equal(H02.cancelled, "CancelReservationResponse status", "Accepted", exchange.result["status"])


@pytest.mark.sut_roles("cs")
@checks(H02.reserved, H02.cancelled, H02.unknown)
async def test_a_cancelled_reservation_cannot_be_cancelled_again(ocpp, profile):
    """A reservation cancelled (Accepted): cancelling it again is Rejected."""
    _, reservation_id = await _reserved(ocpp, profile)
    first = await operate(ocpp, "CancelReservation", {"reservationId": reservation_id}, H02.request)
    check_equal(H02.cancelled, "CancelReservationResponse status", "Accepted", first.result["status"])
    again = await operate(ocpp, "CancelReservation", {"reservationId": reservation_id}, H02.request)
    check_equal(H02.unknown, "CancelReservationResponse status of a reservation already cancelled", "Rejected",
                again.result["status"])


@pytest.mark.sut_roles("cs")
@pytest.mark.requires("remote_start")
@checks(H02.reserved, H02.cancelled, H02.start_request, H02.charges_again)
async def test_a_cancelled_reservation_frees_the_evse(ocpp, profile):
    """The first EVSE's reservation cancelled (Accepted): a remote start on it for a Central token is Accepted."""
    evse, reservation_id = await _reserved(ocpp, profile)
    exchange = await operate(ocpp, "CancelReservation", {"reservationId": reservation_id}, H02.request)
    check_equal(H02.cancelled, "CancelReservationResponse status", "Accepted", exchange.result["status"])
    started = await remote_start(ocpp, evse, H02.start_request)
    check_equal(H02.charges_again, "RequestStartTransactionResponse status after the cancel", "Accepted",
                started.result["status"])
