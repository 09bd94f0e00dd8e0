"""The run's settings, resolved once: command line, then pytest ini, then the profile, then
the default. Every problem is found before the run is refused: one ConfigError lists them all,
each naming the option or key and the fix."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from harness import actuators
from harness import profile as profiles
from harness import variance as variance_rows
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
    "variance": ("variance", None, "embedded run only: a seed (an integer); the stand-ins take the freedoms the "
                                   "texts give a correct implementation at random (harness/variance.py)"),
    "max_test_time": ("max_test_time", None, "seconds a test may take, set-up and tear-down included; past it the "
                                             "test ends as broken and the run goes on (default: no limit)"),
    "variance_skip": ("variance_skip", None, "with --variance: freedoms the stand-ins leave alone, comma-separated "
                                             "row ids of harness/variance.py (e.g. actuator.unsupported)"),
}


EMBEDDED_PROFILE = profiles.BUILTIN + "reference"   # the embedded run's, with no --sut-profile


def reference_profile() -> profiles.Profile:
    return profiles.load(EMBEDDED_PROFILE)


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
    variance: int | None = None
    variance_skip: frozenset[str] = frozenset()
    max_test_time: float | None = None

    @property
    def embedded(self) -> bool:
        return self.sut is None


# URLs whose form the profile's schema checks already (their scheme does not depend on the role)
CHECKED_BY_PROFILE = ("[ocpi] versions_url in the profile", "[actuator] base_url in the profile")


def _parse_listen(text: str) -> tuple[str, int] | None:
    host, sep, port = text.rpartition(":")
    if not sep or not port.isdigit() or not 0 <= int(port) <= 65535:
        return None
    return host or "127.0.0.1", int(port)


def _url_problem(url: str, where: str, schemes: tuple[str, ...], example: str) -> str | None:
    """Why ``url`` cannot be the URL ``where`` asks for: the wrong scheme, no host, a bad port."""
    parts = urlsplit(url)
    try:
        parts.port   # noqa: B018 -- raises on a port that is not a number in range
    except ValueError:
        return f"{where} {url!r} has no valid port; write it like {example}"
    if parts.scheme.lower() not in schemes or not parts.hostname:
        return f"{where} {url!r} is not a {' or '.join(s + '://' for s in schemes)} URL; write it like {example}"
    return None


def resolve(get_option, get_ini, *, interactive: bool = False) -> Settings:
    """``get_option(name)`` and ``get_ini(name)`` read the command line and the ini file;
    ``interactive``: an operator at a terminal can perform manual actions (stdin is a TTY).
    Every problem is found before the run is refused, with one ConfigError listing them all."""
    found: list[str] = []
    origin: dict[str, str] = {}

    def pick(name: str, profile: profiles.Profile | None = None):
        ini_name, profile_key, _ = OPTIONS[name]
        value, origin[name] = get_option(name), "--" + name.replace("_", "-")
        if value in (None, ""):
            value, origin[name] = get_ini(ini_name) or None, f"{ini_name} in the ini file"
        if value is None and profile is not None and profile_key:
            section, _, key = profile_key.partition(".")
            value, origin[name] = profile.get(profile_key), f"[{section}] {key} in the profile"
        return value if isinstance(value, str) else None   # another type: the profile's check reports it

    profile_path = pick("sut_profile")
    sut_hint = get_option("sut") or get_ini("sut")
    if profile_path:
        data = profiles.read(profile_path)
        found += profiles.problems(data, str(profile_path))
        # a profile with problems is still read for the settings it gives, so that every problem shows at once
        profile = profiles.Profile(str(profile_path), data) if found else profiles.from_dict(data, str(profile_path))
    elif sut_hint:
        raise ConfigError("--sut needs --sut-profile: the harness must know the SUT's identity, tokens and "
                          "features; start from an example in profiles/")
    else:
        profile = reference_profile()
    sut = pick("sut", profile)
    if sut is not None and sut not in ROLES:
        found.append(f"--sut {sut!r} is not a role; use one of {', '.join(ROLES)}")
    if sut is not None and profile_path == EMBEDDED_PROFILE:
        found.append(f"--sut-profile {EMBEDDED_PROFILE} is the embedded run's profile: it opts in to the tests "
                     f"that wait a real day and to security profiles 2 and 3 with a PKI made per run; against "
                     f"the standalone references give builtin:standalone, against your system a profile of "
                     f"your own (start from an example in profiles/)")
    protocol = pick("protocol", profile)
    if protocol is not None:
        if protocol.lower().startswith("ocpi"):
            if protocol != "ocpi2.2.1":
                found.append(f"--protocol {protocol!r}: the OCPI version is ocpi2.2.1 (locations at 2.3.0)")
        else:
            try:
                protocol = OcppVersion.parse(protocol).value
            except ConfigError as error:
                found.append(str(error))
    sut_url = pick("sut_url", profile)
    if sut in ("cpo", "emsp"):
        protocol = protocol or "ocpi2.2.1"
        if not protocol.startswith("ocpi"):
            found.append(f"--sut {sut} is an OCPI role but --protocol is {protocol}; use ocpi2.2.1")
        if not sut_url and profile.get("ocpi.versions_url"):
            sut_url, origin["sut_url"] = profile.get("ocpi.versions_url"), "[ocpi] versions_url in the profile"
        if not sut_url:
            found.append(f"--sut {sut} needs --sut-url: the SUT's OCPI versions URL, e.g. "
                         f"https://host/ocpi/versions (or [ocpi] versions_url in the profile)")
        elif origin["sut_url"] not in CHECKED_BY_PROFILE:
            found.append(_url_problem(sut_url, origin["sut_url"], ("http", "https"),
                                      "https://cpo.example/ocpi/versions"))
    if sut == "csms":
        if not sut_url:
            found.append("--sut csms needs --sut-url: the CSMS's WebSocket endpoint, e.g. ws://host:9000/ocpp")
        else:
            found.append(_url_problem(sut_url, origin["sut_url"], ("ws", "wss"), "ws://csms.example:9000/ocpp"))
    if sut in ("csms", "cs"):
        if protocol is None:
            found.append(f"--sut {sut} needs --protocol: one of ocpp1.6, ocpp2.0.1, ocpp2.1")
        elif protocol.startswith("ocpi"):
            found.append(f"--sut {sut} is an OCPP role but --protocol is {protocol}")
        found += _station_problems(profile, sut, protocol)
        found += _tls_problems(profile, sut, sut_url)
    listen_text = pick("listen", profile) or "127.0.0.1:0"
    listen = _parse_listen(listen_text)
    if listen is None:
        found.append(f"--listen {listen_text!r} is not HOST:PORT; write it like 127.0.0.1:9000")
    actuator, actuator_url = pick("actuator", profile), pick("actuator_url", profile)
    if sut is not None and actuator is None:
        actuator = "manual" if interactive else None   # CI: no actuator, and actions are not applicable
    if actuator is not None:
        found += actuators.problems(actuator, base_url=actuator_url, spec=profile.get("actuator.class"))
    if actuator == "manual" and not interactive:
        found.append("--actuator manual needs an operator at a terminal, and stdin is not one (a CI run, or "
                     "pytest -n?); use --actuator http or python, or give none: actions are then not applicable")
    if actuator_url and origin["actuator_url"] not in CHECKED_BY_PROFILE:
        found.append(_url_problem(actuator_url, origin["actuator_url"], ("http", "https"), "http://sut-test:9100"))
    variance = pick("variance")
    if variance is not None:
        if not variance.strip().lstrip("-").isdigit():
            found.append(f"--variance {variance!r} is not a seed: give an integer, e.g. --variance 7")
        elif sut is not None:
            found.append(f"--variance plays the embedded stand-ins; with --sut {sut} the SUT is yours: leave it out")
    skipped = frozenset(row.strip() for row in (pick("variance_skip") or "").split(",") if row.strip())
    if skipped and variance is None:
        found.append("--variance-skip names freedoms of a variance run: give --variance SEED too")
    unknown = sorted(skipped - set(variance_rows.ROWS))
    if unknown:
        found.append(f"--variance-skip {','.join(unknown)}: no such freedom; the rows are listed in "
                     f"harness/variance.py FREEDOMS")
    max_test_time = pick("max_test_time")
    if max_test_time is not None and not _positive(max_test_time):
        found.append(f"--max-test-time {max_test_time!r} is not a number of seconds above 0; write it like 300")
    found = [problem for problem in found if problem]
    if found:
        raise profiles.refusal(found)
    usecases = tuple(u.strip() for u in (pick("usecase") or "").split(",") if u.strip())
    return Settings(
        sut=sut, sut_url=sut_url, listen=listen, protocol=protocol, profile=profile, actuator=actuator,
        actuator_url=actuator_url, actuator_class=profile.get("actuator.class"), usecases=usecases,
        reports_dir=Path(pick("reports_dir") or "reports"), embedded_sut=get_option("embedded_sut"),
        variance=int(variance) if variance is not None else None, variance_skip=skipped,
        max_test_time=float(max_test_time) if max_test_time is not None else None,
    )


def _positive(text: str) -> bool:
    try:
        return float(text) > 0
    except ValueError:
        return False


def _station_problems(profile: profiles.Profile, sut: str, protocol: str | None) -> list[str]:
    """What an OCPP run against a real system needs of [station]: the identity the CSMS knows (no
    default stands in for it), and in 1.6 the AuthorizationKey, not a 2.x password."""
    found = []
    if not profile.get("station.identity"):
        whose = "the station the harness plays, as the CSMS under test knows it" if sut == "csms" \
            else "the identity the station under test connects with"
        found.append(f"[station] identity is missing: {whose}; add identity = \"...\" under [station] in the profile")
    if protocol == "ocpp1.6" and profile.get("station.password") and not profile.get("station.authorization_key"):
        found.append("[station] password is not how OCPP 1.6 authenticates: its Basic-auth password is the "
                     "AuthorizationKey, 20 bytes; write it as [station] authorization_key = \"<40 hex digits>\" "
                     "(a 20-character password's key is its bytes in hex) and remove password")
    return found


def _tls_problems(profile: profiles.Profile, sut: str, sut_url: str | None) -> list[str]:
    """What a run against a real system at security profile 2 or 3 (every test's, or the SP tests') needs
    of [tls]: the harness's PKI kept in a directory (its root is installed at the SUT once, so it must
    outlive the run), the authority of the SUT's certificate as a file, and a CSMS reached over wss."""
    everyday, tested = profile.security_profile, profile.get("tls.security_profiles", [])
    if everyday < 2 and not tested:
        return []
    found = []
    if profile.get("tls.harness_pki") is None:
        found.append("[tls] harness_pki is missing: the directory where the harness keeps its test root "
                     "(root.pem, which the SUT installs as trusted) and the certificates it issues; add "
                     "harness_pki = \"pki\" under [tls] (made on first use)")
    ca = profile.tls_path("sut_ca")
    if ca is None:
        found.append("[tls] sut_ca is missing: the PEM file of the authority that signed the SUT's certificate; "
                     "add sut_ca = \"<path>\" under [tls]")
    elif not ca.is_file():
        found.append(f"[tls] sut_ca {ca} is not a file; give the PEM file of the authority that signed the SUT's "
                     f"certificate")
    if sut == "csms" and everyday >= 2 and sut_url and urlsplit(sut_url).scheme.lower() != "wss":
        found.append(f"[station] security_profile = {everyday} is TLS: --sut-url {sut_url} must be a wss:// URL")
    return found
