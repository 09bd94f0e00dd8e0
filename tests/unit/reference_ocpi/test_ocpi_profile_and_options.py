"""The profile's [ocpi] section and the OCPI options: refused before any test with the fix,
token A masked; the OCPI roles need the SUT's versions URL and default to ocpi2.2.1."""

import pytest

from harness.errors import ConfigError
from harness.profile import from_dict
from harness.reference.ocpi import CPO, build_peer, harness_identity, sut_identity
from harness.settings import reference_profile, resolve
from harness.transport.http import HttpClient
from harness.wire import REDACTOR


def test_reference_profile_describes_the_ocpi_platform():
    profile = reference_profile()
    identity = sut_identity(profile, CPO)
    assert (identity.country_code, identity.party_id, identity.token_encoding) == ("NL", "REF", "base64")
    assert harness_identity(profile, "EMSP").party_id == "HAR"
    peer = build_peer(identity, profile, http=HttpClient(), from_profile=True)
    assert [loc["id"] for loc in peer.store("locations").all()] == [e["id"] for e in profile.get("ocpi.locations")]


@pytest.mark.parametrize("ocpi, message", [
    ({"party": "REF"}, "unknown key ocpi.party"),
    ({"party_id": "TOOLONG"}, "ocpi.party_id"),
    ({"token_encoding": "hex"}, "ocpi.token_encoding"),
    ({"token_a": "has space"}, "token A is 1 to 64 printable ASCII characters"),
    ({"locations": [{"evses": []}]}, "'id' is a required property"),
])
def test_bad_ocpi_section_is_refused_naming_the_key(ocpi, message):
    with pytest.raises(ConfigError, match=message):
        from_dict({"ocpi": ocpi})


def test_token_a_is_masked_everywhere():
    profile = from_dict({"ocpi": {"token_a": "secret-token-a-for-masking"}})
    assert profile.redacted()["ocpi"]["token_a"] == "«redacted»"
    assert "secret-token-a-for-masking" not in REDACTOR.redact('{"token": "secret-token-a-for-masking"}')


def _resolve(options: dict, profile_path=None):
    values = {"sut_profile": profile_path, **options}
    return resolve(lambda name: values.get(name), lambda name: "")


@pytest.fixture
def profile_path(tmp_path):
    path = tmp_path / "sut.toml"
    path.write_text('[ocpi]\ncountry_code = "DE"\nparty_id = "ABC"\n')
    return str(path)


def test_ocpi_role_needs_the_versions_url(profile_path):
    with pytest.raises(ConfigError, match="--sut cpo needs --sut-url: the SUT's OCPI versions URL"):
        _resolve({"sut": "cpo"}, profile_path)


def test_ocpi_role_defaults_to_ocpi221_and_refuses_ocpp(profile_path):
    settings = _resolve({"sut": "emsp", "sut_url": "https://emsp.example/ocpi/versions"}, profile_path)
    assert settings.protocol == "ocpi2.2.1" and settings.sut_url.endswith("/versions")
    with pytest.raises(ConfigError, match="OCPI role but --protocol is ocpp2.0.1"):
        _resolve({"sut": "cpo", "sut_url": "https://x/ocpi/versions", "protocol": "ocpp2.0.1"}, profile_path)
