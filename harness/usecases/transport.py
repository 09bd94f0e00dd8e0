"""Transport and framing dialogues that read the same in every OCPP-J version: the WebSocket
upgrade (rules W1-W5 of harness/transport/ws.py, spec 002 Connection 1-5) and one CALL at a time
(rules R1/R4 of harness/ocpp/rpc.py, spec 002 Framing 4). What differs by version is a parameter:
the Basic-auth password (1.6: the 20-byte AuthorizationKey; 2.x: the password) and whether R4 is a
SHALL (2.x) or a SHOULD (1.6, a finding)."""

from __future__ import annotations

import asyncio

from harness.arena import CSMS, OcppArena
from harness.ocpp.versions import OcppVersion
from harness.transport.ws import CallErrorReply, open_station
from harness.verdict import check_equal, check_in, fail, finding, require


def basic_password(arena: OcppArena) -> str | bytes | None:
    """The configured station's Basic-auth password in the arena's version."""
    return arena.profile.authorization_key if arena.version is OcppVersion.V16 else arena.profile.password


async def offered_subprotocol_is_picked(arena: OcppArena) -> None:
    """W3: from a list of offered subprotocols the server picks the one it speaks."""
    handshake = await open_station(arena.sut_url, arena.profile.identity, password=basic_password(arena),
                                   versions=["ocpp0.9-unknown", arena.version.subprotocol], handler=None,
                                   wirelog=arena.wirelog)
    try:
        check_equal("W3: the server picks an offered subprotocol", "Sec-WebSocket-Protocol chosen",
                    arena.version.subprotocol, handshake.subprotocol)
    finally:
        if handshake.connection:
            await handshake.connection.close()


async def no_acceptable_subprotocol_closes(arena: OcppArena) -> None:
    """W3: no acceptable subprotocol → the handshake completes without the header, then closes at once."""
    handshake = await open_station(arena.sut_url, arena.profile.identity, password=basic_password(arena),
                                   versions=["ocpp0.9-unknown"], handler=None, wirelog=arena.wirelog)
    if handshake.status is not None:
        fail("W3: the server MUST complete the handshake without Sec-WebSocket-Protocol",
             "the upgrade was refused instead", expected="101 without subprotocol", actual=f"HTTP {handshake.status}")
    try:
        check_equal("W3", "Sec-WebSocket-Protocol in the 101 answer", None, handshake.subprotocol)
        closed = await handshake.connection.wait_closed(arena.timeouts.quiet * 2)
        require(closed, "W3: the server closes the connection at once", "the connection stayed open",
                expected="closed", actual="open")
    finally:
        await handshake.connection.close()


async def expect_refused(arena: OcppArena, identity: str, password: str | bytes | None, *,
                         rule: str, what: str, status: int) -> None:
    """W2/W4: the upgrade must not succeed; a refusal other than ``status`` is a finding."""
    handshake = await open_station(arena.sut_url, identity, password=password, versions=[arena.version],
                                   handler=None, wirelog=arena.wirelog)
    if handshake.connection is not None:
        await handshake.connection.close()
        fail(rule, f"the server upgraded {what}", expected=f"HTTP {status}", actual="101 Switching Protocols")
    if handshake.status != status:
        finding(rule, f"{what} should get HTTP {status}, got HTTP {handshake.status}")


async def station_offers_version_and_credentials(arena: OcppArena) -> None:
    """W1/W3/W4: the station's upgrade names it, offers the version and carries Basic auth; W5 on 1.6."""
    await arena.connect_station_under_test()
    seen = arena.harness.server.handshakes[-1]
    check_equal("W1: the identity is the last path segment", "identity in the URL", arena.profile.identity, seen.identity)
    offered = [p.strip() for value in seen.subprotocols for p in value.split(",")]
    check_in("W3: the station offers the version's subprotocol", "offered subprotocols",
             set(offered), arena.version.subprotocol)
    if basic_password(arena):
        check_equal("W4: Basic auth username is the identity", "Basic username", arena.profile.identity, seen.username)
        check_equal("W4: Basic auth carries the configured password", "password accepted", True, seen.password_ok)
    if arena.version is OcppVersion.V16 and seen.extensions and "permessage-deflate" in seen.extensions:
        finding("W5 (spec 002 Connection 5)", "the station offered WebSocket compression, which 1.6 says "
                "not to use (the harness declined it); in 2.x offering it is allowed")


def _one_at_a_time(arena: OcppArena, side: str, first: str, others: list[str]) -> None:
    if not others:
        return
    rule = "R4: no new CALL before the previous one is answered"
    message = f"the {side} sent CALLs while its {first} was unanswered"
    if arena.version.is_2x:
        fail(rule + " (SHALL in 2.x)", message, expected="nothing until the answer", actual=others)
    finding(rule + " (SHOULD in 1.6, spec 002 Framing 4)", f"{message}: {others}")


async def station_waits_for_boot_answer(arena: OcppArena, boot_answer) -> None:
    """R1/R4: while its BootNotification is unanswered the station sends no other CALL.

    ``boot_answer(exchange)`` is the answer the harness then gives (Accepted)."""
    arena.harness.server.hold.add("BootNotification")
    await arena.connect_station_under_test()
    boot = await arena.station_boot(answered=False)
    await asyncio.sleep(arena.timeouts.quiet)
    _one_at_a_time(arena, "station", "BootNotification",
                   [e.action for e in arena.link.history if e.incoming and e is not boot])
    arena.link.answer(boot, boot_answer(boot))
    await arena.expect("StatusNotification", after=0, rule="boot: after an accepted boot the station reports status")


async def csms_waits_for_answer(arena: OcppArena, first: tuple[str, str, dict], refusal: dict,
                                then: tuple[str, str, dict]) -> None:
    """R1/R4: while its ``first`` CALL (action, actuator action, body) is unanswered the CSMS sends no
    other; ``then`` (action, actuator action, body) goes out once ``first`` is answered ``refusal``."""
    action, act, body = first
    arena.link.held.add(action)
    start = arena.mark()
    await arena.act(act, **body)
    held = await arena.link.wait_for_call(action, arena.timeouts.action, start=start, answered=False)
    require(held is not None, action, f"the CSMS did not send {action}", expected=action, actual="nothing")
    await arena.act(then[1], **then[2])
    await asyncio.sleep(arena.timeouts.quiet)
    _one_at_a_time(arena, "CSMS", action, [e.action for e in arena.link.history[start:] if e.incoming and e is not held])
    arena.link.answer(held, refusal)
    await arena.expect(then[0], after=start, rule="R1: the held-back CALL goes out once the first is answered")


async def still_answers(arena: OcppArena, rule: str) -> None:
    """The SUT keeps serving the connection after a malformed message: a valid CALL is answered."""
    if arena.is_sut(CSMS):
        exchange = await arena.link.call_exchange("Heartbeat", {})
    else:
        exchange = await arena.link.call_exchange("DataTransfer", {"vendorId": "org.evse-conformance.probe"})
    require(exchange.answered, rule, "the SUT stopped answering after a malformed message",
            expected="an answer", actual="none")


def failing(reason: str) -> CallErrorReply:
    """A CALLERROR the harness answers on purpose (a central system failing to process a message)."""
    return CallErrorReply("InternalError", reason)
