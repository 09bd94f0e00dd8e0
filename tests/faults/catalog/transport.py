"""OCPP-J transport faults (CONN, RPC: suites/ocpp/transport played in 2.0.1): Basic auth,
identity, subprotocol, one CALL at a time, answers, schemas, CALLERROR codes. And one
conformant variant, ``StationAlreadyRegistered``."""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

from harness.ocpp.framing import Call, serialize
from harness.reference import ReferenceCsms, ReferenceStation
from harness.transport.ws import OcppConnection

from .authorization import C05
from .records import CONN, RPC, VERSION, Fault, csms_test, transport_test
from .smart_charging_limits import K12


async def send_call_unqueued(connection: OcppConnection, action: str, payload: dict[str, Any]) -> None:
    """A CALL that bypasses the RPC core's one-at-a-time queue (rpc.queue), awaiting its answer."""
    call = Call(str(uuid.uuid4()), action, payload)
    await connection.send_raw(serialize(call), reply_id=call.id)


class CsmsAcceptsAnyPassword(ReferenceCsms):
    """ws.wrong_password (security profile 1): the Basic-auth password is not checked."""

    def check_password(self, identity, password):
        return True


class CsmsAcceptsAnyIdentity(ReferenceCsms):
    """ws.unknown_identity (a SHOULD in every version): a charging station identity the CSMS does not know is
    connected."""

    def accepts_identity(self, identity):
        return True


class CsmsServesWithoutSubprotocol(ReferenceCsms):
    """ws.no_subprotocol: offered no subprotocol at all, the CSMS completes the handshake and serves the
    connection in its own version."""

    async def start(self, host="127.0.0.1", port=0):
        serve = self.server._serve

        async def serve_anyway(ws):
            ws.protocol.subprotocol = ws.subprotocol or self.versions[0].subprotocol
            await serve(ws)

        self.server._serve = serve_anyway
        return await super().start(host, port)


class CsmsPipelinesDataTransfer(ReferenceCsms):
    """rpc.one_at_a_time: its DataTransfer goes out while its previous CALL is still unanswered."""

    async def act_data_transfer(self, vendor_id, message_id=None, data=None, station=None):
        payload = {"vendorId": vendor_id} | ({"messageId": message_id} if message_id is not None else {})
        self.background.spawn(send_call_unqueued(self.session(station).connection, "DataTransfer", payload))


class CsmsNeverAnswersHeartbeat(ReferenceCsms):
    """rpc.answered: a Heartbeat CALL is never answered (the harness must give up after the call timeout)."""

    async def on_Heartbeat(self, session, payload):
        await asyncio.Event().wait()


class CsmsBootsWithZeroInterval(ReferenceCsms):
    """CONN.interval: BootNotificationResponse carries a heartbeat interval that is not positive."""

    heartbeat_interval = 0


class CsmsHeartbeatWithoutTime(ReferenceCsms):
    """rpc.schema: HeartbeatResponse lacks its required currentTime (the schema check must blame the SUT).

    The reference core refuses to send a payload that breaks its schema (a HarnessError), so this
    stand-in turns its own schema check off, as a CSMS that never validates its answers would.
    """

    def on_Heartbeat(self, session, payload):
        session.connection.endpoint.validate = False
        return {}


class CsmsBootsWithLocalTime(ReferenceCsms):
    """rpc.schema / format date-time (RFC 3339): BootNotificationResponse currentTime without a zone."""

    def on_BootNotification(self, session, payload):
        session.connection.endpoint.validate = False
        return super().on_BootNotification(session, payload) | {"currentTime": "2024-01-01T12:00:00"}


class StationPipelinesStatusDuringBoot(ReferenceStation):
    """rpc.one_at_a_time: a StatusNotification goes out while the BootNotification is unanswered."""

    async def boot(self):
        boot = self.background.spawn(super().boot())
        while self.connection.endpoint.in_flight is None and not boot.done():  # BootNotification out first
            await asyncio.sleep(0)
        evse = self.profile.evses[0]
        await send_call_unqueued(self.connection, "StatusNotification",
                                 self.status_payload(evse.id, evse.connectors[0], "Available"))
        return await boot


class StationAnswersWithV16ErrorCode(ReferenceStation):
    """ocpp.errors.known: a schema-invalid CALL is answered with the 1.6 code FormationViolation on 2.x."""

    async def connect(self, csms_url, *, boot=True, offered=None):
        handshake = await super().connect(csms_url, boot=False, offered=offered)
        if handshake.connection is not None:  # patched before any frame is read, then booted as usual
            handshake.connection.endpoint.payload_error_code = lambda problems: "FormationViolation"
        if boot and handshake.subprotocol is not None:
            await self.boot()
        return handshake


class StationAlreadyRegistered(ReferenceStation):
    """NOT a fault: a station registered before this test reconnects without booting (it need not boot
    again). A test that needs its boot must restart it with Reset, never blame it."""

    first_connection = True

    async def connect(self, csms_url, *, boot=True, offered=None):
        if self.first_connection:
            self.first_connection, boot = False, False
        return await super().connect(csms_url, boot=boot, offered=offered)


class CsmsAnswersChargingLimitsWithAStatus(ReferenceCsms):
    """K12: NotifyChargingLimit is answered with a status the (empty) response does not have."""

    def on_NotifyChargingLimit(self, session, payload):
        session.connection.endpoint.validate = False
        return {"status": "Accepted"}


FAULTS: tuple[Fault, ...] = (
    Fault("csms-accepts-any-password", "ws.wrong_password", CsmsAcceptsAnyPassword,
          (transport_test(CONN, "test_wrong_password_is_refused", "csms", VERSION),),
          "[ws.wrong_password] the server upgraded a wrong password"),
    Fault("csms-accepts-any-identity", "ws.unknown_identity", CsmsAcceptsAnyIdentity,
          (transport_test(CONN, "test_unknown_identity_is_refused_with_404", "csms", VERSION),),
          "[ws.unknown_identity] the server upgraded an unknown identity", verdict="finding"),
    Fault("csms-serves-without-subprotocol", "ws.no_subprotocol", CsmsServesWithoutSubprotocol,
          (transport_test(CONN, "test_csms_serves_no_connection_that_offered_no_subprotocol", "csms", VERSION),),
          "[ws.no_subprotocol] the CSMS answered a CALL on a connection without a subprotocol"),
    Fault("csms-pipelines-calls", "rpc.one_at_a_time", CsmsPipelinesDataTransfer,
          (transport_test(RPC, "test_csms_waits_for_an_answer_before_its_next_call", "csms", VERSION),),
          "[rpc.one_at_a_time] the SUT sent CALLs while its RequestStartTransaction was unanswered"),
    Fault("csms-boots-with-zero-interval", "CONN.interval", CsmsBootsWithZeroInterval,
          (transport_test(CONN, "test_boot_is_accepted", "csms", VERSION),),
          "[CONN.interval] the BootNotification answer's interval is not positive"),
    Fault("csms-heartbeat-without-time", "rpc.schema", CsmsHeartbeatWithoutTime,
          (csms_test(C05, "test_csms_survives_a_rejected_remote_start"),),
          "[rpc.schema] Heartbeat response breaks its schema"),
    Fault("csms-boots-with-local-time", "rpc.schema", CsmsBootsWithLocalTime,
          (transport_test(CONN, "test_boot_is_accepted", "csms", VERSION),),
          "currentTime: '2024-01-01T12:00:00' is not a 'date-time'"),
    Fault("csms-never-answers-heartbeat", "rpc.answered", CsmsNeverAnswersHeartbeat,
          (csms_test(C05, "test_csms_survives_a_rejected_remote_start"),),
          "[rpc.answered] no answer to Heartbeat within"),
    Fault("station-pipelines-during-boot", "rpc.one_at_a_time", StationPipelinesStatusDuringBoot,
          (transport_test(RPC, "test_station_waits_for_the_boot_answer", "cs", VERSION),),
          "[rpc.one_at_a_time] the SUT sent CALLs while its BootNotification was unanswered"),
    Fault("station-answers-with-v16-error-code", "ocpp.errors.known", StationAnswersWithV16ErrorCode,
          (transport_test(RPC, "test_malformed_call_is_refused_with_the_code_for_its_fault", "cs", VERSION,
                          "missing"),),
          "[ocpp.errors.known] CALLERROR code 'FormationViolation' does not exist in ocpp2.0.1"),
    Fault("csms-answers-charging-limits-with-a-status", "rpc.schema", CsmsAnswersChargingLimitsWithAStatus,
          (csms_test(K12, "test_external_limit_is_notified", "EMS"),),
          "NotifyChargingLimit response breaks its schema"),
)
