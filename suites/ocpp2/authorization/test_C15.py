"""C15 — Offline authorization of an unknown identifier, and what a refused offline transaction does.

Offline, a station starts a transaction for a token it does not know only when
OfflineTxForUnknownIdEnabled is true; back online it reports the transaction with offline true, and
the CSMS validates that token like any other, answering an unknown one with a rejecting status
(Authorization rule 9). The station then moves the refused transaction as its settings say (spec 001
moves "Offline-authorized transaction"): StopTxOnInvalidId with a TxStopPoint holding Authorized,
PowerPathClosed or EnergyTransfer ends it (stoppedReason DeAuthorized); StopTxOnInvalidId without
them suspends it (Updated, triggerReason Deauthorized, SuspendedEVSE); without StopTxOnInvalidId it
goes on when MaxEnergyOnInvalidId is set and is suspended when it is not.
The same moves follow a start from the authorization cache while offline (C12; TC_C_15, TC_C_16), the token
refused once the station is back.

A station under test is judged by the settings its profile declares ([authorization]); the harness
does not change them. The token is one the profile says the CSMS does not know (status Invalid).
"""

import pytest

from harness.roles import CS, CSMS
from harness.errors import NotApplicable
from harness.rules import RuleTable, must
from harness.suite import OCPP2, TC, case, checks, needs
from harness.usecases.authorization import charge_once, station_cache_on, token_with
from harness.usecases.local_list import carries, present_offline, started_with
from harness.verdict import check_equal, dig, require

STOPPED_WHEN_DEAUTHORIZED = {"Authorized", "PowerPathClosed", "EnergyTransfer"}


class C15(RuleTable):
    """The rules of C15 (spec 001 C15, moves "Offline-authorized transaction", Authorization rule 9)."""
    unknown_started = must("spec 001 C15 (OfflineTxForUnknownIdEnabled)",
                           "offline, with OfflineTxForUnknownIdEnabled true, an unknown token starts a transaction, "
                           "reported once the station is back", by=CS)
    unknown_refused = must("spec 001 C15 (OfflineTxForUnknownIdEnabled)",
                           "offline, with OfflineTxForUnknownIdEnabled false, an unknown token starts no transaction",
                           by=CS)
    cached_started = must("spec 001 Use cases C12; Authorization rule 7; AuthCtrlr.LocalPreAuthorize",
                          "offline, a token the cache holds as Accepted starts a transaction, reported once the "
                          "station is back", by=CS)
    reported_offline = must("spec 001 TransactionEventRequest (offline); OCPP 2.0.1 C15.FR.02",
                            "the transaction started offline is reported with offline true", by=CS)
    rejected = must("spec 001 Authorization rule 9",
                    "an offline TransactionEvent whose token the CSMS does not know is answered Invalid", by=CSMS)
    ended = must("spec 001 Moves: Offline-authorized transaction (StopTxOnInvalidId, TxStopPoint with Authorized, "
                 "PowerPathClosed or EnergyTransfer); OCPP 2.0.1 C15.FR.04",
                 "the refused transaction ends: TransactionEvent Ended with stoppedReason DeAuthorized", by=CS)
    suspended = must("spec 001 Moves: Offline-authorized transaction (StopTxOnInvalidId, TxStopPoint without those "
                     "values); OCPP 2.0.1 C15.FR.03",
                     "energy stops: TransactionEvent Updated with triggerReason Deauthorized and chargingState "
                     "SuspendedEVSE", by=CS)
    continues = must("spec 001 Moves: Offline-authorized transaction (StopTxOnInvalidId false, MaxEnergyOnInvalidId "
                     "set)", "the refused transaction goes on until the energy limit: it is not ended", by=CS)
    paused = must("spec 001 Moves: Offline-authorized transaction (StopTxOnInvalidId false, MaxEnergyOnInvalidId "
                  "unset)", "energy stops: a TransactionEvent with chargingState SuspendedEVSE", by=CS)


pytestmark = case("C15", block="Authorization", roles=("csms", "cs"), protocols=OCPP2)


def _unknown(profile):
    plain = [t for t in profile.tokens_with("Invalid") if not t.also]
    if not plain:
        raise NotApplicable("the profile declares no idToken the CSMS does not know (status Invalid)")
    return plain[0]


def _setting(given, name):
    """A station setting the test's expectation depends on."""
    value = given.profile.authorization(name)
    if value is None:
        raise NotApplicable(f"the profile does not declare the station's [authorization] {name}; add it")
    return value


async def _offline_start(ocpp, profile, token):
    """The token is presented while the station is offline; returns its Started event, reported after the outage
    (the harness's own station starts for an unknown token offline)."""
    await present_offline(ocpp, token, profile.evses[0].id, C15.unknown_started)
    return await started_with(ocpp, token, 0, C15.unknown_started)


@checks(C15.unknown_started, C15.reported_offline, C15.unknown_refused, C15.rejected,
        cs=TC("TC_C_26_CS", "ocpp2.0.1"))
@needs(lambda given: _unknown(given.profile))
async def test_unknown_token_offline(ocpp, profile):
    """An unknown token is presented while the station is offline. A station whose profile says
    OfflineTxForUnknownIdEnabled starts a transaction and, back online, reports it with offline true; one
    whose profile says it is disabled starts nothing. A CSMS answers the offline event of the harness's
    station (which starts) Invalid."""
    token = _unknown(profile)
    if ocpp.is_sut(CS) and profile.authorization("offline_tx_for_unknown_id") is None:
        raise NotApplicable("the profile does not declare the station's [authorization] offline_tx_for_unknown_id; "
                            "add it")
    if ocpp.is_sut(CS) and not profile.authorization("offline_tx_for_unknown_id"):
        await present_offline(ocpp, token, profile.evses[0].id, C15.unknown_refused)
        await ocpp.expect_none("TransactionEvent", after=0, where=carries(token), rule=C15.unknown_refused)
        return
    event = await _offline_start(ocpp, profile, token)
    if ocpp.is_sut(CSMS):
        require(event.error is None, C15.rejected, "the CSMS answered the offline TransactionEvent with a CALLERROR",
                expected="TransactionEventResponse", actual=event.error)
        check_equal(C15.rejected, "TransactionEventResponse idTokenInfo.status of an offline event with an "
                    "unknown token", "Invalid", dig(event.result, "idTokenInfo.status"))
        return
    check_equal(C15.reported_offline, "TransactionEvent offline", True, event.request.get("offline", False))


def _move(profile):
    """The rule the station's settings make its reaction to a refused offline transaction."""
    if profile.authorization("stop_tx_on_invalid_id"):
        stops = STOPPED_WHEN_DEAUTHORIZED & set(profile.authorization("tx_stop_point", ()))
        return C15.ended if stops else C15.suspended
    return C15.continues if profile.authorization("max_energy_on_invalid_id") else C15.paused


@checks(C15.unknown_started, C15.ended, C15.suspended, C15.continues, C15.paused)
@pytest.mark.sut_roles("cs")
@needs(lambda given: _unknown(given.profile), lambda given: _setting(given, "stop_tx_on_invalid_id"),
       lambda given: _setting(given, "tx_stop_point"))
async def test_refused_offline_transaction_moves_as_configured(ocpp, profile):
    """Once back, the harness answers the offline transaction's unknown token Invalid; the station ends,
    suspends or continues it as StopTxOnInvalidId, TxStopPoint and MaxEnergyOnInvalidId say."""
    if not profile.authorization("offline_tx_for_unknown_id", False):
        raise NotApplicable("the station starts nothing for an unknown token offline "
                            "([authorization] offline_tx_for_unknown_id = false)")
    token = _unknown(profile)
    started = await _offline_start(ocpp, profile, token)
    await _moves_as_configured(ocpp, profile, token, started.request["transactionInfo"]["transactionId"])


async def _moves_as_configured(ocpp, profile, token, transaction_id):
    """The refused offline transaction ends, is suspended or goes on as the station's declared settings say,
    after the answer to the event that carried ``token`` (the Started one, or an Updated one after it when the
    station started the transaction at the cable)."""
    ours = lambda p: p["transactionInfo"]["transactionId"] == transaction_id
    refused = ocpp.sent("TransactionEvent", sender=CS, after=0, where=lambda p: ours(p) and carries(token)(p))[0]
    after = ocpp.mark_after(refused)
    rule = _move(profile)
    if rule is C15.continues:   # energy may stop at the limit (how soon depends on the EV): only an end is wrong
        await ocpp.expect_none("TransactionEvent", after=after, rule=rule,
                               where=lambda p: ours(p) and p["eventType"] == "Ended")
        return
    moved = await ocpp.expect("TransactionEvent", sender=CS, after=after, where=ours, rule=rule)
    if rule is C15.ended:
        check_equal(rule, "TransactionEvent eventType", "Ended", moved.request["eventType"])
        check_equal(rule, "TransactionEvent transactionInfo.stoppedReason", "DeAuthorized",
                    dig(moved.request, "transactionInfo.stoppedReason"))
        return
    check_equal(rule, "TransactionEvent eventType", "Updated", moved.request["eventType"])
    check_equal(rule, "TransactionEvent transactionInfo.chargingState", "SuspendedEVSE",
                dig(moved.request, "transactionInfo.chargingState"))
    if rule is C15.suspended:
        check_equal(rule, "TransactionEvent triggerReason", "Deauthorized", moved.request["triggerReason"])


# the station's declared settings → the public case that plays a refused offline start from the cache with them
# (OCPP 2.0.1 Part 6, block C, use case C12)
CACHED_SETTINGS = {"StopTxOnInvalidId": "TC_C_16_CS", "MaxEnergyOnInvalidId": "TC_C_15_CS", "neither": None}


def _settings_are(profile, setting):
    declared = ("StopTxOnInvalidId" if profile.authorization("stop_tx_on_invalid_id")
                else "MaxEnergyOnInvalidId" if profile.authorization("max_energy_on_invalid_id") else "neither")
    if declared != setting:
        raise NotApplicable(f"the profile declares the station's settings as {declared} "
                            f"([authorization] stop_tx_on_invalid_id, max_energy_on_invalid_id), not {setting}")


def _cached_setting(setting):
    tc = CACHED_SETTINGS[setting]
    return pytest.param(setting, marks=checks(C15.cached_started, C15.reported_offline, C15.ended, C15.suspended,
                                              C15.continues, C15.paused,
                                              **({"cs": TC(tc, "ocpp2.0.1")} if tc else {})))


@pytest.mark.sut_roles("cs")
@pytest.mark.requires("authorization_cache")
@pytest.mark.parametrize("setting", [_cached_setting(s) for s in CACHED_SETTINGS])
@needs(lambda given: token_with(given.profile, "Accepted"), lambda given: _setting(given, "stop_tx_on_invalid_id"),
       lambda given: _setting(given, "tx_stop_point"))
@needs(lambda given: _settings_are(given.profile, given.params["setting"]), variant=True)
async def test_refused_offline_start_from_the_cache_moves_as_configured(ocpp, profile, setting):
    """The token, charged once (so cached as Accepted), is presented while the station is offline and starts from
    the cache; once back, the harness answers it Invalid (it was blocked meanwhile): the station ends, suspends or
    continues the transaction as StopTxOnInvalidId, TxStopPoint and MaxEnergyOnInvalidId say (C12 with C15's
    moves; the parameter is the setting the profile declares, the others are not applicable: the embedded run
    leaves them out, harness/profiles/max-energy-on-invalid-id.toml and keep-on-invalid-id.toml play them)."""
    token, evse = token_with(profile, "Accepted"), profile.evses[0].id
    await station_cache_on(ocpp)
    await charge_once(ocpp, token, evse, C15.cached_started)
    ocpp.configure(token_status={token.id: "Invalid"})
    await present_offline(ocpp, token, evse, C15.cached_started)
    started = await started_with(ocpp, token, 0, C15.cached_started)
    check_equal(C15.reported_offline, "TransactionEvent offline", True, started.request.get("offline", False))
    await _moves_as_configured(ocpp, profile, token, started.request["transactionInfo"]["transactionId"])
