"""Device model (2.x): the station's variables, read and set by the CSMS (GetVariables, SetVariables).

The reference station knows the variables its blocks read (``VARIABLES``: component, variable →
default value; the Actual attribute only); a block reads one with ``variable(component, name)``. An
unknown component or variable is answered UnknownComponent / UnknownVariable, a value that is not
one the variable takes Rejected (OCPP 2.0.1 B05/B06, SetVariableStatusEnumType).

Names are those of the 2.0.1 device model: the authorization cache is AuthCacheCtrlr.Enabled (spec
001 names it AuthCacheEnabled), local pre-authorization AuthCtrlr.LocalPreAuthorize.
"""

from __future__ import annotations

from typing import Any

from harness.reference.common import TOOK_EFFECT, V2X, Block, Undo
from harness.transport.ws import CallFailed

BOOLEAN = ("true", "false")
# (component, variable) → (default, the values it takes; None: any)
VARIABLES: dict[tuple[str, str], tuple[str, tuple[str, ...] | None]] = {
    ("AuthCacheCtrlr", "Enabled"): ("true", BOOLEAN),
    ("AuthCtrlr", "LocalPreAuthorize"): ("true", BOOLEAN),
    ("ISO15118Ctrlr", "CentralContractValidationAllowed"): ("false", BOOLEAN),   # C07
    ("PaymentCtrlr", "AuthorizeDirectPayment"): ("true", BOOLEAN),   # 2.1 direct payment (C18-C23)
    ("PaymentCtrlr", "SettlementByCSMS"): ("false", BOOLEAN),
}


class DeviceModelStation2x(Block):
    versions = V2X

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.variables = {key: default for key, (default, _) in VARIABLES.items()}

    def variable(self, component: str, name: str) -> str:
        return self.variables[(component, name)]

    def flag(self, component: str, name: str) -> bool:
        return self.variable(component, name) == "true"

    def _status(self, component: str, name: str) -> str:
        if (component, name) in self.variables:
            return "Accepted"
        return "UnknownVariable" if any(c == component for c, _ in self.variables) else "UnknownComponent"

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
            if status == "Accepted" and allowed is not None and item["attributeValue"].lower() not in allowed:
                status = "Rejected"
            if status == "Accepted":
                self.variables[(component, name)] = item["attributeValue"].lower() if allowed else item["attributeValue"]
            results.append({"attributeStatus": status, "component": item["component"], "variable": item["variable"]})
        return {"setVariableResult": results}

    def on_GetVariables(self, _: None, payload: dict) -> dict:
        results = []
        for item in payload["getVariableData"]:
            component, name = item["component"]["name"], item["variable"]["name"]
            status = self._status(component, name)
            result = {"attributeStatus": status, "component": item["component"], "variable": item["variable"]}
            if status == "Accepted":
                result["attributeValue"] = self.variables[(component, name)]
            results.append(result)
        return {"getVariableResult": results}


class DeviceModelCsms2x(Block):
    versions = V2X

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
