"""Device model (2.x): the station's variables, read and set by the CSMS (GetVariables, SetVariables), and
reported whole (GetBaseReport, NotifyReport).

The reference station knows the variables its blocks read (``VARIABLES``: component, variable →
default value; the Actual attribute only); a block reads one with ``variable(component, name)``. An
unknown component or variable is answered UnknownComponent / UnknownVariable, a value that is not
one the variable takes, or a ReadOnly variable, Rejected, another attribute than Actual
NotSupportedAttributeType; each result names the attributeType its request named (OCPP 2.0.1 part 2
B05/B06, docs/requirements/provisioning.md). GetBaseReport (B07) is Accepted and followed by NotifyReport
messages with its requestId, seqNo from 0, tbc on all but the last: every variable (FullInventory), the
ReadWrite ones (ConfigurationInventory), the availability of the station (SummaryInventory). GetReport (B08)
reports the variables of the components (variables) asked for the same way, EmptyResultSet when none matches;
componentCriteria are NotSupported.

Names are those of the 2.0.1 device model: the authorization cache is AuthCacheCtrlr.Enabled (spec
001 names it AuthCacheEnabled), local pre-authorization AuthCtrlr.LocalPreAuthorize.
"""

from __future__ import annotations

import asyncio
import itertools
import secrets
from collections.abc import Iterator, Mapping, MutableMapping
from typing import Any

from harness.reference.common import TOOK_EFFECT, V2X, Block, Undo, now_iso
from harness.transport.ws import CallFailed

BOOLEAN = ("true", "false")
INTEGER = "integer"   # any whole number of seconds from 1 on
READ_ONLY = {("ChargingStation", "AvailabilityState")}
# the variables of a SummaryInventory: the availability of the station (B07)
SUMMARY = {("ChargingStation", "AvailabilityState")}
REPORT_BASES = ("ConfigurationInventory", "FullInventory", "SummaryInventory")
# (component, variable) → (default, the values it takes; None: any)
VARIABLES: dict[tuple[str, str], tuple[str, tuple[str, ...] | str | None]] = {
    ("AuthCacheCtrlr", "Enabled"): ("true", BOOLEAN),
    ("AuthCacheCtrlr", "DisablePostAuthorize"): ("false", BOOLEAN),   # a cached refusal is not asked about again
    ("AuthCtrlr", "LocalPreAuthorize"): ("true", BOOLEAN),
    ("AuthCtrlr", "AuthorizeRemoteStart"): ("false", BOOLEAN),   # F01.FR.01-02
    # seconds a transaction begun without the cable waits for it (F02, TC_F_04); the reference's 0: for ever
    ("TxCtrlr", "EVConnectionTimeOut"): ("0", None),
    ("AuthCtrlr", "LocalAuthorizeOffline"): ("true", BOOLEAN),   # E04: offline, a cached Accepted token starts
    ("ISO15118Ctrlr", "CentralContractValidationAllowed"): ("false", BOOLEAN),   # C07
    ("PaymentCtrlr", "AuthorizeDirectPayment"): ("true", BOOLEAN),   # 2.1 direct payment (C18-C23)
    ("PaymentCtrlr", "SettlementByCSMS"): ("false", BOOLEAN),
    ("OCPPCommCtrlr", "HeartbeatInterval"): ("300", INTEGER),
    ("OCPPCommCtrlr", "NetworkConfigurationPriority"): ("1", None),
    ("OCPPCommCtrlr", "NetworkProfileConnectionAttempts"): ("3", INTEGER),   # B10.FR.03: per priority entry
    ("ChargingStation", "AvailabilityState"): ("Available", None),
}


DEFAULTS = {key: default for key, (default, _) in VARIABLES.items()}


class Variables(MutableMapping[tuple[str, str], str]):
    """A station's variables (component, variable → Actual value): the blocks' defaults, one mapping each shared
    by every station, and under them what was set at this station, its own. A station of the load keeps only
    what it set (its HeartbeatInterval), not a copy of every default (~1.1 KB)."""

    __slots__ = ("_defaults", "_set")

    def __init__(self, *defaults: Mapping[tuple[str, str], str]):
        self._defaults = defaults
        self._set: dict[tuple[str, str], str] = {}

    def with_defaults(self, more: Mapping[tuple[str, str], str]) -> None:
        """A block's own variables, at their defaults (the mapping is shared, never written)."""
        self._defaults = (*self._defaults, more)

    def __getitem__(self, key: tuple[str, str]) -> str:
        if key in self._set:
            return self._set[key]
        for defaults in self._defaults:
            if key in defaults:
                return defaults[key]
        raise KeyError(key)

    def __setitem__(self, key: tuple[str, str], value: str) -> None:
        self._set[key] = value

    def __delitem__(self, key: tuple[str, str]) -> None:
        del self._set[key]   # a set value goes; a default stays

    def __iter__(self) -> Iterator[tuple[str, str]]:
        return iter(dict.fromkeys(itertools.chain(*self._defaults, self._set)))

    def __len__(self) -> int:
        return len(dict.fromkeys(itertools.chain(*self._defaults, self._set)))


class DeviceModelStation2x(Block):
    versions = V2X
    requires = ("ProvisioningStation2x",)
    report_size = 3   # variables per NotifyReport (a report of more goes in several messages)

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.variables = Variables(DEFAULTS)

    def variable(self, component: str, name: str) -> str:
        if (component, name) == ("ChargingStation", "AvailabilityState"):
            return "Available" if self.station_operative else "Unavailable"
        return self.variables[(component, name)]

    def set_variable(self, component: str, name: str, value: str) -> None:
        """The variable's Actual value is ``value`` from now on; the blocks that act on it are told
        (``variable_changed``)."""
        self.variables[(component, name)] = value
        self.variable_changed(component, name)

    def flag(self, component: str, name: str) -> bool:
        return self.variable(component, name) == "true"

    def variable_fits(self, component: str, name: str, value: str) -> bool:
        """Whether ``value`` is one the variable takes (a block that reads a variable of its own may say more)."""
        return self._takes(VARIABLES.get((component, name), (None, None))[1], value)

    def _status(self, component: str, name: str) -> str:
        if (component, name) in self.variables:
            return "Accepted"
        return "UnknownVariable" if any(c == component for c, _ in self.variables) else "UnknownComponent"

    @staticmethod
    def _result(item: dict, status: str) -> dict:
        """A result for ``item``: its component, variable and attributeType (when it named one)."""
        named = {"attributeType": item["attributeType"]} if "attributeType" in item else {}
        return {"attributeStatus": status, "component": item["component"], "variable": item["variable"]} | named

    def variable_written(self, component: str, name: str, value: str) -> str | None:
        """A block that owns ``component``.``name`` (a write-only secret: SecurityCtrlr.BasicAuthPassword) takes
        the value and returns the attributeStatus; None leaves it to the device model (each override passes the
        others on with super())."""
        return None

    def on_SetVariables(self, _: None, payload: dict) -> dict:
        results = []
        for item in payload["setVariableData"]:
            component, name = item["component"]["name"], item["variable"]["name"]
            owned = self.variable_written(component, name, item["attributeValue"])
            if owned is not None:
                results.append({"attributeStatus": owned, "component": item["component"], "variable": item["variable"]})
                continue
            status = self._status(component, name)
            allowed = VARIABLES.get((component, name), (None, None))[1]
            if status == "Accepted" and item.get("attributeType", "Actual") != "Actual":
                status = "NotSupportedAttributeType"
            elif status == "Accepted" and ((component, name) in READ_ONLY
                                           or not self.variable_fits(component, name, item["attributeValue"])):
                status = "Rejected"
            if status == "Accepted":
                value = item["attributeValue"]
                self.set_variable(component, name, value.lower() if allowed == BOOLEAN else value.strip())
            results.append(self._result(item, status))
        return {"setVariableResult": results}

    @staticmethod
    def _takes(allowed: tuple[str, ...] | str | None, value: str) -> bool:
        if allowed == INTEGER:
            return value.strip().isdigit() and int(value) > 0
        return allowed is None or value.lower() in allowed

    def on_GetVariables(self, _: None, payload: dict) -> dict:
        results = []
        for item in payload["getVariableData"]:
            component, name = item["component"]["name"], item["variable"]["name"]
            status = self._status(component, name)
            if status == "Accepted" and item.get("attributeType", "Actual") != "Actual":
                status = "NotSupportedAttributeType"
            result = self._result(item, status)
            if status == "Accepted":
                result["attributeValue"] = self.variable(component, name)
            results.append(result)
        return {"getVariableResult": results}

    def on_GetBaseReport(self, _: None, payload: dict) -> dict:
        base = payload["reportBase"]
        keys = [k for k in VARIABLES if base == "FullInventory" or (base == "SummaryInventory" and k in SUMMARY)
                or (base == "ConfigurationInventory" and k not in READ_ONLY)]
        self.background.spawn(self._notify_report(payload["requestId"], keys))
        return {"status": "Accepted"}

    def on_GetReport(self, _: None, payload: dict) -> dict:
        """B08: the variables of the components (and variables) asked for; criteria are not supported."""
        if payload.get("componentCriteria"):
            return {"status": "NotSupported"}
        asked = payload.get("componentVariable") or []
        keys = [(c, n) for c, n in VARIABLES if not asked or any(
            a["component"]["name"].lower() == c.lower()
            and ("variable" not in a or a["variable"]["name"].lower() == n.lower()) for a in asked)]
        if not keys:
            return {"status": "EmptyResultSet"}
        self.background.spawn(self._notify_report(payload["requestId"], keys))
        return {"status": "Accepted"}

    def report_data(self, component: str, name: str) -> dict:
        allowed = VARIABLES[(component, name)][1]
        kind = "boolean" if allowed == BOOLEAN else "integer" if self.variable(component, name).isdigit() else "string"
        return {"component": {"name": component}, "variable": {"name": name},
                "variableAttribute": [{"type": "Actual", "value": self.variable(component, name),
                                       "mutability": "ReadOnly" if (component, name) in READ_ONLY else "ReadWrite"}],
                "variableCharacteristics": {"dataType": kind, "supportsMonitoring": False}}

    async def _notify_report(self, request_id: int, keys: list[tuple[str, str]]) -> None:
        await asyncio.sleep(0)   # the GetBaseReportResponse goes out first
        parts = [keys[i:i + self.report_size] for i in range(0, len(keys), self.report_size)]
        for seq_no, part in enumerate(parts):
            report: dict[str, Any] = {"requestId": request_id, "generatedAt": now_iso(), "seqNo": seq_no,
                                      "reportData": [self.report_data(c, n) for c, n in part]}
            if seq_no < len(parts) - 1:
                report["tbc"] = True
            await self.call("NotifyReport", report)


class DeviceModelCsms2x(Block):
    versions = V2X

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self._report_ids = itertools.count(secrets.randbelow(10_000) + 1)

    def on_NotifyReport(self, session: Any, payload: dict) -> dict:
        return {}

    async def act_set_variables(self, set_variable_data: list[dict], station: str | None = None) -> None:
        self.send(station, "SetVariables", {"setVariableData": set_variable_data})

    async def act_get_variables(self, get_variable_data: list[dict], station: str | None = None) -> None:
        self.send(station, "GetVariables", {"getVariableData": get_variable_data})

    async def act_get_base_report(self, report_base: str, request_id: int | None = None,
                                  station: str | None = None) -> None:
        self.send(station, "GetBaseReport", {"requestId": next(self._report_ids) if request_id is None else request_id,
                                             "reportBase": report_base})

    async def act_get_report(self, component_variable: list[dict] | None = None,
                             component_criteria: list[str] | None = None, request_id: int | None = None,
                             station: str | None = None) -> None:
        payload: dict[str, Any] = {"requestId": next(self._report_ids) if request_id is None else request_id}
        if component_variable is not None:
            payload["componentVariable"] = component_variable
        if component_criteria is not None:
            payload["componentCriteria"] = component_criteria
        self.send(station, "GetReport", payload)

    async def act_set_network_profile(self, configuration_slot: int, connection_data: dict,
                                      station: str | None = None) -> None:
        self.send(station, "SetNetworkProfile", {"configurationSlot": configuration_slot,
                                                 "connectionData": connection_data})

    async def undo_SetVariables(self, payload: dict, link: Any) -> Undo | None:
        """Each variable's old Actual value (read with GetVariables) is set again; one that cannot be read, or
        has the value already, is left as it is."""
        wanted = payload["setVariableData"]
        try:
            read = await link.call("GetVariables", {"getVariableData": [
                {"component": d["component"], "variable": d["variable"]} for d in wanted]})
            old = [r.get("attributeValue") for r in read["getVariableResult"]]
        except CallFailed:
            return None
        restore = [d | {"attributeValue": value} for d, value in zip(wanted, old, strict=False)
                   if value is not None and value != d["attributeValue"]]
        if not restore:
            return None
        named = ", ".join(f"{d['component']['name']}.{d['variable']['name']}={d['attributeValue']}" for d in restore)
        return Undo(f"restore {named}", lambda now: now.call_exchange("SetVariables", {"setVariableData": restore}),
                    took=lambda result: result["setVariableResult"][0]["attributeStatus"] in TOOK_EFFECT)
