"""The OCPI part of the self-check fault catalog: deliberately faulty variants of the reference
OCPI peer, each breaking ONE named rule, and the suite tests that must catch it with the reason.

Same shape as ``catalog.py``: each fault is a small subclass of ``OcpiPeer`` overriding the least
code needed (for a functional module: a faulty handler or store put in its registry, ``modules``);
``test_faults_ocpi.py`` plays each selection with the faulty class as the embedded
SUT (``--embedded-sut catalog_ocpi:<Class>``), in the OCPI role(s) the node ids name. This file is
imported as the top-level module ``catalog_ocpi`` (this folder is put on the path, see conftest.py).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import catalog  # importable: conftest.py puts this folder on sys.path

from harness.clock import utcnow
from harness.ocpi import headers as hdr
from harness.ocpi.auth import AuthRules
from harness.ocpi.credentials import CredentialsRules, Registration
from harness.ocpi.envelope import EnvelopeRules, StatusCode, StatusError, build
from harness.ocpi.headers import REQUEST_ID, HeaderRules
from harness.ocpi.locations import LOCATIONS, LocationRules, LocationStore
from harness.ocpi.pagination import PaginationRules
from harness.ocpi.timestamps import format_datetime
from harness.reference.ocpi import VERSION, OcpiPeer
from harness.reference.ocpi.locations import LocationsSender
from harness.transport.http import HttpResponse

MODULE = "catalog_ocpi"
PROTOCOL = "ocpi2.2.1"
RAW_TOKENS = Path(__file__).resolve().parent / "ocpi-raw-tokens.toml"   # a profile declaring raw tokens


# ------------------------------------------------------------------------------ authentication
class Answers403ForAnUnknownToken(OcpiPeer):
    """An unknown token gets HTTP 403 instead of 401."""

    def _authenticate(self, request, module):
        try:
            return super()._authenticate(request, module)
        except StatusError as error:
            error.http_status = 403 if request.header("Authorization") else error.http_status
            raise


class Answers200ForAnUnknownToken(OcpiPeer):
    """An unknown token gets HTTP 200 with an error status_code instead of HTTP 401."""

    def _authenticate(self, request, module):
        try:
            return super()._authenticate(request, module)
        except StatusError as error:
            error.http_status = 200
            raise


class ReadsBothTokenForms(OcpiPeer):
    """Reads a token in either form whatever its profile declares: raw where base64 is declared,
    base64 where raw is."""

    token_policy = "either"


# ------------------------------------------------------------------------------ credentials
class AcceptsASecondPost(OcpiPeer):
    """A POST from a registered client registers it again instead of getting 405."""

    async def _serve_credentials(self, request, token):
        if request.method == "POST" and self.server_registered and token == self.server.token_c:
            self.server.state, self.server.token_a = Registration.NOT_REGISTERED, token
        return await super()._serve_credentials(request, token)


class KeepsTokenA(OcpiPeer):
    """Token A still opens the credentials endpoint after the registration."""

    async def _serve_credentials(self, request, token):
        token_a = self.server.token_a
        reply = await super()._serve_credentials(request, token)
        if self.server_registered and token_a is not None:
            self.server.token_a = token_a
        return reply


class KeepsTheReplacedToken(OcpiPeer):
    """After a PUT the replaced token C still opens the API."""

    async def _serve_credentials(self, request, token):
        reply = await super()._serve_credentials(request, token)
        if request.method == "PUT" and self.server_registered:
            self.server.token_a = token   # the old C lives on as a token that opens credentials
        return reply


class Answers3000OnConnectBackFailure(OcpiPeer):
    """A failed connect-back is answered 3000 (generic server error) instead of 3001."""

    async def _serve_credentials(self, request, token):
        reply = await super()._serve_credentials(request, token)
        if reply.body.get("status_code") == StatusCode.CLIENT_API_UNUSABLE:
            reply.body = build(status_code=StatusCode.SERVER_ERROR, status_message="registration failed")
        return reply


class PostsWithoutAMutualVersion(OcpiPeer):
    """The client POSTs its credentials although the server lists no mutual version."""

    async def register_with(self, versions_url, token_a):
        listing = await self.send("GET", versions_url, token=token_a)
        details = await self.send("GET", json.loads(listing.response_body)["data"][0]["url"], token=token_a)
        endpoints = json.loads(details.response_body)["data"]["endpoints"]
        url = next(e["url"] for e in endpoints if e["identifier"] == "credentials")
        await self.send("POST", url, token=token_a, body=self.server.own_credentials(self._offer()))


# ------------------------------------------------------------------------------ format
class AnswersErrorsInPlainText(OcpiPeer):
    """Error answers carry a framework's plain-text body instead of an OCPI envelope."""

    async def handle(self, request):
        response = await super().handle(request)
        if response.status >= 400:
            return HttpResponse(response.status, b"Unauthorized" if response.status == 401 else b"Error",
                                {**response.headers, "Content-Type": "text/plain"})
        return response


class ForgetsTheRequestId(OcpiPeer):
    """The answer does not repeat the request's X-Request-ID."""

    def _answer_headers(self, request, module):
        return {k: v for k, v in super()._answer_headers(request, module).items() if k != REQUEST_ID}


class SendsNoRequestIds(OcpiPeer):
    """Its own requests carry neither X-Request-ID nor X-Correlation-ID."""

    @staticmethod
    def tracking_headers():
        return {}


class ReusesOneRequestId(OcpiPeer):
    """Its own requests all carry the same X-Request-ID."""

    @staticmethod
    def tracking_headers():
        return {hdr.REQUEST_ID: "7f0c4d8e-0000-4000-8000-000000000001", hdr.CORRELATION_ID: hdr.new_id()}


class LowerCasesTheOthersParty(OcpiPeer):
    """Names the other platform's party in lower case (OCPI-to-* headers), not as its credentials
    roles declared it."""

    @property
    def peer_party(self):
        party = super().peer_party
        return party and hdr.Party(party.country_code.lower(), party.party_id.lower())


# ------------------------------------------------------------------------------ locations: pull
def _link_url(reply) -> str | None:
    link = (reply.headers or {}).get("Link")
    return link[1:link.index(">")] if link else None


class _DropsTheDateFilter(LocationsSender):
    async def serve(self, request, rest):
        reply = await super().serve(request, rest)
        url = _link_url(reply)
        if url:
            parts = urlsplit(url)
            query = [(k, v) for k, v in parse_qsl(parts.query) if k not in ("date_from", "date_to")]
            reply.headers["Link"] = f'<{urlunsplit(parts._replace(query=urlencode(query)))}>; rel="next"'
        return reply


class LinkDropsTheDateFilter(OcpiPeer):
    """The next-page Link leaves out the date filters of the original request."""

    modules = OcpiPeer.modules.with_handler(_DropsTheDateFilter)


class _LinksPastTheEnd(LocationsSender):
    async def serve(self, request, rest):
        reply = await super().serve(request, rest)
        if reply.headers and "X-Total-Count" in reply.headers and "Link" not in reply.headers:
            reply.headers["Link"] = f'<{request.url.split("?")[0]}?offset={reply.headers["X-Total-Count"]}>; rel="next"'
        return reply


class LinkOnTheLastPage(OcpiPeer):
    """The last page still carries a next-page Link."""

    modules = OcpiPeer.modules.with_handler(_LinksPastTheEnd)


class _CountsOneTooMany(LocationsSender):
    async def serve(self, request, rest):
        reply = await super().serve(request, rest)
        if reply.headers and "X-Total-Count" in reply.headers:
            reply.headers["X-Total-Count"] = str(int(reply.headers["X-Total-Count"]) + 1)
        return reply


class CountsOneTooMany(OcpiPeer):
    """X-Total-Count says one more Location than the list holds."""

    modules = OcpiPeer.modules.with_handler(_CountsOneTooMany)


class _EmptyLinkOnTheLastPage(LocationsSender):
    async def serve(self, request, rest):
        reply = await super().serve(request, rest)
        if reply.headers and "X-Total-Count" in reply.headers and "Link" not in reply.headers:
            reply.headers["Link"] = ""
        return reply


class EmptyLinkOnTheLastPage(OcpiPeer):
    """Legal: the last page carries an empty Link header (an empty list, RFC 9110 §5.6.1)."""

    modules = OcpiPeer.modules.with_handler(_EmptyLinkOnTheLastPage)


# ------------------------------------------------------------------------------ locations: push
class _NoPropagation(LocationStore):
    def _propagate(self, parents, last_updated):
        return None


class DoesNotPropagateLastUpdated(OcpiPeer):
    """A changed EVSE or Connector leaves its parents' last_updated as it was."""

    modules = OcpiPeer.modules.with_store(LOCATIONS, _NoPropagation)


class _PatchesWithoutLastUpdated(LocationsSender):
    async def push(self, method, ids, body):
        if method == "PATCH":
            body = {k: v for k, v in body.items() if k != "last_updated"}
        return await super().push(method, ids, body)


class PatchesWithoutLastUpdated(OcpiPeer):
    """The CPO's PATCH carries no last_updated."""

    modules = OcpiPeer.modules.with_handler(_PatchesWithoutLastUpdated)


class _LenientStore(LocationStore):
    def patch(self, country_code, party_id, target, changes):
        if isinstance(changes, dict) and "last_updated" not in changes:
            changes = {**changes, "last_updated": format_datetime(utcnow())}
        super().patch(country_code, party_id, target, changes)


class AcceptsAPatchWithoutLastUpdated(OcpiPeer):
    """The Receiver applies a PATCH that has no last_updated instead of answering 2001."""

    modules = OcpiPeer.modules.with_store(LOCATIONS, _LenientStore)


class _LowerCasingStore(LocationStore):
    def put(self, country_code, party_id, target, obj):
        if isinstance(obj, dict) and target.kind == "location":
            obj = {**obj, "id": obj["id"].lower(), "evses": [
                {**evse, "uid": evse["uid"].lower(),
                 "connectors": [{**c, "id": c["id"].lower()} for c in evse.get("connectors", [])]}
                for evse in obj.get("evses", [])]}
        return super().put(country_code, party_id, target, obj)


class StoresIdsLowerCased(OcpiPeer):
    """The Receiver keeps the ids of a pushed Location lower-cased and answers them so."""

    modules = OcpiPeer.modules.with_store(LOCATIONS, _LowerCasingStore)


# ------------------------------------------------------------------------------ legal variants
class PublishesTrailingSlashes(OcpiPeer):
    """Legal: publishes its versions, version details and module URLs with a trailing slash (as the
    2.2.1 examples write them) and serves only those: the same path without the slash is redirected
    (HTTP 307), as web frameworks do."""

    @property
    def versions_url(self):
        return f"{self._base()}/ocpi/versions/"

    @property
    def details_url(self):
        return f"{self._base()}/ocpi/{VERSION}/"

    def module_url(self, module):
        return f"{self.details_url}{module}/"

    async def handle(self, request):
        published = {urlsplit(url).path for url in (self.versions_url, self.details_url)} | {
            urlsplit(endpoint["url"]).path for endpoint in self.endpoints()}
        parts = urlsplit(request.url)
        if f"{parts.path}/" in published:
            return HttpResponse(307, b"", {"Location": urlunsplit(parts._replace(path=f"{parts.path}/"))})
        return await super().handle(request)


class IgnoresTheRegisterAction(OcpiPeer):
    """Asked to register, does nothing at all (so it never POSTs either)."""

    async def act_register(self, versions_url: str, token_a: str) -> None:
        return None


# ------------------------------------------------------------------------------ the records
@dataclass(frozen=True)
class Fault(catalog.Fault):
    """One faulty stand-in and how the suites must catch it: the record of ``catalog.py``, its class
    importable from this module, played under ``profile`` (the built-in one when None)."""
    profile: Path | None = None

    @property
    def embedded_sut(self) -> str:
        return f"{MODULE}:{self.cls.__name__}"

    @property
    def options(self) -> tuple[str, ...]:
        """The command-line options of its run."""
        return (f"--embedded-sut={self.embedded_sut}", *profile_options(self.profile))


def profile_options(profile: Path | None) -> tuple[str, ...]:
    return (f"--sut-profile={profile}",) if profile else ()


@dataclass(frozen=True)
class Variant:
    """A legal but unusual stand-in: every test of ``selection`` passes against it, with a finding
    naming the rule ``finding`` when one is given (a SHOULD the variant departs from)."""
    name: str
    cls: type
    selection: tuple[str, ...]
    finding: str | None = None

    @property
    def embedded_sut(self) -> str:
        return f"{MODULE}:{self.cls.__name__}"


def node(path: str, test: str, role: str, *params: str) -> str:
    return f"suites/ocpi/{path}::{test}[{'-'.join((role, PROTOCOL, *params))}]"


AUTH, FORMAT = "transport/test_OCPI_AUTH.py", "transport/test_OCPI_FORMAT.py"
OCPI_AUTH_UNDECLARED = "OCPI_AUTH.undeclared_form_refused"   # a use case's row: its table lives in the suite
CREDS = "credentials/test_OCPI_CREDENTIALS.py"
PULL, PUSH = "locations/test_OCPI_LOCATIONS_PULL.py", "locations/test_OCPI_LOCATIONS_PUSH.py"

FAULTS: tuple[Fault, ...] = (
    Fault("403-for-an-unknown-token", AuthRules.header.id, Answers403ForAnUnknownToken,
          (node(AUTH, "test_unknown_token_gets_401", "cpo", "credentials"),
           node(AUTH, "test_unknown_token_gets_401", "emsp", "locations")),
          "with an unknown token: HTTP 403 where HTTP 401 is due"),
    Fault("200-with-an-error-for-an-unknown-token", AuthRules.header.id, Answers200ForAnUnknownToken,
          (node(AUTH, "test_unknown_token_gets_401", "emsp", "versions"),),
          "HTTP 200, status_code 2000 (generic client error)"),
    Fault("second-post-accepted", CredentialsRules.post_when_registered.id, AcceptsASecondPost,
          (node(CREDS, "test_second_post_is_refused_with_405", "cpo"),),
          "a second POST: HTTP 200 where HTTP 405 is due"),
    Fault("undeclared-raw-token-accepted", OCPI_AUTH_UNDECLARED, ReadsBothTokenForms,
          (node(AUTH, "test_token_in_the_undeclared_form_is_refused", "cpo"),
           node(AUTH, "test_token_in_the_undeclared_form_is_refused", "emsp")),
          "token C in raw form where the profile declares base64: HTTP 200 where HTTP 401 is due", "finding"),
    Fault("undeclared-base64-token-accepted", OCPI_AUTH_UNDECLARED, ReadsBothTokenForms,
          (node(AUTH, "test_token_in_the_undeclared_form_is_refused", "cpo"),),
          "token C in base64 form where the profile declares raw: HTTP 200 where HTTP 401 is due", "finding",
          profile=RAW_TOKENS),
    Fault("token-a-kept-after-registration", CredentialsRules.token_a_discarded.id, KeepsTokenA,
          (node(CREDS, "test_registration", "emsp", "by_cpo"), node(CREDS, "test_registration", "cpo", "by_emsp"),
           node(CREDS, "test_registration_over_real_sockets", "cpo", "sockets")),
          "GET credentials with token A after the registration: HTTP 200 where HTTP 401 is due"),
    Fault("replaced-token-kept", CredentialsRules.rotation.id, KeepsTheReplacedToken,
          (node(CREDS, "test_put_rotates_the_tokens", "cpo", "by_emsp"),),
          "the old token C after the PUT: HTTP 200 where HTTP 401 is due"),
    Fault("connect-back-failure-not-3001", CredentialsRules.connect_back_failure.id, Answers3000OnConnectBackFailure,
          (node(CREDS, "test_connect_back_failure_gets_3001", "emsp"),),
          "the POST answer: status_code 3000 where 3001 (unable to use the client's API) is due"),
    Fault("posts-without-a-mutual-version", CredentialsRules.no_post_without_endpoints.id, PostsWithoutAMutualVersion,
          (node(CREDS, "test_no_mutual_version_or_endpoints", "cpo", "version", "by_cpo"),),
          "the SUT sent a credentials POST when it must not"),
    Fault("error-body-not-an-envelope", EnvelopeRules.json_object.id, AnswersErrorsInPlainText,
          (node(FORMAT, "test_answer_is_an_envelope_with_the_request_ids", "cpo", "unauthorized"),
           node(FORMAT, "test_answer_is_an_envelope_with_the_request_ids", "emsp", "method_not_allowed")),
          "is not an OCPI envelope: response body is not valid JSON"),
    Fault("request-id-not-echoed", HeaderRules.echo_ids.id, ForgetsTheRequestId,
          (node(FORMAT, "test_answer_is_an_envelope_with_the_request_ids", "emsp", "success"),),
          "X-Request-ID missing from the response"),
    Fault("sut-requests-without-ids", HeaderRules.request_ids.id, SendsNoRequestIds,
          (node(FORMAT, "test_sut_requests_carry_request_ids", "cpo"),
           node(FORMAT, "test_sut_requests_carry_request_ids", "emsp")),
          "carries no X-Request-ID and no X-Correlation-ID"),
    Fault("sut-requests-share-one-request-id", HeaderRules.request_ids.id, ReusesOneRequestId,
          (node(FORMAT, "test_sut_requests_carry_request_ids", "emsp"),),
          "repeats the X-Request-ID of the SUT's GET versions"),
    Fault("party-named-in-another-case", CredentialsRules.party_as_declared.id, LowerCasesTheOthersParty,
          (node(PUSH, "test_ids_and_party_come_back_as_sent", "cpo"),),
          "the harness's party in the CPO's PUT is wrong (expected 'NL*HAR', actual 'nl*har')", "finding"),
    Fault("ids-lower-cased", LocationRules.ids_as_sent.id, StoresIdsLowerCased,
          (node(PUSH, "test_ids_and_party_come_back_as_sent", "emsp"),),
          "Location id is wrong", "finding"),
    Fault("link-drops-the-date-filter", PaginationRules.link_filters.id, LinkDropsTheDateFilter,
          (node(PULL, "test_date_filter_on_last_updated", "cpo", "date_from"),),
          "Link does not repeat the original date filters"),
    Fault("link-on-the-last-page", PaginationRules.next_link.id, LinkOnTheLastPage,
          (node(PULL, "test_pages_chain_completely", "cpo"),),
          "Link on the last page"),
    Fault("x-total-count-one-too-many", PaginationRules.complete.id, CountsOneTooMany,
          (node(PULL, "test_pages_chain_completely", "cpo"),),
          "the pages ended after 5 objects but X-Total-Count is 6"),
    Fault("last-updated-not-propagated", LocationRules.propagation.id, DoesNotPropagateLastUpdated,
          (node(PUSH, "test_evse_status_patch_propagates", "emsp", "in_process"),
           node(PUSH, "test_connector_patch_propagates", "cpo")),
          "last_updated was not brought up to the change"),
    Fault("patch-without-last-updated", LocationRules.patch_last_updated.id, PatchesWithoutLastUpdated,
          (node(PUSH, "test_evse_status_patch_propagates", "cpo", "sockets"),),
          "the PATCH has no last_updated"),
    Fault("patch-without-last-updated-accepted", LocationRules.patch_last_updated.id,
          AcceptsAPatchWithoutLastUpdated, (node(PUSH, "test_patch_without_last_updated_gets_2001", "emsp"),),
          "a PATCH without last_updated: status_code 1000 where 2001 (invalid or missing parameters) is due"),
    Fault("register-ignored", CredentialsRules.client_discovery.id, IgnoresTheRegisterAction,
          (node(CREDS, "test_no_mutual_version_or_endpoints", "cpo", "version", "by_cpo"),
           node(CREDS, "test_no_mutual_version_or_endpoints", "cpo", "endpoints", "by_cpo")),
          "the SUT did not send a GET of"),
)


VARIANTS: tuple[Variant, ...] = (
    Variant("trailing-slash-urls", PublishesTrailingSlashes, ("suites/ocpi",)),
    Variant("empty-link-on-the-last-page", EmptyLinkOnTheLastPage,
            (node(PULL, "test_pages_chain_completely", "cpo"),
             node(PULL, "test_date_filter_on_last_updated", "cpo", "date_from"),
             node(PULL, "test_date_filter_on_last_updated", "cpo", "date_to"),
             node(PULL, "test_object_get_returns_one_location_evse_connector", "cpo")),
            PaginationRules.empty_link.id),
)
