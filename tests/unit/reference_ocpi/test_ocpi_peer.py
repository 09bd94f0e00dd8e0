"""The reference OCPI peer, two of them talking in-process (httpx.ASGITransport): the
credentials rules of the seed, authentication, the envelope and headers of every answer,
the locations Sender and Receiver, the actuator contract of a standalone peer."""

import asyncio
import base64
import json

import pytest

from harness.ocpi.auth import AuthRules, authorization_header
from harness.ocpi.credentials import CredentialsRules
from harness.ocpi.envelope import EnvelopeRules, StatusCode
from harness.ocpi.headers import HeaderRules
from harness.ocpi.locations import LOCATIONS, LocationRules, Target
from harness.ocpi.pagination import PageWalker
from harness.reference.ocpi import CPO, EMSP, OcpiPeer, PeerIdentity, secret_token
from harness.reference.ocpi.locations import sample_locations
from harness.transport.http import HttpClient, InProcessNetwork
from harness.wire import WireLog

TOKEN_A = "unit-token-a-0001"


def peers(*, encoding="base64", wirelog=None, cls=OcpiPeer):
    """(cpo, emsp) on one in-process network; the CPO accepts TOKEN_A; the eMSP logs the wire."""
    network = InProcessNetwork()
    cpo = cls(PeerIdentity(CPO, "NL", "CPO", "cpo", encoding), http=HttpClient(transport=network),
              stock={LOCATIONS: sample_locations("NL", "CPO", 5)}, page_limit=2)
    emsp = OcpiPeer(PeerIdentity(EMSP, "DE", "MSP", "emsp", encoding), wirelog=wirelog,
                    http=HttpClient(transport=network, wirelog=wirelog, channel="cpo"))
    cpo.bind(network.add("cpo", cpo.app), token_a=TOKEN_A)
    emsp.bind(network.add("emsp", emsp.app))
    return cpo, emsp


async def registered(**options):
    cpo, emsp = peers(**options)
    await emsp.register_with(cpo.versions_url, TOKEN_A)
    return cpo, emsp


def status(exchange) -> tuple[int, int | None]:
    return exchange.status, (exchange.json() or {}).get("status_code")


# ------------------------------------------------------------------------------ versions
async def test_versions_and_details_list_the_modules_by_role():
    cpo, emsp = peers()
    versions = await emsp.send("GET", cpo.versions_url, token=TOKEN_A)
    assert versions.json()["data"] == [{"version": "2.2.1", "url": cpo.details_url},
                                       {"version": "2.3.0", "url": cpo.details_url.replace("2.2.1", "2.3.0")}]
    later = (await emsp.send("GET", cpo.details_url.replace("2.2.1", "2.3.0"), token=TOKEN_A)).json()["data"]
    assert later["version"] == "2.3.0" and {(e["identifier"], e["role"]) for e in later["endpoints"]} == {
        ("credentials", "SENDER"), ("locations", "SENDER")}
    details = (await emsp.send("GET", cpo.details_url, token=TOKEN_A)).json()["data"]
    assert {(e["identifier"], e["role"]) for e in details["endpoints"]} == {("credentials", "SENDER"),
                                                                          ("locations", "SENDER"),
                                                                          ("sessions", "SENDER"),
                                                                          ("tokens", "RECEIVER"),
                                                                          ("commands", "RECEIVER"),
                                                                          ("chargingprofiles", "RECEIVER"),
                                                                          ("cdrs", "SENDER"),
                                                                          ("tariffs", "SENDER")}
    assert {e["role"] for e in emsp.endpoints()} == {"SENDER", "RECEIVER"}


# ------------------------------------------------------------------------------ credentials
async def test_registration_exchanges_b_and_c_and_discards_token_a():
    cpo, emsp = await registered()
    assert cpo.server_registered and emsp.client_registered
    assert emsp.peer_token == cpo.server.token_c and cpo.peer_token == emsp.own_token
    assert len({TOKEN_A, emsp.peer_token, emsp.own_token}) == 3
    back = [(s.module, s.token) for s in emsp.served]
    assert back == [("versions", emsp.own_token), ("version_details", emsp.own_token)]   # C3
    assert not emsp.violations and not cpo.violations
    url = cpo.module_url("credentials")
    assert status(await emsp.send("GET", url, token=TOKEN_A)) == (401, StatusCode.CLIENT_ERROR)   # C2
    assert status(await emsp.send("GET", url, token=emsp.peer_token)) == (200, 1000)
    assert status(await cpo.send("GET", emsp.module_url("credentials"), token=cpo.peer_token)) == (200, 1000)
    assert [v.rule for v in cpo.violations] == [AuthRules.header]   # the eMSP's probe with the discarded token A


async def test_second_post_is_405_and_changes_nothing():
    cpo, emsp = await registered()
    token_c = emsp.peer_token
    body = emsp.server.own_credentials(secret_token())
    answer = await emsp.send("POST", cpo.module_url("credentials"), token=token_c, body=body)
    assert status(answer) == (405, StatusCode.CLIENT_ERROR)
    assert cpo.server.token_c == token_c


@pytest.mark.parametrize("method", ["PUT", "DELETE", "PATCH"])
async def test_put_delete_patch_when_not_registered_are_405(method):
    cpo, emsp = peers()
    body = emsp.server.own_credentials(secret_token()) if method == "PUT" else None
    answer = await emsp.send(method, cpo.module_url("credentials"), token=TOKEN_A, body=body)
    assert status(answer) == (405, StatusCode.CLIENT_ERROR)


async def test_put_rotates_both_tokens_and_refetches_endpoints():
    cpo, emsp = await registered()
    old_c, old_b, fetched = emsp.peer_token, emsp.own_token, len(emsp.served)
    await emsp.update_registration()
    assert emsp.peer_token not in (old_c, None) and emsp.own_token not in (old_b, None)
    assert [(s.module, s.token) for s in emsp.served[fetched:]] == [("versions", emsp.own_token),
                                                                    ("version_details", emsp.own_token)]
    url = cpo.module_url("credentials")
    assert (await emsp.send("GET", url, token=old_c)).status == 401
    assert (await cpo.send("GET", emsp.module_url("credentials"), token=old_b)).status == 401


async def test_delete_ends_both_tokens():
    cpo, emsp = await registered()
    token_c, token_b = emsp.peer_token, emsp.own_token
    await emsp.unregister_from()
    assert not cpo.registered and not emsp.registered
    assert (await emsp.send("GET", cpo.module_url("credentials"), token=token_c)).status == 401
    assert (await cpo.send("GET", emsp.module_url("credentials"), token=token_b)).status == 401


async def test_the_registered_with_platform_may_get_but_not_put_credentials():
    cpo, emsp = await registered()
    url = emsp.module_url("credentials")
    assert status(await cpo.send("GET", url, token=cpo.peer_token)) == (200, 1000)
    assert (await cpo.send("DELETE", url, token=cpo.peer_token)).status == 405


async def test_connect_back_failure_is_3001_and_keeps_token_a():
    cpo, emsp = peers()
    body = {"token": secret_token(), "url": emsp.can("down", 503, b"down"), "roles": [emsp.identity.credentials_role()]}
    answer = await emsp.send("POST", cpo.module_url("credentials"), token=TOKEN_A, body=body)
    assert status(answer) == (200, StatusCode.CLIENT_API_UNUSABLE)
    assert cpo.server.token_a == TOKEN_A and not cpo.server_registered
    # the 503 is no envelope; the server answers 3001
    assert [v.rule for v in cpo.violations] == [EnvelopeRules.json_object, EnvelopeRules.success]


async def test_no_mutual_version_is_3002():
    cpo, emsp = peers()
    listed = emsp.can("old", 200, {"data": [{"version": "2.1.1", "url": emsp.details_url}], "status_code": 1000,
                                   "timestamp": "2024-01-01T00:00:00Z"})
    body = {"token": secret_token(), "url": listed, "roles": [emsp.identity.credentials_role()]}
    answer = await emsp.send("POST", cpo.module_url("credentials"), token=TOKEN_A, body=body)
    assert status(answer) == (200, StatusCode.UNSUPPORTED_VERSION)


async def test_invalid_credentials_body_is_2001_naming_the_field():
    cpo, emsp = peers()
    body = {"token": "has space", "url": emsp.versions_url, "roles": [emsp.identity.credentials_role()]}
    answer = await emsp.send("POST", cpo.module_url("credentials"), token=TOKEN_A, body=body)
    assert status(answer) == (200, StatusCode.INVALID_PARAMETERS)
    assert "token" in answer.json()["status_message"]


# ------------------------------------------------------------------------------ authentication
@pytest.mark.parametrize("authorization", [None, "Token " + base64.b64encode(b"unknown-token").decode(),
                                           "Bearer x", "Token  two-spaces"])
async def test_missing_or_unknown_token_is_401_with_an_envelope(authorization):
    cpo, emsp = peers()
    answer = await emsp.send("GET", cpo.versions_url, authorization=authorization)
    assert status(answer) == (401, StatusCode.CLIENT_ERROR)
    assert answer.header("X-Request-ID") == answer.request_header("X-Request-ID")


async def test_token_a_is_401_on_locations():
    cpo, emsp = peers()
    answer = await emsp.send("GET", cpo.module_url("locations"), token=TOKEN_A, module="locations")
    assert answer.status == 401 and "token A" in answer.json()["status_message"]
    assert [v.rule for v in cpo.violations] == [CredentialsRules.token_a_scope]


async def test_raw_token_is_accepted_under_either_and_reported():
    cpo, emsp = peers(encoding="either")
    raw = await emsp.send("GET", cpo.versions_url, authorization=f"Token {TOKEN_A}")
    assert raw.status == 200
    assert [(v.rule, v.strict) for v in cpo.violations] == [(AuthRules.raw_token, False)]
    assert (await emsp.send("GET", cpo.versions_url, authorization=authorization_header(TOKEN_A))).status == 200


async def test_raw_token_is_401_under_base64():
    cpo, emsp = peers()
    assert (await emsp.send("GET", cpo.versions_url, authorization=f"Token {TOKEN_A}")).status == 401


# ------------------------------------------------------------------------------ envelope and headers
@pytest.mark.parametrize("path", ["/nothing", "/ocpi/2.2.1/credentials/extra", "/ocpi/2.2.1/hubclientinfo"])
async def test_unknown_endpoint_is_404_with_an_envelope(path):
    cpo, emsp = peers()
    answer = await emsp.send("GET", cpo.base_url + path, token=TOKEN_A)
    assert status(answer) == (404, StatusCode.CLIENT_ERROR)
    assert answer.header("Content-Type") == "application/json"


async def test_routing_headers_are_swapped_on_functional_modules():
    cpo, emsp = await registered()
    answer = await emsp.send("GET", cpo.module_url("locations"), token=emsp.peer_token, module="locations")
    assert answer.header("OCPI-from-party-id") == "CPO" and answer.header("OCPI-to-party-id") == "MSP"
    assert answer.header("OCPI-to-country-code") == "DE"


async def test_answers_that_break_the_envelope_are_recorded():
    cpo, emsp = peers()
    url = emsp.can("plain", 200, b"plain text")
    await cpo.send("GET", url, token=TOKEN_A)
    assert [v.rule for v in cpo.violations] == [EnvelopeRules.json_object]


async def test_requests_without_ids_are_recorded():
    cpo, emsp = peers()
    await emsp.http.request("GET", cpo.versions_url, headers={"Authorization": authorization_header(TOKEN_A)})
    assert [v.rule for v in cpo.violations] == [HeaderRules.request_ids, HeaderRules.request_ids]


# ------------------------------------------------------------------------------ locations
async def test_sender_list_pages_chain_and_filter():
    cpo, emsp = await registered()
    walker = PageWalker(cpo.module_url("locations") + "?date_from=2024-03-02T09:00:00Z")
    while walker.next_url:
        answer = await emsp.send("GET", walker.next_url, token=emsp.peer_token, module="locations")
        walker.feed(walker.next_url, answer.response_headers, answer.json()["data"])
    assert [item["id"] for item in walker.items] == ["LOC-0002", "LOC-0003", "LOC-0004", "LOC-0005"]
    assert walker.pages == 2


async def test_sender_bad_limit_is_2001_and_object_get():
    cpo, emsp = await registered()
    url = cpo.module_url("locations")
    bad = await emsp.send("GET", url + "?limit=abc", token=emsp.peer_token, module="locations")
    assert status(bad) == (200, StatusCode.INVALID_PARAMETERS)
    connector = await emsp.send("GET", url + "/loc-0001/EVSE-0001-1/1", token=emsp.peer_token, module="locations")
    assert connector.json()["data"]["id"] == "1"
    missing = await emsp.send("GET", url + "/LOC-9", token=emsp.peer_token, module="locations")
    assert status(missing) == (404, StatusCode.UNKNOWN_LOCATION)
    assert (await emsp.send("PUT", url + "/LOC-0001", token=emsp.peer_token, module="locations", body={})).status == 405


async def test_push_put_patch_and_propagation_to_the_receiver():
    cpo, emsp = await registered()
    sender = cpo.handlers[LOCATIONS]
    assert (await sender.push_location("LOC-0001")).status == 201
    assert (await sender.push_location("LOC-0001")).status == 200
    patch = await sender.patch_own(("LOC-0001", "EVSE-0001-1"), {"status": "CHARGING"})
    assert status(patch) == (200, 1000)
    stamp = json.loads(patch.request_body)["last_updated"]
    stored = emsp.store(LOCATIONS).get("NL", "CPO", Target(("LOC-0001",)))
    assert stored["last_updated"] == stamp and stored["evses"][0]["status"] == "CHARGING"
    assert cpo.store(LOCATIONS).get_owned(Target(("LOC-0001",)))["last_updated"] == stamp
    assert not emsp.violations


async def test_receiver_refuses_patch_without_last_updated_and_delete():
    cpo, emsp = await registered()
    await cpo.handlers[LOCATIONS].push_location("LOC-0001")
    refused = await cpo.call("PATCH", LOCATIONS, ("LOC-0001", "EVSE-0001-1"), {"status": "BLOCKED"})
    assert status(refused) == (200, StatusCode.INVALID_PARAMETERS)
    assert [v.rule for v in emsp.violations] == [LocationRules.patch_last_updated]
    deleted = await cpo.call("DELETE", LOCATIONS, ("LOC-0001",))
    assert status(deleted) == (405, StatusCode.CLIENT_ERROR)
    bad_json = await cpo.send("PUT", cpo.other_url(LOCATIONS, "LOC-0002"), token=cpo.peer_token, module=LOCATIONS,
                              raw_body=b"{not json")
    assert status(bad_json) == (400, StatusCode.INVALID_PARAMETERS)
    assert [v.rule for v in emsp.violations][1:] == [LocationRules.removal, EnvelopeRules.request_json]


# ------------------------------------------------------------------------------ actions and the wire
async def test_actions_run_in_the_background_in_order():
    cpo, emsp = peers()
    await emsp.perform("issue_token_a", {"token": "another-token-a-01"})
    await cpo.perform("register", {"versions_url": emsp.versions_url, "token_a": "another-token-a-01"})
    await cpo.perform("update_credentials", {})
    await cpo.perform("push_location", {"location_id": "LOC-0002"})
    await cpo.perform("patch_evse_status", {"location_id": "LOC-0002", "evse_uid": "EVSE-0002-1", "status": "BLOCKED"})
    served = await emsp.wait_served(lambda s: s.method == "PATCH", 5)
    assert served is not None and [s.method for s in emsp.served if s.module == "credentials"] == ["POST", "PUT"]
    assert not cpo.background.failures and not emsp.violations


async def test_actuator_endpoint_contract():
    network = InProcessNetwork()
    peer = OcpiPeer(PeerIdentity(CPO, "NL", "CPO", "cpo"), http=HttpClient(transport=network), actuator_endpoint=True)
    peer.bind(network.add("peer", peer.app))
    client = HttpClient(transport=network)
    assert (await client.request("POST", f"{peer.base_url}/actuator/fly")).status == 501
    done = await client.request("POST", f"{peer.base_url}/actuator/issue_token_a", body=b'{"token": "fresh-token-a-1"}')
    assert done.status == 200 and peer.server.token_a == "fresh-token-a-1"
    assert (await client.request("POST", f"{peer.base_url}/actuator/issue_token_a", body=b'{"token": "a b"}')).status == 500


async def test_wire_log_has_one_line_per_message_and_masks_tokens():
    log = WireLog()
    await registered(wirelog=log)
    text = log.render()
    lines = text.splitlines()
    assert len(lines) == len(log.entries) >= 10
    assert {entry.direction for entry in log.entries} == {"→", "←"}
    assert TOKEN_A not in text and "«redacted»" in text
    assert all(not line.endswith("«redacted»") for line in lines)   # the headers' closing brace survives



@pytest.mark.parametrize("depth", [900, 5000], ids=["past-the-validator", "past-the-parser"])
async def test_a_body_nested_too_deep_is_answered_2001_never_500(depth):
    """A body the JSON parser reads but the schema validator would recurse through too deeply, and one
    the parser itself gives up on, are both unreadable bodies (2001), never an internal error."""
    cpo, emsp = await registered()
    body = ('{"a":' * depth + "1" + "}" * depth).encode()
    answer = await cpo.send("PUT", emsp.module_url(LOCATIONS) + "/NL/CPO/LOC-0001", token=cpo.peer_token, raw_body=body)
    assert (answer.status, answer.json()["status_code"]) == (400, 2001) and not emsp.harness_errors


class _SlowNetwork(InProcessNetwork):
    """Every request takes a moment: a connect-back is still under way when the next request comes."""

    async def handle_async_request(self, request):
        await asyncio.sleep(0.05)
        return await super().handle_async_request(request)


async def test_credentials_requests_that_overlap_are_served_one_after_the_other():
    """A second credentials request while the first one's connect-back runs waits for it, and is answered
    by the rules (never 500 with the harness's own error: found by the fuzzer's reading of the server)."""
    network = _SlowNetwork()
    cpo = OcpiPeer(PeerIdentity(CPO, "NL", "CPO", "cpo"), http=HttpClient(transport=network))
    emsp = OcpiPeer(PeerIdentity(EMSP, "DE", "MSP", "emsp"), http=HttpClient(transport=network))
    cpo.bind(network.add("cpo", cpo.app), token_a=TOKEN_A)
    emsp.bind(network.add("emsp", emsp.app))
    credentials = {"token": "never-offered-token-b", "url": emsp.versions_url,
                   "roles": [emsp.identity.credentials_role()]}
    first, second = await asyncio.gather(*(emsp.send("POST", cpo.module_url("credentials"), token=TOKEN_A,
                                                     body=credentials) for _ in range(2)))
    assert [status(first), status(second)] == [(200, StatusCode.CLIENT_API_UNUSABLE)] * 2   # the B was never offered
    assert not cpo.harness_errors


async def test_a_credentials_request_it_could_not_serve_holds_nothing_back():
    """A POST whose connect-back the server could not even attempt (a versions URL holding a lone
    surrogate: legal JSON that no HTTP client can send) is its own failure, answered 500; the next
    POST of that peer is served by the rules, never refused as "still being served"."""
    cpo, emsp = peers()
    url = cpo.module_url("credentials")
    unusable = {"token": secret_token(), "url": f"{emsp.versions_url}/\ud800", "roles": [emsp.identity.credentials_role()]}
    assert status(await emsp.send("POST", url, token=TOKEN_A, body=unusable))[0] == 500
    assert cpo.harness_errors and not cpo.server_registered
    credentials = await emsp.register_with(cpo.versions_url, TOKEN_A)
    assert credentials["token"] == cpo.server.token_c and cpo.server_registered
