"""Transaction faults (E01-E17): stations that start or stop at the wrong point, number or
word their TransactionEvents wrongly, or misreport a transaction's status; CSMSs that leave a token
unchecked or ask about another transaction."""

from __future__ import annotations

from harness.reference import ReferenceCsms, ReferenceStation
from harness.transport.ws import CallErrorReply

from .records import V21, Fault, cs21_test, cs_test, csms21_test, csms_test


class StationIgnoresTxStartPoint(ReferenceStation):
    """E01: whatever TxStartPoint says, a transaction starts only once the cable is in and the driver authorized."""

    def starts_now(self, state):
        return bool(state.plugged and state.authorized)


class StationWaitsForTheCable(ReferenceStation):
    """E01.FR.03: with TxStartPoint Authorized, the driver's authorization starts nothing until the cable is in."""

    def starts_now(self, state):
        return state.plugged and super().starts_now(state)


class StationRepeatsTransactionSeqNo(ReferenceStation):
    """E01.FR.07: every TransactionEvent of a transaction carries seqNo 0."""

    def _event(self, state, event_type, trigger, **info):
        return super()._event(state, event_type, trigger, **info) | {"seqNo": 0}


class CsmsLeavesTransactionTokensUnanswered(ReferenceCsms):
    """E01.FR.12: a TransactionEvent carrying an idToken is answered without idTokenInfo."""

    def on_TransactionEvent(self, session, payload):
        answer = super().on_TransactionEvent(session, payload)
        answer.pop("idTokenInfo", None)
        return answer


class StationRepeatsTheToken(ReferenceStation):
    """E03.FR.02: every TransactionEvent of an authorized transaction carries the idToken again."""

    def _event(self, state, event_type, trigger, **info):
        payload = super()._event(state, event_type, trigger, **info)
        tx = state.transaction
        return payload | ({"idToken": tx.id_token} if tx is not None and tx.id_token else {})


class StationNamesTheAuthorizationChargingStateChanged(ReferenceStation):
    """E02: the idToken of a transaction started on the cable comes with triggerReason ChargingStateChanged."""

    def _event(self, state, event_type, trigger, **info):
        return super()._event(state, event_type, "ChargingStateChanged" if trigger == "Authorized" and
                              event_type == "Updated" else trigger, **info)


class CsmsRefusesAuthorizationEvents(ReferenceCsms):
    """E01.FR.11-12: the Updated event that brings a transaction's idToken is answered Invalid."""

    def on_TransactionEvent(self, session, payload):
        answer = super().on_TransactionEvent(session, payload)
        if payload["eventType"] == "Updated" and "idToken" in payload:
            answer["idTokenInfo"] = {"status": "Invalid"}
        return answer


class StationEndsWithoutReason(ReferenceStation):
    """E03.FR.05: the Ended event of a transaction the EV's disconnection stopped carries no stoppedReason."""

    def _event(self, state, event_type, trigger, **info):
        if info.get("stoppedReason") == "EVDisconnected":
            info.pop("stoppedReason")
        return super()._event(state, event_type, trigger, **info)


class StationReportsTheCableAsChargingStateChanged(ReferenceStation):
    """E03: the cable plugged into a transaction started by authorization comes with triggerReason
    ChargingStateChanged."""

    def _event(self, state, event_type, trigger, **info):
        return super()._event(state, event_type, "ChargingStateChanged" if trigger == "CablePluggedIn" and
                              event_type == "Updated" else trigger, **info)


class StationKeepsTransactionsWhenUnplugged(ReferenceStation):
    """E06.FR.02: with TxStopPoint EVConnected the cable pulled out leaves the transaction running."""

    @property
    def tx_stop_point(self):
        return ("Authorized",)

    @tx_stop_point.setter
    def tx_stop_point(self, value):
        pass


class StationStopsForOtherReasons(ReferenceStation):
    """E06: a transaction the EV's disconnection ended names stoppedReason Other."""

    def _event(self, state, event_type, trigger, **info):
        if info.get("stoppedReason") == "EVDisconnected":
            info["stoppedReason"] = "Other"
        return super()._event(state, event_type, trigger, **info)


class StationSuspendsOnTheDriversStop(ReferenceStation):
    """E06.FR.03: the driver's token presented again only suspends the transaction, whatever TxStopPoint says."""

    async def stop_authorized(self, state, id_token):
        state.authorized = None
        await self.call("TransactionEvent", self._event(state, "Updated", "StopAuthorized",
                                                        chargingState="SuspendedEVSE"))


class StationNamesTheDriversStopDeauthorized(ReferenceStation):
    """E07: the Ended event of a driver's stop names triggerReason Deauthorized."""

    def _event(self, state, event_type, trigger, **info):
        return super()._event(state, event_type, "Deauthorized" if trigger == "StopAuthorized" else trigger, **info)


class StationForgetsOngoingTransactions(ReferenceStation):
    """E14.FR.02: a running transaction is answered ongoingIndicator false."""

    def on_GetTransactionStatus(self, session, payload):
        answer = super().on_GetTransactionStatus(session, payload)
        return answer | ({"ongoingIndicator": False} if "ongoingIndicator" in answer else {})


class StationIndicatesWithoutTransaction(ReferenceStation):
    """E14.FR.06: a request without transactionId is answered with ongoingIndicator."""

    def on_GetTransactionStatus(self, session, payload):
        return {"ongoingIndicator": False} | super().on_GetTransactionStatus(session, payload)


class StationClaimsQueuedMessages(ReferenceStation):
    """E14.FR.05, FR.08: messagesInQueue true with nothing left to deliver."""

    def on_GetTransactionStatus(self, session, payload):
        return super().on_GetTransactionStatus(session, payload) | {"messagesInQueue": True}


class CsmsAsksAboutEveryTransaction(ReferenceCsms):
    """E14: the operator named a transaction; the CSMS asks without transactionId."""

    async def act_get_transaction_status(self, transaction_id=None, station=None):
        self.send(station, "GetTransactionStatus", {})


class CsmsRefusesTransactionEvents(ReferenceCsms):
    """J02.FR.19: a TransactionEvent after the Started one is answered with a CALLERROR."""

    def on_TransactionEvent(self, session, payload):
        if payload["eventType"] != "Started":
            raise CallErrorReply("InternalError", "transaction events are not taken")
        return super().on_TransactionEvent(session, payload)


def _ignore_ev_side(station, evse_id):
    """The cable pulled out of the EV is reported (Updated, EVCommunicationLost), never ends the transaction."""
    state = station.evses[evse_id]
    state.plugged = False
    if state.transaction is not None:
        station.background.spawn(station.call("TransactionEvent", station._event(
            state, "Updated", "EVCommunicationLost", chargingState="Idle")))


class StationIgnoresEvSideDisconnect(ReferenceStation):
    """E09: with StopTxOnEVSideDisconnect true, the cable pulled out of the EV never ends the transaction."""

    async def act_unplug_ev(self, evse_id=1, connector_id=None):
        _ignore_ev_side(self, evse_id)


def _ignoring_ev_side_at(point):
    """An act_unplug_ev that keeps the transaction running while TxStopPoint holds ``point``."""
    async def act_unplug_ev(self, evse_id=1, connector_id=None):
        if point in self.tx_stop_point:
            _ignore_ev_side(self, evse_id)
        else:
            await ReferenceStation.act_unplug_ev(self, evse_id, connector_id)
    return act_unplug_ev


class StationIgnoresEvSideDisconnectAtEvConnected(ReferenceStation):
    """E06.FR.02 at the EV side: with TxStopPoint EVConnected the EV leaving keeps the transaction running."""
    act_unplug_ev = _ignoring_ev_side_at("EVConnected")


class StationIgnoresEvSideDisconnectAtPowerPath(ReferenceStation):
    """E06.FR.06 at the EV side: with TxStopPoint PowerPathClosed the EV leaving keeps the transaction running."""
    act_unplug_ev = _ignoring_ev_side_at("PowerPathClosed")


class StationIgnoresEvSideDisconnectAtEnergyTransfer(ReferenceStation):
    """E06.FR.07 at the EV side: with TxStopPoint EnergyTransfer the EV leaving keeps the transaction running."""
    act_unplug_ev = _ignoring_ev_side_at("EnergyTransfer")


class StationKeepsTransactionsWithoutTheEv(ReferenceStation):
    """E10 (E06.FR.03): the driver's token presented while the EV is away does not end the transaction."""

    async def stop_authorized(self, state, id_token):
        if state.plugged:
            await super().stop_authorized(state, id_token)
            return
        state.authorized = None
        await self.call("TransactionEvent", self._event(state, "Updated", "StopAuthorized",
                                                        chargingState="SuspendedEVSE"))


class StationStopsOnlyAtItsFirstStopPoint(ReferenceStation):
    """E06.FR.03 with a TxStopPoint list: while EVConnected is listed, the driver's token only suspends."""

    async def stop_authorized(self, state, id_token):
        if "EVConnected" in self.tx_stop_point:
            state.authorized = None
            await self.call("TransactionEvent", self._event(state, "Updated", "StopAuthorized",
                                                            chargingState="SuspendedEVSE"))
            return
        await super().stop_authorized(state, id_token)


class StationEndsEvSideStopsAsLocal(ReferenceStation):
    """E09: a transaction the EV's cable ended names triggerReason StopAuthorized and stoppedReason Local."""

    def _event(self, state, event_type, trigger, **info):
        if trigger == "EVCommunicationLost" and event_type == "Ended":
            trigger, info = "StopAuthorized", info | {"stoppedReason": "Local"}
        return super()._event(state, event_type, trigger, **info)


class StationAlwaysStopsOnEvSideDisconnect(ReferenceStation):
    """E10: the cable pulled out of the EV ends the transaction, StopTxOnEVSideDisconnect false or not."""

    def variable(self, component, name):
        if (component, name) == ("TxCtrlr", "StopTxOnEVSideDisconnect"):
            return "true"
        return super().variable(component, name)


class StationForgetsTheEvComingBack(ReferenceStation):
    """E10: the EV plugged back into a suspended transaction is reported with triggerReason ChargingStateChanged."""

    def _event(self, state, event_type, trigger, **info):
        if trigger == "CablePluggedIn" and event_type == "Updated":
            trigger = "ChargingStateChanged"
        return super()._event(state, event_type, trigger, **info)


class StationNeverRetriesTransactionEvents(ReferenceStation):
    """E13.FR.02: a TransactionEvent answered with a CALLERROR is dropped at once, MessageAttempts or not."""

    def variable(self, component, name):
        if (component, name) == ("OCPPCommCtrlr", "MessageAttempts"):
            return "1"
        return super().variable(component, name)


class StationRetriesAtOnce(ReferenceStation):
    """E13.FR.03: a refused TransactionEvent is sent again without waiting MessageAttemptInterval."""

    def variable(self, component, name):
        if (component, name) == ("OCPPCommCtrlr", "MessageAttemptInterval"):
            return "0"
        return super().variable(component, name)


class StationRetriesForEver(ReferenceStation):
    """E13.FR.04: a refused TransactionEvent is sent again one more time than MessageAttempts allows."""

    def variable(self, component, name):
        value = super().variable(component, name)
        return str(int(value) + 1) if (component, name) == ("OCPPCommCtrlr", "MessageAttempts") else value


class StationForgetsAnyEventWaiting(ReferenceStation):
    """E14.FR.07: asked about no transaction, an event waiting to be sent again is not counted."""

    def events_waiting(self, transaction_id=None):
        return transaction_id is not None and super().events_waiting(transaction_id)


class StationForgetsEventsWaitingForRetry(ReferenceStation):
    """E14.FR.04, FR.07: an event waiting to be sent again is not counted as a message still to deliver."""

    def events_waiting(self, transaction_id=None):
        return False


class CsmsIgnoresTransactionLimits(ReferenceCsms):
    """E16: the operator's energy limit never reaches the station (no transactionLimit in any answer)."""

    async def act_set_transaction_limit(self, transaction_id, max_energy=None, max_time=None, station=None):
        return None


class StationNeverConfirmsLimits(ReferenceStation):
    """E16.FR.03: a limit the CSMS set is enforced but never confirmed with LimitSet."""

    async def call(self, action, payload):
        if action == "TransactionEvent" and payload.get("triggerReason") == "LimitSet":
            return {}
        return await super().call(action, payload)


class StationChargesPastTheLimit(ReferenceStation):
    """E16.FR.05: a limit the CSMS set is confirmed, then never enforced."""

    async def _energy_limit_reached(self, state, tx):
        tx.energy_limit = None


class StationSuspendsAtTheLimit(ReferenceStation):
    """E16.FR.06: with TxStopPoint EnergyTransfer the limit reached only suspends the transaction."""

    async def _energy_limit_reached(self, state, tx):
        tx.energy_limit = None
        await self.suspend(state, "EnergyLimitReached")


class StationCountsTheLimitFromNow(ReferenceStation):
    """E16.FR.10: a limit counts from when it was set, so one below the energy counted waits for more."""

    async def _limit_answered(self, state, response):
        if state.transaction is not None and "maxEnergy" in (response.get("transactionLimit") or {}):
            self.transactions_start_wh[state.transaction.id] = state.meter.wh
        await super()._limit_answered(state, response)


class StationStaysSuspendedAfterARaise(ReferenceStation):
    """E16.FR.14: a limit raised above what the suspended transaction counted is confirmed, and the energy stays off."""

    async def call(self, action, payload):
        if action == "TransactionEvent" and payload.get("triggerReason") == "ChargingStateChanged" \
                and payload["transactionInfo"].get("chargingState") == "Charging":
            self.transactions_suspended.add(payload["transactionInfo"]["transactionId"])
            return {}
        return await super().call(action, payload)


class CsmsKeepsTheFirstLimit(ReferenceCsms):
    """E16: once a transaction is limited, the operator's later limits of it never reach the station."""

    async def act_set_transaction_limit(self, transaction_id, max_energy=None, max_time=None, station=None):
        if transaction_id in getattr(self, "limited_once", set()):
            return None
        self.limited_once = getattr(self, "limited_once", set()) | {transaction_id}
        await super().act_set_transaction_limit(transaction_id, max_energy, max_time, station)


class StationIgnoresTimeLimits(ReferenceStation):
    """E16.FR.05: a maxTime the CSMS set is confirmed, then never enforced."""

    async def _time_limit(self, state, tx, deadline):
        return None


def _drop(station, payload):
    """What a station that drops its offline TransactionEvents answers the block that made one."""
    return {}


def _unmark(station):
    """The waiting TransactionEvents lose their offline flag before they go out."""
    for payload, _ in station._waiting:
        payload.pop("offline", None)


class StationDropsOfflineEvents(ReferenceStation):
    """E12.FR.01: the TransactionEvents made while offline are dropped, never delivered."""

    async def _queued(self, payload):
        return _drop(self, payload)


class StationDropsOfflineSamples(ReferenceStation):
    """E11: the samples of a transaction made while offline are dropped, never delivered."""

    async def _queued(self, payload):
        return _drop(self, payload)


class StationMarksNothingOffline(ReferenceStation):
    """E12.FR.02: the events made while offline are delivered without offline true."""

    def _send_waiting(self):
        _unmark(self)
        super()._send_waiting()


def _driver_stop(payload):
    """The Ended event of a transaction the driver stopped with the token (E08)."""
    return payload["eventType"] == "Ended" and payload.get("triggerReason") == "StopAuthorized"


class StationDropsOfflineStops(ReferenceStation):
    """E08: the Ended event of a transaction the driver stopped while offline is dropped, never delivered."""

    async def _queued(self, payload):
        return _drop(self, payload) if _driver_stop(payload) else await super()._queued(payload)


class StationMarksNoOfflineStop(ReferenceStation):
    """E08: the Ended event of a transaction the driver stopped while offline is delivered without offline true."""

    def _send_waiting(self):
        for payload, _ in self._waiting:
            if _driver_stop(payload):
                payload.pop("offline", None)
        super()._send_waiting()


class StationMarksNoEndOffline(ReferenceStation):
    """E12.FR.02: of the events made while offline, the Ended ones are delivered without offline true."""

    def _send_waiting(self):
        for payload, _ in self._waiting:
            if payload["eventType"] == "Ended":
                payload.pop("offline", None)
        super()._send_waiting()


class StationMarksNoSampleOffline(ReferenceStation):
    """E11.FR.02: the samples made while offline are delivered without offline true."""

    def _send_waiting(self):
        _unmark(self)
        super()._send_waiting()


class StationStartsNothingOffline(ReferenceStation):
    """E04: offline, a token the station's cache holds as Accepted starts nothing."""

    async def decision(self, id_token):
        return await super().decision(id_token) if self.online else {"status": "Unknown"}


class StationMarksNoStartOffline(ReferenceStation):
    """E04.FR.03: the Started event of a transaction started offline is delivered without offline true."""

    def _send_waiting(self):
        _unmark(self)
        super()._send_waiting()


class CsmsRefusesOfflineEvents(ReferenceCsms):
    """J02.FR.19: a TransactionEvent marked offline is answered with a CALLERROR."""

    def on_TransactionEvent(self, session, payload):
        if payload.get("offline"):
            raise CallErrorReply("InternalError", "offline events are not taken")
        return super().on_TransactionEvent(session, payload)


class CsmsAcceptsStartedTokens(ReferenceCsms):
    """E01.FR.11: the token of a Started event is answered Accepted without being checked."""

    def on_TransactionEvent(self, session, payload):
        answer = super().on_TransactionEvent(session, payload)
        if payload["eventType"] == "Started" and "idToken" in payload:
            answer["idTokenInfo"] = {"status": "Accepted"}
        return answer


class CsmsAnswersStartedWithoutStatus(ReferenceCsms):
    """E01.FR.12: a Started event carrying a token is answered without idTokenInfo."""

    def on_TransactionEvent(self, session, payload):
        answer = super().on_TransactionEvent(session, payload)
        if payload["eventType"] == "Started":
            answer.pop("idTokenInfo", None)
        return answer


class StationEndsInterruptedTransactions(ReferenceStation):
    """E17: back from a power loss, the station ends the transaction whatever TxCtrlr.ResumptionTimeout says."""

    async def act_power_loss(self, off_for=0):
        self.variables[("TxCtrlr", "ResumptionTimeout")] = "0"
        await super().act_power_loss(off_for)


class StationResumesWithoutEnergy(ReferenceStation):
    """E17: a resumed transaction is always SuspendedEVSE, even with AllowEnergyTransferResumption true."""

    async def act_power_loss(self, off_for=0):
        self.variables[("TxCtrlr", "AllowEnergyTransferResumption")] = "false"
        await super().act_power_loss(off_for)


class StationResumesPastTheTimeout(ReferenceStation):
    """E17: back from a power loss, the station resumes the transaction even with ResumptionTimeout 0 or outlasted."""

    async def act_power_loss(self, off_for=0):
        self.variables[("TxCtrlr", "ResumptionTimeout")] = "100000"
        await super().act_power_loss(0)


class CsmsRefusesInterruptedTransactions(ReferenceCsms):
    """E17: the events of a transaction interrupted by a power loss (TxResumed, AbnormalCondition) get a CALLERROR."""

    def on_TransactionEvent(self, session, payload):
        if payload["triggerReason"] in ("TxResumed", "AbnormalCondition"):
            raise NotImplementedError(f"TransactionEvent {payload['triggerReason']}")
        return super().on_TransactionEvent(session, payload)


E04, E05 = "transactions/test_E04.py", "transactions/test_E05.py"
E11, E12 = "transactions/test_E11.py", "transactions/test_E12.py"
E08, DRIVER_OFFLINE = "transactions/test_E08.py", "test_transaction_stopped_by_the_driver_while_offline"
E01, E02, E03 = "transactions/test_E01.py", "transactions/test_E02.py", "transactions/test_E03.py"
E06, E07, E14 = "transactions/test_E06.py", "transactions/test_E07.py", "transactions/test_E14.py"
E09, E10, E13 = "transactions/test_E09.py", "transactions/test_E10.py", "transactions/test_E13.py"
E16, E17 = "transactions/test_E16.py", "transactions/test_E17.py"
RESUMES, ENDS17 = "test_power_loss_within_the_timeout_resumes", "test_power_loss_past_the_timeout_ends"
STARTS = "test_transaction_starts_at_the_start_point"
EITHER = "test_either_start_point_starts_the_transaction"
ENDS = "test_transaction_ends_at_the_stop_point"


FAULTS: tuple[Fault, ...] = (
    Fault("E01-station-ignores-tx-start-point", "E01.ev_connected", StationIgnoresTxStartPoint,
          (cs_test(E01, STARTS, "EVConnected"), cs_test(E01, EITHER, "cable")),
          "the SUT did not send TransactionEvent within"),
    Fault("E01-station-waits-for-the-cable", "E01.authorized", StationWaitsForTheCable,
          (cs_test(E01, STARTS, "Authorized"), cs_test(E01, EITHER, "token")),
          "the SUT did not send TransactionEvent within"),
    Fault("E01-station-repeats-seq-no", "tx.seq_no", StationRepeatsTransactionSeqNo,
          (cs_test(E01, STARTS, "EVConnected"), cs_test(E01, "test_seq_no_of_a_second_transaction")),
          "the seqNo of the transaction's TransactionEvents does not rise"),
    Fault("E01-csms-leaves-transaction-tokens-unanswered", "tx.token_checked", CsmsLeavesTransactionTokensUnanswered,
          (csms_test(E01, STARTS, "Authorized"), csms_test(E01, STARTS, "PowerPathClosed")),
          "TransactionEventResponse idTokenInfo.status is wrong"),
    Fault("E03-station-repeats-the-token", "tx.token_once", StationRepeatsTheToken,
          (cs_test(E03, "test_authorization_first_then_cable"),),
          "the number of TransactionEvents (before Ended) that carry the idToken is wrong"),
    Fault("E02-station-names-the-authorization-charging-state-changed", "E02.authorized_event",
          StationNamesTheAuthorizationChargingStateChanged, (cs_test(E02, "test_cable_first_then_authorization"),),
          "triggerReason of the event that carries the idToken is wrong", verdict="finding"),
    Fault("E02-csms-refuses-authorization-events", "tx.token_checked", CsmsRefusesAuthorizationEvents,
          (csms_test(E02, "test_cable_first_then_authorization"),),
          "TransactionEventResponse idTokenInfo.status is wrong"),
    Fault("E03-station-ends-without-reason", "tx.stopped_reason", StationEndsWithoutReason,
          (cs_test(E03, "test_authorization_first_then_cable"), cs_test(E06, ENDS, "EVConnected")),
          "carries no stoppedReason"),
    Fault("E03-station-reports-the-cable-as-charging-state-changed", "E03.cable_event",
          StationReportsTheCableAsChargingStateChanged, (cs_test(E03, "test_authorization_first_then_cable"),),
          "the SUT did not send TransactionEvent within", verdict="finding"),
    Fault("E06-station-keeps-transactions-when-unplugged", "E06.ev_connected", StationKeepsTransactionsWhenUnplugged,
          (cs_test(E06, ENDS, "EVConnected"), cs_test(E06, "test_either_stop_point_ends_the_transaction", "cable")),
          "the SUT did not send TransactionEvent within"),
    Fault("E06-station-stops-for-other-reasons", "E06.reason", StationStopsForOtherReasons,
          (cs_test(E06, ENDS, "EVConnected"),), "stoppedReason of a stop by the cable is not one of the accepted",
          verdict="finding"),
    Fault("E07-station-suspends-on-the-drivers-stop", "E07.ended", StationSuspendsOnTheDriversStop,
          (cs_test(E07, "test_driver_stops_with_the_same_token"),),
          "the SUT did not send TransactionEvent within"),
    Fault("E07-station-names-the-drivers-stop-deauthorized", "E07.trigger", StationNamesTheDriversStopDeauthorized,
          (cs_test(E07, "test_driver_stops_with_the_same_token"),), "triggerReason of the Ended event is wrong",
          verdict="finding"),
    Fault("E14-station-forgets-ongoing-transactions", "E14.ongoing", StationForgetsOngoingTransactions,
          (cs_test(E14, "test_status_of_an_ongoing_transaction"),),
          "GetTransactionStatusResponse ongoingIndicator is wrong"),
    Fault("E14-station-indicates-without-transaction", "E14.no_indicator", StationIndicatesWithoutTransaction,
          (cs_test(E14, "test_status_without_a_transaction_id"),), "carries ongoingIndicator"),
    Fault("E14-station-claims-queued-messages", "E14.none_queued", StationClaimsQueuedMessages,
          (cs_test(E14, "test_status_of_an_ongoing_transaction"), cs_test(E14, "test_status_of_an_ended_transaction"),
           cs_test(E14, "test_status_without_a_transaction_id")),
          "GetTransactionStatusResponse messagesInQueue is wrong"),
    Fault("E14-csms-asks-about-every-transaction", "E14.request", CsmsAsksAboutEveryTransaction,
          (csms_test(E14, "test_status_of_an_ongoing_transaction"), csms_test(E14, "test_status_of_an_ended_transaction")),
          "GetTransactionStatusRequest"),
    Fault("E12-station-drops-offline-events", "E12.delivered", StationDropsOfflineEvents,
          (cs_test(E12, "test_transaction_stopped_while_offline"),), "the SUT did not send TransactionEvent within"),
    Fault("E12-station-marks-nothing-offline", "E12.offline", StationMarksNothingOffline,
          (cs_test(E12, "test_transaction_stopped_while_offline"),),
          "offline of the Ended event that happened during the outage is wrong"),
    Fault("E08-station-drops-offline-stops", "E08.delivered", StationDropsOfflineStops,
          (cs_test(E08, DRIVER_OFFLINE),), "the SUT did not send TransactionEvent within"),
    Fault("E08-station-marks-no-offline-stop", "E08.offline", StationMarksNoOfflineStop,
          (cs_test(E08, DRIVER_OFFLINE),), "offline of the Ended event that happened during the outage is wrong"),
    Fault("E11-station-drops-offline-samples", "E11.delivered", StationDropsOfflineSamples,
          (cs_test(E11, "test_samples_made_offline_are_delivered"),), "the SUT did not send TransactionEvent within"),
    Fault("E11-station-marks-no-sample-offline", "E11.offline", StationMarksNoSampleOffline,
          (cs_test(E11, "test_samples_made_offline_are_delivered"),),
          "no event of the transaction delivered after the outage carries offline true"),
    Fault("E04-station-starts-nothing-offline", "E04.reported", StationStartsNothingOffline,
          (cs_test(E04, "test_transaction_started_offline"), cs_test(E04, "test_transaction_started_and_ended_offline")),
          "the SUT did not send TransactionEvent within"),
    Fault("E04-station-marks-no-start-offline", "E04.offline", StationMarksNoStartOffline,
          (cs_test(E04, "test_transaction_started_offline"),),
          "offline of the Started event of a transaction started during the outage is wrong"),
    Fault("E12-csms-refuses-offline-events", "tx.answered", CsmsRefusesOfflineEvents,
          (csms_test(E12, "test_transaction_stopped_while_offline"), csms_test(E11, "test_samples_made_offline_are_delivered"),
           csms_test(E08, DRIVER_OFFLINE)),
          "the CSMS answered a TransactionEvent with a CALLERROR"),
    Fault("E05-csms-accepts-started-tokens", "E05.refused", CsmsAcceptsStartedTokens,
          (csms_test(E05, "test_token_accepted_locally_is_refused", "Invalid"),
           csms_test(E05, "test_token_accepted_locally_is_refused", "Blocked")),
          "idTokenInfo.status of a token the CSMS does not accept is not one of the accepted"),
    Fault("E05-csms-answers-started-without-status", "E05.refused", CsmsAnswersStartedWithoutStatus,
          (csms_test(E05, "test_token_accepted_locally_is_refused", "Invalid"),),
          "idTokenInfo.status of a token the CSMS does not accept is not one of the accepted"),
    Fault("E01-csms-refuses-transaction-events", "tx.answered", CsmsRefusesTransactionEvents,
          (csms_test(E01, "test_seq_no_of_a_second_transaction"),),
          "the CSMS answered a TransactionEvent with a CALLERROR"),
    Fault("E09-station-ignores-ev-side-disconnect", "E09.ended", StationIgnoresEvSideDisconnect,
          (cs_test(E09, "test_transaction_stops_when_the_ev_side_is_unplugged", "Authorized"),),
          "the SUT did not send TransactionEvent within", verdict="finding"),
    Fault("E09-station-ignores-ev-side-disconnect-at-ev-connected", "E09.ev_connected",
          StationIgnoresEvSideDisconnectAtEvConnected,
          (cs_test(E09, "test_transaction_stops_when_the_ev_side_is_unplugged", "EVConnected"),),
          "the SUT did not send TransactionEvent within"),
    Fault("E09-station-ignores-ev-side-disconnect-at-power-path", "E09.power_path",
          StationIgnoresEvSideDisconnectAtPowerPath,
          (cs_test(E09, "test_transaction_stops_when_the_ev_side_is_unplugged", "PowerPathClosed"),),
          "the SUT did not send TransactionEvent within"),
    Fault("E09-station-ignores-ev-side-disconnect-at-energy-transfer", "E09.energy",
          StationIgnoresEvSideDisconnectAtEnergyTransfer,
          (cs_test(E09, "test_transaction_stops_when_the_ev_side_is_unplugged", "EnergyTransfer"),),
          "the SUT did not send TransactionEvent within"),
    Fault("E10-station-keeps-the-suspended-transaction", "E10.driver_stop", StationKeepsTransactionsWithoutTheEv,
          (cs_test(E10, "test_driver_ends_the_suspended_transaction"),), "the SUT did not send TransactionEvent within"),
    Fault("E09-station-ends-ev-side-stops-as-local", "E09.reason", StationEndsEvSideStopsAsLocal,
          (cs_test(E09, "test_transaction_stops_when_the_ev_side_is_unplugged", "Authorized"),),
          "stoppedReason of a stop by the EV's cable is not one of the accepted", verdict="finding"),
    Fault("E10-station-always-stops-on-ev-side-disconnect", "E10.suspended", StationAlwaysStopsOnEvSideDisconnect,
          (cs_test(E10, "test_transaction_suspended_when_the_ev_side_is_unplugged"),
           cs_test(E10, "test_transaction_goes_on_when_the_ev_is_back")),
          "ended the transaction although StopTxOnEVSideDisconnect is false", verdict="finding"),
    Fault("E10-station-forgets-the-ev-coming-back", "E10.resumed", StationForgetsTheEvComingBack,
          (cs_test(E10, "test_transaction_goes_on_when_the_ev_is_back"),),
          "triggerReason of the EV plugged in again is not one of the accepted", verdict="finding"),
    Fault("E13-station-never-retries-transaction-events", "E13.retried", StationNeverRetriesTransactionEvents,
          (cs_test(E13, "test_refused_event_is_sent_again"), cs_test(E13, "test_event_discarded_after_the_last_attempt"),
           cs_test(E13, "test_refused_started_event_is_sent_again")),
          "transmission 2 of 3 of the refused", verdict="finding"),
    Fault("E13-station-retries-at-once", "E13.retry_wait", StationRetriesAtOnce,
          (cs_test(E13, "test_refused_event_is_sent_again"), cs_test(E13, "test_event_discarded_after_the_last_attempt"),
           cs_test(E13, "test_refused_started_event_is_sent_again")),
          "retry 1 came"),
    Fault("E13-station-retries-for-ever", "E13.discarded", StationRetriesForEver,
          (cs_test(E13, "test_event_discarded_after_the_last_attempt"),),
          "a transmission after 3 failed attempts", verdict="finding"),
    Fault("E14-station-forgets-events-waiting-for-retry", "E14.queued", StationForgetsEventsWaitingForRetry,
          (cs_test(E14, "test_status_of_an_ended_transaction_with_its_event_queued"),
           cs_test(E14, "test_status_of_an_ongoing_transaction_with_an_event_queued")),
          "GetTransactionStatusResponse messagesInQueue while the"),
    Fault("E14-station-forgets-any-event-waiting-for-retry", "E14.any_queued", StationForgetsAnyEventWaiting,
          (cs_test(E14, "test_status_without_a_transaction_id_with_an_event_queued"),),
          "messagesInQueue while an Ended event waits is wrong"),
    Fault("E16-csms-ignores-transaction-limits", "E16.limit_sent", CsmsIgnoresTransactionLimits,
          (csms21_test(E16, "test_energy_limit_stops_the_energy"), csms21_test(E16, "test_energy_limit_ends_the_transaction")),
          "transactionLimit.maxEnergy of the answer to the transaction's next event is wrong", version=V21),
    Fault("E16-station-never-confirms-limits", "E16.confirmed", StationNeverConfirmsLimits,
          (cs21_test(E16, "test_energy_limit_stops_the_energy"),), "the SUT did not send TransactionEvent within",
          verdict="finding", version=V21),
    Fault("E16-station-charges-past-the-limit", "E16.reached", StationChargesPastTheLimit,
          (cs21_test(E16, "test_energy_limit_stops_the_energy"),), "the SUT did not send TransactionEvent within",
          verdict="finding", version=V21),
    Fault("E16-station-suspends-at-the-limit", "E16.ended", StationSuspendsAtTheLimit,
          (cs21_test(E16, "test_energy_limit_ends_the_transaction"),), "the SUT did not send TransactionEvent within",
          verdict="finding", version=V21),
    Fault("E04-station-marks-no-end-offline", "E04.ended_offline", StationMarksNoEndOffline,
          (cs_test(E04, "test_transaction_started_and_ended_offline"),),
          "offline of the Ended event made during the outage is wrong"),
    Fault("E06-station-suspends-on-the-drivers-stop-at-a-listed-stop-point", "E06.authorized",
          StationStopsOnlyAtItsFirstStopPoint, (cs_test(E06, "test_either_stop_point_ends_the_transaction", "driver"),),
          "the SUT did not send TransactionEvent within"),
    Fault("E16-station-counts-the-limit-from-now", "E16.at_once", StationCountsTheLimitFromNow,
          (cs21_test(E16, "test_limit_below_the_counted_energy_binds_at_once"),),
          "the SUT did not send TransactionEvent within", verdict="finding", version=V21),
    Fault("E16-station-stays-suspended-after-a-raise", "E16.raised", StationStaysSuspendedAfterARaise,
          (cs21_test(E16, "test_raised_limit_resumes_the_energy"),), "the SUT did not send TransactionEvent within",
          verdict="finding", version=V21),
    Fault("E16-csms-keeps-the-first-limit", "E16.limit_sent", CsmsKeepsTheFirstLimit,
          (csms21_test(E16, "test_raised_limit_resumes_the_energy"),),
          "transactionLimit.maxEnergy of the answer to the transaction's next event is wrong", version=V21),
    Fault("E16-station-ignores-time-limits", "E16.time_reached", StationIgnoresTimeLimits,
          (cs21_test(E16, "test_time_limit_stops_the_energy"),), "the SUT did not send TransactionEvent within",
          verdict="finding", version=V21),
    Fault("E17-station-ends-interrupted-transactions", "E17.kept", StationEndsInterruptedTransactions,
          (cs21_test(E17, RESUMES, "energy"), cs21_test(E17, RESUMES, "no-energy")),
          "ended the transaction it was to resume", verdict="finding", version=V21),
    Fault("E17-station-resumes-without-energy", "E17.energy", StationResumesWithoutEnergy,
          (cs21_test(E17, RESUMES, "energy"),), "chargingState of the resumed transaction", verdict="finding",
          version=V21),
    Fault("E17-station-resumes-past-the-timeout", "E17.ended", StationResumesPastTheTimeout,
          (cs21_test(E17, ENDS17, "timeout-0"), cs21_test(E17, ENDS17, "timeout-expired")),
          "TransactionEvent", verdict="finding", version=V21),
    Fault("E17-csms-refuses-interrupted-transactions", "E17.answered", CsmsRefusesInterruptedTransactions,
          (csms21_test(E17, RESUMES, "energy"), csms21_test(E17, ENDS17, "timeout-0")),
          "answered the interrupted transaction's event with a CALLERROR", version=V21),
)
