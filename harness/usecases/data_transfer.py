"""DataTransfer, the same dialogue in both directions and in every version: P01 (CSMS to station)
and P02 (station to CSMS) in 2.x, DATA16 in 1.6, which has the same four statuses (spec 002
DataTransferStatus; behaviour rule 10: either side may initiate). The rules are this module's,
one row per requirement, shared by the three suites."""

from __future__ import annotations

import secrets
from dataclasses import dataclass

import pytest

from harness.arena.ocpp import OcppArena
from harness.errors import NotApplicable
from harness.ocpp.equivalence import same
from harness.profile import Profile
from harness.rules import Rule, RuleTable, must
from harness.suite import TC, checks, needs
from harness.verdict import check_equal


class DataTransfer(RuleTable, namespace="datatransfer"):
    """Spec 001 DataTransfer moves and Errors (the UnknownVendorId and UnknownMessageId answers are
    mandatory); spec 002 DataTransferStatus and behaviour rule 10."""
    sent = must("spec 001 Events: DataTransferRequest; spec 002 Behavior rule 10",
                "the SUT sends the DataTransfer it was asked to, with the vendorId and messageId asked")
    unknown_vendor = must("spec 001 Moves: Data transfer request (vendorId unknown); Errors; spec 002 "
                          "DataTransferStatus", "a DataTransfer for an unknown vendorId is answered UnknownVendorId")
    unknown_message = must("spec 001 Moves: Data transfer request (messageId unknown); Errors; spec 002 "
                           "DataTransferStatus",
                           "a known vendorId with an unknown messageId is answered UnknownMessageId")
    accepted = must("spec 001 Moves: Data transfer request (processing succeeds); spec 002 DataTransferStatus",
                    "a DataTransfer the receiver processes is answered Accepted")
    rejected = must("spec 001 Moves: Data transfer request (processing fails); Errors; spec 002 DataTransferStatus",
                    "a DataTransfer the receiver refuses is answered Rejected")


# the four cases, each with the rule its answer is judged by
CASES: dict[str, Rule] = {"unknown_vendor": DataTransfer.unknown_vendor,
                          "unknown_message": DataTransfer.unknown_message,
                          "accepted": DataTransfer.accepted, "rejected": DataTransfer.rejected}


def cases(**certification: TC) -> list:
    """The cases as pytest params, each declaring its rules; ``certification`` (per SUT role) goes on
    the unknown vendor, the case the public test cases play."""
    return [pytest.param(name, marks=[checks(DataTransfer.sent, rule,
                                             **(certification if name == "unknown_vendor" else {})),
                                      needs(lambda given: transfer_case(given.profile, given.params["transfer"]))])
            for name, rule in CASES.items()]


@dataclass(frozen=True)
class TransferCase:
    vendor_id: str
    message_id: str | None
    expected: str
    rule: Rule


def transfer_case(profile: Profile, name: str) -> TransferCase:
    vendor = profile.get("data_transfer.vendor_id")
    if not vendor:
        raise NotApplicable("the profile declares no [data_transfer] vendor_id the SUT implements")
    if name == "unknown_vendor":
        unknown = "org.evse-conformance.unknown." + secrets.token_hex(4)
        return TransferCase(unknown, None, "UnknownVendorId", CASES[name])
    if name == "unknown_message":
        return TransferCase(vendor, "NoSuchMessage" + secrets.token_hex(4), "UnknownMessageId", CASES[name])
    if name == "accepted":
        return TransferCase(vendor, profile.get("data_transfer.message_id"), "Accepted", CASES[name])
    refused = profile.get("data_transfer.rejected_message_id")
    if not refused:
        raise NotApplicable("the profile declares no [data_transfer] rejected_message_id the SUT refuses")
    return TransferCase(vendor, refused, "Rejected", CASES[name])


async def check_transfer(arena: OcppArena, initiator: str, name: str) -> None:
    """Play one DataTransfer case from ``initiator`` and check the SUT's side of it: the request it
    sends, or the answer it gives."""
    case = transfer_case(arena.profile, name)
    payload = {"vendorId": case.vendor_id} | ({"messageId": case.message_id} if case.message_id else {})
    body = {"vendor_id": case.vendor_id} | ({"message_id": case.message_id} if case.message_id else {})
    exchange = await arena.exchange(initiator, "DataTransfer", payload, trigger=("data_transfer", body),
                                    rule=DataTransfer.sent)
    if arena.is_sut(initiator):
        sent = {"vendorId": exchange.request.get("vendorId"), "messageId": exchange.request.get("messageId")}
        check_equal(DataTransfer.sent, "DataTransferRequest (vendorId, messageId)",
                    {"vendorId": case.vendor_id, "messageId": case.message_id}, sent, same=same(arena.version))
    else:
        check_equal(case.rule, "DataTransferResponse status", case.expected, (exchange.result or {}).get("status"))
