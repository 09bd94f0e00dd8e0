"""TX16 — a whole 1.6 transaction: Authorize → StartTransaction → MeterValues → StopTransaction,
stopped by the idTag that started it (without Authorize) or by another member of its group.

Rules (spec 002 "What the service does" 3 and 8; Messages StartTransaction, StopTransaction,
MeterValues; Reason; "All Register measurand values of a single transaction MUST increase
monotonically"; behaviour rule 16):
- T1  StartTransaction.conf gives the transactionId and the idTag's IdTagInfo (Accepted when valid);
- T2  with MeterValueSampleInterval set, MeterValues of the transaction carry its transactionId;
- T3  the idTag that started the transaction stops it and the charge point MUST NOT send Authorize
      for it; StopTransaction carries the transactionId, that idTag and reason Local (or none:
      Local is the default);
- T4  another idTag is authorized first and stops the transaction when its parentIdTag is the
      starter's (the group); StopTransaction then carries that idTag;
- T5  the register readings of the transaction (meterStart, MeterValues, transactionData,
      meterStop) never decrease;
- T6  the central system answers StopTransaction with the idTag's IdTagInfo.
"""

from harness.arena import CS, CSMS
from harness.errors import NotApplicable
from harness.reference.v16.meter import decreases, transaction_readings
from harness.suite import OCPP16, case, certified
from harness.usecases.core16 import (
    at_charge_point, connectors, group16, id_tag_status, same_tag, start, tag16, transaction_id, unplug,
)
from harness.verdict import check_equal, check_in, dig, fail, require

pytestmark = case("TX16", block="Core (1.6)", roles=("csms", "cs"), protocols=OCPP16)


async def _sample_every(arena, seconds: int) -> None:
    """MeterValueSampleInterval on the charge point: set by ChangeConfiguration on a SUT, directly on ours."""
    if arena.is_sut(CSMS):
        arena.harness.config.set("MeterValueSampleInterval", str(seconds))
        return
    answer = await arena.link.call("ChangeConfiguration", {"key": "MeterValueSampleInterval", "value": str(seconds)})
    if answer["status"] != "Accepted":
        raise NotApplicable(f"the charge point answers MeterValueSampleInterval={seconds} {answer['status']}")


def _check_stop(stop, tx_id, token, rule):
    check_equal(rule, "StopTransaction.req transactionId", tx_id, stop.request["transactionId"])
    require(same_tag(stop.request.get("idTag"), token.id), rule, "StopTransaction.req does not carry the idTag "
            "that stopped the transaction", expected=token.id, actual=stop.request.get("idTag"))


@certified(pytestmark, cs="TC_068_CS", csms="TC_004_1_CSMS")
async def test_full_transaction_stopped_by_its_own_tag(ocpp, profile):
    """T1-T3, T5, T6: identification first, meter values, then the same idTag stops it without Authorize."""
    token, connector = tag16(profile, "Accepted"), connectors(profile)[0]
    await _sample_every(ocpp, 1)
    started = await start(ocpp, token, connector)
    tx_id = transaction_id(started)
    if ocpp.is_sut(CSMS):
        check_equal("T1: a valid idTag starts a transaction", "StartTransaction.conf idTagInfo.status", "Accepted",
                    id_tag_status(started))
    after = ocpp.link.history.index(started)
    sample = await ocpp.expect("MeterValues", after=after, where=lambda p: p.get("transactionId") == tx_id,
                               rule="T2 / behaviour rule 16: MeterValues every MeterValueSampleInterval seconds")
    require(sample.error is None, "T2", "MeterValues was refused", expected="MeterValues.conf", actual=sample.error)
    mark = ocpp.mark()
    await at_charge_point(ocpp, "present_id_tag", id_tag=token.id, connector_id=connector)
    stop = await ocpp.expect("StopTransaction", after=mark, rule="T3: the idTag that started a transaction stops it")
    asked = [e.request for e in ocpp.link.history[mark:] if e.action == "Authorize"]
    if asked and ocpp.is_sut(CS):
        fail("T3 / spec 002 What the service does 3: no Authorize when the idTag that started the transaction "
             "stops it", "the charge point sent Authorize before stopping with the starting idTag",
             expected="StopTransaction without Authorize", actual=asked)
    _check_stop(stop, tx_id, token, "T3 (TC_068_CS)")
    check_in("T3: a local stop has reason Local (the default when absent)", "StopTransaction.req reason",
             {None, "Local"}, stop.request.get("reason"))
    if ocpp.is_sut(CS):
        samples = [e.request for e in ocpp.link.history if e.action == "MeterValues"
                   and e.request.get("transactionId") == tx_id]
        broken = decreases(transaction_readings(started.request, samples, stop.request))
        if broken:
            earlier, later = broken[0]
            fail("T5 / spec 002: the Register values of a transaction MUST increase monotonically",
                 "a register reading of the transaction decreased", expected=f">= {earlier}", actual=str(later))
    else:
        check_equal("T6: StopTransaction.conf carries the idTag's IdTagInfo", "StopTransaction.conf idTagInfo.status",
                    "Accepted", id_tag_status(stop))
    await unplug(ocpp, connector)


@certified(pytestmark, cs="TC_069_CS")
async def test_group_member_stops_with_authorize(ocpp, profile):
    """T4: another member of the starter's group is authorized, then stops the transaction."""
    (starter, member), connector = group16(profile), connectors(profile)[0]
    started = await start(ocpp, starter, connector)
    group = dig(started.response, "idTagInfo.parentIdTag")
    if ocpp.is_sut(CSMS):
        require(group is not None and same_tag(group, starter.group), "T4 / spec 002 What the service does 8",
                "StartTransaction.conf lacks the idTag's group as parentIdTag", expected=starter.group,
                actual=dig(started.response, "idTagInfo"))
    mark = ocpp.mark()
    await at_charge_point(ocpp, "present_id_tag", id_tag=member.id, connector_id=connector)
    auth = await ocpp.expect("Authorize", after=mark, where=lambda p: same_tag(p.get("idTag"), member.id),
                             rule="T4 (TC_069_CS): another idTag is authorized before it may stop the transaction")
    if ocpp.is_sut(CSMS):
        parent = dig(auth.response, "idTagInfo.parentIdTag")
        require(parent is not None and same_tag(parent, group), "T4 / spec 002 What the service does 8: a group is "
                "defined by equal parentIdTag values", "Authorize.conf of a group member lacks the group's parentIdTag",
                expected=group, actual=dig(auth.response, "idTagInfo"))
    stop = await ocpp.expect("StopTransaction", after=mark,
                             rule="T4: a member of the starter's group (same parentIdTag) stops the transaction")
    _check_stop(stop, transaction_id(started), member, "T4 (TC_069_CS)")
    await unplug(ocpp, connector)
