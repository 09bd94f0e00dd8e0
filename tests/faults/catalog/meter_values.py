"""Meter value faults (J01, J02): stations that do not sample as their device model says or name the wrong
reading context, or sign their readings wrongly; CSMSs that refuse meter values."""

from __future__ import annotations

import asyncio
from datetime import datetime, timedelta

from harness.ocpp.ocmf import SigningMeter
from harness.reference import ReferenceCsms, ReferenceStation
from harness.reference.common import now_iso
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



class StationSignsNoSampledReading(ReferenceStation):
    """J02.FR.21: SampledDataCtrlr.SignReadings is taken, but no transaction reading carries a signedMeterValue."""

    def _meter_value(self, state, wh, context, at):
        value = super()._meter_value(state, wh, context, at)
        if context != "Sample.Clock":
            value["sampledValue"][0].pop("signedMeterValue", None)
        return value


class StationSignsNoClockAlignedReading(ReferenceStation):
    """J01.FR.21: AlignedDataCtrlr.SignReadings is taken, but no clock-aligned reading carries a signedMeterValue."""

    def _meter_value(self, state, wh, context, at):
        value = super()._meter_value(state, wh, context, at)
        if context == "Sample.Clock":
            value["sampledValue"][0].pop("signedMeterValue", None)
        return value


class StationSendsAnotherMetersKey(ReferenceStation):
    """J01/J02 signed values: the publicKey sent is not the one of the key that signs."""

    def _meter_value(self, state, wh, context, at):
        value = super()._meter_value(state, wh, context, at)
        for sample in value["sampledValue"]:
            if "signedMeterValue" in sample:
                sample["signedMeterValue"]["publicKey"] = SigningMeter().public_key
        return value


class StationSendsUnencodedSignedData(ReferenceStation):
    """J01/J02 signed values: signedMeterData is the OCMF record itself, not its Base64."""

    def _meter_value(self, state, wh, context, at):
        value = super()._meter_value(state, wh, context, at)
        for sample in value["sampledValue"]:
            if "signedMeterValue" in sample:
                sample["signedMeterValue"]["signedMeterData"] = "OCMF|{}|{}"
        return value



class StationNamesEdgeReadingsPeriodic(ReferenceStation):
    """J02: the readings of the Started and Ended events say Sample.Periodic."""

    def _meter_value(self, state, wh, context, at):
        return super()._meter_value(state, wh, "Sample.Periodic" if context.startswith("Transaction.") else context, at)



class StationSamplesOffTheClock(ReferenceStation):
    """J01: the clock-aligned samples are stamped 7 s after the aligned time."""

    def _meter_value(self, state, wh, context, at):
        if context == "Sample.Clock":
            at = (datetime.fromisoformat(at.replace("Z", "+00:00")) + timedelta(seconds=7)).isoformat()
        return super()._meter_value(state, wh, context, at)



class StationRegisterRunsBackwards(ReferenceStation):
    """J02: the energy register of the periodic samples counts down."""

    def _meter_value(self, state, wh, context, at):
        return super()._meter_value(state, 1_000_000 - wh if context == "Sample.Periodic" else wh, context, at)


class StationSamplesAfterTheEnd(ReferenceStation):
    """J02: one more sample of a transaction follows its Ended event."""

    async def end_transaction(self, state, trigger, stopped_reason, id_token=None):
        tx = state.transaction
        response = await super().end_transaction(state, trigger, stopped_reason, id_token)
        if tx is not None:
            await self.call("TransactionEvent", {
                "eventType": "Updated", "timestamp": now_iso(), "triggerReason": "MeterValuePeriodic",
                "seqNo": tx.seq_no, "transactionInfo": {"transactionId": tx.id},
                "evse": {"id": state.evse.id, "connectorId": state.evse.connectors[0]}})
        return response



def _zero_as(station, component, name, value):
    """A variable read as ``value`` where it holds 0 (a station that takes 0 for a default interval)."""
    held = ReferenceStation.variable(station, component, name)
    return value if held.strip() == "0" else held


class StationAlignsAtZero(ReferenceStation):
    """J01: AlignedDataCtrlr.Interval 0 is taken for 30 s: clock-aligned samples keep coming."""

    def variable(self, component, name):
        if (component, name) == ("AlignedDataCtrlr", "Interval"):
            return _zero_as(self, component, name, "30")
        return super().variable(component, name)


class StationSamplesAtZero(ReferenceStation):
    """J02: SampledDataCtrlr.TxUpdatedInterval 0 is taken for 10 s: periodic samples keep coming."""

    def variable(self, component, name):
        if (component, name) == ("SampledDataCtrlr", "TxUpdatedInterval"):
            return _zero_as(self, component, name, "10")
        return super().variable(component, name)


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
    Fault("J02-station-signs-nothing", "J02.signed", StationSignsNoSampledReading,
          (cs_test(J02, "test_signed_periodic_samples"), cs_test(J02, "test_signed_started_and_ended_values")),
          "carries no signedMeterValue"),
    Fault("J01-station-signs-nothing", "J01.signed", StationSignsNoClockAlignedReading,
          (cs_test(J01, "test_signed_clock_aligned_meter_values"),
           cs_test(J01, "test_signed_clock_aligned_values_during_a_transaction")), "carries no signedMeterValue"),
    Fault("J02-station-sends-another-meters-key", "signed.signature", StationSendsAnotherMetersKey,
          (cs_test(J02, "test_signed_periodic_samples"), cs_test(J01, "test_signed_clock_aligned_meter_values")),
          "the signed meter value does not verify", verdict="finding"),
    Fault("J01-station-sends-unencoded-signed-data", "signed.form", StationSendsUnencodedSignedData,
          (cs_test(J01, "test_signed_clock_aligned_meter_values"), cs_test(J02, "test_signed_periodic_samples")),
          "the signedMeterValue is malformed", verdict="finding"),
    Fault("J02-station-names-edge-readings-periodic", "J02.edge_context", StationNamesEdgeReadingsPeriodic,
          (cs_test(J02, "test_started_and_ended_values_name_their_context"),),
          "the contexts of the Started event's readings is wrong", verdict="finding"),
    Fault("J01-station-samples-off-the-clock", "J01.on_the_clock", StationSamplesOffTheClock,
          (cs_test(J01, "test_clock_aligned_values_are_on_the_clock"),), "a clock-aligned sample is not on the clock",
          verdict="finding"),
    Fault("J02-station-register-runs-backwards", "J02.register", StationRegisterRunsBackwards,
          (cs_test(J02, "test_the_register_never_goes_down"),),
          "the energy register of the transaction's samples went down", verdict="finding"),
    Fault("J02-station-samples-after-the-end", "J02.after_end", StationSamplesAfterTheEnd,
          (cs_test(J02, "test_samples_stop_with_the_transaction"),), "the SUT sent TransactionEvent when it must not",
          verdict="finding"),
    Fault("J01-station-aligns-at-zero", "J01.none_at_zero", StationAlignsAtZero,
          (cs_test(J01, "test_no_clock_aligned_values_at_interval_zero"),),
          "the SUT sent MeterValues when it must not", verdict="finding"),
    Fault("J02-station-samples-at-zero", "J02.none_at_zero", StationSamplesAtZero,
          (cs_test(J02, "test_no_periodic_samples_at_interval_zero"),),
          "the SUT sent TransactionEvent when it must not", verdict="finding"),
)
