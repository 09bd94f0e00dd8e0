"""RPC — OCPP-J framing rules on a live connection (OCPP-J part 4 §4; rules R1–R5 in
harness/ocpp/rpc.py, F1–F5 in harness/ocpp/framing.py)."""

import secrets

import pytest

from harness.arena import CSMS
from harness.ocpp.errors import OCCURRENCE_SPELLINGS, codes_for_payload_fault
from harness.ocpp.framing import CallError, dumps
from harness.suite import OCPP2, case
from harness.usecases import transport
from harness.verdict import check_in, fail, finding

pytestmark = case("RPC", block="Transport and framing", roles=("csms", "cs"), protocols=OCPP2)


def _invalid_call(arena):
    """A CALL the SUT must refuse: a required field left out."""
    if arena.is_sut(CSMS):
        return "Authorize", {}
    return "RequestStartTransaction", {"idToken": {"idToken": "APP-1", "type": "Central"}}


async def test_invalid_payload_is_answered_with_a_callerror(ocpp):
    """R3: a schema-invalid request is answered with a CALLERROR whose code names a payload fault."""
    action, payload = _invalid_call(ocpp)
    exchange = await ocpp.link.call_exchange(action, payload, validate=False)
    if exchange.error is None:
        fail("R3: an invalid payload is answered with CALLERROR", f"the SUT accepted an invalid {action}",
             expected="CALLERROR", actual=exchange.response)
    check_in("R3/R5: the code names a payload fault of this version", "CALLERROR code",
             codes_for_payload_fault(ocpp.version), exchange.error.code)
    if exchange.error.code not in OCCURRENCE_SPELLINGS:
        finding("R3", f"a missing required field is an occurrence violation; the SUT said {exchange.error.code}")


async def test_unknown_action_is_answered_not_implemented(ocpp):
    """R5: an action the version does not define is answered with CALLERROR NotImplemented."""
    message_id = secrets.token_hex(8)
    reply = await ocpp.link.send_raw(dumps([2, message_id, "NoSuchAction", {}]), reply_id=message_id,
                                     timeout=ocpp.timeouts.call)
    if not isinstance(reply, CallError):
        fail("R5: an unknown action is answered with a CALLERROR", "no CALLERROR came back",
             expected="CALLERROR NotImplemented", actual=reply)
    if reply.code != "NotImplemented":
        finding("R5", f"an unknown action should be answered NotImplemented, got {reply.code}")
    await transport.still_answers(ocpp, "R5: the connection survives an unknown action")


async def test_text_that_is_not_json_does_not_break_the_connection(ocpp):
    """F1/F5: garbage is answered RpcFrameworkError with id "-1", and the SUT keeps serving."""
    reply = await ocpp.link.send_raw("this is not JSON", reply_id="-1", timeout=ocpp.timeouts.quiet)
    if not isinstance(reply, CallError):
        finding("F5", "text that is not JSON should be answered with CALLERROR RpcFrameworkError, id \"-1\"")
    elif reply.code != "RpcFrameworkError":
        finding("F5", f"text that is not JSON should be answered RpcFrameworkError, got {reply.code}")
    await transport.still_answers(ocpp, "F1: the connection survives a message that is not JSON")


@pytest.mark.sut_roles("cs")
async def test_station_waits_for_the_boot_answer(ocpp_unlinked):
    """R1/R4: while its BootNotification is unanswered the station sends no other CALL."""
    arena = ocpp_unlinked
    await transport.station_waits_for_boot_answer(
        arena, lambda boot: arena.harness.on_BootNotification(arena.harness.session(), boot.request))


@pytest.mark.sut_roles("csms")
async def test_csms_waits_for_an_answer_before_its_next_call(ocpp, profile):
    """R1/R4: while its RequestStartTransaction is unanswered the CSMS sends no other CALL."""
    await transport.csms_waits_for_answer(
        ocpp, ("RequestStartTransaction", "request_start_transaction", {"evse_id": profile.evses[0].id}),
        {"status": "Rejected"},
        ("DataTransfer", "data_transfer", {"vendor_id": profile.get("data_transfer.vendor_id", "org.example")}))
