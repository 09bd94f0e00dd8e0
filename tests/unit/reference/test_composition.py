"""The OCPP references are compositions of blocks: each version gets exactly the messages, actions
and settings of the blocks that serve it, and a composition that does not fit is refused."""

import inspect
from pathlib import Path

import pytest

from harness.errors import HarnessError
from harness.ocpp.versions import OcppVersion
from harness.reference import ReferenceCsms, ReferenceCsms16, ReferenceStation, ReferenceStation16, references_for
from harness.ocpp.schemas import schema
from harness.reference.base import CsmsBase, StationBase
from harness.reference.blocks import local_list
from harness.reference.common import V2X, V16, Block, store
from harness.reference.compose import CSMS_BLOCKS, STATION_BLOCKS, blocks_for
from harness.reference.ocpi.handler import Identity, Peer
from harness.reference.ocpi.peer import OcpiPeer, PeerIdentity
from harness.settings import reference_profile

PROFILE = reference_profile()


def _messages(cls: type) -> set[str]:
    return {name.removeprefix("on_") for name in dir(cls) if name.startswith("on_")}


def _own(base: type, prefix: str) -> set[str]:
    """What a side's base (``StationBase``, ``CsmsBase``) itself defines with ``prefix``, beneath every block."""
    return {name.removeprefix(prefix) for name in dir(base) if name.startswith(prefix) and name != "undo_at_sut"}


REFERENCES = [ReferenceStation, ReferenceStation16, ReferenceCsms, ReferenceCsms16]


@pytest.mark.parametrize("reference", REFERENCES, ids=lambda r: r.__name__)
def test_a_reference_has_the_messages_actions_undoings_and_settings_of_its_blocks(reference):
    """Derived from the blocks' declarations, not listed by hand: a block added to the registry (or a message,
    an action, an undoing, a setting added to a block) is in every reference whose version it serves."""
    station = issubclass(reference, StationBase)
    base = StationBase if station else CsmsBase
    blocks = blocks_for(STATION_BLOCKS if station else CSMS_BLOCKS, reference.versions)
    assert blocks and [b for b in reference.__mro__ if b in blocks] == list(blocks)
    assert _messages(reference) == set().union(*(b.messages() for b in blocks)) | _own(base, "on_")
    actions = set().union(*(b.actions() for b in blocks)) | _own(base, "act_")
    assert {a for a in dir(reference) if a.startswith("act_")} == {f"act_{a}" for a in actions}
    assert _own(reference, "undo_") == set().union(*(b.undoes() for b in blocks))
    assert reference.configurable == frozenset().union(*(b.configurable for b in blocks), base.configurable)
    side = reference(PROFILE, min(reference.versions)) if station else reference(PROFILE, sorted(reference.versions))
    assert side.supported_actions() == actions


@pytest.mark.parametrize("reference", REFERENCES, ids=lambda r: r.__name__)
def test_every_message_answered_and_call_undone_is_a_message_of_a_version_served(reference):
    """A handler (``on_<Action>``) or an undoing (``undo_<Action>``) that names no message of the versions it
    serves (2.1 adds some to 2.0.1) is a typo the composition would not notice."""
    def known(version, action):
        try:
            return bool(schema(version, action, "request"))
        except (FileNotFoundError, KeyError):
            return False
    for action in _messages(reference) | _own(reference, "undo_"):
        assert any(known(v, action) for v in reference.versions), f"{reference.__name__}: {action} is no message"


def test_the_ocpi_peer_is_what_its_module_handlers_take():
    """The OCPI module handlers know the peer only through ``handler.Peer`` (the import circle opened): the
    peer has every member the Protocol declares."""
    for protocol, implementation in ((Peer, OcpiPeer), (Identity, PeerIdentity)):
        members = {name for name in vars(protocol) if not name.startswith("_")} | set(protocol.__annotations__)
        made = Path(inspect.getfile(implementation)).read_text(encoding="utf-8")   # what __init__ sets
        missing = {m for m in members if not hasattr(implementation, m) and f"self.{m} =" not in made
                   and m not in getattr(implementation, "__dataclass_fields__", {})}
        assert not missing, f"{implementation.__name__} lacks {sorted(missing)} of {protocol.__name__}"


def test_a_block_registered_after_one_it_precedes_is_refused():
    late = tuple(b for b in STATION_BLOCKS if b.__name__ != "LocalListStation2x") + (local_list.LocalListStation2x,)
    with pytest.raises(HarnessError, match="LocalListStation2x must come before AuthorizationStation2x"):
        blocks_for(late, V2X)


def test_every_version_has_its_references():
    assert references_for(OcppVersion.V16) == (ReferenceCsms16, ReferenceStation16)
    assert references_for(OcppVersion.V201) == references_for(OcppVersion.V21) == (ReferenceCsms, ReferenceStation)


def test_a_block_whose_requirement_does_not_serve_the_version_is_refused():
    class Needy(Block):
        versions = V16
        requires = ("TransactionsStation2x",)

    with pytest.raises(HarnessError, match="Needy requires TransactionsStation2x"):
        blocks_for((*STATION_BLOCKS, Needy), V16)


def test_two_blocks_answering_one_message_are_refused():
    class AnotherReset(Block):
        versions = V2X

        def on_Reset(self, _, payload):
            return {"status": "Rejected"}

    with pytest.raises(HarnessError, match="on_Reset is defined by both ResetStation2x and AnotherReset"):
        blocks_for((*STATION_BLOCKS, AnotherReset), V2X)


def test_two_blocks_with_one_private_helper_are_refused_unless_one_passes_on():
    """Composed into one class, two blocks' private helpers of one name are one method: the later block would
    call the earlier one's. Allowed only where the earlier passes on to it with super() (a private hook)."""
    class Helper(Block):
        versions = V2X

        def _note(self):
            return "mine"

    class SameName(Block):
        versions = V2X

        def _note(self):
            return "another"

    class PassesOn(Block):
        versions = V2X

        def _note(self):
            return super()._note()

    with pytest.raises(HarnessError, match="the private _note is defined by both Helper and SameName"):
        blocks_for((Helper, SameName), V2X)
    assert blocks_for((PassesOn, Helper), V2X) == (PassesOn, Helper)


def test_two_blocks_starting_one_attribute_in_init_are_refused():
    """Two blocks that each start ``self.<name>`` in ``__init__`` share one attribute once composed: the later
    __init__ silently replaces the other's state (B04 lost its unreported statuses that way). A block that
    only writes an attribute another block owns, outside __init__, is not refused."""
    class Owner(Block):
        versions = V2X

        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            self.pending, self.seen = [], 0

    class Rival(Block):
        versions = V2X

        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            self.pending = {}

    class User(Block):
        versions = V2X

        def record(self):
            self.pending = []

    with pytest.raises(HarnessError, match=r"self.pending is started \(in __init__, or as a store\) by both Owner and Rival"):
        blocks_for((Owner, Rival), V2X)
    assert blocks_for((Owner, User), V2X) == (Owner, User)


def test_supported_actions_are_the_class_actions_and_an_instance_own():
    """The actions of a class are read once (``dir`` of a composed reference is long); one an instance is given
    still counts, and the caller gets a set of its own."""
    station = ReferenceStation(PROFILE, OcppVersion.V201)
    actions = station.supported_actions()
    assert actions == {name.removeprefix("act_") for name in dir(station) if name.startswith("act_")}
    actions.add("changed by the caller")
    assert "changed by the caller" not in station.supported_actions()

    async def act_wave(**body):
        return None

    station.act_wave = act_wave
    assert station.supported_actions() == actions - {"changed by the caller"} | {"wave"}


def test_a_store_made_on_first_use_counts_as_started_by_its_block():
    """A store declared on the class (``store``) is the block's state as if started in its ``__init__``: another
    block declaring it, or starting it in ``__init__``, is refused."""
    class Lazy(Block):
        versions = V2X
        pending = store(list)

    class AlsoLazy(Block):
        versions = V2X
        pending = store(dict)

    class Eager(Block):
        versions = V2X

        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            self.pending = {}

    for pair, first in (((Lazy, AlsoLazy), "Lazy"), ((Eager, Lazy), "Eager")):
        with pytest.raises(HarnessError, match=rf"self.pending is started .* by both {first} and"):
            blocks_for(pair, V2X)


def test_a_store_is_made_on_first_read_and_is_each_instance_own():
    class Holder(Block):
        versions = V2X
        pending = store(list)
        url = store(default="none yet")

    one, two = Holder(), Holder()
    assert vars(one) == {} and one.url == "none yet" and vars(one) == {}
    one.pending.append(1)
    assert one.pending == [1] and two.pending == [] and one.pending is not two.pending
    assert set(vars(one)) == {"pending"}
    one.url = "ws://x"
    assert (one.url, two.url) == ("ws://x", "none yet")
