"""OCPI_CDRS_PUSH — the CPO POSTs the CDR of an ended session to the eMSP's Receiver (cdrs 2.2.1, push
model; ``CdrRules`` in harness/ocpi/cdrs.py; docs/requirements/ocpi-cdrs.md).

Played with either platform under test; the CPO always initiates: a Session is started, charged and
stopped (the sessions dialogue), then the CPO is asked for its CDR (``send_cdr``). A CPO under test's
CDR is judged against the Session it pushed (Token, Location, EVSE and Connector, auth_method,
authorization_reference, times, currency, energy) and on its own (ChargingPeriods in order, no Session
Only dimension, total_time, total_energy, its Tariffs and costs). An eMSP under test must answer the
POST with a Location and serve the CDR there as posted. A Credit CDR undoes a CDR: another id, credit
true, the original's id as credit_reference_id and total_cost negated.
"""

import pytest

from harness.ocpi.cdrs import CdrRules as Cdr
from harness.roles import CPO
from harness.suite import OCPI, case, checks
from harness.usecases import ocpi_cdrs as cdrs
from harness.verdict import check_equal

pytestmark = case("OCPI_CDRS_PUSH", block="CDRs", roles=(CPO, "emsp"), protocols=OCPI)

HELD = (Cdr.stored, Cdr.listed_pushed, Cdr.location_header)   # an eMSP at the Location, a CPO in its list
SESSION = (Cdr.session_id, Cdr.same_token, Cdr.same_location, Cdr.auth_method, Cdr.authorization_reference,
           Cdr.session_times, Cdr.currency, Cdr.energy_consistent)


@pytest.mark.parametrize("ocpi", ["in_process", "sockets"], indirect=True)
@checks(Cdr.posted, Cdr.post_url, Cdr.after_session, Cdr.unique_id, Cdr.id_length, *HELD)
async def test_cdr_of_an_ended_session_is_posted_and_held(ocpi):
    """Once the Session has ended the CPO POSTs its CDR to the cdrs endpoint itself; the SUT then holds
    that very CDR (an eMSP at the Location it answered, a CPO in its list), compared member by member."""
    posted = await cdrs.sent_cdr(ocpi)
    held = await cdrs.held_by_sut(ocpi, posted)
    if held is not None:
        cdrs.check_held(ocpi, posted.cdr, held)


@checks(*SESSION, Cdr.posted, *HELD)
async def test_cdr_records_its_session(ocpi):
    """A CDR is the record of its Session: session_id, cdr_token, the Location, EVSE and Connector, the
    last auth_method and authorization_reference (a session started by a command: COMMAND), start and
    end, currency and energy are the Session's."""
    session = await cdrs.charged(ocpi, authorization_reference="AUTH-CDR-0001")
    posted = await cdrs.post(ocpi, session)
    check_equal(Cdr.session_id, "session_id of the CDR", session["id"].casefold(),
                str(posted.cdr.get("session_id")).casefold())
    check_equal(Cdr.authorization_reference, "authorization_reference of the CDR",
                session["authorization_reference"].casefold(), str(posted.cdr.get("authorization_reference")).casefold())
    await cdrs.check_read_back(ocpi, posted, "session_id", "cdr_token", "cdr_location", "auth_method",
                               "authorization_reference", "start_date_time", "end_date_time")


@checks(Cdr.location_details, Cdr.same_location, Cdr.posted, *HELD)
async def test_cdr_location_is_the_published_location(ocpi):
    """cdr_location keeps only the Location, EVSE and Connector of the session, with what the CPO publishes of
    them: address, city, postal code, country, coordinates, the EVSE's evse_id, the Connector's standard,
    format and power type (a Location changed since the session may differ: a finding)."""
    session = await cdrs.charged(ocpi)
    posted = await cdrs.post(ocpi, session)
    cdrs.check_location(posted.cdr, await cdrs.published_location(ocpi, session["location_id"]))
    await cdrs.check_read_back(ocpi, posted, "cdr_location")


@checks(Cdr.dates_ordered, Cdr.session_only_dimensions, Cdr.total_time, Cdr.energy_consistent, Cdr.posted, *HELD)
async def test_cdr_periods_and_totals_agree(ocpi):
    """The ChargingPeriods follow each other within start and end and carry no Session Only dimension;
    total_time is the span in hours, total_parking_time within it, total_energy the ENERGY volumes."""
    posted = await cdrs.sent_cdr(ocpi, kwh=7.25)
    check_equal(Cdr.energy_consistent, "total_energy of the CDR", 7.25, posted.cdr.get("total_energy"))
    await cdrs.check_read_back(ocpi, posted, "charging_periods", "total_time", "total_parking_time", "total_energy")


@checks(Cdr.currency, Cdr.tariff_ids, Cdr.costs, Cdr.posted, *HELD)
async def test_cdr_costs_follow_its_tariffs(ocpi):
    """The CDR is in its Tariffs' currency, its ChargingPeriods name only Tariffs it lists, and its
    total_cost is what that Tariff gives for the energy and time (when one Tariff without restrictions
    applies), no less than its cost parts."""
    posted = await cdrs.sent_cdr(ocpi, kwh=31.5)
    check_equal(Cdr.costs, "total_cost has excl_vat", True, "excl_vat" in (posted.cdr.get("total_cost") or {}))
    await cdrs.check_read_back(ocpi, posted, "currency", "tariffs", "total_cost", "total_energy_cost",
                               "total_parking_cost", "total_fixed_cost", "total_time_cost")


@checks(Cdr.credit_reference, Cdr.credit_id, Cdr.credit_negated, Cdr.credit_kept, *HELD)
async def test_credit_cdr_undoes_a_cdr(ocpi):
    """A CDR is never changed: it is credited by a Credit CDR (another id, credit true, credit_reference_id
    the original's, total_cost negated); the SUT holds both."""
    posted = await cdrs.sent_cdr(ocpi)
    credit = await cdrs.credit(ocpi, posted)
    for which in (credit, posted):
        held = await cdrs.held_by_sut(ocpi, which)
        if held is not None:
            cdrs.check_held(ocpi, which.cdr, held, Cdr.credit_kept if ocpi.is_sut("emsp") else None)


@checks(Cdr.unique_id, Cdr.session_id, Cdr.posted, *HELD)
async def test_each_session_gets_its_own_cdr(ocpi):
    """Two sessions, two CDRs: each with its own id and its own session_id, and the SUT holds each as it was
    posted (an eMSP at the Location it gave that CDR)."""
    first = await cdrs.sent_cdr(ocpi)
    second = await cdrs.sent_cdr(ocpi)
    check_equal(Cdr.unique_id, "the two CDRs have two ids", True,
                str(first.cdr["id"]).casefold() != str(second.cdr["id"]).casefold())
    check_equal(Cdr.session_id, "the two CDRs record two Sessions", True,
                str(first.cdr.get("session_id")).casefold() != str(second.cdr.get("session_id")).casefold())
    for posted in (first, second):
        await cdrs.check_read_back(ocpi, posted, "id", "session_id", "total_energy", "total_cost")
