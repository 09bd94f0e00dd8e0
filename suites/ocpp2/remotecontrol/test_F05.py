"""F05 — Remotely unlock connector: the operator has the CSMS send UnlockConnectorRequest for one connector
of one EVSE; the station answers UnknownConnector for a connector it does not have, OngoingAuthorizedTransaction
while an authorized transaction runs there, and otherwise whether its lock opened (Unlocked, UnlockFailed: a
lock that failed is a legal answer). The requirements, in our words: docs/requirements/F05.md."""

import pytest

from harness.roles import CS, CSMS
from harness.rules import RuleTable, must, should
from harness.suite import OCPP2, TC, case, checks
from harness.usecases.operations import operate
from harness.usecases.smart_charging import ChargingProfiles, charging
from harness.verdict import check_equal, check_in


class F05(RuleTable):
    """The rules of F05 (OCPP 2.0.1 part 2, F05; the same in 2.1)."""
    request = must("OCPP 2.0.1 part 2 UnlockConnectorRequest (evseId, connectorId required)",
                   "the CSMS asks to unlock exactly the EVSE and connector its operator chose", by=CSMS)
    unknown_connector = must("OCPP 2.0.1 part 2 F05.FR.03",
                             "a station answers UnknownConnector for an EVSE or connector it does not have", by=CS)
    ongoing = must("OCPP 2.0.1 part 2 F05.FR.02", "a station answers OngoingAuthorizedTransaction, and keeps "
                   "the cable locked, while an authorized transaction runs on the connector", by=CS)
    known = should("OCPP 2.0.1 part 2 UnlockStatusEnumType",
                   "a known connector without an authorized transaction is answered Unlocked or UnlockFailed", by=CS)


pytestmark = case("F05", block="Remote control", roles=("csms", "cs"), protocols=OCPP2)


async def _unlock(ocpp, evse_id: int, connector_id: int):
    """The operator's UnlockConnector, sent by the harness or triggered at the CSMS under test; the request judged."""
    exchange = await operate(ocpp, "UnlockConnector", {"evseId": evse_id, "connectorId": connector_id}, F05.request)
    return exchange.result["status"]


@checks(F05.request, F05.known, csms=TC("TC_F_06_CSMS", "ocpp2.0.1"), cs=TC("TC_F_06_CS", "ocpp2.0.1"))
async def test_unlock_without_transaction(ocpp, profile):
    """No transaction runs on the first connector of the first EVSE: Unlocked (or UnlockFailed). A station
    under test is judged only on F05.known, a SHOULD (the enumeration's other values are legal answers, not
    faults: docs/requirements/F05.md), so for it this test records a finding and cannot fail."""
    evse = profile.evses[0]
    status = await _unlock(ocpp, evse.id, evse.connectors[0])
    check_in(F05.known, "UnlockConnectorResponse status", ("Unlocked", "UnlockFailed"), status)


@pytest.mark.sut_roles("cs")
@pytest.mark.parametrize("unknown", ["connector", "evse"])
@checks(F05.unknown_connector, cs=TC("TC_F_10_CS", "ocpp2.0.1", when="connector"))
async def test_unlock_of_an_unknown_connector(ocpp, profile, unknown):
    """A connector above the EVSE's last one, or an EVSE above the station's last one: UnknownConnector."""
    evse = profile.evses[0]
    evse_id, connector_id = ((evse.id, max(evse.connectors) + 1) if unknown == "connector"
                             else (max(e.id for e in profile.evses) + 1, 1))
    status = await _unlock(ocpp, evse_id, connector_id)
    check_equal(F05.unknown_connector, f"UnlockConnectorResponse status for EVSE {evse_id} connector {connector_id}",
                "UnknownConnector", status)


@pytest.mark.requires("remote_start")
@checks(ChargingProfiles.transaction, F05.request, F05.ongoing)
async def test_unlock_during_an_authorized_transaction(ocpp, profile):
    """A transaction started remotely (so authorized) runs on the EVSE: OngoingAuthorizedTransaction."""
    evse = profile.evses[0]
    await charging(ocpp, evse.id)
    status = await _unlock(ocpp, evse.id, evse.connectors[0])
    check_equal(F05.ongoing, "UnlockConnectorResponse status during the transaction", "OngoingAuthorizedTransaction",
                status)
