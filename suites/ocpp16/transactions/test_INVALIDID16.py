"""INVALIDID16 — a transaction whose StartTransaction.conf does not accept its idTag: stopped with reason
DeAuthorized when StopTransactionOnInvalidId is true, kept (energy delivery stopped: SuspendedEVSE)
when it is false, with at most MaxEnergyOnInvalidId of energy after the refusal (spec 002 States and
transitions, "Offline-authorized transaction"; ChargePointStatus SuspendedEVSE; Reason DeAuthorized;
Behavior rules 16 and 17).

MaxEnergyOnInvalidId is read as Wh on the energy register (the unit of the register's readings; the text
names the key only). The energy after the refusal is judged from below, so that energy delivered before
the charge point had the answer is never counted: from the first sampled reading of the transaction (a
MeterValues carries the transactionId, which the charge point has only from that answer) to the highest
reading after it, the StopTransaction's meterStop included.

The text names the transaction authorized offline; a charge point under test is brought there online,
which puts it in the same position (the transaction runs when the answer comes): the harness's central
system accepts the idTag in Authorize and refuses it (Invalid) in StartTransaction.conf. A central
system under test is given a transaction its charge point started on its own with an idTag that is not
valid, and must refuse it there.
"""


import pytest

from harness.roles import CS, CSMS
from harness.ocpp.meter16 import ENERGY, readings
from harness.rules import RuleTable, must, should
from harness.suite import OCPP16, case, checks, needs
from harness.usecases.core16 import (
    Core16, configure_charge_point, connectors, id_tag_status, start, stop, tag16, tagged, transaction_id,
)
from harness.verdict import check_equal, require, violated


class INVALIDID16(RuleTable):
    """The rules of INVALIDID16."""
    stopped = must("spec 002 States and transitions (Offline-authorized transaction); Enumerations Reason",
                   "StartTransaction.conf not Accepted and StopTransactionOnInvalidId true: the transaction is stopped "
                   "with StopTransaction, reason DeAuthorized", by=CS)
    kept = must("spec 002 States and transitions (Offline-authorized transaction)",
                "StartTransaction.conf not Accepted and StopTransactionOnInvalidId false: the transaction is not "
                "stopped (only energy delivery)", by=CS)
    suspended = should("spec 002 States and transitions (SuspendedEVSE: a start answer disallowing charging)",
                       "the connector whose start answer disallows charging reports SuspendedEVSE", by=CS)
    metered = must("spec 002 Behavior rule 16; Meter values",
                   "with MeterValueSampleInterval above 0 the charge point sends the running transaction's MeterValues "
                   "every interval, the energy register (MeterValuesSampledData) among them", by=CS)
    max_energy = must("spec 002 States and transitions (Offline-authorized transaction: MaxEnergyOnInvalidId); "
                      "Behavior rule 17", "StartTransaction.conf not Accepted and StopTransactionOnInvalidId false: "
                      "the charge point delivers at most MaxEnergyOnInvalidId Wh after the refusal", by=CS)
    refused = must("spec 002 Classes IdTagInfo; Enumerations AuthorizationStatus",
                   "StartTransaction.conf gives an idTag that is not valid its status, never Accepted", by=CSMS)
    stop_answered = must("spec 002 Messages StopTransaction",
                         "the central system answers the StopTransaction of the refused transaction", by=CSMS)


pytestmark = case("INVALIDID16", block="Core (1.6)", roles=("csms", "cs"), protocols=OCPP16)


MAX_ENERGY = 300   # Wh: the MaxEnergyOnInvalidId the test sets
SAMPLE = 10        # s: MeterValueSampleInterval while the test watches the meter
WATCH = 120        # s the meter is watched after the refusal: a charge point delivering 11 kW on would pass
                   # MAX_ENERGY within it (a charge point without a drawing EV shows no energy, and passes)


async def _refused_start(ocpp, profile, stop_on_invalid: str, **keys: str):
    """StopTransactionOnInvalidId (and ``keys``) set; an idTag accepted in Authorize, refused (Invalid) in
    StartTransaction.conf."""
    await configure_charge_point(ocpp, {"StopTransactionOnInvalidId": stop_on_invalid, **keys})
    ocpp.configure(start_refused="Invalid")
    connector = connectors(profile)[0]
    started = await start(ocpp, tag16(profile, "Accepted"), connector)
    return connector, transaction_id(started), ocpp.mark_after(started)


@pytest.mark.sut_roles("cs")
@checks(Core16.authorize, Core16.start, INVALIDID16.stopped)
@needs(tagged("Accepted"))
async def test_refused_start_stops_the_transaction(ocpp, profile):
    """StopTransactionOnInvalidId true: StopTransaction with reason DeAuthorized follows the refusal."""
    _, tx_id, after = await _refused_start(ocpp, profile, "true")
    stop = await ocpp.expect("StopTransaction", sender=CS, after=after, where=lambda p: p["transactionId"] == tx_id,
                             rule=INVALIDID16.stopped)
    check_equal(INVALIDID16.stopped, "StopTransaction.req reason", "DeAuthorized", stop.request.get("reason"))


@pytest.mark.sut_roles("cs")
@checks(Core16.authorize, Core16.start, INVALIDID16.kept, INVALIDID16.suspended)
@needs(tagged("Accepted"))
async def test_refused_start_keeps_the_transaction_when_not_configured(ocpp, profile):
    """StopTransactionOnInvalidId false: no StopTransaction; the connector reports SuspendedEVSE."""
    connector, tx_id, after = await _refused_start(ocpp, profile, "false")
    await ocpp.expect_none("StopTransaction", after=after, rule=INVALIDID16.kept,
                           where=lambda p: p["transactionId"] == tx_id)
    await ocpp.expect("StatusNotification", sender=CS, after=after, rule=INVALIDID16.suspended,
                      where=lambda p: p["connectorId"] == connector and p["status"] == "SuspendedEVSE")


def _energy(meter_values: list[dict], source: str) -> list:
    """The energy register readings (Wh) of a MeterValue list."""
    return [r.wh for r in readings(meter_values, source) if r.series[0] == ENERGY]


@pytest.mark.sut_roles("cs")
@checks(Core16.authorize, Core16.start, Core16.stops, Core16.stop_answered, INVALIDID16.metered,
        INVALIDID16.max_energy)
@needs(tagged("Accepted"))
async def test_refused_start_delivers_at_most_max_energy(ocpp, profile):
    """StopTransactionOnInvalidId false, MaxEnergyOnInvalidId 300 Wh, the register sampled every 10 s: from
    the first sample on, the register grows by at most 300 Wh while the meter is watched and up to the stop."""
    token = tag16(profile, "Accepted")
    connector, tx_id, after = await _refused_start(
        ocpp, profile, "false", MaxEnergyOnInvalidId=str(MAX_ENERGY), MeterValueSampleInterval=str(SAMPLE),
        MeterValuesSampledData=ENERGY)
    of_tx = lambda p: p.get("transactionId") == tx_id
    await ocpp.expect("MeterValues", sender=CS, after=after, where=of_tx, rule=INVALIDID16.metered,
                      timeout=SAMPLE + ocpp.timeouts.action)
    await ocpp.elapse(WATCH)   # the scenario needs the energy that flows over time (free on virtual time)
    samples = [e.request for e in ocpp.sent("MeterValues", sender=CS, after=after, where=of_tx)]
    energy = _energy([value for sample in samples for value in sample["meterValue"]], "MeterValues")
    require(energy, INVALIDID16.metered, "the MeterValues of the transaction carry no energy register reading",
            expected=ENERGY, actual=samples[:1])
    stopped = (await stop(ocpp, token, connector)).request
    final = max([*energy, *_energy(stopped.get("transactionData", []), "StopTransaction"), stopped["meterStop"]])
    if final - energy[0] > MAX_ENERGY:
        violated(INVALIDID16.max_energy, f"the register grew by {final - energy[0]} Wh after the refusal",
                 expected=f"<= {MAX_ENERGY} Wh (MaxEnergyOnInvalidId)", actual=f"{energy[0]} -> {final} Wh")


@pytest.mark.sut_roles("csms")
@pytest.mark.parametrize("status", ["Invalid", "Blocked", "Expired"])
@checks(INVALIDID16.refused, INVALIDID16.stop_answered)
@needs(lambda given: tag16(given.profile, given.params["status"]))
async def test_start_with_a_tag_that_is_not_valid_is_refused(ocpp, profile, status):
    """The charge point started on its own with an idTag that is not valid: StartTransaction.conf gives its
    status; the charge point then stops (DeAuthorized), and the StopTransaction is answered."""
    token, connector = tag16(profile, status), connectors(profile)[0]
    mark = ocpp.mark()
    await ocpp.act(CS, "start_locally_authorized", id_tag=token.id, connector_id=connector)
    started = await ocpp.expect("StartTransaction", sender=CS, after=mark,
                                where=lambda p: p["connectorId"] == connector)
    check_equal(INVALIDID16.refused, f"StartTransaction.conf idTagInfo.status for the {token.name} idTag", status,
                id_tag_status(started))
    stop = await ocpp.expect("StopTransaction", sender=CS, after=mark,
                             where=lambda p: p["transactionId"] == transaction_id(started))
    require(stop.error is None, INVALIDID16.stop_answered, "the StopTransaction was refused",
            expected="StopTransaction.conf", actual=stop.error)
