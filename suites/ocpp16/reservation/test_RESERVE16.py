"""RESERVE16 — Reservation in 1.6: ReserveNow on a connector and on connector 0, for an idTag or its
group, its expiry, the connectors that cannot be reserved, and CancelReservation (spec 002 Messages
ReserveNow, CancelReservation, StartTransaction reservationId; ReservationStatus,
CancelReservationStatus; ChargePointStatus Reserved, Faulted; Behavior rule 9; the Reservation moves).

Readings chosen where the text is silent: Rejected ("not configured for reservations") is an answer a
charge point may give: the test is then not applicable. A reservation of connector 0 need not show a
connector Reserved; it is judged by the reserved idTag's transaction. Another idTag at a reserved
connector must not start a transaction there (whether the charge point asks Authorize first is not
judged); a member of the reservation's group (its parentIdTag) may use it, after Authorize.

What the central system owes: ReserveNow and CancelReservation sent as asked (ops16.sent_as_asked), and the
StartTransaction that uses a reservation answered with the idTag's status (RESERVE16.start_answered). After a
refusal (Faulted, Occupied, Rejected, Unavailable) or an expiry spec 002 asks nothing more of it: no message
follows, and an expired reservation is the charge point's to drop.
"""

import secrets
from datetime import timedelta

import pytest

from harness import clock
from harness.roles import CS, CSMS
from harness.errors import NotApplicable
from harness.ocpp.v16 import WHOLE_CHARGE_POINT
from harness.rules import RuleTable, must
from harness.suite import OCPP16, TC, case, checks, needs
from harness.usecases.core16 import (
    Core16, connectors, group16, grouped, id_tag_status, judge_group, same_tag, start, tag16, tagged, usable16,
)
from harness.usecases.operations import ASKED16, operate, status_of
from harness.verdict import check_equal

HOUR, SHORT = 3600, 2   # seconds until a reservation expires: one that lasts the test, one that expires in it


class RESERVE16(RuleTable):
    """The rules of RESERVE16."""
    accepted = must("spec 002 Behavior rule 9; Enumerations ReservationStatus",
                    "a charge point taking reservations answers ReserveNow for a free connector (or connector 0) "
                    "Accepted", by=CS)
    reserved_status = must("spec 002 States and transitions (Reserved)",
                           "a connector reserved by ReserveNow reports StatusNotification Reserved", by=CS)
    other_refused = must("spec 002 Behavior rule 9",
                         "a reserved connector starts no transaction for another idTag (not of the reservation's "
                         "group)", by=CS)
    reservation_used = must("spec 002 Messages StartTransaction (reservationId); Reservation moves; TC_046_1_CS",
                            "the reserved idTag (or a member of its group) starts a transaction whose StartTransaction "
                            "carries the reservationId", by=CS)
    expires = must("spec 002 Reservation moves (expiry time reached: released)",
                   "at its expiryDate the reservation is released: the connector reports Available", by=CS)
    not_free = must("spec 002 Enumerations ReservationStatus",
                    "ReserveNow of a connector in a transaction is Occupied, of an Inoperative one Unavailable", by=CS)
    faulted = must("spec 002 Enumerations ReservationStatus; ChargePointStatus (Faulted: not available for energy "
                   "delivery)", "a connector that became faulted reports StatusNotification Faulted, and ReserveNow "
                   "of it is answered Faulted", by=CS)
    cancelled = must("spec 002 Reservation moves (CancelReservation); Enumerations CancelReservationStatus",
                     "CancelReservation of an active reservation is Accepted and releases it: the connector reports "
                     "Available", by=CS)
    cancel_unknown = must("spec 002 Enumerations CancelReservationStatus (Rejected: no active reservation)",
                          "CancelReservation of a reservationId that is not active is Rejected", by=CS)
    start_answered = must("spec 002 Messages StartTransaction; Classes IdTagInfo",
                          "the central system answers the StartTransaction that uses a reservation Accepted for the "
                          "reserved valid idTag", by=CSMS)


pytestmark = case("RESERVE16", block="Reservation (1.6)", roles=("csms", "cs"), protocols=OCPP16,
                  requires=["reservations"])


def _expiry(seconds: int) -> str:
    return (clock.utcnow() + timedelta(seconds=seconds)).isoformat(timespec="seconds").replace("+00:00", "Z")


def _other_accepted(profile, token):
    """A second 1.6 idTag the central system accepts: the one a reserved connector must refuse."""
    others = [t for t in profile.tokens_with("Accepted") if usable16(t) and not t.also and t.id != token.id]
    if not others:
        raise NotApplicable("the profile declares no second accepted 1.6 idTag to present at the reserved connector")
    return others[0]


def _reservation_id() -> int:
    return 1 + secrets.randbelow(1_000_000)


async def _reserve(ocpp, connector_id: int, id_tag: str, *, seconds: int = HOUR, parent: str | None = None,
                   expect: str = "Accepted", rule=RESERVE16.accepted):
    """ReserveNow; returns its reservationId. A charge point that answers Rejected takes no reservations
    here: not applicable."""
    reservation_id = _reservation_id()
    payload = {"connectorId": connector_id, "expiryDate": _expiry(seconds), "idTag": id_tag,
               "reservationId": reservation_id} | ({"parentIdTag": parent} if parent else {})
    exchange = await operate(ocpp, "ReserveNow", payload)
    if status_of(exchange) == "Rejected" and expect != "Rejected":
        raise NotApplicable(f"the charge point rejects ReserveNow of connector {connector_id} (not configured for "
                            f"reservations)")
    check_equal(rule, f"ReserveNow.conf status for connector {connector_id}", expect, status_of(exchange))
    return reservation_id


async def _status(ocpp, connector_id: int, status: str, after: int, rule, timeout=None):
    return await ocpp.expect("StatusNotification", sender=CS, after=after, rule=rule, timeout=timeout,
                             where=lambda p: p["connectorId"] == connector_id and p["status"] == status)


async def _used(ocpp, id_tag: str, connector_id: int, reservation_id: int, after: int):
    """The StartTransaction of ``id_tag`` at ``connector_id`` carries ``reservation_id``, and is answered Accepted."""
    started = await ocpp.expect("StartTransaction", sender=CS, after=after, rule=RESERVE16.reservation_used,
                                where=lambda p: p["connectorId"] == connector_id and same_tag(p.get("idTag"), id_tag))
    check_equal(RESERVE16.reservation_used, "StartTransaction.req reservationId", reservation_id,
                started.request.get("reservationId"))
    if ocpp.is_sut(CSMS):
        check_equal(RESERVE16.start_answered, "StartTransaction.conf idTagInfo.status", "Accepted",
                    id_tag_status(started))


@checks(*ASKED16, RESERVE16.accepted, RESERVE16.reserved_status, RESERVE16.other_refused, RESERVE16.reservation_used,
        RESERVE16.start_answered, cs=TC("TC_046_1_CS"), csms=TC("TC_046_CSMS"))
@needs(tagged("Accepted"), lambda given: _other_accepted(given.profile, tag16(given.profile, "Accepted")))
async def test_reserved_connector_serves_only_its_id_tag(ocpp, profile):
    """A reserved connector reports Reserved, starts nothing for another valid idTag, and starts the reserved
    idTag's transaction with the reservationId."""
    token, connector = tag16(profile, "Accepted"), connectors(profile)[0]
    mark = ocpp.mark()
    reservation_id = await _reserve(ocpp, connector, token.id)
    await _status(ocpp, connector, "Reserved", mark, RESERVE16.reserved_status)
    other = _other_accepted(profile, token).id
    tried = ocpp.mark()
    await ocpp.act(CS, "present_id_tag", id_tag=other, connector_id=connector)
    await ocpp.act(CS, "plug_in", connector_id=connector)
    await ocpp.expect_none("StartTransaction", after=tried, rule=RESERVE16.other_refused,
                           where=lambda p: same_tag(p.get("idTag"), other))
    mark = ocpp.mark()
    await ocpp.act(CS, "present_id_tag", id_tag=token.id, connector_id=connector)
    await _used(ocpp, token.id, connector, reservation_id, mark)


@checks(*ASKED16, RESERVE16.accepted, RESERVE16.reservation_used, RESERVE16.start_answered, cs=TC("TC_046_2_CS"))
@needs(tagged("Accepted"))
async def test_remote_start_uses_the_reservation(ocpp, profile):
    """A remote start of the reserved idTag on the reserved connector carries the reservationId."""
    token, connector = tag16(profile, "Accepted"), connectors(profile)[0]
    reservation_id = await _reserve(ocpp, connector, token.id)
    mark = ocpp.mark()
    await ocpp.act(CS, "plug_in", connector_id=connector)
    await operate(ocpp, "RemoteStartTransaction", {"idTag": token.id, "connectorId": connector})
    await _used(ocpp, token.id, connector, reservation_id, mark)


@checks(*ASKED16, RESERVE16.accepted, RESERVE16.reservation_used, RESERVE16.start_answered, csms=TC("TC_049_CSMS"),
        cs=TC("TC_049_CS"))
@needs(tagged("Accepted"))
async def test_reservation_of_the_whole_charge_point(ocpp, profile):
    """ReserveNow of connector 0: Accepted, and the reserved idTag's transaction carries the reservationId."""
    token, connector = tag16(profile, "Accepted"), connectors(profile)[-1]
    reservation_id = await _reserve(ocpp, WHOLE_CHARGE_POINT, token.id)
    mark = ocpp.mark()
    await ocpp.act(CS, "present_id_tag", id_tag=token.id, connector_id=connector)
    await ocpp.act(CS, "plug_in", connector_id=connector)
    await _used(ocpp, token.id, connector, reservation_id, mark)


@checks(*ASKED16, RESERVE16.accepted, RESERVE16.reserved_status, RESERVE16.expires,
        cs=TC("TC_047_CS"), csms=TC("TC_047_CSMS"))
@needs(tagged("Accepted"))
async def test_reservation_expires(ocpp, profile):
    """A reservation that is not used is released at its expiryDate: Reserved, then Available."""
    connector = connectors(profile)[0]
    mark = ocpp.mark()
    await _reserve(ocpp, connector, tag16(profile, "Accepted").id, seconds=SHORT)
    reserved = await _status(ocpp, connector, "Reserved", mark, RESERVE16.reserved_status)
    await _status(ocpp, connector, "Available", ocpp.mark_after(reserved), RESERVE16.expires,
                  timeout=SHORT + ocpp.timeouts.action)


@checks(*ASKED16, Core16.authorize, Core16.start, RESERVE16.not_free, cs=TC("TC_048_2_CS"), csms=TC("TC_048_2_CSMS"))
@needs(tagged("Accepted"))
async def test_connector_in_a_transaction_is_occupied(ocpp, profile):
    """ReserveNow of a connector that charges: Occupied."""
    token, connector = tag16(profile, "Accepted"), connectors(profile)[0]
    await start(ocpp, token, connector)
    await _reserve(ocpp, connector, token.id, expect="Occupied", rule=RESERVE16.not_free)


@checks(*ASKED16, RESERVE16.not_free, csms=TC("TC_048_3_CSMS"), cs=TC("TC_048_3_CS"))
@needs(tagged("Accepted"))
async def test_inoperative_connector_is_unavailable(ocpp, profile):
    """ReserveNow of a connector made Inoperative: Unavailable."""
    connector = connectors(profile)[0]
    changed = await operate(ocpp, "ChangeAvailability", {"connectorId": connector, "type": "Inoperative"})
    if status_of(changed) != "Accepted":
        raise NotApplicable(f"the charge point answers ChangeAvailability Inoperative {status_of(changed)}")
    await _reserve(ocpp, connector, tag16(profile, "Accepted").id, expect="Unavailable", rule=RESERVE16.not_free)


@checks(*ASKED16, RESERVE16.faulted, csms=TC("TC_048_1_CSMS"), cs=TC("TC_048_1_CS"))
@needs(tagged("Accepted"))
async def test_faulted_connector_is_faulted(ocpp, profile):
    """A connector made faulted at the charge point (``fault_connector``, undone by ``clear_fault``) reports
    Faulted; ReserveNow of it is answered Faulted, an answer the central system takes like any other."""
    connector = connectors(profile)[0]
    mark = ocpp.mark()
    await ocpp.act(CS, "fault_connector", connector_id=connector)
    await _status(ocpp, connector, "Faulted", mark, RESERVE16.faulted)
    await _reserve(ocpp, connector, tag16(profile, "Accepted").id, expect="Faulted", rule=RESERVE16.faulted)


@pytest.mark.sut_roles("csms")
@checks(*ASKED16, csms=TC("TC_048_4_CSMS"))
@needs(tagged("Accepted"))
async def test_rejected_reservation_is_sent_as_asked(ocpp, profile):
    """A charge point not configured for reservations (Rejected): the central system sends what it was asked."""
    ocpp.configure(reservations_refused=True)
    await _reserve(ocpp, connectors(profile)[0], tag16(profile, "Accepted").id, expect="Rejected")


@checks(*ASKED16, RESERVE16.accepted, RESERVE16.cancelled, cs=TC("TC_051_CS"), csms=TC("TC_051_CSMS"))
@needs(tagged("Accepted"))
async def test_reservation_is_cancelled(ocpp, profile):
    """CancelReservation of the active reservation: Accepted, and the connector reports Available."""
    connector = connectors(profile)[0]
    reservation_id = await _reserve(ocpp, connector, tag16(profile, "Accepted").id)
    mark = ocpp.mark()
    exchange = await operate(ocpp, "CancelReservation", {"reservationId": reservation_id})
    check_equal(RESERVE16.cancelled, "CancelReservation.conf status", "Accepted", status_of(exchange))
    await _status(ocpp, connector, "Available", mark, RESERVE16.cancelled)


@checks(*ASKED16, RESERVE16.accepted, RESERVE16.cancel_unknown, cs=TC("TC_052_CS"), csms=TC("TC_052_CSMS"))
@needs(tagged("Accepted"))
async def test_cancel_of_an_unknown_reservation_is_rejected(ocpp, profile):
    """CancelReservation of a reservationId that is not the active one: Rejected."""
    reservation_id = await _reserve(ocpp, connectors(profile)[0], tag16(profile, "Accepted").id)
    exchange = await operate(ocpp, "CancelReservation", {"reservationId": reservation_id + 1})
    check_equal(RESERVE16.cancel_unknown, "CancelReservation.conf status", "Rejected", status_of(exchange))


@checks(*ASKED16, RESERVE16.accepted, Core16.authorize, RESERVE16.reservation_used, RESERVE16.start_answered,
        cs=TC("TC_053_1_CS"))
@needs(grouped)
async def test_group_member_uses_the_reservation(ocpp, profile):
    """A reservation for an idTag and its group: another member of the group starts with its reservationId."""
    (holder, member), connector = group16(profile), connectors(profile)[0]
    reservation_id = await _reserve(ocpp, connector, holder.id, parent=holder.group)
    mark = ocpp.mark()
    await ocpp.act(CS, "present_id_tag", id_tag=member.id, connector_id=connector)
    if ocpp.is_sut(CSMS):   # the charge point learns that the member is of the group only from the answer
        async with ocpp.prerequisite("authorization of the group's other member", owner="AUTH16"):
            judge_group(await ocpp.expect("Authorize", sender=CS, after=mark,
                                          where=lambda p: same_tag(p.get("idTag"), member.id)), member)
    await ocpp.act(CS, "plug_in", connector_id=connector)
    await _used(ocpp, member.id, connector, reservation_id, mark)

