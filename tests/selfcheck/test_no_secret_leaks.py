"""Self-check (issue 16, "Secrets, checked"): an embedded run at DEBUG log level, with every output
it can write, shows no secret of the profile it used in any output, in any encoding.

The run is a slice of `pytest suites` that exercises every secret and the paths they travel on:
OCPP 2.x authorization (the PIN, C04; the card details of a payment, C18-C23) and transport (Basic auth,
wrong passwords, CONN), 1.6 authorization and security (the AuthorizationKey and its rotation, SECURITY16), OCPI credentials
and transport (token A and the tokens exchanged, over HTTPS too), security profiles 2 and 3 (the private
keys of the run's PKI), certificate renewal (the keys of the stations' CSRs, which the harness's station keeps
in the run's PKI directory). `-rA` and `junit_logging=all` put every test's
captured log in the terminal and the JUnit file, so that each output carries the logs."""

from pathlib import Path

import pytest
import suite_runner
from reference_variant import write_reference_variant
from secret_scan import Secret, key_material, leaks, outputs_of, secrets_of

from harness.settings import reference_profile
from harness.wire import MASK

REPO = Path(__file__).resolve().parents[2]
SLICE = ["suites/ocpp2/authorization", "suites/ocpp/transport/test_CONN.py", "suites/ocpp16/authorization",
               "suites/ocpp16/security", "suites/ocpi/credentials", "suites/ocpi/transport", "suites/ocpp/security",
               "suites/ocpp2/security"]


@pytest.fixture(scope="module")
def pki_dir(tmp_path_factory) -> Path:
    """Where the run keeps its PKI ([tls] harness_pki), so that its private keys can be searched for."""
    return tmp_path_factory.mktemp("pki")


@pytest.fixture(scope="module")
def debug_run(tmp_path_factory, pki_dir):
    """The slice as a session of its own, forked warm (suite_runner.py: a session is all it needs of a
    process); its terminal output is searched as pytest wrote it, every test passed (no traceback in it)."""
    out = tmp_path_factory.mktemp("debug")
    # the built-in profile, its PKI kept where the check finds it
    profile = write_reference_variant(out / "reference-with-kept-pki.toml",
                                      ("[tls]\n", f"[tls]\nharness_pki = \"{pki_dir}\"\n"))
    completed = suite_runner.run(tmp_path_factory.mktemp("debug-session"), [
        *(str(REPO / path) for path in SLICE), "-q", "-rA", "--log-level=DEBUG", "--sut-profile", str(profile),
        "-o", "junit_logging=all", f"--alluredir={out / 'allure'}", f"--junitxml={out / 'junit.xml'}",
        "--reports-dir", str(out / "reports")], timeout=600)
    assert completed.ret == 0, completed.stdout.str()[-4000:] + completed.stderr.str()[-2000:]
    return outputs_of(completed.stdout.str() + completed.stderr.str(), out / "allure", out / "junit.xml",
                      out / "reports")


def test_no_secret_of_the_profile_in_any_output(debug_run, pki_dir):
    """The run uses the built-in reference profile (its PKI kept in a directory): its secrets, as its loader
    names them, and the private keys of its TLS tests. (Assertions here show names and flags only: pytest
    would print the outputs, secrets and all.)"""
    secrets = secrets_of(reference_profile()) + key_material(pki_dir)
    assert {"station.password", "station.authorization_key", "ocpi.token_a", "tokens.pin.id",
            "payment_terminal.card[1].value", "private key root.key"} <= {s.key for s in secrets}
    assert sum(s.key.endswith(".key") for s in secrets) > 3, "the TLS tests issued no certificates"
    assert any(s.key.startswith("private key renewal-") for s in secrets), "no station renewed its certificate"
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
            "masked new password": shown(b'"attributeValue":"' + MASK.encode() + b'","component":{"name":"SecurityCtrlr"}'),
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
                                  '[2,"1","ChangeConfiguration",{"key":"AuthorizationKey","value":"0a1b2c"}]',
                                  '{"setVariableData":[{"attributeValue":"n3w-pa55word-0123456789","component":'
                                  '{"name":"SecurityCtrlr"},"variable":{"name":"BasicAuthPassword"}}]}',
                                  '{\\"variable\\":{\\"name\\":\\"BasicAuthPassword\\"},\\"attributeValue\\":'
                                  '\\"n3w-pa55word-0123456789\\"}'])
def test_a_credential_the_profile_does_not_name_is_reported_when_unmasked(line):
    assert leaks({"terminal": line.encode()}, []) != []
    assert leaks({"terminal": line.replace("Q1MwMDE6bmV3LWtleQ==", MASK).replace("bmV3LXRva2Vu", MASK)
                  .replace("0a1b2c", MASK).replace("n3w-pa55word-0123456789", MASK).encode()}, []) == []


def test_the_profile_secrets_come_from_the_loader_not_from_a_list():
    """A secret token added to a profile is searched for without a change to the check."""
    from harness import profile as profiles
    data = {"sut": {"name": "x"}, "station": {"identity": "CS-X", "password": "password-of-x-0001"},
            "tokens": {"code": {"id": "9090", "type": "KeyCode", "status": "Accepted"},
                       "card": {"id": "AB00000001", "type": "ISO14443", "status": "Accepted"}}}
    assert {s.key for s in secrets_of(profiles.from_dict(data))} == {"station.password", "tokens.code.id"}


@pytest.mark.parametrize("shown", ["pem", "der base64"])
def test_a_planted_private_key_is_reported_by_its_file_never_by_value(tmp_path, shown):
    """A private key of the run's PKI pasted into a log, as PEM (line breaks kept) or as its key bytes in
    base64, is found and named by its file."""
    import base64

    from harness.pki import HarnessPki
    HarnessPki(tmp_path)
    pem = (tmp_path / "root.key").read_bytes()
    der = base64.b64decode(b"".join(line for line in pem.splitlines() if not line.startswith(b"-----")))
    planted = b"log line: " + (pem if shown == "pem" else base64.b64encode(der)) + b" end"
    hits = leaks({"terminal": planted}, key_material(tmp_path))
    assert hits and all(hit.startswith("terminal: private key root.key") for hit in hits)
    assert all(pem.decode() not in hit for hit in hits)
