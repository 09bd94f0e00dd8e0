"""Captured logs pass the redactor: what a library logs at DEBUG (websockets logs every handshake
header, the Basic-auth one included) reaches the terminal, the Allure log attachment and the
JUnit file only masked, whichever way pytest shows it (live, captured, in a failure, in caplog)."""

import base64

SECRET = "logged-secret-0001"
HEADER = base64.b64encode(b"CS-LOG:" + SECRET.encode()).decode()

SUITE = f'''
import logging
import pytest
from harness.wire import REDACTOR

REDACTOR.register({SECRET!r}, identity="CS-LOG")
log = logging.getLogger("websockets.client")


def test_logs_a_secret(caplog):
    log.debug("> Authorization: Basic %s", {HEADER!r})
    log.debug("password %s in an argument", {SECRET!r})
    log.warning("password {SECRET} in the message")
    try:
        raise ValueError("the password was {SECRET}")
    except ValueError:
        log.exception("with a traceback")
    assert {SECRET!r} not in caplog.text and {HEADER!r} not in caplog.text
    assert "«redacted»" in caplog.text
    assert False, "fails, so that its captured log is shown"
'''


def test_no_secret_in_any_captured_log(pytester):
    pytester.makepyfile(test_logging=SUITE)
    result = pytester.runpytest_subprocess(
        "-p", "no:cacheprovider", "-rA", "--log-level=DEBUG", "--log-cli-level=DEBUG",
        "--log-file=run.log", "--log-file-level=DEBUG", "-o", "junit_logging=all",
        "--junitxml=junit.xml", "--alluredir=allure", "--reports-dir=out")
    terminal = result.stdout.str() + result.stderr.str()
    result.assert_outcomes(failed=1)
    assert "AssertionError: fails, so that its captured log is shown" in terminal, "caplog.text carries a secret"
    outputs = {"terminal": terminal} | {p.name: p.read_text() for p in
                                        [pytester.path / "run.log", pytester.path / "junit.xml",
                                         *(pytester.path / "allure").glob("*-attachment.txt")]}
    assert any("log" in name for name in outputs), "no log attachment was written"
    for name, text in outputs.items():
        assert SECRET not in text and HEADER not in text, f"a secret leaked into {name}"
    assert all("Authorization: Basic «redacted»" in outputs[name] for name in ("terminal", "run.log", "junit.xml"))
