"""Display message faults (O01): what the CSMS sends, what the station answers."""

from __future__ import annotations

from harness.reference import ReferenceCsms, ReferenceStation

from .records import Fault, cs_test, csms_test

O01 = "displaymessage/test_O01.py"


class CsmsTiesDisplayMessagesToATransaction(ReferenceCsms):
    """O01.FR.04: a message outside any transaction goes out with a transactionId."""

    async def act_set_display_message(self, message, station=None):
        self.send(station, "SetDisplayMessage", {"message": message | {"transactionId": "TX-1"}})


class StationRejectsDisplayMessages(ReferenceStation):
    """O01: every message is answered Rejected, though the station has a display."""

    def on_SetDisplayMessage(self, session, payload):
        return {"status": "Rejected"}


FAULTS: tuple[Fault, ...] = (
    Fault("csms-ties-display-messages-to-a-transaction", "O01.request", CsmsTiesDisplayMessagesToATransaction,
          (csms_test(O01, "test_display_message_is_set"),), "SetDisplayMessageRequest"),
    Fault("station-rejects-display-messages", "O01.shown", StationRejectsDisplayMessages,
          (cs_test(O01, "test_display_message_is_set"),), "SetDisplayMessageResponse status is wrong",
          verdict="finding"),
)
