"""A05 — Upgrade the station's security profile: the operator has the CSMS store a network connection profile of a
higher security profile in a free slot (SetNetworkProfile) and put that slot first in
OCPPCommCtrlr.NetworkConfigurationPriority (SetVariables); the station accepts both when the profile is not lower
than its connection's and its prerequisites are met, and uses it from its next reboot. A profile lower than the
connection's is refused. docs/requirements/security.md.

Readings chosen: the upgrade asked is to the profile one above the test's (TC_A_19_CSMS); before an upgrade to 2 the
harness installs the root of its own TLS certificates as CSMSRootCertificate at a station under test (the
prerequisite a station checks: a CSMS root to verify the server with; deleted again when the test ends), and an
upgrade to 3 (which needs a station certificate the operator issued) is not played against a station under test.
The reboot and the reconnection at the new profile (TC_A_19 steps 5-13) are not played yet."""

import pytest

from harness.errors import NotApplicable
from harness.ocpp.versions import OcppVersion
from harness.roles import CS, CSMS
from harness.rules import RuleTable, must, should
from harness.suite import OCPP2, TC, case, checks, needs
from harness.usecases.operations import operate, status_of
from harness.usecases.tls import at_security_profile, over_tls, station_admitted
from harness.verdict import check_equal, dig

SLOT = 8   # a slot a station does not connect with
PRIORITY = {"component": {"name": "OCPPCommCtrlr"}, "variable": {"name": "NetworkConfigurationPriority"}}
ERRATA = "OCPP 2.1 errata 2025-09 B09.FR.35 (its note: the same as B09.FR.04 for SetNetworkProfileRequest)"


class A05(RuleTable):
    """The rules of A05 (OCPP 2.0.1 part 2 A05; the same in 2.1)."""
    profile_request = must("tzi-OCTT TC_A_19_CSMS steps 1-2 (SetNetworkProfileRequest, securityProfile one "
                           "higher, ocppTransport JSON); OCPP 2.0.1 SetNetworkProfileRequest",
                           "the CSMS sends the network profile of the higher security profile its operator asked for",
                           by=CSMS)
    priority_request = must("OCPP 2.0.1 A05.FR.04 (tzi-OCTT TC_A_19_CSMS step 3)", "the CSMS sets "
                            "OCPPCommCtrlr.NetworkConfigurationPriority to a value containing the new slot", by=CSMS)
    profile_stored = should("OCPP 2.0.1 B09.FR.01 (a valid profile is stored: Accepted)", "a station stores a "
                            "network profile of a higher security profile: SetNetworkProfile Accepted", by=CS)
    priority_accepted = must("OCPP 2.0.1 A05.FR.04 (tzi-OCTT TC_A_19_CSMS)", "a station accepts a "
                             "NetworkConfigurationPriority whose slots hold an equal or higher security profile "
                             "when its prerequisites are met: attributeStatus Accepted", by=CS)
    lower_refused = must(f"{ERRATA}; OCPP 2.1 errata B09.FR.31 (a profile 1 refused even where a downgrade is "
                         "allowed)", "a station refuses a network profile of a lower security profile than its "
                         "connection's, here profile 1 over TLS: SetNetworkProfile Rejected", by=CS)


pytestmark = case("A05", block="Security", roles=("csms", "cs"), protocols=OCPP2, requires=["advanced_security"])


def connection_data(arena, security_profile: int) -> dict:
    """A profile for the CSMS the station talks to, over wss from profile 2 on."""
    url = arena.sut_url if arena.is_sut(CSMS) else arena.harness_csms.url
    if security_profile >= 2:
        url = url.replace("ws://", "wss://", 1)
    return {"ocppVersion": "OCPP20" if arena.version is OcppVersion.V201 else "OCPP21", "ocppTransport": "JSON",
            "ocppCsmsUrl": url, "messageTimeout": 30, "securityProfile": security_profile, "ocppInterface": "Wired0"}


@checks(A05.profile_request, A05.profile_stored, A05.priority_request, A05.priority_accepted,
        csms=TC("TC_A_19_CSMS", "ocpp2.0.1"))
async def test_higher_profile_stored_and_prioritized(ocpp):
    """The profile one above the test's in slot 8, then NetworkConfigurationPriority "8,1": both Accepted."""
    target = ocpp.security_profile + 1
    if target > 3 or (target == 3 and ocpp.is_sut(CS)):
        raise NotApplicable(f"an upgrade to security profile {target} at a station under test needs a station "
                            f"certificate its operator issued, which this test does not set up")
    if target == 2 and ocpp.is_sut(CS):
        root = ocpp.pki().root.certificate_pem().decode()
        check_equal(A05.priority_accepted, "InstallCertificate answer status (the prerequisite: the CSMS root)",
                    "Accepted", status_of(await ocpp.call_sut("InstallCertificate", {
                        "certificateType": "CSMSRootCertificate", "certificate": root})))
    stored = await operate(ocpp, "SetNetworkProfile", {"configurationSlot": SLOT,
                                                       "connectionData": connection_data(ocpp, target)},
                           A05.profile_request)
    if ocpp.is_sut(CS):
        check_equal(A05.profile_stored, "SetNetworkProfileResponse status", "Accepted", status_of(stored))
    item = PRIORITY | {"attributeValue": f"{SLOT},1"}
    exchange = await operate(ocpp, "SetVariables", {"setVariableData": [item]}, A05.priority_request)
    if ocpp.is_sut(CS):
        results = dig(exchange.result, "setVariableResult", [])
        check_equal(A05.priority_accepted, f"SetVariablesResponse attributeStatus (NetworkConfigurationPriority "
                    f"\"{SLOT},1\")", "Accepted", results[0].get("attributeStatus") if results else None)


@pytest.mark.sut_roles("cs")
@checks(A05.lower_refused)
@needs(at_security_profile(2, 3))
async def test_lower_profile_refused(ocpp_unlinked):
    """Connected over TLS, the station is sent a network profile of security profile 1: Rejected."""
    arena = ocpp_unlinked
    await arena.secure(over_tls(arena))
    connection = await station_admitted(arena, A05.lower_refused)
    exchange = await connection.call_exchange("SetNetworkProfile", {"configurationSlot": SLOT,
                                                                    "connectionData": connection_data(arena, 1)})
    check_equal(A05.lower_refused, "SetNetworkProfileResponse status (security profile 1 over TLS)", "Rejected",
                status_of(exchange))
