"""A reference OCPI platform that many parties register with at once: credentials kept per party, keyed by token.

``OcpiPeer`` holds one relationship (one token A, one token C), which is what a conformance test meets.
A load of many peers (``python -m harness.load ocpi-platform``) needs a platform that every one of them
registers with, each with its own token A and its own token C: ``Parties`` keeps one ``OcpiPeer`` per
party (its credentials, its modules' stores, the violations of its requests) on one base URL, and hands
each request to the party whose token it presents. A request whose token no party holds is answered by
any of them alike (HTTP 401). The conformance suites never use this class: ``OcpiPeer`` is unchanged.
"""

from __future__ import annotations

from collections.abc import Iterable

from harness.ocpi.auth import encode_token
from harness.ocpi.versions import CREDENTIALS
from harness.reference.ocpi.peer import OcpiPeer
from harness.transport.http import HttpClient, HttpRequest, HttpResponse, asgi_app
from harness.transport.ledger import Ledger, Violations
from harness.wire import REDACTOR

KEPT_PER_PARTY = 16   # served requests and violations a party keeps: a storm's memory grows by party, not request


def _headers(token: str) -> tuple[str, str]:
    """The Authorization values that present ``token``: base64 (2.2+) and raw (the 2.1.1 form)."""
    return f"Token {encode_token(token)}", f"Token {token}"


class Parties:
    """Every party's ``OcpiPeer``, served on one base URL; a request goes to the party whose token it presents."""

    def __init__(self, peers: Iterable[OcpiPeer], http: HttpClient):
        self.peers = list(peers)
        if not self.peers:
            raise ValueError("a platform of parties needs at least one party")
        self.http = http
        self._by_header: dict[str, OcpiPeer] = {}
        self._held: dict[int, tuple[str, ...]] = {}   # id(peer) -> the headers indexed for it
        for peer in self.peers:
            peer.served, peer.violations = Ledger(KEPT_PER_PARTY), Violations(KEPT_PER_PARTY)
        self.app = asgi_app(self.handle)

    def bind(self, base_url: str, tokens_a: Iterable[str]) -> "Parties":
        """Every party on ``base_url``, each opened to one registration by its own token A."""
        tokens_a = list(tokens_a)
        if len(tokens_a) != len(self.peers):
            raise ValueError(f"{len(tokens_a)} tokens A for {len(self.peers)} parties: give one per party")
        for peer, token in zip(self.peers, tokens_a):
            peer.bind(base_url, token_a=token)
            self._index(peer)
        return self

    @property
    def versions_url(self) -> str:
        return self.peers[0].versions_url

    def _index(self, peer: OcpiPeer) -> None:
        """The headers that reach ``peer``: its token A while unregistered, its token C once registered."""
        for header in self._held.pop(id(peer), ()):
            self._by_header.pop(header, None)
        tokens = [t for t in (peer.server.token_a, peer.server.token_c) if t]
        held = tuple(h for t in tokens for h in _headers(t))
        for header in held:
            self._by_header[header] = peer
        self._held[id(peer)] = held

    def party_of(self, token: str) -> OcpiPeer | None:
        return self._by_header.get(_headers(token)[0])

    async def handle(self, request: HttpRequest) -> HttpResponse:
        peer = self._by_header.get(request.header("Authorization") or "", self.peers[0])
        response = await peer.handle(request)
        if f"/{CREDENTIALS}" in request.path:   # a registration, update or deletion changes the party's tokens
            self._index(peer)
        return response

    @property
    def registered(self) -> int:
        return sum(1 for peer in self.peers if peer.server_registered)

    def violations(self) -> int:
        return sum(len(peer.violations) for peer in self.peers) + sum(len(p.harness_errors) for p in self.peers)

    async def stop(self) -> None:
        for peer in self.peers:
            await peer.background.cancel_all()
        await self.http.close()


def masked(tokens: Iterable[str]) -> None:
    """Mask ``tokens`` in every log and report of this process."""
    for token in tokens:
        REDACTOR.register(token)
