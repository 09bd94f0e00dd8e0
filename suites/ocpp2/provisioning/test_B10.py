"""B10 — Migrate to a new network connection profile: the operator has the CSMS store a profile in a free slot
(SetNetworkProfile, B09), put that slot first in OCPPCommCtrlr.NetworkConfigurationPriority (SetVariables) and
reset the station; after the reboot the station connects with the first entry of the list and boots again. The
requirements, in our words: docs/requirements/provisioning.md.

The new profile names the harness itself under another path (``/b10-migrated``): the station is judged on the
path of the upgrade request it sends after the reboot. A station under test thus keeps its CSMS, and the old
priority comes back when the test ends (the arena restores the variable); its old slot stays second in the list
meanwhile, so a station that cannot use the new profile falls back to it (B10.FR.03), which a second test asks of it
with a profile naming an address where nothing listens (NetworkProfileConnectionAttempts set to 1).

Readings chosen where the texts are silent: the station may refuse the profile (Rejected, Failed), the new
priority or the reset (the test is then not applicable); Accepting a valid priority list is SHOULD (B10.FR.01's
text could not be checked); the harness must listen on one address ([sut] listen) to name it in a profile."""

from urllib.parse import urlsplit

import pytest

from harness.arena.ocpp_sides import Restart
from harness.errors import NotApplicable
from harness.roles import CS, CSMS
from harness.rules import RuleTable, must, should
from harness.suite import OCPP2, case, checks
from harness.usecases.authorization import station_variable
from harness.usecases.device_model import PRIORITY, get_variables, network_profile, set_variables
from harness.usecases.operations import operate
from harness.usecases.reset import Resets, accepted, rebooted, reset
from harness.verdict import check_equal, require, violated

MARKER = "b10-migrated"   # the path under which the migrated profile reaches the harness


class B10(RuleTable):
    """The rules of B10 (OCPP 2.0.1 part 2, B10; the same in 2.1, whose errata add B10.FR.10)."""
    request = must("OCPP 2.0.1 part 2 SetNetworkProfileRequest, SetVariablesRequest (required fields)",
                   "the CSMS sends the profile and the NetworkConfigurationPriority its operator asked for", by=CSMS)
    priority_set = should("OCPP 2.0.1 part 2 B10 (B10.FR.01); SetVariableStatusEnumType",
                          "a NetworkConfigurationPriority that puts a slot with a stored valid profile first is "
                          "Accepted", by=CS)
    restarts = should("OCPP 2.0.1 part 2 B10, B11; ResetStatusEnumType", "the idle station accepts the Immediate "
                      "reset that makes the new priority take effect", by=CS)
    first_entry = must("OCPP 2.0.1 part 2 B10.FR.04 (as the OCA errata of 2025-06 quote it, SHALL; the same as "
                       "A05.FR.05)", "after the reboot the station connects with the first entry of "
                       "NetworkConfigurationPriority", by=CS)
    next_entry = must("OCPP 2.0.1 part 2 B10.FR.03 (as the OCA errata of 2025-06 quote it, SHALL: "
                      "NetworkProfileConnectionAttempts attempts per entry of NetworkConfigurationPriority)",
                      "after a reboot, once its attempts with the first entry failed, the station connects with the "
                      "next entry", by=CS)
    boots = must("OCPP 2.0.1 part 2 B10.FR.10 (added by the OCA errata of 2025-06, SHALL)",
                 "connected with another network connection profile, the station sends BootNotification", by=CS)


pytestmark = case("B10", block="Provisioning", roles=("csms", "cs"), protocols=OCPP2)


def _slot(priority: str) -> int:
    """A configuration slot the current priority list does not name."""
    used = {int(e) for e in priority.split(",") if e.strip().isdigit()}
    return next(slot for slot in range(9, 100) if slot not in used)


async def _migrate(ocpp, url: str, *, reboot: bool = True) -> str | None:
    """The three steps of the operator: the profile for ``url`` stored in a free slot, that slot put first, an
    Immediate reset (its reboot awaited unless ``reboot`` is False). The station's refusal of any step makes the test
    not applicable; a refused priority is a finding (None)."""
    read = await get_variables(ocpp, [PRIORITY], B10.request)
    old = read[0].get("attributeValue") or "1"
    slot = _slot(old)
    stored = await operate(ocpp, "SetNetworkProfile", {"configurationSlot": slot,
                                                       "connectionData": network_profile(ocpp, url)}, B10.request)
    if stored.result["status"] != "Accepted":
        raise NotApplicable(f"the station answered SetNetworkProfile {stored.result['status']}")
    results = await set_variables(ocpp, [PRIORITY | {"attributeValue": f"{slot},{old}"}], B10.request)
    check_equal(B10.priority_set, "SetVariableResult of NetworkConfigurationPriority", "Accepted",
                results[0]["attributeStatus"])
    if results[0]["attributeStatus"] != "Accepted":
        return None
    connections = ocpp.connections()
    accepted(await reset(ocpp, "Immediate"), "Accepted", B10.restarts)
    if reboot:
        await rebooted(ocpp, connections, "RemoteReset")
    return url


@pytest.mark.sut_roles("cs")
@checks(B10.request, B10.priority_set, Resets.request, B10.restarts, Restart.boots, Resets.reason, B10.first_entry)
async def test_station_connects_with_the_first_profile(ocpp, harness_csms):
    """A profile naming the harness under /b10-migrated put first: after the reset the station's upgrade request
    comes to that path, and it boots."""
    url = harness_csms.url_under(MARKER)
    if url is None:
        raise NotApplicable("the harness listens on every address: [sut] listen must name the one the station "
                            "reaches it at, for a profile to name it")
    if await _migrate(ocpp, url) is None:
        return
    path = harness_csms.handshakes()[-1].path
    require(path.startswith(urlsplit(url).path + "/"), B10.first_entry, "after the reboot the station did not "
            "connect with the first entry of NetworkConfigurationPriority", expected=f"{url}/<identity>",
            actual=path)


@pytest.mark.sut_roles("cs")
@checks(B10.request, B10.priority_set, Resets.request, B10.restarts, B10.next_entry, B10.boots)
async def test_station_falls_back_to_the_next_profile(ocpp, harness_csms):
    """A profile naming an address where nothing listens (127.0.0.1, port 1) put first, one attempt per entry:
    after the reset the station gives it up and connects with the next entry, its old profile (back to the
    harness at its usual path), and boots."""
    await station_variable(ocpp, "OCPPCommCtrlr", "NetworkProfileConnectionAttempts", "1")
    scheme = "wss" if ocpp.security_profile >= 2 else "ws"
    connections = ocpp.connections()
    if await _migrate(ocpp, f"{scheme}://127.0.0.1:1/{MARKER}", reboot=False) is None:
        return
    if await ocpp.reconnected(connections) is None:
        violated(B10.next_entry, "after the reboot the station did not connect with the next entry of "
                 "NetworkConfigurationPriority once the first failed", expected="a new connection to the harness",
                 actual=f"none within {ocpp.timeouts.connect:g} s")
    path = harness_csms.handshakes()[-1].path
    require(MARKER not in path, B10.next_entry, "the station connected with another entry than the next one",
            expected="its old profile's URL", actual=path)
    await ocpp.expect("BootNotification", sender=CS, after=0, rule=B10.boots)


@pytest.mark.sut_roles("csms")
@checks(B10.request, Resets.request, Restart.boots, Resets.boot_answered)
async def test_csms_migrates_the_station(ocpp):
    """The operator migrates the station to a profile naming the CSMS under test itself: the CSMS sends the
    profile, the priority and the reset as asked, and answers the station's boot after the reboot."""
    await _migrate(ocpp, ocpp.sut_url)
