"""The reference charge point's Authorization Cache (rule L1) and its register under an energy limit: no sockets."""

from datetime import datetime, timedelta, timezone

from harness.reference.v16.local_auth import AuthorizationCache
from harness.reference.v16.meter import Register

NOW = datetime(2025, 1, 1, 10, tzinfo=timezone.utc)
VALID, INVALID = {"status": "Accepted"}, {"status": "Invalid"}


def _cache(*entries: tuple[str, dict]) -> AuthorizationCache:
    cache = AuthorizationCache(capacity=len(entries))
    for id_tag, info in entries:
        cache.update(id_tag, info)
    return cache


def test_a_full_cache_drops_a_not_valid_entry_before_any_valid_one():
    cache = _cache(("OLD", VALID), ("BAD", INVALID), ("NEW", VALID))
    cache.update("NEXT", VALID)
    assert [cache.lookup(t, NOW) is not None for t in ("OLD", "BAD", "NEW", "NEXT")] == [True, False, True, True]


def test_a_full_cache_of_valid_entries_drops_the_oldest():
    cache = _cache(("OLD", VALID), ("MID", VALID))
    cache.update("NEXT", VALID)
    assert cache.lookup("OLD", NOW) is None and cache.lookup("MID", NOW) == VALID


def test_an_entry_reads_expired_once_its_expiry_date_passed():
    cache = _cache(("TAG", VALID | {"expiryDate": "2025-01-01T10:00:10Z"}))
    assert cache.lookup("tag", NOW)["status"] == "Accepted"
    assert cache.lookup("TAG", NOW + timedelta(seconds=10))["status"] == "Expired"


def test_the_register_stops_at_its_limit():
    register = Register(wh=1000, step=120)
    assert [register.advance(1300) for _ in range(4)] == [1120, 1240, 1300, 1300]
    assert register.advance(1000) == 1300   # a limit below the register never winds it back
