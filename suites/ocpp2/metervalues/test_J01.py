"""J01 — Sending meter values not related to a transaction: at every multiple of AlignedDataCtrlr.Interval
seconds of the clock the station samples its meters and, where no transaction runs, sends them in
MeterValues (context Sample.Clock); the CSMS answers every MeterValues with a MeterValuesResponse
(J01.FR.18). The requirements, in our words: docs/requirements/J.md.

Readings chosen where the texts are silent: no public SHALL of J01 on the station's clock-aligned reports
could be checked, so they are SHOULDs; which EVSE (or the main meter, evseId 0) a report names and which
measurands it carries are the station's; a station that refuses AlignedDataCtrlr.Interval is not
applicable. Signed values (J01.FR.21): a station whose meters cannot sign does not know (or refuses)
AlignedDataCtrlr.SignReadings and is not applicable; an OCMF record signed with ECDSA is verified, any other
encoding is judged by its form only."""

import pytest

from harness.ocpp.meter16 import parse_time
from harness.roles import CS, CSMS
from harness.rules import RuleTable, must, should
from harness.suite import OCPP2, TC, case, checks
from harness.usecases.authorization import station_variable
from harness.usecases.meter_values import Signed, check_signed
from harness.usecases.transactions import Transaction, check_answers, events_of, local_start, of, transaction_id
from harness.verdict import check_equal, dig, require

INTERVAL = 30   # seconds between clock-aligned samples, set for the test


class J01(RuleTable):
    """The rules of J01 (OCPP 2.0.1 part 2 J01; the same in 2.1)."""
    answered = must("OCPP 2.0.1 part 2 J01.FR.18", "the CSMS answers every MeterValues with a MeterValuesResponse",
                    by=CSMS)
    aligned = should("OCPP 2.0.1 part 2 J01 (AlignedDataCtrlr.Interval)",
                     "with AlignedDataCtrlr.Interval set and no transaction running, the station sends MeterValues at "
                     "the clock-aligned times", by=CS)
    aligned_in_transaction = should("OCPP 2.0.1 part 2 J01 (AlignedDataCtrlr.Interval); TriggerReasonEnumType "
                                    "MeterValueClock", "while a transaction runs, the clock-aligned samples come in "
                                    "a TransactionEvent Updated with triggerReason MeterValueClock", by=CS)
    context = should("OCPP 2.0.1 part 2 ReadingContextEnumType (Sample.Clock)",
                     "clock-aligned samples carry context Sample.Clock", by=CS)
    on_the_clock = should("OCPP 2.0.1 part 2 J01 (AlignedDataCtrlr.Interval: samples at the times aligned to the "
                          "clock)", "the timestamp of a clock-aligned sample is a multiple of Interval seconds from "
                          "midnight (a second either way)", by=CS)
    none_at_zero = should("OCPP 2.0.1 device model AlignedDataCtrlr.Interval (0: no clock-aligned data)",
                          "with AlignedDataCtrlr.Interval 0 the station sends no clock-aligned samples", by=CS)
    signed = must("OCPP 2.0.1 part 2 J01.FR.21 (as tzi-OCTT's requirement list quotes it)",
                  "with AlignedDataCtrlr.SignReadings true, the clock-aligned samples carry the meter's signed "
                  "value in signedMeterValue", by=CS)


pytestmark = case("J01", block="Meter values", roles=("csms", "cs"), protocols=OCPP2)


async def _aligned_report(ocpp):
    """AlignedDataCtrlr.Interval 30 s, no transaction: the station's MeterValues after one interval (None: none,
    a finding of J01.aligned), which a CSMS under test answered (J01.answered)."""
    await station_variable(ocpp, "AlignedDataCtrlr", "Interval", str(INTERVAL))
    mark = ocpp.mark()
    await ocpp.elapse(INTERVAL)
    report = await ocpp.expect("MeterValues", sender=CS, after=mark, rule=J01.aligned)
    if report is not None and ocpp.is_sut(CSMS):
        require(report.error is None, J01.answered, "the CSMS answered MeterValues with a CALLERROR",
                expected="MeterValuesResponse", actual=report.error)
    return report


@checks(J01.aligned, J01.context, J01.answered, csms=TC("TC_J_01_CSMS", "ocpp2.0.1"), cs=TC("TC_J_01_CS", "ocpp2.0.1"))
async def test_clock_aligned_meter_values_without_a_transaction(ocpp, profile):
    """AlignedDataCtrlr.Interval 30 s, no transaction: MeterValues with Sample.Clock samples follow; a CSMS
    answers them."""
    report = await _aligned_report(ocpp)
    if report is None:
        return
    check_equal(J01.context, "the contexts of the clock-aligned sampledValues", {"Sample.Clock"}, _contexts(report))


def _clocked(tx: str):
    """An Updated event of ``tx`` carrying its clock-aligned samples."""
    return lambda p: of(tx, "Updated")(p) and p.get("triggerReason") == "MeterValueClock" and p.get("meterValue")


def _contexts(report) -> set:
    """The reading contexts of a report's samples (an absent one reads as Sample.Periodic)."""
    return {dig(v, "context", "Sample.Periodic") for m in report.request["meterValue"] for v in m["sampledValue"]}


async def _clocked_report(ocpp, profile):
    """AlignedDataCtrlr.Interval 30 s and a driver's transaction for one interval: its id, the mark before it
    started and its MeterValueClock event (None: none, a finding of J01.aligned_in_transaction)."""
    await station_variable(ocpp, "AlignedDataCtrlr", "Interval", str(INTERVAL))
    mark = ocpp.mark()
    _, started = await local_start(ocpp, profile.evses[0].id, Transaction.started)
    tx = transaction_id(started)
    await ocpp.elapse(INTERVAL)
    report = await ocpp.expect("TransactionEvent", sender=CS, after=mark, where=_clocked(tx),
                               rule=J01.aligned_in_transaction)
    return tx, mark, report


@checks(J01.aligned_in_transaction, Transaction.started, J01.context, Transaction.answered, csms=TC("TC_J_02_CSMS", "ocpp2.0.1"))
async def test_clock_aligned_meter_values_during_a_transaction(ocpp, profile):
    """AlignedDataCtrlr.Interval 30 s and a driver's transaction: its clock-aligned samples come in a
    TransactionEvent Updated with triggerReason MeterValueClock and Sample.Clock; a CSMS answers it."""
    tx, mark, report = await _clocked_report(ocpp, profile)
    if report is not None:
        check_equal(J01.context, "the contexts of the clock-aligned sampledValues", {"Sample.Clock"},
                    _contexts(report))
    check_answers(ocpp, events_of(ocpp, tx, mark))


@checks(J01.signed, J01.aligned, J01.answered, Signed.form, Signed.signature)
async def test_signed_clock_aligned_meter_values(ocpp, profile):
    """AlignedDataCtrlr.Interval 30 s and AlignedDataCtrlr.SignReadings true, no transaction: each
    clock-aligned sampledValue carries a signedMeterValue whose OCMF signature verifies; a CSMS answers."""
    await station_variable(ocpp, "AlignedDataCtrlr", "SignReadings", "true")
    report = await _aligned_report(ocpp)
    if report is not None:
        check_signed([report], J01.signed)


@checks(J01.signed, J01.aligned_in_transaction, Transaction.started, Signed.form, Signed.signature, Transaction.answered)
async def test_signed_clock_aligned_values_during_a_transaction(ocpp, profile):
    """AlignedDataCtrlr.Interval 30 s and SignReadings true, a driver's transaction: the clock-aligned samples of
    its MeterValueClock event carry a signedMeterValue whose OCMF signature verifies; a CSMS answers."""
    await station_variable(ocpp, "AlignedDataCtrlr", "SignReadings", "true")
    tx, mark, report = await _clocked_report(ocpp, profile)
    if report is not None:
        check_signed([report], J01.signed)
    check_answers(ocpp, events_of(ocpp, tx, mark))


@checks(J01.aligned, J01.on_the_clock, J01.answered)
async def test_clock_aligned_values_are_on_the_clock(ocpp, profile):
    """AlignedDataCtrlr.Interval 30 s, no transaction: each MeterValue's timestamp falls on a multiple of 30 s
    of the clock (a second either way)."""
    report = await _aligned_report(ocpp)
    if report is None:
        return
    for value in report.request["meterValue"]:
        at = parse_time(value["timestamp"])
        off = at.timestamp() % INTERVAL
        require(min(off, INTERVAL - off) <= 1, J01.on_the_clock, "a clock-aligned sample is not on the clock",
                expected=f"a multiple of {INTERVAL} s", actual=value["timestamp"])


@pytest.mark.sut_roles("cs")
@checks(J01.none_at_zero)
async def test_no_clock_aligned_values_at_interval_zero(ocpp, profile):
    """AlignedDataCtrlr.Interval 0, no transaction: no MeterValues with Sample.Clock samples for two of the
    intervals the other tests use."""
    await station_variable(ocpp, "AlignedDataCtrlr", "Interval", "0")
    mark = ocpp.mark()
    await ocpp.expect_none("MeterValues", after=mark, rule=J01.none_at_zero, within=2 * INTERVAL,
                           where=lambda p: "Sample.Clock" in {dig(v, "context", "Sample.Periodic")
                                                              for m in p["meterValue"] for v in m["sampledValue"]})
