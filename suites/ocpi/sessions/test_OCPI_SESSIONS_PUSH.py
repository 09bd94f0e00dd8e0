"""OCPI_SESSIONS_PUSH — the CPO pushes its Sessions to the eMSP's Receiver (sessions 2.2.1;
``SessionRules`` in harness/ocpi/sessions.py).

Played with either platform under test; the CPO always initiates (the actuator asks a CPO under
test: ``start_session``, ``update_session``, ``stop_session``, ``reserve``). The harness's Receiver
judges every push of a CPO under test as it stores it (schema, URL, last_updated, the status table,
ChargingPeriods appended); what the CPO pushed is then read back from the SUT: from the eMSP's
Receiver as stored, or from the CPO's own list. A new Session is PUT, every change PATCHed with
only what changed; PENDING → ACTIVE moves start_date_time; a reservation is a RESERVATION
Session (#NA without an EVSE) that becomes ACTIVE with the same Token or ends COMPLETED;
COMPLETED is final.
"""


import pytest

from harness.cistring import same_id
from harness.ocpi import schemas
from harness.ocpi.sessions import (
    ACTIVE, COMPLETED, INVALID, NA, PENDING, RESERVATION, SESSIONS, SessionRules as Ses)
from harness.ocpi.timestamps import parse_datetime
from harness.roles import CPO, EMSP
from harness.suite import OCPI, case, checks
from harness.usecases import ocpi_credentials as creds
from harness.usecases import ocpi_sessions as ses
from harness.verdict import check_equal, require

pytestmark = case("OCPI_SESSIONS_PUSH", block="Sessions", roles=(CPO, EMSP), protocols=OCPI)

HELD = (Ses.put_stored, Ses.listed)   # what the SUT holds: an eMSP as stored, a CPO in its list


async def _started(ocpi, **body):
    await creds.registered(ocpi)
    return await ses.start(ocpi, **body)


@pytest.mark.parametrize("ocpi", ["in_process", "sockets"], indirect=True)
@checks(Ses.pushed, Ses.put_ids, *HELD, Ses.ids_as_sent)
async def test_new_session_is_put_and_held(ocpi):
    """A new Session is PUT whole; the SUT then holds that very Session, its ids compared ignoring
    case (CiStrings); ids that come back in another case are a finding."""
    sent = await _started(ocpi)
    held = await ses.held_by_sut(ocpi, sent)
    for field in ("id", "status", "location_id", "evse_uid", "connector_id", "last_updated"):
        ses.check_held(ocpi, field, sent[field], held.get(field))
    for field in ("country_code", "party_id", "id", "location_id", "evse_uid", "connector_id"):
        check_equal(Ses.ids_as_sent, field, sent[field], held.get(field))
    ses.check_held(ocpi, "uid", sent["cdr_token"]["uid"], held["cdr_token"]["uid"], what="cdr_token uid")


@checks(Ses.pushed, Ses.patch_last_updated, Ses.patch_applied, Ses.patch_only_changed, Ses.listed)
async def test_change_is_patched_with_last_updated(ocpi):
    """Charging progress is PATCHed with kwh and last_updated only; the SUT holds the new kwh and
    every other field as it was."""
    sent = await _started(ocpi)
    patch = await ses.change(ocpi, sent["id"], kwh=7.5)
    require(patch.get("last_updated"), Ses.patch_last_updated, "the PATCH carries no last_updated",
            expected="last_updated", actual=sorted(patch))
    held = await ses.held_by_sut(ocpi, sent)
    ses.check_held(ocpi, "kwh", patch["kwh"], held["kwh"])
    for field in ("status", "location_id", "currency", "start_date_time"):
        ses.check_held(ocpi, field, sent[field], held[field])


@checks(Ses.periods_appended, Ses.periods_only_new, Ses.patch_applied, Ses.listed)
async def test_charging_periods_are_appended(ocpi):
    """Two PATCHes each bring a new ChargingPeriod; the Receiver appends them, so both sides hold
    the same two periods in order."""
    sent = await _started(ocpi)
    await ses.change(ocpi, sent["id"], kwh=3.0)
    await ocpi.elapse(1)   # the second period starts later (free in virtual time)
    await ses.change(ocpi, sent["id"], kwh=6.0)
    harness, sut = ses.held_by_harness(ocpi, sent["id"]), await ses.held_by_sut(ocpi, sent)
    rule = Ses.periods_appended if ocpi.is_sut(EMSP) else Ses.periods_only_new
    expected, actual = (harness, sut) if ocpi.is_sut(EMSP) else (sut, harness)
    check_equal(rule, "charging_periods held (as the CPO holds them)", expected.get("charging_periods") or [],
                actual.get("charging_periods") or [], same=schemas.same_object)


@checks(Ses.activation_start, Ses.transitions, Ses.patch_applied, Ses.listed)
async def test_pending_becomes_active_at_the_moment_of_activation(ocpi):
    """A PENDING Session's start_date_time is its creation; going ACTIVE moves it to the moment of
    activation, later than the creation (the test waits two seconds between the two)."""
    sent = await _started(ocpi, status=PENDING)
    check_equal(Ses.pushed, "status of the new Session", PENDING, sent["status"])
    await ocpi.elapse(2)   # activation must come later than creation: time passes (virtual in the embedded run)
    patch = await ses.change(ocpi, sent["id"], status=ACTIVE)
    moved = patch.get("start_date_time")
    require(moved is not None and parse_datetime(moved) > parse_datetime(sent["start_date_time"]),
            Ses.activation_start, "start_date_time was not moved to the moment of activation",
            expected=f"> {sent['start_date_time']}", actual=moved)
    held = await ses.held_by_sut(ocpi, sent)
    ses.check_held(ocpi, "status", ACTIVE, held["status"])
    ses.check_held(ocpi, "start_date_time", parse_datetime(moved), parse_datetime(held["start_date_time"]))


@checks(Ses.final, Ses.completed_kept, Ses.pushed, Ses.listed)
async def test_completed_is_final(ocpi):
    """A stopped Session is COMPLETED for good: a CPO pushes no change of it afterwards (asked to
    update it, it sends nothing); a Receiver pushed a later change keeps it COMPLETED (the text
    says "no more modifications" without saying how a Receiver answers one: refused or ignored,
    a finding when applied)."""
    sent = await _started(ocpi)
    stopped = await ses.stop(ocpi, sent["id"])
    check_equal(Ses.pushed, "status of the stop PATCH", COMPLETED, stopped.get("status"))
    if ocpi.is_sut(CPO):
        mark = ocpi.mark()
        await ocpi.act(CPO, "update_session", session_id=sent["id"], kwh=99.0)
        await ocpi.expect_no_request("PATCH", SESSIONS, (sent["id"],), after=mark, rule=Ses.final)
    else:
        change = {"status": ACTIVE, "last_updated": ses.seconds_later(stopped["last_updated"], 1)}
        await ocpi.exchange(CPO, "PATCH", SESSIONS, (sent["id"],), change, rule=Ses.completed_kept)
    held = await ses.held_by_sut(ocpi, sent)
    check_equal(Ses.completed_kept if ocpi.is_sut(EMSP) else Ses.final, "status", COMPLETED, held["status"])


@checks(Ses.reservation, Ses.reservation_token, Ses.transitions, Ses.listed, Ses.patch_applied)
async def test_reservation_becomes_active_with_the_same_token(ocpi):
    """A reservation is PUT as a RESERVATION Session; when the driver charges it becomes ACTIVE with
    the same Token."""
    await creds.registered(ocpi)
    reserved = await ses.reserve(ocpi, **ses.located(ocpi, capable=True))
    check_equal(Ses.reservation, "status of the reservation's Session", RESERVATION, reserved["status"])
    await ses.change(ocpi, reserved["id"], status=ACTIVE)
    held = await ses.held_by_sut(ocpi, reserved)
    ses.check_held(ocpi, "status", ACTIVE, held["status"])
    check_equal(Ses.reservation_token, "cdr_token uid after activation", reserved["cdr_token"]["uid"],
                ses.held_by_harness(ocpi, reserved["id"])["cdr_token"]["uid"], same=same_id)


@checks(Ses.reservation, Ses.na_accepted, Ses.na_only_reservation, Ses.put_stored, Ses.listed)
async def test_reservation_without_an_evse_is_na_until_charging(ocpi):
    """A reservation for a Location, no EVSE named: evse_uid and connector_id may be #NA while it is
    a RESERVATION (a CPO that assigns one at once is as right); once ACTIVE it charges at a real
    EVSE. A Receiver stores the #NA as sent."""
    await creds.registered(ocpi)
    where = ses.located(ocpi, capable=True)
    reserved = await ses.reserve(ocpi, accepted=Ses.na_accepted, location_id=where["location_id"])
    held = await ses.held_by_sut(ocpi, reserved)
    for field in ("evse_uid", "connector_id"):
        check_equal(Ses.na_accepted if ocpi.is_sut(EMSP) else Ses.listed, field, reserved[field], held[field],
                    same=same_id)
    await ses.change(ocpi, reserved["id"], status=ACTIVE)
    active = ses.held_by_harness(ocpi, reserved["id"])
    require(not any(same_id(NA, active[field]) for field in ("evse_uid", "connector_id")), Ses.na_only_reservation,
            "the ACTIVE Session still names no EVSE", expected="an EVSE uid and a connector id",
            actual=(active["evse_uid"], active["connector_id"]))


@checks(Ses.reservation, Ses.transitions, Ses.pushed, Ses.listed, Ses.patch_applied)
async def test_unused_reservation_ends_completed(ocpi):
    """A reservation nobody charges on ends COMPLETED (RESERVATION → COMPLETED)."""
    await creds.registered(ocpi)
    reserved = await ses.reserve(ocpi, **ses.located(ocpi, capable=True))
    await ses.stop(ocpi, reserved["id"])
    ses.check_held(ocpi, "status", COMPLETED, (await ses.held_by_sut(ocpi, reserved))["status"])


@checks(Ses.pushed, Ses.patch_applied, Ses.listed)
async def test_session_declared_invalid(ocpi):
    """A Session declared INVALID (it will not be billed) is PATCHed so and held so."""
    sent = await _started(ocpi)
    await ses.change(ocpi, sent["id"], status=INVALID)
    ses.check_held(ocpi, "status", INVALID, (await ses.held_by_sut(ocpi, sent))["status"])


@checks(Ses.authorization_reference, Ses.patch_applied, Ses.listed)
async def test_authorization_reference_is_the_last_given(ocpi):
    """The eMSP gave a first authorization_reference at the start and a new one later (a new
    authorization): the Session carries the last one."""
    sent = await _started(ocpi, authorization_reference="AUTH-REF-FIRST")
    check_equal(Ses.authorization_reference, "authorization_reference of the PUT", "AUTH-REF-FIRST",
                sent.get("authorization_reference"), same=same_id)
    await ses.change(ocpi, sent["id"], authorization_reference="AUTH-REF-SECOND")
    held = await ses.held_by_sut(ocpi, sent)
    check_equal(Ses.authorization_reference, "authorization_reference held", "AUTH-REF-SECOND",
                ses.held_by_harness(ocpi, sent["id"]).get("authorization_reference"), same=same_id)
    ses.check_held(ocpi, "authorization_reference", "AUTH-REF-SECOND", held.get("authorization_reference"))
