"""Meter value faults (J01, J02): stations that do not sample as their device model says or name the wrong
reading context; CSMSs that refuse meter values."""

from __future__ import annotations

import asyncio

from harness.reference import ReferenceCsms, ReferenceStation
from harness.transport.ws import CallErrorReply

from .records import Fault, csms_test, cs_test


class StationWithoutClockAlignedValues(ReferenceStation):
    """J01: AlignedDataCtrlr.Interval is taken, but no clock-aligned MeterValues follow."""

    async def _clock_aligned(self):
        await asyncio.Event().wait()


class StationMeterValuesWithoutContext(ReferenceStation):
    """J01: clock-aligned MeterValues leave context out (read as Sample.Periodic)."""

    async def call(self, action, payload):
        if action == "MeterValues":
            for value in payload["meterValue"]:
                for sampled in value["sampledValue"]:
                    sampled.pop("context", None)
        return await super().call(action, payload)


class StationNamesClockSamplesPeriodic(ReferenceStation):
    """J01: the clock-aligned samples of a transaction come with triggerReason MeterValuePeriodic."""

    def _event(self, state, event_type, trigger, **info):
        return super()._event(state, event_type, "MeterValuePeriodic" if trigger == "MeterValueClock" else trigger,
                              **info)


class CsmsRefusesMeterValues(ReferenceCsms):
    """J01.FR.18: MeterValues answered with a CALLERROR."""

    def on_MeterValues(self, session, payload):
        raise CallErrorReply("InternalError", "meter values are not taken")


class StationWithoutPeriodicSamples(ReferenceStation):
    """J02: SampledDataCtrlr.TxUpdatedInterval is taken, but no periodic TransactionEvent follows."""

    async def _sample(self, state, tx):
        return None


class StationSamplesAsClockAligned(ReferenceStation):
    """J02: the periodic samples of a transaction name context Sample.Clock."""

    async def call(self, action, payload):
        if action == "TransactionEvent" and payload.get("triggerReason") == "MeterValuePeriodic":
            for value in payload.get("meterValue", []):
                for sampled in value["sampledValue"]:
                    sampled["context"] = "Sample.Clock"
        return await super().call(action, payload)


class CsmsRefusesPeriodicEvents(ReferenceCsms):
    """J02.FR.19: a TransactionEvent with periodic samples is answered with a CALLERROR."""

    def on_TransactionEvent(self, session, payload):
        if payload.get("triggerReason") == "MeterValuePeriodic":
            raise CallErrorReply("InternalError", "periodic samples are not taken")
        return super().on_TransactionEvent(session, payload)


class StationWithoutStartedMeasurands(ReferenceStation):
    """E02.FR.02: TxStartedMeasurands is taken, but the Started event carries no meter values."""

    def _measured(self, payload, variable, state, context):
        if variable != "TxStartedMeasurands":
            super()._measured(payload, variable, state, context)


class StationWithoutEndedMeasurands(ReferenceStation):
    """J02: TxEndedMeasurands is taken, but the Ended event carries no meter values."""

    def _measured(self, payload, variable, state, context):
        if variable != "TxEndedMeasurands":
            super()._measured(payload, variable, state, context)


J01, J02 = "metervalues/test_J01.py", "metervalues/test_J02.py"
ALIGNED = "test_clock_aligned_meter_values_without_a_transaction"
PERIODIC = "test_periodic_samples_during_a_transaction"
MEASURANDS = "test_started_and_ended_carry_the_configured_measurands"


FAULTS: tuple[Fault, ...] = (
    Fault("J01-station-without-clock-aligned-values", "J01.aligned", StationWithoutClockAlignedValues,
          (cs_test(J01, ALIGNED),), "the SUT did not send MeterValues within", verdict="finding"),
    Fault("J01-station-meter-values-without-context", "J01.context", StationMeterValuesWithoutContext,
          (cs_test(J01, ALIGNED),), "the contexts of the clock-aligned sampledValues is wrong", verdict="finding"),
    Fault("J01-station-names-clock-samples-periodic", "J01.aligned_in_transaction", StationNamesClockSamplesPeriodic,
          (cs_test(J01, "test_clock_aligned_meter_values_during_a_transaction"),),
          "the SUT did not send TransactionEvent within", verdict="finding"),
    Fault("J01-csms-refuses-meter-values", "J01.answered", CsmsRefusesMeterValues, (csms_test(J01, ALIGNED),),
          "the CSMS answered MeterValues with a CALLERROR"),
    Fault("J02-station-without-periodic-samples", "J02.periodic", StationWithoutPeriodicSamples,
          (cs_test(J02, PERIODIC),), "the SUT did not send TransactionEvent within", verdict="finding"),
    Fault("J02-station-samples-as-clock-aligned", "J02.context", StationSamplesAsClockAligned,
          (cs_test(J02, PERIODIC),), "the contexts of the periodic sampledValues is wrong", verdict="finding"),
    Fault("J02-station-without-started-measurands", "J02.started", StationWithoutStartedMeasurands,
          (cs_test(J02, MEASURANDS),), "the Started event carries no Energy.Active.Import.Register"),
    Fault("J02-station-without-ended-measurands", "J02.ended", StationWithoutEndedMeasurands,
          (cs_test(J02, MEASURANDS),), "the Ended event carries no Energy.Active.Import.Register", verdict="finding"),
    Fault("J02-csms-refuses-periodic-events", "tx.answered", CsmsRefusesPeriodicEvents, (csms_test(J02, PERIODIC),),
          "the CSMS answered a TransactionEvent with a CALLERROR"),
)
