"""The fuzzer's short run: the references, each started on its own as a SUT, answer every mutated frame
or request as the texts say, and keep their memory flat (within 10 % from the end of the warm-up to the
end). One target per protocol and role; the long run (100,000 each, every version) is bench/FUZZ.md.

Real processes on the real clock: the references run as SUTs would, and their memory is read from /proc."""

import asyncio

import pytest

from harness.fuzz.run import TARGETS

COUNT = 1000        # after the warm-up (which fills the references' bounded records: see harness/fuzz)
MAX_GROWTH = 0.10
SHORT = ["csms-ocpp1.6", "cs-ocpp2.1", "ocpi-cpo", "ocpi-emsp"]


@pytest.mark.parametrize("fuzzed", SHORT)
def test_the_reference_answers_every_fuzzed_frame_as_the_texts_say_and_keeps_its_memory(fuzzed):
    report = asyncio.run(TARGETS[fuzzed](COUNT, 7))
    assert report.tally.frames > COUNT and report.tally.wrong == 0, report.summary()
    assert report.growth <= MAX_GROWTH, report.summary()
