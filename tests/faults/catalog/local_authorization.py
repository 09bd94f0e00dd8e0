"""Local authorization faults (C13-C17): the local list and its versions, offline
transactions, the master pass, prepaid tokens (2.1)."""

from __future__ import annotations

import asyncio
from datetime import timedelta

from harness import clock
from harness.reference import ReferenceCsms, ReferenceStation
from harness.reference.tokens import token_key

from .records import V21, Fault, cs21_test, cs_test, csms21_test, csms_test


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


class StationForgetsItsCacheOffline(ReferenceStation):
    """C12 offline: a token the cache holds as Accepted starts nothing while the CSMS cannot be asked (and the
    station starts nothing for a token it does not know offline either)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.offline_tx_for_unknown_id = False

    def cached(self, id_token):
        return super().cached(id_token) if self.online else None


C13, C14, C15 = "authorization/test_C13.py", "authorization/test_C14.py", "authorization/test_C15.py"


class StationStopsEveryTransactionRegardless(ReferenceStation):
    """C16.FR.01: the master pass holder's selection at the UI is ignored; every running transaction ends."""

    async def master_pass(self, id_token, info, evse_ids=None):
        return await super().master_pass(id_token, info)


C16, C17 = "authorization/test_C16.py", "authorization/test_C17.py"


FAULTS: tuple[Fault, ...] = (
    Fault("csms-sends-local-list-version-zero", "C13.version_positive", CsmsSendsLocalListVersionZero,
          (csms_test(C13, "test_full_update_is_sent_as_asked"),), "SendLocalListRequest versionNumber is not above 0"),
    Fault("csms-sends-full-list-without-info", "C13.full_list", CsmsSendsFullListWithoutInfo,
          (csms_test(C13, "test_full_update_is_sent_as_asked"),), "the Full list's idTokenInfo.status of"),
    Fault("station-applies-stale-differentials", "C13.mismatch", StationAppliesStaleDifferentials,
          (cs_test(C13, "test_stale_differential_update_is_a_version_mismatch", "same_version"),
           cs_test(C13, "test_stale_differential_update_is_a_version_mismatch", "older_version")),
          "SendLocalListResponse status of a Differential update at version"),
    Fault("station-differential-drops-unnamed-entries", "C13.differential_keeps",
          StationDifferentialDropsUnnamedEntries,
          (cs_test(C13, "test_differential_update_keeps_the_entries_it_does_not_name"),),
          "[C13.differential_keeps] the SUT did not send TransactionEvent within"),
    Fault("station-merges-full-updates", "C13.full_replaces", StationMergesFullUpdates,
          (cs_test(C13, "test_full_update_replaces_the_list"),),
          "[C13.full_replaces] the SUT did not send Authorize within"),
    Fault("station-keeps-deleted-tokens", "C13.deleted", StationKeepsDeletedTokens,
          (cs_test(C13, "test_differential_delete_removes_the_token"),),
          "[C13.deleted] the SUT did not send Authorize within"),
    Fault("station-forgets-its-list-version", "C13.reports_version", StationForgetsItsListVersion,
          (cs_test(C13, "test_full_update_installs_the_list"),),
          "GetLocalListVersionResponse versionNumber after the Full update is wrong"),
    Fault("station-ignores-its-local-list-online", "C14.started_without_authorize", StationIgnoresItsLocalListOnline,
          (cs_test(C14, "test_listed_token_starts_without_authorize", "unknown"),),
          "[C14.started_without_authorize] the SUT did not send TransactionEvent within"),
    Fault("station-hides-that-it-was-offline", "C14.offline_flag", StationHidesThatItWasOffline,
          (cs_test(C14, "test_listed_token_starts_offline"),), "TransactionEvent offline is wrong"),
    Fault("csms-refuses-offline-events", "C14.offline_checked", CsmsRefusesOfflineEvents,
          (csms_test(C14, "test_listed_token_starts_offline"),),
          "TransactionEventResponse idTokenInfo.status of an offline event is wrong"),
    Fault("station-suspends-instead-of-ending", "C15.ended", StationSuspendsInsteadOfEnding,
          (cs_test(C15, "test_refused_offline_transaction_moves_as_configured"),
           cs_test(C15, "test_refused_offline_start_from_the_cache_moves_as_configured", "StopTxOnInvalidId")),
          "TransactionEvent eventType is wrong"),
    Fault("station-starts-nothing-offline-for-unknown-tokens", "C15.unknown_started",
          StationStartsNothingOfflineForUnknownTokens,
          (cs_test(C15, "test_unknown_token_offline"),),
          "[C15.unknown_started] the SUT did not send TransactionEvent within"),
    Fault("csms-accepts-offline-events", "C15.rejected", CsmsAcceptsOfflineEvents,
          (csms_test(C15, "test_unknown_token_offline"),),
          "TransactionEventResponse idTokenInfo.status of an offline event with an unknown token is wrong"),
    Fault("station-ends-master-pass-stops-as-local", "C16.reason", StationEndsMasterPassStopsAsLocal,
          (cs_test(C16, "test_master_pass_stops_every_transaction"),
           cs_test(C16, "test_master_pass_holder_stops_the_selected_transactions", "first")),
          "TransactionEvent transactionInfo.stoppedReason is wrong"),
    Fault("station-stops-every-transaction-regardless", "C16.stops_selected", StationStopsEveryTransactionRegardless,
          (cs_test(C16, "test_master_pass_holder_stops_the_selected_transactions", "first"),),
          "the SUT sent TransactionEvent when it must not"),
    Fault("station-takes-the-master-pass-for-a-driver", "C16.no_start", StationTakesTheMasterPassForADriver,
          (cs_test(C16, "test_master_pass_starts_no_transaction"),), "the SUT sent TransactionEvent when it must not"),
    Fault("csms-hides-the-master-pass-group", "C16.group", CsmsHidesTheMasterPassGroup,
          (csms_test(C16, "test_master_pass_is_answered_with_its_group"),
           csms_test(C16, "test_master_pass_holder_stops_the_selected_transactions", "all")),
          "AuthorizeResponse idTokenInfo.groupIdToken.idToken (case-insensitive) is wrong"),
    Fault("csms-lets-prepaid-answers-be-cached", "C17.expires", CsmsLetsPrepaidAnswersBeCached,
          (csms21_test(C17, "test_prepaid_answer_expires_at_once", "credit"),
           csms21_test(C17, "test_prepaid_answer_expires_at_once", "no_credit")),
          "a prepaid token's cacheExpiryDateTime is not the time of the answer", version=V21),
    Fault("csms-leaves-prepaid-transactions-unlimited", "C17.max_cost", CsmsLeavesPrepaidTransactionsUnlimited,
          (csms21_test(C17, "test_prepaid_transaction_is_limited_to_its_balance"),),
          "transactionLimit.maxCost of the first Started event is wrong", version=V21),
    Fault("station-charges-without-credit", "C17.no_start", StationChargesWithoutCredit,
          (cs21_test(C17, "test_no_credit_starts_no_transaction"),), "the SUT sent TransactionEvent when it must not",
          version=V21),
    Fault("station-forgets-its-cache-offline", "C15.cached_started", StationForgetsItsCacheOffline,
          (cs_test(C15, "test_refused_offline_start_from_the_cache_moves_as_configured", "StopTxOnInvalidId"),),
          "the SUT did not send TransactionEvent within"),
)
