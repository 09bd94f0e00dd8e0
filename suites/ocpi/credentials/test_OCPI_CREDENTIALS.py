"""OCPI_CREDENTIALS — registration, token rotation and unregistration (credentials 2.2.1).

Rules (spec 000 "Credentials registration" table, "Credentials module", "Authentication",
"Errors", "Versioning"; C1-C7 in harness/ocpi/credentials.py): POST registers, PUT renews both
tokens and re-fetches the client's endpoints, DELETE unregisters; POST when registered and PUT or
DELETE when not get HTTP 405; the server connects back with token B (3001 when it cannot, 3002
without a mutual version, 3003 without the endpoints it needs); token A is discarded once
registered; a client that finds no mutual version or endpoints does not POST.

Registration is symmetric: each dialogue is played with either platform as the initiator; when
it is the SUT, the actuator asks it to (``register``, ``update_credentials``, ``unregister``).
"""

import json

import pytest

from harness.ocpi.envelope import StatusCode, meaning
from harness.ocpi.versions import CREDENTIALS
from harness.ocpi_arena import CPO, EMSP
from harness.reference.ocpi import secret_token
from harness.suite import OCPI, case
from harness.usecases import ocpi_credentials as creds
from harness.verdict import check_equal, finding, require

pytestmark = case("OCPI_CREDENTIALS", block="Credentials", roles=(CPO, EMSP), protocols=OCPI)

INITIATORS = pytest.mark.parametrize("initiator", [CPO, EMSP], ids=["by_cpo", "by_emsp"])


@INITIATORS
async def test_registration(ocpi, initiator):
    """The initiator registers with the other: versions, details, POST; tokens B and C exchanged."""
    dialogue = await creds.register(ocpi, initiator)
    creds.check_sut_role(ocpi, dialogue.sut_credentials, "C6: the Credentials name the platform in its role")
    if ocpi.is_sut(initiator):
        before_post = dialogue.during[:next(i for i, s in enumerate(dialogue.during) if s.module == CREDENTIALS)]
        creds.check_connect_back(before_post, dialogue.token_a, "C7 / Versioning 2: the client fetches the server's "
                                 "versions and details before it POSTs", "before its POST, with token A")
        token_b = ocpi.harness.peer_token
        creds.check_accepted(await creds.get_credentials(ocpi, dialogue.credentials_url, token_b),
                             "C3: token B opens the client's API", "a GET of the SUT's credentials with its token B")
        return
    creds.check_connect_back(dialogue.during, ocpi.harness.own_token, "C3: the server connects back with token B",
                             "while serving the POST")
    creds.check_accepted(await creds.get_credentials(ocpi, dialogue.credentials_url, ocpi.harness.peer_token),
                         "C4: token C opens the server's API", "a GET of the SUT's credentials with token C")
    creds.check_unauthorized(await creds.get_credentials(ocpi, dialogue.credentials_url, dialogue.token_a),
                             "C2: token A is discarded once registered", "token A after the registration")


@pytest.mark.parametrize("ocpi", ["sockets"], indirect=True)
async def test_registration_over_real_sockets(ocpi):
    """The same registration with both platforms on real TCP ports (uvicorn, httpx over the network)."""
    dialogue = await creds.register(ocpi, ocpi.harness_role)
    creds.check_connect_back(dialogue.during, ocpi.harness.own_token, "C3: the server connects back with token B",
                             "while serving the POST")
    creds.check_unauthorized(await creds.get_credentials(ocpi, dialogue.credentials_url, dialogue.token_a),
                             "C2: token A is discarded once registered", "token A after the registration")


async def test_second_post_is_refused_with_405(ocpi):
    """C1: a POST from a registered client gets HTTP 405 and changes nothing."""
    dialogue = await creds.register(ocpi, ocpi.harness_role)
    again = ocpi.harness.server.own_credentials(secret_token())
    answer = await ocpi.harness.send("POST", dialogue.credentials_url, token=ocpi.harness.peer_token, body=again)
    check_equal("C1: POST when registered → HTTP 405", "HTTP status of a second POST", 405, answer.status)
    creds.check_accepted(await creds.get_credentials(ocpi, dialogue.credentials_url, ocpi.harness.peer_token),
                         "C1: a refused POST leaves the registration as it was", "token C after the refused POST")


@pytest.mark.parametrize("method", ["PUT", "DELETE"])
async def test_put_or_delete_unregistered_is_refused_with_405(ocpi, method):
    """C1: PUT and DELETE from a client that is not registered get HTTP 405."""
    token_a = await ocpi.sut_token_a()
    url = (await ocpi.sut_endpoints(token_a)).endpoint(CREDENTIALS).url
    body = ocpi.harness.server.own_credentials(secret_token()) if method == "PUT" else None
    answer = await ocpi.harness.send(method, url, token=token_a, body=body)
    check_equal(f"C1: {method} when not registered → HTTP 405", f"HTTP status of {method}", 405, answer.status)


@INITIATORS
async def test_put_rotates_the_tokens(ocpi, initiator):
    """C4: a PUT gives new tokens both ways; the server re-fetches the client's endpoints and the
    replaced token stops working."""
    registered = await creds.register(ocpi, initiator)
    old_harness_token, old_sut_token = ocpi.harness.peer_token, ocpi.harness.own_token
    dialogue = await creds.update(ocpi, initiator)
    url = registered.credentials_url
    if ocpi.is_sut(initiator):
        before_put = dialogue.during[:next(i for i, s in enumerate(dialogue.during) if s.module == CREDENTIALS)]
        creds.check_connect_back(before_put, old_sut_token, "Versioning 3-4: the client fetches the server's "
                                 "versions and details before its PUT", "before its PUT, with token C")
        new_b = ocpi.harness.peer_token
        require(new_b != old_harness_token, "C4: a PUT carries a new token", "the SUT's PUT repeats its old token B",
                expected="a new token B", actual="the same token B")
        creds.check_accepted(await creds.get_credentials(ocpi, url, new_b), "C4: the new token B opens the "
                             "client's API", "a GET of the SUT's credentials with its new token B")
        old = await creds.refused_soon(ocpi, url, old_harness_token)
        if old.status != 401:
            finding("C4", f"the SUT still accepts the token B it replaced (HTTP {old.status}, 401 expected)")
        return
    creds.check_connect_back(dialogue.during, ocpi.harness.own_token, "C1 (PUT): the server re-fetches the "
                             "client's endpoints, even for the same version", "while serving the PUT, with the new B")
    creds.check_unauthorized(await creds.get_credentials(ocpi, url, old_harness_token),
                             "C4: the replaced token C stops working", "the old token C after the PUT")
    creds.check_accepted(await creds.get_credentials(ocpi, url, ocpi.harness.peer_token),
                         "C4: the new token C opens the server's API", "the new token C after the PUT")


@INITIATORS
async def test_delete_unregisters(ocpi, initiator):
    """C1/C4: DELETE ends the registration; the client's token stops working."""
    await creds.register(ocpi, initiator)
    harness_token = ocpi.harness.peer_token
    dialogue = await creds.unregister(ocpi, initiator)
    if ocpi.is_sut(initiator):
        after = await creds.refused_soon(ocpi, dialogue.credentials_url, harness_token)
        require(not ocpi.harness.registered, "C1", "the harness is still registered after the SUT's DELETE")
        if after.status != 401:
            finding("C1", f"after its DELETE the SUT still accepts the token B it gave (HTTP {after.status}, "
                          "401 expected): both parties end automated communication")
        return
    creds.check_unauthorized(await creds.get_credentials(ocpi, dialogue.credentials_url, harness_token),
                             "C4: DELETE ends both tokens", "token C after the DELETE")


# ------------------------------------------------------------------------------ registration faults
def _post_body(ocpi, versions_url: str) -> dict:
    return {"token": secret_token(), "url": versions_url, "roles": [ocpi.harness.identity.credentials_role()]}


def _canned_versions(ocpi, missing: str | None) -> str:
    """A versions URL of the harness that fails the connect-back: unreachable (None), without a
    mutual version ("version"), or without a credentials endpoint ("endpoints")."""
    if missing is None:
        return ocpi.harness.can("versions-down", 503, b"Service Unavailable")
    details = ocpi.harness.can("details-no-credentials", 200, {
        "data": {"version": "2.2.1", "endpoints": [
            {"identifier": "locations", "role": "SENDER" if ocpi.harness_role == CPO else "RECEIVER",
             "url": ocpi.harness.module_url("locations")}]},
        "status_code": 1000, "timestamp": "2024-01-01T00:00:00Z"})
    listed = "2.1.1" if missing == "version" else "2.2.1"
    return ocpi.harness.can(f"versions-without-{missing}", 200, {
        "data": [{"version": listed, "url": details if missing == "endpoints" else ocpi.harness.details_url}],
        "status_code": 1000, "timestamp": "2024-01-01T00:00:00Z"})


def _status_code(exchange) -> int | None:
    body = exchange.json()
    return body.get("status_code") if isinstance(body, dict) else None


async def test_connect_back_failure_gets_3001(ocpi):
    """C5: when the server cannot fetch the client's versions, it answers the POST with 3001."""
    token_a = await ocpi.sut_token_a()
    url = (await ocpi.sut_endpoints(token_a)).endpoint(CREDENTIALS).url
    answer = await ocpi.harness.send("POST", url, token=token_a, body=_post_body(ocpi, _canned_versions(ocpi, None)))
    code = _status_code(answer)
    check_equal("C5: connect-back failure → 3001", "status_code of the POST answer",
                StatusCode.CLIENT_API_UNUSABLE.value, code)
    still = await creds.get_credentials(ocpi, url, token_a)
    if still.status != 200:
        finding("C5", f"after a failed registration the SUT no longer accepts token A (HTTP {still.status}): "
                      "the client cannot retry")


@INITIATORS
@pytest.mark.parametrize("missing", ["version", "endpoints"])
async def test_no_mutual_version_or_endpoints(ocpi, initiator, missing):
    """C5/V3/V4: a server without a mutual version answers 3002, without the endpoints it needs 3003;
    a client that finds no mutual version or endpoints does not POST (C7)."""
    versions_url = _canned_versions(ocpi, missing)
    expected = StatusCode.UNSUPPORTED_VERSION if missing == "version" else StatusCode.NO_MATCHING_ENDPOINTS
    if ocpi.is_sut(initiator):
        start = ocpi.mark()
        await ocpi.act("register", versions_url=versions_url, token_a=ocpi.harness.issue_token_a())
        await ocpi.expect_no_request(creds.credentials_request("POST"), after=start, what="a credentials POST",
                                     rule=f"C7: no POST without a mutual {missing} (the spec's Errors table)")
        return
    token_a = await ocpi.sut_token_a()
    url = (await ocpi.sut_endpoints(token_a)).endpoint(CREDENTIALS).url
    answer = await ocpi.harness.send("POST", url, token=token_a, body=_post_body(ocpi, versions_url))
    code = _status_code(answer)
    check_equal(f"C5/V{3 if missing == 'version' else 4}: no mutual {missing} → {expected.value}",
                f"status_code of the POST answer ({meaning(code) if isinstance(code, int) else json.dumps(code)})",
                expected.value, code)
