"""OCPI_LOCATIONS_VERSION — the locations module at its own interface version, 2.3.0 (spec 000
Versioning; ``LocationRules`` in harness/ocpi/locations.py).

Credentials and sessions are described at 2.2.1 and locations at 2.3.0, the version being part of
each module endpoint URL. The relationship stays at 2.2.1 (the version credentials and sessions
are described at); a platform lists 2.3.0 beside it, whose details list its locations endpoint
(SENDER for a CPO, RECEIVER for an eMSP) — a platform that lists its locations under 2.2.1 alone
is a finding, since the text describes the module without saying which versions list it. The
2.3.0 endpoint is the same module: the Locations read or pushed there are those of the
registration's endpoint.
"""

from harness.errors import NotApplicable
from harness.ocpi.credentials import CredentialsRules as Creds
from harness.ocpi.locations import LOCATIONS, LocationRules as Locs
from harness.ocpi.pagination import PaginationRules as Pages, object_key
from harness.ocpi.versions import RECEIVER, SENDER, VersionRules
from harness.arena.ocpi import check_answer
from harness.roles import CPO, EMSP
from harness.rules import RuleTable, must
from harness.suite import OCPI, case, checks
from harness.usecases import ocpi_credentials as creds
from harness.usecases import ocpi_locations as loc
from harness.verdict import check_equal, require

class OCPI_LOCATIONS_VERSION(RuleTable):
    """What the version use case judges beyond the rows of ``LocationRules`` and ``CredentialsRules``."""
    switched = must("spec 000 Versioning 3, 5; Credentials registration table (PUT: the server switches to this "
                    "endpoint's version and re-fetches the client's endpoints)", "a credentials PUT at the 2.3.0 "
                    "endpoint switches the relationship to 2.3.0: the server fetches the client's 2.3.0 details "
                    "before it answers with new credentials")


pytestmark = case("OCPI_LOCATIONS_VERSION", block="Locations", roles=(CPO, EMSP), protocols=OCPI)

VERSION = "2.3.0"


def _interface(ocpi) -> str:
    return SENDER if ocpi.is_sut(CPO) else RECEIVER


def _locations_endpoint(ocpi, details) -> bool:
    return any(e.identifier == LOCATIONS and e.role == _interface(ocpi) for e in details.endpoints)


@checks(Locs.version_offered, VersionRules.shapes)
async def test_2_3_0_is_listed_with_the_locations_endpoint(ocpi):
    """The versions list holds 2.3.0; its details describe 2.3.0 and list the locations endpoint in
    the SUT's interface."""
    await creds.registered(ocpi)
    details = await loc.sut_details(ocpi, VERSION)
    if not require(details is not None, Locs.version_offered, f"the versions list holds no {VERSION}",
                   expected=VERSION, actual="absent"):
        return
    check_equal(VersionRules.shapes, "the version its details describe", VERSION, details.version)
    require(_locations_endpoint(ocpi, details), Locs.version_offered, f"the {VERSION} details list no locations "
            f"endpoint ({_interface(ocpi)})", expected=(LOCATIONS, _interface(ocpi)),
            actual=[(e.identifier, e.role) for e in details.endpoints])


async def _details(ocpi):
    await creds.registered(ocpi)
    details = await loc.sut_details(ocpi, VERSION)
    if details is None or not _locations_endpoint(ocpi, details):
        raise NotApplicable(f"the SUT lists no locations endpoint at {VERSION} (a finding of "
                            "test_2_3_0_is_listed_with_the_locations_endpoint)")
    return details


@checks(Locs.listed, Locs.put, Locs.stored, Pages.complete)
async def test_the_2_3_0_endpoint_holds_the_same_locations(ocpi):
    """A CPO lists the same Locations at its 2.3.0 endpoint as at the registration's; a Location PUT
    to an eMSP's 2.3.0 Receiver is held at the registration's."""
    details = await _details(ocpi)
    if ocpi.is_sut(CPO):
        at_version = (await loc.walk(ocpi, endpoints=details)).items
        everything = (await loc.walk(ocpi)).items
        check_equal(Locs.listed, f"Locations at the {VERSION} endpoint", sorted(map(object_key, everything)),
                    sorted(map(object_key, at_version)))
        return
    location = ocpi.harness_peer.objects(LOCATIONS)[0]
    answer = await ocpi.send("PUT", ocpi.sut_url(LOCATIONS, location["id"], endpoints=details),
                             token=ocpi.token_to_sut, module=LOCATIONS, body=location)
    check_answer(answer, Locs.put, f"the PUT of {location['id']} at {VERSION}", success=True)
    held = await loc.sut_object(ocpi, (location["id"],))
    check_equal(Locs.stored, "last_updated of the Location PUT at 2.3.0", location["last_updated"],
                held["last_updated"])


@checks(OCPI_LOCATIONS_VERSION.switched, Creds.connect_back, Creds.rotation, Locs.listed, Locs.put)
async def test_credentials_put_at_2_3_0_switches_the_version(ocpi):
    """The harness, registered at 2.2.1, PUTs its credentials at the SUT's 2.3.0 credentials
    endpoint: the SUT fetches the harness's 2.3.0 details before it answers with new credentials,
    and the relationship is at 2.3.0 from then on (its Locations answer at the 2.3.0 endpoint with
    the new token)."""
    await _details(ocpi)
    before = (await loc.walk(ocpi)).items if ocpi.is_sut(CPO) else None
    start = ocpi.mark()
    await ocpi.harness_peer.updates_registration(version=VERSION)
    fetched = [s.exchange.path for s in ocpi.requests_since(start) if s.module == "version_details"]
    require(any(f"/{VERSION}" in path.rstrip("/") + "/" for path in fetched), OCPI_LOCATIONS_VERSION.switched,
            f"the SUT did not fetch the harness's {VERSION} details while it served the PUT",
            expected=f"GET of the {VERSION} details", actual=fetched)
    if ocpi.is_sut(CPO):   # the relationship's locations endpoint is now the 2.3.0 one
        after = (await loc.walk(ocpi)).items
        check_equal(Locs.listed, f"Locations listed at {VERSION} with the new token", sorted(map(object_key, before)),
                    sorted(map(object_key, after)))
        return
    location = ocpi.harness_peer.objects(LOCATIONS)[0]
    answer = await loc.push_location(ocpi, location["id"], rule=Locs.put)
    check_answer(answer, Locs.put, f"the PUT of {location['id']} after the switch to {VERSION}", success=True)
