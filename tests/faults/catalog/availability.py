"""Availability faults (G01, G03, G04): stations that do not report or answer a change of availability as they
should, and CSMSs that send another change than asked or refuse a status report."""

from __future__ import annotations

from harness.reference import ReferenceCsms, ReferenceStation

from .records import Fault, cs_test, csms_test


def _ends_what_runs(station, answer: dict) -> bool:
    """A Scheduled change: the station ends its running transactions at once (True), against the text."""
    if answer["status"] != "Scheduled":
        return False
    for state in station.evses.values():
        if state.busy:
            station.background.spawn(station.end_transaction(state, "AbnormalCondition", "Other"))
    return True


class StationReportsNoOccupied(ReferenceStation):
    """G01: the cable plugged in is not reported (no StatusNotification Occupied)."""

    def status_payload(self, evse_id, connector_id, status):
        return super().status_payload(evse_id, connector_id, "Available" if status == "Occupied" else status)


class CsmsRefusesOccupied(ReferenceCsms):
    """G01: a StatusNotification Occupied is answered with a CALLERROR."""

    def on_StatusNotification(self, session, payload):
        if payload.get("connectorStatus") == "Occupied":
            raise ValueError("occupied connectors are not taken")
        return super().on_StatusNotification(session, payload)


class StationReportsNoChange(ReferenceStation):
    """G03/G04: a change of availability is Accepted, and nothing is reported."""

    async def _report(self, changed):
        return None


class StationAcceptsUnknownEvses(ReferenceStation):
    """G03: a change of an EVSE the station does not have is Accepted."""

    def on_ChangeAvailability(self, session, payload):
        if payload.get("evse", {}).get("id", 0) not in self.evses and "evse" in payload:
            return {"status": "Accepted"}
        return super().on_ChangeAvailability(session, payload)


class StationChangesAtOnceDuringTransactions(ReferenceStation):
    """G03/G04: Inoperative during a transaction is Accepted (and the transaction ends at once)."""

    def on_ChangeAvailability(self, session, payload):
        answer = super().on_ChangeAvailability(session, payload)
        return {"status": "Accepted"} if _ends_what_runs(self, answer) else answer


class StationEndsTransactionsWhenInoperative(ReferenceStation):
    """G04: the station made Inoperative during a transaction answers Scheduled but ends the transaction at once."""

    def on_ChangeAvailability(self, session, payload):
        answer = super().on_ChangeAvailability(session, payload)
        _ends_what_runs(self, answer)
        return answer


class StationSchedulesIdleChanges(ReferenceStation):
    """G04: a change of the idle station is answered Scheduled."""

    def on_ChangeAvailability(self, session, payload):
        answer = super().on_ChangeAvailability(session, payload)
        return {"status": "Scheduled"} if "evse" not in payload and answer["status"] == "Accepted" else answer


class CsmsChangesTheWholeStation(ReferenceCsms):
    """G03: the CSMS leaves out the EVSE its operator named (it changes the whole station)."""

    async def act_change_availability(self, operational_status, evse=None, station=None):
        await super().act_change_availability(operational_status, None, station)


class StationReportsTheLockOfTheStation(ReferenceStation):
    """G05: the failed lock is reported without its EVSE and connector."""

    async def call(self, action, payload):
        if action == "NotifyEvent":
            payload = payload | {"eventData": [d | {"component": {"name": d["component"]["name"]}}
                                               for d in payload["eventData"]]}
        return await super().call(action, payload)


class CsmsRefusesNotifyEvent(ReferenceCsms):
    """G05: a NotifyEventRequest is answered with a CALLERROR."""

    def on_NotifyEvent(self, session, payload):
        raise ValueError("events are not taken")


class StationNeverBeats(ReferenceStation):
    """G02: no Heartbeat, whatever the interval."""

    async def _heartbeat(self, connection):
        return None

    async def _unsolicited_heartbeats(self):
        return None


class CsmsRefusesHeartbeats(ReferenceCsms):
    """G02: a Heartbeat is answered with a CALLERROR."""

    def on_Heartbeat(self, session, payload):
        raise ValueError("no time for that")


class StationStartsOnInoperativeEvses(ReferenceStation):
    """G03/G04: an Inoperative EVSE (or station) still accepts a remote start."""

    def _remote_start_usable(self, state):
        return True


class StationSchedulesNeedlessChanges(ReferenceStation):
    """G03: Operative for an EVSE already operative is answered Scheduled, though nothing runs."""

    def on_ChangeAvailability(self, session, payload):
        answer = super().on_ChangeAvailability(session, payload)
        return {"status": "Scheduled"} if payload["operationalStatus"] == "Operative" else answer


class StationStartsWhenInoperative(ReferenceStation):
    """G04: a station made Inoperative still accepts remote starts on its EVSEs."""

    def _remote_start_usable(self, state):
        return not state.faulted and (state.operative or not self.station_operative)


class StationSchedulesOperativeStations(ReferenceStation):
    """G04: Operative for a station already operative is answered Scheduled, though nothing runs."""

    def on_ChangeAvailability(self, session, payload):
        idle = self.station_operative and payload["operationalStatus"] == "Operative" and "evse" not in payload
        answer = super().on_ChangeAvailability(session, payload)
        return {"status": "Scheduled"} if idle else answer


G02, G05 = "availability/test_G02.py", "availability/test_G05.py"
G01, G03, G04 = "availability/test_G01.py", "availability/test_G03.py", "availability/test_G04.py"


FAULTS: tuple[Fault, ...] = (
    Fault("G02-station-never-beats", "G02.beats", StationNeverBeats,
          (cs_test(G02, "test_heartbeat_within_the_interval"),), "no Heartbeat within", verdict="finding"),
    Fault("G02-csms-refuses-heartbeats", "G02.answered", CsmsRefusesHeartbeats,
          (csms_test(G02, "test_heartbeat_is_answered"),), "answered the Heartbeat with a CALLERROR", verdict="finding"),
    Fault("G05-station-reports-the-lock-of-the-station", "G05.reported", StationReportsTheLockOfTheStation,
          (cs_test(G05, "test_lock_failure_is_reported"),), "NotifyEvent of the lock", verdict="finding"),
    Fault("G05-csms-refuses-notify-event", "G05.answered", CsmsRefusesNotifyEvent,
          (csms_test(G05, "test_lock_failure_is_reported"),), "answered the NotifyEventRequest with a CALLERROR"),
    Fault("G01-station-reports-no-occupied", "G01.occupied", StationReportsNoOccupied,
          (cs_test(G01, "test_cable_plugged_in_and_out"),), "StatusNotification", verdict="finding"),
    Fault("G01-csms-refuses-occupied", "availability2.status_answered", CsmsRefusesOccupied,
          (csms_test(G01, "test_cable_plugged_in_and_out"),), "answered a StatusNotification with a CALLERROR",
          verdict="finding"),
    Fault("G03-G04-station-reports-no-change", "availability2.reported", StationReportsNoChange,
          (cs_test(G03, "test_evse_made_inoperative_and_operative"),
           cs_test(G03, "test_connector_made_inoperative_and_operative"),
           cs_test(G04, "test_station_made_inoperative_and_operative")), "StatusNotification", verdict="finding"),
    Fault("G03-station-accepts-unknown-evses", "G03.unknown", StationAcceptsUnknownEvses,
          (cs_test(G03, "test_unknown_evse_is_rejected"),), "ChangeAvailabilityResponse status for EVSE",
          verdict="finding"),
    Fault("G03-station-changes-at-once-during-transactions", "G03.scheduled", StationChangesAtOnceDuringTransactions,
          (cs_test(G03, "test_evse_with_a_transaction_is_scheduled"),), "ChangeAvailabilityResponse status during",
          verdict="finding"),
    Fault("G03-csms-changes-the-whole-station", "availability2.request", CsmsChangesTheWholeStation,
          (csms_test(G03, "test_evse_made_inoperative_and_operative"),
           csms_test(G03, "test_connector_made_inoperative_and_operative")), "ChangeAvailabilityRequest"),
    Fault("G04-station-schedules-idle-changes", "availability2.accepted", StationSchedulesIdleChanges,
          (cs_test(G04, "test_station_made_inoperative_and_operative"),), "ChangeAvailabilityResponse status to",
          verdict="finding"),
    Fault("G04-station-ends-transactions-when-inoperative", "G04.scheduled", StationEndsTransactionsWhenInoperative,
          (cs_test(G04, "test_station_with_a_transaction_is_scheduled"),), "TransactionEvent", verdict="finding"),
    Fault("G03-station-starts-on-inoperative-evses", "G03.no_start", StationStartsOnInoperativeEvses,
          (cs_test(G03, "test_inoperative_evse_refuses_a_remote_start"),), "RequestStartTransactionResponse status",
          verdict="finding"),
    Fault("G04-station-starts-when-inoperative", "G04.no_start", StationStartsWhenInoperative,
          (cs_test(G04, "test_inoperative_station_refuses_a_remote_start"),), "RequestStartTransactionResponse status",
          verdict="finding"),
    Fault("G03-station-schedules-needless-changes", "G03.already", StationSchedulesNeedlessChanges,
          (cs_test(G03, "test_operative_evse_made_operative"),), "ChangeAvailabilityResponse status",
          verdict="finding"),
    Fault("G04-station-schedules-needless-changes", "G04.already", StationSchedulesOperativeStations,
          (cs_test(G04, "test_operative_station_made_operative"),), "ChangeAvailabilityResponse status",
          verdict="finding"),
)
