"""The reference OCPI peer (CPO or eMSP): ``peer.py`` serves and calls, ``locations.py`` keeps the
locations. ``python -m harness.reference.ocpi`` runs one on its own, as a SUT on a real port.

The builders here read the profile's ``[ocpi]`` section: the SUT's identity and locations (which
the embedded stand-in then serves), and the harness's own identity facing it.
"""

from __future__ import annotations

from typing import Any

from harness.profile import Profile
from harness.reference.ocpi.locations import profile_locations, sample_locations
from harness.reference.ocpi.peer import CPO, EMSP, VERSION, OcpiPeer, PeerIdentity, Served, secret_token
from harness.transport.http import HttpClient

__all__ = ["CPO", "EMSP", "VERSION", "OcpiPeer", "PeerIdentity", "Served", "secret_token",
           "sut_identity", "harness_identity", "build_peer"]

HARNESS_PARTY = ("NL", "HAR")


def sut_identity(profile: Profile, role: str) -> PeerIdentity:
    """The SUT as the profile describes it, playing ``role`` (CPO or EMSP)."""
    return PeerIdentity(role, profile.get("ocpi.country_code", "NL"), profile.get("ocpi.party_id", "REF"),
                        profile.get("ocpi.business_name", "Reference OCPI platform"),
                        profile.get("ocpi.token_encoding", "base64"))


def harness_identity(profile: Profile, role: str) -> PeerIdentity:
    """The harness facing that SUT: its own party, the SUT's token encoding (A3)."""
    return PeerIdentity(role, profile.get("ocpi.harness_country_code", HARNESS_PARTY[0]),
                        profile.get("ocpi.harness_party_id", HARNESS_PARTY[1]), "evse-conformance harness",
                        profile.get("ocpi.token_encoding", "base64"))


def build_peer(identity: PeerIdentity, profile: Profile, *, http: HttpClient, cls: type = OcpiPeer,
               from_profile: bool, **options: Any) -> OcpiPeer:
    """A peer with its locations: a CPO described by the profile serves the profile's
    ``[[ocpi.locations]]`` (sample ones when it lists none); any other CPO serves sample ones."""
    locations = []
    if identity.role == CPO:
        entries = profile.get("ocpi.locations", []) if from_profile else []
        locations = (profile_locations(identity.country_code, identity.party_id, entries) if entries
                     else sample_locations(identity.country_code, identity.party_id))
    return cls(identity, http=http, locations=locations, call_timeout=profile.timeouts.call, **options)
