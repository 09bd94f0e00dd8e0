"""CACHE16 — the Authorization Cache of a 1.6 charge point: ClearCache (Core), the cache filled from the
central system's answers, used offline, and not trusted online for an identifier it holds as not valid;
which entries a full cache drops; an entry that expires at its expiryDate (spec 002 What the service
does 5; Behavior rules 5, 6 and 8; Classes IdTagInfo; the move "Authorization cache entry: expiry reached";
Messages ClearCache; ClearCacheStatus; configuration keys AuthorizationCacheEnabled, LocalAuthorizeOffline,
LocalPreAuthorize, AllowOfflineTxForUnknownId).

A charge point without a cache may answer ClearCache Rejected; the tests that need a cache apply only
when the profile declares [features] authorization_cache. Rule 6's "Authorize SHOULD be sent" for a
not-valid cached identifier online is a finding when broken.

What the cache holds is seen offline (LocalAuthorizeOffline true, AllowOfflineTxForUnknownId false): an
identifier it holds as valid starts a transaction, one it does not hold (or holds as not valid) starts
none. The text names no configuration key for the cache's size, so the eviction tests need the profile's
``[authorization] authorization_cache_entries``; they fill the cache by presenting that many idTags of their
own (seeded, answered by the harness's central system) at one connector, without a cable. "The oldest"
entry is read as the one received first; the tests never update an entry, so reading it as the one used
least recently gives the same verdicts. An expired entry may read Expired or be gone (IdTagInfo expiryDate:
"when the tag is removed from the cache"): either way it starts nothing offline and is asked about online.
"""

from datetime import timedelta

import pytest

from harness import clock
from harness.roles import CS, CSMS
from harness.errors import NotApplicable
from harness.profile import Token
from harness.rules import RuleTable, must, should
from harness.suite import OCPP16, TC, case, checks, needs
from harness.usecases.core16 import (
    Core16, authorize, configure_charge_point, connectors, id_tag_status, same_tag, tag16, tagged,
)
from harness.usecases.local16 import NOTICE, presented_offline
from harness.usecases.operations import ASKED16, Operations16, operate, status_of
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
    not_valid_evicted_first = must("spec 002 Behavior rule 6",
                                   "a full cache makes room by removing a not-valid entry before any valid one",
                                   by=CS)
    oldest_valid_evicted = must("spec 002 Behavior rule 6",
                                "a full cache holding only valid entries removes the oldest one", by=CS)
    expired_asked = must("spec 002 Classes IdTagInfo (expiryDate); States and transitions (Authorization cache "
                         "entry: expiry reached)", "a cached identifier whose expiryDate passed is no longer "
                         "accepted from the cache: presented online, it is sent in Authorize", by=CS)
    expired_refused = must("spec 002 Behavior rule 8; States and transitions (Authorization cache entry: expiry "
                           "reached)", "offline, a cached identifier whose expiryDate passed starts no transaction",
                           by=CS)


pytestmark = case("CACHE16", block="Core (1.6)", roles=("csms", "cs"), protocols=OCPP16)


SEED = 1606          # faker's seed for the idTags the cache tests bring
VALIDITY = 10        # seconds an expiring idTag is valid after the harness's answer
CLOCK_SKEW = 30      # seconds the charge point's clock may lag the harness's (it has the time of Boot and Heartbeat)
OFFLINE = {"LocalAuthorizeOffline": "true", "AllowOfflineTxForUnknownId": "false"}


def _two_connectors(profile):
    return connectors(profile)[:2] if len(connectors(profile)) > 1 else connectors(profile) * 2


def two_connectors(given) -> None:
    """The condition (``suite.needs``) of two connectors: the idTags that fill the cache are presented at the
    first (the last one may still wait there for its cable), the test's own at the second."""
    if len(connectors(given.profile)) < 2:
        raise NotApplicable("the profile declares one connector: this test presents idTags at two")


def cache_entries(given) -> int:
    """The condition (``suite.needs``) that the profile says how many identifiers the cache holds."""
    entries = given.profile.authorization("authorization_cache_entries")
    if entries is None:
        raise NotApplicable("spec 002 names no configuration key for the size of the Authorization Cache: declare "
                            "it as [authorization] authorization_cache_entries in the profile")
    return entries


def _tags(count: int) -> list[Token]:
    """``count`` idTags of the test's own (seeded: the same in every run), Accepted by the harness's central system."""
    from faker import Faker   # here, not at the top: a run that plays no cache test imports no faker (~70 ms of CPU)
    fake = Faker()
    fake.seed_instance(SEED)
    return [Token(f"cache-{n}", fake.unique.bothify("CACHE########"), "ISO14443", "Accepted") for n in range(count)]


async def _cache_cleared(ocpp, tags: list[Token], invalid: Token | None = None) -> None:
    """The harness answers ``tags`` Accepted (``invalid`` Invalid); the cache on, offline use configured, and
    emptied with ClearCache."""
    ocpp.configure(given_id_tag_info={t.id: {"status": t.status} for t in (*tags, *([invalid] if invalid else []))})
    await configure_charge_point(ocpp, {"AuthorizationCacheEnabled": "true", **OFFLINE})
    check_equal(CACHE16.cleared, "ClearCache.conf status", "Accepted", status_of(await operate(ocpp, "ClearCache", {})))


async def _started_offline(ocpp, rule, presented: list[tuple[Token, int]], *, starts: Token | None = None,
                           starts_none: Token | None = None) -> None:
    """Offline, each (idTag, connector) of ``presented`` is presented and the cable plugged in; back online
    ``starts`` must start a transaction and ``starts_none`` must not (``rule`` breaks otherwise)."""
    (first, connector), *also = presented
    await presented_offline(ocpp, first.id, connector, reconnects=CACHE16.reconnects,
                            also=tuple((t.id, c) for t, c in also))
    if starts_none is not None:
        await ocpp.expect_none("StartTransaction", after=0, rule=rule, within=ocpp.timeouts.quiet + NOTICE,
                               where=lambda p: same_tag(p.get("idTag"), starts_none.id))
    if starts is not None:
        await ocpp.expect("StartTransaction", sender=CS, after=0, rule=rule,
                          where=lambda p: same_tag(p.get("idTag"), starts.id))


@checks(*ASKED16, csms=TC("TC_061_CSMS"), cs=TC("TC_061_2_CS"))
async def test_clear_cache_is_answered(ocpp):
    """ClearCache is sent as asked and answered with ClearCache.conf (Accepted, or Rejected by a charge point
    without a cache)."""
    await operate(ocpp, "ClearCache", {})


@pytest.mark.sut_roles("cs")
@pytest.mark.requires("authorization_cache")
@checks(Operations16.answered, Core16.authorize, CACHE16.cleared, cs=TC("TC_061_1_CS"))
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
    if await ocpp.next_call("Authorize", sender=CS, within=ocpp.timeouts.action, after=mark, answered=False) is None:
        violated(CACHE16.not_valid_asked, "the charge point did not send Authorize for an identifier it holds as "
                 "not valid", expected="Authorize", actual="nothing")


@pytest.mark.requires("authorization_cache")
@checks(Core16.authorize, CACHE16.reconnects, CACHE16.offline_start, CACHE16.offline_processed,
        csms=TC("TC_037_1_CSMS"), cs=TC("TC_037_1_CS"))
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



@pytest.mark.sut_roles("cs")
@pytest.mark.requires("authorization_cache")
@checks(*ASKED16, Core16.authorize, CACHE16.cleared, CACHE16.reconnects, CACHE16.not_valid_evicted_first)
@needs(cache_entries, two_connectors)
async def test_full_cache_drops_a_not_valid_entry_first(ocpp, profile):
    """The cache filled with the oldest entry valid, the second not valid, the rest valid; one more idTag
    presented: the not-valid entry makes room, so the oldest (valid) one still starts offline."""
    entries, (first, second) = cache_entries(ocpp), _two_connectors(profile)
    oldest, *valid = _tags(entries)
    invalid = Token("cache-invalid", "CACHEINVALID0001", "ISO14443", "Invalid")
    await _cache_cleared(ocpp, [oldest, *valid], invalid)
    for token in (oldest, invalid, *valid):   # entries + 1 idTags: the last one finds the cache full
        await authorize(ocpp, token, first)
    await _started_offline(ocpp, CACHE16.not_valid_evicted_first, [(oldest, second)], starts=oldest)


@pytest.mark.sut_roles("cs")
@pytest.mark.requires("authorization_cache")
@checks(*ASKED16, Core16.authorize, CACHE16.cleared, CACHE16.reconnects, CACHE16.oldest_valid_evicted)
@needs(cache_entries, two_connectors)
async def test_full_cache_of_valid_entries_drops_the_oldest(ocpp, profile):
    """The cache filled with valid idTags and one more presented: the oldest is gone (offline it starts
    nothing), the second oldest is still there (offline it starts)."""
    entries, (first, second) = cache_entries(ocpp), _two_connectors(profile)
    tags = _tags(entries + 1)
    await _cache_cleared(ocpp, tags)
    for token in tags:
        await authorize(ocpp, token, first)
    oldest, kept = tags[0], tags[1]
    await _started_offline(ocpp, CACHE16.oldest_valid_evicted, [(oldest, second), (kept, second)], starts=kept,
                           starts_none=oldest)


async def _cached_until_expired(ocpp, profile, **keys: str) -> tuple[Token, tuple[int, int]]:
    """An idTag answered Accepted with an expiryDate VALIDITY s ahead, cached; the wait until it is past,
    even for a charge point whose clock lags by up to CLOCK_SKEW s."""
    token, (first, second) = _tags(1)[0], _two_connectors(profile)
    expiry = (clock.utcnow() + timedelta(seconds=VALIDITY)).isoformat(timespec="seconds").replace("+00:00", "Z")
    ocpp.configure(given_id_tag_info={token.id: {"status": "Accepted", "expiryDate": expiry}})
    await configure_charge_point(ocpp, {"AuthorizationCacheEnabled": "true", **keys})
    await authorize(ocpp, token, first)
    await ocpp.elapse(VALIDITY + CLOCK_SKEW)   # the scenario needs the expiry itself (free on virtual time)
    return token, (first, second)


@pytest.mark.sut_roles("cs")
@pytest.mark.requires("authorization_cache")
@checks(Core16.authorize, CACHE16.expired_asked)
@needs(two_connectors)
async def test_expired_cached_identifier_is_asked_again_online(ocpp, profile):
    """LocalPreAuthorize true: an idTag cached with an expiryDate, presented again once it passed: Authorize."""
    token, (_, second) = await _cached_until_expired(ocpp, profile, LocalPreAuthorize="true")
    mark = ocpp.mark()
    await ocpp.act(CS, "present_id_tag", id_tag=token.id, connector_id=second)
    await ocpp.expect("Authorize", sender=CS, after=mark, rule=CACHE16.expired_asked,
                      where=lambda p: same_tag(p.get("idTag"), token.id))


@pytest.mark.sut_roles("cs")
@pytest.mark.requires("authorization_cache")
@checks(Core16.authorize, CACHE16.reconnects, CACHE16.expired_refused)
@needs(two_connectors)
async def test_expired_cached_identifier_is_refused_offline(ocpp, profile):
    """An idTag cached with an expiryDate, presented offline once it passed: no transaction."""
    token, (_, second) = await _cached_until_expired(ocpp, profile, **OFFLINE)
    await _started_offline(ocpp, CACHE16.expired_refused, [(token, second)], starts_none=token)
