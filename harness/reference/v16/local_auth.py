"""The 1.6 charge point's local authorization: the Authorization Cache and the Local Authorization List.

Rules (spec 002 What the service does 5; Behavior rules 6-8; Classes AuthorizationData, IdTagInfo;
UpdateStatus; the moves of "Authorization cache entry" and "Local list"):
- L1  the cache holds the latest IdTagInfo received for each identifier, valid or not (from the
      answers to Authorize, StartTransaction and StopTransaction); an entry whose expiryDate passed
      reads Expired; full, it drops the not-valid entries first, then the oldest valid one.
- L2  an identifier in the local list is never cached: the list takes priority over the cache.
- L3  SendLocalList Full replaces the list (every entry carries its IdTagInfo); Differential needs a
      listVersion above the current one (else VersionMismatch) and adds or updates the entries with an
      IdTagInfo and deletes those without; a list larger than the charge point keeps is Failed; the
      version is the one sent.
- L4  only SendLocalList changes the list.

Sans-I/O: the time is passed in.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from types import MappingProxyType

from harness.ocpp.meter16 import parse_time


def expired(info: dict, now: datetime) -> bool:
    return "expiryDate" in info and parse_time(info["expiryDate"]) <= now


def read(info: dict, now: datetime) -> dict:
    """An IdTagInfo as it holds at ``now``: Expired once its expiryDate passed (L1)."""
    return info | {"status": "Expired"} if info.get("status") == "Accepted" and expired(info, now) else info


CACHE_ENTRIES = 100   # identifiers the cache holds unless the profile says ([authorization] authorization_cache_entries)
EMPTY: Mapping[str, dict] = MappingProxyType({})   # every empty cache and list until its first entry: a charge point
                                                   # of the load holds thousands of them


class AuthorizationCache:
    """Entries oldest first (a dict keeps the order of insertion)."""
    __slots__ = ("capacity", "_entries")

    def __init__(self, capacity: int = CACHE_ENTRIES):
        self.capacity = capacity
        self._entries: Mapping[str, dict] = EMPTY

    def update(self, id_tag: str, info: dict) -> None:
        """L1: the latest IdTagInfo of ``id_tag``, the newest entry."""
        key = id_tag.casefold()
        if self._entries is EMPTY:
            self._entries = {}
        self._entries.pop(key, None)
        if len(self._entries) >= self.capacity:
            self._entries.pop(self.victim())
        self._entries[key] = dict(info)

    def victim(self) -> str:
        """L1: the entry a full cache drops: the oldest not-valid one, else the oldest valid one."""
        not_valid = next((k for k, v in self._entries.items() if v.get("status") != "Accepted"), None)
        return not_valid if not_valid is not None else next(iter(self._entries))

    def lookup(self, id_tag: str, now: datetime) -> dict | None:
        info = self._entries.get(id_tag.casefold())
        return None if info is None else read(info, now)

    def clear(self) -> None:
        self._entries = EMPTY

    def __len__(self) -> int:
        return len(self._entries)


MAX_LENGTH = 100   # entries the reference keeps: its LocalAuthListMaxLength and SendLocalListMaxLength


class LocalList:
    __slots__ = ("max_length", "version", "_entries")

    def __init__(self, max_length: int = MAX_LENGTH):
        self.max_length = max_length
        self.version = 0
        self._entries: Mapping[str, dict] = EMPTY   # replaced whole by each update

    def apply(self, update_type: str, version: int, items: list[dict]) -> str:
        """L3: a SendLocalList.req; returns its UpdateStatus."""
        if update_type == "Full":
            if len(items) > self.max_length or any("idTagInfo" not in item for item in items):
                return "Failed"
            self._entries = {item["idTag"].casefold(): item["idTagInfo"] for item in items}
        else:
            if version <= self.version:
                return "VersionMismatch"
            entries = dict(self._entries)
            for item in items:
                if "idTagInfo" in item:
                    entries[item["idTag"].casefold()] = item["idTagInfo"]
                else:
                    entries.pop(item["idTag"].casefold(), None)
            if len(entries) > self.max_length:
                return "Failed"
            self._entries = entries
        self.version = version
        return "Accepted"

    def lookup(self, id_tag: str, now: datetime) -> dict | None:
        info = self._entries.get(id_tag.casefold())
        return None if info is None else read(info, now)

    def __contains__(self, id_tag: str) -> bool:
        return id_tag.casefold() in self._entries
