"""C06 — Authorization with a local ID type (Local, MacAddress, eMAID, ISO15693).

A token of any of these types is authorized like a card (C01): the station asks about it with its
type, the CSMS answers the status the profile says it must get. The CSMS compares idToken and type
case-insensitively and ignores additionalInfo (spec 001 IdTokenType). In 2.0.1 the type is an
enumeration (IdTokenEnumType), so a type written in another case breaks the schema: that comparison
is judged in 2.1 only, where the type is a string.
"""

import pytest

from harness.roles import CS, CSMS
from harness.errors import NotApplicable
from harness.rules import RuleTable, must
from harness.suite import OCPP2, case, checks, needs
from harness.usecases.authorization import Authorization, authorize, check_presented_token, token_with
from harness.verdict import check_equal


class C06(RuleTable):
    """The rules of C06 (spec 001 IdTokenType)."""
    sent = must("spec 001 IdTokenType (type values); Events: AuthorizeRequest",
                "a station asks about a token of a local ID type with that type", by=CS)
    status = must("spec 001 IdTokenType (type values); Order of checks",
                  "the CSMS answers a token of a local ID type with the status the order of checks gives it", by=CSMS)
    case_insensitive = must("spec 001 IdTokenType (comparison is case-insensitive on idToken and type)",
                            "the CSMS decides on an idToken written in another case, or a type written in another "
                            "case, as on the token itself", by=CSMS)
    additional_info = must("spec 001 IdTokenType (additionalInfo is ignored in comparison)",
                           "the CSMS decides on a token with additionalInfo as on the token without it", by=CSMS)


pytestmark = case("C06", block="Authorization", roles=("csms", "cs"), protocols=OCPP2)

LOCAL_TYPES = ("Local", "MacAddress", "eMAID", "ISO15693")


def _status_of(exchange):
    return exchange.result["idTokenInfo"]["status"]


@pytest.mark.parametrize("id_type", LOCAL_TYPES)
@checks(C06.status, Authorization.sent, C06.sent)
@needs(lambda given: token_with(given.profile, "Accepted", type=given.params["id_type"]))
async def test_local_id_type_is_authorized(ocpp, profile, id_type):
    """A token of the type is sent with it and answered Accepted."""
    token = token_with(profile, "Accepted", type=id_type)
    exchange = await authorize(ocpp, token)
    if ocpp.is_sut(CS):
        check_presented_token(exchange, token, C06.sent)
    else:
        check_equal(C06.status, f"idTokenInfo.status of the {id_type} token {token.name}", "Accepted",
                    _status_of(exchange))


def _lettered(profile, status):
    """A token of ``status`` whose idToken has letters (another case writes it differently)."""
    token = next((t for t in profile.tokens_with(status) if not t.also and t.id.lower() != t.id.upper()), None)
    if token is None:
        raise NotApplicable(f"the profile declares no token with status {status} whose idToken has letters")
    return token


async def _swapped_case(ocpp, profile, status, written):
    """The token with its idToken (or its type) in swapped case gets the token's own status: a lookup that
    minds the case would answer Invalid."""
    token = _lettered(profile, status)
    id_token = token.wire()
    id_token[written] = id_token[written].swapcase()
    exchange = await authorize(ocpp, id_token)
    check_equal(C06.case_insensitive, f"idTokenInfo.status of {token.name} with its {written} as {id_token[written]}",
                status, _status_of(exchange))


@pytest.mark.sut_roles("csms")
@pytest.mark.parametrize("status", ["Accepted", "Blocked"])
@checks(C06.case_insensitive)
@needs(lambda given: _lettered(given.profile, given.params["status"]))
async def test_id_token_comparison_is_case_insensitive(ocpp, profile, status):
    """The idToken in swapped case gets the token's own status."""
    await _swapped_case(ocpp, profile, status, "idToken")


@pytest.mark.sut_roles("csms")
@pytest.mark.protocols("ocpp2.1")
@checks(C06.case_insensitive)
@needs(lambda given: _lettered(given.profile, "Accepted"))
async def test_type_comparison_is_case_insensitive(ocpp, profile):
    """The type in swapped case (a string in 2.1; an enumeration in 2.0.1, where this is no valid message)
    gets the token's own status."""
    await _swapped_case(ocpp, profile, "Accepted", "type")


@pytest.mark.sut_roles("csms")
@pytest.mark.parametrize("status", ["Accepted", "Blocked"])
@checks(C06.additional_info)
@needs(lambda given: token_with(given.profile, given.params["status"]))
async def test_additional_info_is_ignored(ocpp, profile, status):
    """The token with additionalInfo the CSMS has never seen gets the token's own status."""
    token = token_with(profile, status)
    id_token = token.wire() | {"additionalInfo": [{"additionalIdToken": "EVCC-0A1B2C3D", "type": "EVCCID"}]}
    exchange = await authorize(ocpp, id_token)
    check_equal(C06.additional_info, f"idTokenInfo.status of {token.name} with additionalInfo", status,
                _status_of(exchange))
