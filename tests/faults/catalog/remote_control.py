"""Remote control faults (F01-F06)."""

from __future__ import annotations

from harness.reference import ReferenceCsms, ReferenceStation

from .records import V21, Fault, cs21_test, cs_test, csms21_test, csms_test


class StationUnlocksUnknownConnectors(ReferenceStation):
    """UnlockConnector: a connector the station does not have is answered Unlocked, not UnknownConnector."""

    def on_UnlockConnector(self, session, payload):
        answer = super().on_UnlockConnector(session, payload)
        return {"status": "Unlocked"} if answer["status"] == "UnknownConnector" else answer


class StationUnlocksDuringTransactions(ReferenceStation):
    """UnlockConnector: the cable is unlocked while an authorized transaction runs on it."""

    def on_UnlockConnector(self, session, payload):
        answer = super().on_UnlockConnector(session, payload)
        return {"status": "Unlocked"} if answer["status"] == "OngoingAuthorizedTransaction" else answer


class StationAuthorizesEveryRemoteStart(ReferenceStation):
    """RequestStartTransaction: every token is authorized first, a Central one and with AuthorizeRemoteStart
    false too (F01.FR.02 says not)."""

    async def _remote_start2x(self, state, id_token, remote_start_id):
        if (await self.authorize(id_token)).get("status") == "Accepted" or id_token.get("type") == "Central":
            await self.start_transaction(state, "RemoteStart", id_token, remote_start_id=remote_start_id)


class StationNeverAuthorizesRemoteStarts(ReferenceStation):
    """RequestStartTransaction: AuthorizeRemoteStart true is ignored, the token is never authorized first."""

    async def _remote_start2x(self, state, id_token, remote_start_id):
        await self.start_transaction(state, "RemoteStart", id_token, remote_start_id=remote_start_id)


class StationDropsRemoteStartId(ReferenceStation):
    """A remotely started transaction's TransactionEvents never carry the remoteStartId."""

    async def start_transaction(self, state, trigger, id_token, remote_start_id=None):
        await super().start_transaction(state, trigger, id_token)


class CsmsStartsOnTheNextEvse(ReferenceCsms):
    """RequestStartTransaction: the operator's EVSE plus one is sent."""

    async def act_request_start_transaction(self, evse_id=None, id_token=None, remote_start_id=None, station=None):
        await super().act_request_start_transaction(evse_id + 1 if evse_id else evse_id, id_token, remote_start_id,
                                                    station)


class CsmsStartsWithItsOwnToken(ReferenceCsms):
    """RequestStartTransaction: the operator's idToken is replaced by a Central one of the CSMS's making."""

    async def act_request_start_transaction(self, evse_id=None, id_token=None, remote_start_id=None, station=None):
        await super().act_request_start_transaction(evse_id, None, remote_start_id, station)


class StationRefusesRemoteStops(ReferenceStation):
    """RequestStopTransaction of a running transaction is Rejected."""

    def on_RequestStopTransaction(self, session, payload):
        super().on_RequestStopTransaction(session, payload)
        return {"status": "Rejected"}


class StationEndsWithoutReason(ReferenceStation):
    """A remotely stopped transaction's Ended event has no stoppedReason."""

    def _event(self, state, event_type, trigger, **info):
        if trigger == "RemoteStop":
            info.pop("stoppedReason", None)
        return super()._event(state, event_type, trigger, **info)


class CsmsStopsAnotherTransaction(ReferenceCsms):
    """RequestStopTransaction: a transactionId other than the operator's is sent."""

    async def act_request_stop_transaction(self, transaction_id, station=None):
        await super().act_request_stop_transaction(transaction_id + "-other", station)


class StationAuthorizesDespiteTheSetting(ReferenceStation):
    """AuthorizeRemoteStart false is ignored: a remote start's token that is not Central is authorized first."""

    async def _remote_start2x(self, state, id_token, remote_start_id):
        if id_token.get("type") != "Central" and (await self.authorize(id_token)).get("status") != "Accepted":
            return
        await self.start_transaction(state, "RemoteStart", id_token, remote_start_id=remote_start_id)


class StationNamesTheRemoteStartLate(ReferenceStation):
    """A remotely started transaction's Started event lacks the remoteStartId; an Updated event brings it."""

    async def start_transaction(self, state, trigger, id_token, remote_start_id=None):
        await super().start_transaction(state, trigger, id_token)
        if remote_start_id is not None and state.transaction is not None:
            await self.call("TransactionEvent", self._event(state, "Updated", trigger, chargingState="Idle",
                                                            remoteStartId=remote_start_id))


class StationEndsRemoteStopsAsStopAuthorized(ReferenceStation):
    """A remotely stopped transaction ends with triggerReason StopAuthorized, not RemoteStop."""

    def _event(self, state, event_type, trigger, **info):
        return super()._event(state, event_type, "StopAuthorized" if trigger == "RemoteStop" else trigger, **info)


class StationGivesAnotherStopReason(ReferenceStation):
    """A remotely stopped transaction's stoppedReason is Other, not Remote."""

    def _event(self, state, event_type, trigger, **info):
        if trigger == "RemoteStop":
            info["stoppedReason"] = "Other"
        return super()._event(state, event_type, trigger, **info)


class StationTriggersNothing(ReferenceStation):
    """TriggerMessage is Accepted, and the message never follows."""

    async def _send_triggered2x(self, message, chosen, connector):
        return None


class StationTriggersPeriodicSamples(ReferenceStation):
    """A triggered MeterValues carries sampled values of context Sample.Periodic."""

    def _reading(self, state):
        reading = super()._reading(state)
        return reading | {"sampledValue": [v | {"context": "Sample.Periodic"} for v in reading["sampledValue"]]}


class CsmsTriggersHeartbeats(ReferenceCsms):
    """TriggerMessage: Heartbeat is asked for, whatever the operator chose."""

    async def act_trigger_message(self, requested_message, evse=None, custom_trigger=None, station=None):
        await super().act_trigger_message("Heartbeat", None, None, station)


class StationIgnoresTimeLimits(ReferenceStation):
    """F07: a transaction whose Started event was answered with transactionLimit.maxTime runs on past it."""

    async def _time_limited(self, state, tx, max_time):
        return None


class StationEndsTimeLimitedAsLocal(ReferenceStation):
    """F07: the transaction its time limit ends says stoppedReason Local, not TimeLimitReached."""

    async def end_transaction(self, state, trigger, stopped_reason, id_token=None):
        reason = "Local" if stopped_reason == "TimeLimitReached" else stopped_reason
        return await super().end_transaction(state, trigger, reason, id_token)


class CsmsForgetsTransactionLimits(ReferenceCsms):
    """F07: the operator's limit of a remote start never reaches the answer to the Started event."""

    def limit_transactions_of(self, id_token, limit):
        return None


class StationIgnoresEnergyLimits(ReferenceStation):
    """F07: a transaction whose Started event was answered with transactionLimit.maxEnergy takes energy past it."""

    async def _energy_limit_reached(self, state, tx):
        tx.energy_limit = None


class CsmsDoublesEnergyLimits(ReferenceCsms):
    """F07: the operator's maxEnergy of a remote start reaches the answer to the Started event doubled."""

    def limit_transactions_of(self, id_token, limit):
        doubled = {k: 2 * v if k == "maxEnergy" else v for k, v in limit.items()}
        return super().limit_transactions_of(id_token, doubled)


class StationStartsOnUnknownEvses(ReferenceStation):
    """F02: a remote start on an EVSE it does not have is Accepted (and nothing starts)."""

    def on_RequestStartTransaction(self, session, payload):
        if payload.get("evseId") is not None and payload["evseId"] not in self.evses:
            return {"status": "Accepted"}
        return super().on_RequestStartTransaction(session, payload)


class StationStartsOnFaultedEvses(ReferenceStation):
    """F02: a Faulted EVSE still accepts a remote start."""

    def _remote_start_usable(self, state):
        return self.connector_operative(state.evse.id, state.evse.connectors[0])


F07 = "remotecontrol/test_F07.py"
F01, F02, F03 = "remotecontrol/test_F01.py", "remotecontrol/test_F02.py", "remotecontrol/test_F03.py"
F04, F06 = "remotecontrol/test_F04.py", "remotecontrol/test_F06.py"
START_FIRST, CABLE_FIRST = "test_remote_start_before_the_cable", "test_remote_start_after_the_cable"
F05 = "remotecontrol/test_F05.py"


FAULTS: tuple[Fault, ...] = (
    Fault("F01-station-authorizes-central-tokens", "F01.central_not_authorized", StationAuthorizesEveryRemoteStart,
          (cs_test(F01, CABLE_FIRST),), "AuthorizeRequest for the Central token"),
    Fault("F01-station-drops-remote-start-id", "F01.remote_start_id", StationDropsRemoteStartId,
          (cs_test(F01, CABLE_FIRST),), "TransactionEvent"),
    Fault("F01-csms-starts-on-the-next-evse", "remote_start.request", CsmsStartsOnTheNextEvse,
          (csms_test(F01, CABLE_FIRST),), "RequestStartTransactionRequest"),
    Fault("F02-station-never-authorizes-remote-starts", "F02.authorized_first", StationNeverAuthorizesRemoteStarts,
          (cs_test(F02, START_FIRST, "true"),), "Authorize"),
    Fault("F02-station-authorizes-with-authorize-remote-start-false", "F02.not_authorized",
          StationAuthorizesDespiteTheSetting, (cs_test(F02, START_FIRST, "false"),),
          "AuthorizeRequest for the remote start's token"),
    Fault("F02-station-names-the-remote-start-late", "F02.next_event", StationNamesTheRemoteStartLate,
          (cs_test(F02, START_FIRST, "true"), cs_test(F02, START_FIRST, "false")), "remoteStartId of the first"),
    Fault("F02-csms-starts-with-its-own-token", "F02.request", CsmsStartsWithItsOwnToken,
          (csms_test(F02, START_FIRST, "true"), csms_test(F02, START_FIRST, "false")),
          "RequestStartTransactionRequest"),
    Fault("F03-station-refuses-remote-stops", "F03.accepted", StationRefusesRemoteStops,
          (cs_test(F03, "test_remote_stop_of_a_driver_transaction"),), "RequestStopTransactionResponse status"),
    Fault("F03-station-ends-without-reason", "F03.stopped_reason", StationEndsWithoutReason,
          (cs_test(F03, "test_remote_stop_of_a_driver_transaction"),), "has no stoppedReason"),
    Fault("F03-csms-stops-another-transaction", "F03.request", CsmsStopsAnotherTransaction,
          (csms_test(F03, "test_remote_stop_of_a_driver_transaction"),), "RequestStopTransactionRequest"),
    Fault("F04-station-ends-remote-stops-as-stop-authorized", "F04.ended", StationEndsRemoteStopsAsStopAuthorized,
          (cs_test(F04, "test_remote_stop_of_an_iso15118_transaction"),), "TransactionEvent Ended triggerReason",
          verdict="finding"),
    Fault("F04-station-gives-another-stop-reason", "F04.remote", StationGivesAnotherStopReason,
          (cs_test(F04, "test_remote_stop_of_an_iso15118_transaction"),), "TransactionEvent Ended stoppedReason",
          verdict="finding"),
    Fault("F06-station-triggers-nothing", "F06.follows", StationTriggersNothing,
          (cs_test(F06, "test_triggered_message_follows", "Heartbeat"),
           cs_test(F06, "test_triggered_meter_values_of_every_evse")), "the SUT did not send"),
    Fault("F06-station-triggers-periodic-samples", "F06.context", StationTriggersPeriodicSamples,
          (cs_test(F06, "test_triggered_message_follows", "MeterValues"),), "sampled values of another context",
          verdict="finding"),
    Fault("F06-csms-triggers-heartbeats", "F06.request", CsmsTriggersHeartbeats,
          (csms_test(F06, "test_triggered_message_follows", "MeterValues"),), "TriggerMessageRequest"),
    Fault("F05-station-unlocks-unknown-connectors", "F05.unknown_connector", StationUnlocksUnknownConnectors,
          (cs_test(F05, "test_unlock_of_an_unknown_connector", "connector"),
           cs_test(F05, "test_unlock_of_an_unknown_connector", "evse")), "UnlockConnectorResponse status for EVSE"),
    Fault("F07-station-ignores-time-limits", "F07.time_limit", StationIgnoresTimeLimits,
          (cs21_test(F07, "test_remote_start_with_a_time_limit"),), "TransactionEvent", verdict="finding",
          version=V21),
    Fault("F07-station-ends-time-limited-as-local", "F07.time_limit", StationEndsTimeLimitedAsLocal,
          (cs21_test(F07, "test_remote_start_with_a_time_limit"),),
          "stoppedReason of the transaction its limit ended", verdict="finding", version=V21),
    Fault("F07-csms-forgets-transaction-limits", "F07.limit", CsmsForgetsTransactionLimits,
          (csms21_test(F07, "test_remote_start_with_a_time_limit"),),
          "TransactionEventResponse transactionLimit of the Started event", verdict="finding", version=V21),
    Fault("F07-station-ignores-energy-limits", "F07.energy_limit", StationIgnoresEnergyLimits,
          (cs21_test(F07, "test_remote_start_with_an_energy_limit"),), "TransactionEvent", verdict="finding",
          version=V21),
    Fault("F07-csms-doubles-energy-limits", "F07.limit", CsmsDoublesEnergyLimits,
          (csms21_test(F07, "test_remote_start_with_an_energy_limit"),),
          "TransactionEventResponse transactionLimit of the Started event", verdict="finding", version=V21),
    Fault("F05-station-unlocks-during-transactions", "F05.ongoing", StationUnlocksDuringTransactions,
          (cs_test(F05, "test_unlock_during_an_authorized_transaction"),),
          "UnlockConnectorResponse status during the transaction is wrong"),
    Fault("F02-station-starts-on-unknown-evses", "F02.refused", StationStartsOnUnknownEvses,
          (cs_test(F02, "test_remote_start_on_an_unknown_evse"),), "RequestStartTransactionResponse status",
          verdict="finding"),
    Fault("F02-station-starts-on-faulted-evses", "F02.refused", StationStartsOnFaultedEvses,
          (cs_test(F02, "test_remote_start_on_a_faulted_evse"),), "RequestStartTransactionResponse status",
          verdict="finding"),
)
