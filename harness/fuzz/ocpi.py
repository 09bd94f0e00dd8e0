"""Fuzzing an OCPI platform: random paths, methods, headers and bodies, each with the answer the
specification names for it.

The fuzzer registers with the platform first (token A, its connect-back to a small versions server
of the fuzzer's, token C), then sends requests made by ``Requests`` — to paths that are no OCPI
endpoint, with no token, a malformed one or one the platform does not know, with methods an
endpoint does not define, bodies that are no JSON or break the object's schema, a PATCH without
``last_updated``, list queries with parameters that are no numbers or dates, valid requests with
junk headers — each with the ``Expect``ation the oracle judges the answer by (spec 000 Errors,
Authentication and Endpoints; facts ocpi-wire.md): the HTTP status, the envelope's status code, the
request ids echoed. Every answer must be an OCPI envelope; none may be a 5xx.
"""

from __future__ import annotations

import asyncio
import base64
import json
import random
import string
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import httpx

from harness import clock
from harness.fuzz.ocpp import Tally
from harness.fuzz.schema_data import mutate
from harness.ocpi import schemas as ocpi_schemas
from harness.reference.ocpi.locations import build_location
from harness.reference.ocpi.peer import KEPT
from harness.transport.http import HttpRequest, HttpResponse, HttpServer, asgi_app
from harness.wire import PASSING_KEPT

VERSION = "2.2.1"
FUZZER_PARTY = ("NL", "FUZ")
SUCCESS = frozenset({1000})
CLIENT_ERRORS = frozenset(range(2000, 3000))
INVALID = frozenset({2001})                  # invalid or missing parameters
TIMEOUT = 10.0
WARM_UP = KEPT + 100   # requests of the warm-up after the credentials requests (see Requests.warm_up)
_TEXT = string.ascii_letters + string.digits


@dataclass(frozen=True)
class Expect:
    """A correct platform's answer: an HTTP status of ``statuses`` and an envelope ``status_code`` of ``codes``."""
    fault: str
    what: str
    statuses: frozenset[int]
    codes: frozenset[int]


@dataclass(frozen=True)
class Request:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes
    expect: Expect


def token_header(token: str) -> str:
    return "Token " + base64.b64encode(token.encode()).decode()


def judge(request: Request, status: int, headers: dict[str, str], body: bytes) -> str | None:
    """Why the answer (``headers`` by lower-case name) is wrong for ``request``; None when right."""
    expect = request.expect
    try:
        envelope = json.loads(body)
    except ValueError:
        return f"HTTP {status} with a body that is no JSON: {body[:120]!r}"
    if not isinstance(envelope, dict) or not isinstance(envelope.get("status_code"), int) \
            or not isinstance(envelope.get("timestamp"), str):
        return f"HTTP {status} with a body that is no OCPI envelope: {body[:120]!r}"
    if status not in expect.statuses or envelope["status_code"] not in expect.codes:
        return (f"HTTP {status} status_code {envelope['status_code']} ({str(envelope.get('status_message'))[:100]}), "
                f"expected HTTP {sorted(expect.statuses)} with {_codes(expect.codes)}")
    if headers.get("x-request-id") != request.headers.get("X-Request-ID"):
        return f"X-Request-ID {request.headers.get('X-Request-ID')!r} echoed as {headers.get('x-request-id')!r}"
    return None


def _codes(codes: frozenset[int]) -> str:
    return "a 2xxx client error" if codes == CLIENT_ERRORS else f"status_code {sorted(codes)}"


class Requests:
    """Requests for a platform of ``role`` (cpo or emsp) whose endpoints (by module) and tokens are known."""

    def __init__(self, role: str, rng: random.Random, *, endpoints: dict[str, str], token: str, token_a: str,
                 location: dict[str, Any], location_schema: dict):
        self.role, self.rng, self.endpoints, self.token, self.token_a = role, rng, endpoints, token, token_a
        self.location, self.location_schema = location, location_schema
        self._makers = [(14, self._valid), (10, self._unknown_path), (10, self._bad_token), (8, self._wrong_method),
                        (8, self._not_json), (6, self._bad_query), (8, self._credentials)]
        self._makers += [(14, self._broken_object), (6, self._patch_without_last_updated)] if role == "emsp" \
            else [(8, self._unknown_object)]

    def next(self) -> Request:
        weights = [weight for weight, _ in self._makers]
        return self.rng.choices([make for _, make in self._makers], weights)[0]()

    def warm_up(self) -> list[Request]:
        """What the platform keeps from here on is what a run measures: a credentials request naming a new
        token for each one the redactor keeps masked in passing, then ``WARM_UP`` requests (as many as
        it keeps served requests and violations, and a margin)."""
        return [self._credentials() for _ in range(PASSING_KEPT)] + [self.next() for _ in range(WARM_UP)]

    # ------------------------------------------------------------------ helpers
    def _headers(self, token: str | None = None) -> dict[str, str]:
        headers = {"Authorization": token_header(token or self.token), "X-Request-ID": str(uuid.uuid4()),
                   "X-Correlation-ID": str(uuid.uuid4()),
                   "OCPI-from-country-code": FUZZER_PARTY[0], "OCPI-from-party-id": FUZZER_PARTY[1],
                   "OCPI-to-country-code": "NL", "OCPI-to-party-id": "REF"}
        if self.rng.random() < 0.3:   # junk headers change nothing
            for _ in range(self.rng.randint(1, 4)):
                name = "X-Fuzz-" + "".join(self.rng.choices(string.ascii_letters, k=self.rng.randint(1, 20)))
                headers[name] = "".join(self.rng.choices(string.ascii_letters + string.digits + " ;=,",
                                                         k=self.rng.randint(0, 200))).strip()
        return headers

    def _path(self, url: str) -> str:
        return httpx.URL(url).raw_path.decode()

    def _word(self, low: int = 1, high: int = 12) -> str:
        return "".join(self.rng.choices(_TEXT, k=self.rng.randint(low, high)))

    def _own_location(self) -> str:
        """The eMSP Receiver's URL of the fuzzer's one Location (a PUT replaces it: the store stays small)."""
        return f"{self._path(self.endpoints['locations'])}/{FUZZER_PARTY[0]}/{FUZZER_PARTY[1]}/{self.location['id']}"

    def _body_target(self) -> str:
        """An endpoint that reads a JSON body: the eMSP's Location Receiver, the CPO's charging preferences."""
        if self.role == "emsp":
            return self._own_location()
        return f"{self._path(self.endpoints['sessions'])}/{self._word()}/charging_preferences"

    # ------------------------------------------------------------------ the requests
    def _valid(self) -> Request:
        readable = [self._path(self.endpoints["versions"]), self._path(self.endpoints["details"]),
                    self._path(self.endpoints["credentials"])]
        if self.role == "cpo":
            readable.append(self._path(self.endpoints["locations"]) + self.rng.choice(
                ["", "?offset=0&limit=5", "?limit=1", "?date_from=2020-01-01T00:00:00Z"]))
            readable.append(self._path(self.endpoints["sessions"]) + "?date_from=2020-01-01T00:00:00Z")
            return Request("GET", self.rng.choice(readable), self._headers(), b"",
                           Expect("valid", "a valid GET", frozenset({200}), SUCCESS))
        if self.rng.random() < 0.5:
            location = {**self.location, "last_updated": "2024-05-01T12:00:00Z"}
            return Request("PUT", self._own_location(), self._headers() | {"Content-Type": "application/json"},
                           json.dumps(location).encode(),
                           Expect("valid", "a valid Location PUT", frozenset({200, 201}), SUCCESS))
        return Request("GET", self.rng.choice(readable + [self._own_location()]), self._headers(), b"",
                       Expect("valid", "a valid GET", frozenset({200}), SUCCESS))

    def _unknown_path(self) -> Request:
        rng = self.rng
        shape = rng.choice(["root", "ocpi", "version", "module"])
        if shape == "root":
            path = "/" + "/".join(self._word() for _ in range(rng.randint(0, 4)))
        elif shape == "ocpi":
            path = "/ocpi/" + rng.choice(["1.0", "2.2", "3.0", "versions/x", "2.2.1x", self._word()])
        elif shape == "version":   # a module the reference does not serve
            path = f"/ocpi/{VERSION}/" + rng.choice(["hubclientinfo", self._word()])
        else:
            path = self._path(self.endpoints["credentials"]) + "/" + self._word()
        method = rng.choice(["GET", "POST", "PUT", "PATCH", "DELETE"])
        return Request(method, path, self._headers(), b"",
                       Expect("unknown path", f"{method} {path}", frozenset({404}), CLIENT_ERRORS))

    def _bad_token(self) -> Request:
        rng = self.rng
        headers = self._headers()
        shape = rng.choice(["none", "unknown", "scheme", "not base64", "token A"])
        if shape == "none":
            del headers["Authorization"]
        elif shape == "unknown":
            headers["Authorization"] = token_header(self._word(10, 64))
        elif shape == "scheme":
            headers["Authorization"] = rng.choice(["Bearer ", "Basic ", "token", "Token  "]) + self._word()
        elif shape == "not base64":
            headers["Authorization"] = "Token " + self._word(3, 30) + "%*"
        else:   # discarded once the registration completed (spec 000 Authentication 2)
            headers["Authorization"] = token_header(self.token_a)
        path = self._path(self.endpoints[rng.choice(["locations", "sessions"])])
        if rng.random() < 0.3:
            path = self._path(self.endpoints[rng.choice(["versions", "details", "credentials"])])
        return Request("GET", path, headers, b"",
                       Expect("bad token", f"GET {path} with {shape} token", frozenset({401}), CLIENT_ERRORS))

    def _wrong_method(self) -> Request:
        rng = self.rng
        choices = [(self.endpoints["versions"], ["POST", "PUT", "PATCH", "DELETE"]),
                   (self.endpoints["details"], ["POST", "PUT", "PATCH", "DELETE"]),
                   (self.endpoints["credentials"], ["PATCH"])]
        if self.role == "cpo":
            choices.append((self.endpoints["locations"], ["POST", "PUT", "PATCH", "DELETE"]))
        else:
            choices.append((self.endpoints["locations"] + f"/{FUZZER_PARTY[0]}/{FUZZER_PARTY[1]}/{self.location['id']}",
                            ["POST", "DELETE"]))
        url, methods = rng.choice(choices)
        method = rng.choice(methods)
        path = self._path(url)
        return Request(method, path, self._headers(), b"",
                       Expect("undefined method", f"{method} {path}", frozenset({405}), CLIENT_ERRORS))

    def _not_json(self) -> Request:
        rng = self.rng
        body = rng.choice([b"{", b"not json", b"\xff\xfe", b"[1,2", b'{"a":}', b"{" * 5000,
                           b"{" + bytes(rng.getrandbits(8) for _ in range(rng.randint(1, 100)))])   # never JSON
        path = self._body_target()
        method = "PUT" if self.role == "cpo" or rng.random() < 0.5 else "PATCH"
        return Request(method, path, self._headers() | {"Content-Type": "application/json"}, body,
                       Expect("not JSON", f"{method} {path} with {body[:30]!r}", frozenset({400}), INVALID))

    def _credentials(self) -> Request:
        """Registered: a POST is refused 405 (spec 000 Errors); a PUT whose Credentials are incomplete 2001 —
        each naming a new token, which the platform must not keep (it never opens anything)."""
        rng = self.rng
        path = self._path(self.endpoints["credentials"])
        body = {"token": "fuzz-" + self._word(10, 40), "url": rng.choice([5, None, ["x"], {"u": 1}]),
                "roles": rng.choice([[], "CPO", [{"role": "CPO"}]])}
        if rng.random() < 0.3:
            body["url"] = "http://127.0.0.1:9/ocpi/versions"
            return Request("POST", path, self._headers() | {"Content-Type": "application/json"},
                           json.dumps(body).encode(),
                           Expect("credentials", "a credentials POST while registered", frozenset({405}), CLIENT_ERRORS))
        return Request("PUT", path, self._headers() | {"Content-Type": "application/json"}, json.dumps(body).encode(),
                       Expect("credentials", f"a credentials PUT with url {body['url']!r}, roles {body['roles']!r}",
                              frozenset({200, 400}), INVALID))

    def _bad_query(self) -> Request:
        rng = self.rng
        name = rng.choice(["offset", "limit", "date_from", "date_to"])
        value = rng.choice(["abc", "-1", "1.5", "", "9" * 30, "2024-13-45", "yesterday", "%00"])
        if name in ("offset", "limit") and value == "":
            value = "x"
        if self.role == "cpo":
            path = self._path(self.endpoints["locations"]) + f"?{name}={value}"
            expect = Expect("bad query", f"GET {path}", frozenset({200, 400}), INVALID)
        else:   # the eMSP's Receiver takes no list query: a GET of one object ignores it
            path = self._own_location() + f"?{name}={value}"
            expect = Expect("bad query", f"GET {path}", frozenset({200, 404}), SUCCESS | {2003})
        if value == "9" * 30 and name in ("offset", "limit"):   # a number: past the end, or capped, or refused
            expect = Expect("bad query", f"GET {path} (a huge {name})", frozenset({200, 400}), SUCCESS | INVALID)
        return Request("GET", path, self._headers(), b"", expect)

    def _broken_object(self) -> Request:
        """eMSP: the fuzzer's Location PUT, broken in one way (a required field, a type, a length, an enum)."""
        broken = mutate(self.location_schema, self.location, self.rng, null=False)
        body, mutation = broken
        if mutation.kind == "format":   # an undefined member: 2.3.0 receivers must not reject it (facts)
            return Request("PUT", self._own_location(), self._headers() | {"Content-Type": "application/json"},
                           json.dumps(body).encode(),
                           Expect("valid", f"a Location PUT with {mutation.what}", frozenset({200, 201}), SUCCESS))
        return Request("PUT", self._own_location(), self._headers() | {"Content-Type": "application/json"},
                       json.dumps(body).encode(),
                       Expect("schema", f"a Location PUT with {mutation.what} at {mutation.path}",
                              frozenset({200, 400}), INVALID))

    def _patch_without_last_updated(self) -> Request:
        body = {"name": self._word()}
        return Request("PATCH", self._own_location(), self._headers() | {"Content-Type": "application/json"},
                       json.dumps(body).encode(),
                       Expect("patch", "a PATCH without last_updated", frozenset({200, 400}), INVALID))

    def _unknown_object(self) -> Request:
        path = self._path(self.endpoints["locations"]) + "/" + "/".join(self._word() for _ in range(self.rng.randint(1, 3)))
        return Request("GET", path, self._headers(), b"",
                       Expect("unknown object", f"GET {path}", frozenset({404}), CLIENT_ERRORS))


def inline(files: dict[str, dict], reference: str) -> dict:
    """The schema at ``reference`` (``file.json`` or ``file.json#/$defs/Name``) with every ``$ref`` in it
    replaced by what it names, so that one schema stands alone (the OCPI schemas refer across files)."""
    name, _, pointer = reference.partition("#")
    node: Any = files[name.removesuffix(".json")]
    home = name
    for part in filter(None, pointer.split("/")):
        node = node[part]

    def expand(value: Any) -> Any:
        if isinstance(value, dict):
            if "$ref" in value:
                target = value["$ref"]
                return inline(files, home + target if target.startswith("#") else target)
            return {key: expand(item) for key, item in value.items()}
        if isinstance(value, list):
            return [expand(item) for item in value]
        return value
    return expand(node)


class RawHttp:
    """One keep-alive HTTP/1.1 connection, written and read by hand: the fuzzer's rate is the platform's,
    not a client library's (httpx spends more per request than the platform it measures)."""

    def __init__(self, host: str, port: int):
        self.host, self.port = host, port
        self._reader: asyncio.StreamReader | None = None
        self._writer: asyncio.StreamWriter | None = None

    async def request(self, method: str, path: str, headers: dict[str, str], body: bytes,
                      ) -> tuple[int, dict[str, str], bytes]:
        if self._writer is None or self._writer.is_closing():
            self._reader, self._writer = await asyncio.open_connection(self.host, self.port)
        lines = [f"{method} {path} HTTP/1.1", f"Host: {self.host}:{self.port}", f"Content-Length: {len(body)}"]
        lines += [f"{name}: {value}" for name, value in headers.items()]
        self._writer.write(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body)
        async with asyncio.timeout(TIMEOUT):
            head = (await self._reader.readuntil(b"\r\n\r\n")).decode("latin-1").split("\r\n")
            answered = {}
            for line in head[1:]:
                name, _, value = line.partition(":")
                if name:
                    answered[name.strip().lower()] = value.strip()
            content = await self._reader.readexactly(int(answered.get("content-length", "0")))
        if answered.get("connection", "").lower() == "close":
            await self.close()
        return int(head[0].split()[1]), answered, content

    async def close(self) -> None:
        if self._writer is not None:
            self._writer.close()
            self._writer = None


# ====================================================================== registration and the run
async def _fuzzer_platform(role: str) -> tuple[HttpServer, dict[str, str]]:
    """The fuzzer's own platform, for the connect-back of the registration: versions and details of the
    role the reference is not; any other request gets a success envelope."""
    other = "EMSP" if role == "cpo" else "CPO"
    interface = "RECEIVER" if role == "cpo" else "SENDER"
    server_box: dict[str, str] = {}

    async def handle(request: HttpRequest) -> HttpResponse:
        base = server_box["url"]
        if request.path.endswith("/versions"):
            data: Any = [{"version": VERSION, "url": f"{base}/ocpi/{VERSION}"}]
        elif request.path.endswith(f"/{VERSION}"):
            data = {"version": VERSION, "endpoints": [
                {"identifier": "credentials", "role": "SENDER", "url": f"{base}/ocpi/{VERSION}/credentials"},
                {"identifier": "locations", "role": interface, "url": f"{base}/ocpi/{VERSION}/locations"},
                {"identifier": "sessions", "role": interface, "url": f"{base}/ocpi/{VERSION}/sessions"}]}
        else:
            data = None
        body = {"data": data, "status_code": 1000, "timestamp": "2024-05-01T12:00:00Z"}
        return HttpResponse(200, json.dumps(body).encode(), {"Content-Type": "application/json"})

    server = await HttpServer(asgi_app(handle)).start()
    server_box["url"] = server.url
    return server, {"versions": f"{server.url}/ocpi/versions", "role": other}


async def register(client: httpx.AsyncClient, versions_url: str, token_a: str, own_versions: str, role: str,
                   ) -> tuple[str, dict[str, str]]:
    """Register with the platform at ``versions_url``: token C and the platform's endpoints by module."""
    token_b = "fuzz-b-" + uuid.uuid4().hex
    headers = {"Authorization": token_header(token_a), "X-Request-ID": "r", "X-Correlation-ID": "c"}
    versions = (await client.get(versions_url, headers=headers)).json()["data"]
    details_url = next(v["url"] for v in versions if v["version"] == VERSION)
    details = (await client.get(details_url, headers=headers)).json()["data"]["endpoints"]
    endpoints = {e["identifier"]: e["url"] for e in details}
    credentials = {"token": token_b, "url": own_versions,
                   "roles": [{"role": role, "party_id": FUZZER_PARTY[1], "country_code": FUZZER_PARTY[0],
                              "business_details": {"name": "fuzzer"}}]}
    answer = await client.post(endpoints["credentials"], headers=headers, json=credentials)
    token_c = answer.json()["data"]["token"]
    return token_c, endpoints | {"versions": versions_url, "details": details_url}


async def _send(raw: RawHttp, request: Request, tally: Tally) -> None:
    tally.frames += 1
    tally.by_fault[request.expect.fault] += 1
    try:
        status, headers, content = await raw.request(request.method, request.path, request.headers, request.body)
    except (OSError, EOFError, asyncio.IncompleteReadError, TimeoutError, ValueError) as error:
        tally.count_wrong(request.expect.what, f"no answer: {error!r}")
        await raw.close()
        return
    problem = judge(request, status, headers, content)
    if problem:
        tally.count_wrong(request.expect.what, problem)


async def play(base: str, token_a: str, rng: random.Random, count: int, report, rss: Callable[[], int], *,
               chunks: int) -> None:
    """Register with the platform at ``base`` and send it ``count`` requests after a warm-up, sampling ``rss()``
    before, after the warm-up and after each chunk."""
    role = "cpo" if "CPO" in report.target else "emsp"
    server, own = await _fuzzer_platform(role)
    tally: Tally = report.tally
    try:
        async with httpx.AsyncClient(timeout=TIMEOUT) as client:
            token_c, endpoints = await register(client, f"{base}/ocpi/versions", token_a, own["versions"], own["role"])
            location = build_location(*FUZZER_PARTY, "FUZZ-LOC-1", [("FUZZ-EVSE-1", ["1"])], "2024-05-01T12:00:00Z")
            requests = Requests(role, rng, endpoints=endpoints, token=token_c, token_a=token_a, location=location,
                                location_schema=inline(ocpi_schemas._schemas(), "location.json"))
            url = httpx.URL(base)
            raw = RawHttp(url.host, url.port)
            report.rss.append(rss())
            chunk = max(1, count // chunks)
            started = clock.now()
            for part in [requests.warm_up()] + [(requests.next() for _ in range(min(chunk, count - start)))
                                                for start in range(0, count, chunk)]:
                for request in part:
                    await _send(raw, request, tally)
                report.rss.append(rss())
            tally.seconds += clock.now() - started
            await raw.close()
    finally:
        await server.stop()
