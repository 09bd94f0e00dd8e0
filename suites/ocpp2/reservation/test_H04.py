"""H04 — Reservation ended, not used: the reserved driver does not come; at the expiry the station ends the
reservation, tells the CSMS in ReservationStatusUpdate (reservationUpdateStatus Expired) and the EVSE
reports Available again. The requirements, in our words: docs/requirements/reservation.md (the H04
requirement texts could not be checked: what the station does is SHOULD)."""

import pytest

from harness.roles import CS, CSMS
from harness.rules import RuleTable, must, should
from harness.suite import OCPP2, TC, case, checks
from harness.usecases.authorization import token_with
from harness.usecases.remote_control import remote_start
from harness.usecases.reservation import SHORT, reports, reserve
from harness.verdict import check_equal, require


class H04(RuleTable):
    """The rules of H04 (OCPP 2.0.1 part 2, H04; the same in 2.1, whose ReservationUpdateStatusEnumType adds
    NoTransaction)."""
    reserve_request = must("OCPP 2.0.1 part 2 ReserveNowRequest (id, expiryDateTime, idToken required)",
                           "the CSMS sends the ReserveNow its operator asked for", by=CSMS)
    reserved = should("OCPP 2.0.1 part 2 H01; ReserveNowStatusEnumType (Accepted); ConnectorStatusEnumType",
                      "a free EVSE is reserved (Accepted, its connectors Reserved)", by=CS)
    expired = should("OCPP 2.0.1 part 2 H04; ReservationStatusUpdateRequest; ReservationUpdateStatusEnumType "
                     "(Expired)", "at its expiry the station sends ReservationStatusUpdate Expired for the "
                     "reservation", by=CS)
    available = should("OCPP 2.0.1 part 2 H04; ConnectorStatusEnumType (Available)",
                       "after the expiry the EVSE reports Available", by=CS)
    start_request = must("OCPP 2.0.1 part 2 RequestStartTransactionRequest (evseId, idToken, remoteStartId)",
                         "the CSMS sends the remote start for the EVSE its operator chose", by=CSMS)
    freed = should("OCPP 2.0.1 part 2 H04 (the reservation ended, the EVSE is available again)",
                   "after the expiry the EVSE serves any driver: a remote start on it for another token is Accepted",
                   by=CS)
    answered = must("OCPP 2.0.1 part 2 ReservationStatusUpdateResponse; RPC framework (every CALL answered)",
                    "the CSMS answers ReservationStatusUpdate", by=CSMS)


pytestmark = case("H04", block="Reservation", roles=("csms", "cs"), protocols=OCPP2, requires=["reservations"])


async def _short_reservation(ocpp, profile) -> tuple[int, int, int]:
    """The first EVSE reserved for two seconds: (EVSE, the mark before, the reservation's id)."""
    evse, mark = profile.evses[0].id, ocpp.mark()
    reservation_id, _ = await reserve(ocpp, H04.reserve_request, H04.reserved,
                                      token_with(profile, "Accepted", type="ISO14443").wire(), evseId=evse,
                                      seconds=SHORT)
    return evse, mark, reservation_id


async def _expired(ocpp, mark: int, reservation_id: int):
    """The ReservationStatusUpdate of the reservation (None: none came, a finding)."""
    return await ocpp.expect("ReservationStatusUpdate", sender=CS, after=mark, rule=H04.expired,
                             timeout=SHORT + ocpp.timeouts.action, where=lambda p: p["reservationId"] == reservation_id)


@checks(H04.reserve_request, H04.reserved, H04.expired, H04.available, H04.answered,
        csms=TC("TC_H_07_CSMS", "ocpp2.0.1"))
async def test_reservation_expires(ocpp, profile):
    """A reservation of the first EVSE for two seconds: Reserved, then ReservationStatusUpdate Expired and
    Available."""
    evse, mark, reservation_id = await _short_reservation(ocpp, profile)
    reserved = await reports(ocpp, evse, "Reserved", mark, H04.reserved)
    update = await _expired(ocpp, mark, reservation_id)
    if update is not None:   # silence is a finding (SHOULD): the EVSE is still judged
        check_equal(H04.expired, "ReservationStatusUpdateRequest reservationUpdateStatus", "Expired",
                    update.request["reservationUpdateStatus"])
        require(update.error is None, H04.answered, "ReservationStatusUpdate was answered with a CALLERROR",
                expected="ReservationStatusUpdateResponse", actual=update.error)
    await reports(ocpp, evse, "Available", ocpp.mark_after(reserved) if reserved else mark, H04.available,
                  timeout=SHORT + ocpp.timeouts.action)


@pytest.mark.requires("remote_start")
@checks(H04.reserve_request, H04.reserved, H04.expired, H04.start_request, H04.freed)
async def test_expired_reservation_frees_the_evse(ocpp, profile):
    """A two-second reservation of the first EVSE expires; a remote start on it for a Central token is then
    Accepted."""
    evse, mark, reservation_id = await _short_reservation(ocpp, profile)
    await _expired(ocpp, mark, reservation_id)
    exchange = await remote_start(ocpp, evse, H04.start_request)
    check_equal(H04.freed, "RequestStartTransactionResponse status after the reservation expired", "Accepted",
                exchange.result["status"])
