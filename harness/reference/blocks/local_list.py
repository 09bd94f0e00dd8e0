"""Local authorization list: the CSMS installs a list of idTokens with their idTokenInfo at the
station, which then decides on them itself.

Station 2.x (spec 001 C13/D01, C14, C15; OCPP 2.0.1 D01.FR, D02.FR): GetLocalListVersion answers the
version of the installed list (0: none, or the list disabled). SendLocalList with versionNumber above 0
and unique idTokens: Full replaces the list (every entry with its idTokenInfo); Differential adds or
updates an entry with idTokenInfo and deletes one without, when versionNumber is above the current one
(VersionMismatch otherwise); anything else fails (Failed) and leaves the list as it was. The list
exists when the profile declares the feature ``local_list``.

Deciding on a presented token (spec 001 C14, C15, Authorization rule 7): a token the list holds as
Accepted is accepted without an AuthorizeRequest (C14.FR.02); online, any other token is asked about
(C14.FR.03); offline, the list's entry decides, and a token it does not hold is accepted only when
OfflineTxForUnknownIdEnabled (C15; ``offline_tx_for_unknown_id``, from the profile's [authorization]).

CSMS 2.x: GetLocalListVersion and SendLocalList as actuator actions; without a version given, the
SendLocalList carries the station's current version + 1, asked first (Authorization rule 11).
"""

from __future__ import annotations

from typing import Any

from harness.reference.common import V2X, Block, Undo, store
from harness.reference.tokens import token_key


# -------------------------------------------------------------------------------------- the station
class LocalListStation2x(Block):
    versions = V2X
    precedes = ("AuthorizationStation2x",)   # its decision on a token comes first
    requires = ("AuthorizationStation2x", "OfflineStation2x")
    configurable = frozenset({"offline_tx_for_unknown_id", "local_list_version"})

    local_list: dict[tuple[str, str], dict] = store(dict)   # by token_key: the entry's idTokenInfo
    local_list_version: int = store(default=0)

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.local_list_enabled = self.profile.feature("local_list")
        self.offline_tx_for_unknown_id = bool(self.profile.authorization("offline_tx_for_unknown_id", False))

    def on_GetLocalListVersion(self, _: None, payload: dict) -> dict:
        return {"versionNumber": self.local_list_version if self.local_list_enabled else 0}

    def on_SendLocalList(self, _: None, payload: dict) -> dict:
        version, entries = payload["versionNumber"], payload.get("localAuthorizationList", [])
        keys = [token_key(entry["idToken"]) for entry in entries]
        if not self.local_list_enabled or version <= 0 or len(set(keys)) != len(keys):
            return {"status": "Failed"}
        if payload["updateType"] == "Full":
            if any("idTokenInfo" not in entry for entry in entries):
                return {"status": "Failed"}
            self.local_list = {key: entry["idTokenInfo"] for key, entry in zip(keys, entries)}
        else:
            if version <= self.local_list_version:
                return {"status": "VersionMismatch"}
            for key, entry in zip(keys, entries):
                if "idTokenInfo" in entry:
                    self.local_list[key] = entry["idTokenInfo"]
                else:
                    self.local_list.pop(key, None)
        self.local_list_version = version
        return {"status": "Accepted"}

    async def authorize(self, id_token: dict) -> dict:
        listed = self.local_list.get(token_key(id_token)) if self.local_list_enabled else None
        if listed is not None and listed["status"] == "Accepted":
            return listed
        if self.online:
            return await super().authorize(id_token)
        if listed is not None:
            return listed
        return {"status": "Accepted" if self.offline_tx_for_unknown_id else "Unknown"}


# ----------------------------------------------------------------------------------------- the CSMS
class LocalListCsms2x(Block):
    versions = V2X

    async def undo_SendLocalList(self, payload: dict, link: Any) -> Undo:
        """A Full update without entries, at the next version, empties the station's local list (OCPP 2.0.1
        D01.FR.04): the list it had before the test cannot be read back, so it is not restored."""
        async def clear(now: Any) -> None:
            version = (await now.call("GetLocalListVersion", {}))["versionNumber"]
            await now.call_exchange("SendLocalList", {"versionNumber": version + 1, "updateType": "Full"})
        return Undo("clear the local list the test installed", clear)

    async def act_get_local_list_version(self, station: str | None = None) -> None:
        self.send(station, "GetLocalListVersion", {})

    async def act_send_local_list(self, update_type: str, entries: list[dict], version_number: int | None = None,
                                  station: str | None = None) -> None:
        """``entries``: ``{"id_token": {...}, "id_token_info"?: {...}}``, an entry without idTokenInfo
        deletes the token (Differential)."""
        connection = self.session(station).connection

        async def send() -> None:
            version = version_number
            if version is None:
                version = (await connection.call("GetLocalListVersion", {}))["versionNumber"] + 1
            payload: dict[str, Any] = {"versionNumber": version, "updateType": update_type}
            listed = [{"idToken": e["id_token"]} | ({"idTokenInfo": e["id_token_info"]} if "id_token_info" in e else {})
                      for e in entries]
            if listed:
                payload["localAuthorizationList"] = listed
            await connection.call("SendLocalList", payload)

        self.background.spawn(send())
