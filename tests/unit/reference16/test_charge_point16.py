"""1.6-specific decisions of the reference charge point and central system, without sockets: connector
numbering, the interval under both names, the 1.6 IdTagInfo with parentIdTag, 1.6-only actions."""

import pytest

from harness.ocpp.versions import OcppVersion
from harness.reference.tokens import TokenStore
from harness.reference import ReferenceCsms16, ReferenceStation16
from harness.ocpp.v16 import interval_of
from harness.reference.blocks.provisioning import interval_alias
from harness.ocpp.v16 import connector_ids
from harness.settings import reference_profile

PROFILE = reference_profile()


def test_connectors_are_numbered_from_one_without_gaps():
    assert connector_ids(PROFILE) == [1, 2]


@pytest.mark.parametrize("response, read", [
    ({"status": "Accepted", "currentTime": "2025-01-01T00:00:00Z", "heartbeatInterval": 60},
     {"status": "Accepted", "currentTime": "2025-01-01T00:00:00Z", "interval": 60}),
    ({"status": "Accepted", "currentTime": "2025-01-01T00:00:00Z", "interval": 60}, None),
    ({"status": "Accepted", "heartbeatInterval": 60}, None),    # something else is missing too
    ({"status": "Accepted", "currentTime": "2025-01-01T00:00:00Z", "heartbeatInterval": "60"}, None),
])
def test_the_interval_is_read_under_both_names(response, read):
    assert interval_alias(OcppVersion.V16, response) == read
    assert interval_of(response) in (60, "60")


@pytest.mark.parametrize("name, info", [
    ("valid", {"status": "Accepted"}), ("invalid", {"status": "Invalid"}), ("blocked", {"status": "Blocked"}),
    ("expired", {"status": "Expired"}), ("group_member_a", {"status": "Accepted", "parentIdTag": "GROUP-0001"}),
    ("no_credit", {"status": "Invalid"}), ("other_location", {"status": "Invalid"}), ("pin", {"status": "Invalid"}),
])
def test_the_16_decision_has_only_16_statuses_and_the_group_as_parent(name, info):
    store = TokenStore.from_profile(PROFILE)
    assert store.decide16(PROFILE.token(name).id.lower(), station="CS001", currents={"AC"},
                          in_transaction=False) == info


def test_concurrent_tx_when_the_tag_already_charges():
    store = TokenStore.from_profile(PROFILE)
    assert store.decide16("AA00000001", station="CS001", currents={"AC"}, in_transaction=True)["status"] == "ConcurrentTx"


def test_2x_only_actions_are_not_offered_in_16():
    station = ReferenceStation16(PROFILE, OcppVersion.V16)
    assert {"present_id_tag", "plug_in", "unplug", "data_transfer"} <= station.supported_actions()
    assert "present_id_token" not in station.supported_actions()
    csms = ReferenceCsms16(PROFILE, [OcppVersion.V16])
    assert {"remote_start_transaction", "set_registration", "rotate_authorization_key", "data_transfer"} \
        <= csms.supported_actions()
    assert not {"request_start_transaction", "request_stop_transaction"} & csms.supported_actions()


def test_the_basic_auth_password_is_the_authorization_key():
    assert ReferenceStation16(PROFILE, OcppVersion.V16).password == PROFILE.authorization_key == bytes.fromhex(
        "20110e5046ad91c4374b3eeef49f965319bc0618")
    csms = ReferenceCsms16(PROFILE, [OcppVersion.V16])
    assert csms.check_password("CS001", PROFILE.authorization_key)
    assert not csms.check_password("CS001", PROFILE.password.encode())


@pytest.mark.parametrize("value, rotated", [(bytes(range(20)).hex(), True), ("not hex", False)])
def test_an_accepted_key_rotation_is_the_key_of_every_later_test(value, rotated):
    """A real SUT keeps the key it accepted: the arenas of later tests build their sides from the profile."""
    profile, old = reference_profile(), PROFILE.authorization_key
    answer = ReferenceStation16(profile, OcppVersion.V16).on_ChangeConfiguration(
        None, {"key": "AuthorizationKey", "value": value})
    assert answer == {"status": "Accepted" if rotated else "Rejected"}
    key = bytes(range(20)) if rotated else old
    assert profile.authorization_key == key
    assert ReferenceStation16(profile, OcppVersion.V16).password == key
    assert ReferenceCsms16(profile, [OcppVersion.V16]).check_password("CS001", key)
    assert ReferenceCsms16(profile, [OcppVersion.V16]).check_password("CS001", old) is not rotated
    assert profile.get("station.authorization_key") == old.hex()      # the profile's own value is unchanged


async def test_a_boot_retried_while_the_new_key_waits_is_pending_and_rotates_once():
    """A Pending charge point may boot again once the interval passed, before it answers the new key
    (legal variance found it): the harness's central system answers that boot Pending too and sends no
    second key, else the charge point would hold a key the central system never learned."""
    import asyncio

    from harness.reference.base import StationSession

    sent, answered = [], asyncio.get_running_loop().create_future()

    class Connection:
        async def call(self, action, payload):
            sent.append(payload["value"])
            return await answered

        async def close(self):
            pass

    csms = ReferenceCsms16(reference_profile(), [OcppVersion.V16])
    session = StationSession("CS001", OcppVersion.V16, Connection())
    csms.configure(rotate_on_boot=True)
    assert csms.boot_status(session, "Accepted") == "Pending"
    await asyncio.sleep(0.01)
    assert csms.boot_status(session, "Accepted") == "Pending"   # retried while the key waits
    answered.set_result({"status": "Accepted"})
    await asyncio.sleep(0.01)
    assert len(sent) == 1
    assert csms.check_password("CS001", bytes.fromhex(sent[0]))
    assert csms.boot_status(session, "Accepted") == "Accepted"
    await csms.background.cancel_all()
