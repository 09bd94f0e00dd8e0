"""harness.arena.base.Arena.silent: what the verdict says when the SUT's CALL never came — silence, or a link that ended,
with the blame on whoever ended it."""

import pytest

from harness.arena.base import Arena
from harness.errors import HarnessError, LimitExceeded, PeerViolation
from harness.rules import RuleTable, must


class Silence(RuleTable, namespace="selftest.silence"):
    sent = must("none (a self-test row)", "the SUT sends the CALL")


def test_silence_on_an_open_link_is_a_timeout():
    with pytest.raises(PeerViolation, match=r"\[selftest.silence.sent\] the SUT did not send Authorize within 5 s"):
        Arena.silent(Silence.sent, "Authorize", 5)


def test_a_link_the_sut_closed_is_reported_as_closed_by_it():
    with pytest.raises(PeerViolation, match=r"the SUT closed the connection \(1000 bye\) before it sent Authorize"):
        Arena.silent(Silence.sent, "Authorize", 5, ended=("peer", "the peer closed the connection (1000 bye)"))


@pytest.mark.parametrize("who, error", [("harness", HarnessError), ("limit", LimitExceeded)])
def test_a_link_the_harness_ended_is_broken_not_blamed_on_the_sut(who, error):
    with pytest.raises(error, match="before the SUT sent Authorize") as raised:
        Arena.silent(Silence.sent, "Authorize", 5, ended=(who, "the harness closed the connection"))
    assert not isinstance(raised.value, PeerViolation)


def test_a_call_refused_for_its_schema_is_named_not_called_nothing():
    """Found by the interop ledger: arthexis sent its 2.0.1 ReserveNow with the 1.6 field expiryDate, refused for
    its schema; the verdict said the SUT sent "nothing"."""
    with pytest.raises(PeerViolation, match=r"did not send ReserveNow within 5 s; it sent one that was refused: "
                                            r"ReserveNow request breaks its schema") as raised:
        Arena.silent(Silence.sent, "ReserveNow", 5, refused="ReserveNow request breaks its schema: 'expiryDate'")
    assert raised.value.actual == "refused: ReserveNow request breaks its schema: 'expiryDate'"


def test_the_ocpp_arena_finds_the_refused_call_on_its_link():
    from types import SimpleNamespace

    from harness.arena.ocpp import OcppArena
    from harness.ocpp.rpc import Rpc
    refused = PeerViolation(Rpc.schema, "ReserveNow request breaks its schema: 'expiryDate' was unexpected",
                            actual={"expiryDate": "2030-01-01T00:00:00Z"})
    other = PeerViolation(Rpc.schema, "Reset request breaks its schema: 'type' is required")
    arena = SimpleNamespace(link=SimpleNamespace(violations=[refused, other]))
    assert OcppArena._refused(arena, "ReserveNow") == \
        "[rpc.schema] ReserveNow request breaks its schema: 'expiryDate' was unexpected"
    assert OcppArena._refused(arena, "CancelReservation") is None
