"""C16 — Stop transactions with a master pass.

A master pass is a token of the group MasterPassGroupId: the CSMS answers its AuthorizeRequest with
that group in groupIdToken; a station then lets its holder stop transactions — one without a UI stops
every running transaction (C16.FR.02), one with a UI stops those its holder selects there (C16.FR.01:
the action ``stop_with_master_pass`` carries the selection; a station that declares ``[authorization]
master_pass_ui`` is not asked to stop them all) — and the Ended events carry stoppedReason MasterPass and
are processed as any end. A master pass never starts a transaction (Authorization rule 6).

The master pass is the profile's accepted token whose group is [authorization] master_pass_group_id.
"""

import pytest

from harness.roles import CS, CSMS
from harness.errors import NotApplicable
from harness.rules import RuleTable, must
from harness.suite import OCPP2, TC, case, checks, needs
from harness.usecases.authorization import Authorization, authorize
from harness.usecases.local_list import asks_about, carries
from harness.verdict import check_equal, dig, require


class C16(RuleTable):
    """The rules of C16 (spec 001 Authorization rule 6; OCPP 2.0.1 C16.FR.02, 2.1 C16.FR.08)."""
    group = must("spec 001 Authorization rule 6",
                 "a master pass's AuthorizeResponse is Accepted with groupIdToken = MasterPassGroupId", by=CSMS)
    end_processed = must("spec 001 Authorization rule 6 (processed as a normal end)",
                         "a TransactionEvent Ended with stoppedReason MasterPass is answered as any end, its token "
                         "not refused", by=CSMS)
    started = must("spec 001 Authorization status values (Accepted allows charging)",
                   "an accepted driver's transaction starts once the cable is in", by=CS)
    stops_all = must("spec 001 Authorization rule 6; OCPP 2.0.1 C16.FR.02",
                     "a master pass stops every running transaction of a station without a UI", by=CS)
    reason = must("spec 001 Authorization rule 6; OCPP 2.1 C16.FR.08 (2.0.1 errata 2025-01)",
                  "a transaction stopped by a master pass ends with stoppedReason MasterPass", by=CS)
    no_start = must("spec 001 Authorization rule 6", "a master pass starts no transaction", by=CS)
    stops_selected = must("spec 001 Authorization rule 6 (the station lets the holder select transactions to stop); "
                          "OCPP 2.0.1 C16.FR.01",
                          "with a UI, the transactions the master pass holder selects end, and only those", by=CS)


pytestmark = case("C16", block="Authorization", roles=("csms", "cs"), protocols=OCPP2)


def _master_pass(profile):
    group = profile.authorization("master_pass_group_id")
    if not group:
        raise NotApplicable("the profile declares no [authorization] master_pass_group_id")
    passes = [t for t in profile.tokens_with("Accepted") if t.group and t.group.casefold() == group.casefold()]
    if not passes:
        raise NotApplicable(f"the profile declares no accepted idToken of the group {group} (the master pass)")
    return passes[0]


def _drivers(profile):
    """An accepted token per EVSE that may charge anywhere (none of the master pass's group)."""
    group = (profile.authorization("master_pass_group_id") or "").casefold()
    plain = [t for t in profile.tokens_with("Accepted") if not (t.also or t.evse_ids or t.stations or t.current
                                                                or t.balance is not None)
             and (t.group or "").casefold() != group]
    if not plain:
        raise NotApplicable("the profile declares no accepted idToken to start a transaction with")
    return list(zip(profile.evses, plain))


@checks(C16.group)
@pytest.mark.sut_roles("csms")
@needs(lambda given: _master_pass(given.profile))
async def test_master_pass_is_answered_with_its_group(ocpp, profile):
    """The master pass is Accepted with groupIdToken = MasterPassGroupId."""
    token = _master_pass(profile)
    exchange = await authorize(ocpp, token)
    check_equal(C16.group, "AuthorizeResponse idTokenInfo.status of the master pass", "Accepted",
                dig(exchange.result, "idTokenInfo.status"))
    check_equal(C16.group, "AuthorizeResponse idTokenInfo.groupIdToken.idToken (case-insensitive)",
                token.group.casefold(), str(dig(exchange.result, "idTokenInfo.groupIdToken.idToken", "")).casefold())


@checks(C16.group, C16.end_processed, C16.started, Authorization.sent, C16.stops_all, C16.reason,
        csms=TC("TC_C_49_CSMS", "ocpp2.0.1"), cs=TC("TC_C_49_CS", "ocpp2.0.1"))
@needs(lambda given: _master_pass(given.profile), lambda given: _drivers(given.profile))
async def test_master_pass_stops_every_transaction(ocpp, profile):
    """A transaction runs on each EVSE (as many as the profile has drivers); the master pass is presented:
    each ends with stoppedReason MasterPass, and the CSMS answers the ends as any."""
    if ocpp.is_sut(CS) and profile.authorization("master_pass_ui"):
        raise NotApplicable("the station has a UI for the master pass ([authorization] master_pass_ui): "
                            "test_master_pass_holder_stops_the_selected_transactions plays it")
    master = _master_pass(profile)
    running = await _charging_everywhere(ocpp, profile)
    start = ocpp.mark()
    await ocpp.act(CS, "present_id_token", id_token=master.wire())
    await _master_pass_ends(ocpp, master, start, running, C16.stops_all)


async def _charging_everywhere(ocpp, profile):
    """A transaction runs on each EVSE the profile has a driver for; returns transactionId → EVSE id."""
    if ocpp.is_sut(CSMS):
        ocpp.configure(local_authorization=True)
    running = {}
    for evse, driver in _drivers(profile):
        start = ocpp.mark()
        await ocpp.act(CS, "present_id_token", id_token=driver.wire(), evse_id=evse.id)
        await ocpp.act(CS, "plug_in", evse_id=evse.id)
        event = await ocpp.expect("TransactionEvent", sender=CS, after=start, where=carries(driver, "Started"),
                                  rule=C16.started)
        running[event.request["transactionInfo"]["transactionId"]] = evse.id
    return running


async def _master_pass_ends(ocpp, master, start, stopped, rule):
    """The master pass presented after ``start`` is asked about (a CSMS answers it with its group) and each
    transaction of ``stopped`` ends with stoppedReason MasterPass (a CSMS answers the ends as any); ``rule``:
    the row an end that does not come breaks."""
    exchange = await ocpp.expect("Authorize", sender=CS, after=start, where=asks_about(master),
                                 rule=Authorization.sent)
    if ocpp.is_sut(CSMS):
        check_equal(C16.group, "AuthorizeResponse idTokenInfo.groupIdToken.idToken (case-insensitive)",
                    master.group.casefold(),
                    str(dig(exchange.result, "idTokenInfo.groupIdToken.idToken", "")).casefold())
    for transaction_id in stopped:
        ended = await ocpp.expect("TransactionEvent", sender=CS, after=start, rule=rule, where=lambda p: (
            p["eventType"] == "Ended" and p["transactionInfo"]["transactionId"] == transaction_id))  # noqa: B023 (awaited here)
        check_equal(C16.reason, "TransactionEvent transactionInfo.stoppedReason", "MasterPass",
                    dig(ended.request, "transactionInfo.stoppedReason"))
        if ocpp.is_sut(CSMS):
            status = dig(ended.result, "idTokenInfo.status", "Accepted")
            require(status == "Accepted", C16.end_processed, "the CSMS refused the token of a master-pass end",
                    expected="Accepted (or no idTokenInfo)", actual=ended.result)


def _selection(name, station_case, csms_case):
    return pytest.param(name, marks=checks(C16.group, C16.end_processed, C16.started, Authorization.sent,
                                           C16.stops_selected, C16.reason, cs=TC(station_case, "ocpp2.0.1"),
                                           csms=TC(csms_case, "ocpp2.0.1")))


@pytest.mark.parametrize("selection", [_selection("all", "TC_C_47_CS", "TC_C_47_CSMS"),
                                       _selection("first", "TC_C_48_CS", "TC_C_48_CSMS")])
@needs(lambda given: _master_pass(given.profile), lambda given: _drivers(given.profile))
async def test_master_pass_holder_stops_the_selected_transactions(ocpp, profile, selection):
    """A transaction runs on each EVSE; the master pass holder selects at the station's UI every transaction
    (all) or the first EVSE's only (first): those end with stoppedReason MasterPass, the others go on; a CSMS
    answers the pass with its group and the ends as any. A station without that UI answers the action 501."""
    master = _master_pass(profile)
    running = await _charging_everywhere(ocpp, profile)
    if selection == "first" and len(running) < 2:
        raise NotApplicable("selecting one transaction of several needs two EVSEs with a driver each")
    chosen = {t: e for t, e in running.items() if selection == "all" or e == profile.evses[0].id}
    start = ocpp.mark()
    await ocpp.act(CS, "stop_with_master_pass", id_token=master.wire(), evse_ids=sorted(chosen.values()))
    await _master_pass_ends(ocpp, master, start, chosen, C16.stops_selected)
    left = [t for t in running if t not in chosen]
    if left and ocpp.is_sut(CS):
        await ocpp.expect_none("TransactionEvent", after=start, rule=C16.stops_selected, where=lambda p: (
            p["eventType"] == "Ended" and p["transactionInfo"]["transactionId"] in left))


@checks(C16.no_start, cs=TC("TC_C_45_CS", "ocpp2.0.1"))
@pytest.mark.sut_roles("cs")
@needs(lambda given: _master_pass(given.profile))
async def test_master_pass_starts_no_transaction(ocpp, profile):
    """The master pass presented at an idle EVSE, then the cable: no transaction starts with it."""
    master, evse = _master_pass(profile), profile.evses[0].id
    start = ocpp.mark()
    await ocpp.act(CS, "present_id_token", id_token=master.wire(), evse_id=evse)
    await ocpp.act(CS, "plug_in", evse_id=evse)
    await ocpp.expect_none("TransactionEvent", after=start, where=carries(master), rule=C16.no_start)
