"""O01 — Set DisplayMessage: the operator has the CSMS send a message for the station's display
(SetDisplayMessageRequest, which spec 001 lists among the messages a CSMS sends; its shape is the 2.x
schema's); the station answers whether it will show it. The requirements, in our words:
docs/requirements/O01.md.

A message outside any transaction goes without transactionId (O01.FR.04): the CSMS under test is asked for
one without it and must send exactly what it was asked. The station's answer has only a SHOULD row (the
status values describe what the station can show; no SHALL we could verify makes Accepted due), so a station
under test records a finding at most; a station without a display answers NotImplemented or NotSupported and
the test does not apply to it.
"""

from harness.roles import CS, CSMS
from harness.rules import RuleTable, must, should
from harness.suite import OCPP2, TC, case, checks
from harness.usecases.operations import operate
from harness.verdict import check_equal


class O01(RuleTable):
    """The rules of O01 (spec 001 Messages sent by the CSMS; OCPP 2.0.1 part 2, O01)."""
    request = must("spec 001 Messages sent by the CSMS (SetDisplayMessageRequest); OCPP 2.0.1 part 2 "
                   "SetDisplayMessageRequest (message required), O01.FR.04 (no transactionId outside a transaction)",
                   "the CSMS sends the message its operator set, exactly, without transactionId", by=CSMS)
    shown = should("OCPP 2.0.1 part 2 DisplayMessageStatusEnumType (Accepted: the station will show the message)",
                   "a station with a display answers a plain UTF8 message of priority NormalCycle Accepted", by=CS)


pytestmark = case("O01", block="Display message", roles=("csms", "cs"), protocols=OCPP2,
                  requires=["display_messages"])

# a message of the most common kind, for no transaction: shown while the station is idle, in the normal cycle
MESSAGE = {"id": 4201, "priority": "NormalCycle", "state": "Idle",
           "message": {"format": "UTF8", "language": "en", "content": "Welcome: charging is free on Sundays."}}


@checks(O01.request, O01.shown, csms=TC("TC_O_01_CSMS", "ocpp2.0.1"))
async def test_display_message_is_set(ocpp, profile):
    """The operator's message goes to the station as set; a station under test answers Accepted (a SHOULD)."""
    exchange = await operate(ocpp, "SetDisplayMessage", {"message": MESSAGE}, O01.request)
    if ocpp.is_sut(CS):
        check_equal(O01.shown, "SetDisplayMessageResponse status", "Accepted", exchange.result["status"])
