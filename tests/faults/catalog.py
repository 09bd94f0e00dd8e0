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
import copy
import ssl
import tempfile
import uuid
from dataclasses import dataclass, replace
from datetime import timedelta
from pathlib import Path
from typing import Any

from harness import clock, contract_pki, pki
from harness import smartcharging as sc
from harness.ocpp import totp
from harness.ocpp.framing import Call, serialize
from harness.reference import ReferenceCsms, ReferenceStation
from harness.reference.base import CsmsBase
from harness.reference.tokens import token_key
from harness.transport.tls import TlsEnd, only
from harness.transport.ws import CallErrorReply, OcppConnection
from harness.verdict import dig

NO_CHECK_TIME = 0x200000   # OpenSSL's X509_V_FLAG_NO_CHECK_TIME, which Python's ssl module does not name

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


class StationHangsUpOnATokenInsteadOfAuthorizing(ReferenceStation):
    """authorize.sent: presented a token, the station closes its link (1000) and asks nothing; the verdict must say
    the station closed the connection, not that Authorize did not come in time."""

    async def act_present_id_token(self, id_token, evse_id=None):
        self.background.spawn(self.connection.close(1000))


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


class StationAcceptsStopOfUnknownTransaction(ReferenceStation):
    """F03.FR.08: a RequestStopTransaction for a transaction the station does not run is Accepted."""

    def on_RequestStopTransaction(self, session, payload):
        super().on_RequestStopTransaction(session, payload)
        return {"status": "Accepted"}


class StationRepeatsSeqNo(ReferenceStation):
    """TransactionEventRequest seqNo: every TransactionEvent of a transaction carries seqNo 0."""

    def _event(self, state, event_type, trigger, **info):
        return super()._event(state, event_type, trigger, **info) | {"seqNo": 0}


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


class StationDifferentialDropsUnnamedEntries(ReferenceStation):
    """UpdateEnumType Differential: an accepted Differential update keeps only the entries it names."""

    def on_SendLocalList(self, session, payload):
        answer = super().on_SendLocalList(session, payload)
        if payload["updateType"] == "Differential" and answer["status"] == "Accepted":
            named = {token_key(entry["idToken"]) for entry in payload.get("localAuthorizationList", [])}
            self.local_list = {key: info for key, info in self.local_list.items() if key in named}
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


# ------------------------------------------------------------- authorization faults (C01, C02, C06, C08-C12)
class CsmsAnswersLanguage2Alone(ReferenceCsms):
    """C01 / Authorization rule 10: idTokenInfo carries language2 without language1."""

    def id_token_info(self, session, id_token, *, current_tx=None):
        return super().id_token_info(session, id_token, current_tx=current_tx) | {"language2": "en"}


class StationIgnoresEvseRestriction(ReferenceStation):
    """C01 / Order of checks step 7: the station charges an EVSE-restricted token at any EVSE."""

    async def authorize(self, id_token):
        info = await super().authorize(id_token)
        info.pop("evseId", None)
        return info


class StationChargesStatusesItDoesNotKnow(ReferenceStation):
    """C01 status values: only Invalid, Blocked and Expired count as refusals; Unknown, NoCredit and the
    other statuses let the driver charge."""

    async def authorize(self, id_token):
        info = await super().authorize(id_token)
        return info if info["status"] in ("Invalid", "Blocked", "Expired") else info | {"status": "Accepted"}


class StationRefusesPersonalMessages(ReferenceStation):
    """C01 IdTokenInfoType: an Accepted idTokenInfo with a personalMessage is taken for a refusal."""

    async def authorize(self, id_token):
        info = await super().authorize(id_token)
        return info | {"status": "Invalid"} if "personalMessage" in info else info


class CsmsRefusesNoAuthorization(ReferenceCsms):
    """C02 / Authorization rule 2: the start button's empty NoAuthorization token is looked up like a card
    and answered Invalid."""

    def on_TransactionEvent(self, session, payload):
        answer = super().on_TransactionEvent(session, payload)
        if payload.get("idToken", {}).get("type") == "NoAuthorization":
            answer["idTokenInfo"] = {"status": "Invalid"}
        return answer


class StationAuthorizesStartButton(ReferenceStation):
    """C02 / Authorization rule 2: the start button sends an AuthorizeRequest for its NoAuthorization token."""

    async def _authorized(self, state, id_token, group):
        if id_token.get("type") == "NoAuthorization":
            await self.authorize(id_token)
        await super()._authorized(state, id_token, group)


class CsmsMindsTheCase(ReferenceCsms):
    """C06 / IdTokenType: the CSMS looks tokens up case-sensitively (another case is unknown: Invalid)."""

    def id_token_info(self, session, id_token, *, current_tx=None):
        known = {(t.id, t.type) for t in self.profile.tokens.values()}
        if (id_token.get("idToken"), id_token.get("type")) not in known:
            return {"status": "Invalid"}
        return super().id_token_info(session, id_token, current_tx=current_tx)


class CsmsComparesAdditionalInfo(ReferenceCsms):
    """C06 / IdTokenType: a token with additionalInfo the CSMS does not know is taken for another token."""

    def on_Authorize(self, session, payload):
        if payload["idToken"].get("additionalInfo"):
            return {"idTokenInfo": {"status": "Invalid"}}
        return super().on_Authorize(session, payload)


class StationTrustsEveryTokenOverHlc(ReferenceStation):
    """C08 / Authorization rule 4: with the EV communicating over ISO 15118 the station charges whatever the
    CSMS answers about the driver's token."""

    hlc = False

    async def act_plug_in_hlc(self, evse_id=1):
        self.hlc = True
        await super().act_plug_in_hlc(evse_id)

    async def authorize(self, id_token):
        info = await super().authorize(id_token)
        return info | {"status": "Accepted"} if self.hlc else info


class CsmsGroupsOfTypeLocal(ReferenceCsms):
    """C09 / IdTokenInfoType: the groupIdToken comes as type Local instead of Central (a SHOULD: a finding)."""

    def id_token_info(self, session, id_token, *, current_tx=None):
        info = super().id_token_info(session, id_token, current_tx=current_tx)
        if "groupIdToken" in info:
            info["groupIdToken"] = info["groupIdToken"] | {"type": "Local"}
        return info


class StationLetsOnlyTheStarterStop(ReferenceStation):
    """C09 / Authorization rule 5: another member of the starter's group cannot stop the transaction."""

    async def end_transaction(self, state, trigger, stopped_reason, id_token=None):
        tx = state.transaction
        if trigger == "StopAuthorized" and tx is not None and id_token is not None and tx.id_token != id_token:
            return
        await super().end_transaction(state, trigger, stopped_reason, id_token)


class CsmsAnswersCachedStartsWithoutStatus(ReferenceCsms):
    """C12 / Authorization rule 7: a TransactionEvent Started with an idToken is answered without idTokenInfo
    (the token is not checked again)."""

    def on_TransactionEvent(self, session, payload):
        answer = super().on_TransactionEvent(session, payload)
        return {} if payload["eventType"] == "Started" else answer


class StationIgnoresItsCache(ReferenceStation):
    """C12 / LocalPreAuthorize: a token the cache holds as Accepted is still asked about before it starts."""

    def cached(self, id_token):
        info = super().cached(id_token)
        return None if info is not None and info["status"] == "Accepted" else info


class StationKeepsChargingWhenDeauthorized(ReferenceStation):
    """C12 / Authorization rule 7: the station charges on when the CSMS refuses a cached start."""

    async def _after_event(self, state, response):
        return None


class StationTrustsCachedRefusals(ReferenceStation):
    """C12 / C12.FR.05: a token the cache holds refused is refused at once, without asking the CSMS again."""

    async def decision(self, id_token):
        cached = self.cached(id_token)
        return cached if cached is not None and cached["status"] != "Accepted" else await super().decision(id_token)


class CsmsEchoesAdditionalInfoInGroups(ReferenceCsms):
    """C10 / Authorization rule 8: the groupIdToken of an answer meant for caching carries additionalInfo."""

    def id_token_info(self, session, id_token, *, current_tx=None):
        info = super().id_token_info(session, id_token, current_tx=current_tx)
        if "groupIdToken" in info and id_token.get("additionalInfo"):
            info["groupIdToken"] = info["groupIdToken"] | {"additionalInfo": id_token["additionalInfo"]}
        return info


class CsmsNeverClearsCaches(ReferenceCsms):
    """C11: the operator's clear-cache command never reaches the station."""

    async def act_clear_cache(self, station=None):
        return None


class StationIgnoresCacheExpiry(ReferenceStation):
    """C10 / Authorization rule 8: an entry past its cacheExpiryDateTime still starts a transaction."""

    def cached(self, id_token):
        return self.cache.get(token_key(id_token))


class StationCachesOnlyAuthorizeAnswers(ReferenceStation):
    """C10 / Authorization rule 7: the cache is not updated from TransactionEventResponses."""

    def _answered(self, payload, response):
        return None


class StationPreAuthorizesRegardless(ReferenceStation):
    """C10.FR.11: a cached Accepted token starts without AuthorizeRequest although LocalPreAuthorize is false."""

    def flag(self, component, name):
        return True if (component, name) == ("AuthCtrlr", "LocalPreAuthorize") else super().flag(component, name)


class StationClearsDisabledCache(ReferenceStation):
    """C11 / Authorization rule 12: ClearCache is Accepted with the cache off."""

    def on_ClearCache(self, session, payload):
        self.cache.clear()
        return {"status": "Accepted"}


class StationAcceptsClearCacheButKeepsEntries(ReferenceStation):
    """C11: ClearCache is Accepted and the cache kept."""

    def on_ClearCache(self, session, payload):
        return {"status": "Accepted" if self.flag("AuthCacheCtrlr", "Enabled") else "Rejected"}


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
    profile: str = ""           # a variant of the reference profile its tests need (a path in the repository,
                                # harness/profiles/...; their control run is tests/selfcheck/test_profile_variants.py)

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
C02, C06, C08, C09 = (f"authorization/test_{c}.py" for c in ("C02", "C06", "C08", "C09"))
C10, C11, C12 = (f"authorization/test_{c}.py" for c in ("C10", "C11", "C12"))
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
          StationStartsForRejectedToken, (_cs(C01, "test_station_starts_only_for_an_accepted_token", "Invalid"),),
          "the SUT sent TransactionEvent when it must not"),
    Fault("station-hangs-up-instead-of-authorizing", "authorize.sent", StationHangsUpOnATokenInsteadOfAuthorizing,
          (_cs(C01, "test_station_starts_only_for_an_accepted_token", "Invalid"),),
          "the SUT closed the connection (1000) before it sent Authorize"),
    Fault("station-sends-pin-as-iso14443", "C04.keycode",
          StationSendsEveryTokenAsIso14443, (_cs(C04, "test_valid_pin_is_accepted"),),
          "AuthorizeRequest idToken.type is wrong"),
    Fault("station-accepts-stop-of-unknown-transaction", "C05.stop_unknown", StationAcceptsStopOfUnknownTransaction,
          (_cs(C05, "test_remote_stop_of_an_unknown_transaction_is_rejected"),),
          "RequestStopTransactionResponse status is wrong"),
    Fault("station-repeats-seq-no", "C05.seq_no", StationRepeatsSeqNo,
          (_cs(C05, "test_remote_stop_ends_the_transaction"),),
          "seqNo is not above the one of the transaction's earlier TransactionEvent", verdict="finding"),
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
    Fault("csms-answers-language2-alone", "C01.languages", CsmsAnswersLanguage2Alone,
          (_csms(C01, "test_presented_token_gets_its_status", "Accepted"),),
          "idTokenInfo has language2 without language1"),
    Fault("station-ignores-evse-restriction", "C01.evse_only", StationIgnoresEvseRestriction,
          (_cs(C01, "test_station_honours_the_evse_restriction", "other_evse"),),
          "the SUT sent TransactionEvent when it must not"),
    Fault("station-charges-statuses-it-does-not-know", "C01.rejected_no_start", StationChargesStatusesItDoesNotKnow,
          (_cs(C01, "test_station_starts_only_for_an_accepted_token", "Unknown"),
           _cs(C01, "test_station_starts_only_for_an_accepted_token", "NoCredit")),
          "the SUT sent TransactionEvent when it must not"),
    Fault("station-refuses-personal-messages", "C01.optional_fields", StationRefusesPersonalMessages,
          (_cs(C01, "test_station_charges_with_every_optional_field"),),
          "the SUT did not send TransactionEvent within"),
    Fault("csms-refuses-no-authorization", "C02.accepted", CsmsRefusesNoAuthorization,
          (_csms(C02, "test_start_button_starts_without_authorization", "cable_first"),),
          "TransactionEventResponse idTokenInfo.status for a NoAuthorization idToken is wrong"),
    Fault("station-authorizes-start-button", "C02.no_authorize", StationAuthorizesStartButton,
          (_cs(C02, "test_start_button_starts_without_authorization", "button_first"),),
          "the SUT sent Authorize when it must not"),
    Fault("csms-minds-the-case", "C06.case_insensitive", CsmsMindsTheCase,
          (_csms(C06, "test_id_token_comparison_is_case_insensitive", "Accepted"),),
          "idTokenInfo.status of valid with its idToken as aa00000001 is wrong"),
    Fault("csms-compares-additional-info", "C06.additional_info", CsmsComparesAdditionalInfo,
          (_csms(C06, "test_additional_info_is_ignored", "Blocked"),),
          "idTokenInfo.status of blocked with additionalInfo is wrong"),
    Fault("station-trusts-every-token-over-hlc", "C08.starts", StationTrustsEveryTokenOverHlc,
          (_cs(C08, "test_external_identification_with_hlc", "Blocked"),),
          "the SUT sent TransactionEvent when it must not"),
    Fault("csms-groups-of-type-local", "C09.central", CsmsGroupsOfTypeLocal,
          (_csms(C09, "test_members_are_answered_with_their_group"),),
          "groupIdToken.type for group_member_a is wrong", verdict="finding"),
    Fault("station-lets-only-the-starter-stop", "C09.member_stops", StationLetsOnlyTheStarterStop,
          (_cs(C09, "test_member_stops_another_members_transaction", "a_then_b"),),
          "the SUT did not send TransactionEvent within"),
    Fault("csms-answers-cached-starts-without-status", "C12.rechecked", CsmsAnswersCachedStartsWithoutStatus,
          (_csms(C12, "test_cached_start_is_checked_again", "Blocked"),),
          "the TransactionEventResponse of a transaction with an idToken lacks idTokenInfo"),
    Fault("station-ignores-its-cache", "C12.cached_start", StationIgnoresItsCache,
          (_cs(C12, "test_cached_token_starts_without_authorize"),),
          "the SUT sent Authorize when it must not"),
    Fault("station-keeps-charging-when-deauthorized", "C12.deauthorized", StationKeepsChargingWhenDeauthorized,
          (_cs(C12, "test_refused_cached_start_is_stopped", "Blocked"),
           _cs(C12, "test_refused_cached_start_is_stopped", "NoCredit"),
           _cs(C12, "test_refused_cached_start_is_stopped", "ConcurrentTx")),
          "the SUT did not send TransactionEvent within"),
    Fault("station-trusts-cached-refusals", "C12.asked_again", StationTrustsCachedRefusals,
          (_cs(C12, "test_cached_refusal_is_asked_again", "Blocked"),),
          "the SUT did not send Authorize within"),
    Fault("csms-echoes-additional-info-in-groups", "C10.no_additional_info", CsmsEchoesAdditionalInfoInGroups,
          (_csms(C10, "test_answers_for_the_cache_carry_no_additional_info", "Authorize"),
           _csms(C10, "test_answers_for_the_cache_carry_no_additional_info", "TransactionEvent")),
          "idTokenInfo.groupIdToken carries additionalInfo"),
    Fault("csms-never-clears-caches", "C11.sent", CsmsNeverClearsCaches,
          (_csms(C11, "test_clear_cache", "enabled"),),
          "the SUT did not send ClearCache within"),
    Fault("station-ignores-cache-expiry", "C10.expiry", StationIgnoresCacheExpiry,
          (_cs(C10, "test_expired_entry_is_not_used"),),
          "the SUT did not send Authorize within"),
    Fault("station-caches-only-authorize-answers", "C10.updated", StationCachesOnlyAuthorizeAnswers,
          (_cs(C10, "test_cache_follows_transaction_event_answers"),),
          "the SUT did not send Authorize within"),
    Fault("station-pre-authorizes-regardless", "C10.pre_authorize", StationPreAuthorizesRegardless,
          (_cs(C10, "test_cache_without_local_pre_authorize_asks"),),
          "the SUT did not send Authorize within"),
    Fault("station-clears-disabled-cache", "C11.status", StationClearsDisabledCache,
          (_cs(C11, "test_clear_cache", "disabled"),),
          "ClearCacheResponse status is wrong"),
    Fault("station-accepts-clear-cache-but-keeps-entries", "C11.emptied", StationAcceptsClearCacheButKeepsEntries,
          (_cs(C11, "test_cleared_cache_asks_again"),),
          "the SUT did not send Authorize within"),
)


# ------------------------------------------------------------------ smart charging (K01-K10), both sides
def _composite_of(station: ReferenceStation, payload: dict, change) -> dict:
    """The reference's GetCompositeSchedule answer computed over its profiles as ``change`` alters each
    ``Installed`` entry (None drops it): a station that gets one combination rule wrong."""
    kept = (change(e) for e in station.profiles.installed())
    store = sc.ProfileStore({e.profile.id: e for e in kept if e is not None})
    return sc.answer_get_composite_schedule(store, station.smart, payload, station.engine_version, clock.utcnow())


def _profile_changed(entry: sc.Installed, **fields) -> sc.Installed:
    return replace(entry, profile=replace(entry.profile, **fields))


class StationAcceptsExternalConstraints(ReferenceStation):
    """K01 rule 1: a ChargingStationExternalConstraints profile from the CSMS is Accepted (not installed)."""

    def on_SetChargingProfile(self, session, payload):
        if payload["chargingProfile"]["chargingProfilePurpose"] == "ChargingStationExternalConstraints":
            return {"status": "Accepted"}
        return super().on_SetChargingProfile(session, payload)


class StationMissesDuplicates(ReferenceStation):
    """K01 rule 4: an overlapping twin (same stackLevel, purpose and EVSE) is Accepted, not DuplicateProfile."""

    def on_SetChargingProfile(self, session, payload):
        answer = super().on_SetChargingProfile(session, payload)
        return {"status": "Accepted"} if dig(answer, "statusInfo.reasonCode") == "DuplicateProfile" else answer


class StationRefusesReplacement(ReferenceStation):
    """K01 rule 6: a profile with an installed id is Rejected instead of replacing it."""

    def on_SetChargingProfile(self, session, payload):
        if any(e.profile.id == payload["chargingProfile"]["id"] for e in self.profiles.installed()):
            return {"status": "Rejected", "statusInfo": {"reasonCode": "DuplicateProfile"}}
        return super().on_SetChargingProfile(session, payload)


class StationGivesOneReasonCode(ReferenceStation):
    """K01 Errors (a SHOULD): every refusal says InvalidProfile, whatever its cause (an unknown EVSE too)."""

    def on_SetChargingProfile(self, session, payload):
        answer = super().on_SetChargingProfile(session, payload)
        return answer | {"statusInfo": {"reasonCode": "InvalidProfile"}} if "statusInfo" in answer else answer


class StationCompositeIgnoresStationMax(ReferenceStation):
    """K08 combination rules: the composite leaves the ChargingStationMaxProfile out of the minimum."""

    def on_GetCompositeSchedule(self, session, payload):
        return _composite_of(self, payload, lambda e: None if e.profile.purpose is sc.Purpose.STATION_MAX else e)


class StationCompositeIgnoresValidTo(ReferenceStation):
    """K08: a profile still leads the composite after its validTo."""

    def on_GetCompositeSchedule(self, session, payload):
        return _composite_of(self, payload, lambda e: _profile_changed(e, valid_to=None))


class StationCompositeIgnoresRecurrence(ReferenceStation):
    """K08: a Recurring profile runs once from its startSchedule, as if Absolute."""

    def on_GetCompositeSchedule(self, session, payload):
        return _composite_of(self, payload, lambda e: _profile_changed(e, kind=sc.Kind.ABSOLUTE, recurrency_kind=None)
                             if e.profile.kind is sc.Kind.RECURRING else e)


class StationCompositeLabelsWithoutConverting(ReferenceStation):
    """K08 (W<->A): asked for W of profiles in A, it reports the amps figures labelled W."""

    def on_GetCompositeSchedule(self, session, payload):
        answer = super().on_GetCompositeSchedule(session, {k: v for k, v in payload.items() if k != "chargingRateUnit"})
        if "schedule" in answer and "chargingRateUnit" in payload:
            answer["schedule"]["chargingRateUnit"] = payload["chargingRateUnit"]
        return answer


class CsmsSetsProfilesAtStationLevel(ReferenceCsms):
    """K01: the operator's profile for an EVSE goes out with evseId 0."""

    async def act_set_charging_profile(self, evse_id, charging_profile, station=None):
        await super().act_set_charging_profile(0, charging_profile, station)


class CsmsRoundsLimits(ReferenceCsms):
    """K01: the operator's limits go out rounded to whole numbers (12.5 A becomes 12)."""

    async def act_set_charging_profile(self, evse_id, charging_profile, station=None):
        rounded = copy.deepcopy(charging_profile)
        for schedule in rounded["chargingSchedule"]:
            for period in schedule["chargingSchedulePeriod"]:
                period["limit"] = int(period["limit"])
        await super().act_set_charging_profile(evse_id, rounded, station)


class CsmsAsksCompositesInItsOwnUnit(ReferenceCsms):
    """K08: the operator's unit is left out of GetCompositeScheduleRequest."""

    async def act_get_composite_schedule(self, evse_id, duration, charging_rate_unit=None, station=None):
        await super().act_get_composite_schedule(evse_id, duration, None, station)


K01, K08 = "smartcharging/test_K01.py", "smartcharging/test_K08.py"

FAULTS += (
    Fault("station-accepts-external-constraints", "K01.refused", StationAcceptsExternalConstraints,
          (_cs(K01, "test_invalid_profile_is_rejected", "external-constraints-from-csms"),),
          "SetChargingProfileResponse status (external-from-csms"),
    Fault("station-misses-duplicates", "K01.duplicate", StationMissesDuplicates,
          (_cs(K01, "test_overlapping_twin_is_a_duplicate", "same-level-overlapping"),),
          "SetChargingProfileResponse status of the second profile is wrong"),
    Fault("station-refuses-replacement", "K01.replaces", StationRefusesReplacement,
          (_cs(K01, "test_profile_with_an_installed_id_replaces_it"),),
          "SetChargingProfileResponse status for an installed id is wrong"),
    Fault("station-gives-one-reason-code", "K01.reason_code", StationGivesOneReasonCode,
          (_cs(K01, "test_invalid_profile_is_rejected", "unknown-evse"),),
          "reasonCode (unknown-evse) is not one of the accepted values", verdict="finding"),
    Fault("station-composite-ignores-station-max", "K08.combined", StationCompositeIgnoresStationMax,
          (_cs(K08, "test_composite_is_the_installed_profiles_combined", "minimum-across-purposes"),),
          "composite periods of EVSE 1 (startPeriod, limit A)"),
    Fault("station-composite-ignores-valid-to", "K08.combined", StationCompositeIgnoresValidTo,
          (_cs(K08, "test_composite_is_the_installed_profiles_combined", "valid-to"),),
          "composite periods of EVSE 1 (startPeriod, limit A)"),
    Fault("station-composite-ignores-recurrence", "K08.combined", StationCompositeIgnoresRecurrence,
          (_cs(K08, "test_composite_is_the_installed_profiles_combined", "recurring-daily"),),
          "composite periods of EVSE 1 (startPeriod, limit A)"),
    Fault("station-composite-labels-without-converting", "K08.combined", StationCompositeLabelsWithoutConverting,
          (_cs(K08, "test_composite_is_the_installed_profiles_combined", "watts-asked-of-amps"),),
          "composite periods of EVSE 1 (startPeriod, limit W)"),
    Fault("csms-sets-profiles-at-station-level", "chargingprofile.sent", CsmsSetsProfilesAtStationLevel,
          (_csms(K01, "test_valid_profile_is_sent_as_asked_and_accepted", "tx-default-at-evse"),),
          "SetChargingProfileRequest evseId is wrong"),
    Fault("csms-rounds-limits", "chargingprofile.sent", CsmsRoundsLimits,
          (_csms(K01, "test_valid_profile_is_sent_as_asked_and_accepted", "recurring-daily"),),
          "SetChargingProfileRequest chargingProfile (as a model) is wrong"),
    Fault("csms-asks-composites-in-its-own-unit", "K08.request", CsmsAsksCompositesInItsOwnUnit,
          (_csms(K08, "test_csms_asks_for_the_composite_it_was_asked_for", "evse-in-amps"),),
          "GetCompositeScheduleRequest (evseId, duration, chargingRateUnit) is wrong"),
)


def _report_as(station: ReferenceStation, payload: dict, criteria: sc.ReportCriteria, change=lambda r: r) -> dict:
    """The reference's GetChargingProfiles answer for ``criteria``, each report altered by ``change``."""
    report = station.profiles.report(criteria)

    async def send_reports():
        for request in report.requests:
            await station.call("ReportChargingProfiles", change(request))

    station.background.spawn(send_reports())
    return report.response()


class StationSplitsReportsWithoutTbc(ReferenceStation):
    """K09: a report split over several messages says tbc false on every one of them."""

    def on_GetChargingProfiles(self, session, payload):
        return _report_as(self, payload, sc.report_criteria(payload), lambda r: r | {"tbc": False})


class StationReportsEveryEvseForZero(ReferenceStation):
    """K09: evseId 0 is read as "every EVSE" instead of the station level only."""

    def on_GetChargingProfiles(self, session, payload):
        criteria = sc.report_criteria(payload)
        return _report_as(self, payload, replace(criteria, evse_id=None) if criteria.evse_id == 0 else criteria)


class StationClearIgnoresEvse(ReferenceStation):
    """K10: a clear by criteria ignores their evseId (clears at every EVSE)."""

    def on_ClearChargingProfile(self, session, payload):
        criteria = dict(payload.get("chargingProfileCriteria") or {})
        criteria.pop("evseId", None)
        return super().on_ClearChargingProfile(session, payload | {"chargingProfileCriteria": criteria})


class StationClearAlwaysAccepted(ReferenceStation):
    """K10: ClearChargingProfile is Accepted when nothing matched (instead of Unknown)."""

    def on_ClearChargingProfile(self, session, payload):
        super().on_ClearChargingProfile(session, payload)
        return {"status": "Accepted"}


class StationClearIgnoresCriteria(ReferenceStation):
    """K10: a clear by criteria ignores them all and clears every profile (but external constraints)."""

    def on_ClearChargingProfile(self, session, payload):
        if "chargingProfileCriteria" not in payload:
            return super().on_ClearChargingProfile(session, payload)
        return super().on_ClearChargingProfile(session, {"chargingProfileCriteria": {}})


class StationClearRemovesNothing(ReferenceStation):
    """K10: ClearChargingProfile answers as if it cleared what was selected, and removes nothing."""

    def on_ClearChargingProfile(self, session, payload):
        return sc.answer_clear_charging_profile(copy.deepcopy(self.profiles), payload, self.engine_version)


class CsmsAsksForEveryProfile(ReferenceCsms):
    """K09: the operator's criteria are left out of GetChargingProfilesRequest (an empty filter)."""

    async def act_get_charging_profiles(self, charging_profile, evse_id=None, station=None):
        await super().act_get_charging_profiles({}, evse_id, station)


class CsmsClearsByCriteriaInsteadOfId(ReferenceCsms):
    """K10: asked to clear one profile by id, the CSMS clears every profile at the station level."""

    async def act_clear_charging_profile(self, charging_profile_id=None, charging_profile_criteria=None,
                                         station=None):
        await super().act_clear_charging_profile(None, charging_profile_criteria or {"evseId": 0}, station)


K09, K10 = "smartcharging/test_K09.py", "smartcharging/test_K10.py"

FAULTS += (
    Fault("station-splits-reports-without-tbc", "chargingprofile.tbc", StationSplitsReportsWithoutTbc,
          (_cs(K09, "test_reports_are_what_the_criteria_select", "every-evse"),),
          "the SUT sent ReportChargingProfiles"),
    Fault("station-reports-every-evse-for-zero", "chargingprofile.reported", StationReportsEveryEvseForZero,
          (_cs(K09, "test_reports_are_what_the_criteria_select", "station-level"),),
          "reported profiles of this test by (evseId, chargingLimitSource) is wrong"),
    Fault("station-clear-ignores-evse", "K10.cleared", StationClearIgnoresEvse,
          (_cs(K10, "test_clear_removes_what_it_selects", "one-evse"),),
          "reported profiles of this test by (evseId, chargingLimitSource) is wrong"),
    Fault("station-clear-ignores-criteria", "K10.cleared", StationClearIgnoresCriteria,
          tuple(_cs(K10, "test_clear_removes_what_it_selects", name) for name in ("station-level", "one-evse",
                                                                                  "stack-level", "station-max")),
          "reported profiles of this test"),
    Fault("station-clear-removes-nothing", "K10.cleared", StationClearRemovesNothing,
          tuple(_cs(K10, "test_clear_removes_what_it_selects", name) for name in ("by-id", "purpose-everywhere")),
          "reported profiles of this test"),
    Fault("station-clear-always-accepted", "K10.unknown", StationClearAlwaysAccepted,
          (_cs(K10, "test_clear_of_nothing_is_unknown"),),
          "ClearChargingProfileResponse status is wrong"),
    Fault("csms-asks-for-every-profile", "chargingprofile.report_sent", CsmsAsksForEveryProfile,
          (_csms(K09, "test_csms_asks_for_the_profiles_it_was_asked_for", "purpose-at-station-level"),),
          "GetChargingProfilesRequest (evseId, chargingProfile) is wrong"),
    Fault("csms-clears-by-criteria-instead-of-id", "K10.request", CsmsClearsByCriteriaInsteadOfId,
          (_csms(K10, "test_csms_clears_what_it_was_asked_to", "by-id"),),
          "ClearChargingProfileRequest (chargingProfileId, chargingProfileCriteria) is wrong"),
)


class StationKeepsTxProfileAfterTransaction(ReferenceStation):
    """K02 rule 7: a TxProfile outlives its transaction (the engine is not told the transaction ended)."""

    def transaction_ended(self, outlet):
        self.smart.transactions.pop(outlet, None)
        super().transaction_ended(outlet)


class StationCompositeIgnoresTxProfile(ReferenceStation):
    """K02: the composite of a charging EVSE follows its TxDefaultProfile, not the transaction's TxProfile."""

    def on_GetCompositeSchedule(self, session, payload):
        return _composite_of(self, payload, lambda e: None if e.profile.purpose is sc.Purpose.TX else e)


class StationAcceptsTxProfileOfAnyTransaction(ReferenceStation):
    """K02 / Errors: a TxProfile naming a transaction the EVSE is not running is Accepted (not TxNotFound)."""

    def on_SetChargingProfile(self, session, payload):
        answer = super().on_SetChargingProfile(session, payload)
        return {"status": "Accepted"} if dig(answer, "statusInfo.reasonCode") == "TxNotFound" else answer


class StationStartsDespiteAnInvalidProfile(ReferenceStation):
    """K05 rule 9: a remote start whose profile the rules refuse starts anyway (the profile is dropped)."""

    def remote_start_refusal(self, outlet, charging_profile):
        return None


class StationForgetsTheStartProfile(ReferenceStation):
    """K05 rule 9: the profile of an accepted remote start is never installed for the transaction."""

    def transaction_started(self, outlet, transaction_id):
        self.start_profiles.pop(outlet, None)
        super().transaction_started(outlet, transaction_id)


class StationCapsOnlyTheStationLevel(ReferenceStation):
    """K04 rule 8: the station max bounds the composite of evseId 0 but not that of each EVSE."""

    def on_GetCompositeSchedule(self, session, payload):
        if payload["evseId"] == 0:
            return super().on_GetCompositeSchedule(session, payload)
        return _composite_of(self, payload, lambda e: None if e.profile.purpose is sc.Purpose.STATION_MAX else e)


class CsmsDropsTheStartProfile(ReferenceCsms):
    """K05: the operator's profile is left out of RequestStartTransactionRequest."""

    async def act_request_start_transaction_with_profile(self, evse_id, charging_profile, id_token=None,
                                                         remote_start_id=None, station=None):
        await super().act_request_start_transaction(evse_id, id_token, remote_start_id, station)


class CsmsSendsStationMaxPerEvse(ReferenceCsms):
    """K04 rule 3: the operator's station limit goes out for EVSE 1 instead of evseId 0."""

    async def act_set_charging_profile(self, evse_id, charging_profile, station=None):
        at = 1 if charging_profile["chargingProfilePurpose"] == "ChargingStationMaxProfile" else evse_id
        await super().act_set_charging_profile(at, charging_profile, station)


K02, K04, K05 = "smartcharging/test_K02.py", "smartcharging/test_K04.py", "smartcharging/test_K05.py"

FAULTS += (
    Fault("station-keeps-tx-profile-after-transaction", "K02.deleted", StationKeepsTxProfileAfterTransaction,
          (_cs(K02, "test_tx_profile_is_deleted_when_its_transaction_ends"),),
          "profiles reported after the transaction ended (GetChargingProfiles status, ids) is wrong"),
    Fault("station-composite-ignores-tx-profile", "K02.overrules", StationCompositeIgnoresTxProfile,
          (_cs(K02, "test_tx_profile_overrules_the_default"),),
          "composite periods of EVSE 1 (startPeriod, limit A)"),
    Fault("station-accepts-tx-profile-of-any-transaction", "K02.refused", StationAcceptsTxProfileOfAnyTransaction,
          (_cs(K02, "test_tx_profile_that_does_not_fit_the_transaction_is_rejected", "another-transaction"),),
          "SetChargingProfileResponse status (tx-not-found) is wrong"),
    Fault("station-starts-despite-an-invalid-profile", "K05.refused", StationStartsDespiteAnInvalidProfile,
          (_cs(K05, "test_remote_start_with_an_invalid_profile_is_rejected", "first-period-not-0"),),
          "RequestStartTransactionResponse status is wrong"),
    Fault("station-forgets-the-start-profile", "K05.applied", StationForgetsTheStartProfile,
          (_cs(K05, "test_remote_start_applies_its_profile"),),
          "the start profile as reported (evseId, purpose, transactionId) is wrong"),
    Fault("csms-drops-the-start-profile", "K05.request", CsmsDropsTheStartProfile,
          (_csms(K05, "test_csms_starts_with_the_profile_it_was_asked_for"),),
          "RequestStartTransactionRequest chargingProfile is wrong"),
    Fault("station-caps-only-the-station-level", "K04.bounded", StationCapsOnlyTheStationLevel,
          (_cs(K04, "test_no_composite_exceeds_the_station_max", "each-evse"),),
          "the composite of EVSE 1 exceeds the station max"),
    Fault("csms-sends-station-max-per-evse", "chargingprofile.sent", CsmsSendsStationMaxPerEvse,
          (_csms(K04, "test_csms_sets_the_station_max_at_evse_0"),),
          "SetChargingProfileRequest evseId is wrong"),
)


class StationClearsExternalConstraints(ReferenceStation):
    """K10: a clear whose criteria select external constraints removes them (Accepted, not Unknown)."""

    def on_ClearChargingProfile(self, session, payload):
        answer = super().on_ClearChargingProfile(session, payload)
        evse_id = sc.clear_criteria(payload, self.engine_version).evse_id
        gone = [self.profiles.release_external(e.evse_id, e.source) for e in self.profiles.installed()
                if e.profile.purpose is sc.Purpose.EXTERNAL and evse_id in (None, e.evse_id)]
        return {"status": "Accepted"} if gone else answer


class StationNotifiesExternalLimitAsCso(ReferenceStation):
    """K12: NotifyChargingLimit names the source CSO (the CSMS's own), whatever set the limit."""

    async def act_set_external_limit(self, evse_id, source, limit, unit="A"):
        await self.call("NotifyChargingLimit", {"chargingLimit": {"chargingLimitSource": "CSO"}, "evseId": evse_id})


class StationIgnoresExternalLimit(ReferenceStation):
    """K12 rule 12: the external limit is notified but never applied (the composite ignores it)."""

    async def act_set_external_limit(self, evse_id, source, limit, unit="A"):
        await self.call("NotifyChargingLimit", {"chargingLimit": {"chargingLimitSource": source}, "evseId": evse_id})


class StationReleasesSilently(ReferenceStation):
    """K13: a released external limit is dropped without ClearedChargingLimit."""

    async def act_release_external_limit(self, evse_id, source):
        self.profiles.release_external(evse_id, sc.LimitSource(source))


class StationKeepsReleasedLimit(ReferenceStation):
    """K13: ClearedChargingLimit is sent, but the released limit still bounds the composite."""

    async def act_release_external_limit(self, evse_id, source):
        await self.call("ClearedChargingLimit", {"chargingLimitSource": source, "evseId": evse_id})


class CsmsAnswersChargingLimitsWithAStatus(ReferenceCsms):
    """K12: NotifyChargingLimit is answered with a status the (empty) response does not have."""

    def on_NotifyChargingLimit(self, session, payload):
        session.connection.endpoint.validate = False
        return {"status": "Accepted"}


K12, K13 = "smartcharging/test_K12.py", "smartcharging/test_K13.py"

FAULTS += (
    Fault("station-clears-external-constraints", "K10.unknown", StationClearsExternalConstraints,
          (_cs(K10, "test_clear_of_only_external_constraints_is_unknown"),),
          "ClearChargingProfileResponse status is wrong"),
    Fault("station-notifies-external-limit-as-cso", "chargingprofile.notified", StationNotifiesExternalLimitAsCso,
          (_cs(K12, "test_external_limit_is_notified", "EMS"),),
          "chargingLimitSource is not one of the accepted values"),
    Fault("station-ignores-external-limit", "K12.bounded", StationIgnoresExternalLimit,
          (_cs(K12, "test_external_limit_bounds_the_composite"),),
          "composite periods of EVSE 1 (startPeriod, limit A)"),
    Fault("station-releases-silently", "K13.cleared", StationReleasesSilently,
          (_cs(K13, "test_released_limit_is_notified", "EMS"),),
          "the SUT did not send ClearedChargingLimit within"),
    Fault("station-keeps-released-limit", "K13.released", StationKeepsReleasedLimit,
          (_cs(K13, "test_released_limit_no_longer_bounds_the_composite"),),
          "composite periods of EVSE 1 (startPeriod, limit A)"),
    Fault("csms-answers-charging-limits-with-a-status", "rpc.schema", CsmsAnswersChargingLimitsWithAStatus,
          (_csms(K12, "test_external_limit_is_notified", "EMS"),),
          "NotifyChargingLimit response breaks its schema"),
)


class StationSilentOnRateChanges(ReferenceStation):
    """K11: an external limit cuts a charging transaction's rate, and no ChargingRateChanged event follows."""

    async def charging_rate_changed(self, evse_id):
        return None


K11 = "smartcharging/test_K11.py"

FAULTS += (
    Fault("station-silent-on-rate-changes", "K11.rate_changed", StationSilentOnRateChanges,
          (_cs(K11, "test_external_limit_changes_the_rate_of_a_transaction", "station"),),
          "the SUT did not send TransactionEvent within"),
)


class CsmsExceedsMaxScheduleTuples(ReferenceCsms):
    """K15 rule 13: the TxProfile answering an EV's needs has more periods than the EV's maxScheduleTuples."""

    def send(self, station, action, payload):
        if action == "SetChargingProfile":
            periods = payload["chargingProfile"]["chargingSchedule"][0]["chargingSchedulePeriod"]
            periods += [{"startPeriod": 600 * i, "limit": periods[0]["limit"]} for i in (1, 2)]
        super().send(station, action, payload)


class StationDropsMaxScheduleTuples(ReferenceStation):
    """K15: the EV's maxScheduleTuples is left out of NotifyEVChargingNeeds."""

    async def act_ev_charging_needs(self, evse_id, charging_needs, max_schedule_tuples=None):
        await super().act_ev_charging_needs(evse_id, charging_needs)


K15 = "smartcharging/test_K15.py"

FAULTS += (
    Fault("csms-exceeds-max-schedule-tuples", "K15.schedule", CsmsExceedsMaxScheduleTuples,
          (_csms(K15, "test_charging_needs_lead_to_a_schedule", "ac"),),
          "the TxProfile has 1 schedules of [3] periods"),
    Fault("station-drops-max-schedule-tuples", "K15.needs", StationDropsMaxScheduleTuples,
          (_cs(K15, "test_charging_needs_lead_to_a_schedule", "dc"),),
          "NotifyEVChargingNeedsRequest (evseId, chargingNeeds, maxScheduleTuples) is wrong"),
)


class StationSilentAfterRenegotiation(ReferenceStation):
    """K16 rule 14: an updated TxProfile is Accepted, but the EV's schedule is never reported."""

    def on_SetChargingProfile(self, session, payload):
        self.iso15118.clear()
        return super().on_SetChargingProfile(session, payload)


class CsmsRejectsEvSchedules(ReferenceCsms):
    """K16 (a SHOULD): the EV's schedule in NotifyEVChargingSchedule is answered Rejected."""

    def on_NotifyEVChargingSchedule(self, session, payload):
        return {"status": "Rejected"}


K16 = "smartcharging/test_K16.py"

FAULTS += (
    Fault("station-silent-after-renegotiation", "K16.reported", StationSilentAfterRenegotiation,
          (_cs(K16, "test_updated_tx_profile_is_renegotiated_with_the_ev"),),
          "the SUT did not send NotifyEVChargingSchedule within"),
    Fault("csms-rejects-ev-schedules", "K16.acknowledged", CsmsRejectsEvSchedules,
          (_csms(K16, "test_updated_tx_profile_is_renegotiated_with_the_ev"),),
          "NotifyEVChargingScheduleResponse status is wrong", verdict="finding"),
)


class StationPassesOnlyTheFirstNeeds(ReferenceStation):
    """K17: the EV's new needs in a running transaction are never passed on to the CSMS."""

    async def act_ev_charging_needs(self, evse_id, charging_needs, max_schedule_tuples=None):
        if evse_id not in self.iso15118:
            await super().act_ev_charging_needs(evse_id, charging_needs, max_schedule_tuples)


class CsmsIgnoresRenegotiation(ReferenceCsms):
    """K17 rule 13: new needs of an EV it already scheduled are answered Processing, and no TxProfile follows."""

    def on_NotifyEVChargingNeeds(self, session, payload):
        if self._needs_profiles:
            return {"status": "Processing"}
        return super().on_NotifyEVChargingNeeds(session, payload)


K17 = "smartcharging/test_K17.py"

FAULTS += (
    Fault("station-passes-only-the-first-needs", "K17.needs", StationPassesOnlyTheFirstNeeds,
          (_cs(K17, "test_ev_renegotiates_its_schedule"),),
          "the SUT did not send NotifyEVChargingNeeds within"),
    Fault("csms-ignores-renegotiation", "K17.schedule", CsmsIgnoresRenegotiation,
          (_csms(K17, "test_ev_renegotiates_its_schedule"),),
          "the SUT did not send SetChargingProfile within"),
    Fault("csms-sends-local-list-version-zero", "C13.version_positive", CsmsSendsLocalListVersionZero,
          (_csms(C13, "test_full_update_installs_the_list"),), "SendLocalListRequest versionNumber is not above 0"),
    Fault("csms-sends-full-list-without-info", "C13.full_list", CsmsSendsFullListWithoutInfo,
          (_csms(C13, "test_full_update_installs_the_list"),), "the Full list's idTokenInfo.status of"),
    Fault("station-applies-stale-differentials", "C13.mismatch", StationAppliesStaleDifferentials,
          (_cs(C13, "test_stale_differential_update_is_a_version_mismatch", "same_version"),
           _cs(C13, "test_stale_differential_update_is_a_version_mismatch", "older_version")),
          "SendLocalListResponse status of a Differential update at version"),
    Fault("station-differential-drops-unnamed-entries", "C13.differential_keeps",
          StationDifferentialDropsUnnamedEntries,
          (_cs(C13, "test_differential_update_keeps_the_entries_it_does_not_name"),),
          "[C13.differential_keeps] the SUT did not send TransactionEvent within"),
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
          (_csms21(C17, "test_prepaid_answer_expires_at_once", "credit"),
           _csms21(C17, "test_prepaid_answer_expires_at_once", "no_credit")),
          "a prepaid token's cacheExpiryDateTime is not the time of the answer", version=V21),
    Fault("csms-leaves-prepaid-transactions-unlimited", "C17.max_cost", CsmsLeavesPrepaidTransactionsUnlimited,
          (_csms21(C17, "test_prepaid_transaction_is_limited_to_its_balance"),),
          "transactionLimit.maxCost of the first Started event is wrong", version=V21),
    Fault("station-charges-without-credit", "C17.no_start", StationChargesWithoutCredit,
          (_cs21(C17, "test_no_credit_starts_no_transaction"),), "the SUT sent TransactionEvent when it must not",
          version=V21),
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


class StationLetsTheCsmsReplaceExternalConstraints(ReferenceStation):
    """K01.FR.05: a CSMS profile reusing the id of an external constraints profile is Accepted."""

    def on_SetChargingProfile(self, session, payload):
        if any(e.profile.id == payload["chargingProfile"]["id"] and e.profile.purpose is sc.Purpose.EXTERNAL
               for e in self.profiles.installed()):
            return {"status": "Accepted"}
        return super().on_SetChargingProfile(session, payload)


FAULTS += (
    Fault("station-lets-the-csms-replace-external-constraints", "K01.external_id",
          StationLetsTheCsmsReplaceExternalConstraints, (_cs(K01, "test_external_profile_cannot_be_replaced_by_id"),),
          "SetChargingProfileResponse status for the id of external constraints is wrong"),
)


class StationLiftsTheGroupLimitForPriority(ReferenceStation):
    """K03 rule 11: a transaction the CSMS gave a priority above 0 charges without the group limit."""

    def on_GetCompositeSchedule(self, session, payload):
        state = self.evses.get(payload["evseId"])
        if state is None or state.transaction is None or state.transaction.charging_priority <= 0:
            return super().on_GetCompositeSchedule(session, payload)
        return _composite_of(self, payload, lambda e: None if e.profile.purpose is sc.Purpose.STATION_MAX else e)


class CsmsGivesPriorityTen(ReferenceCsms):
    """K03 Limits: every transaction is given chargingPriority 10 (the range is -9 to 9)."""

    charging_priority = 10


K03 = "smartcharging/test_K03.py"

FAULTS += (
    Fault("station-lifts-the-group-limit-for-priority", "K03.bounded", StationLiftsTheGroupLimitForPriority,
          (_cs(K03, "test_priority_never_lifts_the_group_limit"),),
          "composite periods of EVSE 1 (startPeriod, limit A)"),
    Fault("csms-gives-priority-ten", "K03.priority", CsmsGivesPriorityTen,
          (_csms(K03, "test_csms_gives_a_priority_within_range"),),
          "the chargingPriority is out of range"),
)


def _forget_after_an_outage(station: ReferenceStation, purpose: str) -> None:
    """The station loses its profiles of ``purpose`` when it connects again after an outage."""
    if station.links:
        station.profiles.clear(sc.clear_criteria({"chargingProfileCriteria": {"chargingProfilePurpose": purpose}},
                                                 station.engine_version))


class StationDropsTxProfilesOffline(ReferenceStation):
    """K06: the TxProfile is gone after the station was offline (not kept in use)."""

    async def connected(self, connection):
        _forget_after_an_outage(self, "TxProfile")
        await super().connected(connection)


class StationForgetsDefaultsOffline(ReferenceStation):
    """K07: the TxDefaultProfile no longer applies after an outage (a transaction started offline runs free)."""

    async def connected(self, connection):
        _forget_after_an_outage(self, "TxDefaultProfile")
        await super().connected(connection)


K06, K07 = "smartcharging/test_K06.py", "smartcharging/test_K07.py"

FAULTS += (
    Fault("station-drops-tx-profiles-offline", "K06.stays", StationDropsTxProfilesOffline,
          (_cs(K06, "test_tx_profile_holds_through_an_outage", "lasting"),),
          "composite periods of EVSE 1 (startPeriod, limit A)"),
    Fault("station-forgets-defaults-offline", "K07.applied", StationForgetsDefaultsOffline,
          (_cs(K07, "test_default_applies_to_a_transaction_started_offline"),),
          "composite periods of EVSE 1 (startPeriod, limit A)"),
)


class StationLimitsOnlyTheStationTotal(ReferenceStation):
    """K14 rule 12: a station-wide external limit bounds the composite of evseId 0 but not each EVSE's."""

    def on_GetCompositeSchedule(self, session, payload):
        return _composite_of(self, payload, lambda e: None if payload["evseId"] != 0 and e.evse_id == 0
                             and e.profile.purpose is sc.Purpose.EXTERNAL else e)


class StationDropsProfilesUnderAnExternalLimit(ReferenceStation):
    """K14 rule 12: while an external limit holds, the CSMS's profiles are Accepted but never installed (so the
    higher limit never applies, even after the release)."""

    def on_SetChargingProfile(self, session, payload):
        if any(e.profile.purpose is sc.Purpose.EXTERNAL for e in self.profiles.installed()):
            return {"status": "Accepted"}
        return super().on_SetChargingProfile(session, payload)


K14 = "smartcharging/test_K14.py"

FAULTS += (
    Fault("station-limits-only-the-station-total", "K14.total", StationLimitsOnlyTheStationTotal,
          (_cs(K14, "test_total_load_never_exceeds_the_external_limit", "each-evse"),),
          "the composite of EVSE 1 exceeds the external limit"),
    Fault("station-drops-profiles-under-an-external-limit", "K14.after_release",
          StationDropsProfilesUnderAnExternalLimit, (_cs(K14, "test_higher_limit_applies_after_release"),),
          "composite periods of EVSE 1 (startPeriod, limit A)"),
)


class StationRefusesADeclaredUnit(ReferenceStation):
    """K01 Errors: the station refuses profiles in W (UnsupportedRateUnit) though its profile declares W."""

    def on_SetChargingProfile(self, session, payload):
        if any(s["chargingRateUnit"] == "W" for s in payload["chargingProfile"]["chargingSchedule"]):
            return {"status": "Rejected", "statusInfo": {"reasonCode": "UnsupportedRateUnit"}}
        return super().on_SetChargingProfile(session, payload)


FAULTS += (
    Fault("station-refuses-a-declared-unit", "chargingprofile.accepted", StationRefusesADeclaredUnit,
          (_cs(K01, "test_valid_profile_is_sent_as_asked_and_accepted", "watts"),),
          "SetChargingProfileResponse status for profile"),
)


# ------------------------------------------------------------------------ Plug and Charge faults (C07)
class CsmsAcceptsRevokedContract(ReferenceCsms):
    """C07 / Authorization rule 3: a contract certificate the OCSP responder calls revoked is Accepted."""

    async def contract_authorization(self, session, payload):
        answer = await super().contract_authorization(session, payload)
        if answer["certificateStatus"] != "CertificateRevoked":
            return answer
        return {"certificateStatus": "Accepted", "idTokenInfo": self.id_token_info(session, payload["idToken"])}


class CsmsAnswersExpiredCertificateInvalid(ReferenceCsms):
    """C07 / Authorization rule 3: an expired contract certificate is CertificateExpired with Invalid, not Expired."""

    async def contract_authorization(self, session, payload):
        answer = await super().contract_authorization(session, payload)
        expired = answer["certificateStatus"] == "CertificateExpired"
        return answer | {"idTokenInfo": {"status": "Invalid"}} if expired else answer


class CsmsSkipsOcspForWholeChains(ReferenceCsms):
    """C07 / Authorization rule 3: a whole chain is checked for signatures and validity, never at OCSP."""

    async def certificate_status(self, payload):
        if not payload.get("certificate"):
            return await super().certificate_status(payload)
        run = contract_pki.for_run(self.profile)
        return contract_pki.chain_problem(contract_pki.load_chain(payload["certificate"]), [run.root.certificate]) \
            or "Accepted"


class StationHashesTheWrongKey(ReferenceStation):
    """C07 / AuthorizeRequest iso15118CertificateHashData: issuerKeyHash is the hash of the contract
    certificate's own key, not its issuer's."""

    def contract_request(self, certificate):
        request = super().contract_request(certificate)
        if "iso15118CertificateHashData" in request:
            leaf = contract_pki.load_chain(certificate)[0]
            request["iso15118CertificateHashData"][0]["issuerKeyHash"] = contract_pki.hash_data(leaf, leaf)["issuerKeyHash"]
        return request


class StationStartsOnContractCancelled(ReferenceStation):
    """C07 / Authorization status values: the station charges on a valid certificate whose contract is
    cancelled (certificateStatus ContractCancelled), whatever idTokenInfo.status says."""

    def contract_accepted(self, answer):
        return super().contract_accepted(answer) or answer.get("certificateStatus") == "ContractCancelled"


class StationIgnoresCentralValidation(ReferenceStation):
    """C07 / Authorization rule 3: with CentralContractValidationAllowed true and a chain it cannot validate,
    the station still sends hash data instead of the chain."""

    def flag(self, component, name):
        return False if name == "CentralContractValidationAllowed" else super().flag(component, name)


class StationLeavesOutTheSubCas(ReferenceStation):
    """C07 / AuthorizeRequest certificate: the "whole chain" is the contract certificate alone."""

    def contract_request(self, certificate):
        request = super().contract_request(certificate)
        if "certificate" in request:
            request["certificate"] = certificate.split("-----END CERTIFICATE-----")[0] + "-----END CERTIFICATE-----\n"
        return request


C07 = "authorization/test_C07.py"
FAULTS += (
    Fault("csms-accepts-revoked-contract", "C07.decision", CsmsAcceptsRevokedContract,
          (_csms(C07, "test_contract_by_hash_data", "revoked"), _csms(C07, "test_contract_by_whole_chain", "revoked")),
          "AuthorizeResponse certificateStatus (certificate revoked, eMAID not applicable) is wrong"),
    Fault("csms-answers-expired-certificate-invalid", "C07.decision", CsmsAnswersExpiredCertificateInvalid,
          (_csms(C07, "test_rows_only_a_csms_can_be_asked", "expired-by-whole-chain"),),
          "AuthorizeResponse idTokenInfo.status (certificate expired, eMAID not applicable) is wrong"),
    Fault("csms-skips-ocsp-for-whole-chains", "C07.decision", CsmsSkipsOcspForWholeChains,
          (_csms(C07, "test_contract_by_whole_chain", "revoked"),),
          "AuthorizeResponse certificateStatus (certificate revoked, eMAID not applicable) is wrong"),
    Fault("station-hashes-the-wrong-key", "C07.hash_data", StationHashesTheWrongKey,
          (_cs(C07, "test_contract_by_hash_data", "valid-Accepted"),),
          "iso15118CertificateHashData issuerKeyHash (hex, SHA256) is wrong"),
    Fault("station-starts-on-contract-cancelled", "C07.starts", StationStartsOnContractCancelled,
          (_cs(C07, "test_contract_by_hash_data", "valid-Blocked"),),
          "the SUT sent TransactionEvent when it must not"),
    Fault("station-ignores-central-validation", "C07.chain", StationIgnoresCentralValidation,
          (_cs(C07, "test_contract_by_whole_chain", "unverifiable"),),
          "the AuthorizeRequest carries no PEM certificate chain in certificate"),
    Fault("station-leaves-out-the-sub-cas", "C07.chain", StationLeavesOutTheSubCas,
          (_cs(C07, "test_contract_by_whole_chain", "valid-Accepted"),),
          "the chain in certificate leaves out sub-CAs of the contract certificate"),
)


# ------------------------------------------------------------------ direct payment at the station's terminal (2.1)
class CsmsRefusesCardPayments(ReferenceCsms):
    """Direct payment rule 1: the DirectPayment token of a card the terminal authorized is refused."""

    def id_token_info(self, session, id_token, *, current_tx=None):
        info = super().id_token_info(session, id_token, current_tx=current_tx)
        return info | {"status": "Invalid"} if id_token.get("type") == "DirectPayment" else info


class CsmsChargesForCancelledPayments(ReferenceCsms):
    """Transaction event rule 1: a paid transaction cancelled without energy is answered with a cost."""

    def transaction_answer(self, session, payload):
        answer = super().transaction_answer(session, payload)
        return answer | {"totalCost": 4.5} if payload["eventType"] == "Ended" else answer


class CsmsWithholdsReceipts(ReferenceCsms):
    """Direct payment rule 2: a CSMS that makes the receipts answers a Settled settlement without receiptUrl."""

    def on_NotifySettlement(self, session, payload):
        super().on_NotifySettlement(session, payload)
        return {}


class CsmsRejectsEveryVatNumber(ReferenceCsms):
    """VatNumberValidation: a VAT number the CSMS knows is answered Rejected."""

    def on_VatNumberValidation(self, session, payload):
        return {"vatNumber": payload["vatNumber"], "status": "Rejected"}


class CsmsRefusesFailedSettlements(ReferenceCsms):
    """Direct payment rule 4: a settlement that is not Settled is refused with a CALLERROR, not recorded."""

    def on_NotifySettlement(self, session, payload):
        if payload["status"] != "Settled":
            raise CallErrorReply("InternalError", "no settlement but Settled is kept")
        return super().on_NotifySettlement(session, payload)


class CsmsRefusesRaisedLimits(ReferenceCsms):
    """Transaction event rule 2: the LimitSet event of a paid transaction is answered refusing its token."""

    def transaction_answer(self, session, payload):
        answer = super().transaction_answer(session, payload)
        return answer | {"idTokenInfo": {"status": "Invalid"}} if payload["triggerReason"] == "LimitSet" else answer


class StationSkipsPaymentAuthorization(ReferenceStation):
    """Direct payment rule 1: with AuthorizeDirectPayment true the payment starts without AuthorizeRequest."""

    async def act_card_payment(self, evse_id=1, amount=None, psp_ref=None):
        self.variables[("PaymentCtrlr", "AuthorizeDirectPayment")] = "false"
        await super().act_card_payment(evse_id, amount, psp_ref)


class StationAsksAboutUnauthorizedPayments(ReferenceStation):
    """Direct payment rule 1: with AuthorizeDirectPayment false the payment is asked about all the same."""

    async def act_card_payment(self, evse_id=1, amount=None, psp_ref=None):
        self.variables[("PaymentCtrlr", "AuthorizeDirectPayment")] = "true"
        await super().act_card_payment(evse_id, amount, psp_ref)


class StationForgetsTheCard(ReferenceStation):
    """Direct payment rule 1: the DirectPayment token is asked about without the card details."""

    async def authorize(self, id_token):
        return await super().authorize({k: v for k, v in id_token.items() if k != "additionalInfo"})


class StationStartsCancelledPayments(ReferenceStation):
    """Transaction event rule 3: a payment cancelled before the start is reported, but the cable still starts it."""

    async def act_cancel_payment(self, evse_id=1, reason="StopAuthorized"):
        payment = self.payments.get(evse_id)
        if payment is not None and self.evses[evse_id].transaction is None:
            self.background.spawn(self.notify_settlement(payment, "Canceled", 0.0, None))


class StationKeepsCancellationsQuiet(ReferenceStation):
    """Transaction event rules 1 and 3: a cancelled payment is never reported with NotifySettlement."""

    async def notify_settlement(self, payment, status, amount, transaction_id):
        if status != "Canceled":
            await super().notify_settlement(payment, status, amount, transaction_id)


class StationSettlesCancelledTransactions(ReferenceStation):
    """Transaction event rule 1: a paid transaction cancelled after its start is reported Settled."""

    async def notify_settlement(self, payment, status, amount, transaction_id):
        cancelled_after_start = status == "Canceled" and transaction_id is not None
        await super().notify_settlement(payment, "Settled" if cancelled_after_start else status, amount,
                                        transaction_id)


class StationEndsCancelledTransactionsAsDisconnected(ReferenceStation):
    """Transaction event rule 1: a cancelled paid transaction ends with triggerReason EVCommunicationLost."""

    async def act_cancel_payment(self, evse_id=1, reason="StopAuthorized"):
        await super().act_cancel_payment(evse_id, "EVCommunicationLost")


class StationSettlesSilently(ReferenceStation):
    """Direct payment rule 2: the end of a paid transaction is never reported with NotifySettlement Settled."""

    async def notify_settlement(self, payment, status, amount, transaction_id):
        if status != "Settled":
            await super().notify_settlement(payment, status, amount, transaction_id)


class StationOmitsCostDetails(ReferenceStation):
    """Direct payment rule 3: with SettlementByCSMS the Ended event of a paid transaction has no costDetails."""

    def _event(self, state, event_type, trigger, **info):
        payload = super()._event(state, event_type, trigger, **info)
        payload.pop("costDetails", None)
        return payload


class StationMistypesVatNumbers(ReferenceStation):
    """VatNumberValidation: the station validates another VAT number than the one the driver entered."""

    async def act_enter_vat_number(self, vat_number, evse_id=1):
        await super().act_enter_vat_number(vat_number[:-1], evse_id)


class StationHidesFailedSettlements(ReferenceStation):
    """Direct payment rule 4: a capture the provider rejects or that fails is reported Settled."""

    async def act_fail_settlement(self, status="Failed"):
        self.settlement_status = "Settled"


class StationIgnoresRaisedAmounts(ReferenceStation):
    """Transaction event rule 2: a raised amount is reported with the old maxCost."""

    async def act_raise_payment(self, evse_id=1, amount=100.0):
        payment = self.payments.get(evse_id)
        await super().act_raise_payment(evse_id, payment.amount if payment is not None else amount)


C18, C19, C20 = (f"authorization/test_{c}.py" for c in ("C18", "C19", "C20"))
C21, C22, C23 = (f"authorization/test_{c}.py" for c in ("C21", "C22", "C23"))

FAULTS += (
    Fault("csms-refuses-card-payments", "direct_payment.accepted", CsmsRefusesCardPayments,
          (_csms21(C18, "test_card_payment_is_authorized"),
           _csms21(C18, "test_without_authorization_the_payment_starts_directly")),
          "idTokenInfo.status of the DirectPayment token is wrong", version=V21),
    Fault("csms-charges-for-cancelled-payments", "C20.total_cost", CsmsChargesForCancelledPayments,
          (_csms21(C20, "test_payment_cancelled_after_the_start"), _csms21(C20, "test_ev_connect_timeout_costs_nothing")),
          "TransactionEventResponse totalCost of the cancelled transaction is wrong", version=V21),
    Fault("csms-withholds-receipts", "C21.receipt", CsmsWithholdsReceipts,
          (_csms21(C21, "test_paid_transaction_is_settled"),),
          "the CSMS makes the receipts but answered the settlement without receiptUrl", version=V21),
    Fault("csms-rejects-every-vat-number", "C21.vat_answer", CsmsRejectsEveryVatNumber,
          (_csms21(C21, "test_vat_number_is_validated", "known"),),
          "VatNumberValidationResponse status is wrong", version=V21),
    Fault("csms-refuses-failed-settlements", "direct_payment.recorded", CsmsRefusesFailedSettlements,
          (*(_csms21(C22, "test_failed_settlement_is_reported", o) for o in ("Rejected", "Failed")),
           _csms21(C19, "test_payment_cancelled_before_the_start"),
           _csms21(C20, "test_payment_cancelled_after_the_start")),
          "the CSMS refused a NotifySettlement", version=V21),
    Fault("csms-refuses-raised-limits", "C23.answered", CsmsRefusesRaisedLimits,
          (_csms21(C23, "test_raised_amount_is_reported"),),
          "TransactionEventResponse idTokenInfo.status of the LimitSet event is wrong", version=V21),
    Fault("station-skips-payment-authorization", "C18.authorize", StationSkipsPaymentAuthorization,
          (_cs21(C18, "test_card_payment_is_authorized"),),
          "[C18.authorize] the SUT did not send Authorize within", version=V21),
    Fault("station-asks-about-unauthorized-payments", "C18.unasked", StationAsksAboutUnauthorizedPayments,
          (_cs21(C18, "test_without_authorization_the_payment_starts_directly"),),
          "the SUT sent Authorize when it must not", version=V21),
    Fault("station-forgets-the-card", "C18.authorize", StationForgetsTheCard,
          (_cs21(C18, "test_card_payment_is_authorized"),),
          "the DirectPayment token carries no card details", version=V21),
    Fault("station-starts-cancelled-payments", "C19.no_transaction", StationStartsCancelledPayments,
          (_cs21(C19, "test_payment_cancelled_before_the_start"),),
          "the SUT sent TransactionEvent when it must not", version=V21),
    Fault("station-keeps-cancellations-quiet", "C19.cancelled", StationKeepsCancellationsQuiet,
          (_cs21(C19, "test_payment_cancelled_before_the_start"),),
          "[C19.cancelled] the SUT did not send NotifySettlement within", version=V21),
    Fault("station-settles-cancelled-transactions", "C20.cancelled", StationSettlesCancelledTransactions,
          (_cs21(C20, "test_payment_cancelled_after_the_start"),),
          "NotifySettlementRequest status is wrong", version=V21),
    Fault("station-ends-cancelled-transactions-as-disconnected", "C20.ended",
          StationEndsCancelledTransactionsAsDisconnected,
          (_cs21(C20, "test_payment_cancelled_after_the_start"),),
          "TransactionEvent Ended triggerReason is not one of the accepted values", version=V21),
    Fault("station-settles-silently", "C21.settled", StationSettlesSilently,
          (_cs21(C21, "test_paid_transaction_is_settled"),),
          "[C21.settled] the SUT did not send NotifySettlement within", version=V21),
    Fault("station-omits-cost-details", "C21.cost_details", StationOmitsCostDetails,
          (_cs21(C21, "test_settlement_by_csms_gives_cost_details"),),
          "carries no costDetails although the CSMS settles", version=V21),
    Fault("station-mistypes-vat-numbers", "C21.vat_sent", StationMistypesVatNumbers,
          (_cs21(C21, "test_vat_number_is_validated", "known"),),
          "VatNumberValidationRequest vatNumber is wrong", version=V21),
    Fault("station-hides-failed-settlements", "C22.reported", StationHidesFailedSettlements,
          tuple(_cs21(C22, "test_failed_settlement_is_reported", o) for o in ("Rejected", "Failed")),
          "NotifySettlementRequest status is wrong", version=V21),
    Fault("station-ignores-raised-amounts", "C23.limit_set", StationIgnoresRaisedAmounts,
          (_cs21(C23, "test_raised_amount_is_reported"),),
          "transactionInfo.transactionLimit.maxCost is wrong", version=V21),
)


class StationAcceptsUndeclaredUnits(ReferenceStation):
    """K01 Errors (UnsupportedRateUnit): the station takes a profile in either unit, whatever it declares."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.smart.rate_units = tuple(sc.RateUnit)


FAULTS += (
    Fault("station-accepts-undeclared-units", "K01.refused", StationAcceptsUndeclaredUnits,
          (_cs(K01, "test_profile_in_an_unsupported_unit_is_rejected"),), "SetChargingProfileResponse status",
          profile="harness/profiles/one-rate-unit.toml"),
)


# ------------------------------------------------------------------ TLS (security profiles 2 and 3)
def _self_signed(**usage) -> tuple:
    """A self-signed certificate (a server's for the loopback names, or a client's), in a directory of its own."""
    return pki.self_signed("REF-SERIAL-0001", kind=pki.RSA, **usage).write(
        Path(tempfile.mkdtemp(prefix="fault-pki-")), "self-signed")


class _NoTimeCheck(TlsEnd):
    """A server that verifies client certificates but not their validity period."""

    def server_context(self):
        context = super().server_context()
        context.verify_flags |= NO_CHECK_TIME
        return context


class _NoHostCheck(TlsEnd):
    """A client that verifies the server's chain but not that the certificate names the host."""

    def client_context(self):
        context = super().client_context()
        context.check_hostname = False
        return context


class CsmsAcceptsTls10(ReferenceCsms):
    """SP2: the CSMS speaks TLS 1.0 and up."""

    def csms_tls(self, end):
        return replace(end, versions=(ssl.TLSVersion.TLSv1, None))


class CsmsServesASelfSignedCertificate(ReferenceCsms):
    """SP2: the CSMS serves a self-signed certificate."""

    def csms_tls(self, end):
        certificate, key = _self_signed(server_names=("127.0.0.1", "localhost"))
        return replace(end, certificate=certificate, key=key)


class CsmsServesACertificateForAnotherHost(ReferenceCsms):
    """SP2: the CSMS serves a certificate of the station's trusted root, issued for another host."""

    def csms_tls(self, end):
        issued = pki.harness_pki(None).root.issue("csms", server_names=(pki.WRONG_HOST_NAME,), kind=pki.RSA)
        certificate, key = issued.write(Path(tempfile.mkdtemp(prefix="fault-pki-")), "other-host")
        return replace(end, certificate=certificate, key=key)


class CsmsAcceptsAnExpiredClientCertificate(ReferenceCsms):
    """SP3: the CSMS does not check a client certificate's validity period."""

    def csms_tls(self, end):
        return _NoTimeCheck(end.certificate, end.key, end.trust, end.versions)


class CsmsRequiresNoClientCertificate(ReferenceCsms):
    """SP3: the CSMS asks for no client certificate (so any, self-signed or none, gets in)."""

    def csms_tls(self, end):
        return replace(end, trust=None)


class StationDoesNotCheckTheServerCertificate(ReferenceStation):
    """SP2: the station verifies nothing of the server's certificate."""

    def station_tls(self, end):
        return replace(end, trust=None)


class StationOfProfile3ChecksNoServer(ReferenceStation):
    """SP2.server_checked: a station set up for security profile 3 (a client certificate, no Basic auth) verifies
    nothing of the server's certificate; played at profile 2 its upgrade is refused (401) after it took the
    certificate, which must not pass for its own refusal."""

    def basic_auth_password(self):
        return None

    def station_tls(self, end):
        return replace(end, trust=None)


class StationDoesNotCheckTheHost(ReferenceStation):
    """SP2: the station verifies the server's chain but not the host its certificate names."""

    def station_tls(self, end):
        return _NoHostCheck(end.certificate, end.key, end.trust, end.versions)


class StationOffersOnlyTls10(ReferenceStation):
    """SP2: the station speaks TLS 1.0 only."""

    def station_tls(self, end):
        return replace(end, versions=only("TLSv1.0"))


class StationAcceptsTls11(ReferenceStation):
    """SP2: the station speaks TLS 1.1 and up."""

    def station_tls(self, end):
        return replace(end, versions=(ssl.TLSVersion.TLSv1_1, None))


class StationPresentsNoClientCertificate(ReferenceStation):
    """SP3: the station presents no client certificate."""

    def station_tls(self, end):
        return replace(end, certificate=None, key=None)


class StationPresentsASelfSignedCertificate(ReferenceStation):
    """SP3: the station presents a self-signed client certificate."""

    def station_tls(self, end):
        certificate, key = _self_signed(client=True)
        return replace(end, certificate=certificate, key=key)


SP2, SP3 = "suites/ocpp/security/test_SP2.py", "suites/ocpp/security/test_SP3.py"


def security(path: str, test: str, role: str, *params: str) -> str:
    return f"{path}::{test}[{'-'.join((role, VERSION, *params))}]"


FAULTS += (
    Fault("csms-accepts-tls-1.0", "SP2.old_tls_refused", CsmsAcceptsTls10,
          (security(SP2, "test_csms_refuses_a_station_offering_only_old_tls", "csms", "TLSv1.0"),),
          "the CSMS opened the connection of a station with only TLSv1.0"),
    Fault("csms-serves-a-self-signed-certificate", "SP2.server_tls", CsmsServesASelfSignedCertificate,
          (security(SP2, "test_csms_serves_tls_with_a_valid_certificate", "csms"),),
          "self-signed certificate"),
    Fault("csms-serves-a-certificate-for-another-host", "SP2.server_tls", CsmsServesACertificateForAnotherHost,
          (security(SP2, "test_csms_serves_tls_with_a_valid_certificate", "csms"),),
          "IP address mismatch"),
    Fault("csms-accepts-an-expired-client-certificate", "SP3.client_refused", CsmsAcceptsAnExpiredClientCertificate,
          (security(SP3, "test_csms_refuses_an_invalid_client_certificate", "csms", "expired"),),
          "the CSMS opened the connection of a station with an expired client certificate"),
    Fault("csms-requires-no-client-certificate", "SP3.client_refused", CsmsRequiresNoClientCertificate,
          (security(SP3, "test_csms_refuses_an_invalid_client_certificate", "csms", "self_signed"),
           security(SP3, "test_csms_refuses_an_invalid_client_certificate", "csms", "none")),
          "the CSMS opened the connection of a station with"),
    Fault("station-does-not-check-the-server-certificate", "SP2.server_checked",
          StationDoesNotCheckTheServerCertificate,
          tuple(security(SP2, "test_station_refuses_a_server_certificate_it_cannot_verify", "cs", broken)
                for broken in ("expired", "wrong_host", "other_root", "self_signed")),
          "the station connected to a server with a"),
    Fault("station-of-profile-3-checks-no-server", "SP2.server_checked", StationOfProfile3ChecksNoServer,
          tuple(security(SP2, "test_station_refuses_a_server_certificate_it_cannot_verify", "cs", broken)
                for broken in ("expired", "other_root")),
          "the station completed the TLS handshake with a server with a"),
    Fault("station-does-not-check-the-host", "SP2.server_checked", StationDoesNotCheckTheHost,
          (security(SP2, "test_station_refuses_a_server_certificate_it_cannot_verify", "cs", "wrong_host"),),
          "the station connected to a server with a wrong host certificate"),
    Fault("station-offers-only-tls-1.0", "SP2.station_tls", StationOffersOnlyTls10,
          (security(SP2, "test_station_connects_over_tls_with_basic_auth", "cs"),),
          "offered only TLS versions older than 1.2"),
    Fault("station-accepts-tls-1.1", "SP2.old_tls_server_refused", StationAcceptsTls11,
          (security(SP2, "test_station_refuses_a_server_speaking_only_old_tls", "cs", "TLSv1.1"),),
          "the station connected to a server with only TLSv1.1"),
    Fault("station-presents-no-client-certificate", "SP3.client_presented", StationPresentsNoClientCertificate,
          (security(SP3, "test_station_presents_its_client_certificate", "cs"),),
          "presented no client certificate"),
    Fault("station-presents-a-self-signed-certificate", "SP3.client_presented", StationPresentsASelfSignedCertificate,
          (security(SP3, "test_station_presents_its_client_certificate", "cs"),),
          "presented a client certificate the harness could not verify"),
)
