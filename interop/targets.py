"""The implementations the ledger plays, each version and role of each: its package (PyPI or npm), its adapter, its
profile and the suites its role and version have. Read by interop/run.py (which plays them), interop/ledger.py
(which writes the ledger) and tests/interop/test_ledger.py (which replays it)."""

from __future__ import annotations

from dataclasses import dataclass

OCPP16_SUITES = ("ocpp16", "ocpp")
OCPP2_SUITES = ("ocpp2", "ocpp")
OCPI_SUITES = ("ocpi",)


@dataclass(frozen=True)
class Target:
    implementation: str      # its name on its registry
    version: str             # the version the [interop] extra (PyPI) or interop/npm/package.json (npm) pins
    protocol: str
    role: str
    adapter: str             # interop/<adapter>: starts it, with its HTTP actuator
    profile: str             # profiles/<profile>
    suites: tuple[str, ...]  # folders under suites/
    path: str                # where it serves stations (OCPP) or its versions (OCPI), under 127.0.0.1:<port>;
                             # a station (role cs) connects to the harness instead: ""
    why: str                 # why it was chosen (README, LEDGER.md)
    registry: str = "pypi"   # "pypi" (the [interop] extra) or "npm" (interop/npm_install.py)

    @property
    def ocpi(self) -> bool:
        return self.protocol.startswith("ocpi")

    @property
    def key(self) -> str:
        return f"{self.implementation} {self.protocol} {self.role}"

    @property
    def slug(self) -> str:
        return f"{self.implementation}-{self.protocol}-{self.role}".replace(".", "")


TARGETS = (
    Target("ocpp-csms", "0.1.0", "ocpp1.6", "csms", "ocpp_csms_sut.py", "interop-ocpp-csms.toml", OCPP16_SUITES,
           "/ocpp", "an asyncio 1.6-J central system made to be embedded (Home Assistant): hooks for who gets in, "
                    "registration and authorization, a method per common CALL"),
    Target("ocpp-broker", "0.4", "ocpp1.6", "csms", "ocpp_broker_sut.py", "interop-ocpp-broker.toml", OCPP16_SUITES,
           "/interop", "a 1.6 broker that is its own central system when no backend is set: tag management with "
                       "statuses and parent tags, configured DataTransfer vendors, a REST command per CALL"),
    Target("arthexis", "2.0.0", "ocpp1.6", "csms", "arthexis_sut.py", "interop-arthexis-ocpp16.toml",
           OCPP16_SUITES, "/ws/ocpp", "a Django/Channels central system for 1.6 and 2.0.1 with its own frame "
                                      "parser, dispatcher and outbound validators (not the ocpp library's)"),
    Target("arthexis", "2.0.0", "ocpp2.0.1", "csms", "arthexis_sut.py", "interop-arthexis-ocpp201.toml",
           OCPP2_SUITES, "/ws/ocpp", "the only 2.0.1 CSMS a registry offers that runs without outside services"),
    Target("python-ocpi", "0.3.1", "ocpi2.2.1", "cpo", "python_ocpi_sut.py", "interop-python-ocpi-cpo.toml",
           OCPI_SUITES, "/ocpi/versions", "an academic OCPI platform (FH Aachen) on Flask-RESTX whose credentials "
                                          "handshake, token store and envelopes are its own; the OCPI platform of "
                                          "PyPI that installs beside the harness"),
    Target("python-ocpi", "0.3.1", "ocpi2.2.1", "emsp", "python_ocpi_sut.py", "interop-python-ocpi-emsp.toml",
           OCPI_SUITES, "/ocpi/versions", "the same platform as a receiver of Locations, the eMSP's side"),
    Target("ocppsim", "1.0.1", "ocpp1.6", "cs", "ocppsim_sut.py", "interop-ocppsim-16.toml", OCPP16_SUITES, "",
           "a 1.6 charge point simulator in TypeScript (npm), the one station a registry offers that runs here: "
           "it boots, beats, reports status and meter values and honours RemoteStart/Stop, TriggerMessage, "
           "UnlockConnector and GetConfiguration with frames of its own", registry="npm"),
)
