"""Remote control faults (F05)."""

from __future__ import annotations

from harness.reference import ReferenceStation

from .records import Fault, cs_test


class StationUnlocksUnknownConnectors(ReferenceStation):
    """UnlockConnector: a connector the station does not have is answered Unlocked, not UnknownConnector."""

    def on_UnlockConnector(self, session, payload):
        answer = super().on_UnlockConnector(session, payload)
        return {"status": "Unlocked"} if answer["status"] == "UnknownConnector" else answer


class StationUnlocksDuringTransactions(ReferenceStation):
    """UnlockConnector: the cable is unlocked while an authorized transaction runs on it."""

    def on_UnlockConnector(self, session, payload):
        answer = super().on_UnlockConnector(session, payload)
        return {"status": "Unlocked"} if answer["status"] == "OngoingAuthorizedTransaction" else answer


F05 = "remotecontrol/test_F05.py"


FAULTS: tuple[Fault, ...] = (
    Fault("F05-station-unlocks-unknown-connectors", "F05.unknown_connector", StationUnlocksUnknownConnectors,
          (cs_test(F05, "test_unlock_of_an_unknown_connector", "connector"),
           cs_test(F05, "test_unlock_of_an_unknown_connector", "evse")), "UnlockConnectorResponse status for EVSE"),
    Fault("F05-station-unlocks-during-transactions", "F05.ongoing", StationUnlocksDuringTransactions,
          (cs_test(F05, "test_unlock_during_an_authorized_transaction"),),
          "UnlockConnectorResponse status during the transaction is wrong"),
)
