"""H01 — Reservation: the operator has the CSMS send ReserveNowRequest for an idToken (and optionally its
group) until an expiry: for a specific EVSE (evseId), for an EVSE with a connector of a type
(connectorType) or for any EVSE. A station that takes reservations answers Accepted for a free EVSE and
reports the reserved EVSE's connectors Reserved; an EVSE in a transaction is Occupied. The requirements, in
our words: docs/requirements/reservation.md.

Readings chosen where the text is silent: a station not configured for reservations answers Rejected (the
test is then not applicable; a CSMS under test is judged on its request, TC_H_22). A reservation of any EVSE
need not show Reserved while other EVSEs are free: the station is judged on it once it holds as many such
reservations as it has EVSEs (TC_H_14); the EVSE a reservation of a connector type takes is the station's
choice. The H01 requirement texts could not be checked, so what the station does is SHOULD: a finding."""

import pytest

from harness.errors import NotApplicable
from harness.roles import CS, CSMS
from harness.rules import RuleTable, must, should
from harness.suite import OCPP2, TC, case, checks
from harness.usecases.authorization import token_with
from harness.usecases.availability import change
from harness.usecases.operations import operate
from harness.usecases.reservation import HOUR, expiry, reports, reserve
from harness.usecases.smart_charging import charging
from harness.verdict import check_equal, require


class H01(RuleTable):
    """The rules of H01 (OCPP 2.0.1 part 2, H01; the same in 2.1)."""
    request = must("OCPP 2.0.1 part 2 ReserveNowRequest (id, expiryDateTime, idToken required; evseId, "
                   "connectorType, groupIdToken optional)",
                   "the CSMS sends ReserveNow with exactly the id, expiry, token and EVSE, type or group its operator "
                   "chose", by=CSMS)
    accepted = should("OCPP 2.0.1 part 2 H01; ReserveNowStatusEnumType (Accepted: the reservation is made)",
                      "a station that takes reservations accepts one for a free EVSE (or any free one)", by=CS)
    reserved = should("OCPP 2.0.1 part 2 H01; ConnectorStatusEnumType (Reserved)",
                      "the connectors of a reserved EVSE report StatusNotification Reserved", by=CS)
    occupied = should("OCPP 2.0.1 part 2 ReserveNowStatusEnumType (Occupied)",
                      "ReserveNow of an EVSE in a transaction is answered Occupied", by=CS)
    replaced = should("OCPP 2.0.1 part 2 H01 (a reservationId the station already holds: the reservation is "
                      "replaced)", "a ReserveNow with the id of a reservation the station holds replaces it: the EVSE "
                      "it held reports Available", by=CS)
    unknown = should("OCPP 2.0.1 part 2 ReserveNowStatusEnumType (Rejected)",
                     "ReserveNow of an EVSE the station does not have is Rejected", by=CS)
    reserved_twice = should("OCPP 2.0.1 part 2 ReserveNowStatusEnumType (Occupied); H01",
                            "ReserveNow of an EVSE another reservation holds is answered Occupied", by=CS)
    other_type = should("OCPP 2.0.1 part 2 ReserveNowStatusEnumType (Rejected); H01 (connectorType)",
                        "ReserveNow of a connector type the station does not have is Rejected", by=CS)
    unavailable = should("OCPP 2.0.1 part 2 ReserveNowStatusEnumType (Unavailable); G03, G04 (Inoperative)",
                         "ReserveNow of an EVSE made Inoperative (or of an Inoperative station) is answered "
                         "Unavailable", by=CS)
    faulted = should("OCPP 2.0.1 part 2 ReserveNowStatusEnumType (Faulted)",
                     "ReserveNow of a Faulted EVSE is answered Faulted", by=CS)
    removed = should("OCPP 2.0.1 part 2 H01; ReservationUpdateStatusEnumType (Removed); tzi-OCTT TC_H_20",
                     "a reservation whose EVSE becomes Faulted is removed: ReservationStatusUpdate Removed", by=CS)
    answered = must("OCPP 2.0.1 part 2 ReservationStatusUpdateResponse; RPC framework (every CALL answered)",
                    "the CSMS answers the ReservationStatusUpdate of a removed reservation", by=CSMS)


pytestmark = case("H01", block="Reservation", roles=("csms", "cs"), protocols=OCPP2, requires=["reservations"])


def _token(profile):
    return token_with(profile, "Accepted", type="ISO14443").wire()


@checks(H01.request, H01.accepted, H01.reserved, csms=TC("TC_H_01_CSMS", "ocpp2.0.1"))
async def test_reserve_a_specific_evse(ocpp, profile):
    """ReserveNow for the first EVSE: Accepted, and its connectors report Reserved."""
    evse, mark = profile.evses[0].id, ocpp.mark()
    await reserve(ocpp, H01.request, H01.accepted, _token(profile), evseId=evse)
    await reports(ocpp, evse, "Reserved", mark, H01.reserved)


@checks(H01.request, H01.accepted, csms=TC("TC_H_08_CSMS", "ocpp2.0.1"))
async def test_reserve_an_unspecified_evse(ocpp, profile):
    """ReserveNow without evseId: Accepted."""
    await reserve(ocpp, H01.request, H01.accepted, _token(profile))


@checks(H01.request, H01.accepted, H01.reserved, csms=TC("TC_H_14_CSMS", "ocpp2.0.1"))
async def test_as_many_reservations_as_evses(ocpp, profile):
    """One ReserveNow without evseId per EVSE: each Accepted, and then every EVSE reports Reserved."""
    mark = ocpp.mark()
    for _ in profile.evses:
        await reserve(ocpp, H01.request, H01.accepted, _token(profile))
    for evse in profile.evses:
        await reports(ocpp, evse.id, "Reserved", mark, H01.reserved)


@checks(H01.request, H01.accepted, H01.reserved, csms=TC("TC_H_15_CSMS", "ocpp2.0.1"))
async def test_reserve_a_connector_type(ocpp, profile):
    """ReserveNow for the connector type the station has (the profile's ``[station] connector_type``):
    Accepted, and an EVSE reports Reserved."""
    kind = profile.get("station.connector_type")
    if kind is None:
        raise NotApplicable("the profile names no connector type of the station: [station] connector_type")
    mark = ocpp.mark()
    await reserve(ocpp, H01.request, H01.accepted, _token(profile), connectorType=kind)
    await ocpp.expect("StatusNotification", sender=CS, after=mark, rule=H01.reserved,
                      where=lambda p: p["connectorStatus"] == "Reserved")


@checks(H01.request, H01.accepted, H01.reserved, csms=TC("TC_H_19_CSMS", "ocpp2.0.1"))
async def test_reserve_for_a_group(ocpp, profile):
    """ReserveNow for a token and its group (groupIdToken): Accepted, and the EVSE reports Reserved."""
    member = next((t for t in profile.tokens_with("Accepted") if t.group and not t.also), None)
    if member is None:
        raise NotApplicable("the profile declares no accepted token of a group")
    evse, mark = profile.evses[0].id, ocpp.mark()
    await reserve(ocpp, H01.request, H01.accepted, member.wire(), evseId=evse,
                  groupIdToken={"idToken": member.group, "type": "Central"})
    await reports(ocpp, evse, "Reserved", mark, H01.reserved)


@pytest.mark.sut_roles("cs")
@pytest.mark.requires("remote_start")
@checks(H01.occupied)
async def test_an_evse_in_a_transaction_is_occupied(ocpp, profile):
    """A transaction runs on the first EVSE: ReserveNow for it is answered Occupied."""
    evse = profile.evses[0].id
    await charging(ocpp, evse)
    await reserve(ocpp, H01.request, H01.occupied, _token(profile), evseId=evse, expect="Occupied")


@pytest.mark.sut_roles("csms")
@checks(H01.request, csms=TC("TC_H_22_CSMS", "ocpp2.0.1"))
async def test_rejected_reservation_is_sent_as_asked(ocpp, profile):
    """A station not configured for reservations (Rejected): the CSMS sends what it was asked and takes the
    answer."""
    ocpp.configure(reservations_refused=True)
    await reserve(ocpp, H01.request, H01.request, _token(profile), evseId=profile.evses[0].id, expect="Rejected")


@checks(H01.request, H01.accepted, H01.removed, H01.answered, csms=TC("TC_H_20_CSMS", "ocpp2.0.1"))
async def test_reservation_removed_when_the_evse_faults(ocpp, profile):
    """A reservation of the first EVSE; the EVSE becomes Faulted: ReservationStatusUpdate Removed for it,
    answered by the CSMS."""
    evse = profile.evses[0].id
    reservation_id, _ = await reserve(ocpp, H01.request, H01.accepted, _token(profile), evseId=evse)
    mark = ocpp.mark()
    await ocpp.act(CS, "fault_evse", evse_id=evse)
    update = await ocpp.expect("ReservationStatusUpdate", sender=CS, after=mark, rule=H01.removed,
                               where=lambda p: p["reservationId"] == reservation_id)
    if update is not None:   # silence is a finding (SHOULD)
        check_equal(H01.removed, "ReservationStatusUpdateRequest reservationUpdateStatus", "Removed",
                    update.request["reservationUpdateStatus"])
        require(update.error is None, H01.answered, "ReservationStatusUpdate was answered with a CALLERROR",
                expected="ReservationStatusUpdateResponse", actual=update.error)


@pytest.mark.sut_roles("cs")
@checks(H01.faulted)
async def test_a_faulted_evse_is_not_reserved(ocpp, profile):
    """The first EVSE is Faulted: ReserveNow for it is answered Faulted."""
    evse = profile.evses[0].id
    await ocpp.act(CS, "fault_evse", evse_id=evse)
    await reserve(ocpp, H01.request, H01.faulted, _token(profile), evseId=evse, expect="Faulted")


@checks(H01.request, H01.accepted, H01.reserved, H01.replaced)
async def test_reservation_id_reused_replaces_the_reservation(ocpp, profile):
    """The first EVSE reserved, then a ReserveNow with the same id for the last EVSE: Accepted; the first EVSE
    reports Available, the last Reserved (a station with one EVSE: the same EVSE reserved anew)."""
    first, last, mark = profile.evses[0].id, profile.evses[-1].id, ocpp.mark()
    reservation_id, _ = await reserve(ocpp, H01.request, H01.accepted, _token(profile), evseId=first)
    await reports(ocpp, first, "Reserved", mark, H01.reserved)
    again = ocpp.mark()
    payload = {"id": reservation_id, "expiryDateTime": expiry(HOUR), "idToken": _token(profile), "evseId": last}
    exchange = await operate(ocpp, "ReserveNow", payload, H01.request)
    check_equal(H01.replaced, "ReserveNowResponse status of a reservation id reused", "Accepted",
                exchange.result["status"])
    if last != first:
        await reports(ocpp, first, "Available", again, H01.replaced)
    await reports(ocpp, last, "Reserved", again, H01.replaced)


@pytest.mark.sut_roles("cs")
@checks(H01.unknown)
async def test_unknown_evse_is_rejected(ocpp, profile):
    """ReserveNow of an EVSE id one above the station's highest: Rejected."""
    evse = max(e.id for e in profile.evses) + 1
    await reserve(ocpp, H01.request, H01.unknown, _token(profile), evseId=evse, expect="Rejected")


@pytest.mark.sut_roles("cs")
@checks(H01.accepted, H01.reserved_twice)
async def test_a_reserved_evse_is_occupied(ocpp, profile):
    """The first EVSE reserved: a second reservation (another id) of it is answered Occupied."""
    evse = profile.evses[0].id
    await reserve(ocpp, H01.request, H01.accepted, _token(profile), evseId=evse)
    await reserve(ocpp, H01.request, H01.reserved_twice, _token(profile), evseId=evse, expect="Occupied")


@pytest.mark.sut_roles("cs")
@checks(H01.other_type)
async def test_a_connector_type_the_station_lacks_is_rejected(ocpp, profile):
    """ReserveNow for a pantograph (connectorType Pan) at a station whose profile names another connector type:
    Rejected."""
    kind = profile.get("station.connector_type")
    if kind is None or kind == "Pan":
        raise NotApplicable("the profile names no connector type of the station other than Pan: "
                            "[station] connector_type")
    await reserve(ocpp, H01.request, H01.other_type, _token(profile), connectorType="Pan", expect="Rejected")


@pytest.mark.sut_roles("cs")
@pytest.mark.parametrize("whole", ["evse", "station"])
@checks(H01.unavailable)
async def test_an_inoperative_evse_is_unavailable(ocpp, profile, whole):
    """The first EVSE (the station) made Inoperative: ReserveNow of the first EVSE is answered Unavailable."""
    evse = profile.evses[0].id
    await change(ocpp, "Inoperative", {"id": evse} if whole == "evse" else None)
    await reserve(ocpp, H01.request, H01.unavailable, _token(profile), evseId=evse, expect="Unavailable")
