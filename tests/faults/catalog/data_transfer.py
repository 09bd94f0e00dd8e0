"""DataTransfer faults (P02) and customData (TC_P_03)."""

from __future__ import annotations

from harness.reference import ReferenceCsms
from harness.transport.ws import CallErrorReply

from .records import Fault, csms_test


class CsmsRejectsUnknownVendor(ReferenceCsms):
    """DataTransfer: an unknown vendorId is answered Rejected instead of UnknownVendorId."""

    def on_DataTransfer(self, session, payload):
        answer = super().on_DataTransfer(session, payload)
        return {"status": "Rejected"} if answer["status"] == "UnknownVendorId" else answer


class CsmsRefusesCustomData(ReferenceCsms):
    """customData (spec 001 Versioning): a TransactionEvent that carries customData is refused with a CALLERROR
    FormatViolation, as if the property were not allowed."""

    def on_TransactionEvent(self, session, payload):
        if "customData" in payload:
            raise CallErrorReply("FormatViolation", "unexpected property customData")
        return super().on_TransactionEvent(session, payload)


P02, CUSTOMDATA = "datatransfer/test_P02.py", "datatransfer/test_CUSTOMDATA.py"


FAULTS: tuple[Fault, ...] = (
    Fault("csms-rejects-unknown-vendor", "datatransfer.unknown_vendor",
          CsmsRejectsUnknownVendor, (csms_test(P02, "test_data_transfer_to_csms", "unknown_vendor"),),
          "DataTransferResponse status is wrong"),
    Fault("csms-refuses-custom-data", "CUSTOMDATA.answered", CsmsRefusesCustomData,
          (csms_test(CUSTOMDATA, "test_custom_data_is_received"),), "with customData was refused"),
)
