"""DataTransfer faults (P02)."""

from __future__ import annotations

from harness.reference import ReferenceCsms

from .records import Fault, csms_test


class CsmsRejectsUnknownVendor(ReferenceCsms):
    """DataTransfer: an unknown vendorId is answered Rejected instead of UnknownVendorId."""

    def on_DataTransfer(self, session, payload):
        answer = super().on_DataTransfer(session, payload)
        return {"status": "Rejected"} if answer["status"] == "UnknownVendorId" else answer


P02 = "datatransfer/test_P02.py"


FAULTS: tuple[Fault, ...] = (
    Fault("csms-rejects-unknown-vendor", "datatransfer.unknown_vendor",
          CsmsRejectsUnknownVendor, (csms_test(P02, "test_data_transfer_to_csms", "unknown_vendor"),),
          "DataTransferResponse status is wrong"),
)
