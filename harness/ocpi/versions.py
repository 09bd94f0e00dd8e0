"""Version discovery: the versions list, version details, and the version both sides speak.

Rules (OCPI 2.2.1 §6 "Version information endpoint"; spec 000 "Versioning"; facts/ocpi-wire.md):
- V1  GET versions answers a list of {version, url}; GET version details answers
      {version, endpoints: [{identifier, role, url}, ...]} (shapes in schemas/ocpi);
- V2  the version used is the latest both sides support, compared as numbers part by part:
      "2.2.1" > "2.2" > "2.1.1";
- V3  no version in common: status 3002;
- V4  an endpoint one side expects and the other lacks: status 3003; the role of the
      credentials endpoint carries no meaning and is never used to match it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable

from harness.ocpi import schemas
from harness.ocpi.envelope import StatusCode, StatusError

CREDENTIALS = "credentials"


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
        """The endpoint of module ``identifier`` (in ``role`` unless credentials); V4 otherwise."""
        for endpoint in self.endpoints:
            if endpoint.identifier == identifier and (
                    role is None or identifier == CREDENTIALS or endpoint.role == role):
                return endpoint
        wanted = identifier if role is None or identifier == CREDENTIALS else f"{identifier} ({role})"
        raise StatusError("V4", f"version {self.version} offers no {wanted} endpoint",
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
    """The latest version both sides list (V2); StatusError 3002 when there is none (V3)."""
    ours = set(ours)
    theirs = list(theirs)
    mutual = [version for version in theirs if version.version in ours]
    if not mutual:
        raise StatusError("V3", "no version in common", status_code=StatusCode.UNSUPPORTED_VERSION,
                          expected=sorted(ours, key=version_key), actual=[v.version for v in theirs])
    return max(mutual, key=lambda version: version_key(version.version))
