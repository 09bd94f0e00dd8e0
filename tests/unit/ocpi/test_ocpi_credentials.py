import json
from itertools import count

import pytest

import ocpi_examples
from harness.errors import HarnessError, PeerViolation
from harness.ocpi.auth import AuthRules
from harness.ocpi.credentials import (
    REGISTRATION, Action, CredentialsClient, CredentialsRules, CredentialsServer, Done, Registration, Respond, Send)
from harness.ocpi.envelope import EnvelopeRules, StatusError, build

CPO_ROLE = {"role": "CPO", "party_id": "VOL", "country_code": "NL", "business_details": {"name": "Voltaro"}}
SERVER_VERSIONS_URL = "https://cpo.example/ocpi/versions"
CLIENT_VERSIONS_URL = "https://emsp.example/ocpi/versions"
CLIENT_DETAILS_URL = "https://emsp.example/ocpi/2.2.1"
TOKEN_B = "token-b-from-the-client"


def ok(data=None) -> str:
    return json.dumps(build(data))


def tokens(prefix: str):
    numbers = count(1)
    return lambda: f"{prefix}-{next(numbers)}"


def details(version="2.2.1", *modules) -> str:
    endpoints = [{"identifier": "credentials", "role": "SENDER", "url": f"https://emsp.example/ocpi/{version}/credentials"}]
    endpoints += [{"identifier": module, "role": "RECEIVER", "url": f"https://emsp.example/ocpi/{version}/{module}"}
                  for module in modules]
    return ok({"version": version, "endpoints": endpoints})


CLIENT_VERSIONS = ok([{"version": "2.1.1", "url": "https://emsp.example/ocpi/2.1.1"},
                      {"version": "2.2.1", "url": CLIENT_DETAILS_URL}])


def client_credentials(token: str = TOKEN_B) -> bytes:
    body = ocpi_examples.credentials()
    body["token"], body["url"] = token, CLIENT_VERSIONS_URL
    return json.dumps(body).encode()


def new_server(**extra) -> CredentialsServer:
    server = CredentialsServer(versions=("2.2.1", "2.3.0"), url=SERVER_VERSIONS_URL, roles=[CPO_ROLE],
                               token_factory=tokens("server"), **extra)
    assert server.issue_token_a() == "server-1"
    return server


def register(server: CredentialsServer, token_b: str = TOKEN_B) -> Respond:
    """Drive a full POST through the connect-back, as the I/O layer would."""
    effect = server.handle_request("POST", server.token_a, client_credentials(token_b), version="2.2.1")
    assert effect == Send("GET", CLIENT_VERSIONS_URL, token_b)
    effect = server.handle_response(200, CLIENT_VERSIONS)
    assert effect == Send("GET", CLIENT_DETAILS_URL, token_b)
    return server.handle_response(200, details("2.2.1"))


def registered_server() -> CredentialsServer:
    server = new_server()
    assert register(server).http_status == 200
    return server


def data(respond: Respond):
    return respond.body.get("data")


# -- the table, row by row ----------------------------------------------------------------------

def test_table_covers_every_state_and_method_of_the_spec():
    assert set(REGISTRATION) == {(state, method) for state in Registration
                                 for method in ("POST", "PUT", "DELETE", "GET")}


def test_not_registered_post_registers():
    server = new_server()
    respond = register(server)
    assert respond.http_status == 200 and respond.body["status_code"] == 1000
    assert data(respond) == {"token": "server-2", "url": SERVER_VERSIONS_URL, "roles": [CPO_ROLE]}
    assert server.state is Registration.REGISTERED
    assert (server.version, server.token_c, server.peer_token) == ("2.2.1", "server-2", TOKEN_B)
    assert server.peer_endpoints.endpoint("credentials").url == "https://emsp.example/ocpi/2.2.1/credentials"


def test_token_a_is_discarded_after_registration():
    server = registered_server()
    assert server.token_a is None
    assert not server.permits("versions", "server-1")
    # A POST with the old token A is now an unknown token (401), not the 405 row.
    assert server.handle_request("POST", "server-1", client_credentials(), version="2.2.1").http_status == 401


def test_registered_post_is_405_and_changes_nothing():
    server = registered_server()
    respond = server.handle_request("POST", "server-2", client_credentials("other-b"), version="2.2.1")
    assert respond.http_status == 405 and respond.body["status_code"] == 2000
    assert respond.violation.rule == CredentialsRules.post_when_registered
    assert (server.state, server.token_c, server.peer_token) == (Registration.REGISTERED, "server-2", TOKEN_B)


@pytest.mark.parametrize("method", ["PUT", "DELETE"])
def test_not_registered_put_or_delete_is_405(method):
    server = new_server()
    body = client_credentials() if method == "PUT" else None
    respond = server.handle_request(method, "server-1", body, version="2.2.1")
    assert respond.http_status == 405 and "not registered" in respond.body["status_message"]
    assert server.state is Registration.NOT_REGISTERED and server.token_a == "server-1"


def test_registered_put_rotates_the_tokens():
    server = registered_server()
    effect = server.handle_request("PUT", "server-2", client_credentials("token-b-2"), version="2.2.1")
    assert effect == Send("GET", CLIENT_VERSIONS_URL, "token-b-2")
    server.handle_response(200, CLIENT_VERSIONS)
    respond = server.handle_response(200, details("2.2.1"))
    assert data(respond)["token"] == "server-3"
    assert not server.permits("credentials", "server-2")      # the old C stops working
    assert server.permits("locations", "server-3")
    assert server.peer_token == "token-b-2"
    assert server.handle_request("GET", "server-2", None, version="2.2.1").http_status == 401


def test_put_on_another_version_switches_to_it():
    server = registered_server()
    server.handle_request("PUT", "server-2", client_credentials("token-b-2"), version="2.3.0")
    versions = ok([{"version": "2.2.1", "url": CLIENT_DETAILS_URL},
                   {"version": "2.3.0", "url": "https://emsp.example/ocpi/2.3.0"}])
    assert server.handle_response(200, versions).url == "https://emsp.example/ocpi/2.3.0"
    assert server.handle_response(200, details("2.3.0")).http_status == 200
    assert server.version == "2.3.0"


def test_registered_delete_unregisters_and_invalidates_the_client_token():
    server = registered_server()
    respond = server.handle_request("DELETE", "server-2", None, version="2.2.1")
    assert respond.http_status == 200 and respond.body["status_code"] == 1000 and "data" not in respond.body
    assert server.state is Registration.NOT_REGISTERED
    assert server.peer_token is None and server.peer_endpoints is None
    assert not server.permits("credentials", "server-2")
    assert server.handle_request("DELETE", "server-2", None, version="2.2.1").http_status == 401


@pytest.mark.parametrize("registered, token", [(False, "server-1"), (True, "server-2")])
def test_get_shows_our_credentials_in_both_states(registered, token):
    server = registered_server() if registered else new_server()
    respond = server.handle_request("GET", token, None, version="2.2.1")
    assert respond.http_status == 200
    assert data(respond) == {"token": token, "url": SERVER_VERSIONS_URL, "roles": [CPO_ROLE]}


def test_patch_is_not_defined():
    respond = registered_server().handle_request("PATCH", "server-2", b"{}", version="2.2.1")
    assert respond.http_status == 405 and respond.violation.rule == CredentialsRules.undefined_method


@pytest.mark.parametrize("state, method", sorted(REGISTRATION, key=str))
def test_every_row_of_the_table_does_what_it_says(state, method):
    server = registered_server() if state is Registration.REGISTERED else new_server()
    token = server.token_c or server.token_a
    row = REGISTRATION[(state, method)]
    effect = server.handle_request(method, token, client_credentials("token-b-9"), version="2.2.1")
    if row.action in (Action.REGISTER, Action.UPDATE):
        assert isinstance(effect, Send)
        server.handle_response(200, CLIENT_VERSIONS)
        effect = server.handle_response(200, details())
    assert effect.http_status == (405 if row.action is Action.REJECT else 200)
    assert server.state is row.then


# -- connect-back failures: 3001, 3002, 3003 ----------------------------------------------------

def start_post(server: CredentialsServer) -> None:
    assert isinstance(server.handle_request("POST", "server-1", client_credentials(), version="2.2.1"), Send)


def assert_failed_with(respond: Respond, code: int, server: CredentialsServer) -> None:
    assert respond.http_status == 200 and respond.body["status_code"] == code
    assert isinstance(respond.violation, PeerViolation)
    # Nothing changed: still not registered, token A still opens the door for a retry.
    assert server.state is Registration.NOT_REGISTERED and server.token_c is None
    assert server.permits("credentials", "server-1")


def test_unreachable_client_is_3001():
    server = new_server()
    start_post(server)
    respond = server.handle_failure("connection refused")
    assert_failed_with(respond, 3001, server)
    assert "connection refused" in respond.body["status_message"]


def test_client_versions_endpoint_erroring_is_3001():
    server = new_server()
    start_post(server)
    assert_failed_with(server.handle_response(401, ok()), 3001, server)


def test_client_details_not_an_envelope_is_3001():
    server = new_server()
    start_post(server)
    server.handle_response(200, CLIENT_VERSIONS)
    respond = server.handle_response(200, "<html>oops</html>")
    assert_failed_with(respond, 3001, server)
    assert respond.violation.rule == EnvelopeRules.json_object


def test_client_details_of_another_version_is_3001():
    server = new_server()
    start_post(server)
    server.handle_response(200, CLIENT_VERSIONS)
    assert_failed_with(server.handle_response(200, details("2.1.1")), 3001, server)


def test_client_without_this_version_is_3002():
    server = new_server()
    start_post(server)
    respond = server.handle_response(200, ok([{"version": "2.1.1", "url": "https://emsp.example/ocpi/2.1.1"}]))
    assert_failed_with(respond, 3002, server)


def test_client_without_a_needed_endpoint_is_3003():
    server = new_server(needs=[("credentials", None), ("locations", "RECEIVER")])
    start_post(server)
    server.handle_response(200, CLIENT_VERSIONS)
    assert_failed_with(server.handle_response(200, details("2.2.1", "sessions")), 3003, server)


def test_needed_endpoint_present_registers():
    server = new_server(needs=[("credentials", None), ("locations", "RECEIVER")])
    start_post(server)
    server.handle_response(200, CLIENT_VERSIONS)
    assert server.handle_response(200, details("2.2.1", "locations")).body["status_code"] == 1000


# -- authentication -----------------------------------------------------------------------------

@pytest.mark.parametrize("module, allowed", [("versions", True), ("version_details", True), ("credentials", True),
                                             ("locations", False), ("sessions", False)])
def test_token_a_opens_only_registration_endpoints(module, allowed):
    assert new_server().permits(module, "server-1") is allowed


def test_token_c_opens_every_module():
    server = registered_server()
    assert all(server.permits(module, "server-2") for module in ("versions", "credentials", "locations", "sessions"))


@pytest.mark.parametrize("token", [None, "guess", TOKEN_B])
def test_unknown_tokens_get_401(token):
    respond = new_server().handle_request("POST", token, client_credentials(), version="2.2.1")
    assert respond.http_status == 401 and respond.violation.rule == AuthRules.header


# -- bodies -------------------------------------------------------------------------------------

def test_body_that_is_not_json_gets_400():
    respond = new_server().handle_request("POST", "server-1", b"token=abc", version="2.2.1")
    assert (respond.http_status, respond.body["status_code"]) == (400, 2001)


def test_body_that_is_not_credentials_gets_2001_naming_the_field():
    body = json.loads(client_credentials())
    body["roles"][0]["party_id"] = "EXAM"
    respond = new_server().handle_request("POST", "server-1", json.dumps(body), version="2.2.1")
    assert (respond.http_status, respond.body["status_code"]) == (200, 2001)
    assert respond.body["status_message"] == "roles[0].party_id: at most 3 characters"


def test_duplicate_roles_get_2001():
    body = json.loads(client_credentials())
    twin = dict(body["roles"][0], party_id="exa")     # same party, other case: still the same
    body["roles"].append(twin)
    respond = new_server().handle_request("POST", "server-1", json.dumps(body), version="2.2.1")
    assert respond.body["status_code"] == 2001 and respond.violation.rule == CredentialsRules.body


# -- misuse by our own I/O layer ----------------------------------------------------------------

def test_second_request_during_a_connect_back_is_our_bug():
    server = new_server()
    start_post(server)
    with pytest.raises(HarnessError):
        server.handle_request("GET", "server-1", None, version="2.2.1")


def test_answer_without_a_connect_back_is_our_bug():
    with pytest.raises(HarnessError):
        new_server().handle_response(200, ok())


def test_token_a_only_for_an_unregistered_peer():
    with pytest.raises(HarnessError):
        registered_server().issue_token_a()


# -- the client (initiator) ---------------------------------------------------------------------

SERVER_VERSIONS = ok([{"version": "2.1.1", "url": "https://cpo.example/ocpi/2.1.1"},
                      {"version": "2.2.1", "url": "https://cpo.example/ocpi/2.2.1"}])
SERVER_DETAILS = ok({"version": "2.2.1", "endpoints": [
    {"identifier": "credentials", "role": "RECEIVER", "url": "https://cpo.example/ocpi/2.2.1/credentials"},
    {"identifier": "locations", "role": "SENDER", "url": "https://cpo.example/ocpi/2.2.1/locations"}]})


def new_client(versions=("2.2.1", "2.3.0")) -> CredentialsClient:
    return CredentialsClient(versions_url=SERVER_VERSIONS_URL, token_a="token-a", versions=versions,
                             url=CLIENT_VERSIONS_URL, roles=ocpi_examples.credentials()["roles"],
                             token_factory=tokens("client"))


def server_answer(token: str) -> str:
    return ok({"token": token, "url": SERVER_VERSIONS_URL, "roles": [CPO_ROLE]})


def client_about_to_post() -> CredentialsClient:
    """A client that fetched the server's versions and details; its POST is on the wire."""
    client = new_client()
    client.register()
    client.handle_response(200, SERVER_VERSIONS)
    client.handle_response(200, SERVER_DETAILS)
    return client


def registered_client() -> CredentialsClient:
    client = client_about_to_post()
    assert isinstance(client.handle_response(200, server_answer("token-c")), Done)
    return client


def test_client_registration_steps():
    client = new_client()
    assert client.register() == Send("GET", SERVER_VERSIONS_URL, "token-a")
    assert client.handle_response(200, SERVER_VERSIONS) == Send("GET", "https://cpo.example/ocpi/2.2.1", "token-a")
    post = client.handle_response(200, SERVER_DETAILS)
    assert (post.method, post.url, post.token) == ("POST", "https://cpo.example/ocpi/2.2.1/credentials", "token-a")
    assert post.body["token"] == "client-1" and post.body["url"] == CLIENT_VERSIONS_URL
    done = client.handle_response(200, server_answer("token-c"))
    assert done.credentials["token"] == "token-c"
    assert (client.registered, client.token, client.own_token, client.version) == (True, "token-c", "client-1", "2.2.1")


def test_client_without_credentials_endpoint_does_not_post():
    client = new_client()
    client.register()
    client.handle_response(200, SERVER_VERSIONS)
    only_locations = ok({"version": "2.2.1", "endpoints": [
        {"identifier": "locations", "role": "SENDER", "url": "https://cpo.example/ocpi/2.2.1/locations"}]})
    with pytest.raises(StatusError) as caught:
        client.handle_response(200, only_locations)
    assert int(caught.value.status_code) == 3003
    assert not client.registered and client.token == "token-a"
    with pytest.raises(HarnessError):          # nothing is pending: no POST will be made
        client.handle_response(200, server_answer("token-c"))


def test_client_with_no_mutual_version():
    client = new_client(versions=("2.3.0",))
    client.register()
    with pytest.raises(StatusError) as caught:
        client.handle_response(200, SERVER_VERSIONS)
    assert int(caught.value.status_code) == 3002


def test_client_refused_by_the_server_stays_unregistered():
    client = client_about_to_post()
    with pytest.raises(PeerViolation) as caught:
        client.handle_response(200, json.dumps(build(status_code=3001)))
    assert caught.value.actual == 3001
    assert not client.registered and client.token == "token-a" and client.own_token is None


def test_client_catches_a_server_that_does_not_renew_the_token():
    client = client_about_to_post()
    with pytest.raises(PeerViolation) as caught:
        client.handle_response(200, server_answer("token-a"))
    assert caught.value.rule == CredentialsRules.token_c


def test_client_update_puts_a_new_token_b_and_takes_the_new_c():
    client = registered_client()
    assert client.update() == Send("GET", SERVER_VERSIONS_URL, "token-c")
    client.handle_response(200, SERVER_VERSIONS)
    put = client.handle_response(200, SERVER_DETAILS)
    assert (put.method, put.token, put.body["token"]) == ("PUT", "token-c", "client-2")
    client.handle_response(200, server_answer("token-c2"))
    assert (client.token, client.own_token) == ("token-c2", "client-2")


def test_client_unregister():
    client = registered_client()
    assert client.unregister() == Send("DELETE", "https://cpo.example/ocpi/2.2.1/credentials", "token-c")
    assert client.handle_response(200, ok()) == Done(None)
    assert (client.registered, client.token, client.own_token) == (False, None, None)


def test_client_misuse_is_our_bug():
    with pytest.raises(HarnessError):
        new_client().update()
    client = new_client()
    client.register()
    with pytest.raises(HarnessError):
        client.register()


# -- both halves together, through an in-memory I/O layer --------------------------------------

def test_client_registers_updates_and_unregisters_with_our_server():
    server = CredentialsServer(versions=("2.2.1",), url=SERVER_VERSIONS_URL, roles=[CPO_ROLE],
                               token_factory=tokens("server"))
    client = CredentialsClient(versions_url=SERVER_VERSIONS_URL, token_a=server.issue_token_a(),
                               versions=("2.1.1", "2.2.1"), url=CLIENT_VERSIONS_URL,
                               roles=ocpi_examples.credentials()["roles"], token_factory=tokens("client"))
    server_pages = {SERVER_VERSIONS_URL: ("versions", SERVER_VERSIONS),
                    "https://cpo.example/ocpi/2.2.1": ("version_details", SERVER_DETAILS)}
    client_pages = {CLIENT_VERSIONS_URL: ok([{"version": "2.2.1", "url": CLIENT_DETAILS_URL}]),
                    CLIENT_DETAILS_URL: details("2.2.1")}

    def to_server(send: Send) -> tuple[int, str]:
        if send.url in server_pages:
            module, page = server_pages[send.url]
            return (200, page) if server.permits(module, send.token) else (401, ok())
        effect = server.handle_request(send.method, send.token, json.dumps(send.body) if send.body else None,
                                       version="2.2.1")
        while isinstance(effect, Send):            # the server connects back to the client
            assert effect.token == send.body["token"]     # connect-back uses token B
            effect = server.handle_response(200, client_pages[effect.url])
        return effect.http_status, json.dumps(effect.body)

    def run(effect):
        while isinstance(effect, Send):
            effect = client.handle_response(*to_server(effect))
        return effect

    run(client.register())
    assert client.token == server.token_c and server.peer_token == client.own_token
    run(client.update())
    assert client.token == server.token_c == "server-3" and server.peer_token == client.own_token == "client-2"
    run(client.unregister())
    assert server.state is Registration.NOT_REGISTERED and not client.registered
    with pytest.raises(HarnessError, match="unregistered"):   # no token left to present: a new client registers
        client.register()
