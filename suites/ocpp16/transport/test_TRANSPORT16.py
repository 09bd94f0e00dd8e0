"""TRANSPORT16 — 1.6-J transport and framing on a live connection, either role.

Rules: the WebSocket rules W1-W5 (harness/transport/ws.py; spec 002 Connection 1-5), the framing
rules F1-F5 and R1-R5 (harness/ocpp/framing.py, harness/ocpp/rpc.py; spec 002 Framing 1-4) and the
1.6 CALLERROR codes (spec 002 Errors):
- E1  a CALL the receiver cannot take is answered with a CALLERROR whose code exists in 1.6
      (FormationViolation, not the 2.x FormatViolation) and names the fault: a required field
      missing → OccurenceConstraintViolation (the errata spelling OccurrenceConstraintViolation
      is as good), a wrong JSON type → TypeConstraintViolation, a value out of its constraints →
      PropertyConstraintViolation, a payload that is not the PDU's structure → FormationViolation,
      an unknown action → NotImplemented. A defensible other payload code (ProtocolError: the
      payload is incomplete) is a finding;
- E2  message ids are strings of at most 36 characters, unique among one sender's CALLs on a
      connection (Framing 2);
- E3  limits and minChargingRate have at most one fraction digit (Limits): judged on the decimal
      digits sent, never on a binary float.
"""

import secrets
from decimal import Decimal

import pytest

from harness.arena import CS, CSMS
from harness.errors import HarnessError, NotApplicable
from harness.ocpp.errors import OCCURRENCE_SPELLINGS, codes_for_payload_fault, is_known_code
from harness.ocpp.framing import MAX_ID_LENGTH, CallError, dumps
from harness.ocpp.versions import OcppVersion
from harness.suite import OCPP16, case, certified
from harness.usecases import transport
from harness.usecases.core16 import authorize, connectors, tag16, unplug
from harness.verdict import check_in, fail, finding, require

pytestmark = case("TRANSPORT16", block="Transport and framing (1.6)", roles=("csms", "cs"), protocols=OCPP16)

V16 = OcppVersion.V16
PAYLOAD_FAULT = codes_for_payload_fault(V16)
UNKNOWN_ACTION = frozenset({"NotImplemented", "NotSupported"})

# fault → (the CALL the central system under test gets, the one the charge point under test gets,
#          the codes that name it exactly, the codes that are defensible)
MALFORMED = {
    "missing": (("Authorize", {}), ("RemoteStartTransaction", {}), OCCURRENCE_SPELLINGS, PAYLOAD_FAULT),
    "type": (("Authorize", {"idTag": 7}), ("RemoteStartTransaction", {"idTag": 7}),
             {"TypeConstraintViolation"}, PAYLOAD_FAULT),
    "property": (("Authorize", {"idTag": "X" * 21}), ("ChangeConfiguration", {"key": "K" * 51, "value": "1"}),
                 {"PropertyConstraintViolation"}, PAYLOAD_FAULT),
    "extra": (("Heartbeat", {"unexpected": 1}), ("GetConfiguration", {"unexpected": 1}),
              {"FormationViolation"}, PAYLOAD_FAULT),
    "formation": (("Heartbeat", []), ("GetConfiguration", []), {"FormationViolation"}, PAYLOAD_FAULT),
    "unknown": (("NoSuchAction", {}), ("NoSuchAction", {}), {"NotImplemented"}, UNKNOWN_ACTION),
}


# ----------------------------------------------------------------------------- the upgrade
@pytest.mark.sut_roles("csms")
async def test_csms_picks_ocpp16_from_the_offered_list(ocpp_unlinked):
    """W3: offered an unknown subprotocol and ocpp1.6, the central system picks ocpp1.6."""
    await transport.offered_subprotocol_is_picked(ocpp_unlinked)


@pytest.mark.sut_roles("csms")
async def test_csms_without_acceptable_subprotocol_upgrades_then_closes(ocpp_unlinked):
    """W3 / spec 002 Connection 4: no acceptable subprotocol → 101 without the header, then closed."""
    await transport.no_acceptable_subprotocol_closes(ocpp_unlinked)


@pytest.mark.sut_roles("csms")
async def test_unknown_identity_is_refused_with_404(ocpp_unlinked):
    """W2 / spec 002 Connection 3: an unknown charge point identity gets HTTP 404 (SHOULD)."""
    arena = ocpp_unlinked
    await transport.expect_refused(arena, "UNKNOWN-" + secrets.token_hex(4).upper(), transport.basic_password(arena),
                                   status=404, rule="W2: an unknown charge point identity is not connected",
                                   what="an unknown identity")


@pytest.mark.sut_roles("csms")
async def test_wrong_authorization_key_is_refused(ocpp_unlinked, profile):
    """W4 / Authentication 3: the configured identity with another 20-byte key is refused."""
    if not profile.authorization_key:
        raise NotApplicable("the profile sets no [station] authorization_key (1.6 Basic auth)")
    await transport.expect_refused(ocpp_unlinked, profile.identity, secrets.token_bytes(20), status=401,
                                   rule="W4 / Authentication 3: a wrong AuthorizationKey SHALL be refused",
                                   what="a wrong AuthorizationKey")


@certified(pytestmark, cs="TC_085_CS")
@pytest.mark.sut_roles("cs")
async def test_charge_point_offers_ocpp16_and_its_key(ocpp_unlinked):
    """W1/W3/W4/W5: the charge point's upgrade: its identity, ocpp1.6, Basic auth with its key, no compression."""
    await transport.station_offers_version_and_credentials(ocpp_unlinked)


# ----------------------------------------------------------------------------- framing
@pytest.mark.parametrize("fault", list(MALFORMED))
async def test_malformed_call_is_answered_with_a_16_code(ocpp, fault):
    """E1: each malformed CALL is answered with the 1.6 CALLERROR code that names its fault."""
    to_csms, to_cs, exact, defensible = MALFORMED[fault]
    action, payload = to_csms if ocpp.is_sut(CSMS) else to_cs
    message_id = secrets.token_hex(8)
    reply = await ocpp.link.send_raw(dumps([2, message_id, action, payload]), reply_id=message_id,
                                     timeout=ocpp.timeouts.call)
    if not isinstance(reply, CallError):
        fail("E1: a malformed CALL is answered with a CALLERROR", f"the {fault} {action} was not refused",
             expected=f"CALLERROR {sorted(exact)}", actual=reply)
    if not is_known_code(V16, reply.code):
        fail("E1 / spec 002 Errors: the CALLERROR code exists in 1.6", f"{reply.code} is not a 1.6 CALLERROR code",
             expected=sorted(exact), actual=reply.code)
    check_in(f"E1: the code names the {fault} fault", "CALLERROR code", defensible, reply.code)
    if reply.code not in exact:
        finding("E1", f"a {fault} fault is named {sorted(exact)} in 1.6; the SUT said {reply.code}")
    await transport.still_answers(ocpp, f"E1: the connection survives a {fault} CALL")


@pytest.mark.sut_roles("cs")
async def test_charge_point_waits_for_the_boot_answer(ocpp_unlinked):
    """R1/R4 (a SHOULD in 1.6): while its BootNotification is unanswered the charge point sends nothing else."""
    arena = ocpp_unlinked
    await transport.station_waits_for_boot_answer(
        arena, lambda boot: arena.harness.on_BootNotification(arena.harness.session(), boot.request))


@pytest.mark.sut_roles("csms")
async def test_csms_waits_for_an_answer_before_its_next_call(ocpp, profile):
    """R1/R4 (a SHOULD in 1.6): while its RemoteStartTransaction is unanswered the central system sends nothing else."""
    vendor = profile.get("data_transfer.vendor_id", "org.example")
    await transport.csms_waits_for_answer(
        ocpp, ("RemoteStartTransaction", "remote_start_transaction",
               {"id_tag": tag16(profile, "Accepted").id, "connector_id": connectors(profile)[0]}),
        {"status": "Rejected"}, ("DataTransfer", "data_transfer", {"vendor_id": vendor}))


async def test_message_ids_are_unique_and_short(ocpp, profile):
    """E2: the SUT's CALL ids on the connection are distinct strings of at most 36 characters."""
    if ocpp.is_sut(CS):   # two Authorize: a charge point that reconnected without booting sends nothing else
        token, connector = tag16(profile, "Accepted"), connectors(profile)[0]
        for _ in range(2):
            await authorize(ocpp, token, connector)
        await unplug(ocpp, connector)   # the card is forgotten: the next test starts idle
    else:
        vendor = profile.get("data_transfer.vendor_id", "org.example")
        for _ in range(2):
            await ocpp.exchange(CSMS, "DataTransfer", None, trigger=("data_transfer", {"vendor_id": vendor}),
                                rule="1.6 DataTransfer: the central system sends the DataTransfer it was asked to")
    ids = [e.call.id for e in ocpp.link.history if e.incoming]
    if len(ids) < 2:
        raise HarnessError(f"the harness provoked {len(ids)} CALL from the SUT; comparing ids needs two")
    require(all(isinstance(i, str) and 0 < len(i) <= MAX_ID_LENGTH for i in ids),
            "E2 / spec 002 Framing 2: a message id is a string of at most 36 characters", "a message id is too long",
            expected=f"<= {MAX_ID_LENGTH} characters", actual=[i for i in ids if len(i) > MAX_ID_LENGTH])
    require(len(set(ids)) == len(ids), "E2 / spec 002 Framing 2: message ids are unique on the connection",
            "the SUT reused a message id", expected="distinct ids", actual=ids)


def _charging_profile(limit: Decimal) -> dict:
    return {"chargingProfileId": 161, "stackLevel": 0, "chargingProfilePurpose": "TxDefaultProfile",
            "chargingProfileKind": "Relative",
            "chargingSchedule": {"chargingRateUnit": "A", "minChargingRate": Decimal("0.3"),
                                 "chargingSchedulePeriod": [{"startPeriod": 0, "limit": limit}]}}


@pytest.mark.sut_roles("cs")
@pytest.mark.requires("smart_charging")
async def test_decimals_are_judged_on_their_digits(ocpp, profile):
    """E3: 16.1 A and 0.3 A are one-digit decimals (no constraint error); 16.15 A is refused."""
    connector = connectors(profile)[0]
    valid = await ocpp.link.call_exchange("SetChargingProfile", {"connectorId": connector,
                                                                 "csChargingProfiles": _charging_profile(Decimal("16.1"))})
    if valid.error is not None and valid.error.code in UNKNOWN_ACTION:
        raise NotApplicable(f"the charge point answers SetChargingProfile {valid.error.code}")
    if valid.error is not None:
        fail("E3: one fraction digit is within the limit", "a limit of 16.1 A (minChargingRate 0.3) was refused",
             expected="SetChargingProfile.conf", actual=valid.error)
    invalid = await ocpp.link.call_exchange("SetChargingProfile", {"connectorId": connector,
                                                                   "csChargingProfiles": _charging_profile(Decimal("16.15"))},
                                            validate=False)
    if invalid.error is None:
        fail("E3 / spec 002 Limits: a decimal limit has at most one fraction digit",
             "a limit of 16.15 A was not refused", expected="CALLERROR PropertyConstraintViolation", actual=invalid.response)
    check_in("E3 / E1", "CALLERROR code", PAYLOAD_FAULT, invalid.error.code)
    if invalid.error.code != "PropertyConstraintViolation":
        finding("E3", f"two fraction digits break a property constraint; the charge point said {invalid.error.code}")
