"""DataTransfer: the vendor registry that answers it (spec 001 "DataTransfer", moves table).

  vendorId unknown → UnknownVendorId (mandatory); vendorId known and messageId given but
  unknown → UnknownMessageId (mandatory); processing succeeds → Accepted with optional data;
  processing refuses → Rejected with optional statusInfo.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from harness.profile import Profile

MessageHandler = Callable[[Any], tuple[str, Any]]


def echo(data: Any) -> tuple[str, Any]:
    return "Accepted", data


def refuse(data: Any) -> tuple[str, Any]:
    return "Rejected", None


class VendorRegistry:
    def __init__(self) -> None:
        self.vendors: dict[str, dict[str | None, MessageHandler]] = {}

    def register(self, vendor_id: str, message_id: str | None, handler: MessageHandler) -> None:
        self.vendors.setdefault(vendor_id, {})[message_id] = handler

    @classmethod
    def from_profile(cls, profile: Profile) -> "VendorRegistry":
        """The vendor the profile says the SUT knows: its message echoes, its refused one refuses."""
        registry = cls()
        vendor = profile.get("data_transfer.vendor_id")
        if vendor:
            registry.register(vendor, None, echo)
            registry.register(vendor, profile.get("data_transfer.message_id", "Echo"), echo)
            refused = profile.get("data_transfer.rejected_message_id")
            if refused:
                registry.register(vendor, refused, refuse)
        return registry

    def answer(self, request: dict) -> dict:
        messages = self.vendors.get(request["vendorId"])
        if messages is None:
            return {"status": "UnknownVendorId"}
        handler = messages.get(request.get("messageId"))
        if handler is None:
            return {"status": "UnknownMessageId"}
        status, data = handler(request.get("data"))
        return {"status": status} if data is None else {"status": status, "data": data}
