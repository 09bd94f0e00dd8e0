"""The CSMS's idToken store and its authorization decision.

Order of checks (spec 001 "Order of checks for an authorization decision"), first match wins:
  1 unknown → Invalid; 2 blocked → Blocked; 3 expired → Expired;
  4 already in an active transaction → ConcurrentTx; 5 not allowed at this station →
  NotAtThisLocation; 6 not allowed at this EVSE type (AC/DC) → NotAllowedTypeEVSE;
  7 allowed only at some EVSEs → Accepted with evseId; 8 Accepted.
Lookup is case-insensitive on idToken and type; additionalInfo is ignored (spec 001 IdTokenType).
A token in a group is answered with groupIdToken of type Central (spec 001, authorization rule 5).
A prepaid token (one with a balance) is NoCredit at a balance of zero or below, and its answer expires
at once: cacheExpiryDateTime is the time of the answer (spec 001 moves "Prepaid token", rule 8).

OCPP 1.6 (spec 002): an idTag is a bare CiString20 without a type, looked up case-insensitively;
AuthorizationStatus has only Accepted, Blocked, Expired, Invalid and ConcurrentTx, so a status 1.6
cannot express (steps 5-6, configured-only ones) is no authorization: Invalid; a group is the tags
sharing a parentIdTag (spec 002 "What the service does" 8). KeyCode tokens are 2.x-only.
"""

from __future__ import annotations

from dataclasses import dataclass

from harness.ocpp.v16 import AUTHORIZATION_STATUSES
from harness.profile import Profile, Token
from harness.reference.common import now_iso

# Statuses a record cannot derive from its attributes: the store answers them as configured.
_CONFIGURED_ONLY = {"NoCredit", "NotAtThisTime", "Unknown"}


@dataclass(frozen=True)
class TokenRecord:
    id: str
    type: str
    blocked: bool = False
    expired: bool = False
    group: str | None = None
    evse_ids: tuple[int, ...] = ()
    current: str | None = None
    stations: tuple[str, ...] = ()
    configured_status: str | None = None
    balance: float | None = None   # prepaid: the remaining credit

    @classmethod
    def from_profile(cls, token: Token) -> "TokenRecord":
        conditions = {token.status, *token.also}
        return cls(token.id, token.type, blocked="Blocked" in conditions, expired="Expired" in conditions,
                   group=token.group, evse_ids=token.evse_ids, current=token.current, stations=token.stations,
                   configured_status=token.status if token.status in _CONFIGURED_ONLY else None,
                   balance=token.balance)


def token_key(id_token: dict) -> tuple[str, str]:
    return id_token.get("idToken", "").casefold(), id_token.get("type", "").casefold()


class TokenStore:
    def __init__(self, records: list[TokenRecord]):
        self.records = {(r.id.casefold(), r.type.casefold()): r for r in records}

    @classmethod
    def from_profile(cls, profile: Profile) -> "TokenStore":
        """Every profile token, of each station it describes, but the ones that must be unknown (status Invalid)."""
        return cls([TokenRecord.from_profile(t) for t in profile.all_tokens() if t.status != "Invalid"])

    def lookup(self, id_token: dict) -> TokenRecord | None:
        return self.records.get(token_key(id_token))

    def decide(self, id_token: dict, *, station: str, currents: set[str], in_transaction: bool) -> dict:
        """The idTokenInfo for ``id_token`` presented at ``station`` (whose EVSEs offer ``currents``)."""
        record = self.lookup(id_token)
        status = self.status(record, station=station, currents=currents, in_transaction=in_transaction)
        info: dict = {"status": status}
        if record is not None and record.group:
            info["groupIdToken"] = {"idToken": record.group, "type": "Central"}
        if status == "Accepted" and record is not None and record.evse_ids:
            info["evseId"] = list(record.evse_ids)
        if record is not None and record.balance is not None:
            info["cacheExpiryDateTime"] = now_iso()
        return info

    def lookup_tag(self, id_tag: str) -> TokenRecord | None:
        """1.6: the record of a bare idTag (no type; KeyCode tokens do not exist in 1.6)."""
        wanted = id_tag.casefold()
        return next((r for r in self.records.values() if r.id.casefold() == wanted and r.type != "KeyCode"), None)

    def decide16(self, id_tag: str, *, station: str, currents: set[str], in_transaction: bool) -> dict:
        """The 1.6 IdTagInfo for ``id_tag``: the same order of checks, the group as parentIdTag."""
        record = self.lookup_tag(id_tag)
        status = self.status(record, station=station, currents=currents, in_transaction=in_transaction)
        info: dict = {"status": status if status in AUTHORIZATION_STATUSES else "Invalid"}
        if record is not None and record.group:
            info["parentIdTag"] = record.group
        return info

    def status(self, record: TokenRecord | None, *, station: str, currents: set[str], in_transaction: bool) -> str:
        if record is None:
            return "Invalid"
        if record.blocked:
            return "Blocked"
        if record.expired:
            return "Expired"
        if in_transaction:
            return "ConcurrentTx"
        if record.stations and station not in record.stations:
            return "NotAtThisLocation"
        if record.current and record.current not in currents:
            return "NotAllowedTypeEVSE"
        if record.balance is not None and record.balance <= 0:
            return "NoCredit"
        return record.configured_status or "Accepted"
