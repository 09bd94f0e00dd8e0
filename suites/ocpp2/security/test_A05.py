"""A05 — Upgrade the station's security profile: the operator has the CSMS store a network connection profile of a
higher security profile in a free slot (SetNetworkProfile) and put that slot first in
OCPPCommCtrlr.NetworkConfigurationPriority (SetVariables); the station accepts both when the profile is not lower
than its connection's and its prerequisites are met, and uses it from its next reboot. A profile lower than the
connection's is refused. docs/requirements/security.md.

Readings chosen: the upgrade asked is to the profile one above the test's (TC_A_19_CSMS); before an upgrade to 2 the
harness installs the root of its own TLS certificates as CSMSRootCertificate at a station under test (the
prerequisite a station checks: a CSMS root to verify the server with; deleted again when the test ends), and an
upgrade to 3 (which needs a station certificate the operator issued) is not played against a station under test.
After the upgrade (TC_A_19 steps 5-13) the CSMS resets the station, which reconnects through the new profile, over
TLS, and boots. A station under test must then have dropped the slot it connected with before (the first entry of
NetworkConfigurationPriority when the test began; A05.FR.06); the harness's CSMS serves the new profile's wss on a
port of its own beside its listener (``serve_tls_beside``), closed when the test ends. A CSMS under test must admit
the harness's station at the new profile and refuse it at the old one (steps 10-13); the embedded stand-in serves
wss beside its ws listener (``sut_tls_url``), a real CSMS at [tls] sut_upgrade_url (else --sut-url over wss).

Leaving the SUT as found: no message takes a station back to a lower security profile (B09.FR.04, A05.FR.03; 2.1's
AllowSecurityProfileDowngrade never to 1), so the upgrade cannot be undone over OCPP. The harness undoes only its
own side (its root installed, the priority it set, its wss listener); the embedded run's stand-in is made anew for
every test. Against a real station the reboot test is played only when the profile opts in
([tls] upgrade_kept = true: the station may stay at the higher profile, pointed at the harness's listener)."""

import pytest

from harness.errors import NotApplicable
from harness.ocpp.versions import OcppVersion
from harness.roles import CS, CSMS
from harness.rules import RuleTable, must, should
from harness.suite import OCPP2, TC, case, checks, needs
from harness.arena.ocpp_sides import Restart
from harness.usecases.device_model import get_variables
from harness.usecases.operations import operate, status_of
from harness.usecases.reset import Resets, accepted, rebooted, reset
from harness.usecases.tls import at_security_profile, over_tls, station_admitted
from harness.verdict import check_equal, dig, require

SLOT = 8   # a slot a station does not connect with
PRIORITY = {"component": {"name": "OCPPCommCtrlr"}, "variable": {"name": "NetworkConfigurationPriority"}}
EVSX = "EVSExplorer's public A05 summary"   # restates A05.FR.02, .06, .07 with "must"
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
    root_required = must(f"{EVSX}: a station switching to profile 2 or higher with no valid "
                         "CSMSRootCertificate installed must refuse (A05.FR.02); libocpp status tables (numbering)",
                         "a station refuses a NetworkConfigurationPriority naming a profile of security profile 2 "
                         "while it holds no CSMSRootCertificate: attributeStatus Rejected", by=CS)
    reconnected = must("OCPP 2.1 errata 2025-06 B10.FR.04 (after a reboot the first entry of NetworkConfiguration"
                       "Priority SHALL be tried first; its note: the same as A05.FR.05); tzi-OCTT TC_A_19_CSMS step 7",
                       "after the reboot the station connects through the new profile: to its URL, over TLS "
                       "(security profile 2)", by=CS)
    lower_dropped = must(f"{EVSX}: once connected at a higher profile a station must delete "
                         "every network profile of a lower one and update the priority (A05.FR.06)",
                         "connected at the new profile, the station no longer lists the slot it connected with "
                         "before in NetworkConfigurationPriority", by=CS)
    upgraded_admitted = should("tzi-OCTT TC_A_19_CSMS steps 7-8 and 12-13 (the CSMS accepts the connection at the "
                               "new profile; no SHALL)", "the CSMS admits the station at the security profile it "
                               "upgraded it to, at the URL it gave", by=CSMS)
    old_refused = must("tzi-OCTT TC_A_19_CSMS steps 10-11 (the CSMS shall not accept the connection at the old "
                       f"profile); A05.FR.07 as {EVSX} restates it (must not allow)",
                       "once the station connected at the higher profile, the CSMS refuses its connection at the "
                       "old one", by=CSMS)
    lower_refused = must(f"{ERRATA}; OCPP 2.1 errata B09.FR.31 (a profile 1 refused even where a downgrade is "
                         "allowed)", "a station refuses a network profile of a lower security profile than its "
                         "connection's, here profile 1 over TLS: SetNetworkProfile Rejected", by=CS)


pytestmark = case("A05", block="Security", roles=("csms", "cs"), protocols=OCPP2, requires=["advanced_security"])


def upgrade_kept(given) -> None:
    """A ``needs`` condition: the profile lets the SUT stay at the higher profile (the reference profile does:
    the embedded run's stand-ins are made anew for every test)."""
    if not given.profile.get("tls.upgrade_kept", False):
        raise NotApplicable("the upgrade cannot be undone over OCPP: set [tls] upgrade_kept = true in the profile "
                            "to let the SUT stay at the higher security profile")


def connection_data(arena, security_profile: int) -> dict:
    """A profile for the CSMS the station talks to, over wss from profile 2 on."""
    url = arena.sut_url if arena.is_sut(CSMS) else arena.harness_csms.url
    if security_profile >= 2:
        url = url.replace("ws://", "wss://", 1)
    return {"ocppVersion": "OCPP20" if arena.version is OcppVersion.V201 else "OCPP21", "ocppTransport": "JSON",
            "ocppCsmsUrl": url, "messageTimeout": 30, "securityProfile": security_profile, "ocppInterface": "Wired0"}


def upgrade_target(arena) -> int:
    """The profile one above the test's; not applicable where the test cannot set its prerequisites up."""
    target = arena.security_profile + 1
    if target > 3 or (target == 3 and arena.is_sut(CS)):
        raise NotApplicable(f"an upgrade to security profile {target} at a station under test needs a station "
                            f"certificate its operator issued, which this test does not set up")
    return target


async def install_root(arena) -> None:
    """The prerequisite of an upgrade to 2 at a station under test: the harness's TLS root as its CSMS root."""
    root = arena.pki().root.certificate_pem().decode()
    check_equal(A05.priority_accepted, "InstallCertificate answer status (the prerequisite: the CSMS root)",
                "Accepted", status_of(await arena.call_sut("InstallCertificate", {
                    "certificateType": "CSMSRootCertificate", "certificate": root})))


def attribute_status(exchange) -> str | None:
    results = dig(exchange.result, "setVariableResult", [])
    return results[0].get("attributeStatus") if results else None


async def upgrade(arena, target: int, url: str | None = None, first: str = "1") -> None:
    """TC_A_19 steps 1-4: the profile of ``target`` (at ``url``) in slot 8, then NetworkConfigurationPriority
    "8,<first>"; a station under test accepts both."""
    if target == 2 and arena.is_sut(CS):
        await install_root(arena)
    data = connection_data(arena, target) | ({"ocppCsmsUrl": url} if url else {})
    stored = await operate(arena, "SetNetworkProfile", {"configurationSlot": SLOT, "connectionData": data},
                           A05.profile_request)
    if arena.is_sut(CS):
        check_equal(A05.profile_stored, "SetNetworkProfileResponse status", "Accepted", status_of(stored))
    item = PRIORITY | {"attributeValue": f"{SLOT},{first}"}
    exchange = await operate(arena, "SetVariables", {"setVariableData": [item]}, A05.priority_request)
    if arena.is_sut(CS):
        check_equal(A05.priority_accepted, f"SetVariablesResponse attributeStatus (NetworkConfigurationPriority "
                    f"\"{SLOT},{first}\")", "Accepted", attribute_status(exchange))


async def priority(arena) -> list[str]:
    """The station's NetworkConfigurationPriority, its entries."""
    results = await get_variables(arena, [PRIORITY], A05.lower_dropped)
    value = results[0].get("attributeValue") if results and results[0].get("attributeStatus") == "Accepted" else None
    if value is None:
        raise NotApplicable(f"the station does not report OCPPCommCtrlr.NetworkConfigurationPriority: {results}")
    return [entry.strip() for entry in value.split(",")]


@checks(A05.profile_request, A05.profile_stored, A05.priority_request, A05.priority_accepted)
async def test_higher_profile_stored_and_prioritized(ocpp):
    """The profile one above the test's in slot 8, then NetworkConfigurationPriority "8,1": both Accepted."""
    await upgrade(ocpp, upgrade_target(ocpp))


@pytest.mark.sut_roles("cs")
@checks(A05.root_required)
async def test_priority_without_csms_root_refused(ocpp):
    """No CSMSRootCertificate at the station: a priority naming a profile of security profile 2 is Rejected."""
    if upgrade_target(ocpp) != 2:
        raise NotApplicable("the test plays an upgrade from security profile 1 to 2")
    roots = await ocpp.call_sut("GetInstalledCertificateIds", {"certificateType": ["CSMSRootCertificate"]})
    if status_of(roots) != "NotFound":
        raise NotApplicable("the station holds a CSMSRootCertificate already (GetInstalledCertificateIds "
                            f"answered {status_of(roots)})")
    await ocpp.call_sut("SetNetworkProfile", {"configurationSlot": SLOT, "connectionData": connection_data(ocpp, 2)})
    exchange = await ocpp.call_sut("SetVariables", {"setVariableData": [PRIORITY | {"attributeValue": f"{SLOT},1"}]})
    check_equal(A05.root_required, "SetVariablesResponse attributeStatus (a profile 2 slot first, no CSMS root)",
                "Rejected", attribute_status(exchange))


@pytest.mark.sut_roles("cs")
@checks(A05.profile_stored, A05.priority_accepted, Resets.request, Restart.boots, Resets.boot_answered,
        Resets.reason, A05.reconnected, A05.lower_dropped)
@needs(upgrade_kept, at_security_profile(2))
async def test_upgrade_used_after_reboot(ocpp, harness_csms):
    """Upgraded to profile 2 at the harness's wss listener, then Reset: the station reconnects over TLS there,
    boots (RemoteReset), and its priority no longer names the slot it connected with before."""
    if upgrade_target(ocpp) != 2:
        raise NotApplicable("the test plays an upgrade from security profile 1 to 2")
    url = await harness_csms.serve_tls_beside()
    if url is None:
        raise NotApplicable("the harness's CSMS listens on every address: give [sut] listen one address the "
                            "station can reach, for the URL of the new network profile")
    before = await priority(ocpp)
    await upgrade(ocpp, 2, url, before[0])
    connections = ocpp.connections()
    async with ocpp.prerequisite("reset of the idle station", owner="B11"):
        accepted(await reset(ocpp, "Immediate"), "Accepted", Resets.idle)
    await rebooted(ocpp, connections, "RemoteReset")
    check_equal(A05.reconnected, "TLS version of the station's connection after the reboot",
                "TLSv1.2 or later", "TLSv1.2 or later" if ocpp.link_tls_version() else "plain ws")
    after = await priority(ocpp)
    require(before[0] == str(SLOT) or before[0] not in after, A05.lower_dropped, "the station connected at "
            "security profile 2 still names the slot it connected with at profile 1 in NetworkConfigurationPriority",
            expected=f"no slot {before[0]}", actual=",".join(after))


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


@pytest.mark.sut_roles("csms")
@checks(A05.profile_request, A05.priority_request, Resets.request, Resets.boot_answered, A05.upgraded_admitted,
        A05.old_refused, csms=TC("TC_A_19_CSMS", "ocpp2.0.1"))
@needs(upgrade_kept, at_security_profile(2))
async def test_old_profile_refused_after_reboot(ocpp, harness_station):
    """TC_A_19_CSMS: the CSMS upgrades the harness's station to profile 2 and resets it; the station reconnects over
    TLS and boots; then a connection at profile 1 is refused, one at profile 2 admitted again."""
    if upgrade_target(ocpp) != 2:
        raise NotApplicable("the test plays an upgrade from security profile 1 to 2")
    url = await ocpp.sut_tls_url()
    harness_station.hold_csms_root()
    await upgrade(ocpp, 2, url)
    connections = ocpp.connections()
    await reset(ocpp, "Immediate")
    await rebooted(ocpp, connections, "RemoteReset")
    if ocpp.link_tls_version() is None:   # the new profile's connection failed: the station fell back
        check_equal(A05.upgraded_admitted, f"the station's connection after the reboot (through {url})",
                    "over TLS", "plain ws (its old profile: the new profile's connection was refused)")
        return
    old = await harness_station.try_profile(1, ocpp.sut_url)
    require(old.connection is None, A05.old_refused, "the CSMS admitted the station at security profile 1 after it "
            "connected at 2", expected="a refusal (HTTP 4xx or no connection)", actual="a connection over plain ws")
    again = await harness_station.try_profile(2, url)
    require(again.connection is not None, A05.upgraded_admitted, "the CSMS refused the station at security "
            "profile 2 after the reboot", expected="a connection over TLS",
            actual=f"HTTP {again.status}" if again.status else again.tls_refused)
