"""The profile's [ocpi] section and the OCPI options: refused before any test with the fix,
token A masked; the OCPI roles need the SUT's versions URL and default to ocpi2.2.1."""

import pytest

from harness.errors import ConfigError
from harness.profile import PROFILE_SCHEMA, from_dict
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
    ({"locations": [{"evses": []}]}, "ocpi.locations.0.id is missing; add it"),
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


@pytest.mark.parametrize("section, value, hint", [
    ("ocpi", {"versions_url": "cpo.example/ocpi/versions"}, "write the SUT's versions URL, such as https://"),
    ("ocpi", {"public_url": "harness.example:9100"}, "write the base URL the SUT reaches the harness at"),
    ("ocpi", {"locations": [{"id": "L1", "last_updated": "yesterday"}]}, "write a UTC date-time such as"),
    ("actuator", {"class": "not a class path"}, "write it as module.path:ClassName"),
])
def test_each_pattern_error_gives_the_hint_of_its_key(section, value, hint):
    with pytest.raises(ConfigError) as refused:
        from_dict({section: value})
    assert hint in str(refused.value)
    assert section != "ocpi" or "ClassName" not in str(refused.value)


def test_every_pattern_in_the_profile_schema_carries_its_own_hint():
    def patterns(schema, path=""):
        if isinstance(schema, dict):
            if "pattern" in schema:
                yield path, schema
            for key, value in schema.items():
                yield from patterns(value, f"{path}.{key}")
        elif isinstance(schema, list):
            for value in schema:
                yield from patterns(value, path)

    found = list(patterns(PROFILE_SCHEMA))
    assert found and [path for path, schema in found if not schema.get("hint")] == []
