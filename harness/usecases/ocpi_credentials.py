"""Credentials dialogues, written once and played from either side: the initiator registers with
the other platform, updates the registration (new tokens both ways), unregisters. The rules are
the rows of ``harness.ocpi.credentials.CredentialsRules`` and ``harness.ocpi.auth.AuthRules``.

When the harness initiates, its peer drives a CredentialsClient against the SUT; when the SUT
initiates, the actuator asks it to (``register``, ``update_credentials``, ``unregister``) and the
harness's CredentialsServer serves it, checking what the SUT sends as it goes; the SUT's silence,
or a request the harness could not serve, breaks the ``rule`` the caller names.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from harness import clock
from harness.cistring import id_key
from harness.errors import PeerViolation
from harness.ocpi.credentials import CredentialsRules
from harness.ocpi.envelope import EnvelopeRules, outcome
from harness.ocpi.headers import Headers, addressee
from harness.ocpi.versions import CREDENTIALS
from harness.arena.ocpi import OcpiArena, check_answer
from harness.rules import Rule
from harness.transport.http import HttpExchange, Served
from harness.verdict import check_equal, require, violated


@dataclass
class Dialogue:
    """What one credentials dialogue left behind."""
    initiator: str
    sut_credentials: dict[str, Any] | None   # the SUT's Credentials: its answer, or its request body
    during: list[Served]                     # what the SUT asked the harness while it ran
    credentials_url: str                     # the SUT's credentials endpoint
    token_a: str | None = None


REGISTRATION_OWNER = "OCPI_CREDENTIALS"   # the use case whose tests judge the registration


async def registered(arena: OcpiArena) -> Dialogue:
    """The harness registers with the SUT: the precondition of every functional-module test. What the
    SUT breaks meanwhile fails the OCPI_CREDENTIALS tests (and those that declare the rule); any
    other test is not applicable, rather than fail again for it (``Arena.prerequisite``)."""
    async with arena.prerequisite("registration", owner=REGISTRATION_OWNER):
        token_a = await arena.sut_token_a()
        start = arena.mark()
        credentials = await arena.harness_peer.registers(token_a)
    return Dialogue(arena.harness_role, credentials, arena.requests_since(start), arena.sut_url(CREDENTIALS), token_a)


async def register(arena: OcpiArena, initiator: str, *, rule: Rule) -> Dialogue:
    """Spec 000 "Versioning" 2 and the registration table: the initiator fetches the other's
    versions and details with token A, POSTs its credentials (token B) and gets token C."""
    if not arena.is_sut(initiator):
        return await registered(arena)
    start, token_a = arena.mark(), arena.harness_peer.token_a()
    post = await arena.exchange(initiator, "POST", CREDENTIALS, rule=rule, trigger=(
        "register", {"versions_url": arena.harness_peer.versions_url, "token_a": token_a}))
    return Dialogue(initiator, post.request_json(), arena.requests_since(start), arena.sut_url(CREDENTIALS), token_a)


async def update(arena: OcpiArena, initiator: str, *, rule: Rule) -> Dialogue:
    """The initiator PUTs new credentials; both tokens are replaced."""
    start = arena.mark()
    if arena.is_sut(initiator):
        put = await arena.exchange(initiator, "PUT", CREDENTIALS, rule=rule, trigger=("update_credentials", {}))
        credentials = put.request_json()
    else:
        credentials = await arena.harness_peer.updates_registration()
    return Dialogue(initiator, credentials, arena.requests_since(start), arena.sut_url(CREDENTIALS))


async def unregister(arena: OcpiArena, initiator: str, *, rule: Rule) -> Dialogue:
    """The initiator DELETEs its registration."""
    url, start = arena.sut_url(CREDENTIALS), arena.mark()
    if arena.is_sut(initiator):
        await arena.exchange(initiator, "DELETE", CREDENTIALS, rule=rule, trigger=("unregister", {}))
    else:
        await arena.harness_peer.unregisters()
    return Dialogue(initiator, None, arena.requests_since(start), url)


# ------------------------------------------------------------------------------ checks
def check_sut_role(arena: OcpiArena, credentials: dict[str, Any], rule: Rule) -> None:
    """The SUT's Credentials name it in its role, with the party the profile declares."""
    role = arena.sut_role.upper()
    party = (id_key(arena.profile.get("ocpi.country_code", "NL")), id_key(arena.profile.get("ocpi.party_id", "REF")))
    listed = [(r.get("role"), id_key(r.get("country_code", "")), id_key(r.get("party_id", "")))
              for r in credentials.get("roles", [])]
    require((role, *party) in listed, rule, f"the SUT's Credentials do not list it as {role} {party[0]}*{party[1]} "
            "(the profile's [ocpi] country_code and party_id)", expected=(role, *party), actual=listed)


def before_credentials(during: list[Served]) -> list[Served]:
    """What the SUT asked the harness before its credentials request."""
    return during[:next((i for i, s in enumerate(during) if s.module == CREDENTIALS), len(during))]


def check_connect_back(during: list[Served], token: str, rule: Rule, what: str) -> None:
    """The SUT fetched the harness's versions, then the details, presenting ``token``."""
    fetched = [s for s in during if s.method == "GET" and s.module in ("versions", "version_details")]
    require([s.module for s in fetched][:2] == ["versions", "version_details"], rule,
            f"the SUT did not fetch the harness's versions and then its version details {what}",
            expected=["GET versions", "GET version details"], actual=[f"{s.method} {s.module}" for s in during])
    for served in fetched:
        require(served.token == token, rule, f"the SUT fetched {served.module} {what} with another token",
                expected="the token the harness gave it for this", actual="another token")


async def get_credentials(arena: OcpiArena, url: str, token: str) -> HttpExchange:
    return await arena.send("GET", url, token=token)


def check_unauthorized(answer: HttpExchange, rule: Rule, what: str) -> None:
    """HTTP 401, nothing else: not 403 (the token is unknown, not short of rights), not 200 with an
    error code."""
    check_answer(answer, rule, what, http_status=401)


async def check_token_a_discarded(arena: OcpiArena, dialogue: Dialogue) -> None:
    """Token A opens nothing once the registration it started succeeded: not the credentials
    endpoint, not the versions either. Both are asked before judging, so a platform that keeps it
    as a standing key is reported with all it still opens. How a refusal is answered (401, not 403)
    is the authentication rows' (OCPI_AUTH), not this one's."""
    opened = []
    for what, url in (("credentials", dialogue.credentials_url), ("versions", arena.sut_versions_url)):
        answer = await get_credentials(arena, url, dialogue.token_a)
        said = outcome(answer.status, answer.response_body)
        if said.ok:
            opened.append(f"GET {what}: {said}")
    require(not opened, CredentialsRules.token_a_discarded, "token A still opens the SUT's API after the "
            "registration it started succeeded", expected="each refused (HTTP 401)", actual=opened)


TOKEN_REFUSED = (401, 403)


async def check_token_a_kept(arena: OcpiArena, token_a: str) -> None:
    """After a registration that failed, the client retries it with the same token A, which stays
    valid until a registration succeeds: the harness registers again (versions, details, POST) and
    the SUT must not refuse that token. Token A owes nothing else (a GET of the credentials with it
    may be refused); a retry that fails for another fault breaks that fault's own row."""
    try:
        await arena.harness_peer.registers(token_a)
    except PeerViolation as refused:
        if refused.rule is not EnvelopeRules.success or refused.actual not in TOKEN_REFUSED:
            raise
        violated(CredentialsRules.token_a_kept_on_failure, f"the retried registration with token A was refused: "
                 f"{refused.args[0]}", expected="the registration served", actual=f"HTTP {refused.actual}")


def check_party_as_declared(arena: OcpiArena, headers: Headers, what: str) -> None:
    """``headers`` name the harness as addressee (OCPI-to-*) in the very case its credentials roles
    declared. Only the case is judged here: missing or other routing headers are the routing rows'."""
    named, declared = addressee(headers), arena.harness_peer.party
    if named is not None and named.same_as(declared):
        check_equal(CredentialsRules.party_as_declared, f"the harness's party in {what}",
                    f"{declared.country_code}*{declared.party_id}", f"{named.country_code}*{named.party_id}")


async def check_opens(arena: OcpiArena, url: str, token: str, rule: Rule, what: str) -> None:
    """``token`` opens the SUT's credentials endpoint at ``url``: a GET succeeds."""
    check_answer(await get_credentials(arena, url, token), rule, what, success=True)


async def refused_soon(arena: OcpiArena, url: str, token: str) -> HttpExchange:
    """GET ``url`` with ``token`` until it is refused (HTTP 401) or the quiet time is over; the
    last answer. The SUT may still be digesting the answer that ended the token."""
    deadline = clock.now() + arena.timeouts.quiet
    while True:
        answer = await get_credentials(arena, url, token)
        if answer.status == 401 or clock.now() >= deadline:
            return answer
        await arena.elapse(0.05)   # between tries

