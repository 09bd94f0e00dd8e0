"""The OCPP-J versions the harness speaks, and what differs between them on the wire.

Facts (shared/facts/ocpp-j.md, OCPP 1.6 JSON spec §3/§4, OCPP 2.0.1 part 4 §3/§4):
- the version is negotiated by WebSocket subprotocol: ``ocpp1.6``, ``ocpp2.0.1``, ``ocpp2.1``;
- the official schemas ship in the ``ocpp`` package: 1.6 as ``X.json`` / ``XResponse.json``
  (draft-04), 2.x as ``XRequest.json`` / ``XResponse.json`` (draft-06);
- 2.1 adds message types 5 (CALLRESULTERROR) and 6 (SEND).
"""

from __future__ import annotations

from enum import Enum

from harness.errors import ConfigError


class OcppVersion(str, Enum):
    V16 = "ocpp1.6"
    V201 = "ocpp2.0.1"
    V21 = "ocpp2.1"

    @property
    def subprotocol(self) -> str:
        return self.value

    @property
    def schema_package(self) -> str:
        return {"ocpp1.6": "v16", "ocpp2.0.1": "v201", "ocpp2.1": "v21"}[self.value]

    @property
    def is_2x(self) -> bool:
        return self is not OcppVersion.V16

    @property
    def message_types(self) -> frozenset[int]:
        return frozenset({2, 3, 4, 5, 6}) if self is OcppVersion.V21 else frozenset({2, 3, 4})

    @property
    def label(self) -> str:
        """Human name, used as the Allure epic: 'OCPP 2.0.1'."""
        return "OCPP " + self.value.removeprefix("ocpp")

    @classmethod
    def parse(cls, text: str) -> "OcppVersion":
        wanted = text.strip().lower()
        if not wanted.startswith("ocpp"):
            wanted = "ocpp" + wanted
        for version in cls:
            if version.value == wanted:
                return version
        known = ", ".join(v.value for v in cls)
        raise ConfigError(f"unknown OCPP version {text!r}: use one of {known}")
