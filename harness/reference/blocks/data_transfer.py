"""DataTransfer, in both directions and every version (the messages are the same in 1.6 and 2.x):
the receiver answers from the VendorRegistry (``harness.reference.vendors``: spec 001 "DataTransfer"
moves, 1.6 DataTransferStatus); the sender sends it as an actuator action."""

from __future__ import annotations

from typing import Any

from harness.reference.common import EVERY_VERSION, Block
from harness.reference.vendors import VendorRegistry


def data_transfer(vendor_id: str, message_id: str | None, data: Any) -> dict[str, Any]:
    """A DataTransfer request: vendorId, and messageId and data when given."""
    payload: dict[str, Any] = {"vendorId": vendor_id}
    if message_id is not None:
        payload["messageId"] = message_id
    if data is not None:
        payload["data"] = data
    return payload


class DataTransferStation(Block):
    versions = EVERY_VERSION

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.vendors = VendorRegistry.from_profile(self.profile)

    def on_DataTransfer(self, _: None, payload: dict) -> dict:
        return self.vendors.answer(payload)

    async def act_data_transfer(self, vendor_id: str, message_id: str | None = None, data: Any = None) -> None:
        self.background.spawn(self.call("DataTransfer", data_transfer(vendor_id, message_id, data)))


class DataTransferCsms(Block):
    versions = EVERY_VERSION

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.vendors = VendorRegistry.from_profile(self.profile)

    def on_DataTransfer(self, session: Any, payload: dict) -> dict:
        return self.vendors.answer(payload)

    async def act_data_transfer(self, vendor_id: str, message_id: str | None = None, data: Any = None,
                                station: str | None = None) -> None:
        self.send(station, "DataTransfer", data_transfer(vendor_id, message_id, data))
