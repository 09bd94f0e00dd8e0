"""OCPI_FORMAT — every answer is an OCPI envelope with the request's ids, errors included
(OCPI 2.2.1 transport and format: response format, unique message ids, message routing;
``EnvelopeRules`` in harness/ocpi/envelope.py, ``HeaderRules`` in harness/ocpi/headers.py).

Framework defaults on 401, 404 or 405 (plain text, HTML, ``{"detail": ...}``) are the field's
classic trap; so are request ids not echoed and routing headers missing on errors. The SUT's own
requests to the harness carry their ids too.
"""

import secrets

import pytest

from harness.errors import PeerViolation
from harness.ocpi import headers as hdr
from harness.ocpi.envelope import EnvelopeRules, parse
from harness.ocpi.credentials import CredentialsRules
from harness.ocpi.headers import HeaderRules
from harness.ocpi.locations import LOCATIONS, LocationRules
from harness.ocpi.versions import CREDENTIALS
from harness.arena.ocpi import check_answer
from harness.roles import CPO, EMSP
from harness.rules import RuleTable, must
from harness.suite import OCPI, case, checks
from harness.usecases import ocpi_credentials as creds
from harness.verdict import require, violated


class OCPI_FORMAT(RuleTable):
    """What the format use case judges beyond the rows of ``EnvelopeRules`` and ``HeaderRules``."""
    error_status = must("OCPI 2.2.1 status codes §5", "the answer to a request that failed carries an error "
                                                      "status_code (2xxx, 3xxx or 4xxx), never a 1xxx success")


pytestmark = case("OCPI_FORMAT", block="Transport and format", roles=(CPO, EMSP), protocols=OCPI)

ANSWERS = ["success", "unauthorized", "method_not_allowed", "unknown_object"]


async def _provoke(ocpi, answer: str):
    """A request whose answer is of the kind named; (exchange, module)."""
    if answer == "unknown_object":
        await creds.registered(ocpi)
        url = ocpi.sut_url(LOCATIONS, f"NO-SUCH-LOCATION-{secrets.token_hex(4).upper()}")
        return await ocpi.send("GET", url, token=ocpi.token_to_sut, module=LOCATIONS), LOCATIONS
    token_a = await ocpi.sut_token_a()
    if answer == "success":
        return await ocpi.send("GET", ocpi.sut_versions_url, token=token_a), None
    if answer == "unauthorized":
        return await ocpi.send("GET", ocpi.sut_versions_url, authorization=None), None
    url = ocpi.sut_url(CREDENTIALS, endpoints=await ocpi.sut_endpoints(token_a))
    return await ocpi.send("PUT", url, token=token_a, body=ocpi.harness_peer.credentials()), None


@pytest.mark.parametrize("answer", ANSWERS)
@checks(EnvelopeRules.json_object, EnvelopeRules.required_fields, EnvelopeRules.optional_fields,
        EnvelopeRules.success, OCPI_FORMAT.error_status, HeaderRules.echo_ids, EnvelopeRules.content_type,
        LocationRules.not_found, HeaderRules.routing_answer)
async def test_answer_is_an_envelope_with_the_request_ids(ocpi, answer):
    """The answer is an envelope whose status code agrees with the HTTP status, and it repeats
    X-Request-ID and X-Correlation-ID (and, on a functional module, names the route swapped)."""
    exchange, module = await _provoke(ocpi, answer)
    kind = answer.replace("_", " ")
    try:
        parse(exchange.response_body)
    except PeerViolation as violation:
        violated(violation.rule, f"the {kind} answer (HTTP {exchange.status}) is not an OCPI envelope: "
                 f"{violation.args[0]}", expected="{status_code, timestamp, [status_message], [data]}",
                 actual=exchange.text[:300])
    if answer == "success":
        check_answer(exchange, EnvelopeRules.success, "a successful call", success=True)
    else:
        check_answer(exchange, OCPI_FORMAT.error_status, f"an error (HTTP {exchange.status})", success=False)
    hdr.check_echo(exchange.request_headers, exchange.response_headers)
    content_type = exchange.header("Content-Type") or ""
    require(content_type.lower().startswith("application/json"), EnvelopeRules.content_type,
            f"the {kind} answer is labelled {content_type or 'nothing'}, not application/json")
    if answer == "unknown_object":
        check_answer(exchange, LocationRules.not_found, "a GET of an unknown Location", http_status=404)
    if module is not None:
        try:
            hdr.check_response_route(hdr.read_route(exchange.request_headers), exchange.response_headers)
        except PeerViolation as violation:
            violated(violation.rule, f"routing headers of the {kind} answer: {violation.args[0]}")


@checks(HeaderRules.request_ids, CredentialsRules.connect_back)
async def test_sut_requests_carry_request_ids(ocpi):
    """The SUT's own requests (its connect-back while it serves the harness's registration) each
    carry X-Request-ID, a new one each time, and X-Correlation-ID."""
    dialogue = await creds.registered(ocpi)
    require(bool(dialogue.during), CredentialsRules.connect_back, "the SUT answered the registration without "
            "fetching the harness's versions", expected="GET versions, GET version details", actual="no request")
    hdr.check_request_ids((f"the SUT's {served.method} {served.module or served.exchange.path}",
                           served.exchange.request_headers) for served in dialogue.during)
