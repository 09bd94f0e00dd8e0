"""Configuration (1.6 Core): GetConfiguration and ChangeConfiguration.

The charge point keeps its keys in the ConfigurationStore (``harness.reference.v16.config``, rules
K1-K3), which the other 1.6 blocks read (HeartbeatInterval, MeterValueSampleInterval, ...); a
ChangeConfiguration is passed on to them through the ``configuration_changed`` hook, whatever its
status. The central system sends both messages as actuator actions.
"""

from __future__ import annotations

from typing import Any

from harness.reference.common import V16, Block, Undo
from harness.transport.ws import CallFailed
from harness.ocpp.v16 import connector_ids
from harness.reference.v16.config import ConfigurationStore


class ConfigurationStation16(Block):
    versions = V16

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.config = ConfigurationStore.for_charge_point(len(connector_ids(self.profile)), self.password,
                                                          smart_charging=self.profile.feature("smart_charging"))

    def on_GetConfiguration(self, _: None, payload: dict) -> dict:
        return self.config.get(payload.get("key"))

    def on_ChangeConfiguration(self, _: None, payload: dict) -> dict:
        status = self.config.change(payload["key"], payload["value"])
        self.configuration_changed(payload["key"], payload["value"], status)
        return {"status": status}


class ConfigurationCsms16(Block):
    versions = V16

    async def undo_ChangeConfiguration(self, payload: dict, link: Any) -> Undo | None:
        """The key's value before the change is set again (a read-only or unknown key: nothing to restore)."""
        key = payload["key"]
        try:
            known = (await link.call("GetConfiguration", {"key": [key]})).get("configurationKey", [])
        except CallFailed:
            known = []
        old = known[0].get("value") if known and not known[0].get("readonly") else None
        if old is None or old == payload["value"]:
            return None
        return Undo(f"restore {key}={old}", lambda now: now.call_exchange("ChangeConfiguration", {"key": key, "value": old}))

    async def act_get_configuration(self, keys: list[str] | None = None, station: str | None = None) -> None:
        self.send(station, "GetConfiguration", {"key": keys} if keys else {})

    async def act_change_configuration(self, key: str, value: str, station: str | None = None) -> None:
        self.send(station, "ChangeConfiguration", {"key": key, "value": value})
