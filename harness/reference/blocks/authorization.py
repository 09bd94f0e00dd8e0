"""Authorization: the station asks whether a presented token may charge; the CSMS decides.

Station 2.x (spec 001 C01, C09): a presented idToken is authorized with AuthorizeRequest; once it is
accepted and the cable is in, a transaction starts; an EVSE restriction in idTokenInfo.evseId is
honoured (order of checks, step 7). The token that started a transaction stops it without a new
AuthorizeRequest; another token is authorized first and stops it when its groupIdToken matches
(Authorization rule 5); a master pass (groupIdToken = MasterPassGroupId) starts nothing and stops
every running transaction (rule 6).

Charge point 1.6 (spec 002 "What the service does" 3, 8): the same with a bare idTag and Authorize;
a group is an equal parentIdTag; an accepted idTag without the cable in makes the connector Preparing.

CSMS: the TokenStore's order of checks (``harness.reference.tokens``); 2.x answers idTokenInfo (with
groupIdToken), 1.6 answers IdTagInfo with the 1.6 statuses only and the group as parentIdTag.
ConcurrentTx is decided where a transaction starts, never in Authorize (a driver also authorizes to
stop): in 2.x for the TransactionEvent Started of a token already in another transaction of the
station (AuthorizationStatusEnumType: "only relevant for the response to a TransactionEvent Started"),
in 1.6 at StartTransaction (AuthorizationStatus) — both by the transactions block.
"""

from __future__ import annotations

from typing import Any

from harness.reference.base import StationSession
from harness.reference.common import EVERY_VERSION, V2X, V16, Block
from harness.reference.model import EvseState
from harness.reference.tokens import TokenStore, token_key


# -------------------------------------------------------------------------------------- the station
class AuthorizationStation2x(Block):
    versions = V2X
    requires = ("TransactionsStation2x",)
    # local_authorization: a presented token counts as accepted by the station's own cache or local list,
    # and a transaction starts without AuthorizeRequest (spec 001 C12/C14, Authorization rule 7)
    configurable = frozenset({"local_authorization"})
    local_authorization = False

    async def authorize(self, id_token: dict) -> dict:
        return (await self.call("Authorize", {"idToken": id_token}))["idTokenInfo"]

    def _evse_for_token(self, id_token: dict, evse_id: int | None) -> EvseState:
        if evse_id is not None:
            return self.evses[evse_id]
        for state in self.evses.values():
            if state.transaction and state.transaction.id_token and token_key(state.transaction.id_token) == token_key(id_token):
                return state
        return next((s for s in self.evses.values() if not s.busy), next(iter(self.evses.values())))

    async def _present(self, id_token: dict, evse_id: int | None) -> None:
        state = self._evse_for_token(id_token, evse_id)
        tx = state.transaction
        if tx is not None:
            if tx.id_token and token_key(tx.id_token) == token_key(id_token):
                await self.end_transaction(state, "StopAuthorized", "Local", id_token)
                return
            info = await self.authorize(id_token)
            if await self.master_pass(id_token, info):
                return
            if info["status"] == "Accepted" and tx.group and info.get("groupIdToken") \
                    and token_key(info["groupIdToken"]) == token_key(tx.group):
                await self.end_transaction(state, "StopAuthorized", "Local", id_token)
            return
        info = {"status": "Accepted"} if self.local_authorization else await self.authorize(id_token)
        if info["status"] != "Accepted" or await self.master_pass(id_token, info):
            return
        allowed = info.get("evseId")
        if allowed and state.evse.id not in allowed:
            return
        state.authorized, state.group = id_token, info.get("groupIdToken")
        if state.plugged:
            await self.start_transaction(state, "Authorized", id_token)

    async def master_pass(self, id_token: dict, info: dict) -> bool:
        """An accepted token of the MasterPassGroupId group (the profile's [authorization]) starts nothing
        and stops every running transaction, with stoppedReason MasterPass (spec 001 Authorization rule 6;
        a station without a UI stops them all, C16.FR.02). True when it was one."""
        group = self.profile.authorization("master_pass_group_id")
        member_of = (info.get("groupIdToken") or {}).get("idToken", "")
        if not group or info["status"] != "Accepted" or member_of.casefold() != group.casefold():
            return False
        for state in self.evses.values():
            await self.end_transaction(state, "StopAuthorized", "MasterPass", id_token)
        return True

    async def act_present_id_token(self, id_token: dict, evse_id: int | None = None) -> None:
        self.background.spawn(self._present(id_token, evse_id))


class AuthorizationStation16(Block):
    versions = V16
    requires = ("TransactionsStation16",)

    async def authorize(self, id_tag: str) -> dict:
        return (await self.call("Authorize", {"idTag": id_tag}))["idTagInfo"]

    async def present(self, id_tag: str, connector_id: int | None = None) -> None:
        same = [c for c in self._running(connector_id) if c.transaction.id_tag.casefold() == id_tag.casefold()]
        if same:   # the idTag that started it stops it, without Authorize
            await self.stop_charging(same[0], "Local", id_tag)
            return
        info = await self.authorize(id_tag)
        if info.get("status") != "Accepted":
            return
        parent = info.get("parentIdTag")
        group = [c for c in self._running(connector_id) if parent and c.transaction.parent
                 and c.transaction.parent.casefold() == parent.casefold()]
        if group:  # another member of the starter's group
            await self.stop_charging(group[0], "Local", id_tag)
            return
        connector = self._free(connector_id)
        if connector is None:
            return
        connector.authorized, connector.parent = id_tag, parent
        if connector.plugged:
            await self.start_charging(connector)
        else:
            await self.set_status(connector, "Preparing")

    async def act_present_id_tag(self, id_tag: str, connector_id: int | None = None) -> None:
        self.background.spawn(self.present(id_tag, connector_id))

    async def act_start_locally_authorized(self, id_tag: str, connector_id: int = 1) -> None:
        """An idTag the charge point authorizes on its own (its cache or local list: spec 002 What the
        service does 5), the cable in: the transaction starts without Authorize."""
        connector = self.connectors[connector_id]
        connector.authorized, connector.plugged = id_tag, True
        self.background.spawn(self.start_charging(connector))


# ----------------------------------------------------------------------------------------- the CSMS
class TokenDecisions(Block):
    """The CSMS's token store, shared by both versions' authorization (not a block of its own)."""

    versions = EVERY_VERSION

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.tokens = TokenStore.from_profile(self.profile)

    def currents(self) -> set[str]:
        """The currents (AC, DC) the profile's EVSEs offer: a token may be restricted to one."""
        return {e.current for e in self.profile.evses}


class AuthorizationCsms2x(TokenDecisions):
    versions = V2X

    def id_token_info(self, session: StationSession, id_token: dict, *, current_tx: str | None = None) -> dict:
        """The decision on ``id_token``; ``current_tx``: the transaction it starts (a TransactionEvent
        Started), which makes a token already in another running transaction ConcurrentTx."""
        active = {token_key(t.id_token) for t in session.transactions.values()
                  if not t.ended and t.id_token and t.id != current_tx}
        return self.tokens.decide(id_token, station=session.identity, currents=self.currents(),
                                  in_transaction=current_tx is not None and token_key(id_token) in active)

    def on_Authorize(self, session: StationSession, payload: dict) -> dict:
        return {"idTokenInfo": self.id_token_info(session, payload["idToken"])}


class AuthorizationCsms16(TokenDecisions):
    versions = V16

    def id_tag_info(self, session: StationSession, id_tag: str, *, charging: bool = False) -> dict:
        return self.tokens.decide16(id_tag, station=session.identity, currents=self.currents(), in_transaction=charging)

    def on_Authorize(self, session: StationSession, payload: dict) -> dict:
        return {"idTagInfo": self.id_tag_info(session, payload["idTag"])}
