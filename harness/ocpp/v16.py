"""Facts of OCPP 1.6 (spec 002) that the 1.6 reference, the use-case dialogues and the suites share.

- AuthorizationStatus has five values; ConcurrentTx only means something at StartTransaction
  (spec 002 Enumerations).
- Connectors are numbered from 1 without gaps, never above their number (spec 002 What the
  service does 8; Limits); here 1..N over the connectors of the profile's EVSEs, in order.
- BootNotification.conf names the interval ``interval`` in the payload listing and
  ``heartbeatInterval`` in the wire example (spec 002 Messages): both are read.
- The AuthorizationKey is the Basic-auth password, 20 bytes, set as hexadecimal (spec 002
  Authentication 3-4, Limits); a key is a secret, registered with the redactor before it is shown.
- The Measurand values, the MessageTrigger values, and the feature profiles a charge point lists in
  SupportedFeatureProfiles (spec 002 Enumerations; What the service does 2).
- ConnectorId 0 from the central system addresses the whole charge point; from the charge point it
  is the main controller (spec 002 What the service does 8).
"""

from __future__ import annotations

from typing import Any

from harness.profile import Profile
from harness.wire import REDACTOR

AUTHORIZATION_STATUSES = ("Accepted", "Blocked", "Expired", "Invalid", "ConcurrentTx")
AUTHORIZATION_KEY = "AuthorizationKey"
KEY_BYTES = 20
WHOLE_CHARGE_POINT = 0

MEASURANDS = (
    "Current.Export", "Current.Import", "Current.Offered", "Energy.Active.Export.Register",
    "Energy.Active.Import.Register", "Energy.Reactive.Export.Register", "Energy.Reactive.Import.Register",
    "Energy.Active.Export.Interval", "Energy.Active.Import.Interval", "Energy.Reactive.Export.Interval",
    "Energy.Reactive.Import.Interval", "Frequency", "Power.Active.Export", "Power.Active.Import", "Power.Factor",
    "Power.Offered", "Power.Reactive.Export", "Power.Reactive.Import", "RPM", "SoC", "Temperature", "Voltage")
MESSAGE_TRIGGERS = ("BootNotification", "DiagnosticsStatusNotification", "FirmwareStatusNotification", "Heartbeat",
                    "MeterValues", "StatusNotification")
FIRMWARE_MANAGEMENT, LOCAL_AUTH_LIST, RESERVATION, REMOTE_TRIGGER, SMART_CHARGING = (
    "FirmwareManagement", "LocalAuthListManagement", "Reservation", "RemoteTrigger", "SmartCharging")


def connector_ids(profile: Profile) -> list[int]:
    """The 1.6 connector ids of the profile's charge point: 1..N, in the order of its EVSEs."""
    return list(range(1, sum(len(e.connectors) for e in profile.evses) + 1))


def interval_of(response: dict[str, Any]) -> int:
    """The BootNotification.conf interval, under either of its names (0 when absent)."""
    return int(response.get("interval", response.get("heartbeatInterval", 0)))


def register_key(key: bytes, identity: str | None = None) -> None:
    """An AuthorizationKey is never shown: raw, hex (either case), base64, in a Basic header."""
    REDACTOR.register(key, identity=identity)


def unsupported_measurands(supported: list[str]) -> list[str]:
    """The valid Measurand values outside ``supported`` (what a charge point declares it can sample)."""
    return [m for m in MEASURANDS if m not in supported]
