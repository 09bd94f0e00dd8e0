"""OCPI_AUTH — the credentials token on every request (OCPI 2.2.1 transport and format,
"Authorization header"; A1-A4 in harness/ocpi/auth.py, C2 in harness/ocpi/credentials.py).

A missing header or an unknown token gets HTTP 401 (not 403, not a 200 carrying an error
code); token A opens only versions, version details and credentials; from 2.2 on the token
travels base64-encoded, and the profile says which form the SUT uses (a raw one is a finding).
"""

import pytest

from harness.errors import NotApplicable
from harness.ocpi.envelope import StatusError
from harness.ocpi.versions import CREDENTIALS
from harness.ocpi_arena import CPO, EMSP
from harness.reference.ocpi import secret_token
from harness.reference.ocpi.peer import LOCATIONS, RECEIVER, SENDER
from harness.suite import OCPI, case
from harness.usecases import ocpi_credentials as creds
from harness.verdict import finding

pytestmark = case("OCPI_AUTH", block="Authentication", roles=(CPO, EMSP), protocols=OCPI)

ENDPOINTS = ["versions", CREDENTIALS, LOCATIONS]


async def _url(ocpi, token_a: str, endpoint: str) -> str:
    """The SUT's ``endpoint``, found with token A; a Receiver URL names one of our Locations."""
    if endpoint == "versions":
        return ocpi.sut_versions_url
    details = await ocpi.sut_endpoints(token_a)
    if endpoint == CREDENTIALS:
        return details.endpoint(CREDENTIALS).url
    role = SENDER if ocpi.is_sut(CPO) else RECEIVER
    try:
        url = details.endpoint(LOCATIONS, role).url.rstrip("/")
    except StatusError:
        raise NotApplicable(f"the SUT's version details list no locations {role} endpoint") from None
    party = ocpi.harness.identity
    return url if ocpi.is_sut(CPO) else f"{url}/{party.country_code}/{party.party_id}/LOC-0001"


def _module(endpoint: str) -> str | None:
    return LOCATIONS if endpoint == LOCATIONS else None


@pytest.mark.parametrize("endpoint", ENDPOINTS)
async def test_missing_authorization_gets_401(ocpi, endpoint):
    """A1: a request without an Authorization header gets HTTP 401."""
    url = await _url(ocpi, await ocpi.sut_token_a(), endpoint)
    answer = await ocpi.harness.send("GET", url, authorization=None, module=_module(endpoint))
    creds.check_unauthorized(answer, "A1: no Authorization header → HTTP 401", f"GET {endpoint} without a token")


@pytest.mark.parametrize("endpoint", ENDPOINTS)
async def test_unknown_token_gets_401(ocpi, endpoint):
    """A1: a token the SUT never issued nor received gets HTTP 401."""
    url = await _url(ocpi, await ocpi.sut_token_a(), endpoint)
    answer = await ocpi.harness.send("GET", url, token=secret_token(), module=_module(endpoint))
    creds.check_unauthorized(answer, "A1: unknown token → HTTP 401", f"GET {endpoint} with an unknown token")


async def test_token_a_is_refused_on_a_functional_module(ocpi):
    """C2: token A opens versions, version details and credentials only; locations get 401."""
    token_a = await ocpi.sut_token_a()
    url = await _url(ocpi, token_a, LOCATIONS)
    answer = await ocpi.harness.send("GET", url, token=token_a, module=LOCATIONS)
    creds.check_unauthorized(answer, "C2: token A on a functional module → HTTP 401", "GET locations with token A")


async def test_token_encoding_follows_the_profile(ocpi, profile):
    """A2/A3: the SUT takes the token in the form the profile declares (base64 from 2.2 on);
    a platform that uses raw tokens is reported as a finding, so are raw tokens it sends."""
    encoding = profile.get("ocpi.token_encoding", "base64")
    dialogue = await creds.register(ocpi, ocpi.harness_role)
    creds.check_accepted(await creds.get_credentials(ocpi, dialogue.credentials_url, ocpi.harness.peer_token),
                         f"A2/A3: the SUT accepts the token in the declared form ({encoding})",
                         f"a GET of the SUT's credentials with token C in {ocpi.harness.identity.token_form.value}")
    if encoding == "raw":
        finding("A3", "the profile declares raw credentials tokens for the SUT: OCPI 2.2.1 platforms send and "
                      "accept base64 (A2)")
