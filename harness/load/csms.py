"""The reference CSMS serving a roster: the CSMS the load is measured against on this machine.

It is the reference CSMS of the version (``harness.reference``) as the suites run it, knowing the
roster's stations instead of the profile's one: their identities (404 for any other), Basic-auth
passwords (401 for a wrong one) and idTokens (Accepted; every other token Invalid). It keeps no
wire log: a connection holds only its newest exchange (the suites' CSMS keeps a test's worth).
"""

from __future__ import annotations

import secrets

from harness.ocpp.versions import OcppVersion
from harness.profile import from_dict as profile_from_dict
from harness.reference import references_for
from harness.reference.base import CsmsBase
from harness.reference.tokens import TokenRecord, TokenStore
from harness.load.roster import Roster

KEPT = 1   # exchanges (and CALL ids) a connection keeps: the load needs no wire log


def roster_csms(version: OcppVersion, roster: Roster, *, call_timeout: float = 30.0,
                heartbeat_interval: int = 300) -> CsmsBase:
    """The reference CSMS of ``version``'s family (2.0.1 and 2.1, or 1.6) for ``roster``'s stations."""
    reference = references_for(version)[0]

    class RosterCsms(reference):
        def accepts_identity(self, identity: str) -> bool:
            return identity not in self.unreachable and roster.get(identity) is not None

        def basic_auth_required(self) -> bool:
            return True

        def check_password(self, identity: str, password: bytes) -> bool:
            card = roster.get(identity)
            if card is None:
                return False
            expected = card.basic_auth(version)
            return secrets.compare_digest(password, expected if isinstance(expected, bytes) else expected.encode())


    RosterCsms.__name__ = RosterCsms.__qualname__ = f"Roster{reference.__name__}"
    profile = profile_from_dict({"timeouts": {"call": call_timeout}}, "<load csms>")
    csms = RosterCsms(profile, sorted(reference.versions, reverse=True), call_timeout=call_timeout)
    csms.tokens = TokenStore([TokenRecord(card.id_token, "ISO14443") for card in roster.cards])
    csms.configure(heartbeat_interval=heartbeat_interval)
    csms.server.history_kept = KEPT
    return csms
