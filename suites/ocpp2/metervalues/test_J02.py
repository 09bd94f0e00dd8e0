"""J02 — Sending transaction-related meter values: while a transaction runs, the station samples its meter
every SampledDataCtrlr.TxUpdatedInterval seconds and sends the samples in TransactionEvent Updated
(triggerReason MeterValuePeriodic, context Sample.Periodic); the CSMS answers every TransactionEvent
(J02.FR.19). The requirements, in our words: docs/requirements/J.md.

Readings chosen where the texts are silent: no public SHALL of J02 on the station's periodic events could be
checked, so they are SHOULDs; the measurands sent are the station's (any SampledDataCtrlr.TxUpdatedMeasurands);
a station that refuses TxUpdatedInterval is not applicable. Signed values (J02.FR.21): a station whose meters
cannot sign does not know (or refuses) SampledDataCtrlr.SignReadings and is not applicable; an OCMF record
signed with ECDSA is verified, any other encoding is judged by its form only."""

import pytest

from harness.roles import CS
from harness.rules import RuleTable, must, should
from harness.suite import OCPP2, TC, case, checks
from harness.usecases.authorization import station_variable
from harness.usecases.meter_values import Signed, check_signed
from harness.usecases.transactions import (Transaction, check_answers, check_seq_no, events_of, local_start, of,
                                           transaction_id, tx_points)
from harness.verdict import check_equal, dig, require

INTERVAL = 10   # seconds between samples, set for the test


class J02(RuleTable):
    """The rules of J02 (OCPP 2.0.1 part 2 J02; the same in 2.1)."""
    periodic = should("OCPP 2.0.1 part 2 J02 (SampledDataCtrlr.TxUpdatedInterval); TriggerReasonEnumType "
                      "MeterValuePeriodic", "while a transaction runs, every TxUpdatedInterval seconds a TransactionEvent "
                      "Updated with triggerReason MeterValuePeriodic carries the sampled meterValue", by=CS)
    started = must("OCPP 2.0.1 part 2 E02.FR.02 (as tzi-OCTT's TC_E_03 quotes it)",
                   "the Started event carries the meter values SampledDataCtrlr.TxStartedMeasurands lists", by=CS)
    ended = should("OCPP 2.0.1 part 2 J02 (SampledDataCtrlr.TxEndedMeasurands)",
                   "the Ended event carries the meter values SampledDataCtrlr.TxEndedMeasurands lists", by=CS)
    context = should("OCPP 2.0.1 part 2 ReadingContextEnumType (Sample.Periodic)",
                     "the periodic samples carry context Sample.Periodic", by=CS)
    edge_context = should("OCPP 2.0.1 part 2 ReadingContextEnumType (Transaction.Begin, Transaction.End)",
                          "the Started event's readings carry context Transaction.Begin, the Ended event's "
                          "Transaction.End", by=CS)
    register = should("OCPP 2.0.1 MeasurandEnumType Energy.Active.Import.Register (a register: it counts up)",
                      "the energy register a transaction's samples carry never goes down", by=CS)
    after_end = should("OCPP 2.0.1 TransactionEventEnumType Ended (the last event of a transaction); J02",
                       "no TransactionEvent of a transaction follows its Ended event: its samples stop", by=CS)
    none_at_zero = should("OCPP 2.0.1 device model SampledDataCtrlr.TxUpdatedInterval (0: no sampled data)",
                          "with TxUpdatedInterval 0 a running transaction sends no periodic samples", by=CS)
    signed = must("OCPP 2.0.1 part 2 J02.FR.21 (as tzi-OCTT's requirement list quotes it)",
                  "with SampledDataCtrlr.SignReadings true, the transaction's samples carry the meter's signed "
                  "value in signedMeterValue", by=CS)


pytestmark = case("J02", block="Meter values", roles=("csms", "cs"), protocols=OCPP2)


def _periodic(tx):
    return lambda p: of(tx, "Updated")(p) and p.get("triggerReason") == "MeterValuePeriodic" and p.get("meterValue")


async def _sampled_transaction(ocpp, profile):
    """TxUpdatedInterval 10 s; a driver's transaction runs for two intervals: its id, the mark before it
    started and its first periodic sample (None: none, a finding of J02.periodic)."""
    await station_variable(ocpp, "SampledDataCtrlr", "TxUpdatedInterval", str(INTERVAL))
    mark = ocpp.mark()
    _, started = await local_start(ocpp, profile.evses[0].id, Transaction.started)
    tx = transaction_id(started)
    await ocpp.elapse(2 * INTERVAL)
    sample = await ocpp.expect("TransactionEvent", sender=CS, after=mark, where=_periodic(tx), rule=J02.periodic)
    return tx, mark, sample


@checks(J02.periodic, Transaction.started, J02.context, Transaction.seq_no, Transaction.answered,
        csms=TC("TC_J_09_CSMS", "ocpp2.0.1"))
async def test_periodic_samples_during_a_transaction(ocpp, profile):
    """TxUpdatedInterval 10 s; a driver's transaction runs for two intervals: Updated events with
    MeterValuePeriodic and Sample.Periodic samples follow; a CSMS answers each."""
    tx, mark, sample = await _sampled_transaction(ocpp, profile)
    if sample is not None:
        contexts = {dig(v, "context", "Sample.Periodic") for m in sample.request["meterValue"]
                    for v in m["sampledValue"]}
        check_equal(J02.context, "the contexts of the periodic sampledValues", {"Sample.Periodic"}, contexts)
    events = events_of(ocpp, tx, mark)
    check_seq_no(events)
    check_answers(ocpp, events)


ENERGY = "Energy.Active.Import.Register"


def _measurands(event) -> set:
    return {dig(v, "measurand", ENERGY) for m in event.request.get("meterValue", []) for v in m["sampledValue"]}


async def _edge_events(ocpp, profile):
    """TxStartedMeasurands and TxEndedMeasurands list the energy register, TxStopPoint EVConnected; a driver's
    transaction starts and ends with the cable: its id, the mark before it started, its Started event and its
    Ended event (None: none, a finding of J02.ended)."""
    evse = profile.evses[0].id
    await tx_points(ocpp, stop="EVConnected")
    for variable in ("TxStartedMeasurands", "TxEndedMeasurands"):
        await station_variable(ocpp, "SampledDataCtrlr", variable, ENERGY)
    mark = ocpp.mark()
    _, started = await local_start(ocpp, evse, J02.started)
    tx = transaction_id(started)
    stop = ocpp.mark()
    await ocpp.act(CS, "unplug", evse_id=evse)
    ended = await ocpp.expect("TransactionEvent", sender=CS, after=stop, where=of(tx, "Ended"), rule=J02.ended)
    return tx, mark, started, ended


@checks(J02.started, J02.ended, Transaction.answered)
async def test_started_and_ended_carry_the_configured_measurands(ocpp, profile):
    """TxStartedMeasurands and TxEndedMeasurands list the energy register; a driver's transaction starts and
    ends with the cable: the Started and the Ended events carry it; a CSMS answers both."""
    tx, mark, started, ended = await _edge_events(ocpp, profile)
    require(ENERGY in _measurands(started), J02.started, "the Started event carries no " + ENERGY,
            expected=ENERGY, actual=started.request.get("meterValue"))
    if ended is not None:
        require(ENERGY in _measurands(ended), J02.ended, "the Ended event carries no " + ENERGY,
                expected=ENERGY, actual=ended.request.get("meterValue"))
    check_answers(ocpp, events_of(ocpp, tx, mark))


@checks(J02.signed, J02.periodic, Transaction.started, Signed.form, Signed.signature, Transaction.answered)
async def test_signed_periodic_samples(ocpp, profile):
    """TxUpdatedInterval 10 s and SampledDataCtrlr.SignReadings true; a driver's transaction runs for two
    intervals: each periodic sampledValue carries a signedMeterValue whose OCMF signature verifies; a CSMS
    answers every event."""
    await station_variable(ocpp, "SampledDataCtrlr", "SignReadings", "true")
    tx, mark, sample = await _sampled_transaction(ocpp, profile)
    if sample is not None:
        check_signed(ocpp.sent("TransactionEvent", sender=CS, after=mark, where=_periodic(tx)), J02.signed)
    check_answers(ocpp, events_of(ocpp, tx, mark))


@checks(J02.signed, J02.started, J02.ended, Signed.form, Signed.signature, Transaction.answered)
async def test_signed_started_and_ended_values(ocpp, profile):
    """SampledDataCtrlr.SignReadings true, TxStartedMeasurands and TxEndedMeasurands the energy register; a
    driver's transaction starts and ends with the cable: the readings of its Started and Ended events carry a
    signedMeterValue whose OCMF signature verifies."""
    await station_variable(ocpp, "SampledDataCtrlr", "SignReadings", "true")
    tx, mark, started, ended = await _edge_events(ocpp, profile)
    require(bool(started.request.get("meterValue")), J02.started, "the Started event carries no meter value",
            expected=ENERGY, actual=None)
    check_signed([started] + ([ended] if ended is not None and ended.request.get("meterValue") else []), J02.signed)
    check_answers(ocpp, events_of(ocpp, tx, mark))


@checks(J02.started, J02.ended, J02.edge_context, Transaction.answered)
async def test_started_and_ended_values_name_their_context(ocpp, profile):
    """TxStartedMeasurands and TxEndedMeasurands list the energy register; a driver's transaction starts and
    ends with the cable: the Started event's readings say Transaction.Begin, the Ended event's Transaction.End."""
    tx, mark, started, ended = await _edge_events(ocpp, profile)
    for event, context in ((started, "Transaction.Begin"), (ended, "Transaction.End")):
        if event is not None and event.request.get("meterValue"):
            contexts = {dig(v, "context", "Sample.Periodic") for m in event.request["meterValue"]
                        for v in m["sampledValue"]}
            check_equal(J02.edge_context, f"the contexts of the {event.request['eventType']} event's readings",
                        {context}, contexts)
    check_answers(ocpp, events_of(ocpp, tx, mark))


def _registers(events) -> list[float]:
    """The energy register readings of ``events``, in the order sent (a value without measurand is the register)."""
    return [float(v["value"]) for e in events for m in e.request.get("meterValue", []) for v in m["sampledValue"]
            if dig(v, "measurand", ENERGY) == ENERGY and dig(v, "phase") is None]


@checks(J02.periodic, Transaction.started, J02.register, Transaction.answered)
async def test_the_register_never_goes_down(ocpp, profile):
    """TxUpdatedInterval 10 s; a driver's transaction runs for four intervals: the energy register its periodic
    samples carry rises or stays, never falls."""
    tx, mark, sample = await _sampled_transaction(ocpp, profile)
    if sample is None:
        return
    await ocpp.elapse(2 * INTERVAL)
    values = _registers(ocpp.sent("TransactionEvent", sender=CS, after=mark, where=_periodic(tx)))
    require(all(a <= b for a, b in zip(values, values[1:])), J02.register,
            "the energy register of the transaction's samples went down", expected="non-decreasing", actual=values)
    check_answers(ocpp, events_of(ocpp, tx, mark))


@checks(J02.periodic, Transaction.started, J02.after_end, Transaction.answered)
async def test_samples_stop_with_the_transaction(ocpp, profile):
    """TxUpdatedInterval 10 s, TxStopPoint EVConnected; a driver's transaction samples, then the cable is pulled:
    after its Ended event no event of that transaction follows for two intervals."""
    await tx_points(ocpp, stop="EVConnected")
    tx, mark, sample = await _sampled_transaction(ocpp, profile)
    if sample is None:
        return
    stop = ocpp.mark()
    await ocpp.act(CS, "unplug", evse_id=profile.evses[0].id)
    ended = await ocpp.expect("TransactionEvent", sender=CS, after=stop, where=of(tx, "Ended"), rule=J02.after_end)
    if ended is not None and ocpp.is_sut(CS):   # the harness's own station is not watched for what it must not send
        await ocpp.expect_none("TransactionEvent", after=ocpp.mark_after(ended), where=of(tx), rule=J02.after_end,
                               within=2 * INTERVAL)
    check_answers(ocpp, events_of(ocpp, tx, mark))


@pytest.mark.sut_roles("cs")
@checks(J02.none_at_zero)
async def test_no_periodic_samples_at_interval_zero(ocpp, profile):
    """SampledDataCtrlr.TxUpdatedInterval 0; a driver's transaction runs for three of the intervals the other
    tests use: no Updated event with MeterValuePeriodic."""
    await station_variable(ocpp, "SampledDataCtrlr", "TxUpdatedInterval", "0")
    mark = ocpp.mark()
    _, started = await local_start(ocpp, profile.evses[0].id, Transaction.started)
    await ocpp.expect_none("TransactionEvent", after=mark, rule=J02.none_at_zero, within=3 * INTERVAL,
                           where=_periodic(transaction_id(started)))
