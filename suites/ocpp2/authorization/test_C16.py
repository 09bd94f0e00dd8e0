"""C16 — Stop transactions with a master pass.

A master pass is a token of the group MasterPassGroupId: the CSMS answers its AuthorizeRequest with
that group in groupIdToken; a station then lets its holder stop transactions — one without a UI stops
every running transaction (C16.FR.02; a station with a UI lets the holder choose, C16.FR.01, which the
harness does not drive: it expects them all) — and the Ended events carry stoppedReason MasterPass and
are processed as any end. A master pass never starts a transaction (Authorization rule 6).

The master pass is the profile's accepted token whose group is [authorization] master_pass_group_id.
No certification id: the only public mapping found (TC_C_49_CSMS) is a third-party re-implementation
of the test tool, not a listing of the test cases themselves.
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
    master = _master_pass(profile)
    if ocpp.is_sut(CSMS):
        ocpp.configure(local_authorization=True)
    running = {}
    for evse, driver in _drivers(profile):
        start = ocpp.mark()
        await ocpp.act(CS, "present_id_token", id_token=driver.wire(), evse_id=evse.id)
        await ocpp.act(CS, "plug_in", evse_id=evse.id)
        event = await ocpp.expect("TransactionEvent", sender=CS, after=start, where=carries(driver, "Started"),
                                  rule=C16.started)
        running[event.request["transactionInfo"]["transactionId"]] = driver
    start = ocpp.mark()
    await ocpp.act(CS, "present_id_token", id_token=master.wire())
    exchange = await ocpp.expect("Authorize", sender=CS, after=start, where=asks_about(master),
                                 rule=Authorization.sent)
    if ocpp.is_sut(CSMS):
        check_equal(C16.group, "AuthorizeResponse idTokenInfo.groupIdToken.idToken (case-insensitive)",
                    master.group.casefold(),
                    str(dig(exchange.result, "idTokenInfo.groupIdToken.idToken", "")).casefold())
    for transaction_id in running:
        ended = await ocpp.expect("TransactionEvent", sender=CS, after=start, rule=C16.stops_all, where=lambda p: (
            p["eventType"] == "Ended" and p["transactionInfo"]["transactionId"] == transaction_id))  # noqa: B023 (awaited here)
        check_equal(C16.reason, "TransactionEvent transactionInfo.stoppedReason", "MasterPass",
                    dig(ended.request, "transactionInfo.stoppedReason"))
        if ocpp.is_sut(CSMS):
            status = dig(ended.result, "idTokenInfo.status", "Accepted")
            require(status == "Accepted", C16.end_processed, "the CSMS refused the token of a master-pass end",
                    expected="Accepted (or no idTokenInfo)", actual=ended.result)


@checks(C16.no_start)
@pytest.mark.sut_roles("cs")
@needs(lambda given: _master_pass(given.profile))
async def test_master_pass_starts_no_transaction(ocpp, profile):
    """The master pass presented at an idle EVSE, then the cable: no transaction starts with it."""
    master, evse = _master_pass(profile), profile.evses[0].id
    start = ocpp.mark()
    await ocpp.act(CS, "present_id_token", id_token=master.wire(), evse_id=evse)
    await ocpp.act(CS, "plug_in", evse_id=evse)
    await ocpp.expect_none("TransactionEvent", after=start, where=carries(master), rule=C16.no_start)
