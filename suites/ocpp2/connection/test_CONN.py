"""CONN — connection prerequisites: the WebSocket upgrade and the boot (OCPP-J part 4 §3,
security profile 1, B01 cold boot). Rules W1–W5 are listed in harness/transport/ws.py."""

import secrets

import pytest

from harness.arena import CSMS
from harness.errors import NotApplicable
from harness.suite import OCPP2, case
from harness.transport.ws import open_station
from harness.verdict import check_equal, check_in, fail, finding, require

pytestmark = case("CONN", block="Connection", roles=("csms", "cs"), protocols=OCPP2,
                  certification={"csms": "TC_B_01_CSMS"})


async def test_boot_is_accepted(ocpp_unlinked, profile):
    """B01: the configured station boots and is Accepted, with an interval and the time."""
    arena = ocpp_unlinked
    if arena.is_sut(CSMS):
        await arena.harness.connect(arena.sut_url, boot=False)
        require(arena.harness.connection is not None, "W1", "the CSMS refused the configured station",
                expected="an upgraded connection", actual="refused")
        arena.link = arena.harness.connection
        response = await arena.link.call("BootNotification", arena.harness.boot_payload())
        check_equal("B01: a configured station is accepted", "BootNotificationResponse status",
                    "Accepted", response["status"])
        require(response["interval"] > 0, "B01: the heartbeat interval is positive",
                "BootNotificationResponse interval is not positive", expected="> 0", actual=response["interval"])
    else:
        await arena.connect_station_under_test()
        await arena.expect("BootNotification", after=0, rule="B01: a station boots with BootNotification",
                           timeout=profile.timeouts.connect)


@pytest.mark.sut_roles("csms")
async def test_csms_picks_the_offered_subprotocol(ocpp_unlinked):
    """W3: from a list of offered subprotocols the CSMS picks the one it speaks."""
    arena = ocpp_unlinked
    handshake = await open_station(arena.sut_url, arena.profile.identity, password=arena.profile.password,
                                   versions=["ocpp0.9-unknown", arena.version.subprotocol], handler=None,
                                   wirelog=arena.wirelog)
    try:
        check_equal("W3: the server picks an offered subprotocol", "Sec-WebSocket-Protocol chosen",
                    arena.version.subprotocol, handshake.subprotocol)
    finally:
        if handshake.connection:
            await handshake.connection.close()


@pytest.mark.sut_roles("csms")
async def test_csms_without_acceptable_subprotocol_upgrades_then_closes(ocpp_unlinked, profile):
    """W3: no acceptable subprotocol → handshake completes without the header, then closed at once."""
    arena = ocpp_unlinked
    handshake = await open_station(arena.sut_url, arena.profile.identity, password=arena.profile.password,
                                   versions=["ocpp0.9-unknown"], handler=None, wirelog=arena.wirelog)
    if handshake.status is not None:
        fail("W3: the server MUST complete the handshake without Sec-WebSocket-Protocol",
             "the upgrade was refused instead", expected="101 without subprotocol", actual=f"HTTP {handshake.status}")
    try:
        check_equal("W3", "Sec-WebSocket-Protocol in the 101 answer", None, handshake.subprotocol)
        closed = await handshake.connection.wait_closed(profile.timeouts.quiet * 2)
        require(closed, "W3: the server closes the connection at once", "the connection stayed open",
                expected="closed", actual="open")
    finally:
        await handshake.connection.close()


async def _expect_refused(arena, identity, password, *, rule, what, status):
    """The upgrade must not succeed; a refusal other than ``status`` is a finding."""
    handshake = await open_station(arena.sut_url, identity, password=password, versions=[arena.version],
                                   handler=None, wirelog=arena.wirelog)
    if handshake.connection is not None:
        await handshake.connection.close()
        fail(rule, f"the CSMS upgraded {what}", expected=f"HTTP {status}", actual="101 Switching Protocols")
    if handshake.status != status:
        finding(rule, f"{what} should get HTTP {status}, got HTTP {handshake.status}")


@pytest.mark.sut_roles("csms")
async def test_unknown_identity_is_refused_with_404(ocpp_unlinked):
    """W2: an identity the CSMS does not know is refused, with HTTP 404 as the spec advises."""
    identity = "UNKNOWN-" + secrets.token_hex(4).upper()
    await _expect_refused(ocpp_unlinked, identity, ocpp_unlinked.profile.password, status=404,
                          rule="W2: an unknown charging station identity is not connected", what="an unknown identity")


@pytest.mark.sut_roles("csms")
async def test_wrong_basic_auth_password_is_refused(ocpp_unlinked, profile):
    """W4: security profile 1 — the configured identity with a wrong password is refused."""
    if not profile.password:
        raise NotApplicable("the profile sets no [station] password (security profile 1)")
    await _expect_refused(ocpp_unlinked, profile.identity, "wrong-" + secrets.token_hex(10), status=401,
                          rule="W4: a wrong Basic-auth password SHALL be refused", what="a wrong password")


@pytest.mark.sut_roles("cs")
async def test_station_offers_its_subprotocol_and_credentials(ocpp_unlinked, profile):
    """W1/W3/W4: the station's upgrade names it, offers the version and carries Basic auth."""
    arena = ocpp_unlinked
    await arena.connect_station_under_test()
    seen = arena.harness.server.handshakes[-1]
    check_equal("W1: the identity is the last path segment", "identity in the URL", profile.identity, seen.identity)
    offered = [p.strip() for value in seen.subprotocols for p in value.split(",")]
    check_in("W3: the station offers the version's subprotocol", "offered subprotocols",
             set(offered), arena.version.subprotocol)
    if profile.password:
        check_equal("W4: Basic auth username is the identity", "Basic username", profile.identity, seen.username)
        check_equal("W4: Basic auth carries the configured password", "password accepted", True, seen.password_ok)
