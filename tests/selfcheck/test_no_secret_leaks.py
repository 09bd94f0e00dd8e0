"""Self-check (issue 16, "Secrets, checked"): an embedded run at DEBUG log level, with every output
it can write, shows no secret of the profile it used in any output, in any encoding.

The run is a slice of `pytest suites` that exercises every secret and the paths they travel on:
OCPP 2.x authorization (the PIN, C04; the card details of a payment, C18-C23) and transport (Basic auth, wrong passwords, CONN), 1.6
authorization and security (the AuthorizationKey and its rotation, SECURITY16), OCPI credentials
and transport (token A and the tokens exchanged). `-rA` and `junit_logging=all` put every test's
captured log in the terminal and the JUnit file, so that each output carries the logs."""

import subprocess
import sys
from pathlib import Path

import pytest
from secret_scan import Secret, leaks, outputs_of, secrets_of

from harness.settings import reference_profile
from harness.wire import MASK

REPO = Path(__file__).resolve().parents[2]
SLICE = ["suites/ocpp2/authorization", "suites/ocpp/transport/test_CONN.py", "suites/ocpp16/authorization",
               "suites/ocpp16/security", "suites/ocpi/credentials", "suites/ocpi/transport"]


@pytest.fixture(scope="module")
def debug_run(tmp_path_factory, python_env):
    out = tmp_path_factory.mktemp("debug")
    completed = subprocess.run(
        [sys.executable, "-m", "pytest", *SLICE, "-q", "-p", "no:cacheprovider", "-rA", "--log-level=DEBUG",
         "-o", "junit_logging=all", f"--alluredir={out / 'allure'}", f"--junitxml={out / 'junit.xml'}",
         "--reports-dir", str(out / "reports")],
        cwd=REPO, capture_output=True, text=True, timeout=600, env=python_env)
    assert completed.returncode == 0, completed.stdout[-4000:] + completed.stderr[-2000:]
    return outputs_of(completed.stdout + completed.stderr, out / "allure", out / "junit.xml", out / "reports")


def test_no_secret_of_the_profile_in_any_output(debug_run):
    """The run uses the built-in reference profile (no --sut-profile): its secrets, as its loader names them.
    (Assertions here show names and flags only: pytest would print the outputs, secrets and all.)"""
    secrets = secrets_of(reference_profile())
    assert {"station.password", "station.authorization_key", "ocpi.token_a", "tokens.pin.id",
            "payment_terminal.card[1].value"} <= {s.key for s in secrets}
    hits = leaks(debug_run, secrets)
    assert hits == [], "secrets leaked:\n" + "\n".join(hits)


def test_every_output_carries_the_logs_it_was_searched_for(debug_run):
    """Searching outputs that hold no captured log would prove nothing: the DEBUG handshake logs are in
    the terminal, the JUnit file and the Allure log attachments, their credentials masked, and the
    PIN and the rotated key went by masked."""
    header = f"Authorization: Basic {MASK}".encode()

    def shown(text: bytes, name_ends: str = "") -> bool:
        return any(name.endswith(name_ends) and text in content for name, content in debug_run.items())

    seen = {"handshake log in the terminal": header in debug_run["terminal"],
            "handshake log in JUnit": shown(header, "junit.xml"),
            "handshake log in an Allure attachment": shown(header, "-attachment.txt"),
            "masked PIN": shown(b'"idToken":"' + MASK.encode() + b'","type":"KeyCode"'),
            "masked rotated key": shown(b'"AuthorizationKey","value":"' + MASK.encode()),
            "conformance summary": all(shown(b"", name) for name in ("conformance.json", "conformance.md",
                                                                     "conformance.html"))}
    assert all(seen.values()), seen


# ---------------------------------------------------------------------------- the check can fail
PASSWORD = Secret("station.password", b"planted-password-0001", "CS-PLANT")
PIN = Secret("tokens.pin.id", b"4711", "CS-PLANT")
KEY = Secret("station.authorization_key (as bytes)", bytes(range(20)), "CS-PLANT")


@pytest.mark.parametrize("secret", [PASSWORD, KEY], ids=lambda s: s.key)
@pytest.mark.parametrize("encoding", ["raw", "hex", "HEX", "base64", "base64 unpadded", "urlsafe base64",
                                      "urlsafe base64 unpadded", "Basic-auth header"])
def test_a_planted_secret_is_reported_by_file_key_and_encoding_never_by_value(secret, encoding):
    planted = {"allure/x-attachment.txt": b"DEBUG frame " + secret.forms()[encoding] + b" sent"}
    hits = leaks(planted, [secret])
    assert f"allure/x-attachment.txt: {secret.key} as {encoding}" in hits
    assert not any(secret.forms()[encoding].decode(errors="ignore") in hit for hit in hits)


def test_a_pin_is_reported_as_a_quoted_value_not_inside_a_number():
    assert leaks({"junit.xml": b'{"idToken":"4711","type":"KeyCode"}'}, [PIN]) == ["junit.xml: tokens.pin.id as raw"]
    assert leaks({"junit.xml": b"port 47115, at 14:47:11"}, [PIN]) == []


@pytest.mark.parametrize("line", ["< Authorization: Basic Q1MwMDE6bmV3LWtleQ==",
                                  '{\\"headers\\": {\\"authorization\\": \\"Token bmV3LXRva2Vu\\"}}',
                                  '[2,"1","ChangeConfiguration",{"key":"AuthorizationKey","value":"0a1b2c"}]'])
def test_a_credential_the_profile_does_not_name_is_reported_when_unmasked(line):
    assert leaks({"terminal": line.encode()}, []) != []
    assert leaks({"terminal": line.replace("Q1MwMDE6bmV3LWtleQ==", MASK).replace("bmV3LXRva2Vu", MASK)
                  .replace("0a1b2c", MASK).encode()}, []) == []


def test_the_profile_secrets_come_from_the_loader_not_from_a_list():
    """A secret token added to a profile is searched for without a change to the check."""
    from harness import profile as profiles
    data = {"sut": {"name": "x"}, "station": {"identity": "CS-X", "password": "password-of-x-0001"},
            "tokens": {"code": {"id": "9090", "type": "KeyCode", "status": "Accepted"},
                       "card": {"id": "AB00000001", "type": "ISO14443", "status": "Accepted"}}}
    assert {s.key for s in secrets_of(profiles.from_dict(data))} == {"station.password", "tokens.code.id"}
