"""The 1.6 charge point's configuration keys, as GetConfiguration and ChangeConfiguration see them.

Rules (spec 002: Classes KeyValue, Messages GetConfiguration/ChangeConfiguration, ConfigurationStatus,
behaviour rules 14-17, Authentication 3-4, Limits):
- K1  GetConfiguration without keys reports every key; with keys, the known ones in
      ``configurationKey`` and the others, as sent, in ``unknownKey``. Keys are CiString50:
      looked up case-insensitively.
- K2  ChangeConfiguration of an unknown key → NotSupported; of a readonly key → Rejected and the
      value stays (KeyValue.readonly: false only when ChangeConfiguration can set it); of a value
      the key cannot take → Rejected and nothing changes (rule 14: a measurand list with an
      unsupported measurand); of a key that works only after a reboot → RebootRequired
      (ConfigurationStatus: the CP does not reboot itself); else Accepted.
- K3  AuthorizationKey is the 20-byte Basic-auth key, set as 40 hex digits; it is a secret:
      reported as known but never with its value, and registered with the Redactor.
"""

from __future__ import annotations

import functools
import secrets
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from harness.ocpp.v16 import (AUTHORIZATION_KEY, FIRMWARE_MANAGEMENT, KEY_BYTES, LOCAL_AUTH_LIST, REMOTE_TRIGGER, RESERVATION,
                              SMART_CHARGING, register_key)
from harness.ocpp.meter16 import ENERGY
from harness.reference.v16.local_auth import MAX_LENGTH
from harness.reference.v16.meter import SUPPORTED_MEASURANDS, measurand_list


# The smart-charging discovery keys (spec 002 rule 15) the reference reports with the Smart Charging
# profile, and the limits its charging-profile engine keeps.
DISCOVERY_KEYS = {"ChargeProfileMaxStackLevel": "8", "ChargingScheduleAllowedChargingRateUnit": "Current,Power",
                  "ChargingScheduleMaxPeriods": "24", "MaxChargingProfilesInstalled": "16"}



def natural(value: str) -> bool:
    return value.isdigit()


def boolean(value: str) -> bool:
    return value.lower() in ("true", "false")


def measurands(value: str) -> bool:
    """A comma-separated list of measurands the meter supports; empty means none (rule 14)."""
    return all(item in SUPPORTED_MEASURANDS for item in measurand_list(value))


def hex_key(value: str) -> bool:
    try:
        return len(bytes.fromhex(value)) == KEY_BYTES
    except ValueError:
        return False


def new_authorization_key(identity: str | None = None) -> bytes:
    """A fresh 20-byte key, registered (raw, hex, base64, Basic header) before it is used."""
    key = secrets.token_bytes(KEY_BYTES)
    register_key(key, identity)
    return key


@dataclass(frozen=True)
class Key:
    """A key as every charge point of one kind has it: its name, the value it starts with, and how it may change.
    A charge point's own values live in its ``ConfigurationStore``: one table of keys serves a whole fleet."""
    name: str
    value: str | None
    readonly: bool = False
    accepts: Callable[[str], bool] = lambda value: True
    reboot: bool = False     # a change takes effect only after a reboot
    secret: bool = False     # write-only: the value is never reported

    def key_value(self, value: str | None) -> dict[str, Any]:
        entry: dict[str, Any] = {"key": self.name, "readonly": self.readonly}
        if value is not None and not self.secret:
            entry["value"] = value
        return entry


@functools.cache
def _charge_point_keys(connectors: int, smart_charging: bool) -> dict[str, Key]:
    """The reference charge point's table of keys, made once per kind (never changed: values go to the stores)."""
    profiles = ["Core", FIRMWARE_MANAGEMENT, LOCAL_AUTH_LIST, RESERVATION, REMOTE_TRIGGER] + (
        [SMART_CHARGING] if smart_charging else [])
    keys = [Key(name, value, accepts=natural) for name, value in {
        "ClockAlignedDataInterval": "0", "ConnectionTimeOut": "60", "HeartbeatInterval": "86400",
        "MaxEnergyOnInvalidId": "0", "MeterValueSampleInterval": "0", "ResetRetries": "1", "TransactionMessageAttempts": "3",
        "TransactionMessageRetryInterval": "1"}.items()]
    keys += [Key(name, value, accepts=boolean) for name, value in {
        "AuthorizeRemoteTxRequests": "false", "LocalAuthorizeOffline": "false", "LocalPreAuthorize": "false",
        "AuthorizationCacheEnabled": "true", "LocalAuthListEnabled": "true", "AllowOfflineTxForUnknownId": "false",
        "StopTransactionOnEVSideDisconnect": "true", "StopTransactionOnInvalidId": "true",
        "UnlockConnectorOnEVSideDisconnect": "true"}.items()]
    keys += [Key(name, ENERGY, accepts=measurands) for name in (
        "MeterValuesAlignedData", "MeterValuesSampledData", "StopTxnAlignedData", "StopTxnSampledData")]
    keys += [
        Key("GetConfigurationMaxKeys", "50", readonly=True),
        Key("NumberOfConnectors", str(connectors), readonly=True),
        Key("SupportedFeatureProfiles", ",".join(profiles), readonly=True),
        Key("LocalAuthListMaxLength", str(MAX_LENGTH), readonly=True),
        Key("SendLocalListMaxLength", str(MAX_LENGTH), readonly=True),
        Key("ReserveConnectorZeroSupported", "true", readonly=True),
        Key("WebSocketPingInterval", "0", accepts=natural, reboot=True),
        Key(AUTHORIZATION_KEY, None, accepts=hex_key, secret=True),
    ]
    if smart_charging:
        keys += [Key(name, value, readonly=True) for name, value in DISCOVERY_KEYS.items()]
    return {k.name.casefold(): k for k in keys}


class ConfigurationStore:
    """One charge point's configuration: a table of keys (``Key``), shared by every charge point of its kind, and
    the values this one holds where they differ from the table's (a load of thousands keeps one table)."""

    def __init__(self, keys: Iterable[Key] | dict[str, Key], values: dict[str, str | None] | None = None):
        self._keys = keys if isinstance(keys, dict) else {k.name.casefold(): k for k in keys}
        self._values = values   # casefolded name → this charge point's value; None until one differs

    @classmethod
    def for_charge_point(cls, connectors: int, authorization_key: bytes | None, *,
                         smart_charging: bool = False) -> "ConfigurationStore":
        """The keys the reference charge point keeps (1.6 section 9.1, as named in rules 14-17): Core,
        Firmware Management, Local Auth List Management, Reservation and Remote Trigger, and Smart Charging
        when asked."""
        values = {AUTHORIZATION_KEY.casefold(): authorization_key.hex()} if authorization_key else None
        return cls(_charge_point_keys(connectors, smart_charging), values)

    # ------------------------------------------------------------ K1
    def get(self, keys: list[str] | None = None) -> dict[str, Any]:
        """The GetConfiguration.conf payload."""
        if not keys:
            return {"configurationKey": [k.key_value(self.value(k.name)) for k in self._keys.values()]}
        known = [self._keys[name.casefold()] for name in keys if name.casefold() in self._keys]
        unknown = [name for name in keys if name.casefold() not in self._keys]
        answer: dict[str, Any] = {"configurationKey": [k.key_value(self.value(k.name)) for k in known]}
        if unknown:
            answer["unknownKey"] = unknown
        return answer

    # ------------------------------------------------------------ K2
    def change(self, name: str, value: str) -> str:
        """Apply a ChangeConfiguration.req; return its ConfigurationStatus."""
        key = self._keys.get(name.casefold())
        if key is None:
            return "NotSupported"
        if key.readonly or not key.accepts(value):
            return "Rejected"
        self._write(key, value)
        if key.secret:
            register_key(bytes.fromhex(value))
        return "RebootRequired" if key.reboot else "Accepted"

    # ------------------------------------------------------------ the charge point's own reads and writes
    def value(self, name: str) -> str | None:
        folded = name.casefold()
        key = self._keys.get(folded)
        if key is None:
            return None
        return self._values.get(folded, key.value) if self._values else key.value

    def integer(self, name: str, default: int = 0) -> int:
        value = self.value(name)
        return int(value) if value and value.isdigit() else default

    def flag(self, name: str) -> bool:
        return (self.value(name) or "").lower() == "true"

    def set(self, name: str, value: str) -> None:
        """The charge point's own write (the boot interval into HeartbeatInterval): no readonly check."""
        self._write(self._keys[name.casefold()], value)

    def _write(self, key: Key, value: str) -> None:
        if self._values is None:
            self._values = {}
        self._values[key.name.casefold()] = value
