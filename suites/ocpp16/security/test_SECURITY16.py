"""SECURITY16 — rotation of the 1.6 AuthorizationKey, the Basic-auth password (spec 002
Authentication 3-4, Limits "authorization key 20 bytes"): the charge point connects with its current
key and boots, is answered Pending, gets ChangeConfiguration AuthorizationKey with the new key in hex,
the central system closes the connection, the charge point reconnects with the new key and is
Accepted; afterwards the old key opens no connection.

When the SUT is the charge point, the answers to its boots are the harness's own: one that is not what
the rotation needs is a harness error, never the charge point's failure.
"""

import pytest

from harness.roles import CS, CSMS
from harness.errors import HarnessError, NotApplicable
from harness.ocpp.equivalence import same
from harness.ocpp.v16 import AUTHORIZATION_KEY, KEY_BYTES, register_key
from harness.ocpp.versions import OcppVersion
from harness.rules import RuleTable, must, should
from harness.suite import OCPP16, TC, case, checks, needs
from harness.usecases.transport import expect_refused
from harness.verdict import check_equal, require, violated


class SECURITY16(RuleTable):
    """The rules of SECURITY16."""
    current_key_admitted = must("spec 002 Authentication 3",
                                "the central system upgrades the connection of a charge point with its current key",
                                by=CSMS)
    pending = must("spec 002 Authentication 4", "the central system answers the boot before the rotation Pending",
                   by=CSMS)
    new_key_sent = must("spec 002 Authentication 4",
                        "while Pending the central system sends ChangeConfiguration with key AuthorizationKey", by=CSMS)
    hex_key = must("spec 002 Authentication 4", "the new AuthorizationKey value is hexadecimal", by=CSMS)
    key_length = must("spec 002 Limits; Authentication 3", "the new authorization key is at most 20 bytes", by=CSMS)
    key_bytes = should("spec 002 Limits; Authentication 3", "the new authorization key is 20 bytes", by=CSMS)
    key_accepted = must("spec 002 Authentication 4; TC_073_CS",
                        "the charge point answers the new AuthorizationKey Accepted", by=CS)
    closes = must("spec 002 Authentication 4", "after the charge point accepted the new key the central system "
                                               "closes the WebSocket", by=CSMS)
    reconnects_with_new_key = must("spec 002 Authentication 4",
                                   "the charge point reconnects with the new key and boots", by=CS)
    new_key_admitted = must("spec 002 Authentication 4",
                            "the central system upgrades the connection with the new key and accepts the boot", by=CSMS)
    old_key_refused = must("spec 002 Authentication 4", "after the rotation the old key opens no connection", by=CSMS)


pytestmark = case("SECURITY16", block="Security (1.6)", roles=("csms", "cs"), protocols=OCPP16)


def _new_key(change) -> bytes:
    """The key the central system sent, checked: hex, 20 bytes."""
    check_equal(SECURITY16.new_key_sent, "ChangeConfiguration.req key", {"key": AUTHORIZATION_KEY},
                {"key": change.request["key"]}, same=same(OcppVersion.V16))
    value = change.request["value"]
    try:
        key = bytes.fromhex(value)
    except ValueError:
        violated(SECURITY16.hex_key, "the AuthorizationKey value is not hex", expected="40 hex digits",
                 actual=f"{len(value)} characters")
    register_key(key)
    require(len(key) <= KEY_BYTES, SECURITY16.key_length, "the new key is too long", expected=f"{KEY_BYTES} bytes",
            actual=f"{len(key)} bytes")
    require(len(key) == KEY_BYTES, SECURITY16.key_bytes, "the new key is shorter than 20 bytes",
            expected=f"{KEY_BYTES} bytes", actual=f"{len(key)} bytes")
    return key


def _harness_answered(boot, status: str) -> None:
    """The harness's own central system answered the charge point's boot ``status`` (a prerequisite)."""
    if boot.result["status"] != status:
        raise HarnessError(f"the harness's central system answered the boot {boot.result['status']!r}, "
                           f"not {status!r}, in the key rotation")


async def _key_back(arena, profile, key: bytes) -> None:
    """The test leaves the central system as it found it: the operator sets the station's key before the rotation
    (the actuator's set_authorization_key), and the harness's station uses it again."""
    register_key(key)
    await arena.act(CSMS, "set_authorization_key", station=profile.identity, key=key.hex())
    profile.rotated_key[profile.identity] = key


def _with_a_key(given):
    if not given.profile.authorization_key:
        raise NotApplicable("the profile sets no [station] authorization_key (1.6 Basic auth)")


@pytest.mark.sut_roles("csms")
@checks(SECURITY16.current_key_admitted, SECURITY16.pending, SECURITY16.new_key_sent, SECURITY16.hex_key,
        SECURITY16.key_length, SECURITY16.key_bytes, SECURITY16.closes, SECURITY16.new_key_admitted,
        SECURITY16.old_key_refused, csms=TC("TC_073_CSMS"))
@needs(_with_a_key)
async def test_central_system_rotates_the_authorization_key(ocpp_unlinked, profile, harness_station):
    """Pending, ChangeConfiguration AuthorizationKey, close, reconnect with the new key, old key refused."""
    arena, old = ocpp_unlinked, profile.authorization_key
    arena.configure(reconnects=False)
    await arena.act(CSMS, "rotate_authorization_key")
    arena.undo("give the station its AuthorizationKey back", lambda: _key_back(arena, profile, old))
    handshake = await harness_station.open_connection(boot=False)
    require(handshake.connection is not None, SECURITY16.current_key_admitted,
            "the central system refused the current key", expected="an upgraded connection",
            actual=f"HTTP {handshake.status}")
    check_equal(SECURITY16.pending, "BootNotification.conf status", "Pending", (await harness_station.send_boot())["status"])
    change = await arena.expect("ChangeConfiguration", sender=CSMS, after=0, rule=SECURITY16.new_key_sent)
    _new_key(change)
    closed = await arena.link_closed(arena.timeouts.action)
    require(closed, SECURITY16.closes, "the connection stayed open", expected="closed", actual="open")
    handshake = await harness_station.open_connection(boot=False)
    require(handshake.connection is not None, SECURITY16.new_key_admitted,
            "the central system refused the new key", expected="101", actual=f"HTTP {handshake.status}")
    check_equal(SECURITY16.new_key_admitted, "BootNotification.conf status", "Accepted",
                (await harness_station.settled_boot()).result["status"])
    await expect_refused(arena, profile.identity, old, status=401, what="the old AuthorizationKey",
                         rule=SECURITY16.old_key_refused)


@pytest.mark.sut_roles("cs")
@checks(SECURITY16.new_key_sent, SECURITY16.key_accepted, SECURITY16.reconnects_with_new_key, cs=TC("TC_073_CS"))
@needs(_with_a_key)
async def test_authorization_key_is_rotated(ocpp_unlinked, harness_csms):
    """Pending, ChangeConfiguration AuthorizationKey: the charge point accepts it and reconnects with the new key."""
    arena = ocpp_unlinked
    first = arena.profile.authorization_key
    arena.configure(rotate_on_boot=True)
    await harness_csms.await_station()
    _harness_answered(await harness_csms.station_boot(), "Pending")
    before = arena.connections()
    change = await arena.expect("ChangeConfiguration", sender=CSMS, after=0, rule=SECURITY16.new_key_sent)
    check_equal(SECURITY16.key_accepted, "ChangeConfiguration.conf status (TC_073_CS step 2)", "Accepted",
                (change.result or {}).get("status"))
    # the station keeps the new key beyond this run: whatever the outcome, the key it had goes back
    harness_csms.key_put_back(first)
    connection = await arena.reconnected(before)
    require(connection is not None, SECURITY16.reconnects_with_new_key, "no connection with the new key",
            expected="an upgraded connection", actual=f"refused handshakes: {harness_csms.refused()[-3:]}")
    check_equal(SECURITY16.reconnects_with_new_key, "Basic password accepted", True,
                harness_csms.handshakes()[-1].password_ok)
    boot = await arena.expect("BootNotification", sender=CS, after=0, timeout=arena.timeouts.connect,
                              rule=SECURITY16.reconnects_with_new_key)
    _harness_answered(boot, "Accepted")
