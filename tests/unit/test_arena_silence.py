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
