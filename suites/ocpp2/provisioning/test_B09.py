"""B09 — Set a new network profile: the operator has the CSMS store a network connection profile at the station
(SetNetworkProfileRequest: a configuration slot and its connection data); the station validates and stores it
(Accepted), refuses content it finds invalid (Rejected) or answers Failed when storing failed. The profile is
not used until the CSMS changes NetworkConfigurationPriority (B10). The requirements, in our words:
docs/requirements/provisioning.md.

Readings chosen where the texts are silent: the profile sent is valid for the version (2.0.1 names ocppVersion
OCPP20, 2.1 OCPP21), for slot 9 (one a station does not connect with: the test leaves its connection alone),
with the security profile of the run; a station may still answer Failed (it could not store it); Rejected of a
valid profile is a finding (B09.FR.01, whose condition "valid" the harness can only read from the schema)."""

import pytest

from harness.roles import CS, CSMS
from harness.rules import RuleTable, must, should
from harness.suite import OCPP2, TC, case, checks
from harness.usecases.device_model import network_profile
from harness.usecases.operations import operate
from harness.verdict import check_in

SLOT = 9


class B09(RuleTable):
    """The rules of B09 (OCPP 2.0.1 part 2, B09; the same in 2.1)."""
    request = must("OCPP 2.0.1 part 2 SetNetworkProfileRequest (configurationSlot, connectionData required)",
                   "the CSMS sends the slot and the connection data its operator asked for", by=CSMS)
    stored = should("OCPP 2.0.1 part 2 B09.FR.01, B09.FR.03", "a valid profile is stored and Accepted (or "
                    "Failed when storing failed), not Rejected", by=CS)


pytestmark = case("B09", block="Provisioning", roles=("csms", "cs"), protocols=OCPP2)


def _profile(ocpp) -> dict:
    return network_profile(ocpp, "wss://csms.example.invalid/ocpp")


@checks(B09.request, B09.stored, csms=(TC("TC_B_42_CSMS", "ocpp2.0.1"), ))
async def test_network_profile_is_stored(ocpp):
    """A valid profile for slot 9: Accepted (or Failed)."""
    exchange = await operate(ocpp, "SetNetworkProfile", {"configurationSlot": SLOT, "connectionData": _profile(ocpp)},
                             B09.request)
    check_in(B09.stored, "SetNetworkProfileResponse status of a valid profile", ("Accepted", "Failed"),
             exchange.result["status"])


@pytest.mark.sut_roles("csms")
@checks(B09.request, csms=TC("TC_B_44_CSMS", "ocpp2.0.1"))
async def test_failed_profile_is_sent_as_asked(ocpp):
    """A station that cannot store the profile (Failed): the CSMS sends what its operator asked and takes the
    answer."""
    ocpp.configure(provisioning_network_profile_status="Failed")
    await operate(ocpp, "SetNetworkProfile", {"configurationSlot": SLOT, "connectionData": _profile(ocpp)},
                  B09.request)
