"""The harness's sides are typed by role: each verb of one side lives on that side only, and the arena hands a
side out only in the role where the harness plays it, telling a test of the other role what to do instead."""

import pytest

from harness.arena.ocpi import OcpiArena
from harness.arena.ocpi_sides import HarnessCpoSide, HarnessEmspSide, HarnessOcpiPeer
from harness.arena.ocpp import OcppArena
from harness.arena.ocpp_sides import HarnessCsmsSide, HarnessStationSide
from harness.errors import HarnessError
from harness.profile import load
from harness.wire import WireLog


def _public(cls) -> set[str]:
    return {name for name in vars(cls) if not name.startswith("_")}


@pytest.mark.parametrize("side, arena", [(HarnessStationSide, OcppArena), (HarnessCsmsSide, OcppArena),
                                         (HarnessOcpiPeer, OcpiArena)])
def test_no_verb_of_one_side_is_also_the_arenas(side, arena):
    shared = {name for name in _public(side) if hasattr(arena, name)}
    assert not shared, f"{sorted(shared)} are both {side.__name__}'s and {arena.__name__}'s: keep them on the side"


def test_the_two_ocpp_sides_share_no_verb():
    assert not _public(HarnessStationSide) & _public(HarnessCsmsSide)


def _ocpp_arena(sut: str) -> OcppArena:
    from harness.arena.ocpp import ArenaOptions, Target
    return OcppArena(Target(sut, "ocpp2.0.1"), load("builtin:reference"), WireLog(), ArenaOptions())


def _ocpi_arena(sut: str) -> OcpiArena:
    from harness.arena.ocpi import OcpiOptions
    from harness.arena.ocpp import Target
    return OcpiArena(Target(sut, "ocpi2.2.1"), load("builtin:reference"), WireLog(), OcpiOptions())


@pytest.mark.parametrize("arena, side, cls, sut, other", [
    (_ocpp_arena, "harness_station", HarnessStationSide, "csms", "cs"),
    (_ocpp_arena, "harness_csms", HarnessCsmsSide, "cs", "csms"),
    (_ocpi_arena, "harness_cpo", HarnessCpoSide, "emsp", "cpo"),
    (_ocpi_arena, "harness_emsp", HarnessEmspSide, "cpo", "emsp")])
def test_an_arena_hands_out_the_side_the_harness_plays_and_refuses_the_other(arena, side, cls, sut, other):
    assert isinstance(getattr(arena(sut), side), cls)
    with pytest.raises(HarnessError, match=rf'{side} serves tests where the SUT is .*sut_roles\("{sut}"\)'):
        getattr(arena(other), side)


def test_the_ocpi_peer_is_the_side_of_the_role_the_harness_plays():
    assert isinstance(_ocpi_arena("emsp").harness_peer, HarnessCpoSide)
    assert isinstance(_ocpi_arena("cpo").harness_peer, HarnessEmspSide)
