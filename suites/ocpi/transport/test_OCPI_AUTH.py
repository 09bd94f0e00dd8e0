"""OCPI_AUTH — the credentials token on every request (OCPI 2.2.1 transport and format,
"Authorization header"; ``AuthRules`` in harness/ocpi/auth.py, token A's scope in
``CredentialsRules`` of harness/ocpi/credentials.py).

A missing header or an unknown token gets HTTP 401 (not 403, not a 200 carrying an error
code); token A opens only versions, version details and credentials; from 2.2 on the token
travels base64-encoded, and the profile says which form the SUT uses (a raw one is a finding).
"""

from urllib.parse import urlsplit

import pytest

from harness.errors import NotApplicable
from harness.ocpi.auth import AuthRules, TokenForm, authorization_header
from harness.ocpi.credentials import CredentialsRules
from harness.ocpi.locations import LOCATIONS
from harness.ocpi.versions import CREDENTIALS
from harness.roles import CPO, EMSP
from harness.rules import RuleTable, must, should
from harness.suite import OCPI, case, checks
from harness.usecases import ocpi_credentials as creds
from harness.verdict import violated


class OCPI_AUTH(RuleTable):
    """What the authentication use case judges beyond the rows of ``AuthRules``."""
    declared_encoding = must("OCPI 2.2.1 §4.1.2 Authorization header; profile [ocpi] token_encoding",
                             "the SUT accepts the token in the form its profile declares")
    undeclared_form_refused = should("OCPI 2.2.1 §4.1.2 Authorization header (and its note: read both forms by "
                                     "trial or by configuration); profile [ocpi] token_encoding; facts/ocpi-wire.md "
                                     "Authentication", "a SUT whose profile declares one token form refuses the "
                                     "other with HTTP 401 (one that reads both declares token_encoding = either)")


pytestmark = case("OCPI_AUTH", block="Authentication", roles=(CPO, EMSP), protocols=OCPI)

ENDPOINTS = ["versions", CREDENTIALS, LOCATIONS]


async def _url(ocpi, token_a: str, endpoint: str) -> str:
    """The SUT's ``endpoint``, found with token A; a Receiver URL names one of our Locations."""
    if endpoint == "versions":
        return ocpi.sut_versions_url
    ids = () if endpoint == CREDENTIALS or ocpi.is_sut(CPO) else ("LOC-0001",)
    return ocpi.sut_url(endpoint, *ids, endpoints=await ocpi.sut_endpoints(token_a))


def _module(endpoint: str) -> str | None:
    return LOCATIONS if endpoint == LOCATIONS else None


async def _refused_without_a_token(ocpi, endpoint: str, over: str = "") -> None:
    url = await _url(ocpi, await ocpi.sut_token_a(), endpoint)
    answer = await ocpi.send("GET", url, authorization=None, module=_module(endpoint))
    creds.check_unauthorized(answer, AuthRules.header, f"GET {endpoint}{over} without a token")


async def _refused_with_an_unknown_token(ocpi, endpoint: str, over: str = "") -> None:
    url = await _url(ocpi, await ocpi.sut_token_a(), endpoint)
    answer = await ocpi.send("GET", url, token=ocpi.new_token(), module=_module(endpoint))
    creds.check_unauthorized(answer, AuthRules.header, f"GET {endpoint}{over} with an unknown token")


async def _token_a_refused_on_locations(ocpi, over: str = "") -> None:
    token_a = await ocpi.sut_token_a()
    url = await _url(ocpi, token_a, LOCATIONS)
    answer = await ocpi.send("GET", url, token=token_a, module=LOCATIONS)
    creds.check_unauthorized(answer, CredentialsRules.token_a_scope, f"GET locations{over} with token A")


@pytest.mark.parametrize("endpoint", ENDPOINTS)
@checks(AuthRules.header)
async def test_missing_authorization_gets_401(ocpi, endpoint):
    """A request without an Authorization header gets HTTP 401."""
    await _refused_without_a_token(ocpi, endpoint)


@pytest.mark.parametrize("endpoint", ENDPOINTS)
@checks(AuthRules.header)
async def test_unknown_token_gets_401(ocpi, endpoint):
    """A token the SUT never issued nor received gets HTTP 401."""
    await _refused_with_an_unknown_token(ocpi, endpoint)


@checks(CredentialsRules.token_a_scope)
async def test_token_a_is_refused_on_a_functional_module(ocpi):
    """Token A opens versions, version details and credentials only; locations get 401."""
    await _token_a_refused_on_locations(ocpi)


@pytest.mark.parametrize("ocpi", ["https"], indirect=True)
@checks(AuthRules.header, CredentialsRules.token_a_scope)
async def test_the_401_rules_hold_over_https(ocpi):
    """Over HTTPS the 401 rules are unchanged (TLS authenticates no platform): no token and an unknown token
    get 401 on every endpoint, token A on locations too. In the embedded run both peers serve certificates
    of the run's PKI and verify each other's; a real SUT is reached at its versions URL, https."""
    if urlsplit(ocpi.sut_versions_url).scheme != "https":
        raise NotApplicable(f"the SUT's versions URL {ocpi.sut_versions_url} is not https")
    for endpoint in ENDPOINTS:
        await _refused_without_a_token(ocpi, endpoint, " over HTTPS")
        await _refused_with_an_unknown_token(ocpi, endpoint, " over HTTPS")
    await _token_a_refused_on_locations(ocpi, " over HTTPS")


@checks(OCPI_AUTH.declared_encoding, AuthRules.raw_token)
async def test_token_encoding_follows_the_profile(ocpi, profile):
    """The SUT takes the token in the form the profile declares (base64 from 2.2 on); a platform
    that uses raw tokens is reported as a finding, so are raw tokens it sends."""
    encoding = profile.get("ocpi.token_encoding", "base64")
    dialogue = await creds.registered(ocpi)
    await creds.check_opens(ocpi, dialogue.credentials_url, ocpi.token_to_sut, OCPI_AUTH.declared_encoding,
                            f"a GET of the SUT's credentials with token C in {ocpi.harness_peer.token_form}")
    if encoding == "raw":
        violated(AuthRules.raw_token, "the profile declares raw credentials tokens for the SUT: OCPI 2.2.1 "
                                      "platforms send and accept base64")


@checks(OCPI_AUTH.undeclared_form_refused)
async def test_token_in_the_undeclared_form_is_refused(ocpi, profile):
    """Token C in the form the profile does not declare is refused with HTTP 401: raw where base64
    is declared, base64 where raw is. 2.2.1 lets a platform read both forms (by trial or by
    configuration), so one that does is legal: a finding telling to declare ``either``, not a
    failure."""
    encoding = profile.get("ocpi.token_encoding", "base64")
    if encoding == "either":
        raise NotApplicable("the profile declares that the SUT reads both token forms (token_encoding = either)")
    other = TokenForm.RAW if encoding == TokenForm.BASE64.value else TokenForm.BASE64
    dialogue = await creds.registered(ocpi)
    answer = await ocpi.send("GET", dialogue.credentials_url,
                             authorization=authorization_header(ocpi.token_to_sut, other))
    creds.check_unauthorized(answer, OCPI_AUTH.undeclared_form_refused,
                             f"token C in {other.value} form where the profile declares {encoding}")
