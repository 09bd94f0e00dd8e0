"""The reference peer plays the functional modules of its registry: a module plugs in with a handler
and a store, without editing the peer (its version details, routing and actions follow)."""

import pytest

from harness.errors import HarnessError
from harness.ocpi.envelope import build
from harness.ocpi.locations import LOCATIONS, LocationStore
from harness.ocpi.versions import SENDER, Endpoint, VersionDetails
from harness.reference.ocpi import CPO, EMSP, OcpiPeer, PeerIdentity
from harness.reference.ocpi.handler import Module, ModuleHandler, ModuleRegistry, Reply
from harness.reference.ocpi.locations import LocationsReceiver, LocationsSender
from harness.reference.ocpi.modules import MODULES
from harness.transport.http import HttpClient, InProcessNetwork

TOKEN_A = "unit-token-a-0002"


class TariffsSender(ModuleHandler):
    """A stand-in module: the CPO serves its list of tariffs and offers one action."""
    module, role, interface = "tariffs", CPO, "SENDER"

    async def serve(self, request, rest):
        self.peer.only(request, "GET")
        return Reply(200, build(self.store))

    async def act_add_tariff(self, tariff_id: str) -> None:
        self.store.append({"id": tariff_id})


class WithTariffs(OcpiPeer):
    modules = ModuleRegistry([Module(LocationsSender, LocationStore), Module(LocationsReceiver, LocationStore),
                              Module(TariffsSender, list)])


def _unregistered():
    network = InProcessNetwork()
    cpo = WithTariffs(PeerIdentity(CPO, "NL", "CPO", "cpo"), http=HttpClient(transport=network),
                      stock={"tariffs": [{"id": "T1"}]})
    emsp = WithTariffs(PeerIdentity(EMSP, "DE", "MSP", "emsp"), http=HttpClient(transport=network))
    cpo.bind(network.add("cpo", cpo.app), token_a=TOKEN_A)
    emsp.bind(network.add("emsp", emsp.app))
    return cpo, emsp


async def _registered():
    cpo, emsp = _unregistered()
    await emsp.register_with(cpo.versions_url, TOKEN_A)
    return cpo, emsp


async def test_a_registered_module_is_listed_routed_and_acted():
    cpo, emsp = await _registered()
    assert {(e["identifier"], e["role"]) for e in cpo.endpoints()} == {
        ("credentials", "SENDER"), ("locations", "SENDER"), ("tariffs", "SENDER")}
    assert [e["identifier"] for e in emsp.endpoints()] == ["credentials", "locations"]   # no eMSP tariffs
    await cpo.perform("add_tariff", {"tariff_id": "T2"})
    assert "add_tariff" in cpo.supported_actions() and "add_tariff" not in emsp.supported_actions()
    listed = await emsp.send("GET", cpo.module_url("tariffs"), token=emsp.peer_token, module="tariffs")
    assert listed.json()["data"] == [{"id": "T1"}, {"id": "T2"}]
    assert not cpo.violations and not emsp.violations


async def test_the_other_platforms_url_follows_the_interfaces():
    cpo, emsp = await _registered()
    assert emsp.other_url(LOCATIONS, "LOC-1") == f"{cpo.module_url(LOCATIONS)}/LOC-1"               # its Sender
    assert cpo.other_url(LOCATIONS, "LOC-1") == f"{emsp.module_url(LOCATIONS)}/NL/CPO/LOC-1"        # its Receiver
    with pytest.raises(HarnessError, match="plays no tariffs module"):
        emsp.other_url("tariffs")


@pytest.mark.parametrize("published", ["https://sut.example/ocpi/2.2.1/locations",
                                       "https://sut.example/ocpi/2.2.1/locations/"])
def test_the_other_platforms_url_is_the_one_published(published):
    """Used exactly as published (a trailing slash kept), ids appended with one slash."""
    emsp = OcpiPeer(PeerIdentity(EMSP, "DE", "MSP", "emsp"), http=HttpClient(transport=InProcessNetwork()))
    details = VersionDetails("2.2.1", (Endpoint(LOCATIONS, SENDER, published),))
    assert emsp.other_url(LOCATIONS, endpoints=details) == published
    assert emsp.other_url(LOCATIONS, "LOC-1", "E-1", endpoints=details) == \
        "https://sut.example/ocpi/2.2.1/locations/LOC-1/E-1"


def test_a_registry_takes_one_handler_per_module_and_role():
    with pytest.raises(HarnessError, match="registered twice"):
        ModuleRegistry([Module(LocationsSender, LocationStore), Module(LocationsSender, list)])


def test_faulty_variants_replace_a_handler_or_a_store():
    class Lenient(LocationStore):
        pass

    class Sender(LocationsSender):
        pass

    def locations(modules):
        return [m for m in modules if m.handler.module == LOCATIONS]

    assert [m.store for m in locations(MODULES.with_store(LOCATIONS, Lenient).for_role(EMSP))] == [Lenient]
    assert [(m.handler, m.store) for m in locations(MODULES.with_handler(Sender).for_role(CPO))] == \
        [(Sender, LocationStore)]
    assert [m.handler for m in locations(MODULES.with_handler(Sender).for_role(EMSP))] == [LocationsReceiver]
    assert {m.handler.module for m in MODULES.with_store(LOCATIONS, Lenient).for_role(CPO)} == {LOCATIONS, "sessions",
                                                                                        "tokens", "commands",
                                                                                        "chargingprofiles", "cdrs",
                                                                                        "tariffs"}
    with pytest.raises(HarnessError, match="no module hubclientinfo"):
        MODULES.with_handler(type("HubSender", (TariffsSender,), {"module": "hubclientinfo"}))


async def test_a_push_asked_for_right_after_register_waits_for_the_registration():
    """The actuator answers ``register`` at once; a push asked for next must not find the peer unregistered."""
    cpo, emsp = _unregistered()
    await emsp.perform("register", {"versions_url": cpo.versions_url, "token_a": TOKEN_A})
    assert not emsp.registered                       # the registration runs in the background
    listed = await emsp.call("GET", LOCATIONS)
    assert emsp.registered and listed.status == 200
    assert not cpo.violations and not emsp.violations
