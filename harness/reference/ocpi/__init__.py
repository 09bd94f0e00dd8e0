"""The reference OCPI peer (CPO or eMSP): ``peer.py`` serves and calls, each functional module is a
handler with its store registered per (module, role) in ``modules.py``. ``python -m
harness.reference.ocpi`` runs one on its own, as a SUT on a real port.

The builders here read the profile's ``[ocpi]`` section: the SUT's identity and objects (which
the embedded stand-in then serves), and the harness's own identity facing it.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from harness.profile import Profile
from harness.reference.ocpi.handler import CPO, EMSP, ModuleHandler
from harness.reference.ocpi.peer import VERSION, OcpiPeer, PeerIdentity, secret_token
from harness.transport.http import HttpClient

__all__ = ["CPO", "EMSP", "VERSION", "OcpiPeer", "PeerIdentity", "secret_token",
           "sut_identity", "harness_identity", "build_peer"]

HARNESS_PARTY = ("NL", "HAR")


def sut_identity(profile: Profile, role: str) -> PeerIdentity:
    """The SUT as the profile describes it, playing ``role`` (CPO or EMSP)."""
    return PeerIdentity(role, profile.get("ocpi.country_code", "NL"), profile.get("ocpi.party_id", "REF"),
                        profile.get("ocpi.business_name", "Reference OCPI platform"),
                        profile.get("ocpi.token_encoding", "base64"))


def harness_identity(profile: Profile, role: str) -> PeerIdentity:
    """The harness facing that SUT: its own party, the SUT's token encoding."""
    return PeerIdentity(role, profile.get("ocpi.harness_country_code", HARNESS_PARTY[0]),
                        profile.get("ocpi.harness_party_id", HARNESS_PARTY[1]), "evse-conformance harness",
                        profile.get("ocpi.token_encoding", "base64"))


def build_peer(identity: PeerIdentity, profile: Profile, *, http: HttpClient, cls: type[OcpiPeer] = OcpiPeer,
               from_profile: bool, **options: Any) -> OcpiPeer:
    """A peer whose modules start with their stock: a CPO described by the profile (``from_profile``)
    serves the profile's ``[[ocpi.locations]]`` (sample ones when it lists none); any other CPO
    serves sample ones."""
    handlers = [module.handler for module in cls.modules.for_role(identity.role)]
    stock = Stock(handlers, identity, profile, from_profile=from_profile)
    return cls(identity, http=http, stock=stock, call_timeout=profile.timeouts.call, **options)


class Stock(Mapping[str, Any]):
    """The objects each module of a peer starts with, drawn when that module's store is first made (a test
    uses one or two modules; drawing and copying every module's samples for both peers was most of a peer's
    start)."""

    def __init__(self, handlers: Iterable[type[ModuleHandler]], identity: PeerIdentity, profile: Profile, *,
                 from_profile: bool):
        self._handlers = {handler.module: handler for handler in handlers}
        self._identity, self._profile, self._from_profile = identity, profile, from_profile

    def __getitem__(self, module: str) -> Any:
        return self._handlers[module].stock(self._identity, self._profile, from_profile=self._from_profile)

    def __iter__(self) -> Iterator[str]:
        return iter(self._handlers)

    def __len__(self) -> int:
        return len(self._handlers)
