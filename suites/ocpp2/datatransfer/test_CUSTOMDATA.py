"""CUSTOMDATA — a CSMS receives customData (TC_P_03_CSMS: no use case of its own, P is the block). Every
2.x message may carry customData, an object with a vendorId and any further properties the schemas allow
(spec 001 Versioning: "an optional customData element that allows extra properties on standard types exists
in all schemas"); a CSMS that does not know the vendor ignores it and answers the message as it would without
it. The station's side (answering a CSMS's customData) is every other use case's: the harness's CSMS sends
none, so only the CSMS role is played here."""

import secrets

from harness import clock
from harness.roles import CS, CSMS
from harness.rules import RuleTable, must
from harness.smartcharging.wire import iso
from harness.suite import OCPP2, TC, case, checks
from harness.verdict import require


class CUSTOMDATA(RuleTable):
    """The rule of CUSTOMDATA (spec 001 Versioning; Endpoints)."""
    answered = must("spec 001 Versioning (customData exists in all schemas); Endpoints: Messages from the CS that "
                    "the CSMS must answer (TransactionEventRequest)", "the CSMS answers a StatusNotification and a "
                    "TransactionEvent that carry customData (at the top and in transactionInfo) with their responses, "
                    "as it answers them without", by=CSMS)


pytestmark = case("CUSTOMDATA", block="Data transfer", roles=("csms",), protocols=OCPP2)

CUSTOM = {"vendorId": "org.example.conformance", "note": "ignore me", "sequence": 1}


def _status(evse_id: int, connector_id: int, status: str) -> dict:
    return {"timestamp": iso(clock.utcnow()), "connectorStatus": status, "evseId": evse_id,
            "connectorId": connector_id, "customData": CUSTOM}


def _event(kind: str, transaction_id: str, seq_no: int, evse_id: int, connector_id: int) -> dict:
    started = kind == "Started"
    info = {"transactionId": transaction_id, "customData": CUSTOM} | (
        {"chargingState": "EVConnected"} if started else {"stoppedReason": "EVDisconnected"})
    return {"eventType": kind, "timestamp": iso(clock.utcnow()), "seqNo": seq_no,
            "triggerReason": "CablePluggedIn" if started else "EVCommunicationLost", "transactionInfo": info,
            "evse": {"id": evse_id, "connectorId": connector_id}, "customData": CUSTOM}


@checks(CUSTOMDATA.answered, csms=TC("TC_P_03_CSMS", "ocpp2.0.1"))
async def test_custom_data_is_received(ocpp, profile):
    """The station plugs in, reporting Occupied, and a transaction starts (no token yet) and ends as the EV
    leaves, then Available: every message with customData, the events also in transactionInfo. Each is answered
    with its response (an empty TransactionEventResponse: no token was carried); the texts ask nothing more."""
    evse = profile.evses[0]
    connector = evse.connectors[0]
    transaction_id = f"CD-{secrets.token_hex(8)}"
    for action, payload in (("StatusNotification", _status(evse.id, connector, "Occupied")),
                            ("TransactionEvent", _event("Started", transaction_id, 0, evse.id, connector)),
                            ("TransactionEvent", _event("Ended", transaction_id, 1, evse.id, connector)),
                            ("StatusNotification", _status(evse.id, connector, "Available"))):
        what = f"{action} {payload.get('eventType') or payload['connectorStatus']} with customData"
        answered = await ocpp.exchange(CS, action, payload)
        require(answered.error is None, CUSTOMDATA.answered, f"the {what} was refused",
                expected=f"{action}Response", actual=answered.error)
