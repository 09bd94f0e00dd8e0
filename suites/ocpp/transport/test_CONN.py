"""CONN — connection prerequisites, in every OCPP-J version: the WebSocket upgrade (the station's
identity, the subprotocol, Basic auth) and the boot that opens the conversation.

The upgrade's rules are the core table ``Ws`` (harness/transport/ws.py), the boot's the table below.
What differs by version is a parameter: the Basic-auth password (1.6: the 20-byte AuthorizationKey;
2.x: the password); WebSocket compression is judged in 1.6 only (2.x allows it).
"""

import secrets

import pytest

from harness.arena.ocpp import OcppArena
from harness.arena.ocpp_sides import Registration
from harness.roles import CS, CSMS
from harness.errors import NotApplicable
from harness.ocpp.versions import OcppVersion
from harness.rules import RuleTable, must
from harness.suite import OCPP_ALL, TC, case, checks, needs
from harness.ocpp.framing import dumps
from harness.transport.ws import Handshake, Ws, open_station
from harness.usecases.transport import basic_password, expect_refused
from harness.verdict import check_equal, check_in, require, violated


class CONN(RuleTable):
    """The boot that follows the upgrade (OCPP 2.0.1 B01; spec 002 BootNotification and Registration)."""
    boots = must("OCPP 2.0.1 B01; OCPP 1.6 §4.2 BootNotification",
                 "a station that connects after a (re)start announces itself with BootNotification", by=CS)
    answered = must("OCPP 2.0.1 B01; spec 002 Messages BootNotification",
                    "the CSMS answers a station's BootNotification with its answer, not a CALLERROR", by=CSMS)
    interval = must("spec 002 Messages (BootNotification.conf interval); OCPP 2.0.1 B01",
                    "an Accepted boot is answered with a positive heartbeat interval", by=CSMS)


pytestmark = case("CONN", block="Connection", roles=("csms", "cs"), protocols=OCPP_ALL)

UNKNOWN_SUBPROTOCOL = "ocpp0.9-unknown"


async def _upgrade(arena: OcppArena, offered: list[str]) -> Handshake:
    """The configured station's upgrade to the CSMS under test, offering ``offered``."""
    return await open_station(arena.sut_url, arena.profile.identity, password=basic_password(arena),
                              versions=offered, handler=None, wirelog=arena.wirelog, tls=arena.link_tls())


def _with_a_password(given) -> None:
    """The profile gives the configured station a Basic-auth password of the version's kind."""
    if given.protocol == OcppVersion.V16.value and not given.profile.authorization_key:
        raise NotApplicable("the profile sets no [station] authorization_key (1.6 Basic auth)")
    if given.protocol != OcppVersion.V16.value and not given.profile.password:
        raise NotApplicable("the profile sets no [station] password (security profile 1)")


def _wrong_password(arena: OcppArena) -> str | bytes:
    """A password of the configured kind that is not the configured one."""
    return secrets.token_bytes(20) if arena.version is OcppVersion.V16 else "wrong-" + secrets.token_hex(10)


@pytest.mark.sut_roles("cs")
@checks(CONN.boots)
async def test_station_boots_when_it_connects(ocpp_unlinked, harness_csms):
    """A station under test boots when it connects (after a Reset if it reconnects without booting, which it
    may)."""
    await harness_csms.await_station()
    await harness_csms.station_boot()


@pytest.mark.sut_roles("csms")
@checks(CONN.answered, Registration.accepted, CONN.interval, Ws.known_station, csms=TC("TC_B_01_CSMS", "ocpp2.0.1"))
async def test_boot_is_accepted(ocpp_unlinked, harness_station):
    """The configured station is upgraded, boots and is answered; Accepted (with a heartbeat interval) when the
    profile declares it registered — a CSMS may keep a station it does not know Pending."""
    handshake = await harness_station.open_connection(boot=False)
    require(handshake.connection is not None, Ws.known_station, "the CSMS refused the configured station",
            expected="an upgraded connection", actual=f"HTTP {handshake.status}")
    boot = await harness_station.settled_boot()
    require(boot.error is None, CONN.answered, "the CSMS answered the BootNotification with a CALLERROR",
            expected="a BootNotification answer", actual=boot.error)
    harness_station.boot_answered(boot.result["status"])
    require(boot.result["interval"] > 0, CONN.interval, "the BootNotification answer's interval is not positive",
            expected="> 0", actual=boot.result["interval"])


@pytest.mark.sut_roles("csms")
@checks(Ws.subprotocol_picked, csms=(TC("TC_B_58_CSMS", "ocpp2.0.1"), TC("TC_088_CSMS", "ocpp1.6")))
async def test_csms_picks_the_offered_subprotocol(ocpp_unlinked):
    """Offered an unknown subprotocol and the version's, the CSMS picks the version's."""
    arena = ocpp_unlinked
    handshake = await _upgrade(arena, [UNKNOWN_SUBPROTOCOL, arena.version.subprotocol])
    try:
        check_equal(Ws.subprotocol_picked, "Sec-WebSocket-Protocol chosen", arena.version.subprotocol,
                    handshake.subprotocol)
    finally:
        if handshake.connection:
            await handshake.connection.close()


@pytest.mark.sut_roles("csms")
@checks(Ws.no_subprotocol)
async def test_csms_without_acceptable_subprotocol_upgrades_then_closes(ocpp_unlinked):
    """Offered no subprotocol it speaks, the CSMS completes the handshake without the header, then closes."""
    arena = ocpp_unlinked
    handshake = await _upgrade(arena, [UNKNOWN_SUBPROTOCOL])
    require(handshake.connection is not None, Ws.no_subprotocol, "the upgrade was refused instead",
            expected="101 without subprotocol", actual=f"HTTP {handshake.status}")
    try:
        check_equal(Ws.no_subprotocol, "Sec-WebSocket-Protocol in the 101 answer", None, handshake.subprotocol)
        closed = await handshake.connection.wait_closed(arena.timeouts.quiet * 2)
        require(closed, Ws.no_subprotocol, "the connection stayed open", expected="closed", actual="open")
    finally:
        await handshake.connection.close()


@pytest.mark.sut_roles("csms")
@checks(Ws.no_subprotocol)
async def test_csms_serves_no_connection_that_offered_no_subprotocol(ocpp_unlinked):
    """Offered no subprotocol at all (no Sec-WebSocket-Protocol header), the CSMS agrees none and never serves
    the connection: a CALL on it is not answered, and it closes. (Refusing the upgrade serves nothing either:
    whether a refusal is the right answer is the previous test's rule.)"""
    arena = ocpp_unlinked
    handshake = await _upgrade(arena, [])
    if handshake.connection is None:
        return
    try:
        check_equal(Ws.no_subprotocol, "Sec-WebSocket-Protocol in the 101 answer", None, handshake.subprotocol)
        message_id = secrets.token_hex(8)
        reply = await handshake.connection.send_raw(dumps([2, message_id, "Heartbeat", {}]), reply_id=message_id,
                                                    timeout=arena.timeouts.quiet)
        require(reply is None, Ws.no_subprotocol, "the CSMS answered a CALL on a connection without a subprotocol",
                expected="no answer, the connection closed", actual=reply)
        closed = await handshake.connection.wait_closed(arena.timeouts.quiet * 2)
        require(closed, Ws.no_subprotocol, "the connection without a subprotocol stayed open", expected="closed",
                actual="open")
    finally:
        await handshake.connection.close()


@pytest.mark.sut_roles("csms")
@checks(Ws.unknown_identity, Ws.refusal_status)
async def test_unknown_identity_is_refused_with_404(ocpp_unlinked):
    """An identity the CSMS does not know is not connected, and gets HTTP 404 as the texts advise. Both rows
    are SHOULDs (the texts advise the refusal and its status, they do not require them), so this test records
    findings and cannot fail."""
    arena = ocpp_unlinked
    await expect_refused(arena, "UNKNOWN-" + secrets.token_hex(4).upper(), basic_password(arena),
                         rule=Ws.unknown_identity, what="an unknown identity", status=404)


@pytest.mark.sut_roles("csms")
@checks(Ws.wrong_password, Ws.refusal_status, csms=TC("TC_A_03_CSMS", "ocpp2.0.1"))
@needs(_with_a_password)
async def test_wrong_password_is_refused(ocpp_unlinked):
    """Basic auth (2.x security profile 1; 1.6 the AuthorizationKey): the configured identity with a wrong
    password is refused, with HTTP 401."""
    arena = ocpp_unlinked
    await expect_refused(arena, arena.profile.identity, _wrong_password(arena), rule=Ws.wrong_password,
                         what="a wrong password", status=401)


@pytest.mark.sut_roles("cs")
@checks(Ws.identity, Ws.subprotocol_offered, Ws.basic_auth, Ws.compression, cs=TC("TC_085_CS", "ocpp1.6"))
async def test_station_offers_its_subprotocol_and_credentials(ocpp_unlinked, harness_csms):
    """The station's upgrade names it, offers the version and carries Basic auth with its password; a 1.6
    station offers no compression."""
    arena = ocpp_unlinked
    await harness_csms.await_station()
    seen = harness_csms.handshakes()[-1]
    check_equal(Ws.identity, "identity in the URL", arena.profile.identity, seen.identity)
    offered = {p.strip() for value in seen.subprotocols for p in value.split(",")}
    check_in(Ws.subprotocol_offered, "offered subprotocols", offered, arena.version.subprotocol)
    if basic_password(arena):
        check_equal(Ws.basic_auth, "Basic auth username", arena.profile.identity, seen.username)
        check_equal(Ws.basic_auth, "the configured password accepted", True, seen.password_ok)
    if arena.version is OcppVersion.V16 and "permessage-deflate" in (seen.extensions or ""):
        violated(Ws.compression, "the station offered WebSocket compression, which 1.6 says not to use "
                                 "(the harness declined it)")
