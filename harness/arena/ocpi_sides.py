"""The harness's side of an OCPI test, typed by the role it plays: ``HarnessCpoSide`` when the SUT is an eMSP,
``HarnessEmspSide`` when it is a CPO; both are a ``HarnessOcpiPeer``.

The arena (``harness.arena.ocpi.OcpiArena``) holds what a test does the same way from either side: a request
to the SUT (``send``, ``exchange``), what the SUT asked of the harness (``requests_since``, ``expect_request``),
the registration's tokens. What belongs to the harness's own peer lives here: its URLs, party and credentials,
the objects it holds, its registering with the SUT and its canned answers. A test of one role receives its side
from a fixture (``harness_cpo``, ``harness_emsp``), which also limits the test to that role; code for both roles
asks the arena (``arena.harness_peer``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from harness.ocpi.headers import Party
from harness.reference.ocpi import secret_token

if TYPE_CHECKING:
    from harness.arena.ocpi import OcpiArena
    from harness.reference.ocpi import OcpiPeer

# (the SUT's versions URL, token A) pairs the harness registered with in this run: a SUT discards a token A
# once used, so a profile's single [ocpi] token_a serves one registration only.
SPENT_TOKENS_A: set[tuple[str, str]] = set()


class HarnessOcpiPeer:
    """The harness's OCPI platform facing the SUT, whichever role it plays."""

    def __init__(self, arena: OcpiArena) -> None:
        self._arena = arena

    @property
    def _peer(self) -> OcpiPeer:
        return self._arena.harness

    @property
    def versions_url(self) -> str:
        return self._peer.versions_url

    @property
    def details_url(self) -> str:
        return self._peer.details_url

    def module_url(self, module: str) -> str:
        return self._peer.module_url(module)

    @property
    def party(self) -> Party:
        """The harness's party, as its credentials roles declare it."""
        return self._peer.identity.party

    @property
    def token_form(self) -> str:
        """How the harness writes its tokens to the SUT: "base64" or "raw" (the profile's encoding)."""
        return self._peer.identity.token_form.value

    def credentials(self, versions_url: str | None = None) -> dict[str, Any]:
        """A Credentials object of the harness with a fresh token B, naming ``versions_url`` (its own by
        default)."""
        credentials = self._peer.server.own_credentials(secret_token())
        return {**credentials, "url": versions_url or self.versions_url}

    def objects(self, module: str) -> list[dict[str, Any]]:
        """The objects the harness holds in ``module``: those it owns and would push (a CPO's locations and
        sessions, an eMSP's tokens), or those the SUT pushed to it."""
        return self._peer.store(module).all()

    def token_a(self) -> str:
        """A fresh token A the harness's server accepts for one registration by the SUT."""
        return self._peer.issue_token_a()

    def can(self, name: str, status: int, body: Any) -> str:
        """A canned answer the harness serves at a URL of its own (any method, no authentication): its URL."""
        return self._peer.can(name, status, body)

    async def registers(self, token_a: str) -> dict[str, Any]:
        """The harness registers with the SUT using ``token_a`` (versions, details, POST); the SUT's
        Credentials. The SUT has then discarded ``token_a``."""
        sut = self._arena.sut_versions_url
        credentials = await self._peer.register_with(sut, token_a)
        SPENT_TOKENS_A.add((sut, token_a))
        return credentials

    async def updates_registration(self, version: str | None = None) -> dict[str, Any]:
        """The harness PUTs new credentials to the SUT (at the credentials endpoint of ``version`` when given:
        the relationship switches to it); the SUT's new Credentials."""
        return await self._peer.update_registration(version)

    async def unregisters(self) -> None:
        await self._peer.unregister_from()


class HarnessCpoSide(HarnessOcpiPeer):
    """The harness's CPO facing an eMSP under test: it owns the locations and sessions it pushes and the eMSP
    fetches."""


class HarnessEmspSide(HarnessOcpiPeer):
    """The harness's eMSP facing a CPO under test: it owns the tokens, and holds what the CPO pushes."""
