"""H03 — Use a reserved EVSE: the EVSE reserved for a token starts no transaction for another token (one of
the reservation's group excepted), and starts the reserved token's; that transaction's first
TransactionEvent (Started) carries the reservationId, which ends the reservation (E03.FR.04). The
requirements, in our words: docs/requirements/reservation.md (the H03 and E03.FR.04 texts we could read do
not say SHALL: what the station does is SHOULD).

Readings chosen where the text is silent: whether the station asks the CSMS about the other token before it
refuses it is not judged; only that no transaction starts for it on the reserved EVSE."""

import pytest

from harness.errors import NotApplicable
from harness.roles import CS, CSMS
from harness.rules import RuleTable, must, should
from harness.suite import OCPP2, case, checks
from harness.usecases.authorization import carries, judge_group, never_starts_with, token_with
from harness.usecases.operations import operate
from harness.usecases.remote_control import authorizes, remote_start, start_refused
from harness.usecases.reservation import reports, reserve
from harness.verdict import check_equal, dig


class H03(RuleTable):
    """The rules of H03 (OCPP 2.0.1 part 2, H03 and E03.FR.04; the same in 2.1)."""
    reserve_request = must("OCPP 2.0.1 part 2 ReserveNowRequest (id, expiryDateTime, idToken required)",
                           "the CSMS sends the ReserveNow its operator asked for", by=CSMS)
    reserved = should("OCPP 2.0.1 part 2 H01; ReserveNowStatusEnumType (Accepted); ConnectorStatusEnumType",
                      "a free EVSE is reserved (Accepted, its connectors Reserved)", by=CS)
    other_refused = should("OCPP 2.0.1 part 2 H03",
                           "a reserved EVSE starts no transaction for a token other than the reservation's (nor one "
                           "outside its group)", by=CS)
    used = should("OCPP 2.0.1 part 2 H03; E03.FR.04; TransactionEventRequest reservationId",
                  "the reserved token's (or a group member's) transaction starts on the EVSE and its Started "
                  "TransactionEvent carries the reservationId", by=CS)
    ended = should("OCPP 2.0.1 part 2 H03 (the reservation ends when its token starts); CancelReservationStatusEnumType",
                   "a reservation its transaction used is over: CancelReservation of it is Rejected", by=CS)
    cancel_request = must("OCPP 2.0.1 part 2 CancelReservationRequest (reservationId required)",
                          "the CSMS sends CancelReservation naming the reservation its operator chose", by=CSMS)
    start_request = must("OCPP 2.0.1 part 2 RequestStartTransactionRequest (evseId, idToken, remoteStartId)",
                         "the CSMS sends RequestStartTransaction for the EVSE and token its operator chose", by=CSMS)
    answered = must("spec 001 Authorization rule 7 (TransactionEvent idTokenInfo)",
                    "the CSMS answers the reserved valid token's TransactionEvent Accepted", by=CSMS)


pytestmark = case("H03", block="Reservation", roles=("csms", "cs"), protocols=OCPP2, requires=["reservations"])


async def _used(ocpp, token, evse: int, reservation_id: int, after: int) -> None:
    """The transaction of ``token`` starts on ``evse`` with ``reservation_id`` (and, at a CSMS under test,
    is answered Accepted)."""
    started = await ocpp.expect("TransactionEvent", sender=CS, after=after, rule=H03.used,
                                where=lambda p: carries(token)(p) and dig(p, "evse.id", evse) == evse)
    if started is None:   # no transaction: a finding (SHOULD), nothing more to judge
        return
    check_equal(H03.used, "TransactionEventRequest reservationId", reservation_id, started.request.get("reservationId"))
    if ocpp.is_sut(CSMS):
        check_equal(H03.answered, "TransactionEventResponse idTokenInfo.status", "Accepted",
                    dig(started.result, "idTokenInfo.status", "Accepted"))


@checks(H03.reserve_request, H03.reserved, H03.other_refused, H03.used, H03.answered)
async def test_reserved_evse_serves_only_its_token(ocpp, profile):
    """A reserved EVSE: another valid token with the cable in starts nothing; the reserved token then starts
    with the reservationId."""
    token = token_with(profile, "Accepted", type="ISO14443")
    other = next((t for t in profile.tokens_with("Accepted") if not t.also and not t.group and t.id != token.id
                  and t.type == "ISO14443" and not t.evse_ids), None)
    if other is None:
        raise NotApplicable("the profile declares no second accepted ISO14443 token to present at the reserved EVSE")
    evse, mark = profile.evses[0].id, ocpp.mark()
    reservation_id, _ = await reserve(ocpp, H03.reserve_request, H03.reserved, token.wire(), evseId=evse)
    await reports(ocpp, evse, "Reserved", mark, H03.reserved)
    tried = ocpp.mark()
    await ocpp.act(CS, "plug_in", evse_id=evse)
    await ocpp.act(CS, "present_id_token", id_token=other.wire(), evse_id=evse)
    await never_starts_with(ocpp, other, tried, H03.other_refused)
    if ocpp.sent("TransactionEvent", sender=CS, after=tried, where=carries(other)):
        return   # the other token took the EVSE (a finding): the reserved token cannot be judged there
    mark = ocpp.mark()
    await ocpp.act(CS, "present_id_token", id_token=token.wire(), evse_id=evse)
    await _used(ocpp, token, evse, reservation_id, mark)


@checks(H03.reserve_request, H03.reserved, H03.used, H03.answered)
async def test_a_group_member_uses_the_reservation(ocpp, profile):
    """A reservation for a token and its group: another member of the group starts with the reservationId."""
    members = [t for t in profile.tokens_with("Accepted") if t.group and not t.also]
    pair = next(((a, b) for a in members for b in members if a.id != b.id and a.group == b.group), None)
    if pair is None:
        raise NotApplicable("the profile declares no two accepted tokens of one group")
    holder, member = pair
    evse = profile.evses[0].id
    reservation_id, _ = await reserve(ocpp, H03.reserve_request, H03.reserved, holder.wire(), evseId=evse,
                                      groupIdToken={"idToken": holder.group, "type": "Central"})
    mark = ocpp.mark()
    await ocpp.act(CS, "plug_in", evse_id=evse)
    await ocpp.act(CS, "present_id_token", id_token=member.wire(), evse_id=evse)
    if ocpp.is_sut(CSMS):   # the station learns that the member is of the group only from the answer
        async with ocpp.prerequisite("authorization of the group's other member", owner="C01"):
            judge_group(await ocpp.expect("Authorize", sender=CS, after=mark, where=authorizes(member.wire())),
                        member)
    await _used(ocpp, member, evse, reservation_id, mark)


@pytest.mark.requires("remote_start")
@checks(H03.reserve_request, H03.reserved, H03.start_request, H03.used)
async def test_remote_start_uses_the_reservation(ocpp, profile):
    """A reservation of any EVSE, then the reserved token started remotely on the first EVSE: its Started
    TransactionEvent carries the reservationId."""
    token, evse = token_with(profile, "Accepted", type="ISO14443"), profile.evses[0].id
    reservation_id, _ = await reserve(ocpp, H03.reserve_request, H03.reserved, token.wire())
    mark = ocpp.mark()
    started = await remote_start(ocpp, evse, H03.start_request, id_token=token.wire())
    if started.result["status"] != "Accepted":
        raise NotApplicable(f"the remote start of the reserved token was answered {started.result['status']}")
    await _used(ocpp, token, evse, reservation_id, mark)


@pytest.mark.sut_roles("cs")
@pytest.mark.requires("remote_start")
@checks(H03.reserve_request, H03.reserved, H03.start_request, H03.other_refused)
async def test_reserved_evse_refuses_another_remote_start(ocpp, profile):
    """The first EVSE reserved for the profile's valid token: a remote start on it for a Central token of the
    CSMS is Rejected."""
    token, evse = token_with(profile, "Accepted", type="ISO14443"), profile.evses[0].id
    await reserve(ocpp, H03.reserve_request, H03.reserved, token.wire(), evseId=evse)
    await start_refused(ocpp, evse, H03.start_request, H03.other_refused)


@pytest.mark.sut_roles("cs")
@pytest.mark.requires("remote_start")
@checks(H03.reserve_request, H03.reserved, H03.start_request, H03.used, H03.cancel_request, H03.ended)
async def test_a_used_reservation_is_over(ocpp, profile):
    """The reserved token started remotely on its EVSE (the reservation used): CancelReservation of it is then
    Rejected."""
    token, evse = token_with(profile, "Accepted", type="ISO14443"), profile.evses[0].id
    reservation_id, _ = await reserve(ocpp, H03.reserve_request, H03.reserved, token.wire(), evseId=evse)
    mark = ocpp.mark()
    started = await remote_start(ocpp, evse, H03.start_request, id_token=token.wire())
    if started.result["status"] != "Accepted":
        raise NotApplicable(f"the remote start of the reserved token was answered {started.result['status']}")
    await _used(ocpp, token, evse, reservation_id, mark)
    exchange = await operate(ocpp, "CancelReservation", {"reservationId": reservation_id}, H03.cancel_request)
    check_equal(H03.ended, "CancelReservationResponse status of a used reservation", "Rejected",
                exchange.result["status"])
