"""--variance and --variance-skip (ini variance, variance_skip): a seed for the embedded run only, and freedoms
named by their rows; every mistake refused before the run, with the fix."""

import pytest

from harness.errors import ConfigError
from harness.settings import resolve


def _resolve(options: dict, ini: dict | None = None):
    return resolve(lambda name: options.get(name), lambda name: (ini or {}).get(name, ""))


def test_the_seed_and_the_skipped_freedoms_are_read_from_the_command_line_or_the_ini_file():
    settings = _resolve({"variance": "7", "variance_skip": "actuator.unsupported, json.escapes"})
    assert settings.variance == 7 and settings.variance_skip == {"actuator.unsupported", "json.escapes"}
    assert _resolve({}, {"variance": "3"}).variance == 3
    assert _resolve({}).variance is None


@pytest.mark.parametrize("options, fix", [
    ({"variance": "seven"}, "is not a seed: give an integer"),
    ({"variance": "1", "variance_skip": "json.nope"}, "json.nope: no such freedom"),
    ({"variance_skip": "json.escapes"}, "give --variance SEED too"),
    ({"variance": "1", "sut": "csms", "sut_url": "ws://csms.example/ocpp", "protocol": "ocpp2.0.1"},
     "with --sut csms the SUT is yours"),
])
def test_a_mistake_is_refused_with_its_fix(options, fix, tmp_path):
    if "sut" in options:
        profile = tmp_path / "sut.toml"
        profile.write_text('[station]\nidentity = "CS001"\npassword = "0123456789abcdef0123"\n')
        options = {**options, "sut_profile": str(profile)}
    with pytest.raises(ConfigError, match=fix):
        _resolve(options)
