"""CONN — connection prerequisites: the WebSocket upgrade and the boot (OCPP-J part 4 §3,
security profile 1, B01 cold boot). Rules W1–W5 are listed in harness/transport/ws.py."""

import secrets

import pytest

from harness.arena import CSMS
from harness.errors import NotApplicable
from harness.suite import OCPP2, case
from harness.usecases import transport
from harness.verdict import check_equal, require

pytestmark = case("CONN", block="Connection", roles=("csms", "cs"), protocols=OCPP2,
                  certification={"csms": "TC_B_01_CSMS"})


async def test_boot_is_accepted(ocpp_unlinked):
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
        await arena.station_boot()   # B01: a station boots with BootNotification (after a Reset if it need not)


@pytest.mark.sut_roles("csms")
async def test_csms_picks_the_offered_subprotocol(ocpp_unlinked):
    """W3: from a list of offered subprotocols the CSMS picks the one it speaks."""
    await transport.offered_subprotocol_is_picked(ocpp_unlinked)


@pytest.mark.sut_roles("csms")
async def test_csms_without_acceptable_subprotocol_upgrades_then_closes(ocpp_unlinked):
    """W3: no acceptable subprotocol → handshake completes without the header, then closed at once."""
    await transport.no_acceptable_subprotocol_closes(ocpp_unlinked)


@pytest.mark.sut_roles("csms")
async def test_unknown_identity_is_refused_with_404(ocpp_unlinked):
    """W2: an identity the CSMS does not know is refused, with HTTP 404 as the spec advises."""
    identity = "UNKNOWN-" + secrets.token_hex(4).upper()
    await transport.expect_refused(ocpp_unlinked, identity, transport.basic_password(ocpp_unlinked), status=404,
                                   rule="W2: an unknown charging station identity is not connected",
                                   what="an unknown identity")


@pytest.mark.sut_roles("csms")
async def test_wrong_basic_auth_password_is_refused(ocpp_unlinked, profile):
    """W4: security profile 1 — the configured identity with a wrong password is refused."""
    if not profile.password:
        raise NotApplicable("the profile sets no [station] password (security profile 1)")
    await transport.expect_refused(ocpp_unlinked, profile.identity, "wrong-" + secrets.token_hex(10), status=401,
                                   rule="W4: a wrong Basic-auth password SHALL be refused", what="a wrong password")


@pytest.mark.sut_roles("cs")
async def test_station_offers_its_subprotocol_and_credentials(ocpp_unlinked):
    """W1/W3/W4: the station's upgrade names it, offers the version and carries Basic auth."""
    await transport.station_offers_version_and_credentials(ocpp_unlinked)
