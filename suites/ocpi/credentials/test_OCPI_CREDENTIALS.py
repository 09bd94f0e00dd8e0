"""OCPI_CREDENTIALS — registration, token rotation and unregistration (credentials 2.2.1).

The module's rules are the rows of ``CredentialsRules`` (harness/ocpi/credentials.py): POST
registers, PUT renews both tokens and re-fetches the client's endpoints, DELETE unregisters; POST
when registered and PUT or DELETE when not get HTTP 405; the server connects back with token B
(3001 when it cannot, 3002 without a mutual version, 3003 without the endpoints it needs); token A
is discarded once registered; a client that finds no mutual version or endpoints does not POST.

Registration is symmetric: each dialogue is played with either platform as the initiator; when
it is the SUT, the actuator asks it to (``register``, ``update_credentials``, ``unregister``).
"""

import pytest

from harness.ocpi.credentials import CredentialsRules as Creds
from harness.ocpi.envelope import StatusCode
from harness.ocpi.locations import LOCATIONS
from harness.ocpi.versions import CREDENTIALS, RECEIVER, SENDER, VersionRules
from harness.arena.ocpi import check_answer
from harness.roles import CPO, EMSP
from harness.rules import RuleTable, must
from harness.suite import OCPI, case, checks
from harness.usecases import ocpi_credentials as creds
from harness.verdict import require


class OCPI_CREDENTIALS(RuleTable):
    """What the credentials use case judges beyond the module's own rows."""
    acts_when_asked = must("spec 000 Credentials module, Versioning 2-4; docs/actuators.md (register, "
                           "update_credentials, unregister)", "asked through its actuator, the SUT registers with, "
                           "updates or unregisters from the harness")
    names_its_role = must("spec 000 Credentials, CredentialsRole; profile [ocpi] country_code and party_id",
                          "the SUT's Credentials list it in its role with the party its profile declares")


pytestmark = case("OCPI_CREDENTIALS", block="Credentials", roles=(CPO, EMSP), protocols=OCPI)

INITIATORS = pytest.mark.parametrize("initiator", [CPO, EMSP], ids=["by_cpo", "by_emsp"])
ASKED = OCPI_CREDENTIALS.acts_when_asked


@INITIATORS
@checks(ASKED, OCPI_CREDENTIALS.names_its_role, Creds.client_discovery, Creds.token_b, Creds.connect_back,
        Creds.token_c, Creds.token_a_discarded)
async def test_registration(ocpi, initiator):
    """The initiator registers with the other: versions, details, POST; tokens B and C exchanged."""
    dialogue = await creds.register(ocpi, initiator, rule=ASKED)
    creds.check_sut_role(ocpi, dialogue.sut_credentials, OCPI_CREDENTIALS.names_its_role)
    url = dialogue.credentials_url
    if ocpi.is_sut(initiator):
        creds.check_connect_back(creds.before_credentials(dialogue.during), dialogue.token_a, Creds.client_discovery,
                                 "before its POST, with token A")
        await creds.check_opens(ocpi, url, ocpi.token_to_sut, Creds.token_b,
                                "a GET of the SUT's credentials with its token B")
        return
    creds.check_connect_back(dialogue.during, ocpi.token_from_sut, Creds.connect_back, "while serving the POST")
    await creds.check_opens(ocpi, url, ocpi.token_to_sut, Creds.token_c, "a GET of the SUT's credentials with token C")
    await creds.check_token_a_discarded(ocpi, dialogue)


@pytest.mark.parametrize("ocpi", ["sockets"], indirect=True)
@checks(Creds.connect_back, Creds.token_a_discarded)
async def test_registration_over_real_sockets(ocpi):
    """The same registration with both platforms on real TCP ports (uvicorn, httpx over the network)."""
    dialogue = await creds.registered(ocpi)
    creds.check_connect_back(dialogue.during, ocpi.token_from_sut, Creds.connect_back, "while serving the POST")
    await creds.check_token_a_discarded(ocpi, dialogue)


@checks(Creds.post_when_registered)
async def test_second_post_is_refused_with_405(ocpi):
    """A POST from a registered client gets HTTP 405 and changes nothing."""
    dialogue = await creds.registered(ocpi)
    answer = await ocpi.send("POST", dialogue.credentials_url, token=ocpi.token_to_sut, body=ocpi.harness_peer.credentials())
    check_answer(answer, Creds.post_when_registered, "a second POST", http_status=405)
    await creds.check_opens(ocpi, dialogue.credentials_url, ocpi.token_to_sut, Creds.post_when_registered,
                            "token C after the refused POST")


@pytest.mark.parametrize("method", ["PUT", "DELETE"])
@checks(Creds.not_registered)
async def test_put_or_delete_unregistered_is_refused_with_405(ocpi, method):
    """PUT and DELETE from a client that is not registered get HTTP 405."""
    token_a = await ocpi.sut_token_a()
    url = ocpi.sut_url(CREDENTIALS, endpoints=await ocpi.sut_endpoints(token_a))
    body = ocpi.harness_peer.credentials() if method == "PUT" else None
    answer = await ocpi.send(method, url, token=token_a, body=body)
    check_answer(answer, Creds.not_registered, f"{method} when not registered", http_status=405)


@INITIATORS
@checks(ASKED, Creds.client_discovery, Creds.rotation, Creds.token_b, Creds.replaced_b_refused, Creds.connect_back,
        Creds.token_c)
async def test_put_rotates_the_tokens(ocpi, initiator):
    """A PUT gives new tokens both ways; the server re-fetches the client's endpoints and the
    replaced token stops working."""
    registered = await creds.register(ocpi, initiator, rule=ASKED)
    old_harness_token, old_sut_token = ocpi.token_to_sut, ocpi.token_from_sut
    dialogue = await creds.update(ocpi, initiator, rule=ASKED)
    url = registered.credentials_url
    if ocpi.is_sut(initiator):
        creds.check_connect_back(creds.before_credentials(dialogue.during), old_sut_token, Creds.client_discovery,
                                 "before its PUT, with token C")
        new_b = ocpi.token_to_sut
        require(new_b != old_harness_token, Creds.rotation, "the SUT's PUT repeats its old token B",
                expected="a new token B", actual="the same token B")
        await creds.check_opens(ocpi, url, new_b, Creds.token_b, "a GET of the SUT's credentials with its new token B")
        check_answer(await creds.refused_soon(ocpi, url, old_harness_token), Creds.replaced_b_refused,
                     "the token B the SUT replaced", http_status=401)
        return
    creds.check_connect_back(dialogue.during, ocpi.token_from_sut, Creds.connect_back,
                             "while serving the PUT, with the new B")
    creds.check_unauthorized(await creds.get_credentials(ocpi, url, old_harness_token), Creds.rotation,
                             "the old token C after the PUT")
    await creds.check_opens(ocpi, url, ocpi.token_to_sut, Creds.token_c, "the new token C after the PUT")


@INITIATORS
@checks(ASKED, Creds.unregister, Creds.deleted_b_refused)
async def test_delete_unregisters(ocpi, initiator):
    """DELETE ends the registration; the client's token stops working."""
    await creds.register(ocpi, initiator, rule=ASKED)
    harness_token = ocpi.token_to_sut
    dialogue = await creds.unregister(ocpi, initiator, rule=ASKED)
    if ocpi.is_sut(initiator):
        after = await creds.refused_soon(ocpi, dialogue.credentials_url, harness_token)
        require(not ocpi.registered, Creds.unregister, "the harness is still registered after the SUT's DELETE")
        check_answer(after, Creds.deleted_b_refused, "the token B the SUT gave, after its DELETE", http_status=401)
        return
    creds.check_unauthorized(await creds.get_credentials(ocpi, dialogue.credentials_url, harness_token),
                             Creds.unregister, "token C after the DELETE")


# ------------------------------------------------------------------------------ registration faults
def _canned_versions(ocpi, missing: str | None) -> str:
    """A versions URL of the harness that fails the connect-back: unreachable (None), without a
    mutual version ("version"), or without a credentials endpoint ("endpoints")."""
    if missing is None:
        return ocpi.harness_peer.can("versions-down", 503, b"Service Unavailable")
    details = ocpi.harness_peer.can("details-no-credentials", 200, {
        "data": {"version": "2.2.1", "endpoints": [
            {"identifier": LOCATIONS, "role": SENDER if ocpi.harness_role == CPO else RECEIVER,
             "url": ocpi.harness_peer.module_url(LOCATIONS)}]},
        "status_code": 1000, "timestamp": "2024-01-01T00:00:00Z"})
    listed = "2.1.1" if missing == "version" else "2.2.1"
    return ocpi.harness_peer.can(f"versions-without-{missing}", 200, {
        "data": [{"version": listed, "url": details if missing == "endpoints" else ocpi.harness_peer.details_url}],
        "status_code": 1000, "timestamp": "2024-01-01T00:00:00Z"})


async def _post_to_sut(ocpi, versions_url: str):
    """The harness POSTs credentials naming ``versions_url`` to the SUT with a token A; (answer, url, token A)."""
    token_a = await ocpi.sut_token_a()
    url = ocpi.sut_url(CREDENTIALS, endpoints=await ocpi.sut_endpoints(token_a))
    answer = await ocpi.send("POST", url, token=token_a, body=ocpi.harness_peer.credentials(versions_url))
    return answer, url, token_a


@checks(Creds.connect_back_failure, Creds.token_a_kept_on_failure)
async def test_connect_back_failure_gets_3001(ocpi):
    """When the server cannot fetch the client's versions, it answers the POST with 3001; token A
    still registers the client when it retries."""
    answer, _, token_a = await _post_to_sut(ocpi, _canned_versions(ocpi, None))
    check_answer(answer, Creds.connect_back_failure, "the POST answer", status_code=StatusCode.CLIENT_API_UNUSABLE)
    await creds.check_token_a_kept(ocpi, token_a)


@INITIATORS
@pytest.mark.parametrize("missing", ["version", "endpoints"])
@checks(VersionRules.mutual_version, VersionRules.endpoints, Creds.no_post_without_endpoints, Creds.client_discovery)
async def test_no_mutual_version_or_endpoints(ocpi, initiator, missing):
    """A server without a mutual version answers 3002, without the endpoints it needs 3003; a
    client that finds no mutual version or endpoints does not POST. It must have looked: a client
    that does nothing would send no POST either, so its GET of the versions it was given is awaited."""
    versions_url = _canned_versions(ocpi, missing)
    if ocpi.is_sut(initiator):
        start = ocpi.mark()
        await ocpi.act(initiator, "register", versions_url=versions_url, token_a=ocpi.harness_peer.token_a())
        await ocpi.expect_fetch(versions_url, after=start, rule=Creds.client_discovery,
                                why="after the actuator action register")
        await ocpi.expect_no_request("POST", CREDENTIALS, after=start, rule=Creds.no_post_without_endpoints)
        return
    answer, _, _ = await _post_to_sut(ocpi, versions_url)
    if missing == "version":
        check_answer(answer, VersionRules.mutual_version, "the POST answer", status_code=StatusCode.UNSUPPORTED_VERSION)
    else:
        check_answer(answer, VersionRules.endpoints, "the POST answer", status_code=StatusCode.NO_MATCHING_ENDPOINTS)
