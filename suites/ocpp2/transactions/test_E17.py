"""E17 (OCPP 2.1) — Resuming a transaction after an interruption: the power of a charging station fails while a
transaction runs and comes back; the station boots (reason PowerUp) and, when TxCtrlr.ResumptionTimeout allows it
(above 0 and not outlasted by the outage), resumes the transaction: a TransactionEvent Updated of the same
transactionId with triggerReason TxResumed, chargingState Charging when TxCtrlr.AllowEnergyTransferResumption is
true (energy flows again), SuspendedEVSE when false. With a timeout of 0, or one the outage outlasted, the station
ends the transaction instead: Ended, triggerReason AbnormalCondition, stoppedReason PowerLoss. The CSMS answers
each of these events. The power loss is the station's actuator action ``power_loss`` (``off_for`` seconds).
The requirements, in our words: docs/requirements/E.md.

Readings chosen where the texts are silent: E17's requirement texts (E17.FR.01-15) could not be checked; what the
station does is read from the public 2.1 test-case list (TC_E_112_CS-TC_E_116_CS: their names and expected
messages) and is SHOULD (a finding); stoppedReason Reboot passes beside PowerLoss (TC_E_115 accepts both). A station
that refuses the TxCtrlr variables (a 2.1 station without resumption) is not applicable. No public listing this
harness reads labels the 2.1 cases: no certification id."""

import pytest

from harness.roles import CS, CSMS
from harness.rules import RuleTable, must, should
from harness.suite import case, checks
from harness.usecases.authorization import station_variable
from harness.usecases.reset import rebooted
from harness.usecases.transactions import Transaction, local_start, of, transaction_id
from harness.verdict import check_equal, check_in, require

RESUMPTION = "ResumptionTimeout", "AllowEnergyTransferResumption"


class E17(RuleTable):
    """The rules of E17 (OCPP 2.1 part 2 E17; the public 2.1 test cases TC_E_112_CS to TC_E_116_CS)."""
    powered_up = should("OCPP 2.1 part 2 BootReasonEnumType (PowerUp)",
                        "a station back from a power loss boots with reason PowerUp", by=CS)
    resumed = should("OCPP 2.1 part 2 E17 (texts not checked); TC_E_112_CS, TC_E_113_CS; TriggerReasonEnumType "
                     "TxResumed", "within TxCtrlr.ResumptionTimeout, the station back from a power loss resumes the "
                     "transaction: Updated, the same transactionId, triggerReason TxResumed", by=CS)
    energy = should("OCPP 2.1 part 2 E17 (TxCtrlr.AllowEnergyTransferResumption); TC_E_112_CS, TC_E_113_CS",
                    "the resumed transaction's chargingState is Charging when AllowEnergyTransferResumption is "
                    "true, SuspendedEVSE when it is false", by=CS)
    kept = should("OCPP 2.1 part 2 E17 (resuming, not ending)", "a resumed transaction is not ended: no "
                  "TransactionEvent Ended for it", by=CS)
    ended = should("OCPP 2.1 part 2 E17 (texts not checked); TC_E_115_CS, TC_E_116_CS",
                   "with TxCtrlr.ResumptionTimeout 0, or outlasted by the outage, the station ends the transaction "
                   "once back: Ended, triggerReason AbnormalCondition, stoppedReason PowerLoss", by=CS)
    answered = must("OCPP 2.1 part 2 TransactionEventResponse; RPC framework (every CALL answered)",
                    "the CSMS answers the event that resumes or ends the interrupted transaction", by=CSMS)


pytestmark = case("E17", block="Transactions", roles=("csms", "cs"), protocols=("ocpp2.1",))


async def _interrupted(ocpp, profile, timeout: int, energy: bool, off_for: float) -> str:
    """A driver's transaction on the first EVSE, TxCtrlr.ResumptionTimeout ``timeout`` and
    AllowEnergyTransferResumption ``energy`` set, then the power off for ``off_for`` seconds and the station back:
    its transactionId (what follows is read on the station's new connection: after=0)."""
    for name, value in zip(RESUMPTION, (str(timeout), "true" if energy else "false")):
        await station_variable(ocpp, "TxCtrlr", name, value)
    _, started = await local_start(ocpp, profile.evses[0].id, Transaction.started)
    tx = transaction_id(started)
    connections = ocpp.connections()
    await ocpp.act(CS, "power_loss", off_for=off_for)
    await rebooted(ocpp, connections, "PowerUp", E17.powered_up, after="the power loss")
    return tx


def _answered(ocpp, event) -> None:
    if event is not None and ocpp.is_sut(CSMS):
        require(event.error is None, E17.answered, "the CSMS answered the interrupted transaction's event with a "
                "CALLERROR", expected="TransactionEventResponse", actual=event.error)


@pytest.mark.parametrize("energy", [True, False], ids=["energy", "no-energy"])
@checks(Transaction.started, E17.powered_up, E17.resumed, E17.energy, E17.kept, E17.answered)
async def test_power_loss_within_the_timeout_resumes(ocpp, profile, energy):
    """ResumptionTimeout 600 s, a short outage: the same transaction resumed (TxResumed), Charging or SuspendedEVSE
    as AllowEnergyTransferResumption says, and not ended."""
    tx = await _interrupted(ocpp, profile, 600, energy, 0)
    resumed = await ocpp.expect("TransactionEvent", sender=CS, after=0, rule=E17.resumed,
                                where=lambda p: of(tx)(p) and p["triggerReason"] == "TxResumed")
    ended = ocpp.sent("TransactionEvent", sender=CS, after=0, where=of(tx, "Ended"))
    require(not ended, E17.kept, "the station ended the transaction it was to resume", expected=f"{tx} running",
            actual=[e.request for e in ended])
    if resumed is None:   # silence is a finding (SHOULD)
        return
    check_equal(E17.resumed, "eventType of the resumed transaction's event", "Updated", resumed.request["eventType"])
    check_equal(E17.energy, "chargingState of the resumed transaction", "Charging" if energy else "SuspendedEVSE",
                resumed.request["transactionInfo"].get("chargingState"))
    _answered(ocpp, resumed)


@pytest.mark.parametrize("timeout, off_for", [(0, 0), (2, 4)], ids=["timeout-0", "timeout-expired"])
@checks(Transaction.started, E17.powered_up, E17.ended, E17.answered)
async def test_power_loss_past_the_timeout_ends(ocpp, profile, timeout, off_for):
    """ResumptionTimeout 0, or 2 s and an outage of 4 s: the transaction is ended once the station is back (Ended,
    AbnormalCondition, PowerLoss), not resumed."""
    tx = await _interrupted(ocpp, profile, timeout, True, off_for)
    ended = await ocpp.expect("TransactionEvent", sender=CS, after=0, rule=E17.ended, where=of(tx, "Ended"))
    resumed = ocpp.sent("TransactionEvent", sender=CS, after=0,
                        where=lambda p: of(tx)(p) and p["triggerReason"] == "TxResumed")
    require(not resumed, E17.ended, "the station resumed a transaction its ResumptionTimeout did not let it resume",
            expected="TransactionEvent Ended", actual=[e.request for e in resumed])
    if ended is None:   # silence is a finding (SHOULD)
        return
    check_equal(E17.ended, "triggerReason of the interrupted transaction's end", "AbnormalCondition",
                ended.request["triggerReason"])
    check_in(E17.ended, "stoppedReason of the interrupted transaction's end", ("PowerLoss", "Reboot"),
             ended.request["transactionInfo"].get("stoppedReason"))
    _answered(ocpp, ended)
