"""RPC — OCPP-J framing and the exchange of CALLs on a live connection, in every version.

The frame and exchange rules are the core tables ``Framing``, ``Rpc`` (harness/ocpp/framing.py, rpc.py)
and ``Errors`` (harness/ocpp/errors.py); this file adds the table below. Every malformed CALL is played
in every version, carried in an action the SUT must take in its role and version (``CARRIERS``: a refusal
of an optional action would say nothing about the fault), and judged by the version's column of
``CODE_TABLE`` in harness/ocpp/errors.py (spec 002 Errors; OCPP 2.0.1 part 4 §4.3):

    fault                            1.6                             2.0.1 / 2.1
    a required field missing         OccurenceConstraintViolation,   OccurrenceConstraintViolation
                                     ProtocolError ("incomplete")
    a field of the wrong type        TypeConstraintViolation         TypeConstraintViolation
    a value out of its constraints   PropertyConstraintViolation     PropertyConstraintViolation
    a property the PDU lacks         FormationViolation              FormatViolation, ProtocolError
    a payload that is no object      FormationViolation              FormatViolation, ProtocolError
    an unknown action                NotImplemented                  NotImplemented
    text that is not JSON            (none named)                    RpcFrameworkError, id "-1"
    a message type no version has    (none named)                    MessageTypeNotSupported

A CALLERROR is required (``rpc.refused``), its code must exist in the version (``ocpp.errors.known``;
either spelling of the occurrence code) and fit the kind of fault (``ocpp.errors.fits``: any payload
code, NotSupported for an unknown action, in 2.x RpcFrameworkError for a payload that is no object);
the table's code is a SHOULD (``ocpp.errors.exact``), as the field answers with others (facts
ocpp-j.md). Text that is not JSON and a message type the version lacks: RpcFrameworkError and
MessageTypeNotSupported are SHOULDs in 2.x; 1.6 names no answer, so only the code of a reply is judged —
one of the 2.x-only codes on a 1.6 connection breaks ``ocpp.errors.known``. One CALL at a time is a
SHALL in 2.x and a SHOULD in 1.6 (its row says so).
"""

import copy
import operator
import secrets
from dataclasses import dataclass
from decimal import Decimal
from functools import reduce

import pytest

from harness.arena.ocpp import OcppArena
from harness.roles import CS, CSMS
from harness.errors import NotApplicable
from harness.ocpp.errors import (
    ERROR_CODES, FORMAT, FRAME, NOT_A_FRAME, OCCURRENCE, PROPERTY, TYPE, UNKNOWN_ACTION, UNKNOWN_TYPE, Errors,
    exact_codes, fitting_codes, is_known_code,
)
from harness.ocpp.framing import MAX_ID_LENGTH, UNKNOWN_ID, CallError, Framing, dumps
from harness.ocpp.rpc import Rpc
from harness.ocpp.versions import OcppVersion
from harness.profile import Profile
from harness.rules import RuleTable, must
from harness.suite import OCPP_ALL, case, checks, needs
from harness.transport.ws import Exchange
from harness.usecases.core16 import connectors, tag16
from harness.verdict import check_in, require


class RPC(RuleTable):
    """What the transport suite judges beyond the core tables."""
    survives = must("spec 002 Connection 2; OCPP 2.0.1 part 4 §4.2.3",
                    "a receiver keeps serving the connection after a message it refused")
    asked = must("spec 002 Operations by direction; spec 001 Messages sent by the CSMS, DataTransfer",
                 "a side asked through its actuator sends the CALL it was asked for")
    status_after_boot = must("OCPP 1.6 errata v4.0 §4.2 (SHALL: connectorId 0 and all connectors, as public test "
                             "projects quote it) and §4.9; OCPP 2.0.1 B01",
                             "once its boot is Accepted the station reports the status of its connectors", by=CS)
    one_decimal = must("spec 002 Limits (decimal limit and minChargingRate); OCPP 1.6 schema SetChargingProfile",
                       "1.6: a charging limit or minChargingRate has at most one fraction digit, judged on the "
                       "digits sent: 16.1 is taken, 16.15 refused", by=CS)


pytestmark = case("RPC", block="Transport and framing", roles=("csms", "cs"), protocols=OCPP_ALL)

PROBE_VENDOR = "org.evse-conformance.probe"
UNDEFINED_TYPE = 9   # a message type number no OCPP-J version defines (1.6: 2-4, 2.0.1: 2-4, 2.1: 2-6)
FAULTS = ("missing", "type", "property", "extra", "formation", "unknown")


@dataclass(frozen=True)
class Carrier:
    """A CALL the SUT must take in its role and version, so that a refusal of it names the fault it carries and
    never a feature the SUT may leave out: ``valid`` is a payload it answers, ``field`` (a path into it) a string
    of at most ``longest`` characters that the type and property faults break."""
    action: str
    valid: dict
    field: tuple[str | int, ...]
    longest: int

    def with_field(self, value) -> dict:
        payload = copy.deepcopy(self.valid)
        *parents, last = self.field
        reduce(operator.getitem, parents, payload)[last] = value
        return payload

    def fault(self, fault: str) -> tuple[str, object, str]:
        """The CALL that carries ``fault``: its action, its payload and the kind of fault it is."""
        return {
            "missing": (self.action, {}, OCCURRENCE),
            "type": (self.action, self.with_field(7), TYPE),
            "property": (self.action, self.with_field("V" * (self.longest + 1)), PROPERTY),
            "extra": (self.action, {**self.valid, "unexpected": 1}, FORMAT),
            "formation": (self.action, [], FRAME),
            "unknown": ("NoSuchAction", {}, UNKNOWN_ACTION),
        }[fault]


# Every CSMS takes BootNotification (spec 002 Core profile; OCPP 2.0.1 B01); every 1.6 charge point DataTransfer
# (spec 002 Core profile), every 2.x station GetVariables (OCPP 2.0.1 B06: the device model each station serves),
# while DataTransfer is optional in 2.x. The schemas bound chargePointVendor to 20 characters (1.6), vendorName
# and a component's name to 50 (2.x).
CARRIERS = {
    (CSMS, False): Carrier("BootNotification", {"chargePointVendor": "Probe", "chargePointModel": "Probe"},
                           ("chargePointVendor",), 20),
    (CSMS, True): Carrier("BootNotification", {"reason": "PowerUp", "chargingStation": {"model": "Probe",
                                                                                        "vendorName": "Probe"}},
                          ("chargingStation", "vendorName"), 50),
    (CS, False): Carrier("DataTransfer", {"vendorId": PROBE_VENDOR}, ("vendorId",), 255),
    (CS, True): Carrier("GetVariables", {"getVariableData": [{"component": {"name": "ChargingStation"},
                                                             "variable": {"name": "AvailabilityState"}}]},
                        ("getVariableData", 0, "component", "name"), 50),
}


def _carrier(arena: OcppArena) -> Carrier:
    return CARRIERS[arena.sut_role, arena.version.is_2x]


def _judge_code(arena: OcppArena, kind: str, code: str, fault: str) -> None:
    """The code of a CALLERROR that refused a fault of ``kind``: a code of the version that fits the fault,
    ideally the one the version's table names it with."""
    version, exact = arena.version, exact_codes(arena.version, kind)
    require(is_known_code(version, code), Errors.known, f"CALLERROR code {code!r} does not exist in {version.value}",
            expected=sorted(exact), actual=code)
    check_in(Errors.fits, f"the CALLERROR code for {fault}", fitting_codes(version, kind), code)
    if exact:
        require(code in exact, Errors.exact,
                f"{fault} is named {sorted(exact)} in {version.value}; the SUT said {code}")


async def _still_answers(arena: OcppArena) -> None:
    """After a message it refused, the SUT still answers a valid CALL."""
    if arena.is_sut(CSMS):
        exchange = await arena.call_sut("Heartbeat", {})
    else:
        carrier = _carrier(arena)
        exchange = await arena.call_sut(carrier.action, carrier.valid)
    require(exchange.answered, RPC.survives, "the SUT stopped answering after a malformed message",
            expected="an answer", actual="none")


def _one_at_a_time(first: Exchange, others: list[str]) -> None:
    """Nothing but ``first`` came from the SUT while ``first`` was unanswered (a finding in 1.6)."""
    require(not others, Rpc.one_at_a_time, f"the SUT sent CALLs while its {first.action} was unanswered",
            expected="nothing until the answer", actual=others)


@pytest.mark.parametrize("fault", FAULTS)
@checks(Rpc.refused, Errors.known, Errors.fits, Errors.exact, RPC.survives)
async def test_malformed_call_is_refused_with_the_code_for_its_fault(ocpp, fault):
    """Each malformed CALL, carried in an action the SUT must take, is answered with a CALLERROR whose code names
    the fault as the version does; the connection goes on."""
    action, payload, kind = _carrier(ocpp).fault(fault)
    message_id = secrets.token_hex(8)
    reply = await ocpp.send_raw(dumps([2, message_id, action, payload]), reply_id=message_id,
                                     timeout=ocpp.timeouts.call)
    require(isinstance(reply, CallError), Rpc.refused, f"the {fault} {action} was not refused",
            expected=f"CALLERROR {sorted(exact_codes(ocpp.version, kind))}", actual=reply)
    _judge_code(ocpp, kind, reply.code, f"a {fault} fault")
    await _still_answers(ocpp)


async def _judge_unanswerable(arena: OcppArena, text: str, reply_id: str, kind: str, rule, what: str) -> None:
    """``text`` that is no CALL the SUT can take: its reply, if any, carries a code of the version (a 2.x
    code on a 1.6 connection breaks Errors.known); where the version names the answer (2.x), ``rule`` (a
    SHOULD) asks for it; either way the SUT keeps serving the connection."""
    reply = await arena.send_raw(text, reply_id=reply_id, timeout=arena.timeouts.quiet)
    answered = isinstance(reply, CallError)
    if answered:
        require(is_known_code(arena.version, reply.code), Errors.known,
                f"CALLERROR code {reply.code!r} does not exist in {arena.version.value}",
                expected=sorted(ERROR_CODES[arena.version]), actual=reply.code)
    expected = exact_codes(arena.version, kind)
    if expected:
        require(answered and reply.code in expected, rule, f"{what} should be answered with CALLERROR "
                f"{' or '.join(sorted(expected))}, id {reply_id!r}", expected=sorted(expected),
                actual=reply.code if answered else reply)
    await _still_answers(arena)


@checks(Framing.framework_error, Errors.known, RPC.survives)
async def test_text_that_is_not_json_does_not_break_the_connection(ocpp):
    """Text that is not JSON: 2.x answers RpcFrameworkError with id "-1" (a SHOULD); 1.6 names no answer, so
    only the code of a reply is judged; either way the SUT keeps serving the connection."""
    await _judge_unanswerable(ocpp, "this is not JSON", UNKNOWN_ID, NOT_A_FRAME, Framing.framework_error,
                              "text that is not JSON")


@checks(Framing.type_not_supported, Errors.known, RPC.survives)
async def test_unknown_message_type_is_refused_with_a_code_of_the_version(ocpp):
    """A frame of a message type no version defines: 2.x answers MessageTypeNotSupported with its id (a
    SHOULD); 1.6 names no answer, so only the code of a reply is judged (MessageTypeNotSupported and
    RpcFrameworkError are no 1.6 codes); either way the SUT keeps serving the connection."""
    message_id = secrets.token_hex(8)
    await _judge_unanswerable(ocpp, dumps([UNDEFINED_TYPE, message_id, "Heartbeat", {}]), message_id, UNKNOWN_TYPE,
                              Framing.type_not_supported, f"a message of type {UNDEFINED_TYPE}")


@pytest.mark.sut_roles("cs")
@checks(Rpc.one_at_a_time, RPC.status_after_boot)
async def test_station_waits_for_the_boot_answer(ocpp_unlinked, harness_csms):
    """While its BootNotification is unanswered the station sends no other CALL; answered Accepted, it
    reports its status."""
    arena = ocpp_unlinked
    arena.hold("BootNotification")
    await harness_csms.await_station()
    boot = await harness_csms.station_boot(answered=False)
    await arena.elapse(arena.timeouts.quiet)
    _one_at_a_time(boot, [e.action for e in arena.sent(sender=CS) if e is not boot])
    await arena.answer_held(boot)
    await arena.expect("StatusNotification", sender=CS, after=0, rule=RPC.status_after_boot)


def _remote_start(arena: OcppArena, profile: Profile) -> tuple[str, str, dict]:
    """The version's remote start: its action, and the actuator action and body that make a CSMS send it."""
    if arena.version is OcppVersion.V16:
        return "RemoteStartTransaction", "remote_start_transaction", {
            "id_tag": tag16(profile, "Accepted").id, "connector_id": connectors(profile)[0]}
    return "RequestStartTransaction", "request_start_transaction", {"evse_id": profile.evses[0].id}


@pytest.mark.sut_roles("csms")
@checks(Rpc.one_at_a_time, Rpc.queue, RPC.asked)
@needs(lambda given: given.protocol != OcppVersion.V16.value or tag16(given.profile, "Accepted"))
async def test_csms_waits_for_an_answer_before_its_next_call(ocpp, profile):
    """While its remote start is unanswered the CSMS sends no other CALL; once it is answered (Rejected) the
    DataTransfer it was asked for meanwhile goes out."""
    action, act, body = _remote_start(ocpp, profile)
    ocpp.hold(action)
    start = ocpp.mark()
    await ocpp.act(CSMS, act, **body)
    held = await ocpp.next_call(action, sender=CSMS, within=ocpp.timeouts.action, after=start, answered=False)
    require(held is not None, RPC.asked, f"the CSMS did not send {action}", expected=action, actual="nothing")
    await ocpp.act(CSMS, "data_transfer", vendor_id=profile.get("data_transfer.vendor_id", "org.example"))
    await ocpp.elapse(ocpp.timeouts.quiet)
    _one_at_a_time(held, [e.action for e in ocpp.sent(sender=CSMS, after=start) if e is not held])
    await ocpp.answer_held(held, {"status": "Rejected"})
    await ocpp.expect("DataTransfer", sender=CSMS, after=start, rule=Rpc.queue)


@checks(Framing.message_id, Rpc.unique_id, RPC.asked)
async def test_message_ids_are_unique_and_short(ocpp, profile):
    """The SUT's CALL ids on the connection are distinct strings of at most 36 characters."""
    vendor = profile.get("data_transfer.vendor_id", "org.example")
    for _ in range(2):
        await ocpp.exchange(ocpp.sut_role, "DataTransfer", trigger=("data_transfer", {"vendor_id": vendor}),
                            rule=RPC.asked)
    ids = [e.call.id for e in ocpp.sent(sender=ocpp.sut_role)]
    require(all(0 < len(i) <= MAX_ID_LENGTH for i in ids), Framing.message_id, "a message id is too long",
            expected=f"<= {MAX_ID_LENGTH} characters", actual=[i for i in ids if len(i) > MAX_ID_LENGTH])
    require(len(set(ids)) == len(ids), Rpc.unique_id, "the SUT reused a message id", expected="distinct ids",
            actual=ids)


def _charging_profile(limit: Decimal) -> dict:
    return {"chargingProfileId": 161, "stackLevel": 0, "chargingProfilePurpose": "TxDefaultProfile",
            "chargingProfileKind": "Relative",
            "chargingSchedule": {"chargingRateUnit": "A", "minChargingRate": Decimal("0.3"),
                                 "chargingSchedulePeriod": [{"startPeriod": 0, "limit": limit}]}}


@pytest.mark.protocols("ocpp1.6")   # 2.x schemas set no multipleOf: one decimal is K01's rule there
@pytest.mark.sut_roles("cs")
@pytest.mark.requires("smart_charging")
@checks(RPC.one_decimal, Errors.known, Errors.fits, Errors.exact)
async def test_decimals_are_judged_on_their_digits(ocpp, profile):
    """16.1 A and 0.3 A are one-digit decimals (no constraint error); 16.15 A is refused."""
    connector = connectors(profile)[0]
    valid = await ocpp.call_sut("SetChargingProfile", {
        "connectorId": connector, "csChargingProfiles": _charging_profile(Decimal("16.1"))})
    if valid.error is not None and valid.error.code in fitting_codes(ocpp.version, UNKNOWN_ACTION):
        raise NotApplicable(f"the charge point answers SetChargingProfile {valid.error.code}")
    require(valid.error is None, RPC.one_decimal, "a limit of 16.1 A (minChargingRate 0.3) was refused",
            expected="SetChargingProfile.conf", actual=valid.error)
    invalid = await ocpp.call_sut("SetChargingProfile", {
        "connectorId": connector, "csChargingProfiles": _charging_profile(Decimal("16.15"))}, validate=False)
    require(invalid.error is not None, RPC.one_decimal, "a limit of 16.15 A was not refused",
            expected="CALLERROR PropertyConstraintViolation", actual=invalid.error or invalid.result)
    _judge_code(ocpp, PROPERTY, invalid.error.code, "two fraction digits")
