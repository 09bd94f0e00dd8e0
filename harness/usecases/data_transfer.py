"""DataTransfer, the same dialogue in both directions: P01 (CSMS to station) and P02
(station to CSMS). Spec 001 DataTransfer moves: UnknownVendorId and UnknownMessageId are
mandatory answers; Accepted when processed; Rejected when refused. OCPP 1.6 has the same
dialogue and the same four DataTransferStatus values (spec 002 Enumerations, behaviour rule 10):
its checks cite that instead."""

from __future__ import annotations

import secrets
from dataclasses import dataclass

from harness.arena import OcppArena
from harness.errors import NotApplicable
from harness.profile import Profile
from harness.verdict import check_equal

CASES = ("unknown_vendor", "unknown_message", "accepted", "rejected")


@dataclass(frozen=True)
class TransferCase:
    vendor_id: str
    message_id: str | None
    expected: str
    rule: str


def transfer_case(profile: Profile, name: str) -> TransferCase:
    vendor = profile.get("data_transfer.vendor_id")
    if not vendor:
        raise NotApplicable("the profile declares no [data_transfer] vendor_id the SUT implements")
    if name == "unknown_vendor":
        return TransferCase("org.evse-conformance.unknown." + secrets.token_hex(4), None, "UnknownVendorId",
                            "P: an unknown vendorId SHALL be answered UnknownVendorId")
    if name == "unknown_message":
        return TransferCase(vendor, "NoSuchMessage" + secrets.token_hex(4), "UnknownMessageId",
                            "P: a known vendorId with an unknown messageId SHALL be answered UnknownMessageId")
    if name == "accepted":
        return TransferCase(vendor, profile.get("data_transfer.message_id"), "Accepted",
                            "P: a processed DataTransfer is answered Accepted")
    refused = profile.get("data_transfer.rejected_message_id")
    if not refused:
        raise NotApplicable("the profile declares no [data_transfer] rejected_message_id the SUT refuses")
    return TransferCase(vendor, refused, "Rejected", "P: a refused DataTransfer is answered Rejected")


async def check_transfer(arena: OcppArena, initiator: str, name: str) -> None:
    """Play one DataTransfer case from ``initiator`` and check the SUT's side of it."""
    case = transfer_case(arena.profile, name)
    payload = {"vendorId": case.vendor_id} | ({"messageId": case.message_id} if case.message_id else {})
    body = {"vendor_id": case.vendor_id} | ({"message_id": case.message_id} if case.message_id else {})
    exchange = await arena.exchange(initiator, "DataTransfer", payload, trigger=("data_transfer", body),
                                    rule="P: the SUT sends the DataTransfer it was asked to")
    rule = case.rule if arena.version.is_2x else case.rule.replace("P:", "1.6 DataTransferStatus:", 1)
    if arena.is_sut(initiator):
        check_equal(rule, "DataTransferRequest vendorId", case.vendor_id, exchange.request.get("vendorId"))
        check_equal(rule, "DataTransferRequest messageId", case.message_id, exchange.request.get("messageId"))
    else:
        check_equal(rule, "DataTransferResponse status", case.expected, (exchange.response or {}).get("status"))
