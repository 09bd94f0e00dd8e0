"""G04 — Change availability of the charging station: the operator has the CSMS make the whole station
Inoperative or Operative (ChangeAvailabilityRequest without ``evse``); the station answers Accepted and every
connector reports Unavailable (Available again). During a transaction the change is Scheduled; the free
connectors may change at once. The requirements, in our words: docs/requirements/availability.md.

Readings chosen where the texts are silent: as in G03 (Rejected not applicable; the station's rows SHOULD);
during a transaction only the answer Scheduled and the transaction going on are judged."""

import pytest

from harness.rules import RuleTable, must, should
from harness.roles import CS, CSMS
from harness.suite import OCPP2, TC, case, checks
from harness.usecases.availability import Availability, already_operative, change, reported
from harness.usecases.remote_control import start_refused
from harness.usecases.smart_charging import ChargingProfiles, charging
from harness.verdict import check_equal


class G04(RuleTable):
    """The rules of G04 (OCPP 2.0.1 part 2, G04; the same in 2.1)."""
    scheduled = should("OCPP 2.0.1 part 2 ChangeAvailabilityStatusEnumType (Scheduled)", "Inoperative for the "
                       "station while a transaction runs is Scheduled, and the transaction goes on", by=CS)
    already = should("OCPP 2.0.1 part 2 G04; ChangeAvailabilityStatusEnumType (Accepted)",
                     "Operative for a station already operative is Accepted, and no connector reports another "
                     "status", by=CS)
    start_request = must("OCPP 2.0.1 part 2 RequestStartTransactionRequest (evseId, idToken, remoteStartId)",
                         "the CSMS sends the remote start for the EVSE its operator chose", by=CSMS)
    no_start = should("OCPP 2.0.1 part 2 G04 (Inoperative: not available for charging); spec 001 Remote start "
                      "rule 2 (Rejected, for example for an unavailable EVSE)",
                      "a station made Inoperative starts no transaction: a remote start on an EVSE is Rejected",
                      by=CS)


pytestmark = case("G04", block="Availability", roles=("csms", "cs"), protocols=OCPP2)


@checks(Availability.request, Availability.accepted, Availability.reported, Availability.status_answered,
        csms=(TC("TC_G_05_CSMS", "ocpp2.0.1"), TC("TC_G_06_CSMS", "ocpp2.0.1")))
async def test_station_made_inoperative_and_operative(ocpp, profile):
    """The station Inoperative: Accepted, every connector Unavailable; Operative again: every one Available."""
    for status, shown in (("Inoperative", "Unavailable"), ("Operative", "Available")):
        mark = ocpp.mark()
        exchange = await change(ocpp, status)
        check_equal(Availability.accepted, f"ChangeAvailabilityResponse status to {status}", "Accepted",
                    exchange.result["status"])
        for evse in profile.evses:
            for connector in evse.connectors:
                await reported(ocpp, evse.id, connector, shown, mark)


@pytest.mark.requires("remote_start")
@checks(ChargingProfiles.transaction, Availability.request, G04.scheduled, csms=TC("TC_G_14_CSMS", "ocpp2.0.1"))
async def test_station_with_a_transaction_is_scheduled(ocpp, profile):
    """Inoperative during a transaction: Scheduled; the transaction is not ended by it."""
    await charging(ocpp, profile.evses[0].id)
    mark = ocpp.mark()
    exchange = await change(ocpp, "Inoperative")
    check_equal(G04.scheduled, "ChangeAvailabilityResponse status during a transaction", "Scheduled",
                exchange.result["status"])
    await ocpp.expect_none("TransactionEvent", after=mark, rule=G04.scheduled,
                           where=lambda p: p["eventType"] == "Ended")


@pytest.mark.requires("remote_start")
@checks(Availability.request, Availability.accepted, G04.start_request, G04.no_start)
async def test_inoperative_station_refuses_a_remote_start(ocpp, profile):
    """The station Inoperative (Accepted): a remote start on its first EVSE is Rejected."""
    exchange = await change(ocpp, "Inoperative")
    check_equal(Availability.accepted, "ChangeAvailabilityResponse status to Inoperative", "Accepted",
                exchange.result["status"])
    await start_refused(ocpp, profile.evses[0].id, G04.start_request, G04.no_start)


@checks(Availability.request, G04.already)
async def test_operative_station_made_operative(ocpp):
    """Operative for the station, operative already: Accepted, and no connector reports Unavailable."""
    await already_operative(ocpp, None, G04.already)
