"""When two OCPP payloads say the same thing.

A correct sender has freedoms the texts give it; a check that compares what a SUT sent with what it
was asked to send must forgive every one of them, and ``harness.variance`` takes exactly these:

- case-insensitive identifiers: the 2.x ``IdTokenType.idToken`` (spec 001 IdTokenType: comparison is
  case-insensitive on idToken), and the 1.6 CiString fields the harness compares: ``idTag`` and
  ``parentIdTag`` (spec 002 Identifiers 8: IdToken is CiString(20)), ``vendorId`` and ``messageId`` of
  DataTransfer (CiString(255) and CiString(50)), configuration key names (``key``, ``unknownKey``:
  CiString(50));
- ``customData``, which every 2.x class admits, and ``statusInfo`` beside a status: no receiver need
  read them;
- numbers by value (``1`` and ``1.0``), date-times by instant (``Z`` or ``+00:00``, any fraction);
- a meter value's member that equals its default and the same member left out (``DEFAULTS``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from datetime import datetime
from decimal import Decimal
from typing import Any

from harness.cistring import id_key
from harness.ocpp.versions import OcppVersion

CISTRING_16 = frozenset({"idTag", "parentIdTag", "vendorId", "messageId", "key", "unknownKey"})
# members of a sampled meter value whose absence means their default (1.6 SampledValue; 2.x SampledValueType and
# UnitOfMeasureType): written or left out, they say the same
DEFAULTS: dict[str, Any] = {"measurand": "Energy.Active.Import.Register", "context": "Sample.Periodic",
                            "location": "Outlet", "format": "Raw", "unit": "Wh", "multiplier": 0}
INFORMATIONAL = frozenset({"customData", "statusInfo"})   # 2.x members no receiver need read (statusInfo beside a status)
DATE_TIME = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}")


def case_insensitive(version: OcppVersion, key: str | None, siblings: Iterable[str] = ()) -> bool:
    """Whether the string member ``key`` (of an object whose members are ``siblings``) is compared
    without regard to case."""
    if version is OcppVersion.V16:
        return key in CISTRING_16
    return key == "idToken" and "type" in siblings


def canonical(version: OcppVersion, value: Any, key: str | None = None, siblings: Iterable[str] = ()) -> Any:
    """``value`` with every freedom above taken out: what two equivalent payloads share."""
    if isinstance(value, Mapping):
        members = [k for k in value if (k not in INFORMATIONAL or k == "statusInfo" and "status" not in value)
                   and not (k in DEFAULTS and value[k] == DEFAULTS[k])]
        return {k: canonical(version, value[k], k, members) for k in members}
    if isinstance(value, (list, tuple)):
        return [canonical(version, item, key, siblings) for item in value]
    if isinstance(value, str):
        if case_insensitive(version, key, siblings):
            return id_key(value)
        if DATE_TIME.match(value):
            try:
                return datetime.fromisoformat(value.replace("Z", "+00:00"))
            except ValueError:
                return value
        return value
    if isinstance(value, (int, float, Decimal)) and not isinstance(value, bool):
        return Decimal(str(value))
    if isinstance(value, datetime):
        return value
    return value


def same(version: OcppVersion) -> Callable[[Any, Any], bool]:
    """``same(version)(a, b)``: whether payloads (or parts of payloads) ``a`` and ``b`` are equivalent."""
    return lambda a, b: canonical(version, a) == canonical(version, b)


def configuration_keys(answer: Mapping[str, Any] | None) -> dict[str, dict[str, Any]]:
    """A 1.6 GetConfiguration.conf's configurationKey entries by key name, case-folded (CiString(50))."""
    return {id_key(entry["key"]): entry for entry in (answer or {}).get("configurationKey", [])}
