"""SECURITY16 — rotation of the 1.6 AuthorizationKey, the Basic-auth password (spec 002
Authentication 3-4, Limits "authorization key 20 bytes").

Rules:
- S1  the charge point connects with its current key and boots; the central system answers Pending;
- S2  the central system sends ChangeConfiguration AuthorizationKey with the new key in hex
      (20 bytes: 40 hex digits), the charge point answers Accepted;
- S3  the central system then closes the WebSocket;
- S4  the charge point reconnects with the new key and its BootNotification is Accepted;
- S5  afterwards the old key opens no connection.
"""

from harness.arena import CSMS
from harness.errors import NotApplicable
from harness.reference.v16.config import AUTHORIZATION_KEY, KEY_BYTES, register_key
from harness.suite import OCPP16, case
from harness.usecases.transport import expect_refused
from harness.verdict import check_equal, fail, finding, require

pytestmark = case("SECURITY16", block="Security (1.6)", roles=("csms", "cs"), protocols=OCPP16,
                  certification={"cs": "TC_073_CS", "csms": "TC_073_CSMS"})


def _new_key(change) -> bytes:
    """S2: the key the central system sent, checked: hex, 20 bytes."""
    check_equal("S2 / Authentication 4: the key rotated is AuthorizationKey", "ChangeConfiguration.req key",
                AUTHORIZATION_KEY, change.request["key"])
    value = change.request["value"]
    try:
        key = bytes.fromhex(value)
    except ValueError:
        fail("S2 / Authentication 4: the new key is sent in hexadecimal", "the AuthorizationKey value is not hex",
             expected="40 hex digits", actual=f"{len(value)} characters")
    register_key(key)
    require(len(key) <= KEY_BYTES, "S2 / Limits: the authorization key is 20 bytes", "the new key is too long",
            expected=f"{KEY_BYTES} bytes", actual=f"{len(key)} bytes")
    if len(key) != KEY_BYTES:
        finding("S2 / Limits", f"the authorization key is 20 bytes; the new one has {len(key)}")
    return key


async def test_authorization_key_is_rotated(ocpp_unlinked, profile):
    """S1-S5: Pending, ChangeConfiguration AuthorizationKey, close, reconnect with the new key, old key refused."""
    if not profile.authorization_key:
        raise NotApplicable("the profile sets no [station] authorization_key (1.6 Basic auth)")
    arena, old = ocpp_unlinked, profile.authorization_key
    if arena.is_sut(CSMS):
        station = arena.harness
        station.reconnects = False
        await arena.act("rotate_authorization_key")
        await station.connect(arena.sut_url, boot=False)
        require(station.connection is not None, "S1", "the central system refused the current key",
                expected="an upgraded connection", actual="refused")
        arena.link = station.connection
        check_equal("S1 / Authentication 4: the central system answers Pending", "BootNotification.conf status",
                    "Pending", (await station.boot_once())["status"])
        change = await arena.expect("ChangeConfiguration", after=0,
                                    rule="S2 / Authentication 4: while Pending the central system sends the new key")
        _new_key(change)
        closed = await arena.link.wait_closed(arena.timeouts.action)
        require(closed, "S3 / Authentication 4: after Accepted the central system closes the WebSocket",
                "the connection stayed open", expected="closed", actual="open")
        handshake = await station.connect(arena.sut_url, boot=False)
        require(handshake.connection is not None, "S4 / Authentication 4: the new key opens a connection",
                "the central system refused the new key", expected="101", actual=f"HTTP {handshake.status}")
        arena.link = station.connection
        check_equal("S4 / Authentication 4: with the new key the boot is Accepted", "BootNotification.conf status",
                    "Accepted", (await station.boot_once())["status"])
        await expect_refused(arena, profile.identity, old, status=401, what="the old AuthorizationKey",
                             rule="S5 / Authentication 4: after the rotation the old key is refused")
        return
    arena.harness.rotate_on_boot = True
    await arena.connect_station_under_test()
    boot = await arena.station_boot()   # S1: the charge point connects with its key and boots
    check_equal("S1", "BootNotification.conf status (the harness rotates)", "Pending", boot.response["status"])
    before = len(arena.harness.server.connections)
    change = await arena.expect("ChangeConfiguration", after=0, rule="S2")
    check_equal("S2 / Authentication 4 (TC_073_CS step 2): the charge point accepts the new key",
                "ChangeConfiguration.conf status", "Accepted", (change.response or {}).get("status"))
    connection = await arena.harness.server.wait_connection(arena.timeouts.connect, after=before)
    if connection is None:
        fail("S4 / Authentication 4: the charge point reconnects with the new key",
             "no connection with the new key", expected="an upgraded connection",
             actual=f"refused handshakes: {arena.harness.server.refused[-3:]}")
    check_equal("S4: the reconnection carries the new key", "Basic password accepted", True,
                arena.harness.server.handshakes[-1].password_ok)
    arena.link = connection
    boot = await arena.expect("BootNotification", after=0, timeout=arena.timeouts.connect,
                              rule="S4 / Authentication 4: after reconnecting the charge point boots")
    check_equal("S4: with the new key the boot is Accepted", "BootNotification.conf status", "Accepted",
                boot.response["status"])
