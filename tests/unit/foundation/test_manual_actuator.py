"""The manual actuator against a pipe for stdin: what the operator is shown, Enter, skip, the
timeout, a token A typed in, and the harness's event loop running while the operator is asked.
(The prompt reaching pytest's terminal under capture: tests/plugin/test_operator.py.)"""

import asyncio
import os
from contextlib import nullcontext

import pytest

from harness.actuators import ActionUnsupported, ActuatorFailed
from harness.actuators.manual import ManualActuator
from harness.settings import reference_profile
from harness.wire import REDACTOR


class Bench:
    """A terminal whose stdin is a pipe the test types into."""

    def __init__(self):
        self.input_fd, self.keys = os.pipe()
        self.shown = []

    def operator(self):
        return nullcontext()

    def write(self, text):
        self.shown.append(text)

    def type(self, text):
        os.write(self.keys, text.encode())

    @property
    def screen(self):
        return "".join(self.shown)


@pytest.fixture
def bench():
    bench = Bench()
    yield bench
    os.close(bench.input_fd)
    os.close(bench.keys)


async def test_enter_confirms_after_the_station_action_and_parameters_are_shown(bench):
    actuator = ManualActuator(bench, who="the charging station under test CS9", timeout=5)
    bench.type("\n")
    assert await actuator.perform("plug_in", {"evse_id": 2, "connector_id": 1}) is None
    assert ">>> MANUAL ACTION at the charging station under test CS9: plug in" in bench.screen
    assert "evse_id = 2, connector_id = 1" in bench.screen
    assert "Enter when done, s then Enter to skip (5 s left)" in bench.screen


async def test_s_skips_the_step_as_not_applicable(bench):
    bench.type("s\n")
    with pytest.raises(ActionUnsupported, match="the operator skipped the manual action unplug"):
        await ManualActuator(bench, who="CS9", timeout=5).perform("unplug", {"evse_id": 1})


async def test_no_answer_in_time_is_broken_with_the_fix(bench):
    with pytest.raises(ActuatorFailed, match=r"operator did not act within 0.3 s \(manual action plug_in\); "
                                             r"raise \[timeouts\] operator"):
        await ManualActuator(bench, who="CS9", timeout=0.3).perform("plug_in", {"evse_id": 1})


async def test_stdin_at_its_end_is_broken_not_a_confirmation(bench):
    os.close(bench.keys)
    bench.keys = os.open(os.devnull, os.O_WRONLY)   # for the fixture to close
    with pytest.raises(ActuatorFailed, match="stdin ended"):
        await ManualActuator(bench, who="CS9", timeout=5).perform("plug_in", {"evse_id": 1})


async def test_the_event_loop_runs_while_the_operator_is_asked(bench):
    """The SUT's messages are answered meanwhile: stdin is never read by a blocking call."""
    ticks = []

    async def harness_at_work():
        for tick in range(5):
            await asyncio.sleep(0.02)
            ticks.append(tick)
        bench.type("\n")

    worker = asyncio.create_task(harness_at_work())
    await ManualActuator(bench, who="CS9", timeout=5).perform("plug_in", {"evse_id": 1})
    await worker
    assert ticks == [0, 1, 2, 3, 4]


async def test_a_pin_is_named_never_shown(bench):
    bench.type("\n")
    await ManualActuator(bench, who="CS9", timeout=5).perform(
        "present_id_token", {"id_token": {"idToken": "8412", "type": "KeyCode"}, "evse_id": 1})
    assert "8412" not in bench.screen and "id_token = the secret PIN of the profile (not shown)" in bench.screen


async def test_a_card_is_shown_with_its_name_in_the_profile_and_a_secret_one_by_name_only(bench):
    tokens = {t.id: t for t in reference_profile().tokens.values()}
    actuator = ManualActuator(bench, who="CS9", timeout=5, tokens=tokens)
    bench.type("\n")
    await actuator.perform("present_id_token", {"id_token": {"idToken": "AA00000001", "type": "ISO14443"}})
    assert "id_token = ISO14443 'AA00000001' ([tokens.valid])" in bench.screen
    bench.type("\n")
    await actuator.perform("present_id_tag", {"id_tag": "8412", "connector_id": 1})   # 1.6: a plain idTag
    assert "id_tag = the secret [tokens.pin] of the profile (not shown), connector_id = 1" in bench.screen
    assert "8412" not in bench.screen


async def test_issue_token_a_returns_the_operators_token_masked_from_then_on(bench):
    bench.type("operator-made-token-a-0001\n")
    token = await ManualActuator(bench, who="the cpo platform under test", timeout=5).perform(
        "issue_token_a", {"token": "harness-proposed-token"})
    assert token == "operator-made-token-a-0001"
    assert token not in bench.screen and "harness-proposed-token" not in bench.screen
    assert token not in REDACTOR.redact(f"Authorization: Token x, token {token}")


async def test_issue_token_a_with_nothing_typed_is_not_applicable(bench):
    bench.type("\n")
    with pytest.raises(ActionUnsupported, match="the operator gave no token A"):
        await ManualActuator(bench, who="the cpo platform under test", timeout=5).perform("issue_token_a", {})
