"""Credentials dialogues, written once and played from either side: the initiator registers with
the other platform, updates the registration (new tokens both ways), unregisters. Rules C1-C7
are in harness/ocpi/credentials.py, A1-A4 in harness/ocpi/auth.py.

When the harness initiates, its peer drives a CredentialsClient against the SUT; when the SUT
initiates, the actuator asks it to (``register``, ``update_credentials``, ``unregister``) and the
harness's CredentialsServer serves it, checking what the SUT sends as it goes.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass
from typing import Any

from harness.ocpi.envelope import meaning
from harness.ocpi.versions import CREDENTIALS
from harness.ocpi_arena import OcpiArena
from harness.reference.ocpi import Served
from harness.transport.http import HttpExchange
from harness.verdict import fail, require


def credentials_request(method: str):
    return lambda served: served.module == CREDENTIALS and served.method == method


@dataclass
class Dialogue:
    """What one credentials dialogue left behind."""
    initiator: str
    sut_credentials: dict[str, Any] | None   # the SUT's Credentials: its answer, or its request body
    during: list[Served]                     # what the SUT asked the harness while it ran
    credentials_url: str                     # the SUT's credentials endpoint
    token_a: str | None = None


def _sut_credentials_url(arena: OcpiArena) -> str:
    return arena.harness.peer_endpoints.endpoint(CREDENTIALS).url


async def _sut_initiates(arena: OcpiArena, action: str, method: str, rule: str, **body: Any) -> Served:
    """Trigger ``action`` and wait for the SUT's credentials ``method``, which the harness's
    server must have served with success (else the fault it found fails the test)."""
    start, since = arena.mark(), arena.faults()
    await arena.act(action, **body)
    served = await arena.expect_request(credentials_request(method), after=start, rule=rule,
                                        what=f"a credentials {method}", why=f"after the actuator action {action}")
    arena.check_served(served, since=since, rule=rule, what=f"the SUT's credentials {method}")
    return served


async def register(arena: OcpiArena, initiator: str) -> Dialogue:
    """Spec 000 "Versioning" 2 and the registration table: the initiator fetches the other's
    versions and details with token A, POSTs its credentials (token B) and gets token C."""
    if arena.is_sut(initiator):
        start, token_a = arena.mark(), arena.harness.issue_token_a()
        served = await _sut_initiates(arena, "register", "POST", "C7: the SUT registers when asked",
                                      versions_url=arena.harness.versions_url, token_a=token_a)
        return Dialogue(initiator, served.body(), arena.harness.served[start:], _sut_credentials_url(arena),
                        token_a)
    token_a = await arena.sut_token_a()
    start = arena.mark()
    credentials = await arena.harness.register_with(arena.sut_versions_url, token_a)
    arena.spend_token_a(token_a)
    return Dialogue(initiator, credentials, arena.harness.served[start:], _sut_credentials_url(arena), token_a)


async def update(arena: OcpiArena, initiator: str) -> Dialogue:
    """C4: the initiator PUTs new credentials; both tokens are replaced."""
    start = arena.mark()
    if arena.is_sut(initiator):
        served = await _sut_initiates(arena, "update_credentials", "PUT",
                                      "C4: the SUT updates its registration when asked")
        credentials = served.body()
    else:
        credentials = await arena.harness.update_registration()
    return Dialogue(initiator, credentials, arena.harness.served[start:], _sut_credentials_url(arena))


async def unregister(arena: OcpiArena, initiator: str) -> Dialogue:
    """C1: the initiator DELETEs its registration."""
    url, start = _sut_credentials_url(arena), arena.mark()
    if arena.is_sut(initiator):
        await _sut_initiates(arena, "unregister", "DELETE", "C1: the SUT unregisters when asked")
    else:
        await arena.harness.unregister_from()
    return Dialogue(initiator, None, arena.harness.served[start:], url)


# ------------------------------------------------------------------------------ checks
def check_sut_role(arena: OcpiArena, credentials: dict[str, Any], rule: str) -> None:
    """The SUT's Credentials name it in its role, with the party the profile declares."""
    role = arena.sut_role.upper()
    party = (arena.profile.get("ocpi.country_code", "NL").lower(), arena.profile.get("ocpi.party_id", "REF").lower())
    listed = [(r.get("role"), r.get("country_code", "").lower(), r.get("party_id", "").lower())
              for r in credentials.get("roles", [])]
    require((role, *party) in listed, rule, f"the SUT's Credentials do not list it as {role} {party[0]}*{party[1]} "
            "(the profile's [ocpi] country_code and party_id)", expected=(role, *party), actual=listed)


def connect_back(during: list[Served]) -> list[Served]:
    """The SUT's GETs of the harness's versions and version details."""
    return [s for s in during if s.method == "GET" and s.module in ("versions", "version_details")]


def check_connect_back(during: list[Served], token: str, rule: str, what: str) -> None:
    """The SUT fetched the harness's versions, then the details, presenting ``token``."""
    fetched = connect_back(during)
    require([s.module for s in fetched][:2] == ["versions", "version_details"], rule,
            f"the SUT did not fetch the harness's versions and then its version details {what}",
            expected=["GET versions", "GET version details"], actual=[f"{s.method} {s.module}" for s in during])
    for served in fetched:
        require(served.token == token, rule, f"the SUT fetched {served.module} {what} with another token",
                expected="the token the harness gave it for this", actual="another token")


def check_unauthorized(exchange: HttpExchange, rule: str, what: str) -> None:
    """A1: HTTP 401, nothing else (not 403, not a 200 carrying an error code)."""
    if exchange.status == 401:
        return
    body = exchange.json()
    code = body.get("status_code") if isinstance(body, dict) else None
    if exchange.status == 403:
        fail(rule, f"{what}: HTTP 403 where 401 is due (the token is not known, not merely short of rights)",
             expected="HTTP 401", actual="HTTP 403")
    if 200 <= exchange.status <= 299:
        accepted = code is None or 1000 <= code <= 1999
        fail(rule, f"{what} was {'accepted' if accepted else 'answered HTTP ' + str(exchange.status)}"
             + ("" if accepted else f" with status_code {code} ({meaning(code)}): the HTTP status must be 401"),
             expected="HTTP 401", actual=f"HTTP {exchange.status}, status_code {code}")
    fail(rule, f"{what}: HTTP {exchange.status} where 401 is due", expected="HTTP 401",
         actual=f"HTTP {exchange.status}")


def check_accepted(exchange: HttpExchange, rule: str, what: str) -> Any:
    """The request succeeded: HTTP 2xx and a 1xxx status code; its data."""
    body = exchange.json()
    code = body.get("status_code") if isinstance(body, dict) else None
    require(200 <= exchange.status <= 299 and isinstance(code, int) and 1000 <= code <= 1999, rule,
            f"{what} was refused", expected="HTTP 2xx, status_code 1000",
            actual=f"HTTP {exchange.status}, status_code {code}")
    return body.get("data")


async def get_credentials(arena: OcpiArena, url: str, token: str) -> HttpExchange:
    return await arena.harness.send("GET", url, token=token)


async def refused_soon(arena: OcpiArena, url: str, token: str) -> HttpExchange:
    """GET ``url`` with ``token`` until it is refused (HTTP 401) or the quiet time is over; the
    last answer. The SUT may still be digesting the answer that ended the token."""
    deadline = time.monotonic() + arena.timeouts.quiet
    while True:
        answer = await get_credentials(arena, url, token)
        if answer.status == 401 or time.monotonic() >= deadline:
            return answer
        await asyncio.sleep(0.05)
