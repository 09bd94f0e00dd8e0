"""METER16 — meter values of a 1.6 transaction: sampled values every MeterValueSampleInterval
(MeterValuesSampledData), clock-aligned values every ClockAlignedDataInterval (MeterValuesAlignedData),
the StopTransaction's transactionData (StopTxnSampledData, StopTxnAlignedData; none when both are
empty), every phase and location of a measurand reported (spec 002 Meter values; Classes MeterValue,
SampledValue; Enumerations ReadingContext; Behavior rules 14 and 16).

Readings chosen where the text is short: the measurands are the profile's [station] measurands (the
energy register, the default measurand, when it declares none); clock-aligned values are told by their
context Sample.Clock and fall on multiples of the interval since midnight (UTC: the interval divides a
quarter-hour, so every time zone agrees); a measurand "can be measured" at the phases and locations the
charge point reports it at, so every MeterValue of one kind that reports it carries all of them.
"""


from harness.roles import CS, CSMS
from harness.ocpp.meter16 import ENERGY, parse_time
from harness.rules import RuleTable, must
from harness.suite import OCPP16, TC, case, checks, needs
from harness.usecases.core16 import Core16, collect, configure_charge_point, connectors, start, stop, tag16, tagged
from harness.verdict import require, violated


class METER16(RuleTable):
    """The rules of METER16."""
    sampled = must("spec 002 Meter values; Behavior rule 16",
                   "with MeterValueSampleInterval above 0 the charge point sends the running transaction's MeterValues "
                   "every interval, carrying every measurand of MeterValuesSampledData", by=CS)
    aligned = must("spec 002 Meter values; Behavior rule 16; Enumerations ReadingContext",
                   "with ClockAlignedDataInterval above 0 the charge point sends MeterValues at fixed clock times "
                   "(context Sample.Clock), carrying every measurand of MeterValuesAlignedData", by=CS)
    every_phase = must("spec 002 Meter values",
                       "a measurand the charge point measures at several phases or locations is reported at all of "
                       "them", by=CS)
    stop_data = must("spec 002 Meter values; Behavior rule 16",
                     "StopTransaction.req transactionData carries the measurands of StopTxnSampledData and, as "
                     "clock-aligned values, those of StopTxnAlignedData", by=CS)
    no_stop_data = must("spec 002 Behavior rule 14",
                        "with StopTxnSampledData and StopTxnAlignedData both empty, StopTransaction.req carries no "
                        "meter values", by=CS)
    answered = must("spec 002 Messages MeterValues; Meter values",
                    "the central system answers MeterValues.req, sampled or clock-aligned, per phase or overall, "
                    "with MeterValues.conf", by=CSMS)


pytestmark = case("METER16", block="Core (1.6)", roles=("csms", "cs"), protocols=OCPP16)

SAMPLE, ALIGNED = 1, 10   # seconds: MeterValueSampleInterval, ClockAlignedDataInterval
# the harness's own charge point's ClockAlignedDataInterval, facing a central system under test: its own choice,
# which costs a real run only time (three samples at 10 s of the clock held a parallel run's worker 20-40 s)
OWN_ALIGNED = 5
SAMPLES = 3               # MeterValues awaited per test
TOLERANCE = 1.0           # seconds a clock-aligned timestamp may lie off its clock time
CLOCK = "Sample.Clock"


def _measurands(profile) -> list[str]:
    return list(profile.get("station.measurands") or [ENERGY])


def _reported(value: dict) -> dict[str, set]:
    """measurand -> the (phase, location) points one MeterValue reports it at (SampledValue defaults)."""
    points: dict[str, set] = {}
    for sampled in value.get("sampledValue", []):
        points.setdefault(sampled.get("measurand", ENERGY), set()).add(
            (sampled.get("phase"), sampled.get("location", "Outlet")))
    return points


def _context(value: dict) -> str:
    contexts = {sampled.get("context", "Sample.Periodic") for sampled in value.get("sampledValue", [])}
    return CLOCK if CLOCK in contexts else "/".join(sorted(contexts))


def _check_every_phase(values: list[dict]) -> None:
    """Every MeterValue that reports a measurand does so at each point any MeterValue of its context does."""
    everywhere: dict[tuple[str, str], set] = {}
    for value in values:
        for measurand, points in _reported(value).items():
            everywhere.setdefault((_context(value), measurand), set()).update(points)
    for value in values:
        for measurand, points in _reported(value).items():
            missing = everywhere[(_context(value), measurand)] - points
            require(not missing, METER16.every_phase, f"a MeterValue at {value.get('timestamp')} reports {measurand} "
                    "without some phases or locations it is reported at elsewhere",
                    expected=sorted(map(str, everywhere[(_context(value), measurand)])),
                    actual=sorted(map(str, points)))


def _check_measurands(rule, where: str, values: list[dict], wanted: list[str]) -> None:
    reported = set().union(*(_reported(value) for value in values)) if values else set()
    missing = [m for m in wanted if m not in reported]
    require(not missing, rule, f"{where} lacks configured measurands", expected=wanted, actual=sorted(reported))


def _check_answered(exchanges) -> None:
    refused = [e.error for e in exchanges if e.error is not None]
    require(not refused, METER16.answered, "MeterValues.req was refused", expected="MeterValues.conf",
            actual=refused)


async def _transaction_meter_values(ocpp, profile, settings: dict[str, str], wait: float, rule, *,
                                    clock_aligned: bool) -> list:
    """A transaction at the charge point configured with ``settings``, and its first SAMPLES MeterValues
    (the sampled ones, or all when ``clock_aligned``), each answered by a central system under test."""
    token, connector = tag16(profile, "Accepted"), connectors(profile)[0]
    await configure_charge_point(ocpp, settings)
    started = await start(ocpp, token, connector)
    # the harness's charge point sends one CALL at a time: a central system under test may take up to the call
    # timeout to answer each (legal), and the next sample waits for it
    answering = ocpp.timeouts.call * SAMPLES if ocpp.is_sut(CSMS) else 0
    found = await collect(ocpp, "MeterValues", sender=CS, after=ocpp.mark_after(started), count=SAMPLES,
                          timeout=wait * SAMPLES + ocpp.timeouts.action + answering,
                          where=lambda p: p.get("connectorId") == connector and (
                              clock_aligned or all(_context(value) != CLOCK for value in p.get("meterValue", []))))
    require(len(found) == SAMPLES, rule, f"{len(found)} MeterValues came in {SAMPLES} intervals of {wait} s",
            expected=f"{SAMPLES} MeterValues", actual=len(found))
    if ocpp.is_sut(CSMS):
        _check_answered(found)
    return found


@checks(Core16.authorize, Core16.start, METER16.sampled, METER16.every_phase, METER16.answered, cs=TC("TC_070_CS"))
@needs(tagged("Accepted"))
async def test_sampled_values_during_a_transaction(ocpp, profile):
    """MeterValueSampleInterval 1 s with every measurand the charge point samples: three sampled MeterValues
    of the transaction (clock-aligned ones, if the charge point sends any, are not counted), each with every
    measurand, at every phase and location it is reported at."""
    measurands = _measurands(profile)
    found = await _transaction_meter_values(ocpp, profile, {"MeterValuesSampledData": ",".join(measurands),
                                                            "MeterValueSampleInterval": str(SAMPLE)},
                                            SAMPLE, METER16.sampled, clock_aligned=False)
    if ocpp.is_sut(CSMS):
        return
    for exchange in found:
        _check_measurands(METER16.sampled, "a sampled MeterValues.req", exchange.request["meterValue"], measurands)
    _check_every_phase([value for e in found for value in e.request["meterValue"]])


@checks(Core16.authorize, Core16.start, METER16.aligned, METER16.every_phase, METER16.answered, cs=TC("TC_071_CS"))
@needs(tagged("Accepted"))
async def test_clock_aligned_values(ocpp, profile):
    """ClockAlignedDataInterval 10 s, no sampled values: MeterValues with context Sample.Clock at multiples of
    10 s of the clock, each with every measurand of MeterValuesAlignedData, at every phase and location."""
    measurands = _measurands(profile)
    interval = ALIGNED if ocpp.is_sut(CS) else OWN_ALIGNED
    found = await _transaction_meter_values(ocpp, profile, {
        "MeterValueSampleInterval": "0", "MeterValuesAlignedData": ",".join(measurands),
        "ClockAlignedDataInterval": str(interval)}, interval, METER16.aligned, clock_aligned=True)
    if ocpp.is_sut(CSMS):
        return
    values = [value for e in found for value in e.request["meterValue"]]
    for value in values:
        require(_context(value) == CLOCK, METER16.aligned, "a MeterValue sent with only ClockAlignedDataInterval set "
                "is not clock-aligned", expected=f"context {CLOCK}", actual=_context(value))
        offset = parse_time(value["timestamp"]).timestamp() % ALIGNED
        require(min(offset, ALIGNED - offset) <= TOLERANCE, METER16.aligned, "a clock-aligned MeterValue is not "
                f"at a multiple of {ALIGNED} s of the clock", expected=f"within {TOLERANCE} s of a multiple",
                actual=value["timestamp"])
        _check_measurands(METER16.aligned, "a clock-aligned MeterValue", [value], measurands)
    _check_every_phase(values)


@checks(Core16.authorize, Core16.start, Core16.stops, Core16.stop_answered, METER16.stop_data, METER16.every_phase)
@needs(tagged("Accepted"))
async def test_stop_transaction_carries_its_meter_data(ocpp, profile):
    """StopTxnSampledData and StopTxnAlignedData set, a transaction that lasts past a clock-aligned time: the
    StopTransaction's transactionData has the sampled measurands and the clock-aligned ones."""
    token, connector, measurands = tag16(profile, "Accepted"), connectors(profile)[0], _measurands(profile)
    listed = ",".join(measurands)
    await configure_charge_point(ocpp, {"MeterValueSampleInterval": str(SAMPLE), "StopTxnSampledData": listed,
                                        "StopTxnAlignedData": listed, "ClockAlignedDataInterval": str(ALIGNED)})
    await start(ocpp, token, connector)
    await ocpp.elapse(ALIGNED + SAMPLE)   # at least one clock-aligned time passes
    stopped = await stop(ocpp, token, connector)
    if ocpp.is_sut(CSMS):
        return
    data = stopped.request.get("transactionData") or []
    aligned = [value for value in data if _context(value) == CLOCK]
    _check_measurands(METER16.stop_data, "StopTransaction.req transactionData (sampled)",
                      [value for value in data if _context(value) != CLOCK], measurands)
    _check_measurands(METER16.stop_data, "StopTransaction.req transactionData (clock-aligned, Sample.Clock)",
                      aligned, measurands)
    _check_every_phase(data)


@checks(Core16.authorize, Core16.start, Core16.stops, Core16.stop_answered, METER16.no_stop_data)
@needs(tagged("Accepted"))
async def test_empty_stop_lists_send_no_meter_values(ocpp, profile):
    """StopTxnSampledData and StopTxnAlignedData both empty: StopTransaction.req has no transactionData."""
    token, connector = tag16(profile, "Accepted"), connectors(profile)[0]
    await configure_charge_point(ocpp, {"StopTxnSampledData": "", "StopTxnAlignedData": "",
                                        "MeterValueSampleInterval": str(SAMPLE)})
    await start(ocpp, token, connector)
    await ocpp.elapse(SAMPLE * 2)   # two sample intervals pass: values a StopTransaction could carry exist
    stopped = await stop(ocpp, token, connector)
    if ocpp.is_sut(CS) and stopped.request.get("transactionData"):
        violated(METER16.no_stop_data, "StopTransaction.req carries meter values although both lists are empty",
                 expected="no transactionData", actual=stopped.request["transactionData"])
