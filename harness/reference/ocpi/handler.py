"""A functional module as the reference peer plays it in one role: a handler and its store.

The peer (``peer.py``) knows no functional module by name. For its role it builds the handler of
every module registered in ``modules.py``, lists each one's endpoint in its version details,
routes ``{details_url}/{module}/...`` to it, and offers its ``act_<action>`` methods as actuator
actions. A handler reaches the other platform through the peer: ``peer.call(method, module,
ids, body)`` addresses the other's Sender or Receiver interface of that module, with the token
and routing headers of the relationship.
"""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Protocol

from harness.errors import HarnessError
from harness.ocpi.envelope import StatusCode, StatusError
from harness.ocpi.headers import Party
from harness.profile import Profile
from harness.roles import Role
from harness.rules import Rule
from harness.reference.common import Background, class_actions
from harness.transport.http import HttpExchange, HttpRequest

CPO, EMSP = Role.CPO.party, Role.EMSP.party   # the platform roles, as OCPI writes them


@dataclass
class Reply:
    """What a handler answers: HTTP status, envelope, extra headers (pagination)."""
    status: int
    body: dict[str, Any]
    headers: dict[str, str] | None = None


class Identity(Protocol):
    """What a module reads of who its platform is (``peer.PeerIdentity``)."""
    @property
    def role(self) -> str: ...
    @property
    def country_code(self) -> str: ...
    @property
    def party_id(self) -> str: ...


class Peer(Protocol):
    """What a module handler uses of the platform that plays it (``peer.OcpiPeer``), declared here: the peer
    imports the handlers (through the registry of modules), so the handlers never import the peer."""
    identity: Identity
    background: Background

    @property
    def peer_token(self) -> str | None: ...
    @property
    def peer_party(self) -> Party | None: ...
    def store(self, module: str) -> Any: ...
    def module_url(self, module: str) -> str: ...
    def other_url(self, module: str, *ids: str, endpoints: Any = None) -> str: ...
    def list_page(self, request: HttpRequest, objects: list[dict[str, Any]], name: str, *,
                  date_from_required: bool = False) -> Reply: ...
    async def call(self, method: str, module: str, ids: tuple[str, ...] = (), body: Any = None) -> HttpExchange: ...
    async def send(self, method: str, url: str, **options: Any) -> HttpExchange: ...
    def outgoing(self, name: str, value: Any, *, whole: bool = True, owned: bool = True) -> Any: ...
    @staticmethod
    def only(request: HttpRequest, *methods: str) -> None: ...


def check_pushing_party(peer: Peer, country_code: str, party_id: str, rule: Rule, who: str) -> None:
    """A Receiver's URL party is the pushing platform's, as its credentials roles declare it (OCPI 2.2.1
    §4.1.8.1: another party may be answered HTTP 404); StatusError 2001 with HTTP 404 otherwise."""
    party = peer.peer_party
    if party is not None and not party.same_as(Party(country_code, party_id)):
        raise StatusError(rule, f"{country_code}/{party_id} is not the party of the pushing {who} "
                          f"({party.country_code}/{party.party_id})", status_code=StatusCode.INVALID_PARAMETERS,
                          http_status=404)


class Later:
    """A store made when its handler first reads it (``make()``, once): most tests use one or two of a peer's
    modules, and a module's first objects are drawn and copied only for a store that is used."""

    def __init__(self, make: Callable[[], Any]):
        self.make = make


class ModuleHandler:
    """One functional module in one platform role; subclasses set the three class attributes. ``store`` is the
    store itself, or ``Later(make)``: then it is made at its first read."""

    module: ClassVar[str]      # the module identifier, as version details list it
    role: ClassVar[str]        # the platform role that plays it: CPO or EMSP
    interface: ClassVar[str]   # SENDER or RECEIVER, as version details list it
    listed_at: ClassVar[tuple[str, ...]] = ("2.2.1",)   # the interface versions whose details list it
    client_owned: ClassVar[bool] = True   # the other's Receiver keeps our objects under our party (OCPI 2.2.1
    # §4.1.8); False for commands, whose Receiver URL is {endpoint}/{command}

    def __init__(self, peer: Peer, store: Any):
        self.peer = peer
        if isinstance(store, Later):
            self._make_store = store.make
        else:
            self.store = store

    @functools.cached_property
    def store(self) -> Any:
        """Made at the first read when the handler was given ``Later(make)``; set at once otherwise."""
        return self._make_store()

    @classmethod
    def stock(cls, identity: Identity, profile: Profile, *, from_profile: bool) -> list[Mapping[str, Any]]:
        """The objects the store starts with (none unless the module says otherwise)."""
        return []

    async def serve(self, request: HttpRequest, rest: list[str]) -> Reply:
        """Answer a request to ``{module_url}/{rest...}``; ``StatusError`` for a request that breaks a rule."""
        raise NotImplementedError(f"{type(self).__name__} serves no request")

    def actions(self) -> dict[str, Callable[..., Awaitable[None]]]:
        """The actuator actions this module offers: its ``act_<action>`` methods (listed once per class)."""
        return {name: getattr(self, f"act_{name}") for name in class_actions(type(self))}


@dataclass(frozen=True)
class Module:
    """A registration: the handler of one (module, role) and the class of the store it keeps."""
    handler: type[ModuleHandler]
    store: type


class ModuleRegistry:
    """The handler and store of each (module, role) the reference peer plays."""

    def __init__(self, modules: Iterable[Module]):
        self._modules: dict[tuple[str, str], Module] = {}
        for module in modules:
            key = (module.handler.module, module.handler.role)
            if key in self._modules:
                raise HarnessError(f"module {key[0]} is registered twice for the role {key[1]}")
            self._modules[key] = module

    def for_role(self, role: str) -> list[Module]:
        return [module for (_, played_by), module in self._modules.items() if played_by == role]

    def with_handler(self, handler: type[ModuleHandler]) -> "ModuleRegistry":
        """A copy where ``handler`` replaces the handler of its (module, role); the store stays."""
        key = (handler.module, handler.role)
        if key not in self._modules:
            raise HarnessError(f"no module {key[0]} is registered for the role {key[1]}")
        return ModuleRegistry({**self._modules, key: Module(handler, self._modules[key].store)}.values())

    def with_store(self, module: str, store: type) -> "ModuleRegistry":
        """A copy where every role of ``module`` keeps its objects in ``store``."""
        return ModuleRegistry(Module(m.handler, store) if m.handler.module == module else m
                              for m in self._modules.values())
