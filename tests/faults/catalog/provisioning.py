"""Provisioning faults (B01-B13): stations that boot, answer the device model or a Reset wrongly, and CSMSs that
answer boots otherwise than set or send what their operator did not ask."""

from __future__ import annotations

import asyncio

from harness.errors import HarnessError
from harness.reference import ReferenceCsms, ReferenceStation
from harness.transport.ws import CallErrorReply

from .records import V21, Fault, cs21_test, cs_test, csms21_test, csms_test


# ---------------------------------------------------------------------------------------------- B01
class StationReportsNothingAfterBooting(ReferenceStation):
    """B01: after an Accepted boot no connector's status is reported."""

    async def boot(self):
        self.boot_response = await self.call("BootNotification", self.boot_payload())
        return self.boot_response


class CsmsRefusesReportsAfterTheBoot(ReferenceCsms):
    """B01: the StatusNotifications that follow the boot are answered with a CALLERROR."""

    def on_StatusNotification(self, session, payload):
        if payload.get("connectorStatus") == "Available":
            raise ValueError("not yet")
        return super().on_StatusNotification(session, payload)


# ---------------------------------------------------------------------------------------------- B02, B03
class StationNeverBootsAgainWhenPending(ReferenceStation):
    """B02: answered Pending, the station never boots again."""

    async def _boot_again(self, connection, interval):
        return None


class StationNeverBootsAgainWhenRejected(ReferenceStation):
    """B03: answered Rejected, the station never boots again."""

    async def _boot_again(self, connection, interval):
        return None


class StationReportsWhilePending(ReferenceStation):
    """B02: answered Pending, the station reports its connectors all the same."""

    async def boot(self):
        evse = next(iter(self.evses.values())).evse
        return await _talking(self, await super().boot(), "StatusNotification",
                              self.status_payload(evse.id, evse.connectors[0], "Available"))


class StationRefusesQueriesWhilePending(ReferenceStation):
    """B02: answered Pending, the station refuses the CSMS's GetVariables (SecurityError) until it is accepted."""

    async def dispatch(self, session, call):
        if call.action == "GetVariables" and (self.boot_response or {}).get("status") == "Pending":
            raise CallErrorReply("SecurityError", "not accepted yet")
        return await super().dispatch(session, call)


class CsmsIgnoresAPendingRegistration(ReferenceCsms):
    """B02: set to answer Pending, the CSMS accepts every boot all the same."""

    async def act_set_registration(self, status):
        if status != "Pending":
            await super().act_set_registration(status)


class CsmsIgnoresARejectedRegistration(ReferenceCsms):
    """B03: set to answer Rejected, the CSMS accepts every boot all the same."""

    async def act_set_registration(self, status):
        if status != "Rejected":
            await super().act_set_registration(status)


class CsmsAnswersPendingStations(ReferenceCsms):
    """B02: a station it answered Pending has its StatusNotification answered as if it were accepted."""

    def registration_answered(self, session, status):
        super().registration_answered(session, "Accepted" if status == "Pending" else status)


class CsmsAnswersRejectedStations(ReferenceCsms):
    """B03: a station it answered Rejected has its StatusNotification answered as if it were accepted."""

    def registration_answered(self, session, status):
        super().registration_answered(session, "Accepted" if status == "Rejected" else status)


class StationReportsWhileRejected(ReferenceStation):
    """B03: answered Rejected, the station sends a Heartbeat all the same."""

    async def boot(self):
        return await _talking(self, await super().boot(), "Heartbeat", {})


async def _talking(station, response: dict, action: str, payload: dict) -> dict:
    """Not accepted, the station sends ``action`` all the same."""
    if response.get("status") != "Accepted":
        await station.call(action, payload)
    return response


# ---------------------------------------------------------------------------------------------- B04
class StationForgetsWhatChangedOffline(ReferenceStation):
    """B04: a status that changed while offline is never reported."""

    async def _report_missed(self, connection):
        self.unreported = {}


class CsmsRefusesLateReports(ReferenceCsms):
    """B04: a StatusNotification sent after an outage (a connector now Occupied) is answered with a CALLERROR."""

    def on_StatusNotification(self, session, payload):
        if payload.get("connectorStatus") == "Occupied":
            raise ValueError("too late")
        return super().on_StatusNotification(session, payload)


# ---------------------------------------------------------------------------------------------- B05
class StationDropsSetResults(ReferenceStation):
    """SetVariables: only the first element gets a result."""

    def on_SetVariables(self, session, payload):
        answer = super().on_SetVariables(session, payload)
        return {"setVariableResult": answer["setVariableResult"][:1]}


class StationSetsTarget(ReferenceStation):
    """SetVariables: a result names attributeType Target for an element that named none."""

    def on_SetVariables(self, session, payload):
        answer = super().on_SetVariables(session, payload)
        return {"setVariableResult": [r | {"attributeType": r.get("attributeType", "Target")}
                                      for r in answer["setVariableResult"]]}


class StationForgetsWhatItSet(ReferenceStation):
    """SetVariables: Accepted, but the value is not kept (GetVariables reads the old one)."""

    def on_SetVariables(self, session, payload):
        kept = dict(self.variables)
        answer = super().on_SetVariables(session, payload)
        self.variables = kept
        return answer


class CsmsSetsAnotherValue(ReferenceCsms):
    """SetVariables: the CSMS sends another value than its operator asked."""

    async def act_set_variables(self, set_variable_data, station=None):
        changed = [d | {"attributeValue": d["attributeValue"] + "0"} for d in set_variable_data]
        await super().act_set_variables(changed, station)


# ---------------------------------------------------------------------------------------------- B06
class StationGetsWithoutValue(ReferenceStation):
    """GetVariables: an Accepted result without its attributeValue."""

    def on_GetVariables(self, session, payload):
        answer = super().on_GetVariables(session, payload)
        return {"getVariableResult": [{k: v for k, v in r.items() if k != "attributeValue"}
                                      for r in answer["getVariableResult"]]}


class StationGetsOtherType(ReferenceStation):
    """GetVariables: a result names attributeType MaxSet whatever its element named."""

    def on_GetVariables(self, session, payload):
        answer = super().on_GetVariables(session, payload)
        return {"getVariableResult": [r | {"attributeType": "MaxSet"} for r in answer["getVariableResult"]]}


class CsmsGetsLess(ReferenceCsms):
    """GetVariables: the CSMS leaves out the last variable its operator asked for."""

    async def act_get_variables(self, get_variable_data, station=None):
        await super().act_get_variables(get_variable_data[:-1] or get_variable_data, station)


# ---------------------------------------------------------------------------------------------- B07
class StationReportsAnotherRequest(ReferenceStation):
    """GetBaseReport: the NotifyReports carry another requestId than the request's."""

    def on_GetBaseReport(self, session, payload):
        return super().on_GetBaseReport(session, payload | {"requestId": payload["requestId"] + 1})


class StationReportsWithoutCharacteristics(ReferenceStation):
    """NotifyReport: variables reported without their variableCharacteristics."""

    def report_data(self, component, name):
        return {k: v for k, v in super().report_data(component, name).items() if k != "variableCharacteristics"}


class CsmsAsksForTheFullInventory(ReferenceCsms):
    """GetBaseReport: the CSMS asks for FullInventory whatever its operator chose."""

    async def act_get_base_report(self, report_base, request_id=None, station=None):
        await super().act_get_base_report("FullInventory", request_id, station)


# ---------------------------------------------------------------------------------------------- B08
class StationReportsEverything(ReferenceStation):
    """GetReport: the whole device model is reported whatever was asked."""

    def on_GetReport(self, session, payload):
        return super().on_GetReport(session, {k: v for k, v in payload.items() if k != "componentVariable"})


class StationReportsUnknownComponentsAccepted(ReferenceStation):
    """GetReport: a report of nothing is Accepted (and nothing follows), not EmptyResultSet."""

    def on_GetReport(self, session, payload):
        answer = super().on_GetReport(session, payload)
        return {"status": "Accepted"} if answer["status"] == "EmptyResultSet" else answer


class CsmsAsksForAnotherComponent(ReferenceCsms):
    """GetReport: the CSMS asks for another component than its operator chose."""

    async def act_get_report(self, component_variable=None, component_criteria=None, request_id=None, station=None):
        await super().act_get_report([{"component": {"name": "AuthCtrlr"}}], component_criteria, request_id, station)


# ---------------------------------------------------------------------------------------------- B09
class StationRejectsNetworkProfiles(ReferenceStation):
    """SetNetworkProfile: every profile is Rejected, valid or not."""

    def on_SetNetworkProfile(self, session, payload):
        return {"status": "Rejected"}


class CsmsStoresInAnotherSlot(ReferenceCsms):
    """SetNetworkProfile: the CSMS sends the profile for another slot than its operator asked."""

    async def act_set_network_profile(self, configuration_slot, connection_data, station=None):
        await super().act_set_network_profile(configuration_slot + 1, connection_data, station)


# ---------------------------------------------------------------------------------------------- B11
class StationSchedulesIdleResets(ReferenceStation):
    """Reset of the idle station: answered Scheduled (it then restarts all the same)."""

    def on_Reset(self, session, payload):
        answer = super().on_Reset(session, payload)
        return {"status": "Scheduled"} if answer["status"] == "Accepted" else answer


class StationAcceptsResetsAndStays(ReferenceStation):
    """Reset of the station: Accepted, but it never restarts."""

    def on_Reset(self, session, payload):
        return {"status": "Accepted"}


class CsmsResetsOnIdle(ReferenceCsms):
    """Reset: the CSMS sends OnIdle whatever type its operator asked for."""

    async def act_reset(self, type, evse_id=None, station=None):
        await super().act_reset("OnIdle", evse_id, station)


# ---------------------------------------------------------------------------------------------- B12
class StationRejectsOnIdleDuringTransactions(ReferenceStation):
    """Reset OnIdle while a transaction runs: Rejected, not Scheduled."""

    def on_Reset(self, session, payload):
        answer = super().on_Reset(session, payload)
        return {"status": "Rejected"} if answer["status"] == "Scheduled" else answer


class StationResetsAtOnceOnIdle(ReferenceStation):
    """Reset OnIdle while a transaction runs: Scheduled, but the transaction is ended and the station restarts."""

    def on_Reset(self, session, payload):
        answer = super().on_Reset(session, payload)
        if answer["status"] == "Scheduled":
            self.scheduled_reset = None
            self.background.spawn(self._restart(payload.get("evseId"), "ScheduledReset"))
        return answer


class StationEndsResetTransactionsAsOther(ReferenceStation):
    """Immediate reset: the transaction ends with stoppedReason Other instead of ImmediateReset."""

    async def end_transaction(self, state, trigger, stopped_reason, id_token=None):
        reason = "Other" if stopped_reason == "ImmediateReset" else stopped_reason
        return await super().end_transaction(state, trigger, reason, id_token)


class CsmsAnswersRebootsWithAnError(ReferenceCsms):
    """BootNotification: a station that booted before on this CSMS is answered with a CALLERROR."""

    def on_BootNotification(self, session, payload):
        if payload.get("reason") == "RemoteReset":
            raise asyncio.InvalidStateError("not now")
        return super().on_BootNotification(session, payload)


class StationEndsTransactionsOnResumeReset(ReferenceStation):
    """B13: an ImmediateAndResume reset ends the running transactions as an Immediate one does."""

    def on_Reset(self, session, payload):
        if payload["type"] == "ImmediateAndResume":
            payload = {**payload, "type": "Immediate"}
        return super().on_Reset(session, payload)


class StationNeverResumes(ReferenceStation):
    """B13: after the restart the kept transaction is never reported resumed (no TxResumed event)."""

    async def call(self, action, payload):
        if action == "TransactionEvent" and payload.get("triggerReason") == "TxResumed":
            return {}
        return await super().call(action, payload)


class CsmsRefusesResumedTransactions(ReferenceCsms):
    """B13: the TransactionEvent of a resumed transaction is answered with a CALLERROR."""

    def on_TransactionEvent(self, session, payload):
        if payload["triggerReason"] == "TxResumed":
            raise NotImplementedError("TransactionEvent TxResumed")
        return super().on_TransactionEvent(session, payload)


class StationAcceptsResetsOfUnknownEvses(ReferenceStation):
    """B11: a Reset of an EVSE it does not have is Accepted (and nothing happens)."""

    def on_Reset(self, session, payload):
        if payload.get("evseId") is not None and payload["evseId"] not in self.evses:
            return {"status": "Accepted"}
        return super().on_Reset(session, payload)


class StationRejectsTargetReads(ReferenceStation):
    """B06: a read of an attributeType other than Actual is answered Rejected, not NotSupportedAttributeType."""

    def on_GetVariables(self, session, payload):
        answer = super().on_GetVariables(session, payload)
        for result in answer["getVariableResult"]:
            if result["attributeStatus"] == "NotSupportedAttributeType":
                result["attributeStatus"] = "Rejected"
        return answer


class StationIgnoresNetworkPriority(ReferenceStation):
    """B10: after the reboot the station connects where it first did, whatever NetworkConfigurationPriority says."""

    async def connect_by_priority(self):
        await self.connect(self.provisioning_home_url)


class StationRefusesNetworkPriorities(ReferenceStation):
    """B10: every NetworkConfigurationPriority but the one it has is Rejected."""

    def variable_fits(self, component, name, value):
        if (component, name) == ("OCPPCommCtrlr", "NetworkConfigurationPriority"):
            return value == self.variable(component, name)
        return super().variable_fits(component, name, value)


class StationKeepsTryingTheFirstProfile(ReferenceStation):
    """B10.FR.03: after a reboot the station tries the first entry of NetworkConfigurationPriority for ever, never the
    next one."""

    async def connect_by_priority(self):
        self.reconnects = False
        while True:
            try:
                if (await self.connect(self.priority_urls()[0])).connection is not None:
                    return
            except HarnessError:
                await asyncio.sleep(1)


class StationSkipsTheBootOnFallback(ReferenceStation):
    """B10.FR.10: connected with the next entry of NetworkConfigurationPriority, the station sends no
    BootNotification."""

    async def connect_by_priority(self):
        *first, last = self.priority_urls()
        for url in first:
            try:
                if (await self.connect(url)).connection is not None:
                    return
            except HarnessError:
                continue
        await self.connect(last, boot=False)


class CsmsReversesNetworkPriorities(ReferenceCsms):
    """B10: the operator's NetworkConfigurationPriority is sent in the reverse order."""

    async def act_set_variables(self, set_variable_data, station=None):
        reversed_data = [d | {"attributeValue": ",".join(reversed(d["attributeValue"].split(",")))}
                         if d["variable"]["name"] == "NetworkConfigurationPriority" else d for d in set_variable_data]
        await super().act_set_variables(reversed_data, station)


B10, FALLBACK = "provisioning/test_B10.py", "test_station_falls_back_to_the_next_profile"
B13 = "provisioning/test_B13.py"
RESUME = "test_reset_and_resume_keeps_the_transaction"
B01, B02, B03 = "provisioning/test_B01.py", "provisioning/test_B02.py", "provisioning/test_B03.py"
B04 = "provisioning/test_B04.py"
B05, B06, B07 = "provisioning/test_B05.py", "provisioning/test_B06.py", "provisioning/test_B07.py"
B08, B09 = "provisioning/test_B08.py", "provisioning/test_B09.py"
B11, B12 = "provisioning/test_B11.py", "provisioning/test_B12.py"


FAULTS: tuple[Fault, ...] = (
    Fault("B01-station-reports-nothing-after-booting", "B01.statuses", StationReportsNothingAfterBooting,
          (cs_test(B01, "test_station_reports_its_connectors_after_booting"),), "StatusNotification",
          verdict="finding"),
    Fault("B01-csms-refuses-reports-after-the-boot", "availability2.status_answered", CsmsRefusesReportsAfterTheBoot,
          (csms_test(B01, "test_csms_answers_the_reports_after_the_boot"),),
          "answered a StatusNotification after the boot with a CALLERROR", verdict="finding"),
    Fault("B02-station-never-boots-again-when-pending", "B02.boots_again", StationNeverBootsAgainWhenPending,
          (cs_test(B02, "test_pending_station_boots_again_and_waits"),), "did not boot again", verdict="finding"),
    Fault("B02-station-reports-while-pending", "B02.silent", StationReportsWhilePending,
          (cs_test(B02, "test_pending_station_boots_again_and_waits"),), "sent other CALLs before it was accepted",
          verdict="finding"),
    Fault("B02-station-refuses-queries-while-pending", "B02.answers", StationRefusesQueriesWhilePending,
          (cs_test(B02, "test_pending_station_answers_queries"),), "refused GetVariables"),
    Fault("B02-csms-ignores-a-pending-registration", "B02.registration", CsmsIgnoresAPendingRegistration,
          (csms_test(B02, "test_pending_station_is_queried_then_accepted"),
           csms_test(B02, "test_pending_station_report_is_refused")), "BootNotificationResponse status"),
    Fault("B02-csms-answers-pending-stations", "B02.security_error", CsmsAnswersPendingStations,
          (csms_test(B02, "test_pending_station_report_is_refused"),), "otherwise than with SecurityError"),
    Fault("B03-csms-ignores-a-rejected-registration", "B03.registration", CsmsIgnoresARejectedRegistration,
          (csms_test(B03, "test_rejected_station_report_is_refused_then_accepted"),), "BootNotificationResponse status"),
    Fault("B03-csms-answers-rejected-stations", "B03.security_error", CsmsAnswersRejectedStations,
          (csms_test(B03, "test_rejected_station_report_is_refused_then_accepted"),),
          "otherwise than with SecurityError"),
    Fault("B03-station-never-boots-again-when-rejected", "B03.boots_again", StationNeverBootsAgainWhenRejected,
          (cs_test(B03, "test_rejected_station_boots_again_and_waits"),), "did not boot again", verdict="finding"),
    Fault("B03-station-reports-while-rejected", "B03.silent", StationReportsWhileRejected,
          (cs_test(B03, "test_rejected_station_boots_again_and_waits"),), "sent other CALLs before it was accepted",
          verdict="finding"),
    Fault("B04-station-forgets-what-changed-offline", "B04.reported", StationForgetsWhatChangedOffline,
          (cs_test(B04, "test_status_changed_offline_is_reported"),), "StatusNotification", verdict="finding"),
    Fault("B04-csms-refuses-late-reports", "availability2.status_answered", CsmsRefusesLateReports,
          (csms_test(B04, "test_status_changed_offline_is_reported"),),
          "answered a StatusNotification with a CALLERROR", verdict="finding"),
    Fault("B05-station-drops-set-results", "variables.set_results", StationDropsSetResults,
          (cs_test(B05, "test_set_two_variables"),), "SetVariablesResponse results is wrong"),
    Fault("B05-station-sets-target", "variables.set_type", StationSetsTarget,
          (cs_test(B05, "test_set_one_variable"),), "SetVariablesResponse attributeType of OCPPCommCtrlr"),
    Fault("B05-station-forgets-what-it-set", "B05.read_back", StationForgetsWhatItSet,
          (cs_test(B05, "test_variable_set_reads_back"),), "HeartbeatInterval read back is wrong", verdict="finding"),
    Fault("B05-csms-sets-another-value", "B05.request", CsmsSetsAnotherValue,
          (csms_test(B05, "test_set_one_variable"),), "SetVariablesRequest"),
    Fault("B06-station-gets-without-value", "variables.get_value", StationGetsWithoutValue,
          (cs_test(B06, "test_get_one_variable"),), "an Accepted GetVariableResult has no attributeValue"),
    Fault("B06-station-gets-other-type", "variables.get_type", StationGetsOtherType,
          (cs_test(B06, "test_get_two_variables"),), "GetVariablesResponse attributeType of"),
    Fault("B06-csms-gets-less", "B06.request", CsmsGetsLess,
          (csms_test(B06, "test_get_two_variables"),), "GetVariablesRequest"),
    Fault("B07-station-reports-another-request", "B07.reported", StationReportsAnotherRequest,
          (cs_test(B07, "test_summary_report"),), "NotifyReport"),
    Fault("B07-station-reports-without-characteristics", "B07.characteristics", StationReportsWithoutCharacteristics,
          (cs_test(B07, "test_inventory_report", "FullInventory"),), "is reported without variableCharacteristics"),
    Fault("B07-csms-asks-for-the-full-inventory", "B07.request", CsmsAsksForTheFullInventory,
          (csms_test(B07, "test_summary_report"),), "GetBaseReportRequest"),
    Fault("B08-station-reports-everything", "B08.only_asked", StationReportsEverything,
          (cs_test(B08, "test_report_of_one_variable"),), "the report holds variables that were not asked for",
          verdict="finding"),
    Fault("B08-station-reports-unknown-components-accepted", "B08.empty", StationReportsUnknownComponentsAccepted,
          (cs_test(B08, "test_report_of_an_unknown_component"),), "GetReportResponse status for an unknown component",
          verdict="finding"),
    Fault("B08-csms-asks-for-another-component", "B08.request", CsmsAsksForAnotherComponent,
          (csms_test(B08, "test_report_of_one_variable"),), "GetReportRequest"),
    Fault("B09-station-rejects-network-profiles", "B09.stored", StationRejectsNetworkProfiles,
          (cs_test(B09, "test_network_profile_is_stored"),), "SetNetworkProfileResponse status of a valid profile",
          verdict="finding"),
    Fault("B09-csms-stores-in-another-slot", "B09.request", CsmsStoresInAnotherSlot,
          (csms_test(B09, "test_network_profile_is_stored"),), "SetNetworkProfileRequest"),
    Fault("B10-station-keeps-trying-the-first-profile", "B10.next_entry", StationKeepsTryingTheFirstProfile,
          (cs_test(B10, FALLBACK),), "did not connect with the next entry"),
    Fault("B10-station-skips-the-boot-on-fallback", "B10.boots", StationSkipsTheBootOnFallback,
          (cs_test(B10, FALLBACK),), "BootNotification"),
    Fault("B11-station-schedules-idle-resets", "reset2.idle", StationSchedulesIdleResets,
          (cs_test(B11, "test_reset_of_the_idle_station", "Immediate"),), "ResetResponse status to"),
    Fault("B11-station-accepts-resets-and-stays", "restart.boots", StationAcceptsResetsAndStays,
          (cs_test(B11, "test_reset_of_the_idle_station", "Immediate"),), "BootNotification"),
    Fault("B11-csms-resets-on-idle", "reset2.request", CsmsResetsOnIdle,
          (csms_test(B11, "test_reset_of_the_idle_station", "Immediate"),), "ResetRequest"),
    Fault("B11-csms-answers-reboots-with-an-error", "reset2.boot_answered", CsmsAnswersRebootsWithAnError,
          (csms_test(B11, "test_reset_of_the_idle_station", "Immediate"),), "restarted station's BootNotification"),
    Fault("B12-station-rejects-on-idle-during-transactions", "B12.scheduled", StationRejectsOnIdleDuringTransactions,
          (cs_test(B12, "test_reset_on_idle_waits_for_the_transaction", "station"),), "ResetResponse status during"),
    Fault("B12-station-resets-at-once-on-idle", "B12.waits", StationResetsAtOnceOnIdle,
          (cs_test(B12, "test_reset_on_idle_waits_for_the_transaction", "station"),
           cs_test(B12, "test_reset_on_idle_waits_for_the_transaction", "evse")), "TransactionEvent"),
    Fault("B12-station-ends-reset-transactions-as-other", "B12.immediate", StationEndsResetTransactionsAsOther,
          (cs_test(B12, "test_immediate_reset_ends_the_transaction", "station"),
           cs_test(B12, "test_immediate_reset_ends_the_transaction", "evse")), "stoppedReason of the transaction",
          verdict="finding"),
    Fault("B13-station-ends-transactions-on-resume-reset", "B13.kept", StationEndsTransactionsOnResumeReset,
          (cs21_test(B13, RESUME),), "the ImmediateAndResume reset ended the transaction", verdict="finding",
          version=V21),
    Fault("B13-station-never-resumes", "B13.resumed", StationNeverResumes, (cs21_test(B13, RESUME),),
          "TransactionEvent", verdict="finding", version=V21),
    Fault("B13-csms-refuses-resumed-transactions", "B13.answered", CsmsRefusesResumedTransactions,
          (csms21_test(B13, RESUME),), "the CSMS answered the resumed transaction's TransactionEvent with a CALLERROR",
          version=V21),
    Fault("B11-station-accepts-resets-of-unknown-evses", "B11.unknown", StationAcceptsResetsOfUnknownEvses,
          (cs_test(B11, "test_reset_of_an_unknown_evse"),), "ResetResponse status for an EVSE", verdict="finding"),
    Fault("B06-station-rejects-target-reads", "B06.other_type", StationRejectsTargetReads,
          (cs_test(B06, "test_get_a_target_value"),), "GetVariableResult status of HeartbeatInterval's Target",
          verdict="finding"),
    Fault("B10-station-ignores-network-priority", "B10.first_entry", StationIgnoresNetworkPriority,
          (cs_test(B10, "test_station_connects_with_the_first_profile"),),
          "did not connect with the first entry of NetworkConfigurationPriority"),
    Fault("B10-station-refuses-network-priorities", "B10.priority_set", StationRefusesNetworkPriorities,
          (cs_test(B10, "test_station_connects_with_the_first_profile"),),
          "SetVariableResult of NetworkConfigurationPriority", verdict="finding"),
    Fault("B10-csms-reverses-network-priorities", "B10.request", CsmsReversesNetworkPriorities,
          (csms_test(B10, "test_csms_migrates_the_station"),), "SetVariablesRequest"),
)
