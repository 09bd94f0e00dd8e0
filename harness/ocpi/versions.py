"""Version discovery: the versions list, version details, and the version both sides speak.

Versions compare as numbers part by part: "2.2.1" > "2.2" > "2.1.1". The role of the credentials
endpoint carries no meaning and is never used to match it (2.3.0 advises sending SENDER and
ignoring what others send). Version details list each module with the interface a platform
implements: SENDER for the data owner, RECEIVER for the other side.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable

from harness.ocpi import schemas
from harness.ocpi.envelope import StatusCode, StatusError
from harness.rules import RuleTable, must

_VERSIONS = "OCPI 2.2.1 §6 Version information endpoint; spec 000 Versioning; facts/ocpi-wire.md"


class VersionRules(RuleTable, namespace="ocpi.versions"):
    """How two platforms find the version and the endpoints they use."""
    shapes = must(_VERSIONS, "versions answer a list of {version, url}; version details answer {version, endpoints} "
                             "of the version asked")
    listed_endpoint = must(_VERSIONS, "requests go to the endpoints the version details list, with the methods "
                                      "each module defines")
    mutual_version = must(f"{_VERSIONS}; status codes §5 (3002)", "the platforms use the latest version both "
                          "support; with none in common the registration is answered 3002")
    endpoints = must(f"{_VERSIONS}; spec 000 Errors (3003)", "an endpoint one side needs and the other lacks is "
                     "answered 3003")

CREDENTIALS = "credentials"
SENDER, RECEIVER = "SENDER", "RECEIVER"


def version_key(version: str) -> tuple[int, ...]:
    """Sort key of a version number; ValueError when it is not dot-separated digits."""
    parts = version.split(".")
    if not all(part.isdigit() for part in parts):
        raise ValueError(f"{version!r} is not a dotted version number")
    return tuple(int(part) for part in parts)


@dataclass(frozen=True)
class Version:
    version: str
    url: str


@dataclass(frozen=True)
class Endpoint:
    identifier: str
    role: str | None
    url: str


@dataclass(frozen=True)
class VersionDetails:
    version: str
    endpoints: tuple[Endpoint, ...]

    def endpoint(self, identifier: str, role: str | None = None) -> Endpoint:
        """The endpoint of module ``identifier`` (in ``role`` unless credentials); StatusError 3003 otherwise."""
        for endpoint in self.endpoints:
            if endpoint.identifier == identifier and (
                    role is None or identifier == CREDENTIALS or endpoint.role == role):
                return endpoint
        wanted = identifier if role is None or identifier == CREDENTIALS else f"{identifier} ({role})"
        raise StatusError(VersionRules.endpoints, f"version {self.version} offers no {wanted} endpoint",
                          status_code=StatusCode.NO_MATCHING_ENDPOINTS, expected=wanted,
                          actual=[(e.identifier, e.role) for e in self.endpoints])


def read_versions(data: Any) -> list[Version]:
    """The ``data`` of a versions response as Version objects; SchemaViolation when malformed."""
    schemas.check("version_list", data)
    return [Version(item["version"], item["url"]) for item in data]


def read_details(data: Any) -> VersionDetails:
    """The ``data`` of a version details response; SchemaViolation when malformed."""
    schemas.check("version_details", data)
    return VersionDetails(data["version"], tuple(
        Endpoint(item["identifier"], item.get("role"), item["url"]) for item in data["endpoints"]))


def negotiate(ours: Iterable[str], theirs: Iterable[Version]) -> Version:
    """The latest version both sides list; StatusError 3002 when there is none."""
    ours = set(ours)
    theirs = list(theirs)
    mutual = [version for version in theirs if version.version in ours]
    if not mutual:
        raise StatusError(VersionRules.mutual_version, "no version in common",
                          status_code=StatusCode.UNSUPPORTED_VERSION,
                          expected=sorted(ours, key=version_key), actual=[v.version for v in theirs])
    return max(mutual, key=lambda version: version_key(version.version))
