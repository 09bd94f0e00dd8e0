"""C01 — EV driver authorization using RFID (and the order of checks of the CSMS's decision).

A station asks about the token presented to it; the CSMS decides in a fixed order (unknown →
Invalid, blocked → Blocked, expired → Expired, in a transaction → ConcurrentTx, wrong station →
NotAtThisLocation, wrong EVSE type → NotAllowedTypeEVSE, EVSE-restricted → Accepted with evseId,
else Accepted), answers a grouped token with its group and checks a TransactionEvent's token
again; its idTokenInfo keeps the language rules (rule 10) and the personalMessage limits. A station
charges only for an accepted token, whether the card or the cable comes first: every other status starts no
transaction (a running one the CSMS refuses is stopped: C12), an evseId restriction holds at the station, and
an Accepted idTokenInfo with every optional field at its limit is still an acceptance.

ConcurrentTx is judged where the 2.x texts put it: on the TransactionEvent Started of a second
transaction with the token (AuthorizationStatusEnumType: "only relevant for the response to a
TransactionEventRequest(eventType=Started)"). An AuthorizeRequest for a token already charging is
answered Accepted (a driver also authorizes to stop) or ConcurrentTx (step 4 of the order of checks
read as applying to every decision): both readings are accepted.
"""

import re
from datetime import timedelta

import pytest

from harness import clock
from harness.roles import CS, CSMS
from harness.errors import NotApplicable
from harness.profile import TOKEN_STATUSES
from harness.rules import RuleTable, must
from harness.suite import OCPP2, TC, case, checks, needs
from harness.usecases.authorization import (Authorization, authorize, cached_start, check_presented_token,
                                            judge_group, never_starts_with, starts_with, token_with)
from harness.verdict import check_equal, check_in, dig, require


class C01(RuleTable):
    """The rules of C01 (spec 001 Order of checks, Authorization rules 5 and 7, status values)."""
    presented = must("spec 001 Events: AuthorizeRequest; IdTokenType (C01.FR.01)",
                     "the station asks about the token that was presented, with its idToken and type", by=CS)
    status = must("spec 001 Order of checks; AuthorizeResponse (C01.FR.07)",
                  "the AuthorizeResponse carries the status the order of checks gives the token", by=CSMS)
    evse_restriction = must("spec 001 Order of checks, step 7",
                            "a token allowed only at certain EVSEs is Accepted with evseId listing them", by=CSMS)
    blocked_first = must("spec 001 Order of checks, steps 2 and 3", "a token both blocked and expired is Blocked",
                         by=CSMS)
    concurrent = must("spec 001 Order of checks, step 4; OCPP 2.0.1 AuthorizationStatusEnumType (ConcurrentTx)",
                      "the TransactionEvent Started of a second transaction with a valid token already in an "
                      "active transaction is answered ConcurrentTx", by=CSMS)
    event_token = must("spec 001 Authorization rule 7 (C12, C14)",
                       "the CSMS checks the token of a TransactionEvent again and answers its status", by=CSMS)
    accepted_starts = must("spec 001 Authorization status values (Accepted allows charging)",
                           "an accepted driver's transaction starts, with the token, once the cable is in", by=CS)
    rejected_no_start = must("spec 001 Authorization status values (every other status rejects charging)",
                             "a rejected token starts no transaction", by=CS)
    evse_only = must("spec 001 IdTokenInfoType evseId; Order of checks, step 7",
                     "a token accepted with evseId starts a transaction at the EVSEs listed and at no other", by=CS)
    languages = must("spec 001 Authorization rule 10; IdTokenInfoType language1, language2",
                     "language2 comes only with language1 and differs from it; both are RFC 5646 tags", by=CSMS)
    personal_message = must("spec 001 IdTokenInfoType personalMessage (MessageContent); Limits",
                            "a personalMessage has a format of ASCII, HTML, URI, UTF8 or QRCODE, content of at most "
                            "1024 characters (512 in 2.0.1's schema) and a language of at most 8", by=CSMS)
    optional_fields = must("spec 001 IdTokenInfoType; Limits; Authorization status values (Accepted)",
                           "a station charges an Accepted token whose idTokenInfo carries the optional fields at their "
                           "limits (cacheExpiryDateTime, chargingPriority, language1/2, a 1024-character "
                           "personalMessage)", by=CS)


pytestmark = case("C01", block="Authorization", roles=("csms", "cs"), protocols=OCPP2)

STATIC_STATUSES = [s for s in TOKEN_STATUSES if s != "ConcurrentTx"]
# the public test case that asks a CSMS for each status (OCPP 2.0.1 Part 6, block C)
STATUS_CASES = {"Invalid": "TC_C_02_CSMS", "Blocked": "TC_C_06_CSMS", "Expired": "TC_C_07_CSMS"}


def _blocked_and_expired(profile):
    tokens = [t for t in profile.tokens_with("Blocked") if "Expired" in t.also]
    if not tokens:
        raise NotApplicable("the profile declares no token that is both blocked and expired "
                            "(status = \"Blocked\", also = [\"Expired\"])")
    return tokens[0]


def _grouped(profile):
    grouped = [t for t in profile.tokens.values() if t.group and t.status == "Accepted"]
    if not grouped:
        raise NotApplicable("the profile declares no accepted idToken with a group")
    return grouped[0]


def _two_evses(profile):
    if len(profile.evses) < 2:
        raise NotApplicable("ConcurrentTx needs a second EVSE; the profile declares one")


def _status_param(status):
    """A CSMS is judged on its answer, a station on the request it sends."""
    certification = {"csms": TC(STATUS_CASES[status], "ocpp2.0.1")} if status in STATUS_CASES else {}
    return pytest.param(status, marks=checks(C01.status, C01.evse_restriction, C01.languages, C01.personal_message,
                                             Authorization.sent, C01.presented, **certification))


@pytest.mark.parametrize("status", [_status_param(s) for s in STATIC_STATUSES])
@needs(lambda given: token_with(given.profile, given.params["status"]))
async def test_presented_token_gets_its_status(ocpp, profile, status):
    """Each token of the profile is answered with the status the profile says it must get."""
    token = token_with(profile, status)
    exchange = await authorize(ocpp, token)
    if ocpp.is_sut(CS):
        check_presented_token(exchange, token, C01.presented)
        return
    info = exchange.result["idTokenInfo"]
    check_equal(C01.status, f"idTokenInfo.status for the {token.name} token", status, info["status"])
    if status == "Accepted" and token.evse_ids:
        check_equal(C01.evse_restriction, "idTokenInfo.evseId", sorted(token.evse_ids), sorted(info.get("evseId", [])))
    check_languages(info, MESSAGE_LIMIT[ocpp.target.protocol])


# RFC 5646 language tag: a primary subtag of 2-8 letters, then subtags of 1-8 letters or digits
LANGUAGE_TAG = re.compile(r"^[A-Za-z]{2,8}(-[A-Za-z0-9]{1,8})*$")
MESSAGE_FORMATS = {"ASCII", "HTML", "URI", "UTF8", "QRCODE"}
MESSAGE_LIMIT = {"ocpp2.0.1": 512, "ocpp2.1": 1024}   # MessageContentType.content maxLength of each version


def check_languages(info, message_limit):
    """Authorization rule 10 and the personalMessage limits on one idTokenInfo (each optional)."""
    first, second = info.get("language1"), info.get("language2")
    for name, tag in (("language1", first), ("language2", second)):
        require(tag is None or LANGUAGE_TAG.match(tag), C01.languages, f"idTokenInfo.{name} is no RFC 5646 tag",
                expected="a tag such as de or en-GB", actual=tag)
    if second is not None:
        require(first is not None, C01.languages, "idTokenInfo has language2 without language1",
                expected="language1 set", actual=info)
        require(first is None or first.casefold() != second.casefold(), C01.languages,
                "idTokenInfo language2 repeats language1", expected=f"a language other than {first}", actual=second)
    message = info.get("personalMessage")
    if message is not None:
        check_in(C01.personal_message, "personalMessage.format", MESSAGE_FORMATS, message.get("format"))
        require(len(message.get("content", "")) <= message_limit, C01.personal_message,
                f"personalMessage.content is longer than {message_limit} characters", expected=f"at most {message_limit}",
                actual=len(message.get("content", "")))
        require(len(message.get("language", "")) <= 8, C01.personal_message,
                "personalMessage.language is longer than 8 characters", expected="at most 8",
                actual=message.get("language"))


@checks(C01.blocked_first)
@pytest.mark.sut_roles("csms")
@needs(lambda given: _blocked_and_expired(given.profile))
async def test_blocked_is_checked_before_expired(ocpp, profile):
    """A token that is both blocked and expired is Blocked: step 2 comes before step 3."""
    exchange = await authorize(ocpp, _blocked_and_expired(profile))
    check_equal(C01.blocked_first, "idTokenInfo.status of a token both blocked and expired", "Blocked",
                exchange.result["idTokenInfo"]["status"])


@checks(C01.concurrent, C01.status)
@pytest.mark.sut_roles("csms")
@needs(lambda given: _two_evses(given.profile), lambda given: token_with(given.profile, "Accepted"))
async def test_token_in_a_transaction_is_concurrent(ocpp, profile):
    """A valid token already charging on one EVSE starts a second transaction on another: its
    TransactionEvent Started is answered ConcurrentTx (step 4). Authorized meanwhile, the token gets
    Accepted or ConcurrentTx (both readings, see the module's docstring), never another status."""
    token = token_with(profile, "Accepted")
    await cached_start(ocpp, token, C01.concurrent)
    exchange = await authorize(ocpp, token)
    check_in(C01.status, "idTokenInfo.status of an AuthorizeRequest for a token already in a transaction",
             {"Accepted", "ConcurrentTx"}, dig(exchange.result, "idTokenInfo.status"))
    _, second = await cached_start(ocpp, token, C01.concurrent, evse=profile.evses[1].id)
    check_equal(C01.concurrent, "TransactionEventResponse idTokenInfo.status of a second transaction with the token",
                "ConcurrentTx", dig(second.result, "idTokenInfo.status"))


@checks(Authorization.group)
@pytest.mark.sut_roles("csms")
@needs(lambda given: _grouped(given.profile))
async def test_group_token_is_answered_with_its_group(ocpp, profile):
    """AuthorizeResponse and TransactionEventResponse carry the token's groupIdToken (rule 5)."""
    token = _grouped(profile)
    judge_group(await authorize(ocpp, token), token)
    _, event = await cached_start(ocpp, token, Authorization.group)
    judge_group(event, token)


@checks(C01.event_token)
@pytest.mark.sut_roles("csms")
@needs(lambda given: token_with(given.profile, "Blocked"))
async def test_token_is_checked_again_in_transaction_event(ocpp, profile):
    """A blocked token that arrives in a TransactionEvent is answered Blocked (rule 7)."""
    token = token_with(profile, "Blocked")
    _, event = await cached_start(ocpp, token, C01.event_token)
    check_equal(C01.event_token, "TransactionEventResponse idTokenInfo.status", "Blocked",
                dig(event.result, "idTokenInfo.status"))


def _station_param(status):
    rules = (C01.accepted_starts,) if status == "Accepted" else (C01.rejected_no_start,)
    return pytest.param(status, marks=checks(Authorization.sent, C01.presented, *rules,
                                             cs=(TC("TC_E_04_CS", "ocpp2.0.1", when="Accepted"),
                                                 TC("TC_C_05_CS", "ocpp2.0.1", when="Invalid"))))


@pytest.mark.sut_roles("cs")
@pytest.mark.parametrize("status", [_station_param(s) for s in STATIC_STATUSES])
@needs(lambda given: token_with(given.profile, given.params["status"]))
async def test_station_starts_only_for_an_accepted_token(ocpp, profile, status):
    """Card then cable: a transaction starts with the token only when the CSMS accepted it; every other
    status the CSMS can answer (Blocked, Expired, Invalid, NoCredit, NotAllowedTypeEVSE, NotAtThisLocation,
    NotAtThisTime, Unknown) starts none."""
    token = token_with(profile, status)
    evse = profile.evses[0].id
    exchange = await authorize(ocpp, token, evse_id=evse)
    check_presented_token(exchange, token, C01.presented)
    start = ocpp.mark()
    await ocpp.act("cs", "plug_in", evse_id=evse)
    if status == "Accepted":
        event = await starts_with(ocpp, token, start, C01.accepted_starts)
        check_equal(C01.accepted_starts, "TransactionEvent idToken.idToken", token.id.casefold(),
                    dig(event.request, "idToken.idToken", "").casefold())
    else:
        await never_starts_with(ocpp, token, start, C01.rejected_no_start)


# the public test cases of a station refusing a token presented once the cable is in (OCPP 2.0.1 Part 6, block C)
CABLE_FIRST_CASES = {"Expired": "TC_C_07_CS", "Unknown": "TC_C_56_CS"}


def _cable_first_param(status):
    certification = {"cs": TC(CABLE_FIRST_CASES[status], "ocpp2.0.1")} if status in CABLE_FIRST_CASES else {}
    return pytest.param(status, marks=checks(Authorization.sent, C01.presented, C01.rejected_no_start,
                                             **certification))


@pytest.mark.sut_roles("cs")
@pytest.mark.parametrize("status", [_cable_first_param(s) for s in STATIC_STATUSES if s != "Accepted"])
@needs(lambda given: token_with(given.profile, given.params["status"]))
async def test_station_refuses_a_token_presented_after_the_cable(ocpp, profile, status):
    """Cable then card: the EV is connected first; the token presented next is asked about and, refused with
    ``status``, no transaction carries it (whether one started at the cable is the station's TxStartPoint)."""
    token, evse = token_with(profile, status), profile.evses[0].id
    await ocpp.act("cs", "plug_in", evse_id=evse)
    start = ocpp.mark()
    exchange = await authorize(ocpp, token, evse_id=evse)
    check_presented_token(exchange, token, C01.presented)
    await never_starts_with(ocpp, token, start, C01.rejected_no_start)


def _restricted(profile):
    """A token allowed at some EVSEs only, and an EVSE of the profile it is not allowed at."""
    for token in profile.tokens.values():
        other = [e.id for e in profile.evses if e.id not in token.evse_ids]
        if token.status == "Accepted" and token.evse_ids and other:
            return token, other[0]
    raise NotApplicable("the profile declares no Accepted token restricted (evse_ids) to some of its EVSEs only")


@pytest.mark.sut_roles("cs")
@pytest.mark.parametrize("allowed", [
    pytest.param(True, id="listed_evse", marks=checks(Authorization.sent, C01.evse_only)),
    pytest.param(False, id="other_evse", marks=checks(Authorization.sent, C01.evse_only)),
])
@needs(lambda given: _restricted(given.profile))
async def test_station_honours_the_evse_restriction(ocpp, profile, allowed):
    """A token the CSMS accepts with evseId charges at a listed EVSE; presented at another, the station
    starts nothing there (step 7: the restriction is the station's to apply)."""
    token, other = _restricted(profile)
    evse = token.evse_ids[0] if allowed else other
    await authorize(ocpp, token, evse_id=evse)
    start = ocpp.mark()
    await ocpp.act("cs", "plug_in", evse_id=evse)
    if allowed:
        event = await starts_with(ocpp, token, start, C01.evse_only)
        check_equal(C01.evse_only, "TransactionEvent evse.id", evse, dig(event.request, "evse.id"))
    else:
        await never_starts_with(ocpp, token, start, C01.evse_only)


@checks(Authorization.sent, C01.optional_fields)
@pytest.mark.sut_roles("cs")
@needs(lambda given: token_with(given.profile, "Accepted"))
async def test_station_charges_with_every_optional_field(ocpp, profile):
    """The harness's CSMS accepts the token with cacheExpiryDateTime, chargingPriority 9, two languages and a
    personalMessage as long as the version allows: the station still charges (a valid answer is never a
    refusal)."""
    token = token_with(profile, "Accepted")
    expiry = (clock.utcnow() + timedelta(hours=1)).isoformat(timespec="seconds").replace("+00:00", "Z")
    ocpp.configure(id_token_info_extra={
        "cacheExpiryDateTime": expiry, "chargingPriority": 9, "language1": "de", "language2": "en-GB",
        "personalMessage": {"format": "UTF8", "language": "de",
                            "content": "Willkommen! " + "ä" * (MESSAGE_LIMIT[ocpp.target.protocol] - 12)}})
    evse = profile.evses[0].id
    await authorize(ocpp, token, evse_id=evse)
    start = ocpp.mark()
    await ocpp.act("cs", "plug_in", evse_id=evse)
    await starts_with(ocpp, token, start, C01.optional_fields)
