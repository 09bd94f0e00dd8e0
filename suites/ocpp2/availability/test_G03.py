"""G03 — Change availability of an EVSE or a connector: the operator has the CSMS make one EVSE (one connector)
Inoperative or Operative (ChangeAvailabilityRequest with ``evse``); the station answers Accepted and reports the
connectors concerned Unavailable (Available again). During a transaction on the EVSE an Inoperative change is
Scheduled: the transaction goes on, and the connector reports Unavailable once it ended. The requirements, in our
words: docs/requirements/availability.md.

Readings chosen where the texts are silent: Rejected is a legal answer (not applicable); G03's requirement
numbering could not be checked, so the station's answers and reports are SHOULD rows, the CSMS's request a MUST
(it sends what it was asked, as every operation here); an EVSE the station does not have is not Accepted."""

import pytest

from harness.roles import CS, CSMS
from harness.rules import RuleTable, must, should
from harness.suite import OCPP2, TC, case, checks
from harness.usecases.availability import Availability, OperatorStop, already_operative, change, reported, stop
from harness.usecases.remote_control import start_refused
from harness.usecases.smart_charging import ChargingProfiles, charging
from harness.verdict import check_equal, check_in


class G03(RuleTable):
    """The rules of G03 (OCPP 2.0.1 part 2, G03; the same in 2.1)."""
    scheduled = should("OCPP 2.0.1 part 2 ChangeAvailabilityStatusEnumType (Scheduled)", "Inoperative for an EVSE "
                       "where a transaction runs is Scheduled; the connector reports Unavailable once it ended", by=CS)
    unknown = should("OCPP 2.0.1 part 2 ChangeAvailabilityStatusEnumType (Rejected)",
                     "a change of an EVSE the station does not have is Rejected", by=CS)
    already = should("OCPP 2.0.1 part 2 G03; ChangeAvailabilityStatusEnumType (Accepted)",
                     "a change to the state the EVSE is already in is Accepted, and its connectors report no "
                     "other status", by=CS)
    start_request = must("OCPP 2.0.1 part 2 RequestStartTransactionRequest (evseId, idToken, remoteStartId)",
                         "the CSMS sends the remote start for the EVSE its operator chose", by=CSMS)
    no_start = should("OCPP 2.0.1 part 2 G03 (Inoperative: not available for charging); spec 001 Remote start "
                      "rule 2 (Rejected, for example for an unavailable EVSE)",
                      "an EVSE made Inoperative starts no transaction: a remote start on it is Rejected", by=CS)


pytestmark = case("G03", block="Availability", roles=("csms", "cs"), protocols=OCPP2)


async def _there_and_back(ocpp, evse_id: int, connectors: list[int], target: dict) -> None:
    for status, shown in (("Inoperative", "Unavailable"), ("Operative", "Available")):
        mark = ocpp.mark()
        exchange = await change(ocpp, status, target)
        check_equal(Availability.accepted, f"ChangeAvailabilityResponse status to {status}", "Accepted",
                    exchange.result["status"])
        for connector in connectors:
            await reported(ocpp, evse_id, connector, shown, mark)


@checks(Availability.request, Availability.accepted, Availability.reported, Availability.status_answered,
        csms=(TC("TC_G_03_CSMS", "ocpp2.0.1"), TC("TC_G_04_CSMS", "ocpp2.0.1")))
async def test_evse_made_inoperative_and_operative(ocpp, profile):
    """The first EVSE Inoperative: Accepted, its connectors Unavailable; Operative again: Available."""
    evse = profile.evses[0]
    await _there_and_back(ocpp, evse.id, list(evse.connectors), {"id": evse.id})


@checks(Availability.request, Availability.accepted, Availability.reported, Availability.status_answered,
        csms=(TC("TC_G_07_CSMS", "ocpp2.0.1"), TC("TC_G_08_CSMS", "ocpp2.0.1")))
async def test_connector_made_inoperative_and_operative(ocpp, profile):
    """The first connector of the first EVSE Inoperative: Accepted, Unavailable; Operative again: Available."""
    evse = profile.evses[0]
    connector = evse.connectors[0]
    await _there_and_back(ocpp, evse.id, [connector], {"id": evse.id, "connectorId": connector})


@pytest.mark.requires("remote_start")
@checks(ChargingProfiles.transaction, Availability.request, G03.scheduled, OperatorStop.sent,
        Availability.status_answered,
        csms=TC("TC_G_11_CSMS", "ocpp2.0.1"))
async def test_evse_with_a_transaction_is_scheduled(ocpp, profile):
    """Inoperative during a transaction on the EVSE: Scheduled, the transaction runs on; once the operator
    stopped it, the connector reports Unavailable."""
    evse = profile.evses[0]
    transaction_id = await charging(ocpp, evse.id)
    mark = ocpp.mark()
    exchange = await change(ocpp, "Inoperative", {"id": evse.id})
    check_equal(G03.scheduled, "ChangeAvailabilityResponse status during a transaction", "Scheduled",
                exchange.result["status"])
    await ocpp.expect_none("TransactionEvent", after=mark, rule=G03.scheduled,
                           where=lambda p: p["eventType"] == "Ended")
    stopped = ocpp.mark()
    await stop(ocpp, transaction_id)
    await reported(ocpp, evse.id, evse.connectors[0], "Unavailable", stopped, G03.scheduled)


@pytest.mark.sut_roles("cs")
@checks(Availability.request, G03.unknown)
async def test_unknown_evse_is_rejected(ocpp, profile):
    """Inoperative for an EVSE above the station's last one: Rejected."""
    unknown = max(e.id for e in profile.evses) + 1
    exchange = await ocpp.exchange(CSMS, "ChangeAvailability", {"operationalStatus": "Inoperative",
                                                                "evse": {"id": unknown}}, rule=Availability.request)
    check_in(G03.unknown, f"ChangeAvailabilityResponse status for EVSE {unknown}", ("Rejected",),
             exchange.result["status"])


@pytest.mark.requires("remote_start")
@checks(Availability.request, Availability.accepted, G03.start_request, G03.no_start)
async def test_inoperative_evse_refuses_a_remote_start(ocpp, profile):
    """The first EVSE Inoperative (Accepted): a remote start on it is Rejected."""
    evse = profile.evses[0].id
    exchange = await change(ocpp, "Inoperative", {"id": evse})
    check_equal(Availability.accepted, "ChangeAvailabilityResponse status to Inoperative", "Accepted",
                exchange.result["status"])
    await start_refused(ocpp, evse, G03.start_request, G03.no_start)


@checks(Availability.request, G03.already, Availability.status_answered)
async def test_operative_evse_made_operative(ocpp, profile):
    """Operative for the first EVSE, operative already: Accepted, and no connector of it reports Unavailable."""
    await already_operative(ocpp, {"id": profile.evses[0].id}, G03.already)
