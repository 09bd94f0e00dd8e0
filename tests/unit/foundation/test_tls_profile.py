"""The [tls] section of the profile and what a real run at security profile 2 or 3 needs of it."""

import pytest

from harness.errors import ConfigError
from harness.profile import from_dict
from harness.settings import resolve

STATION = {"identity": "CS1", "password": "a-password-of-16-chars"}


def _resolve(tmp_path, profile_text: str, **options):
    path = tmp_path / "sut.toml"
    path.write_text(profile_text)
    values = {"sut_profile": str(path), "protocol": "ocpp2.0.1", **options}
    return resolve(lambda name: values.get(name), lambda name: "")


def test_paths_are_read_relative_to_the_profile_file(tmp_path):
    profile = from_dict({"station": STATION, "tls": {"sut_ca": "ca.pem", "harness_pki": "/abs/pki"}},
                        str(tmp_path / "sut.toml"))
    assert profile.tls_path("sut_ca") == tmp_path / "ca.pem"
    assert str(profile.tls_path("harness_pki")) == "/abs/pki"
    assert profile.serial_number == "CS1" and profile.security_profile == 1


def test_a_real_run_at_a_tls_profile_needs_the_pki_directory_the_ca_file_and_wss(tmp_path):
    text = '[station]\nidentity = "CS1"\npassword = "a-password-of-16-chars"\nsecurity_profile = 2\n' \
           '[tls]\nsut_ca = "missing.pem"\n'
    with pytest.raises(ConfigError) as refused:
        _resolve(tmp_path, text, sut="csms", sut_url="ws://csms.example/ocpp")
    message = str(refused.value)
    assert "[tls] harness_pki is missing" in message
    assert f"[tls] sut_ca {tmp_path / 'missing.pem'} is not a file" in message
    assert "must be a wss:// URL" in message


def test_a_run_set_up_for_tls_passes_the_checks(tmp_path):
    (tmp_path / "ca.pem").write_text("-----BEGIN CERTIFICATE-----\n")
    text = '[station]\nidentity = "CS1"\npassword = "a-password-of-16-chars"\nsecurity_profile = 3\n' \
           '[tls]\nsut_ca = "ca.pem"\nharness_pki = "pki"\nsecurity_profiles = [3]\n'
    settings = _resolve(tmp_path, text, sut="csms", sut_url="wss://csms.example/ocpp")
    assert settings.profile.get("tls.security_profiles") == [3]


def test_an_unknown_security_profile_is_refused():
    with pytest.raises(ConfigError, match=r"tls.security_profiles.0: 1 is not allowed; use one of 2, 3"):
        from_dict({"tls": {"security_profiles": [1]}})
