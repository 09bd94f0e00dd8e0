"""OCPI_FORMAT — every answer is an OCPI envelope with the request's ids, errors included
(OCPI 2.2.1 transport and format: response format, unique message ids, message routing;
E1-E6 in harness/ocpi/envelope.py, H2/H4 in harness/ocpi/headers.py).

Framework defaults on 401, 404 or 405 (plain text, HTML, ``{"detail": ...}``) are the field's
classic trap; so are request ids not echoed and routing headers missing on errors.
"""

import secrets

import pytest

from harness.errors import PeerViolation
from harness.ocpi import headers as hdr
from harness.ocpi.envelope import meaning, parse
from harness.ocpi.versions import CREDENTIALS
from harness.ocpi_arena import CPO, EMSP
from harness.reference.ocpi import secret_token
from harness.reference.ocpi.peer import LOCATIONS
from harness.suite import OCPI, case
from harness.usecases import ocpi_credentials as creds
from harness.usecases.ocpi_locations import sut_object_url
from harness.verdict import fail, finding, require

pytestmark = case("OCPI_FORMAT", block="Transport and format", roles=(CPO, EMSP), protocols=OCPI)

ANSWERS = ["success", "unauthorized", "method_not_allowed", "unknown_object"]


async def _provoke(ocpi, answer: str):
    """A request whose answer is of the kind named; (exchange, module)."""
    if answer == "unknown_object":
        await creds.register(ocpi, ocpi.harness_role)
        url = sut_object_url(ocpi, (f"NO-SUCH-LOCATION-{secrets.token_hex(4).upper()}",))
        return await ocpi.harness.send("GET", url, token=ocpi.harness.peer_token, module=LOCATIONS), LOCATIONS
    token_a = await ocpi.sut_token_a()
    if answer == "success":
        return await ocpi.harness.send("GET", ocpi.sut_versions_url, token=token_a), None
    if answer == "unauthorized":
        return await ocpi.harness.send("GET", ocpi.sut_versions_url, authorization=None), None
    url = (await ocpi.sut_endpoints(token_a)).endpoint(CREDENTIALS).url
    body = ocpi.harness.server.own_credentials(secret_token())
    return await ocpi.harness.send("PUT", url, token=token_a, body=body), None


@pytest.mark.parametrize("answer", ANSWERS)
async def test_answer_is_an_envelope_with_the_request_ids(ocpi, answer):
    """E1-E4, H2 (and H4 on a functional module): the answer is an envelope whose status code
    agrees with the HTTP status, and it repeats X-Request-ID and X-Correlation-ID."""
    exchange, module = await _provoke(ocpi, answer)
    try:
        envelope = parse(exchange.response_body)
    except PeerViolation as violation:
        fail(violation.rule, f"the {answer.replace('_', ' ')} answer (HTTP {exchange.status}) is not an OCPI "
             f"envelope: {violation.args[0]}", expected="{status_code, timestamp, [status_message], [data]}",
             actual=exchange.text[:300])
    if answer == "success":
        require(envelope.ok and 200 <= exchange.status <= 299, "E6", "a successful call is not answered as one",
                expected="HTTP 2xx, status_code 1xxx", actual=f"HTTP {exchange.status}, {envelope.status_code}")
    else:
        require(not envelope.ok, "E4", f"an error (HTTP {exchange.status}) carries a success status_code",
                expected="2xxx or 3xxx", actual=f"{envelope.status_code} ({meaning(envelope.status_code)})")
    hdr.check_echo(exchange.request_headers, exchange.response_headers)
    content_type = exchange.header("Content-Type") or ""
    if not content_type.lower().startswith("application/json"):
        finding("E1", f"the {answer.replace('_', ' ')} answer is labelled {content_type or 'nothing'}, "
                      "not application/json")
    if answer == "unknown_object" and exchange.status != 404:
        finding("L2", f"a GET of an unknown Location should get HTTP 404, got HTTP {exchange.status}")
    if module is not None:
        try:
            hdr.check_response_route(hdr.read_route(exchange.request_headers), exchange.response_headers)
        except PeerViolation as violation:
            finding(violation.rule, f"routing headers of the {answer.replace('_', ' ')} answer: {violation.args[0]}")
