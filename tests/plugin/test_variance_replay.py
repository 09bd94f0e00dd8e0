"""A run under legal variance that fails says how to replay the failure alone, and the replay takes the same
freedoms: each call of the stand-in draws from its own stream (harness/variance.py), so the harness's own ids and
time stamps, different in every run, do not change what the test met."""

import json

from demo import suite_head

REPLAYED = suite_head("REPLAY1", roles=("cs",)) + '''
@checks(REPLAY1.value)
async def test_a_plays_first(ocpp):
    for _ in range(3):
        await ocpp.exchange("csms", "GetVariables", {"getVariableData": [
            {"component": {"name": "OCPPCommCtrlr"}, "variable": {"name": "HeartbeatInterval"}}]})

@checks(REPLAY1.value)
async def test_b_fails(ocpp):
    for _ in range(4):
        await ocpp.exchange("csms", "GetVariables", {"getVariableData": [
            {"component": {"name": "OCPPCommCtrlr"}, "variable": {"name": "HeartbeatInterval"}}]})
    check_equal(REPLAY1.value, "value", 1, 2)
'''


def _freedoms(pytester, reports: str) -> dict[str, dict]:
    results = json.loads((pytester.path / reports / "conformance.json").read_text())["results"]
    return {r["nodeid"]: r["freedoms"] for r in results}


def test_a_failure_under_variance_names_its_replay_which_takes_the_same_freedoms(pytester):
    pytester.makepyfile(test_replay=REPLAYED)
    whole = pytester.runpytest("--variance", "11", "--reports-dir", "whole", "-p", "no:randomly")
    whole.assert_outcomes(passed=1, failed=1)
    failing = "test_replay.py::test_b_fails[cs-ocpp2.0.1]"
    whole.stdout.fnmatch_lines([f"replay one alone, with the same freedoms: pytest '{failing}' --variance 11"])
    alone = pytester.runpytest(failing, "--variance", "11", "--reports-dir", "alone")
    alone.assert_outcomes(failed=1)
    taken = _freedoms(pytester, "whole")[failing]
    assert taken and _freedoms(pytester, "alone")[failing] == taken
