"""Transactions: the station starts and ends them and reports them; the CSMS records them.

Station 2.x (spec 001): a transaction starts with TransactionEvent Started (trigger Authorized,
CablePluggedIn or RemoteStart) and ends with Ended; a TransactionEventResponse whose idTokenInfo is
not Accepted moves it as StopTxOnInvalidId, TxStopPoint and MaxEnergyOnInvalidId say (spec 001 moves
"Offline-authorized transaction", C15.FR.03-07; from the profile's [authorization]): ended with
stoppedReason DeAuthorized when it stops and TxStopPoint holds Authorized, PowerPathClosed or
EnergyTransfer; else suspended (Updated, triggerReason Deauthorized, SuspendedEVSE); when it does not
stop, it goes on with MaxEnergyOnInvalidId set until the register has counted that much more energy
(then suspended, triggerReason EnergyLimitReached: the register advances with each TxUpdatedInterval
sample), and is suspended at once without it; pulling the cable ends it (EVCommunicationLost). While it
runs, a TransactionEvent Updated carries the energy register every ``tx_updated_interval`` seconds
(spec 001 J02; 0, the default: none).

Charge point 1.6 (spec 002): StartTransaction, StopTransaction (reason, meter values of
StopTxnSampledData and StopTxnAlignedData in transactionData, none when both are empty), periodic
MeterValues (MeterValueSampleInterval, MeterValuesSampledData) and clock-aligned ones
(ClockAlignedDataInterval, MeterValuesAlignedData) go
through the TransactionQueue (``harness.reference.v16.queue``, rules Q1-Q4): in order, held while
offline, retried by TransactionMessageRetryInterval × transmissions and discarded after
TransactionMessageAttempts (behaviour rules 1-2); a StartTransaction answered with a status other than
Accepted stops the transaction with reason DeAuthorized when StopTransactionOnInvalidId is true, and
otherwise keeps it with at most MaxEnergyOnInvalidId Wh more energy, then SuspendedEVSE (the register
stands still while suspended) (spec 002 moves); pulling the cable stops it when StopTransactionOnEVSideDisconnect is true.

CSMS 2.x: a token carried in a TransactionEvent is checked again and answered with idTokenInfo
(spec 001 Authorization rule 7, rule 9 for offline events), ConcurrentTx when a Started event carries
a token already in another running transaction, except a Central token it issued in a
RequestStartTransaction on this connection; in 2.1 the Started event of a prepaid token is answered
with transactionLimit.maxCost equal to its balance (spec 001 moves "Prepaid transaction"), the Started event of
a remote start its operator limited (F07) with that limit; a 2.1 station ends a transaction whose Started event
was answered with transactionLimit.maxTime that many seconds after its start (TimeLimitReached).
Central system 1.6: StartTransaction gets a fresh integer
transactionId and IdTagInfo, ConcurrentTx for an idTag that already charges (AuthorizationStatus);
StopTransaction ends it, answered with IdTagInfo when it carries an idTag.
"""

from __future__ import annotations

import asyncio
import itertools
import secrets
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from harness import clock
from harness.errors import HarnessError, PeerViolation
from harness.ocpp.meter16 import ENERGY
from harness.ocpp.versions import OcppVersion
from harness.reference.base import StationSession
from harness.reference.common import V2X, V16, Block, now_iso, woken, store
from harness.reference.model import ChargeTransaction, Connector, EvseState, StationTransaction
from harness.reference.tokens import token_key
from harness.reference.v16.meter import measurand_list
from harness.reference.v16.queue import Queued, TransactionQueue
from harness.transport.ws import CallFailed, Exchange

if TYPE_CHECKING:
    from harness.ocpp.ocmf import SigningMeter


# TxStopPoint values with which a deauthorized transaction ends rather than pauses (spec 001 moves)
STOPPED_WHEN_DEAUTHORIZED = frozenset({"Authorized", "PowerPathClosed", "EnergyTransfer"})
# TxStopPoint values with which pulling the cable ends the transaction (E06.FR.02, FR.06, FR.07: the EV is
# gone, so is the power path and the energy flow)
STOPPED_WHEN_UNPLUGGED = frozenset({"EVConnected", "PowerPathClosed", "EnergyTransfer"})
# TxStartPoint values that need both the cable and the driver (E01.FR.05, FR.06); a value the reference
# cannot sense (ParkingBayOccupancy, DataSigned) is refused at SetVariables
BOTH_NEEDED = frozenset({"PowerPathClosed", "EnergyTransfer"})
TX_POINTS_MODELLED = frozenset({"EVConnected", "Authorized"}) | BOTH_NEEDED
# the variables this block reads (the 2.0.1 device model's names): component, variable -> default
TX_VARIABLES = {("TxCtrlr", "TxStartPoint"): "PowerPathClosed", ("TxCtrlr", "TxStopPoint"): "EVConnected,Authorized",
                ("SampledDataCtrlr", "TxUpdatedInterval"): "0", ("AlignedDataCtrlr", "Interval"): "0",
                ("SampledDataCtrlr", "TxStartedMeasurands"): "", ("SampledDataCtrlr", "TxEndedMeasurands"): "",
                ("TxCtrlr", "StopTxOnEVSideDisconnect"): "true",
                # E13: transmissions of a TransactionEvent the CSMS answers with a CALLERROR, and the seconds
                # before retry n (times n); the 2.0.1 device model's instance TransactionEvent of each
                ("OCPPCommCtrlr", "MessageAttempts"): "3", ("OCPPCommCtrlr", "MessageAttemptInterval"): "10",
                # J01.FR.21, J02.FR.21: the samples of each kind signed by the meter (signedMeterValue, OCMF)
                ("SampledDataCtrlr", "SignReadings"): "false", ("AlignedDataCtrlr", "SignReadings"): "false"}
# the variables of TX_VARIABLES that take true or false
TX_FLAGS = frozenset({("TxCtrlr", "StopTxOnEVSideDisconnect"), ("SampledDataCtrlr", "SignReadings"),
                      ("AlignedDataCtrlr", "SignReadings")})
MEASURANDS = frozenset({ENERGY})   # the measurands the reference's meter gives


def reading(wh: int, context: str, at: str) -> dict[str, Any]:
    """A 2.x MeterValue of the energy register."""
    return {"timestamp": at, "sampledValue": [{"value": wh, "context": context, "measurand": ENERGY,
                                               "location": "Outlet", "unitOfMeasure": {"unit": "Wh"}}]}


def points(value: str) -> frozenset[str]:
    """The members of a TxStartPoint / TxStopPoint value (a comma-separated list)."""
    return frozenset(p.strip() for p in value.split(",") if p.strip())


# -------------------------------------------------------------------------------------- the station
class TransactionsStation2x(Block):
    versions = V2X
    undone_by = {"plug_in": lambda body: ("unplug", body)}   # a cable plugged in at a SUT is unplugged
    requires = ("ProvisioningStation2x", "DeviceModelStation2x", "OfflineStation2x")
    # SampledDataCtrlr.TxUpdatedInterval: seconds between TransactionEvent Updated carrying the energy
    # register while a transaction runs (spec 001 J02); 0: none
    configurable = frozenset({"tx_updated_interval", "stop_tx_on_invalid_id", "tx_stop_point",
                              "max_energy_on_invalid_id"})
    tx_updated_interval = 0

    _aligned: asyncio.Task | None = store()   # J01's task, while AlignedDataCtrlr.Interval is not 0
    transactions_signing_meter: SigningMeter | None = store()   # made when a reading is first signed
    transactions_retrying: list[str] = store(list)   # E13: the transactions of the events waiting to be sent again
    transactions_start_wh: dict[str, int] = store(dict)   # E16: the register when each transaction started
    transactions_started_at: dict[str, float] = store(dict)   # E16: the clock when each transaction started
    transactions_limited: set[str] = store(set)   # E16: transactions whose energy limit the CSMS set
    transactions_suspended: set[str] = store(set)   # E16: transactions whose energy a limit reached stopped

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.variables.with_defaults(TX_VARIABLES)
        self.stop_tx_on_invalid_id = bool(self.profile.authorization("stop_tx_on_invalid_id", True))
        self.tx_stop_point = tuple(self.profile.authorization("tx_stop_point", ("EVConnected", "Authorized")))
        self.max_energy_on_invalid_id = int(self.profile.authorization("max_energy_on_invalid_id", 0))

    async def connected(self, connection: Any) -> None:
        await super().connected(connection)
        self._align()

    def variable_changed(self, component: str, name: str) -> None:
        super().variable_changed(component, name)
        if (component, name) == ("AlignedDataCtrlr", "Interval"):
            self._align()

    def _align(self) -> None:
        """The clock-aligned samples' task, while AlignedDataCtrlr.Interval is not 0 (none at 0: a load of
        thousands of stations keeps no task a station for them)."""
        if (self._aligned is None or self._aligned.done()) and self.connection is not None \
                and int(self.variable("AlignedDataCtrlr", "Interval")):
            self._aligned = self.background.spawn(self._clock_aligned())

    async def _clock_aligned(self) -> None:
        """J01: at every multiple of AlignedDataCtrlr.Interval seconds of the clock (0: none), each EVSE's
        register: in MeterValues (context Sample.Clock) where no transaction runs, in a TransactionEvent
        Updated (triggerReason MeterValueClock) where one does. Ends when the interval is set to 0."""
        while interval := int(self.variable("AlignedDataCtrlr", "Interval")):
            await asyncio.sleep(interval - clock.utcnow().timestamp() % interval)
            if not int(self.variable("AlignedDataCtrlr", "Interval")) or not self.online:
                continue
            for state in self.evses.values():
                value = self._meter_value(state, state.meter.wh, "Sample.Clock", now_iso())
                if state.transaction is None:
                    await self.call("MeterValues", {"evseId": state.evse.id, "meterValue": [value]})
                else:
                    payload = self._event(state, "Updated", "MeterValueClock",
                                          chargingState="Charging" if state.plugged else "Idle")
                    await self.call("TransactionEvent", payload | {"meterValue": [value]})

    # TxCtrlr.TxStopPoint, set by the profile, by configure() or by SetVariables
    @property
    def tx_stop_point(self) -> tuple[str, ...]:
        return tuple(sorted(points(self.variable("TxCtrlr", "TxStopPoint"))))

    @tx_stop_point.setter
    def tx_stop_point(self, value: tuple[str, ...]) -> None:
        self.variables[("TxCtrlr", "TxStopPoint")] = ",".join(value)

    def variable_fits(self, component: str, name: str, value: str) -> bool:
        """TxStartPoint and TxStopPoint take only the points the reference senses (a parking-bay detector
        and a signing meter it has not: Rejected, as a station without them answers); TxUpdatedInterval a
        number of seconds."""
        if (component, name) in TX_FLAGS:
            return value.strip().lower() in ("true", "false")
        if name in ("TxUpdatedInterval", "Interval", "MessageAttempts", "MessageAttemptInterval") \
                and (component, name) in TX_VARIABLES:
            return value.isdigit()
        if name.endswith("Measurands") and (component, name) in TX_VARIABLES:
            return points(value) <= MEASURANDS
        if (component, name) in TX_VARIABLES:
            return bool(points(value)) and points(value) <= TX_POINTS_MODELLED
        return super().variable_fits(component, name, value)

    async def call(self, action: str, payload: dict[str, Any]) -> dict[str, Any]:
        """E13: a TransactionEvent the CSMS answers with a CALLERROR is sent again after
        MessageAttemptInterval seconds times the transmissions before it, up to MessageAttempts
        transmissions in all; after the last it is discarded (the sender gets an empty answer)."""
        if action != "TransactionEvent":
            return await super().call(action, payload)
        transmissions = 0
        while True:
            try:
                return await super().call(action, payload)
            except CallFailed:
                transmissions += 1
                if transmissions >= max(1, int(self.variable("OCPPCommCtrlr", "MessageAttempts"))):
                    return {}
                waiting = payload["transactionInfo"]["transactionId"]
                self.transactions_retrying.append(waiting)
                try:
                    await asyncio.sleep(int(self.variable("OCPPCommCtrlr", "MessageAttemptInterval")) * transmissions)
                finally:
                    self.transactions_retrying.remove(waiting)

    def events_waiting(self, transaction_id: str | None = None) -> bool:
        """E14: an event waiting to be sent again counts as one still to deliver."""
        return any(transaction_id in (None, waiting) for waiting in self.transactions_retrying) \
            or super().events_waiting(transaction_id)

    def starts_now(self, state: EvseState) -> bool:
        """Whether TxStartPoint says a transaction starts on ``state`` as it is now (E01.FR.02, FR.03, FR.05,
        FR.06): the cable in for EVConnected, the driver authorized for Authorized, both for
        PowerPathClosed and EnergyTransfer."""
        start = points(self.variable("TxCtrlr", "TxStartPoint"))
        return bool(("EVConnected" in start and state.plugged) or ("Authorized" in start and state.authorized)
                    or ((start & BOTH_NEEDED or not start & TX_POINTS_MODELLED) and state.plugged and state.authorized))

    async def authorized_at(self, state: EvseState) -> None:
        """The driver of ``state`` is authorized: a transaction starts when TxStartPoint says so (triggerReason
        Authorized); one that runs without a token (started on the cable) gets it in an Updated event
        (triggerReason Authorized, the idToken once: E03.FR.02)."""
        tx = state.transaction
        if tx is None:
            if self.starts_now(state):
                await self.start_transaction(state, "Authorized", state.authorized)
            return
        if tx.id_token is None:
            tx.id_token, tx.group = state.authorized, state.group
            payload = self._event(state, "Updated", "Authorized",
                                  chargingState="Charging" if state.plugged else "Idle")
            payload["idToken"] = state.authorized
            response = await self.call("TransactionEvent", payload)
            self._answered(payload, response)
            await self._after_event(state, response)

    def _event(self, state: EvseState, event_type: str, trigger: str, **info: Any) -> dict:
        tx = state.transaction
        payload: dict[str, Any] = {
            "eventType": event_type, "timestamp": now_iso(), "triggerReason": trigger, "seqNo": tx.seq_no,
            "transactionInfo": {"transactionId": tx.id, **info},
            "evse": {"id": state.evse.id, "connectorId": state.evse.connectors[0]},
        }
        tx.seq_no += 1
        return payload

    async def start_transaction(self, state: EvseState, trigger: str, id_token: dict | None,
                                remote_start_id: int | None = None) -> None:
        state.transaction = StationTransaction(self.new_transaction_id(), id_token, state.group)
        self.transactions_start_wh[state.transaction.id] = state.meter.wh
        self.transactions_started_at[state.transaction.id] = clock.now()
        self.transaction_started(state.evse.id, state.transaction.id)
        info: dict[str, Any] = {"chargingState": "Charging" if state.plugged else "Idle"}
        if remote_start_id is not None:
            info["remoteStartId"] = remote_start_id
        payload = self._event(state, "Started", trigger, **info)
        if id_token is not None:
            payload["idToken"] = id_token
            reservation_id = self.claim_reservation(state, id_token, state.group)
            if reservation_id is not None:   # the reservation this transaction ends (E03.FR.04)
                payload["reservationId"] = reservation_id
        self._measured(payload, "TxStartedMeasurands", state, "Transaction.Begin")
        self.background.spawn(self._sample(state, state.transaction))
        response = await self.call("TransactionEvent", payload)
        if state.transaction is not None:   # used for this transaction only (spec 001 rule 11, K03)
            state.transaction.charging_priority = response.get("chargingPriority", 0)
            max_time = (response.get("transactionLimit") or {}).get("maxTime")
            if max_time is not None:   # 2.1 F07: the CSMS limits the transaction's duration
                self.background.spawn(self._time_limited(state, state.transaction, int(max_time)))
            max_energy = (response.get("transactionLimit") or {}).get("maxEnergy")
            if max_energy is not None and self.version is OcppVersion.V21:   # 2.1 F07: and the energy it may take
                state.transaction.energy_limit = state.meter.wh + int(max_energy)
        self._answered(payload, response)
        await self._after_event(state, response)

    async def _time_limited(self, state: EvseState, tx: StationTransaction, max_time: int) -> None:
        """F07 (2.1): maxTime seconds after its start the transaction ends, triggerReason and stoppedReason
        TimeLimitReached."""
        await asyncio.sleep(max_time)
        if state.transaction is tx:
            await self.end_transaction(state, "TimeLimitReached", "TimeLimitReached")

    def claim_reservation(self, state: EvseState, id_token: dict, group: dict | None) -> int | None:
        """The id of the reservation a transaction of ``id_token`` at ``state`` ends (released); None: none
        (the reservation block's, when composed)."""
        return None

    def reserved_for_another(self, state: EvseState, id_token: dict, group: dict | None) -> bool:
        """``state`` is reserved for a token other than ``id_token`` (and not for its ``group``)."""
        return False

    async def _sample(self, state: EvseState, tx: StationTransaction) -> None:
        """TransactionEvent Updated (MeterValuePeriodic) with the energy register every tx_updated_interval
        (or SampledDataCtrlr.TxUpdatedInterval) seconds; none while both are 0."""
        while True:
            interval = self.tx_updated_interval or int(self.variable("SampledDataCtrlr", "TxUpdatedInterval"))
            await asyncio.sleep(interval or 1)
            if state.transaction is not tx:
                return
            if not interval:
                continue
            suspended = tx.id in self.transactions_suspended   # no energy flows: the register stands still
            payload = self._event(state, "Updated", "MeterValuePeriodic",
                                  chargingState="SuspendedEVSE" if suspended else "Charging")
            payload["meterValue"] = [self._meter_value(state, state.meter.wh if suspended else state.meter.advance(),
                                                       "Sample.Periodic", payload["timestamp"])]
            response = await self.call("TransactionEvent", payload)
            if tx.energy_limit is not None and state.meter.wh >= tx.energy_limit:
                await self._energy_limit_reached(state, tx)
            await self._limit_answered(state, response)

    async def _energy_limit_reached(self, state: EvseState, tx: StationTransaction) -> None:
        """The register reached the transaction's energy limit: energy stops (Updated, EnergyLimitReached,
        SuspendedEVSE); a limit the CSMS set (E16) ends the transaction instead when TxStopPoint holds
        EnergyTransfer (stoppedReason EnergyLimitReached)."""
        tx.energy_limit = None
        if not (tx.id in self.transactions_limited and "EnergyTransfer" in self.tx_stop_point):
            self.transactions_suspended.add(tx.id)
        await self._limit_reached(state, tx, "EnergyLimitReached")

    async def _limit_reached(self, state: EvseState, tx: StationTransaction, reason: str) -> None:
        """A limit of ``tx`` reached (``reason``: EnergyLimitReached, TimeLimitReached, as trigger and stoppedReason)."""
        if tx.id in self.transactions_limited and "EnergyTransfer" in self.tx_stop_point:
            await self.end_transaction(state, reason, reason)
        else:
            await self.suspend(state, reason)

    async def _time_limit(self, state: EvseState, tx: StationTransaction, deadline: float) -> None:
        """E16: the transaction's maxTime runs out at ``deadline`` (the clock's seconds)."""
        await asyncio.sleep(max(0.0, deadline - clock.now()))
        if state.transaction is tx:
            await self._limit_reached(state, tx, "TimeLimitReached")

    async def _limit_answered(self, state: EvseState, response: dict) -> None:
        """E16 (2.1): a transactionLimit with maxEnergy or maxTime in the CSMS's answer is confirmed (Updated,
        triggerReason LimitSet, the limits in force in transactionInfo.transactionLimit) and holds from the
        transaction's start: the energy it counted, the time since it started; one already reached binds at once; a
        maxEnergy raised above what a transaction its limit suspended counted lets the energy flow again (E16.FR.14:
        Updated, ChargingStateChanged, Charging)."""
        limit = {k: v for k, v in (response.get("transactionLimit") or {}).items() if k in ("maxEnergy", "maxTime")}
        tx = state.transaction
        if not limit or tx is None or self.version is not OcppVersion.V21:
            return
        if "maxEnergy" in limit:
            tx.energy_limit = self.transactions_start_wh.get(tx.id, 0) + int(limit["maxEnergy"])
        self.transactions_limited.add(tx.id)
        suspended = tx.id in self.transactions_suspended
        await self.call("TransactionEvent", self._event(state, "Updated", "LimitSet",
                                                        chargingState="SuspendedEVSE" if suspended else "Charging",
                                                        transactionLimit=limit))
        if suspended and tx.energy_limit is not None and state.meter.wh < tx.energy_limit \
                and state.transaction is tx:   # E16.FR.14: a limit raised above what was counted: energy again
            self.transactions_suspended.discard(tx.id)
            await self.call("TransactionEvent", self._event(state, "Updated", "ChargingStateChanged",
                                                            chargingState="Charging"))
        if "maxTime" in limit:
            deadline = self.transactions_started_at.get(tx.id, clock.now()) + int(limit["maxTime"])
            self.background.spawn(self._time_limit(state, tx, deadline))
        if tx.energy_limit is not None and state.meter.wh >= tx.energy_limit and state.transaction is tx:
            await self._energy_limit_reached(state, tx)

    async def end_transaction(self, state: EvseState, trigger: str, stopped_reason: str,
                              id_token: dict | None = None) -> dict | None:
        """TransactionEvent Ended; returns the CSMS's answer (None: no transaction ran)."""
        if state.transaction is None:
            return None
        payload = self._event(state, "Ended", trigger, stoppedReason=stopped_reason)
        if id_token is not None:
            payload["idToken"] = id_token
        self._measured(payload, "TxEndedMeasurands", state, "Transaction.End")
        state.transaction, state.authorized, state.group = None, None, None
        self.transaction_ended(state.evse.id)
        response = await self.call("TransactionEvent", payload)
        self._answered(payload, response)
        return response

    def _measured(self, payload: dict, variable: str, state: EvseState, context: str) -> None:
        """The register in the Started or Ended event when SampledDataCtrlr.TxStartedMeasurands /
        TxEndedMeasurands lists it (E02.FR.02)."""
        if ENERGY in points(self.variable("SampledDataCtrlr", variable)):
            payload["meterValue"] = [self._meter_value(state, state.meter.wh, context, payload["timestamp"])]

    def _meter_value(self, state: EvseState, wh: int, context: str, at: str) -> dict[str, Any]:
        """A MeterValue of the energy register, signed by the meter (signedMeterValue, OCMF) when
        AlignedDataCtrlr.SignReadings (clock-aligned samples) or SampledDataCtrlr.SignReadings (the others)
        is true (J01.FR.21, J02.FR.21)."""
        value = reading(wh, context, at)
        component = "AlignedDataCtrlr" if context == "Sample.Clock" else "SampledDataCtrlr"
        if self.variable(component, "SignReadings").strip().lower() == "true":
            if self.transactions_signing_meter is None:
                from harness.ocpp.ocmf import SigningMeter   # cryptography: not in a load client that signs nothing
                self.transactions_signing_meter = SigningMeter()
            tx = state.transaction
            value["sampledValue"][0]["signedMeterValue"] = self.transactions_signing_meter.sign(
                wh, context, at, tx.id if tx is not None else None)
        return value

    def _answered(self, payload: dict, response: dict) -> None:
        """The idTokenInfo of a TransactionEventResponse goes where the station keeps what it knows of
        the token (its authorization cache: spec 001 Authorization rule 7)."""
        if "idToken" in payload and "idTokenInfo" in response:
            self.id_token_answered(payload["idToken"], response["idTokenInfo"])

    async def end_transactions(self) -> None:
        await super().end_transactions()
        for state in self.evses.values():
            await self.end_transaction(state, "StopAuthorized", "Local")

    async def charging_rate_changed(self, evse_id: int) -> None:
        """The limit of EVSE ``evse_id`` changed beyond LimitChangeSignificance while it charges (spec 001
        rule 12, K11): TransactionEvent Updated with triggerReason ChargingRateChanged."""
        state = self.evses.get(evse_id)
        if state is not None and state.transaction is not None:
            await self.call("TransactionEvent", self._event(state, "Updated", "ChargingRateChanged",
                                                            chargingState="Charging"))

    async def _after_event(self, state: EvseState, response: dict) -> None:
        group = response.get("idTokenInfo", {}).get("groupIdToken")
        if group and state.transaction is not None and state.transaction.group is None:
            state.transaction.group = group   # a token taken from the station's own list learns its group here
        status = response.get("idTokenInfo", {}).get("status", "Accepted")
        if status != "Accepted" and state.transaction is not None:
            await self.deauthorized(state)

    async def deauthorized(self, state: EvseState) -> None:
        """The CSMS refused the token of the running transaction (spec 001 moves "Offline-authorized
        transaction")."""
        if self.stop_tx_on_invalid_id:
            if STOPPED_WHEN_DEAUTHORIZED & set(self.tx_stop_point):
                await self.end_transaction(state, "Deauthorized", "DeAuthorized")
            else:
                await self.suspend(state, "Deauthorized")
        elif self.max_energy_on_invalid_id:
            state.transaction.energy_limit = state.meter.wh + self.max_energy_on_invalid_id
        else:
            await self.suspend(state, "ChargingStateChanged")

    async def suspend(self, state: EvseState, trigger: str) -> None:
        """Energy stops; the transaction stays (TransactionEvent Updated, chargingState SuspendedEVSE)."""
        await self.call("TransactionEvent", self._event(state, "Updated", trigger, chargingState="SuspendedEVSE"))

    def on_GetTransactionStatus(self, _: None, payload: dict) -> dict:
        """E14: whether transaction-related messages wait to be delivered (of the transaction named, or of
        any), and for a transaction named whether it still runs (E14.FR.02-08); no ongoingIndicator when
        none is named."""
        transaction_id = payload.get("transactionId")
        answer: dict[str, Any] = {"messagesInQueue": self.events_waiting(transaction_id)}
        if transaction_id is not None:
            answer["ongoingIndicator"] = any(s.transaction is not None and s.transaction.id == transaction_id
                                             for s in self.evses.values())
        return answer

    async def act_plug_in(self, evse_id: int = 1, connector_id: int | None = None) -> None:
        state = self.evses[evse_id]

        async def plug() -> None:
            state.plugged = True
            await self.send_and_go_on("StatusNotification", self.status_payload(
                evse_id, connector_id or state.evse.connectors[0], "Occupied"))
            if state.transaction is None and self.starts_now(state):
                await self.start_transaction(state, "CablePluggedIn", state.authorized)
            elif state.transaction is not None and state.transaction.id_token is not None:
                await self.call("TransactionEvent", self._event(state, "Updated", "CablePluggedIn",
                                                                chargingState="Charging"))

        self.background.spawn(plug())

    async def act_unplug(self, evse_id: int = 1, connector_id: int | None = None) -> None:
        """The cable is pulled: the transaction ends when TxStopPoint holds EVConnected, PowerPathClosed
        or EnergyTransfer (E06.FR.02, FR.06, FR.07); otherwise it goes on without the EV (Updated,
        EVCommunicationLost, chargingState Idle) until the driver stops it."""
        state = self.evses[evse_id]

        async def unplug() -> None:
            state.plugged = False
            if state.transaction is not None and not STOPPED_WHEN_UNPLUGGED & set(self.tx_stop_point):
                await self.call("TransactionEvent", self._event(state, "Updated", "EVCommunicationLost",
                                                                chargingState="Idle"))
            else:
                await self.end_transaction(state, "EVCommunicationLost", "EVDisconnected")
            await self.send_and_go_on("StatusNotification", self.status_payload(
                evse_id, connector_id or state.evse.connectors[0], "Available"))

        self.background.spawn(unplug())

    async def act_unplug_ev(self, evse_id: int = 1, connector_id: int | None = None) -> None:
        """The cable is pulled out of the EV; it stays in the station's socket (E09, E10). With
        TxCtrlr.StopTxOnEVSideDisconnect true, or a TxStopPoint the EV's leaving meets (EVConnected,
        PowerPathClosed, EnergyTransfer: E06.FR.02, FR.06, FR.07), the transaction ends (Ended, triggerReason
        EVCommunicationLost, stoppedReason EVDisconnected); otherwise it is suspended (Updated, EVCommunicationLost, chargingState
        Idle) and goes on when the EV is plugged in again or ends when the driver stops it."""
        state = self.evses[evse_id]

        async def unplug_ev() -> None:
            state.plugged = False
            if state.transaction is None:
                return
            if self.variable("TxCtrlr", "StopTxOnEVSideDisconnect").strip().lower() == "true" \
                    or STOPPED_WHEN_UNPLUGGED & set(self.tx_stop_point):
                await self.end_transaction(state, "EVCommunicationLost", "EVDisconnected")
            else:
                await self.call("TransactionEvent", self._event(state, "Updated", "EVCommunicationLost",
                                                                chargingState="Idle"))

        self.background.spawn(unplug_ev())

    async def stop_authorized(self, state: EvseState, id_token: dict) -> None:
        """The driver ends the authorization (presents the token again, E07): the transaction ends when
        TxStopPoint holds Authorized, PowerPathClosed or EnergyTransfer (E06.FR.03, FR.06, FR.07),
        stoppedReason Local; otherwise energy stops (Updated, StopAuthorized, SuspendedEVSE) and the
        transaction ends with the cable."""
        if STOPPED_WHEN_DEAUTHORIZED & set(self.tx_stop_point):
            await self.end_transaction(state, "StopAuthorized", "Local", id_token)
            return
        state.authorized = None
        await self.call("TransactionEvent", self._event(state, "Updated", "StopAuthorized",
                                                        chargingState="SuspendedEVSE"))


class TransactionsStation16(Block):
    versions = V16
    undone_by = {"plug_in": lambda body: ("unplug", body)}   # a cable plugged in at a SUT is unplugged
    requires = ("ProvisioningStation16", "ConfigurationStation16", "ReservationStation16")
    queue_class = TransactionQueue
    _sender: asyncio.Task | None = store()   # started with the first queued message
    _wake: asyncio.Event = store(asyncio.Event)

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.queue = self.queue_class()

    async def connected(self, connection) -> None:
        await super().connected(connection)
        self._send_when_queued()

    def went_online(self) -> None:
        super().went_online()
        self._send_when_queued()

    # ------------------------------------------------------------ the transaction-message queue
    def send_transaction_message(self, action: str, payload: dict, tx: ChargeTransaction) -> asyncio.Future:
        """Queue a transaction-related message; the future gives its last Exchange (None: never sent)."""
        future = asyncio.get_running_loop().create_future()
        self.queue.push(action, payload, (tx, future))
        self._send_when_queued()
        return future

    def _send_when_queued(self) -> None:
        """The sender starts with the first queued message (a charge point of the load that never starts a
        transaction keeps no task for it), and is woken for each."""
        if self._sender is not None:
            self._wake.set()
        elif len(self.queue):
            self._sender = self.background.spawn(self._send_queue())

    async def drained(self, timeout: float) -> None:
        """Returns once every queued transaction message is delivered or dropped, or offline, or after ``timeout`` s."""
        deadline = clock.now() + timeout
        while len(self.queue) and self.online and clock.now() < deadline:
            await asyncio.sleep(0.02)

    async def _send_queue(self) -> None:
        while True:
            self._wake.clear()
            wait = self.queue.wait(clock.now())
            if wait is None or not self.online or wait > 0:
                await woken(self._wake, wait if wait and self.online else None)
                continue
            await self.transmit(self.queue.head())

    def bind(self, item: Queued) -> dict | None:
        """The payload as sent: messages after the start carry the central system's transactionId."""
        tx, _ = item.owner
        if item.action == "StartTransaction":
            return item.payload
        return None if tx.id is None else item.payload | {"transactionId": tx.id}

    async def transmit(self, item: Queued) -> None:
        tx, future = item.owner
        payload = self.bind(item)
        if payload is None:   # its transaction never got an id: nothing to refer to
            self.queue.failed(clock.now(), attempts=1, retry_interval=0)
            future.set_result(None)
            return
        connection = self.connection
        mark = len(connection.history)
        try:
            await connection.call_exchange(item.action, payload)
        except HarnessError:
            if connection.closed:
                return    # offline again: the message waits (Q2)
            raise
        except PeerViolation:
            pass          # no answer, or an answer breaking its schema: the connection records it
        exchange = connection.history[mark]
        if exchange.answered and exchange.error is None:
            self.queue.delivered()
            if item.action == "StartTransaction":
                tx.id = exchange.response.get("transactionId")
                self.transaction_started(tx.connector_id, str(tx.id))
            if "idTagInfo" in exchange.response:
                self.id_tag_info_received(payload.get("idTag", tx.id_tag), exchange.response["idTagInfo"],
                                          item.action)
            future.set_result(exchange)
        elif self.queue.failed(clock.now(), attempts=self.config.integer("TransactionMessageAttempts", 1),
                               retry_interval=self.config.integer("TransactionMessageRetryInterval")):
            future.set_result(exchange)

    # ------------------------------------------------------------ transactions
    def _running(self, connector_id: int | None) -> list[Connector]:
        return [c for c in self.connectors.values()
                if c.transaction is not None and connector_id in (None, c.id)]

    def _free(self, connector_id: int | None) -> Connector | None:
        """The connector a new transaction may use: operative, not faulted, without a transaction."""
        usable = lambda c: c.transaction is None and c.operative and not c.faulted
        if connector_id is not None:
            connector = self.connectors.get(connector_id)
            return connector if connector is not None and usable(connector) else None
        return next((c for c in self.connectors.values() if usable(c) and c.authorized is None
                     and c.reservation is None), None)

    async def start_charging(self, connector: Connector) -> Exchange | None:
        payload = {"connectorId": connector.id, "idTag": connector.authorized, "meterStart": connector.meter.wh,
                   "timestamp": now_iso()}
        reservation_id = self.claim_reservation(connector, connector.authorized, connector.parent)
        if reservation_id is not None:
            payload["reservationId"] = reservation_id
        tx = ChargeTransaction(connector.id, connector.authorized, connector.parent, payload)
        connector.transaction, connector.authorized = tx, None
        tx.sampler = self.background.spawn(self._sample(connector, tx))
        exchange = await self.send_transaction_message("StartTransaction", payload, tx)
        if exchange is None or exchange.response is None or connector.transaction is not tx:
            return exchange
        await self.set_status(connector, "Charging")
        if exchange.response["idTagInfo"]["status"] != "Accepted":
            if self.config.flag("StopTransactionOnInvalidId"):
                await self.stop_charging(connector, "DeAuthorized")
            else:   # the transaction stays; energy stops once MaxEnergyOnInvalidId more has flowed
                tx.energy_limit = connector.meter.wh + self.config.integer("MaxEnergyOnInvalidId")
                await self._energy_flowed(connector, tx)
        return exchange

    async def _energy_flowed(self, connector: Connector, tx: ChargeTransaction) -> None:
        """SuspendedEVSE once the register reached the transaction's energy limit."""
        if tx.energy_limit is not None and connector.meter.wh >= tx.energy_limit:
            await self.set_status(connector, "SuspendedEVSE", changed_only=True)

    def stop_payload(self, connector: Connector, tx: ChargeTransaction, reason: str, id_tag: str | None) -> dict:
        meter_stop = connector.meter.advance(tx.energy_limit)
        payload: dict[str, Any] = {"meterStop": meter_stop, "timestamp": now_iso(), "reason": reason}
        if id_tag is not None:
            payload["idTag"] = id_tag
        sampled = self.measurands("StopTxnSampledData")
        data = [self.reading(connector, "Transaction.Begin", sampled, tx.start["meterStart"], tx.start["timestamp"]),
                *tx.aligned, self.reading(connector, "Transaction.End", sampled, meter_stop, payload["timestamp"])]
        data = [value for value in data if value["sampledValue"]]
        if data:   # both lists empty: no meter values (behaviour rule 14)
            payload["transactionData"] = data
        return payload

    async def stop_charging(self, connector: Connector, reason: str, id_tag: str | None = None) -> Exchange | None:
        tx = connector.transaction
        if tx is None:
            return None
        connector.transaction = None
        if tx.sampler is not None:
            tx.sampler.cancel()
        self.transaction_ended(connector.id)
        sent = self.send_transaction_message("StopTransaction", self.stop_payload(connector, tx, reason, id_tag), tx)
        await self.set_status(connector, "Finishing" if connector.plugged else "Available")
        return await sent

    async def end_transactions(self) -> None:
        await super().end_transactions()
        for connector in self._running(None):
            await self.stop_charging(connector, "Local")

    def measurands(self, key: str) -> list[str]:
        """The measurands a metering key lists (rule 16); empty: none."""
        return measurand_list(self.config.value(key))

    def reading(self, connector: Connector, context: str, measurands: list[str], wh: int | None = None,
                at: str | None = None) -> dict:
        """One MeterValue of the connector's meter (no sampledValue when ``measurands`` is empty)."""
        return connector.meter.sample(context, measurands, wh, at)

    async def _sample(self, connector: Connector, tx: ChargeTransaction) -> None:
        """The transaction's meter values: periodic and clock-aligned, side by side."""
        await asyncio.gather(self._sample_periodic(connector, tx), self._sample_aligned(connector, tx))

    async def _sample_periodic(self, connector: Connector, tx: ChargeTransaction) -> None:
        """MeterValues of MeterValuesSampledData every MeterValueSampleInterval seconds (0: none)."""
        while connector.transaction is tx:
            interval = self.config.integer("MeterValueSampleInterval")
            await asyncio.sleep(interval or 1)
            if interval and connector.transaction is tx:
                connector.meter.advance(tx.energy_limit)
                self._send_sample(connector, tx, self.reading(connector, "Sample.Periodic",
                                                              self.measurands("MeterValuesSampledData")))
                await self._energy_flowed(connector, tx)

    async def _sample_aligned(self, connector: Connector, tx: ChargeTransaction) -> None:
        """At every multiple of ClockAlignedDataInterval seconds of the clock (0: none): MeterValues of
        MeterValuesAlignedData, and a MeterValue of StopTxnAlignedData kept for the StopTransaction."""
        while connector.transaction is tx:
            interval = self.config.integer("ClockAlignedDataInterval")
            now = clock.utcnow().timestamp()
            await asyncio.sleep(interval - now % interval if interval else 1)
            if not interval or connector.transaction is not tx:
                continue
            at = now_iso()
            self._send_sample(connector, tx, self.reading(connector, "Sample.Clock",
                                                          self.measurands("MeterValuesAlignedData"), at=at))
            kept = self.reading(connector, "Sample.Clock", self.measurands("StopTxnAlignedData"), at=at)
            if kept["sampledValue"]:
                tx.aligned.append(kept)

    def _send_sample(self, connector: Connector, tx: ChargeTransaction, value: dict) -> None:
        if value["sampledValue"]:
            self.send_transaction_message("MeterValues", {"connectorId": connector.id, "meterValue": [value]}, tx)

    async def act_plug_in(self, connector_id: int = 1) -> None:
        connector = self.connectors[connector_id]

        async def plug() -> None:
            connector.plugged = True
            if connector.authorized and connector.transaction is None:
                await self.start_charging(connector)
            elif connector.status == "Available":
                await self.set_status(connector, "Preparing")

        self.background.spawn(plug())

    async def act_unplug(self, connector_id: int = 1) -> None:
        connector = self.connectors[connector_id]

        async def unplug() -> None:
            connector.plugged = False
            if connector.transaction is not None and self.config.flag("StopTransactionOnEVSideDisconnect"):
                await self.stop_charging(connector, "EVDisconnected")
            await self.set_status(connector, "Available")

        self.background.spawn(unplug())


# ----------------------------------------------------------------------------------------- the CSMS
@dataclass
class Transaction:
    id: str
    id_token: dict | None
    ended: bool = False
    evse_id: int | None = None   # 2.x: the EVSE of its first event that names one


class TransactionsCsms2x(Block):
    versions = V2X
    requires = ("AuthorizationCsms2x",)
    configurable = frozenset({"charging_priority"})
    charging_priority: int | None = None   # K03: the chargingPriority each transaction that starts is given

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.transactions_limits: dict[tuple[str, str], dict] = {}   # F07: by token_key, the limit an operator asked
        self.transactions_running_limits: dict[str, dict] = {}   # E16: by transactionId, the limit for its next answer

    def limit_transactions_of(self, id_token: dict, limit: dict) -> None:
        """F07 (2.1): the transaction ``id_token`` starts next is answered with ``limit`` as its transactionLimit."""
        self.transactions_limits[token_key(id_token)] = limit

    def transaction_of(self, exchange: Exchange) -> tuple[Any, Any]:
        if exchange.action != "TransactionEvent":
            return super().transaction_of(exchange)
        transaction_id = exchange.request.get("transactionInfo", {}).get("transactionId")
        return (None, transaction_id) if exchange.request.get("eventType") == "Ended" else (transaction_id, None)

    def remote_stop(self, transaction_id: Any) -> tuple[str, dict[str, Any]]:
        return "RequestStopTransaction", {"transactionId": transaction_id}

    async def act_set_transaction_limit(self, transaction_id: str, max_energy: float | None = None,
                                        max_time: int | None = None, station: str | None = None) -> None:
        """E16 (2.1): the operator limits the energy (Wh) or the duration (s) of a running transaction; the CSMS
        sends them in transactionLimit (maxEnergy, maxTime) in its answer to that transaction's next
        TransactionEvent."""
        limit = {"maxEnergy": max_energy, "maxTime": max_time}
        self.transactions_running_limits[transaction_id] = {k: v for k, v in limit.items() if v is not None}

    async def act_get_transaction_status(self, transaction_id: str | None = None, station: str | None = None) -> None:
        """E14: the operator asks whether the station still holds messages (of ``transaction_id``, or of any)."""
        self.send(station, "GetTransactionStatus", {"transactionId": transaction_id} if transaction_id else {})

    def on_TransactionEvent(self, session: StationSession, payload: dict) -> dict:
        answer = self.transaction_answer(session, payload)
        limit = self.transactions_running_limits.pop(payload["transactionInfo"]["transactionId"], None)
        if limit is not None and payload["eventType"] != "Ended" and session.version is OcppVersion.V21:
            answer["transactionLimit"] = answer.get("transactionLimit", {}) | limit
        if payload["eventType"] == "Started" and self.charging_priority is not None:
            answer["chargingPriority"] = self.charging_priority
        return answer

    def transaction_answer(self, session: StationSession, payload: dict) -> dict:
        info = payload["transactionInfo"]
        tx = session.transactions.get(info["transactionId"])
        if tx is None:
            tx = Transaction(info["transactionId"], payload.get("idToken"))
            session.transactions[tx.id] = tx
        if tx.evse_id is None and "evse" in payload:
            tx.evse_id = payload["evse"]["id"]
        if payload["eventType"] == "Ended":
            tx.ended = True
        id_token = payload.get("idToken")
        if id_token is None:
            return {}
        if id_token.get("type") == "NoAuthorization":
            return {"idTokenInfo": {"status": "Accepted"}}
        if tx.id_token is None:
            tx.id_token = id_token
        starting = tx.id if payload["eventType"] == "Started" else None
        if self.issued_by_us(session, id_token):
            answer: dict[str, Any] = {"idTokenInfo": {"status": "Accepted"}}
        else:
            answer = {"idTokenInfo": self.id_token_info(session, id_token, current_tx=starting)}
        limit = self.transaction_limit(id_token) if starting is not None and session.version is OcppVersion.V21 \
            and answer["idTokenInfo"]["status"] == "Accepted" else None
        return answer | ({"transactionLimit": limit} if limit else {})

    def transaction_limit(self, id_token: dict) -> dict | None:
        """The transactionLimit of a transaction ``id_token`` starts (2.1): a prepaid token's balance as
        maxCost (spec 001 moves "Prepaid transaction"); the payment block adds what a payment authorized."""
        if token_key(id_token) in self.transactions_limits:
            return self.transactions_limits[token_key(id_token)]
        record = self.tokens.lookup(id_token)
        return {"maxCost": record.balance} if record is not None and record.balance is not None else None

    def issued_by_us(self, session: StationSession, id_token: dict) -> bool:
        """A Central (app) or DirectPayment (paid) token this CSMS sent in a RequestStartTransaction on this
        connection."""
        if id_token.get("type") not in ("Central", "DirectPayment") or session.connection is None:
            return False
        return any(not e.incoming and e.action == "RequestStartTransaction"
                   and token_key(e.request["idToken"]) == token_key(id_token) for e in session.connection.history)


@dataclass
class CentralTransaction:
    id: int
    id_tag: str
    ended: bool = False


def charging_tags(session: StationSession) -> set[str]:
    """The idTags of the 1.6 transactions still running at the station (casefolded)."""
    return {t.id_tag.casefold() for t in session.transactions.values() if not t.ended}


class TransactionsCsms16(Block):
    versions = V16
    requires = ("AuthorizationCsms16",)
    # start_refused: the IdTagInfo status every StartTransaction gets instead (Invalid: an idTag accepted
    # at Authorize refused once its transaction runs, as StopTransactionOnInvalidId is about)
    configurable = frozenset({"start_refused"})
    start_refused: str | None = None

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self._transaction_ids = itertools.count(secrets.randbelow(10_000) + 1)

    def transaction_of(self, exchange: Exchange) -> tuple[Any, Any]:
        if exchange.action == "StartTransaction":
            return (exchange.result or {}).get("transactionId"), None
        if exchange.action == "StopTransaction":
            return None, exchange.request.get("transactionId")
        return super().transaction_of(exchange)

    def remote_stop(self, transaction_id: Any) -> tuple[str, dict[str, Any]]:
        return "RemoteStopTransaction", {"transactionId": transaction_id}

    def on_StartTransaction(self, session: StationSession, payload: dict) -> dict:
        charging = payload["idTag"].casefold() in charging_tags(session)
        info = self.id_tag_info(session, payload["idTag"], charging=charging)
        if self.start_refused is not None:
            info = {"status": self.start_refused}
        tx = CentralTransaction(self.transaction_number(next(self._transaction_ids), session.transactions),
                                payload["idTag"])
        session.transactions[tx.id] = tx
        return {"transactionId": tx.id, "idTagInfo": info}

    def on_StopTransaction(self, session: StationSession, payload: dict) -> dict:
        tx = session.transactions.get(payload["transactionId"])
        if tx is not None:
            tx.ended = True
        return {"idTagInfo": self.id_tag_info(session, payload["idTag"])} if "idTag" in payload else {}
