"""Local authorization (1.6): the Authorization Cache (Core: ClearCache) and the Local Authorization
List (Local Auth List Management: GetLocalListVersion, SendLocalList).

Charge point 1.6 (spec 002 What the service does 5; Behavior rules 6-8; the rules L1-L4 of
``harness.reference.v16.local_auth``):
- every IdTagInfo received (Authorize, StartTransaction, StopTransaction) updates the cache when
  AuthorizationCacheEnabled is true, unless the identifier is in the local list; the cache holds as many
  identifiers as the profile says ([authorization] authorization_cache_entries); a StartTransaction.conf
  whose status differs from the list's leaves the list as it is and is reported in a StatusNotification
  of connector 0 with errorCode LocalListConflict;
- ClearCache empties the cache (Rejected while AuthorizationCacheEnabled is false);
- GetLocalListVersion gives the list's version (-1 while LocalAuthListEnabled is false);
  SendLocalList applies an update (NotSupported while disabled; Failed, the list untouched, while its
  storage is broken: the actions ``break_local_list_storage`` and ``repair_local_list_storage``);
- ``local_decision``: what the charge point decides on its own, before or instead of Authorize: online,
  an identifier the list or cache accepts when LocalPreAuthorize is true; offline, one they accept when
  LocalAuthorizeOffline is true, an unknown one when AllowOfflineTxForUnknownId is true, and never one
  they hold as not valid (rule 8).

Central system 1.6: the three messages as actuator actions.
"""

from __future__ import annotations

from typing import Any

from harness import clock
from harness.ocpp.v16 import WHOLE_CHARGE_POINT
from harness.reference.common import V16, Block, Undo, store
from harness.transport.ws import CallFailed
from harness.reference.v16.local_auth import CACHE_ENTRIES, AuthorizationCache, LocalList

REFUSED = {"status": "Invalid"}   # what a charge point offline answers itself for an identifier it may not accept


class LocalAuthorizationStation16(Block):
    versions = V16
    undone_by = {"break_local_list_storage": lambda body: ("repair_local_list_storage", body)}
    requires = ("ConfigurationStation16", "ProvisioningStation16")
    cache_class = AuthorizationCache
    list_storage_broken: bool = store(default=False)

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.cache = self.cache_class(self.profile.authorization("authorization_cache_entries", CACHE_ENTRIES))
        self.local_list = LocalList()

    def _known(self, id_tag: str) -> dict | None:
        """L2: the local list first, then the cache, each while it is enabled."""
        now = clock.utcnow()
        if self.config.flag("LocalAuthListEnabled") and id_tag in self.local_list:
            return self.local_list.lookup(id_tag, now)
        return self.cache.lookup(id_tag, now) if self.config.flag("AuthorizationCacheEnabled") else None

    def local_decision(self, id_tag: str) -> dict | None:
        """The IdTagInfo the charge point goes by without asking; None: it sends Authorize."""
        known = self._known(id_tag)
        if self.online:
            accepted = known is not None and known["status"] == "Accepted"
            return known if accepted and self.config.flag("LocalPreAuthorize") else None
        if known is None:
            return {"status": "Accepted"} if self.config.flag("AllowOfflineTxForUnknownId") else REFUSED
        return known if known["status"] == "Accepted" and self.config.flag("LocalAuthorizeOffline") else REFUSED

    def id_tag_info_received(self, id_tag: str, info: dict, action: str) -> None:
        super().id_tag_info_received(id_tag, info, action)
        if self.config.flag("LocalAuthListEnabled") and id_tag in self.local_list:
            listed = self.local_list.lookup(id_tag, clock.utcnow())
            if action == "StartTransaction" and listed["status"] != info.get("status") and self.online:
                self.background.spawn(self.call("StatusNotification", self.connector_status(
                    WHOLE_CHARGE_POINT, "Available" if self.main_operative else "Unavailable",
                    error_code="LocalListConflict")))
            return
        if self.config.flag("AuthorizationCacheEnabled"):
            self.cache.update(id_tag, info)

    def on_ClearCache(self, _: None, payload: dict) -> dict:
        if not self.config.flag("AuthorizationCacheEnabled"):
            return {"status": "Rejected"}
        self.cache.clear()
        return {"status": "Accepted"}

    def on_GetLocalListVersion(self, _: None, payload: dict) -> dict:
        return {"listVersion": self.local_list.version if self.config.flag("LocalAuthListEnabled") else -1}

    def on_SendLocalList(self, _: None, payload: dict) -> dict:
        if not self.config.flag("LocalAuthListEnabled"):
            return {"status": "NotSupported"}
        if self.list_storage_broken:
            return {"status": "Failed"}
        return {"status": self.local_list.apply(payload["updateType"], payload["listVersion"],
                                                payload.get("localAuthorizationList", []))}

    async def act_break_local_list_storage(self) -> None:
        self.list_storage_broken = True

    async def act_repair_local_list_storage(self) -> None:
        self.list_storage_broken = False


class LocalAuthorizationCsms16(Block):
    versions = V16

    async def undo_SendLocalList(self, payload: dict, link: Any) -> Undo | None:
        """The local list, whose entries 1.6 cannot read back, is emptied at the version it had."""
        try:
            version = (await link.call("GetLocalListVersion", {}))["listVersion"]
        except CallFailed:
            return None
        emptied = {"listVersion": max(version, 0), "updateType": "Full", "localAuthorizationList": []}
        return Undo(f"empty the local list at version {version}", lambda now: now.call_exchange("SendLocalList", emptied))

    async def act_clear_cache(self, station: str | None = None) -> None:
        self.send(station, "ClearCache", {})

    async def act_get_local_list_version(self, station: str | None = None) -> None:
        self.send(station, "GetLocalListVersion", {})

    async def act_send_local_list(self, list_version: int, update_type: str,
                                  local_authorization_list: list[dict] | None = None,
                                  station: str | None = None) -> None:
        payload: dict[str, Any] = {"listVersion": list_version, "updateType": update_type}
        if local_authorization_list is not None:
            payload["localAuthorizationList"] = local_authorization_list
        self.send(station, "SendLocalList", payload)
