"""Transport pieces that more than one suite uses: the station's Basic-auth password in the arena's
version (1.6: the 20-byte AuthorizationKey; 2.x: the password), an upgrade that must be refused
(the transport suite CONN, the 1.6 key rotation of SECURITY16), and a CALLERROR the harness answers
on purpose (OFFLINE16)."""

from __future__ import annotations

from harness.arena.ocpp import OcppArena
from harness.ocpp.versions import OcppVersion
from harness.rules import Rule
from harness.transport.ws import CallErrorReply, Ws, open_station
from harness.verdict import require, violated


def basic_password(arena: OcppArena) -> str | bytes | None:
    """The configured station's Basic-auth password in the arena's version."""
    return arena.profile.authorization_key if arena.version is OcppVersion.V16 else arena.profile.password


async def expect_refused(arena: OcppArena, identity: str, password: str | bytes | None, *,
                         rule: Rule, what: str, status: int) -> None:
    """The upgrade of ``identity`` with ``password`` must not succeed (``rule``: a failure or, for a SHOULD
    row, a finding); a refusal with another HTTP status than ``status`` breaks only the SHOULD
    ``ws.refusal_status``."""
    handshake = await open_station(arena.sut_url, identity, password=password, versions=[arena.version],
                                   handler=None, wirelog=arena.wirelog, tls=arena.link_tls(),
                                   open_timeout=arena.timeouts.connect)
    if handshake.connection is not None:
        await handshake.connection.close()
        violated(rule, f"the server upgraded {what}", expected=f"HTTP {status}", actual="101 Switching Protocols")
        return
    require(handshake.status == status, Ws.refusal_status, f"{what} should get HTTP {status}",
            expected=status, actual=handshake.status)


def failing(reason: str) -> CallErrorReply:
    """A CALLERROR the harness answers on purpose (a central system failing to process a message)."""
    return CallErrorReply("InternalError", reason)
