"""[station] identities: the stations of a run spread over xdist workers, as the profile gives them and as a
reference CSMS knows them (no sockets)."""

import pytest

from harness import profile as profiles
from harness.errors import ConfigError, HarnessError
from harness.ocpp.versions import OcppVersion
from harness.parallel import identity_problem
from harness.reference import references_for
from harness.reference.tokens import TokenStore
from harness.wire import REDACTOR

BASE = {"station": {"identity": "CS001", "password": "base-password-000001",
                    "authorization_key": "ab" * 20,
                    "evse": [{"id": 1, "connectors": [1]}, {"id": 2, "connectors": [1]}]},
        "tokens": {"valid": {"id": "AA00000001", "type": "ISO14443", "status": "Accepted"},
                   "blocked": {"id": "BB00000001", "type": "ISO14443", "status": "Blocked"}}}


def _profile(*identities):
    return profiles.from_dict({**BASE, "station": {**BASE["station"], "identities": list(identities)}})


def test_a_listed_identity_plays_the_station_with_what_its_entry_changes():
    profile = _profile("CS001", {"identity": "CS002", "password": "own-password-0000002", "authorization_key": "cd" * 20,
                                 "evse": [{"id": 1, "connectors": [1, 2]}],
                                 "tokens": {"valid": {"id": "AA00000002", "type": "ISO14443", "status": "Accepted"}}})
    assert profile.identities == ("CS001", "CS002")
    second = profile.as_identity("CS002")
    assert second.identity == "CS002" and second.password == "own-password-0000002"
    assert second.authorization_key == bytes.fromhex("cd" * 20)
    assert [(e.id, e.connectors) for e in second.evses] == [(1, (1, 2))]
    assert second.token("valid").id == "AA00000002" and second.token("blocked").id == "BB00000001"
    first = profile.as_identity("CS001")   # an identity alone: the [station] it names, its tokens unchanged
    assert (first.identity, first.password, first.token("valid").id) == ("CS001", "base-password-000001", "AA00000001")
    assert second.identities == profile.identities   # still a profile of a parallel run: its actuator names it


def test_a_listed_password_is_a_secret_like_the_station_s():
    _profile({"identity": "CS002", "password": "listed-secret-pw-0002"})
    assert "listed-secret-pw-0002" not in REDACTOR.redact("Authorization listed-secret-pw-0002")


def test_a_reference_csms_admits_every_listed_station_with_its_own_password_and_knows_their_tokens():
    profile = _profile("CS001", {"identity": "CS002", "password": "own-password-0000002",
                                 "tokens": {"valid": {"id": "AA00000002", "type": "ISO14443", "status": "Accepted"}}})
    csms = references_for(OcppVersion.V201)[0](profile, [OcppVersion.V201])
    assert csms.accepts_identity("CS001") and csms.accepts_identity("CS002") and not csms.accepts_identity("CS003")
    assert csms.check_password("CS002", b"own-password-0000002") and not csms.check_password("CS002",
                                                                                               b"base-password-000001")
    assert csms.check_password("CS001", b"base-password-000001")
    store = TokenStore.from_profile(profile)
    assert store.lookup({"idToken": "AA00000002", "type": "ISO14443"}) is not None
    assert store.lookup({"idToken": "AA00000001", "type": "ISO14443"}) is not None


def test_a_reference_16_central_system_admits_each_listed_key():
    profile = _profile("CS001", {"identity": "CS002", "authorization_key": "cd" * 20})
    csms = references_for(OcppVersion.V16)[0](profile, [OcppVersion.V16])
    assert csms.check_password("CS002", bytes.fromhex("cd" * 20))
    assert csms.check_password("CS001", bytes.fromhex("ab" * 20)) and not csms.check_password("CS002",
                                                                                                bytes.fromhex("ab" * 20))


@pytest.mark.parametrize("identities, message", [
    (["CS001", {"identity": "CS001"}], "station.identities lists CS001 more than once; give each station once"),
    ([{"password": "x" * 16}], "station.identities.0.identity is missing; add it"),
    ([7], "station.identities.0: write a string or a table, not an integer"),
    ([{"identity": "CS002", "secret": True}], "unknown key station.identities.0.secret"),
])
def test_a_wrong_identities_list_is_refused_naming_the_entry(identities, message):
    with pytest.raises(ConfigError, match=message.replace(".", r"\.")):
        _profile(*identities)


def test_more_workers_than_identities_is_refused_with_the_fix():
    assert identity_problem(_profile("CS001", "CS002"), 2) is None
    assert identity_problem(profiles.from_dict(BASE), 1) is None
    problem = identity_problem(_profile("CS001", "CS002"), 3)
    assert "-n 3 spreads the run over 3 xdist workers" in problem and "lists 2" in problem
    assert 'identities = ["CS001", "CS002", "CS003"] under [station]' in problem and "or run with -n 2" in problem
    assert "or run without -n" in identity_problem(profiles.from_dict(BASE), 2)


class _Recorded:
    def __init__(self):
        self.actions = []

    async def perform(self, action, body):
        self.actions.append((action, body))


@pytest.mark.parametrize("shared", [True, False])
async def test_an_action_for_every_station_is_refused_while_other_workers_play_with_the_mark_to_add(shared):
    from harness.arena.ocpp import ArenaOptions, OcppArena, Target
    from harness.wire import WireLog
    actuator = _Recorded()
    arena = OcppArena(Target("csms", "ocpp1.6"), profiles.load("builtin:standalone"), WireLog(),
                      ArenaOptions(sut_url="ws://127.0.0.1:1/ocpp", actuator=actuator, embedded=False, shared=shared))
    if shared:
        with pytest.raises(HarnessError, match=r'mark the test @pytest\.mark\.csms_wide\("why"\) so that it runs alone'):
            await arena.act("csms", "set_registration", status="Pending")
        assert actuator.actions == []
    else:
        await arena.act("csms", "set_registration", status="Pending")
        assert actuator.actions == [("set_registration", {"status": "Pending"})]
    await arena.act("csms", "data_transfer", vendor_id="x")   # an action about the harness's station alone


def test_worker_i_plays_the_i_th_identity_and_a_worker_past_them_is_refused():
    from types import SimpleNamespace

    from harness.parallel import worker_profile

    def worker(number, count=2):
        return SimpleNamespace(workerinput={"workerid": f"gw{number}", "workercount": count})

    profile = _profile("CS001", {"identity": "CS002", "password": "own-password-0000002"})
    assert [worker_profile(profile, worker(i)).identity for i in (0, 1)] == ["CS001", "CS002"]
    assert worker_profile(profile, worker(1)).password == "own-password-0000002"
    assert worker_profile(profile, SimpleNamespace(option=SimpleNamespace(dist="no"))) is profile   # a serial run
    with pytest.raises(ConfigError, match="xdist worker gw2 has no station identity of its own"):
        worker_profile(profile, worker(2))
