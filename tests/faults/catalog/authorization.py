"""Authorization faults (C01, C02, C04-C06, C08-C12): the order of checks and what idTokenInfo
carries, the start button, case and additionalInfo, HLC and group tokens, the authorization
cache, remote start and stop."""

from __future__ import annotations

from harness.reference import ReferenceCsms, ReferenceStation
from harness.reference.tokens import token_key

from .records import Fault, cs_test, csms_test


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


class StationEndsOnAnyAcceptedToken(ReferenceStation):
    """C09 / TC_C_04_CS: any accepted token presented during a transaction ends it, whatever its group."""

    async def _present(self, id_token, evse_id):
        state = self._evse_for_token(id_token, evse_id)
        tx = state.transaction
        if tx is not None and tx.id_token and token_key(tx.id_token) != token_key(id_token):
            if (await self.authorize(id_token))["status"] == "Accepted":
                await self.end_transaction(state, "StopAuthorized", "Local", id_token)
            return
        await super()._present(id_token, evse_id)


class StationAsksDespiteDisablePostAuthorize(ReferenceStation):
    """C12 / AuthCacheCtrlr.DisablePostAuthorize: a cached refusal is asked about again although the variable is
    on (the CSMS refuses it again: nothing starts)."""

    def flag(self, component, name):
        return False if (component, name) == ("AuthCacheCtrlr", "DisablePostAuthorize") else super().flag(component, name)


class StationChargesCachedRefusalsUnasked(ReferenceStation):
    """C12 / DisablePostAuthorize: not asking about a cached refusal, the station takes it for an acceptance."""

    async def decision(self, id_token):
        cached = self.cached(id_token)
        info = await super().decision(id_token)
        unasked = cached is not None and cached["status"] != "Accepted" \
            and self.flag("AuthCacheCtrlr", "DisablePostAuthorize")
        return info | {"status": "Accepted"} if unasked else info


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


C01, C04, C05 = "authorization/test_C01.py", "authorization/test_C04.py", "authorization/test_C05.py"


class CsmsAnswersEventsWithoutTokenInfo(ReferenceCsms):
    """C08 / TransactionEventResponse: a TransactionEvent that carries a token is answered without idTokenInfo
    (nothing said of the token; a lenient station would read it as Accepted)."""

    def on_TransactionEvent(self, session, payload):
        answer = super().on_TransactionEvent(session, payload)
        answer.pop("idTokenInfo", None)
        return answer


class CsmsLeavesNoAuthorizationUnanswered(ReferenceCsms):
    """C02 / Authorization rule 2: a TransactionEvent with the start button's NoAuthorization token is answered
    without idTokenInfo (rule 2 names the answer: Accepted)."""

    def on_TransactionEvent(self, session, payload):
        answer = super().on_TransactionEvent(session, payload)
        if (payload.get("idToken") or {}).get("type") == "NoAuthorization":
            answer.pop("idTokenInfo", None)
        return answer


class CsmsForgetsTheGroupAtTheEnd(ReferenceCsms):
    """C09 / Authorization rule 5 (TC_C_43): the TransactionEventResponse to the event that ends a transaction
    with a member's token leaves out its groupIdToken."""

    def on_TransactionEvent(self, session, payload):
        answer = super().on_TransactionEvent(session, payload)
        if payload["eventType"] == "Ended" and "idTokenInfo" in answer:
            answer["idTokenInfo"] = {k: v for k, v in answer["idTokenInfo"].items() if k != "groupIdToken"}
        return answer


C02, C06, C08, C09 = (f"authorization/test_{c}.py" for c in ("C02", "C06", "C08", "C09"))


C10, C11, C12 = (f"authorization/test_{c}.py" for c in ("C10", "C11", "C12"))


FAULTS: tuple[Fault, ...] = (
    Fault("csms-accepts-blocked-token", "C01.status", CsmsAcceptsBlockedToken,
          (csms_test(C01, "test_presented_token_gets_its_status", "Blocked"),),
          "idTokenInfo.status for the blocked token is wrong"),
    Fault("csms-checks-expired-before-blocked", "C01.blocked_first",
          CsmsChecksExpiredBeforeBlocked, (csms_test(C01, "test_blocked_is_checked_before_expired"),),
          "idTokenInfo.status of a token both blocked and expired is wrong"),
    Fault("csms-drops-group-id-token", "authorize.group", CsmsDropsGroupIdToken,
          (csms_test(C01, "test_group_token_is_answered_with_its_group"),),
          "AuthorizeResponse for group_member_a lacks its groupIdToken"),
    Fault("csms-ignores-active-transactions", "C01.concurrent",
          CsmsIgnoresActiveTransactions, (csms_test(C01, "test_token_in_a_transaction_is_concurrent"),),
          "TransactionEventResponse idTokenInfo.status of a second transaction with the token is wrong"),
    Fault("csms-trusts-transaction-event-tokens", "C01.event_token",
          CsmsTrustsTransactionEventTokens, (csms_test(C01, "test_token_is_checked_again_in_transaction_event"),),
          "TransactionEventResponse idTokenInfo.status is wrong"),
    Fault("csms-refuses-its-own-central-token", "remote_start.own_token", CsmsRefusesItsOwnCentralToken,
          (csms_test(C05, "test_remote_start_is_correlated_by_remote_start_id"),
           csms_test(C05, "test_remote_stop_ends_the_transaction")),
          "TransactionEventResponse idTokenInfo.status is wrong"),
    Fault("station-starts-for-rejected-token", "C01.rejected_no_start",
          StationStartsForRejectedToken, (cs_test(C01, "test_station_starts_only_for_an_accepted_token", "Invalid"),
                                          cs_test(C01, "test_station_refuses_a_token_presented_after_the_cable",
                                                  "Expired")),
          "the SUT sent TransactionEvent when it must not"),
    Fault("station-hangs-up-instead-of-authorizing", "authorize.sent", StationHangsUpOnATokenInsteadOfAuthorizing,
          (cs_test(C01, "test_station_starts_only_for_an_accepted_token", "Invalid"),),
          "the SUT closed the connection (1000) before it sent Authorize"),
    Fault("station-sends-pin-as-iso14443", "C04.keycode",
          StationSendsEveryTokenAsIso14443, (cs_test(C04, "test_valid_pin_is_accepted"),),
          "AuthorizeRequest idToken.type is wrong"),
    Fault("station-accepts-stop-of-unknown-transaction", "C05.stop_unknown", StationAcceptsStopOfUnknownTransaction,
          (cs_test(C05, "test_remote_stop_of_an_unknown_transaction_is_rejected"),),
          "RequestStopTransactionResponse status is wrong"),
    Fault("station-repeats-seq-no", "C05.seq_no", StationRepeatsSeqNo,
          (cs_test(C05, "test_remote_stop_ends_the_transaction"),),
          "seqNo is not above the one of the transaction's earlier TransactionEvent", verdict="finding"),
    Fault("station-loses-remote-start-id", "C05.remote_start_id",
          StationLosesRemoteStartId, (cs_test(C05, "test_remote_start_is_correlated_by_remote_start_id"),),
          "the SUT did not send TransactionEvent within"),
    Fault("station-accepts-remote-start-on-unknown-evse", "C05.refused",
          StationAcceptsRemoteStartOnUnknownEvse, (cs_test(C05, "test_remote_start_on_unknown_evse_is_rejected"),),
          "RequestStartTransactionResponse status is wrong"),
    Fault("station-ignores-remote-stop", "C05.stop_ends",
          StationAcceptsRemoteStopButKeepsCharging, (cs_test(C05, "test_remote_stop_ends_the_transaction"),),
          "the SUT did not send TransactionEvent within"),
    Fault("csms-answers-language2-alone", "C01.languages", CsmsAnswersLanguage2Alone,
          (csms_test(C01, "test_presented_token_gets_its_status", "Accepted"),),
          "idTokenInfo has language2 without language1"),
    Fault("station-ignores-evse-restriction", "C01.evse_only", StationIgnoresEvseRestriction,
          (cs_test(C01, "test_station_honours_the_evse_restriction", "other_evse"),),
          "the SUT sent TransactionEvent when it must not"),
    Fault("station-charges-statuses-it-does-not-know", "C01.rejected_no_start", StationChargesStatusesItDoesNotKnow,
          (cs_test(C01, "test_station_starts_only_for_an_accepted_token", "Unknown"),
           cs_test(C01, "test_station_starts_only_for_an_accepted_token", "NoCredit"),
           cs_test(C01, "test_station_refuses_a_token_presented_after_the_cable", "Unknown")),
          "the SUT sent TransactionEvent when it must not"),
    Fault("station-refuses-personal-messages", "C01.optional_fields", StationRefusesPersonalMessages,
          (cs_test(C01, "test_station_charges_with_every_optional_field"),),
          "the SUT did not send TransactionEvent within"),
    Fault("csms-leaves-no-authorization-unanswered", "C02.accepted", CsmsLeavesNoAuthorizationUnanswered,
          (csms_test(C02, "test_start_button_starts_without_authorization", "button_first"),),
          "idTokenInfo.status for a NoAuthorization idToken"),
    Fault("csms-refuses-no-authorization", "C02.accepted", CsmsRefusesNoAuthorization,
          (csms_test(C02, "test_start_button_starts_without_authorization", "cable_first"),),
          "TransactionEventResponse idTokenInfo.status for a NoAuthorization idToken is wrong"),
    Fault("station-authorizes-start-button", "C02.no_authorize", StationAuthorizesStartButton,
          (cs_test(C02, "test_start_button_starts_without_authorization", "button_first"),),
          "the SUT sent Authorize when it must not"),
    Fault("csms-minds-the-case", "C06.case_insensitive", CsmsMindsTheCase,
          (csms_test(C06, "test_id_token_comparison_is_case_insensitive", "Accepted"),),
          "idTokenInfo.status of valid with its idToken as aa00000001 is wrong"),
    Fault("csms-compares-additional-info", "C06.additional_info", CsmsComparesAdditionalInfo,
          (csms_test(C06, "test_additional_info_is_ignored", "Blocked"),),
          "idTokenInfo.status of blocked with additionalInfo is wrong"),
    Fault("csms-answers-events-without-token-info", "C08.event_info", CsmsAnswersEventsWithoutTokenInfo,
          (csms_test(C08, "test_external_identification_with_hlc", "Accepted"),),
          "the TransactionEventResponse to the Started event that carries the token has no idTokenInfo"),
    Fault("station-trusts-every-token-over-hlc", "C08.starts", StationTrustsEveryTokenOverHlc,
          (cs_test(C08, "test_external_identification_with_hlc", "Blocked"),),
          "the SUT sent TransactionEvent when it must not"),
    Fault("csms-groups-of-type-local", "C09.central", CsmsGroupsOfTypeLocal,
          (csms_test(C09, "test_members_are_answered_with_their_group"),),
          "groupIdToken.type for group_member_a is wrong", verdict="finding"),
    Fault("csms-forgets-the-group-at-the-end", "authorize.group", CsmsForgetsTheGroupAtTheEnd,
          tuple(csms_test(C09, "test_member_stops_another_members_transaction", p) for p in ("a_then_b", "b_then_a")),
          "TransactionEventResponse for"),
    Fault("station-lets-only-the-starter-stop", "C09.member_stops", StationLetsOnlyTheStarterStop,
          (cs_test(C09, "test_member_stops_another_members_transaction", "a_then_b"),
           cs_test(C09, "test_cached_member_stops_another_members_transaction")),
          "the SUT did not send TransactionEvent within"),
    Fault("station-ends-on-any-accepted-token", "C09.other_keeps", StationEndsOnAnyAcceptedToken,
          (cs_test(C09, "test_other_token_does_not_stop_the_transaction"),),
          "the SUT sent TransactionEvent when it must not"),
    Fault("csms-answers-cached-starts-without-status", "C12.rechecked", CsmsAnswersCachedStartsWithoutStatus,
          (csms_test(C12, "test_cached_start_is_checked_again", "Blocked"),),
          "the TransactionEventResponse of a transaction with an idToken lacks idTokenInfo"),
    Fault("station-ignores-its-cache", "C12.cached_start", StationIgnoresItsCache,
          (cs_test(C12, "test_cached_token_starts_without_authorize"),
           cs_test(C12, "test_cached_token_before_the_cable_starts_once_plugged")),
          "the SUT sent Authorize when it must not"),
    Fault("station-keeps-charging-when-deauthorized", "C12.deauthorized", StationKeepsChargingWhenDeauthorized,
          (cs_test(C12, "test_refused_cached_start_is_stopped", "Blocked"),
           cs_test(C12, "test_refused_cached_start_is_stopped", "NoCredit"),
           cs_test(C12, "test_refused_cached_start_is_stopped", "ConcurrentTx")),
          "the SUT did not send TransactionEvent within"),
    Fault("station-trusts-cached-refusals", "C12.asked_again", StationTrustsCachedRefusals,
          (cs_test(C12, "test_cached_refusal_is_asked_again", "Blocked"),),
          "the SUT did not send Authorize within"),
    Fault("station-asks-despite-disable-post-authorize", "C12.not_asked", StationAsksDespiteDisablePostAuthorize,
          (cs_test(C12, "test_cached_refusal_is_final_with_post_authorize_disabled"),),
          "the SUT sent Authorize when it must not", verdict="finding"),
    Fault("station-charges-cached-refusals-unasked", "C12.refusal_final", StationChargesCachedRefusalsUnasked,
          (cs_test(C12, "test_cached_refusal_is_final_with_post_authorize_disabled"),),
          "the SUT sent TransactionEvent when it must not"),
    Fault("csms-echoes-additional-info-in-groups", "C10.no_additional_info", CsmsEchoesAdditionalInfoInGroups,
          (csms_test(C10, "test_answers_for_the_cache_carry_no_additional_info", "Authorize"),
           csms_test(C10, "test_answers_for_the_cache_carry_no_additional_info", "TransactionEvent")),
          "idTokenInfo.groupIdToken carries additionalInfo"),
    Fault("csms-never-clears-caches", "C11.sent", CsmsNeverClearsCaches,
          (csms_test(C11, "test_clear_cache", "enabled"),),
          "the SUT did not send ClearCache within"),
    Fault("station-ignores-cache-expiry", "C10.expiry", StationIgnoresCacheExpiry,
          (cs_test(C10, "test_expired_entry_is_not_used"),),
          "the SUT did not send Authorize within"),
    Fault("station-caches-only-authorize-answers", "C10.updated", StationCachesOnlyAuthorizeAnswers,
          (cs_test(C10, "test_cache_follows_transaction_event_answers"),),
          "the SUT did not send Authorize within"),
    Fault("station-pre-authorizes-regardless", "C10.pre_authorize", StationPreAuthorizesRegardless,
          (cs_test(C10, "test_cache_without_local_pre_authorize_asks"),),
          "the SUT did not send Authorize within"),
    Fault("station-clears-disabled-cache", "C11.status", StationClearsDisabledCache,
          (cs_test(C11, "test_clear_cache", "disabled"),),
          "ClearCacheResponse status is wrong"),
    Fault("station-accepts-clear-cache-but-keeps-entries", "C11.emptied", StationAcceptsClearCacheButKeepsEntries,
          (cs_test(C11, "test_cleared_cache_asks_again"),),
          "the SUT did not send Authorize within"),
)
