"""Authorization: the station asks whether a presented token may charge; the CSMS decides.

Station 2.x (spec 001 C01, C09): a presented idToken is authorized with AuthorizeRequest; once it is
accepted and the cable is in, a transaction starts; an EVSE restriction in idTokenInfo.evseId is
honoured (order of checks, step 7). The token that started a transaction stops it without a new
AuthorizeRequest; another token is authorized first and stops it when its groupIdToken matches
(Authorization rule 5); a master pass (groupIdToken = MasterPassGroupId) starts nothing and
stops every running transaction (rule 6). The authorization cache (C10-C12; AuthCacheCtrlr.Enabled, on by default) keeps
the idTokenInfo of every answer about a token but Central and NoAuthorization ones, until its
cacheExpiryDateTime; with AuthCtrlr.LocalPreAuthorize a cached Accepted token starts without
AuthorizeRequest, a cached refusal is asked about again (refused at once with
AuthCacheCtrlr.DisablePostAuthorize); ClearCache empties it, Rejected while it is off
(rule 12). The start button starts with an empty NoAuthorization token and asks nobody (rule 2).

Charge point 1.6 (spec 002 "What the service does" 3, 8): the same with a bare idTag and Authorize,
unless the charge point decides on its own (its cache or local list, offline rules: the local
authorization block); a group is an equal parentIdTag; an accepted idTag without the cable in makes
the connector Preparing.

CSMS: the TokenStore's order of checks (``harness.reference.tokens``), with the statuses and idTokenInfo
fields a test gives tokens on top (``token_status``, ``id_token_info_extra``); 2.x answers idTokenInfo (with
groupIdToken), 1.6 answers IdTagInfo with the 1.6 statuses only and the group as parentIdTag.
ConcurrentTx is decided where a transaction starts, never in Authorize (a driver also authorizes to
stop): in 2.x for the TransactionEvent Started of a token already in another transaction of the
station (AuthorizationStatusEnumType: "only relevant for the response to a TransactionEvent Started"),
in 1.6 at StartTransaction (AuthorizationStatus) — both by the transactions block.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from harness import clock
from harness.reference.base import StationSession
from harness.reference.common import EVERY_VERSION, V2X, V16, AtTheSut, Block, store
from harness.reference.blocks.plug_and_charge import is_contract_request
from harness.reference.model import EvseState
from harness.reference.tokens import TokenStore, token_key

NO_AUTHORIZATION = {"idToken": "", "type": "NoAuthorization"}   # the start button's token (Authorization rule 2)
UNCACHED_TYPES = ("Central", "NoAuthorization")   # never in the authorization cache (C10; Remote start rule 1)


# -------------------------------------------------------------------------------------- the station
@dataclass(frozen=True)
class WaitingAuthorization:
    """An identifier presented where no cable is in waits there for one, so the next test's cable would start a
    transaction on it. Its using up is registered as the test's undo, and dropped when the test plugs a cable in
    there itself: a cable plugged in and out again, the transaction the waiting identifier starts (``started``)
    and unplugging ends it (one the station keeps running is stopped with the others the test left); with none
    waiting the cable starts nothing, and the wait is the quiet timeout. Waiting out the station's connection
    timeout instead would take as long as it is configured to wait."""
    place: str                                   # the body's key: connector_id (1.6), evse_id (2.x)
    named: str                                   # how the undo names the place
    present: str                                 # the actuator action that presents the identifier
    plugs: tuple[str, ...]
    unplugs: tuple[str, ...]
    started: str                                 # the CALL the waiting identifier's transaction starts with
    starts: Callable[[dict[str, Any], int], bool]   # that CALL's payload is the one at this place

    def acted(self, action: str, body: dict[str, Any], sut: AtTheSut) -> None:
        place = body.get(self.place) or 1
        cabled: set[int] = sut.notes.setdefault("cabled", set())
        waiting = f"use up the authorization waiting at {self.named} {place}"
        if action in self.plugs:
            cabled.add(place)
            sut.undone(waiting)
        elif action in self.unplugs:
            cabled.discard(place)
        elif action == self.present and place not in cabled:
            sut.undo(waiting, lambda: self._use_up(sut, place))

    async def _use_up(self, sut: AtTheSut, place: int) -> None:
        body = {self.place: place}
        mark = sut.mark()
        await sut.perform("plug_in", body)
        await sut.call_from_sut(self.started, within=sut.quiet, after=mark,
                                where=lambda payload: self.starts(payload, place))
        await sut.perform("unplug", body)


WAITING_16 = WaitingAuthorization("connector_id", "connector", "present_id_tag", ("plug_in",), ("unplug",),
                                  "StartTransaction", lambda payload, place: payload.get("connectorId") == place)
WAITING_2X = WaitingAuthorization("evse_id", "EVSE", "present_id_token", ("plug_in", "plug_in_hlc"),
                                  ("unplug", "unplug_ev"), "TransactionEvent",
                                  lambda payload, place: payload.get("idToken") is not None)


class AuthorizationStation2x(Block):
    versions = V2X
    undone_by = {"plug_in_hlc": lambda body: ("unplug", body)}
    requires = ("TransactionsStation2x", "DeviceModelStation2x")
    # local_authorization: a presented token counts as accepted by the station's own cache or local list,
    # and a transaction starts without AuthorizeRequest (spec 001 C12/C14, Authorization rule 7)
    configurable = frozenset({"local_authorization"})
    local_authorization = False

    cache: dict[tuple[str, str], dict] = store(dict)   # the authorization cache: token key → idTokenInfo

    @classmethod
    def acted(cls, action: str, body: dict[str, Any], sut: AtTheSut) -> None:
        """A token Accepted at an EVSE without a cable waits there for one for TxCtrlr.EVConnectionTimeOut (the
        reference's 0: for ever), so the next test's cable (C08's EV) would start a transaction on it: used up when
        the test ends (``WAITING_2X``)."""
        super().acted(action, body, sut)
        WAITING_2X.acted(action, body, sut)

    async def authorize(self, id_token: dict) -> dict:
        info = (await self.call("Authorize", {"idToken": id_token}))["idTokenInfo"]
        self.id_token_answered(id_token, info)
        return info

    # ------------------------------------------------------------ the authorization cache (C10, C11, C12)
    def id_token_answered(self, id_token: dict, info: dict) -> None:
        """Every idTokenInfo the CSMS answers updates the cache (C10), but for tokens that are never cached:
        Central (Remote start rule 1) and NoAuthorization (Authorization rule 2)."""
        super().id_token_answered(id_token, info)
        if self.flag("AuthCacheCtrlr", "Enabled") and id_token.get("type") not in UNCACHED_TYPES:
            self.cache[token_key(id_token)] = info

    def cached(self, id_token: dict) -> dict | None:
        """The cache's idTokenInfo of ``id_token``; None when absent, the cache is off, or its
        cacheExpiryDateTime has passed (the entry counts as expired: the CSMS is asked again)."""
        info = self.cache.get(token_key(id_token)) if self.flag("AuthCacheCtrlr", "Enabled") else None
        expiry = (info or {}).get("cacheExpiryDateTime")
        if expiry is not None and datetime.fromisoformat(expiry.replace("Z", "+00:00")) <= clock.utcnow():
            return None
        return info

    async def decision(self, id_token: dict) -> dict:
        """The idTokenInfo a transaction may start on: the station's own (local_authorization), a cached
        Accepted one when LocalPreAuthorize is on (no AuthorizeRequest) or, offline, when LocalAuthorizeOffline
        is on (E04), else the CSMS's answer (a cached refusal is asked about again: the CSMS may have changed
        its mind; not with AuthCacheCtrlr.DisablePostAuthorize, which makes the cached refusal final)."""
        if self.local_authorization:
            return {"status": "Accepted"}
        cached = self.cached(id_token)
        trusted = "LocalPreAuthorize" if self.online else "LocalAuthorizeOffline"
        if cached is not None and self.flag("AuthCtrlr", trusted) and (
                cached["status"] == "Accepted" or self.flag("AuthCacheCtrlr", "DisablePostAuthorize")):
            return cached
        return await self.authorize(id_token)

    def on_ClearCache(self, _: None, payload: dict) -> dict:
        """Rejected while the cache is disabled (Authorization rule 12)."""
        if not self.flag("AuthCacheCtrlr", "Enabled"):
            return {"status": "Rejected"}
        self.cache.clear()
        return {"status": "Accepted"}

    # ------------------------------------------------------------ a driver at the station
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
        if tx is not None and tx.id_token is not None:   # one started on the cable alone is authorized below
            if token_key(tx.id_token) == token_key(id_token):
                await self.stop_authorized(state, id_token)
                return
            info = await self.authorize(id_token)
            if await self.master_pass(id_token, info):
                return
            if info["status"] == "Accepted" and tx.group and info.get("groupIdToken") \
                    and token_key(info["groupIdToken"]) == token_key(tx.group):
                await self.end_transaction(state, "StopAuthorized", "Local", id_token)
            return
        info = await self.decision(id_token)
        if info["status"] != "Accepted" or await self.master_pass(id_token, info):
            return
        allowed = info.get("evseId")
        if allowed and state.evse.id not in allowed:
            return
        await self._authorized(state, id_token, info.get("groupIdToken"))

    async def _authorized(self, state: EvseState, id_token: dict, group: dict | None) -> None:
        if self.reserved_for_another(state, id_token, group):
            return   # an EVSE reserved for another token (or group) starts nothing for this one (H03)
        state.authorized, state.group = id_token, group
        await self.authorized_at(state)

    def is_master_pass(self, info: dict) -> bool:
        """The idTokenInfo is an acceptance in the MasterPassGroupId group (the profile's [authorization])."""
        group = self.profile.authorization("master_pass_group_id")
        member_of = (info.get("groupIdToken") or {}).get("idToken", "")
        return bool(group) and info["status"] == "Accepted" and member_of.casefold() == group.casefold()

    async def master_pass(self, id_token: dict, info: dict, evse_ids: list[int] | None = None) -> bool:
        """A master pass starts nothing and stops running transactions with stoppedReason MasterPass (spec 001
        Authorization rule 6): those of ``evse_ids`` when its holder selected them at the station's UI
        (C16.FR.01), else every one (a station without a UI, C16.FR.02). True when it was one."""
        if not self.is_master_pass(info):
            return False
        for evse_id, state in self.evses.items():
            if evse_ids is None or evse_id in evse_ids:
                await self.end_transaction(state, "StopAuthorized", "MasterPass", id_token)
        return True

    async def act_stop_with_master_pass(self, id_token: dict, evse_ids: list[int]) -> None:
        """The master pass is presented and its holder selects, at the station's UI, the transactions to stop
        (by EVSE): asked about, it ends those only (C16.FR.01)."""
        async def stop() -> None:
            await self.master_pass(id_token, await self.authorize(id_token), evse_ids)
        self.background.spawn(stop())

    async def act_present_id_token(self, id_token: dict, evse_id: int | None = None) -> None:
        self.background.spawn(self._present(id_token, evse_id))

    async def act_press_start_button(self, evse_id: int = 1) -> None:
        """The start button: no identification, no AuthorizeRequest; the transaction carries an empty
        idToken of type NoAuthorization (Authorization rule 2)."""
        self.background.spawn(self._authorized(self.evses[evse_id], dict(NO_AUTHORIZATION), None))

    async def act_plug_in_hlc(self, evse_id: int = 1) -> None:
        """An EV with ISO 15118 high-level communication plugs in; a driver then identifies with external
        means (C08), handled exactly as C01."""
        await self.act_plug_in(evse_id)


class AuthorizationStation16(Block):
    versions = V16
    requires = ("TransactionsStation16", "LocalAuthorizationStation16", "ReservationStation16")

    @classmethod
    def acted(cls, action: str, body: dict[str, Any], sut: AtTheSut) -> None:
        """An idTag presented at a connector without a cable is authorized and waits there for one (spec 002
        ChargePointStatus Preparing: tag presented, no transaction yet) until the charge point's configuration
        key ConnectionTimeOut (OCPP 1.6, not shown in spec 002) ends it, so the next test's cable would start a
        transaction on it: used up when the test ends (``WAITING_16``)."""
        super().acted(action, body, sut)
        WAITING_16.acted(action, body, sut)

    async def authorize(self, id_tag: str) -> dict:
        """The IdTagInfo the charge point goes by: its own local decision, else Authorize's answer."""
        decided = self.local_decision(id_tag)
        if decided is not None:
            return decided
        info = (await self.call("Authorize", {"idTag": id_tag}))["idTagInfo"]
        self.id_tag_info_received(id_tag, info, "Authorize")
        return info

    async def present(self, id_tag: str, connector_id: int | None = None) -> None:
        same = [c for c in self._running(connector_id) if c.transaction.id_tag.casefold() == id_tag.casefold()]
        if same:   # the idTag that started it stops it, without Authorize
            await self.stop_charging(same[0], "Local", id_tag)
            return
        target = self.connectors.get(connector_id)
        if target is not None and target.transaction is None and self.reservation_refuses(target, id_tag, None) \
                and target.reservation.parent is None:
            return   # reserved for another idTag: refused without asking
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
        if connector is None or self.reservation_refuses(connector, id_tag, parent):
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
    # token_status: {idToken: status} a test gives tokens instead of the profile's (a token the station
    # cached as Accepted is Blocked now: C12); id_token_info_extra: fields added to every idTokenInfo
    # (cacheExpiryDateTime, language1, personalMessage, ...: C01, C10)
    configurable = frozenset({"token_status", "id_token_info_extra"})
    token_status: dict[str, str] = {}
    id_token_info_extra: dict[str, Any] = {}

    def id_token_info(self, session: StationSession, id_token: dict, *, current_tx: str | None = None) -> dict:
        """The decision on ``id_token``; ``current_tx``: the transaction it starts (a TransactionEvent
        Started), which makes a token already in another running transaction ConcurrentTx."""
        active = {token_key(t.id_token) for t in session.transactions.values()
                  if not t.ended and t.id_token and t.id != current_tx}
        info = self.tokens.decide(id_token, station=session.identity, currents=self.currents(),
                                  in_transaction=current_tx is not None and token_key(id_token) in active)
        overridden = {k.casefold(): v for k, v in self.token_status.items()}.get(id_token.get("idToken", "").casefold())
        return info | ({"status": overridden} if overridden else {}) | self.id_token_info_extra

    async def act_clear_cache(self, station: str | None = None) -> None:
        self.send(station, "ClearCache", {})

    def authorize_extras(self, session: StationSession, id_token: dict) -> dict:
        """Fields of the AuthorizeResponse beside idTokenInfo (the payment block adds a tariff)."""
        return {}

    def on_Authorize(self, session: StationSession, payload: dict) -> dict | Awaitable[dict]:
        """A token's idTokenInfo (and the extras); a contract certificate's answer (Plug and Charge) is the
        plug-and-charge block's, awaited by the dispatcher."""
        if is_contract_request(payload):
            return self.contract_authorization(session, payload)
        id_token = payload["idToken"]
        return {"idTokenInfo": self.id_token_info(session, id_token)} | self.authorize_extras(session, id_token)


class AuthorizationCsms16(TokenDecisions):
    versions = V16
    # given_id_tag_info: {idTag: IdTagInfo fields} a test gives idTags on top of the profile's decision (its
    # own idTags Accepted, an expiryDate: the authorization cache tests of CACHE16)
    configurable = frozenset({"given_id_tag_info"})
    given_id_tag_info: dict[str, dict] = {}

    def id_tag_info(self, session: StationSession, id_tag: str, *, charging: bool = False) -> dict:
        info = self.tokens.decide16(id_tag, station=session.identity, currents=self.currents(), in_transaction=charging)
        return info | {k.casefold(): v for k, v in self.given_id_tag_info.items()}.get(id_tag.casefold(), {})

    def on_Authorize(self, session: StationSession, payload: dict) -> dict:
        return {"idTagInfo": self.id_tag_info(session, payload["idTag"])}
