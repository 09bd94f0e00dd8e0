"""The manual actuator as an operator at a terminal meets it: pytest runs in a subprocess whose
stdin, stdout and stderr are a pseudo-terminal, with its usual output capture. The prompt must
reach the terminal while the test runs (not in the captured output after it), and the operator's
Enter, ``s`` or silence decide the verdict: passed, not applicable, broken."""

import json
import os
import pty
import select
import time

import pytest
import suite_runner

PROFILE = """
[sut]
name = "bench station"
[station]
identity = "BENCH-7"
[timeouts]
operator = {operator}
"""

SUITE = """
from harness.rules import RuleTable, must
from harness.suite import case, checks


class OPER(RuleTable):
    done = must("spec 000 demo", "the operator's step is done")


pytestmark = case("OPER", block="Demo", roles=("cs",), protocols=("ocpp2.0.1",))


@checks(OPER.done)
async def test_operator_plugs_in(ocpp_unlinked):
    print("output the test captured")
    await ocpp_unlinked.act("cs", "plug_in", evse_id=2)


@checks(OPER.done)
async def test_operator_gives_a_token_a(target, sut_actuator):
    token = await sut_actuator.perform("issue_token_a", {"token": "proposed-by-the-harness"})
    assert token == "typed-at-the-bench-0042"


@checks(OPER.done)
async def test_operator_is_asked_with_secrets_in_the_body(profile, sut_actuator):
    pin, key = profile.token("pin").id, profile.get("station.authorization_key")
    for action, body in [("authorize", {"id_token": {"idToken": pin, "type": "KeyCode"}}), ("authorize", {"id_tag": pin}),
                         ("change_configuration", {"key": "AuthorizationKey", "value": key}),
                         ("change_configuration", {"key": "AuthorizationKey", "value": key.upper()}),
                         ("set_password", {"password": profile.password}),
                         ("register", {"token": profile.get("ocpi.token_a")})]:
        await sut_actuator.perform(action, body)
    assert await sut_actuator.perform("issue_token_a", {}) == "typed-at-the-bench-0042"
"""

SECRETS = """
[tokens]
pin = { id = "7305", type = "KeyCode", status = "Accepted" }
[ocpi]
token_a = "bench-token-a-000007"
"""

SHOWN = b"s left)"          # the countdown: the prompt is on the screen and the operator is awaited
RUN_LIMIT = 90.0            # seconds for one inner run, however it goes


def _bench(pytester, operator_seconds: float):
    pytester.makefile(".toml", sut=PROFILE.format(operator=operator_seconds))
    pytester.makeini("[pytest]\nasyncio_mode = auto\nasyncio_default_fixture_loop_scope = function\n")
    pytester.makepyfile(test_oper=SUITE)


def _at_a_terminal(pytester, answers: list[bytes], *args: str) -> tuple[int, str]:
    """Runs a pytest session with a pseudo-terminal for stdin, stdout and stderr (forked warm, see
    suite_runner.py: a session is all it needs of a process); each time a prompt's countdown shows, the
    operator types the next of ``answers`` (none left: they stay silent). The exit code and the screen."""
    master, slave = pty.openpty()
    session = suite_runner.start(pytester.path, [
        "--color=no", "--sut", "cs", "--protocol", "ocpp2.0.1", "--sut-profile", "sut.toml", "--reports-dir", "out",
        *args], RUN_LIMIT, suite_runner.REAL_CLOCK, terminal=os.ttyname(slave))
    screen, prompts_answered, pending = b"", 0, list(answers)
    deadline = time.monotonic() + RUN_LIMIT + 30   # the session stops itself at RUN_LIMIT; this, if it cannot
    try:
        # the slave stays open here until the session has ended: the master never reads EIO before it starts
        while time.monotonic() < deadline and (not session.done() or select.select([master], [], [], 0)[0]):
            if select.select([master], [], [], 0.2)[0]:
                screen += os.read(master, 4096)
            if pending and screen.count(b">>> MANUAL ACTION") > prompts_answered and SHOWN in screen.rsplit(
                    b">>> MANUAL ACTION", 1)[1]:
                os.write(master, pending.pop(0))
                prompts_answered += 1
        returncode, _ = session.result(timeout=max(deadline - time.monotonic(), 1))
    finally:
        os.close(master)
        os.close(slave)
    return returncode, screen.decode(errors="replace").replace("\r\n", "\n")


def _verdict(pytester, test: str) -> dict:
    summary = json.loads((pytester.path / "out" / "conformance.json").read_text())
    return next(r for r in summary["results"] if f"::{test}[" in r["nodeid"])


def test_the_prompt_reaches_the_terminal_under_capture_and_enter_confirms(pytester):
    _bench(pytester, operator_seconds=30)
    code, screen = _at_a_terminal(pytester, [b"\n"], "-k", "plugs_in")
    assert code == 0, screen
    assert "actuator manual" in screen   # at a terminal, with no actuator configured, the operator acts
    assert ">>> MANUAL ACTION at the charging station under test BENCH-7: plug in" in screen
    assert "evse_id = 2" in screen and "Enter when done, s then Enter to skip (30 s left)" in screen
    assert "output the test captured" not in screen   # the test's own output stayed captured
    assert _verdict(pytester, "test_operator_plugs_in")["verdict"] == "passed"


def test_s_skips_the_step_as_not_applicable(pytester):
    _bench(pytester, operator_seconds=30)
    code, screen = _at_a_terminal(pytester, [b"s\n"], "-k", "plugs_in", "-rs")
    assert code == 0, screen
    verdict = _verdict(pytester, "test_operator_plugs_in")
    assert verdict["verdict"] == "skipped"
    assert verdict["reason"] == "the operator skipped the manual action plug_in"


def test_an_operator_who_does_not_act_breaks_the_test_never_fails_it(pytester):
    _bench(pytester, operator_seconds=2)
    code, screen = _at_a_terminal(pytester, [], "-k", "plugs_in")
    assert code == pytest.ExitCode.TESTS_FAILED, screen
    assert "(2 s left)" in screen and "(1 s left)" in screen   # the countdown
    verdict = _verdict(pytester, "test_operator_plugs_in")
    assert verdict["verdict"] == "broken"
    assert "operator did not act within 2 s (manual action plug_in)" in verdict["reason"]


def test_token_a_is_asked_for_and_never_echoed(pytester):
    _bench(pytester, operator_seconds=30)
    code, screen = _at_a_terminal(pytester, [b"typed-at-the-bench-0042\n"], "-k", "token_a")
    assert code == 0, screen
    assert "type it (not shown)" in screen
    assert "typed-at-the-bench-0042" not in screen and "proposed-by-the-harness" not in screen
    assert _verdict(pytester, "test_operator_gives_a_token_a")["verdict"] == "passed"


def test_no_prompt_shows_a_secret_of_the_profile(pytester):
    """Bodies carrying every secret of the profile (the PIN, the 1.6 key in either case, the password,
    token A) and a typed token A: in no encoding on the screen (DEBUG logs and every test's captured
    output shown) nor in the reports; the prompts name a secret by its place in the profile."""
    from secret_scan import Secret, leaks, outputs_of, secrets_of

    from harness import profile as profiles
    _bench(pytester, operator_seconds=30)
    sut = pytester.path / "sut.toml"
    sut.write_text(sut.read_text().replace('identity = "BENCH-7"', 'identity = "BENCH-7"\npassword = '
                   '"bench-password-000007"\nauthorization_key = "00112233445566778899aabbccddeeff01234567"')
                   + SECRETS)
    code, screen = _at_a_terminal(pytester, [b"\n"] * 6 + [b"typed-at-the-bench-0042\n"], "-k", "secrets_in",
                                  "--log-level=DEBUG", "-rA")
    assert code == 0, screen
    assert screen.count(">>> MANUAL ACTION") == 7 and "the secret [tokens.pin] of the profile (not shown)" in screen
    secrets = secrets_of(profiles.load(sut)) + [Secret("typed token A", b"typed-at-the-bench-0042", None)]
    assert leaks(outputs_of(screen, pytester.path / "out"), secrets) == []


def test_without_a_terminal_an_action_is_not_applicable_with_the_fix(pytester):
    """CI: stdin is no terminal, so no operator is assumed; the action has no actuator."""
    _bench(pytester, operator_seconds=30)
    result = suite_runner.run(pytester.path, ["--sut", "cs", "--protocol", "ocpp2.0.1", "--sut-profile", "sut.toml",
                                              "--reports-dir", "out", "-k", "plugs_in"], RUN_LIMIT)
    assert result.ret == 0
    result.stdout.fnmatch_lines(["*actuator none (no terminal for manual: actions are not applicable)*"])
    reason = _verdict(pytester, "test_operator_plugs_in")["reason"]
    assert reason.startswith("no actuator performs 'plug_in' at the SUT in this run")
    assert "--actuator http --actuator-url URL" in reason


def test_manual_without_a_terminal_is_refused_before_the_run(pytester):
    _bench(pytester, operator_seconds=30)
    result = suite_runner.run(pytester.path, ["--sut", "cs", "--protocol", "ocpp2.0.1", "--sut-profile", "sut.toml",
                                              "--actuator", "manual"], RUN_LIMIT)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--actuator manual needs an operator at a terminal, and stdin is not one (a CI "
                                 "run, or pytest -n?); use --actuator http or python*"])
