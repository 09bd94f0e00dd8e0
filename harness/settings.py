"""The run's settings, resolved once: command line, then pytest ini, then the profile, then
the default. Every problem is a ConfigError that names the option and the fix."""

from __future__ import annotations

from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from harness import profile as profiles
from harness.errors import ConfigError
from harness.ocpp.versions import OcppVersion

ROLES = ("csms", "cs", "cpo", "emsp")
PROTOCOLS = ("ocpp1.6", "ocpp2.0.1", "ocpp2.1", "ocpi2.2.1")

# option name → (ini name, profile key, help)
OPTIONS = {
    "sut": ("sut", "sut.role", "role of the system under test: csms, cs, cpo or emsp; none = embedded reference run"),
    "sut_url": ("sut_url", "sut.url", "where the SUT listens (CSMS WebSocket URL, OCPI versions URL)"),
    "listen": ("listen", "sut.listen", "HOST:PORT where the harness listens when the SUT connects to it"),
    "protocol": ("protocol", "sut.protocol", "protocol version: " + ", ".join(PROTOCOLS)),
    "sut_profile": ("sut_profile", None, "TOML profile of the SUT (identity, tokens, features, timeouts)"),
    "actuator": ("actuator", "actuator.kind", "how the SUT is made to act: manual, http or python"),
    "actuator_url": ("actuator_url", "actuator.base_url", "base URL of the http actuator"),
    "usecase": ("usecase", None, "use cases or certification ids to run, comma-separated globs: 'C0*,K01'"),
    "reports_dir": ("reports_dir", None, "where conformance.json and conformance.md are written (default: reports)"),
}


def reference_profile() -> profiles.Profile:
    path = resources.files("harness") / "profiles" / "reference.toml"
    return profiles.from_dict(profiles.tomllib.loads(path.read_text(encoding="utf-8")), "reference.toml (built in)")


@dataclass(frozen=True)
class Settings:
    sut: str | None
    sut_url: str | None
    listen: tuple[str, int]
    protocol: str | None
    profile: profiles.Profile
    actuator: str | None
    actuator_url: str | None
    actuator_class: str | None
    usecases: tuple[str, ...]
    reports_dir: Path
    embedded_sut: str | None

    @property
    def embedded(self) -> bool:
        return self.sut is None


def _parse_listen(text: str) -> tuple[str, int]:
    host, sep, port = text.rpartition(":")
    if not sep or not port.isdigit() or not 0 <= int(port) <= 65535:
        raise ConfigError(f"--listen {text!r} is not HOST:PORT; write it like 127.0.0.1:9000")
    return host or "127.0.0.1", int(port)


def resolve(get_option, get_ini) -> Settings:
    """``get_option(name)`` and ``get_ini(name)`` read the command line and the ini file."""
    def pick(name: str, profile: profiles.Profile | None = None):
        ini_name, profile_key, _ = OPTIONS[name]
        value = get_option(name)
        if value in (None, ""):
            value = get_ini(ini_name) or None
        if value is None and profile is not None and profile_key:
            value = profile.get(profile_key)
        return value

    profile_path = pick("sut_profile")
    sut_hint = get_option("sut") or get_ini("sut")
    if profile_path:
        profile = profiles.load(profile_path)
    elif sut_hint:
        raise ConfigError("--sut needs --sut-profile: the harness must know the SUT's identity, tokens and "
                          "features; start from an example in profiles/")
    else:
        profile = reference_profile()
    sut = pick("sut", profile)
    if sut is not None and sut not in ROLES:
        raise ConfigError(f"--sut {sut!r} is not a role; use one of {', '.join(ROLES)}")
    protocol = pick("protocol", profile)
    if protocol is not None:
        if protocol.lower().startswith("ocpi"):
            if protocol != "ocpi2.2.1":
                raise ConfigError(f"--protocol {protocol!r}: the OCPI version is ocpi2.2.1 (locations at 2.3.0)")
        else:
            protocol = OcppVersion.parse(protocol).value
    sut_url = pick("sut_url", profile)
    if sut in ("cpo", "emsp"):
        protocol = protocol or "ocpi2.2.1"
        if not protocol.startswith("ocpi"):
            raise ConfigError(f"--sut {sut} is an OCPI role but --protocol is {protocol}; use ocpi2.2.1")
        sut_url = sut_url or profile.get("ocpi.versions_url")
        if not sut_url or not sut_url.startswith(("http://", "https://")):
            raise ConfigError(f"--sut {sut} needs --sut-url: the SUT's OCPI versions URL, e.g. "
                              f"https://host/ocpi/versions (or [ocpi] versions_url in the profile)")
    if sut == "csms" and not sut_url:
        raise ConfigError("--sut csms needs --sut-url: the CSMS's WebSocket endpoint, e.g. ws://host:9000/ocpp")
    if sut in ("csms", "cs") and protocol is None:
        raise ConfigError(f"--sut {sut} needs --protocol: one of ocpp1.6, ocpp2.0.1, ocpp2.1")
    if sut in ("csms", "cs") and protocol and protocol.startswith("ocpi"):
        raise ConfigError(f"--sut {sut} is an OCPP role but --protocol is {protocol}")
    actuator = pick("actuator", profile)
    if sut is not None and actuator is None:
        actuator = "manual"
    if actuator not in (None, "manual", "http", "python"):
        raise ConfigError(f"--actuator {actuator!r}: use manual, http or python")
    usecases = tuple(u.strip() for u in (pick("usecase") or "").split(",") if u.strip())
    return Settings(
        sut=sut, sut_url=sut_url, listen=_parse_listen(pick("listen", profile) or "127.0.0.1:0"),
        protocol=protocol, profile=profile, actuator=actuator, actuator_url=pick("actuator_url", profile),
        actuator_class=profile.get("actuator.class"), usecases=usecases,
        reports_dir=Path(pick("reports_dir") or "reports"), embedded_sut=get_option("embedded_sut"),
    )
