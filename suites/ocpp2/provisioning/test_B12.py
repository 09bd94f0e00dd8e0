"""B12 — Reset with an ongoing transaction: the operator has the CSMS reset the station (or the EVSE) while a
transaction runs there. OnIdle: the station answers Scheduled, the transaction goes on until it ends as any
other, and only then the station restarts (boot reason ScheduledReset); Immediate: Accepted, the transaction
ends (stoppedReason ImmediateReset) and the station restarts (RemoteReset). The requirements, in our words:
docs/requirements/provisioning.md.

Readings chosen where the texts are silent: the transaction of an Immediate reset may end before the restart
or be reported after it (both connections are read); Rejected is a legal answer to Immediate, and to any reset
of a single EVSE (a station need not reset EVSEs one by one: not applicable);
the stoppedReason ImmediateReset is the enumeration's value for it (SHOULD)."""

import pytest

from harness.errors import NotApplicable

from harness.arena.ocpp_sides import Restart
from harness.roles import CS, CSMS
from harness.rules import RuleTable, must, should
from harness.suite import OCPP2, TC, case, checks
from harness.usecases.availability import OperatorStop, stop
from harness.usecases.reset import Resets, accepted, rebooted, reset
from harness.usecases.smart_charging import ChargingProfiles, charging
from harness.usecases.transactions import check_answers
from harness.verdict import check_equal, require



class B12(RuleTable):
    """The rules of B12 (OCPP 2.0.1 part 2, B12; the same in 2.1)."""
    scheduled = must("OCPP 2.0.1 part 2 B12.FR.01", "a Reset OnIdle while a transaction runs on the station (the "
                     "EVSE) is answered Scheduled", by=CS)
    waits = must("OCPP 2.0.1 part 2 B12.FR.03, B12.FR.07", "after a Scheduled reset the transaction ends "
                 "normally before the restart: the reset neither ends it nor restarts the station while it runs",
                 by=CS)
    immediate = should("OCPP 2.0.1 part 2 ReasonEnumType (ImmediateReset); TriggerReasonEnumType (ResetCommand)",
                       "an Immediate reset ends the running transaction with stoppedReason ImmediateReset", by=CS)


pytestmark = case("B12", block="Provisioning", roles=("csms", "cs"), protocols=OCPP2, requires=["remote_start"])


async def _stopped(ocpp, transaction_id: str):
    """The operator stops the transaction; its TransactionEvent Ended awaited."""
    mark = ocpp.mark()
    await stop(ocpp, transaction_id)
    return await ocpp.expect("TransactionEvent", sender=CS, after=mark, rule=B12.waits,
                             where=lambda p: p["eventType"] == "Ended"
                             and p["transactionInfo"]["transactionId"] == transaction_id)


@pytest.mark.parametrize("whole", ["station", "evse"])
@checks(ChargingProfiles.transaction, Resets.request, B12.scheduled, B12.waits, OperatorStop.sent, Restart.boots,
        Resets.boot_answered, Resets.reason,
        csms=(TC("TC_B_21_CSMS", "ocpp2.0.1", when="station"), TC("TC_B_26_CSMS", "ocpp2.0.1", when="evse")))
async def test_reset_on_idle_waits_for_the_transaction(ocpp, profile, whole):
    """OnIdle during a transaction: Scheduled; the transaction runs on (no Ended, no new connection) until the
    operator stops it; then the station restarts with ScheduledReset (a station reset only)."""
    evse = profile.evses[0].id
    transaction_id = await charging(ocpp, evse)
    connections, mark = ocpp.connections(), ocpp.mark()
    exchange = await reset(ocpp, "OnIdle", None if whole == "station" else evse)
    if whole == "evse" and exchange.result["status"] == "Rejected":
        raise NotApplicable("the station does not reset a single EVSE (Reset with evseId Rejected)")
    check_equal(B12.scheduled, "ResetResponse status during a transaction", "Scheduled", exchange.result["status"])
    await ocpp.expect_none("TransactionEvent", after=mark, rule=B12.waits,
                           where=lambda p: p["eventType"] == "Ended")
    require(ocpp.connections() == connections, B12.waits, "the station restarted while its transaction ran",
            expected=f"{connections} connection(s)", actual=ocpp.connections())
    await _stopped(ocpp, transaction_id)
    if whole == "station":
        await rebooted(ocpp, connections, "ScheduledReset")


@pytest.mark.parametrize("whole", ["station", "evse"])
@checks(ChargingProfiles.transaction, Resets.request, B12.immediate, Restart.boots, Resets.boot_answered,
        Resets.reason, csms=(TC("TC_B_22_CSMS", "ocpp2.0.1", when="station"),
                             TC("TC_B_27_CSMS", "ocpp2.0.1", when="evse")))
async def test_immediate_reset_ends_the_transaction(ocpp, profile, whole):
    """Immediate during a transaction: Accepted; the transaction ends with ImmediateReset (before the restart or
    reported after it); the station restarts with RemoteReset (a station reset only)."""
    evse = profile.evses[0].id
    transaction_id = await charging(ocpp, evse)
    connections, mark, link = ocpp.connections(), ocpp.mark(), ocpp.link_number()
    accepted(await reset(ocpp, "Immediate", None if whole == "station" else evse), "Accepted", B12.immediate)
    def ends(p: dict) -> bool:
        return p["eventType"] == "Ended" and p["transactionInfo"]["transactionId"] == transaction_id

    if whole == "station":
        if ocpp.is_sut(CSMS):   # the harness's station restarts once its Ended event is delivered: refused, it waits
            async with ocpp.prerequisite("delivery of the Ended event before the restart", owner="E01"):
                check_answers(ocpp, [await ocpp.expect("TransactionEvent", sender=CS, after=mark, where=ends)])
        await rebooted(ocpp, connections, "RemoteReset")   # the Ended event: on the link it left, or after the boot
        ended = ocpp.sent("TransactionEvent", sender=CS, after=mark, on=link, where=ends) or [
            await ocpp.expect("TransactionEvent", sender=CS, after=0, rule=B12.immediate, where=ends)]
    else:
        ended = [await ocpp.expect("TransactionEvent", sender=CS, after=mark, rule=B12.immediate, where=ends)]
    if ended[0] is None:   # no Ended event: B12.immediate's finding says so, there is no stoppedReason to read
        return
    check_equal(B12.immediate, "stoppedReason of the transaction an Immediate reset ended", "ImmediateReset",
                ended[0].request["transactionInfo"].get("stoppedReason"))
