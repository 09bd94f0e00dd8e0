"""The self-check fault catalog: deliberately faulty variants of the reference implementations.

Each fault is a small subclass of ``ReferenceCsms`` or ``ReferenceStation`` that overrides the
least code needed to break exactly ONE named rule, and a ``Fault`` record saying which suite
test(s) must catch it, with which verdict (*failed* for a MUST row, a passed test with a *finding*
naming the row for a SHOULD row: the SUT's fault, never *broken*) and
which words of the failure message show the intended reason. ``test_fault_catalog.py`` plays
each selection with the faulty class as the embedded SUT (``--embedded-sut catalog:<Class>``).

Importability: this folder is not a package (``tests/`` has no ``__init__.py``), so the module
is named ``catalog`` and the runs that load it get this folder on ``PYTHONPATH``; the pytest
run of this folder finds it through its own ``conftest.py`` (see there).
"""

from __future__ import annotations

import asyncio
import uuid
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from harness import clock
from harness.ocpp import totp
from harness.ocpp.framing import Call, serialize
from harness.reference import ReferenceCsms, ReferenceStation
from harness.reference.base import CsmsBase
from harness.reference.tokens import token_key
from harness.transport.ws import OcppConnection

MODULE = "catalog"      # the name this file is imported under, in every run (see above)
VERSION = "ocpp2.0.1"   # the faults are played in 2.0.1, in the role where the faulty side is the SUT


async def send_call_unqueued(connection: OcppConnection, action: str, payload: dict[str, Any]) -> None:
    """A CALL that bypasses the RPC core's one-at-a-time queue (rpc.queue), awaiting its answer."""
    call = Call(str(uuid.uuid4()), action, payload)
    await connection.send_raw(serialize(call), reply_id=call.id)


# ------------------------------------------------------------------------------------- CSMS faults
class CsmsAcceptsBlockedToken(ReferenceCsms):
    """Order of checks step 2: a blocked token is answered Accepted."""

    def id_token_info(self, session, id_token, *, current_tx=None):
        info = super().id_token_info(session, id_token, current_tx=current_tx)
        return info | {"status": "Accepted"} if info["status"] == "Blocked" else info


class CsmsChecksExpiredBeforeBlocked(ReferenceCsms):
    """Order of checks: Expired (step 3) is checked before Blocked (step 2)."""

    def id_token_info(self, session, id_token, *, current_tx=None):
        info = super().id_token_info(session, id_token, current_tx=current_tx)
        record = self.tokens.lookup(id_token)
        return info | {"status": "Expired"} if record is not None and record.expired else info


class CsmsIgnoresActiveTransactions(ReferenceCsms):
    """Order of checks step 4: a second transaction with a token already in a transaction is not answered
    ConcurrentTx."""

    def id_token_info(self, session, id_token, *, current_tx=None):
        return self.tokens.decide(id_token, station=session.identity, in_transaction=False,
                                  currents={e.current for e in self.profile.evses})


class CsmsDropsGroupIdToken(ReferenceCsms):
    """Authorization rule 5: the token's groupIdToken is left out of idTokenInfo."""

    def id_token_info(self, session, id_token, *, current_tx=None):
        info = super().id_token_info(session, id_token, current_tx=current_tx)
        info.pop("groupIdToken", None)
        return info


class CsmsTrustsTransactionEventTokens(ReferenceCsms):
    """Authorization rule 7: the token of a TransactionEvent is not checked again (always Accepted)."""

    def on_TransactionEvent(self, session, payload):
        answer = super().on_TransactionEvent(session, payload)
        if "idTokenInfo" in answer:
            answer["idTokenInfo"] = answer["idTokenInfo"] | {"status": "Accepted"}
        return answer


class CsmsRefusesItsOwnCentralToken(ReferenceCsms):
    """C05 remote start rule 1: the Central token the CSMS issued is answered Invalid in the TransactionEvent
    (the harness's station then ends the transaction: its Rejected to the remote stop is not the SUT's)."""

    def issued_by_us(self, session, id_token):
        return False


class CsmsRejectsUnknownVendor(ReferenceCsms):
    """DataTransfer: an unknown vendorId is answered Rejected instead of UnknownVendorId."""

    def on_DataTransfer(self, session, payload):
        answer = super().on_DataTransfer(session, payload)
        return {"status": "Rejected"} if answer["status"] == "UnknownVendorId" else answer


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


# ---------------------------------------------------------------------------------- station faults
class StationStartsForRejectedToken(ReferenceStation):
    """C01: the station ignores the status of AuthorizeResponse and charges a rejected token."""

    async def authorize(self, id_token):
        return await super().authorize(id_token) | {"status": "Accepted"}


class StationSendsEveryTokenAsIso14443(ReferenceStation):
    """C04 / C01.FR.01: the presented token goes out with another idToken type (a PIN as ISO14443)."""

    async def authorize(self, id_token):
        return await super().authorize(id_token | {"type": "ISO14443"})


class StationLosesRemoteStartId(ReferenceStation):
    """C05 remote start: the TransactionEvent of a remote start lacks the remoteStartId."""

    async def start_transaction(self, state, trigger, id_token, remote_start_id=None):
        await super().start_transaction(state, trigger, id_token)


class StationAcceptsRemoteStartOnUnknownEvse(ReferenceStation):
    """C05 remote start rule 2: a remote start on an EVSE the station does not have is Accepted."""

    def on_RequestStartTransaction(self, session, payload):
        if payload.get("evseId") is not None and payload["evseId"] not in self.evses:
            return {"status": "Accepted"}
        return super().on_RequestStartTransaction(session, payload)


class StationAcceptsRemoteStopButKeepsCharging(ReferenceStation):
    """F03: RequestStopTransaction is Accepted but the transaction never ends."""

    def on_RequestStopTransaction(self, session, payload):
        running = any(s.transaction and s.transaction.id == payload["transactionId"] for s in self.evses.values())
        return {"status": "Accepted" if running else "Rejected"}


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


# ------------------------------------------------ local list, offline, master pass, prepaid (C13-C17)
class CsmsSendsLocalListVersionZero(ReferenceCsms):
    """D01.FR.18: a SendLocalList at versionNumber 0 (the version that means "no list")."""

    async def act_send_local_list(self, update_type, entries, version_number=None, station=None):
        await super().act_send_local_list(update_type, entries, version_number=0, station=station)


class CsmsSendsFullListWithoutInfo(ReferenceCsms):
    """Moves "Local list": a Full update whose entries lack their idTokenInfo."""

    async def act_send_local_list(self, update_type, entries, version_number=None, station=None):
        bare = [{"id_token": entry["id_token"]} for entry in entries]
        await super().act_send_local_list(update_type, bare, version_number=version_number, station=station)


class StationAppliesStaleDifferentials(ReferenceStation):
    """D01.FR.19: a Differential update at a version not above the current one is applied (Accepted)."""

    def on_SendLocalList(self, session, payload):
        if payload["updateType"] == "Differential":
            self.local_list_version = payload["versionNumber"] - 1
        return super().on_SendLocalList(session, payload)


class StationForgetsItsListVersion(ReferenceStation):
    """D02.FR.01: GetLocalListVersion answers 0 whatever list is installed."""

    def on_GetLocalListVersion(self, session, payload):
        return {"versionNumber": 0}


class StationIgnoresItsLocalListOnline(ReferenceStation):
    """C14.FR.02: online, every presented token is asked about, also one the local list holds as Accepted."""

    async def authorize(self, id_token):
        if self.online:
            return (await self.call("Authorize", {"idToken": id_token}))["idTokenInfo"]
        return await super().authorize(id_token)


class StationHidesThatItWasOffline(ReferenceStation):
    """TransactionEventRequest offline: what happened while offline is reported without offline true."""

    async def _queued(self, payload):
        future = asyncio.get_running_loop().create_future()
        self._waiting.append((payload, future))
        self._send_waiting()
        return await future


def offline_answered(answer: dict, payload: dict, status: str) -> dict:
    """``answer`` to a TransactionEvent, its idTokenInfo.status ``status`` when the event is offline."""
    if payload.get("offline") and "idTokenInfo" in answer:
        answer["idTokenInfo"] = answer["idTokenInfo"] | {"status": status}
    return answer


class CsmsRefusesOfflineEvents(ReferenceCsms):
    """Authorization rule 9: a TransactionEvent with offline true is refused, whatever its token."""

    def on_TransactionEvent(self, session, payload):
        return offline_answered(super().on_TransactionEvent(session, payload), payload, "Invalid")


class StationSuspendsInsteadOfEnding(ReferenceStation):
    """Moves "Offline-authorized transaction": with StopTxOnInvalidId and TxStopPoint Authorized, a refused
    transaction is only suspended, never ended."""

    async def deauthorized(self, state):
        await self.suspend(state, "Deauthorized")


class StationStartsNothingOfflineForUnknownTokens(ReferenceStation):
    """C15: offline, an unknown token is refused although OfflineTxForUnknownIdEnabled is true."""

    async def authorize(self, id_token):
        info = await super().authorize(id_token)
        return info if self.online or self.local_list.get(token_key(id_token)) else {"status": "Unknown"}


class CsmsAcceptsOfflineEvents(ReferenceCsms):
    """Authorization rule 9: a TransactionEvent with offline true is answered Accepted, its token unchecked."""

    def on_TransactionEvent(self, session, payload):
        return offline_answered(super().on_TransactionEvent(session, payload), payload, "Accepted")


class StationEndsMasterPassStopsAsLocal(ReferenceStation):
    """C16.FR.08 (2.1): a transaction a master pass stopped ends with stoppedReason Local."""

    async def end_transaction(self, state, trigger, stopped_reason, id_token=None):
        await super().end_transaction(state, trigger, "Local" if stopped_reason == "MasterPass" else stopped_reason,
                                      id_token)


class CsmsHidesTheMasterPassGroup(ReferenceCsms):
    """Authorization rule 6: the master pass is Accepted without its group (MasterPassGroupId)."""

    def id_token_info(self, session, id_token, *, current_tx=None):
        info = super().id_token_info(session, id_token, current_tx=current_tx)
        group = self.profile.authorization("master_pass_group_id", "")
        if info.get("groupIdToken", {}).get("idToken", "").casefold() == group.casefold():
            info.pop("groupIdToken")
        return info


class StationChargesWithoutCredit(ReferenceStation):
    """Authorization status values: a token answered NoCredit is charged all the same."""

    async def authorize(self, id_token):
        info = await super().authorize(id_token)
        return info | {"status": "Accepted"} if info["status"] == "NoCredit" else info


class StationTakesTheMasterPassForADriver(ReferenceStation):
    """Authorization rule 6: a master pass is taken for an ordinary driver and starts a transaction."""

    async def master_pass(self, id_token, info):
        return False


class CsmsLetsPrepaidAnswersBeCached(ReferenceCsms):
    """Moves "Prepaid token": a prepaid token's answer may be cached for a day (cacheExpiryDateTime a day on)."""

    def id_token_info(self, session, id_token, *, current_tx=None):
        info = super().id_token_info(session, id_token, current_tx=current_tx)
        if "cacheExpiryDateTime" in info:
            info["cacheExpiryDateTime"] = (clock.utcnow() + timedelta(days=1)).isoformat().replace("+00:00", "Z")
        return info


class CsmsLeavesPrepaidTransactionsUnlimited(ReferenceCsms):
    """Moves "Prepaid transaction" (2.1): the first Started event of a prepaid token gets no maxCost."""

    def on_TransactionEvent(self, session, payload):
        answer = super().on_TransactionEvent(session, payload)
        answer.pop("transactionLimit", None)
        return answer


class CsmsAcceptsAnyQrCode(ReferenceCsms):
    """QR-code payment rule 2: the TOTP of a scanned QR code is not checked."""

    async def act_scan_qr_code(self, url, station=None):
        parameters = totp.parse_qr_url(url)
        await self._start_paid(int(parameters["evse"]), totp.transaction_limit(parameters), station)


class CsmsAcceptsOnlyTheCurrentInterval(ReferenceCsms):
    """QR-code payment rule 2: the previous interval's TOTP (clock skew) is refused."""

    async def act_scan_qr_code(self, url, station=None):
        qr = self.profile.get("qr_code")
        current = totp.totp(qr["totp_secret"].encode(), clock.wall(), interval=qr["interval"], length=qr["length"])
        if totp.parse_qr_url(url).get("totp") in (current, totp.totp(
                qr["totp_secret"].encode(), clock.wall(), interval=qr["interval"], length=qr["length"], offset=1)):
            await super().act_scan_qr_code(url, station)


class CsmsForgetsWhatWasPaid(ReferenceCsms):
    """QR-code payment rule 4: a paid transaction's Started event gets no transactionLimit."""

    def transaction_limit(self, id_token):
        return None if id_token.get("type") == "DirectPayment" else super().transaction_limit(id_token)


class CsmsForgetsTheTerminalAmount(ReferenceCsms):
    """Remote start rule 3: an ad hoc payment's transaction is not limited to the authorized amount."""

    async def act_ad_hoc_payment(self, evse_id, amount, psp_ref=None, station=None):
        await self._start_paid(evse_id, {}, station, psp_ref)


def sent_keeping_entries(station: ReferenceStation, session, payload: dict, update_type: str) -> dict:
    """``station`` answers the SendLocalList ``payload``, but an update of ``update_type`` drops no entry."""
    kept = dict(station.local_list)
    answer = ReferenceStation.on_SendLocalList(station, session, payload)
    if payload["updateType"] == update_type:
        station.local_list = kept | station.local_list
    return answer


class StationMergesFullUpdates(ReferenceStation):
    """D01.FR.15: a Full update adds to the local list instead of replacing it."""

    def on_SendLocalList(self, session, payload):
        return sent_keeping_entries(self, session, payload, "Full")


class StationKeepsDeletedTokens(ReferenceStation):
    """D01.FR.17: a Differential entry without idTokenInfo does not delete the token."""

    def on_SendLocalList(self, session, payload):
        return sent_keeping_entries(self, session, payload, "Differential")


class StationIgnoresWebPayments(ReferenceStation):
    """Moves "Web payment": NotifyWebPaymentStarted is answered but holds nothing: a driver starts meanwhile."""

    def on_NotifyWebPaymentStarted(self, session, payload):
        return {}


# ------------------------------------------------------------------------------------- the records
# ------------------------------------------------------------------------------ a conformant variant
class StationAlreadyRegistered(ReferenceStation):
    """NOT a fault: a station registered before this test reconnects without booting (it need not boot
    again). A test that needs its boot must restart it with Reset, never blame it."""

    first_connection = True

    async def connect(self, csms_url, *, boot=True, offered=None):
        if self.first_connection:
            self.first_connection, boot = False, False
        return await super().connect(csms_url, boot=boot, offered=offered)


@dataclass(frozen=True)
class Fault:
    """One faulty stand-in and how the suites must catch it."""
    name: str
    rule: str                   # the id of the rule it breaks (a row of a RuleTable): its failure names it
    cls: type                   # a subclass of the reference for the SUT role it plays
    catch: tuple[str, ...]      # node ids (relative to the repository) that must fail
    reason: str                 # words of the failure message that show the intended reason
    verdict: str = "failed"     # "failed": a MUST row, the SUT is blamed; "finding": a SHOULD row, the test
                                # passes with a finding that names it; never "broken" (the harness's fault)
    known_miss: str = ""        # why the harness cannot catch it yet: its test is a strict xfail
    version: str = VERSION      # the version its tests are played in (the payment use cases are 2.1's)

    def outcome(self, result: dict) -> str:
        """What a test's conformance.json entry shows of this fault: its verdict, with the text that
        must name the rule (the failure's reason, or for a SHOULD row the findings)."""
        return result["reason"] if self.verdict == "failed" else "\n".join(result["findings"])

    def caught_by(self, result: dict) -> bool:
        """The entry shows the fault: the expected verdict, the rule id in brackets and the reason's words."""
        shown = self.outcome(result)
        verdict = "failed" if self.verdict == "failed" else "passed"
        return result["verdict"] == verdict and f"[{self.rule}]" in shown and self.reason in shown

    @property
    def embedded_sut(self) -> str:
        """The ``--embedded-sut`` value: ``module:Class``, importable with this folder on the path."""
        return f"{MODULE}:{self.cls.__name__}"

    @property
    def role(self) -> str:
        return "csms" if issubclass(self.cls, CsmsBase) else "cs"


def _node(path: str, test: str, *params: str, role: str) -> str:
    return f"suites/ocpp2/{path}::{test}[{'-'.join((role, VERSION, *params))}]"


def _csms(path: str, test: str, *params: str) -> str:
    return _node(path, test, *params, role="csms")


def _cs(path: str, test: str, *params: str) -> str:
    return _node(path, test, *params, role="cs")


CONN, RPC = "test_CONN.py", "test_RPC.py"   # the OCPP-J transport suite, played in every version


def transport(file: str, test: str, role: str, version: str, *params: str) -> str:
    """A node of the transport suite (suites/ocpp/transport) played in ``version``."""
    return f"suites/ocpp/transport/{file}::{test}[{'-'.join((role, version, *params))}]"


C01, C04, C05 = "authorization/test_C01.py", "authorization/test_C04.py", "authorization/test_C05.py"
P02 = "datatransfer/test_P02.py"
C13, C14, C15 = "authorization/test_C13.py", "authorization/test_C14.py", "authorization/test_C15.py"
C16, C17 = "authorization/test_C16.py", "authorization/test_C17.py"
C24, C25 = "authorization/test_C24.py", "authorization/test_C25.py"


V21 = "ocpp2.1"


def _csms21(path: str, test: str, *params: str) -> str:
    """A node played in 2.1 (its record says version=V21)."""
    return f"suites/ocpp2/{path}::{test}[{'-'.join(('csms', V21, *params))}]"


def _cs21(path: str, test: str, *params: str) -> str:
    return f"suites/ocpp2/{path}::{test}[{'-'.join(('cs', V21, *params))}]"

FAULTS: tuple[Fault, ...] = (
    Fault("csms-accepts-blocked-token", "C01.status", CsmsAcceptsBlockedToken,
          (_csms(C01, "test_presented_token_gets_its_status", "Blocked"),),
          "idTokenInfo.status for the blocked token is wrong"),
    Fault("csms-checks-expired-before-blocked", "C01.blocked_first",
          CsmsChecksExpiredBeforeBlocked, (_csms(C01, "test_blocked_is_checked_before_expired"),),
          "idTokenInfo.status of a token both blocked and expired is wrong"),
    Fault("csms-drops-group-id-token", "C01.group", CsmsDropsGroupIdToken,
          (_csms(C01, "test_group_token_is_answered_with_its_group"),),
          "AuthorizeResponse lacks the token's groupIdToken"),
    Fault("csms-ignores-active-transactions", "C01.concurrent",
          CsmsIgnoresActiveTransactions, (_csms(C01, "test_token_in_a_transaction_is_concurrent"),),
          "TransactionEventResponse idTokenInfo.status of a second transaction with the token is wrong"),
    Fault("csms-trusts-transaction-event-tokens", "C01.event_token",
          CsmsTrustsTransactionEventTokens, (_csms(C01, "test_token_is_checked_again_in_transaction_event"),),
          "TransactionEventResponse idTokenInfo.status is wrong"),
    Fault("csms-refuses-its-own-central-token", "C05.own_token", CsmsRefusesItsOwnCentralToken,
          (_csms(C05, "test_remote_start_is_correlated_by_remote_start_id"),
           _csms(C05, "test_remote_stop_ends_the_transaction")),
          "TransactionEventResponse idTokenInfo.status is wrong"),
    Fault("csms-rejects-unknown-vendor", "datatransfer.unknown_vendor",
          CsmsRejectsUnknownVendor, (_csms(P02, "test_data_transfer_to_csms", "unknown_vendor"),),
          "DataTransferResponse status is wrong"),
    Fault("csms-accepts-any-password", "ws.wrong_password", CsmsAcceptsAnyPassword,
          (transport(CONN, "test_wrong_password_is_refused", "csms", VERSION),),
          "[ws.wrong_password] the server upgraded a wrong password"),
    Fault("csms-accepts-any-identity", "ws.unknown_identity", CsmsAcceptsAnyIdentity,
          (transport(CONN, "test_unknown_identity_is_refused_with_404", "csms", VERSION),),
          "[ws.unknown_identity] the server upgraded an unknown identity", verdict="finding"),
    Fault("csms-serves-without-subprotocol", "ws.no_subprotocol", CsmsServesWithoutSubprotocol,
          (transport(CONN, "test_csms_serves_no_connection_that_offered_no_subprotocol", "csms", VERSION),),
          "[ws.no_subprotocol] the CSMS answered a CALL on a connection without a subprotocol"),
    Fault("csms-pipelines-calls", "rpc.one_at_a_time", CsmsPipelinesDataTransfer,
          (transport(RPC, "test_csms_waits_for_an_answer_before_its_next_call", "csms", VERSION),),
          "[rpc.one_at_a_time] the SUT sent CALLs while its RequestStartTransaction was unanswered"),
    Fault("csms-boots-with-zero-interval", "CONN.interval", CsmsBootsWithZeroInterval,
          (transport(CONN, "test_boot_is_accepted", "csms", VERSION),),
          "[CONN.interval] the BootNotification answer's interval is not positive"),
    Fault("csms-heartbeat-without-time", "rpc.schema", CsmsHeartbeatWithoutTime,
          (_csms(C05, "test_csms_survives_a_rejected_remote_start"),),
          "[rpc.schema] Heartbeat response breaks its schema"),
    Fault("csms-boots-with-local-time", "rpc.schema", CsmsBootsWithLocalTime,
          (transport(CONN, "test_boot_is_accepted", "csms", VERSION),),
          "currentTime: '2024-01-01T12:00:00' is not a 'date-time'"),
    Fault("csms-never-answers-heartbeat", "rpc.answered", CsmsNeverAnswersHeartbeat,
          (_csms(C05, "test_csms_survives_a_rejected_remote_start"),),
          "[rpc.answered] no answer to Heartbeat within"),
    Fault("station-starts-for-rejected-token", "C01.rejected_no_start",
          StationStartsForRejectedToken, (_cs(C01, "test_station_starts_only_for_an_accepted_token", "rejected"),),
          "the SUT sent TransactionEvent when it must not"),
    Fault("station-sends-pin-as-iso14443", "C04.keycode",
          StationSendsEveryTokenAsIso14443, (_cs(C04, "test_valid_pin_is_accepted"),),
          "AuthorizeRequest idToken.type is wrong"),
    Fault("station-loses-remote-start-id", "C05.remote_start_id",
          StationLosesRemoteStartId, (_cs(C05, "test_remote_start_is_correlated_by_remote_start_id"),),
          "the SUT did not send TransactionEvent within"),
    Fault("station-accepts-remote-start-on-unknown-evse", "C05.refused",
          StationAcceptsRemoteStartOnUnknownEvse, (_cs(C05, "test_remote_start_on_unknown_evse_is_rejected"),),
          "RequestStartTransactionResponse status is wrong"),
    Fault("station-ignores-remote-stop", "C05.stop_ends",
          StationAcceptsRemoteStopButKeepsCharging, (_cs(C05, "test_remote_stop_ends_the_transaction"),),
          "the SUT did not send TransactionEvent within"),
    Fault("station-pipelines-during-boot", "rpc.one_at_a_time", StationPipelinesStatusDuringBoot,
          (transport(RPC, "test_station_waits_for_the_boot_answer", "cs", VERSION),),
          "[rpc.one_at_a_time] the SUT sent CALLs while its BootNotification was unanswered"),
    Fault("station-answers-with-v16-error-code", "ocpp.errors.known", StationAnswersWithV16ErrorCode,
          (transport(RPC, "test_malformed_call_is_refused_with_the_code_for_its_fault", "cs", VERSION, "missing"),),
          "[ocpp.errors.known] CALLERROR code 'FormationViolation' does not exist in ocpp2.0.1"),
    Fault("csms-sends-local-list-version-zero", "C13.version_positive", CsmsSendsLocalListVersionZero,
          (_csms(C13, "test_full_update_installs_the_list"),), "SendLocalListRequest versionNumber is not above 0"),
    Fault("csms-sends-full-list-without-info", "C13.full_list", CsmsSendsFullListWithoutInfo,
          (_csms(C13, "test_full_update_installs_the_list"),), "the Full list's idTokenInfo.status of"),
    Fault("station-applies-stale-differentials", "C13.mismatch", StationAppliesStaleDifferentials,
          (_cs(C13, "test_stale_differential_update_is_a_version_mismatch", "same_version"),
           _cs(C13, "test_stale_differential_update_is_a_version_mismatch", "older_version")),
          "SendLocalListResponse status of a Differential update at version"),
    Fault("station-merges-full-updates", "C13.full_replaces", StationMergesFullUpdates,
          (_cs(C13, "test_full_update_replaces_the_list"),), "[C13.full_replaces] the SUT did not send Authorize within"),
    Fault("station-keeps-deleted-tokens", "C13.deleted", StationKeepsDeletedTokens,
          (_cs(C13, "test_differential_delete_removes_the_token"),),
          "[C13.deleted] the SUT did not send Authorize within"),
    Fault("station-forgets-its-list-version", "C13.reports_version", StationForgetsItsListVersion,
          (_cs(C13, "test_full_update_installs_the_list"),),
          "GetLocalListVersionResponse versionNumber after the Full update is wrong"),
    Fault("station-ignores-its-local-list-online", "C14.started_without_authorize", StationIgnoresItsLocalListOnline,
          (_cs(C14, "test_listed_token_starts_without_authorize", "unknown"),),
          "[C14.started_without_authorize] the SUT did not send TransactionEvent within"),
    Fault("station-hides-that-it-was-offline", "C14.offline_flag", StationHidesThatItWasOffline,
          (_cs(C14, "test_listed_token_starts_offline"),), "TransactionEvent offline is wrong"),
    Fault("csms-refuses-offline-events", "C14.offline_checked", CsmsRefusesOfflineEvents,
          (_csms(C14, "test_listed_token_starts_offline"),),
          "TransactionEventResponse idTokenInfo.status of an offline event is wrong"),
    Fault("station-suspends-instead-of-ending", "C15.ended", StationSuspendsInsteadOfEnding,
          (_cs(C15, "test_refused_offline_transaction_moves_as_configured"),), "TransactionEvent eventType is wrong"),
    Fault("station-starts-nothing-offline-for-unknown-tokens", "C15.unknown_started",
          StationStartsNothingOfflineForUnknownTokens,
          (_cs(C15, "test_unknown_token_offline"),),
          "[C15.unknown_started] the SUT did not send TransactionEvent within"),
    Fault("csms-accepts-offline-events", "C15.rejected", CsmsAcceptsOfflineEvents,
          (_csms(C15, "test_unknown_token_offline"),),
          "TransactionEventResponse idTokenInfo.status of an offline event with an unknown token is wrong"),
    Fault("station-ends-master-pass-stops-as-local", "C16.reason", StationEndsMasterPassStopsAsLocal,
          (_cs(C16, "test_master_pass_stops_every_transaction"),),
          "TransactionEvent transactionInfo.stoppedReason is wrong"),
    Fault("station-takes-the-master-pass-for-a-driver", "C16.no_start", StationTakesTheMasterPassForADriver,
          (_cs(C16, "test_master_pass_starts_no_transaction"),), "the SUT sent TransactionEvent when it must not"),
    Fault("csms-hides-the-master-pass-group", "C16.group", CsmsHidesTheMasterPassGroup,
          (_csms(C16, "test_master_pass_is_answered_with_its_group"),),
          "AuthorizeResponse idTokenInfo.groupIdToken.idToken (case-insensitive) is wrong"),
    Fault("csms-lets-prepaid-answers-be-cached", "C17.expires", CsmsLetsPrepaidAnswersBeCached,
          (_csms(C17, "test_prepaid_answer_expires_at_once", "credit"),
           _csms(C17, "test_prepaid_answer_expires_at_once", "no_credit")),
          "a prepaid token's cacheExpiryDateTime is not the time of the answer"),
    Fault("csms-leaves-prepaid-transactions-unlimited", "C17.max_cost", CsmsLeavesPrepaidTransactionsUnlimited,
          (_csms21(C17, "test_prepaid_transaction_is_limited_to_its_balance"),),
          "transactionLimit.maxCost of the first Started event is wrong", version=V21),
    Fault("station-charges-without-credit", "C17.no_start", StationChargesWithoutCredit,
          (_cs(C17, "test_no_credit_starts_no_transaction"),), "the SUT sent TransactionEvent when it must not"),
    Fault("csms-accepts-any-qr-code", "C25.refused", CsmsAcceptsAnyQrCode,
          (_csms21(C25, "test_other_code_starts_nothing", "two_intervals_ago"),
           _csms21(C25, "test_other_code_starts_nothing", "not_a_code")),
          "the SUT sent RequestStartTransaction when it must not", version=V21),
    Fault("csms-accepts-only-the-current-interval", "C25.started", CsmsAcceptsOnlyTheCurrentInterval,
          (_csms21(C25, "test_valid_code_starts_a_paid_transaction", "previous"),),
          "[C25.started] the SUT did not send RequestStartTransaction within", version=V21),
    Fault("csms-forgets-what-was-paid-by-qr-code", "C25.limits", CsmsForgetsWhatWasPaid,
          (_csms21(C25, "test_valid_code_starts_a_paid_transaction", "current"),),
          "TransactionEventResponse transactionLimit is wrong", version=V21),
    Fault("csms-forgets-the-terminal-amount", "C24.max_cost", CsmsForgetsTheTerminalAmount,
          (_csms21(C24, "test_ad_hoc_payment_starts_a_limited_transaction"),),
          "TransactionEventResponse transactionLimit.maxCost is wrong", version=V21),
    Fault("station-ignores-web-payments", "C25.locked", StationIgnoresWebPayments,
          (_cs21(C25, "test_web_payment_holds_the_evse"),), "the SUT sent TransactionEvent when it must not",
          version=V21),
)
