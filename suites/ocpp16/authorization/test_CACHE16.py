"""CACHE16 — the Authorization Cache of a 1.6 charge point: ClearCache (Core), the cache filled from the
central system's answers, used offline, and not trusted online for an identifier it holds as not valid
(spec 002 What the service does 5; Behavior rules 5, 6 and 8; Messages ClearCache; ClearCacheStatus;
configuration keys AuthorizationCacheEnabled, LocalAuthorizeOffline).

A charge point without a cache may answer ClearCache Rejected; the tests that need a cache apply only
when the profile declares [features] authorization_cache. Rule 6's "Authorize SHOULD be sent" for a
not-valid cached identifier online is a finding when broken.
"""

import pytest

from harness.arena import CS, CSMS
from harness.rules import RuleTable, must, should
from harness.suite import OCPP16, TC, case, checks, needs
from harness.usecases.core16 import Core16, authorize, configure_charge_point, connectors, id_tag_status, tag16, tagged
from harness.usecases.local16 import presented_offline
from harness.usecases.operations16 import ASKED, Operations16, operate, status_of
from harness.verdict import check_equal, violated


class CACHE16(RuleTable):
    """The rules of CACHE16."""
    cleared = must("spec 002 Messages ClearCache; Enumerations ClearCacheStatus",
                   "a charge point with an enabled cache answers ClearCache Accepted and forgets every cached "
                   "identifier: the next presentation is sent in Authorize", by=CS)
    not_valid_asked = should("spec 002 Behavior rule 6",
                             "an identifier the cache holds as not valid, presented online, is sent in Authorize",
                             by=CS)
    reconnects = must("spec 002 What the service does 6; Connection 2",
                      "back online the charge point connects again", by=CS)
    offline_start = must("spec 002 What the service does 5; Behavior rules 5 and 6",
                         "offline, with LocalAuthorizeOffline true, an identifier the cache holds as valid starts a "
                         "transaction, whose StartTransaction is sent once the charge point is back online", by=CS)
    offline_processed = must("spec 002 Behavior rules 1 and 5",
                             "the central system answers the StartTransaction of a transaction authorized offline "
                             "like any other: Accepted for a valid idTag", by=CSMS)


pytestmark = case("CACHE16", block="Core (1.6)", roles=("csms", "cs"), protocols=OCPP16)


def _two_connectors(profile):
    return connectors(profile)[:2] if len(connectors(profile)) > 1 else connectors(profile) * 2


@checks(*ASKED, csms=TC("TC_061_CSMS"))
async def test_clear_cache_is_answered(ocpp):
    """ClearCache is sent as asked and answered with ClearCache.conf (Accepted, or Rejected by a charge point
    without a cache)."""
    await operate(ocpp, "ClearCache", {})


@pytest.mark.sut_roles("cs")
@pytest.mark.requires("authorization_cache")
@checks(Operations16.answered, Core16.authorize, CACHE16.cleared, cs=TC("TC_061_CS"))
@needs(tagged("Accepted"))
async def test_cleared_identifier_is_authorized_again(ocpp, profile):
    """A valid idTag is authorized (and cached), the cache cleared: presented again, it is sent in Authorize."""
    await configure_charge_point(ocpp, {"AuthorizationCacheEnabled": "true", "LocalPreAuthorize": "true"})
    token, (first, second) = tag16(profile, "Accepted"), _two_connectors(profile)
    await authorize(ocpp, token, first)
    exchange = await operate(ocpp, "ClearCache", {})
    check_equal(CACHE16.cleared, "ClearCache.conf status", "Accepted", status_of(exchange))
    mark = ocpp.mark()
    await ocpp.act(CS, "present_id_tag", id_tag=token.id, connector_id=second)
    await ocpp.expect("Authorize", sender=CS, after=mark, rule=CACHE16.cleared)


@pytest.mark.sut_roles("cs")
@pytest.mark.requires("authorization_cache")
@checks(Core16.authorize, CACHE16.not_valid_asked)
@needs(tagged("Invalid"))
async def test_not_valid_cached_identifier_is_asked_again_online(ocpp, profile):
    """An idTag answered Invalid (and cached so), presented again online: Authorize again."""
    await configure_charge_point(ocpp, {"AuthorizationCacheEnabled": "true"})
    token, (first, second) = tag16(profile, "Invalid"), _two_connectors(profile)
    await authorize(ocpp, token, first)
    mark = ocpp.mark()
    await ocpp.act(CS, "present_id_tag", id_tag=token.id, connector_id=second)
    if await ocpp.link.wait_for_call("Authorize", ocpp.timeouts.action, start=mark, answered=False) is None:
        violated(CACHE16.not_valid_asked, "the charge point did not send Authorize for an identifier it holds as "
                 "not valid", expected="Authorize", actual="nothing")


@pytest.mark.requires("authorization_cache")
@checks(Core16.authorize, CACHE16.reconnects, CACHE16.offline_start, CACHE16.offline_processed)
@needs(tagged("Accepted"))
async def test_cached_identifier_starts_offline(ocpp, profile):
    """A valid idTag authorized online (and cached) is presented while offline at another connector, with
    LocalAuthorizeOffline true: the transaction starts, and its StartTransaction comes once back online."""
    await configure_charge_point(ocpp, {"AuthorizationCacheEnabled": "true", "LocalAuthorizeOffline": "true"})
    token, (first, second) = tag16(profile, "Accepted"), _two_connectors(profile)
    auth = await authorize(ocpp, token, first)
    if ocpp.is_sut(CSMS):
        check_equal(CACHE16.offline_processed, "Authorize.conf idTagInfo.status", "Accepted", id_tag_status(auth))
    await presented_offline(ocpp, token.id, second, reconnects=CACHE16.reconnects)
    started = await ocpp.expect("StartTransaction", sender=CS, after=0, rule=CACHE16.offline_start,
                                where=lambda p: p["connectorId"] == second)
    check_equal(CACHE16.offline_start, "StartTransaction.req idTag", token.id.casefold(),
                started.request["idTag"].casefold())
    if ocpp.is_sut(CSMS):
        check_equal(CACHE16.offline_processed, "StartTransaction.conf idTagInfo.status", "Accepted",
                    id_tag_status(started))

