"""A station answered Pending or Rejected at its boot (OCPP 2.x B02, B03; 1.6 BOOT16), from either side.

A station under test: the harness's CSMS answers the boots so, the station is restarted (Reset) to boot, and what it
sends until the CSMS accepts it is read. A CSMS under test: it is set to answer so (``set_registration``, undone by
Accepted), the harness's station boots by hand, and what the CSMS answers is read. The requirements, in our words:
docs/requirements/provisioning.md."""

from __future__ import annotations

from typing import Any, Awaitable, Callable

from harness import clock
from harness.arena.ocpp import OcppArena
from harness.arena.ocpp_sides import HarnessStationSide, Restart
from harness.errors import NotApplicable
from harness.ocpp.v16 import interval_of
from harness.ocpp.versions import OcppVersion
from harness.roles import CS, CSMS
from harness.rules import Rule
from harness.transport.ws import Exchange
from harness.usecases.reset import reset
from harness.verdict import check_equal, require

RETRY = 5   # seconds: the interval of the Pending / Rejected answer, the least wait before the next boot


async def refused_boots(arena: OcppArena, status: str, boots_again: Rule, silent: Rule, *,
                        meanwhile: Callable[[], Awaitable[Any]] | None = None) -> Exchange | None:
    """The station restarted while the CSMS answers its boots ``status`` (interval RETRY): it boots again
    after the interval (``boots_again``) and sends no other CALL meanwhile (``silent``); then the CSMS accepts it
    and its next boot is awaited. ``meanwhile`` is played once the first boot was answered (the CSMS's queries
    of a Pending station). Returns the boot answered ``status`` that came again (None when none came)."""
    arena.configure(registration=status, retry_interval=RETRY)
    arena.undo("accept the station's boots again", lambda: _accepting(arena))
    connections = arena.connections()
    if (await reset(arena, "Immediate")).result["status"] != "Accepted":
        raise NotApplicable("the station did not accept the Reset that lets it boot again")
    if await arena.reconnected(connections) is None:
        arena.silent(Restart.boots, "BootNotification", arena.timeouts.connect, "after the accepted Reset")
    first = await arena.expect("BootNotification", sender=CS, after=0, rule=Restart.boots)
    after = arena.mark_after(first)
    if meanwhile is not None:
        await meanwhile()
    again = await arena.next_call("BootNotification", sender=CS, within=2 * RETRY + arena.timeouts.action,
                                  after=after)
    require(again is not None, boots_again, f"the station answered {status} did not boot again within "
            f"{2 * RETRY + arena.timeouts.action:g} s of a {RETRY} s interval", expected="BootNotificationRequest",
            actual="nothing")
    if again is None:   # a finding: nothing more to read
        return None
    others = [e.action for e in arena.sent(sender=CS, after=after) if e.action != "BootNotification"]
    require(not others, silent, f"the station answered {status} sent other CALLs before it was accepted",
            expected="BootNotification only", actual=others)
    arena.configure(registration="Accepted")
    accepted = await arena.next_call("BootNotification", sender=CS, within=2 * RETRY + arena.timeouts.action,
                                     after=arena.mark_after(again))
    require(accepted is not None, boots_again, "the station did not boot again once the CSMS would accept it",
            expected="BootNotificationRequest", actual="nothing")
    return again


async def _accepting(arena: OcppArena) -> None:
    arena.configure(registration="Accepted")


def _boot_answer(arena: OcppArena) -> str:
    return "BootNotification.conf status" if arena.version is OcppVersion.V16 else "BootNotificationResponse status"


async def answered_as(arena: OcppArena, station: HarnessStationSide, status: str, rule: Rule) -> dict:
    """The CSMS under test is set to answer ``status`` (its operator's ``set_registration``); the harness's station
    connects without booting (a refused handshake is the profile's to fix: CONN judges it) and boots once. The
    answer, whose status ``rule`` judges."""
    await arena.act(CSMS, "set_registration", status=status)
    await station.connect(boot=False)
    response = await station.send_boot()
    check_equal(rule, _boot_answer(arena), status, response.get("status"))
    return response


async def accepted_after(arena: OcppArena, station: HarnessStationSide, response: dict, rule: Rule) -> dict:
    """Set to Accepted, the CSMS under test accepts the next boot, sent after the interval of ``response`` (cut
    short at the connect timeout: booting early is then the harness's own deviation from a SHOULD, not the SUT's)."""
    await arena.act(CSMS, "set_registration", status="Accepted")
    await arena.elapse(min(interval_of(response), arena.timeouts.connect))
    again = await station.send_boot()
    check_equal(rule, _boot_answer(arena), "Accepted", again.get("status"))
    return again


async def report_first_connector(arena: OcppArena, status: str = "Available") -> Exchange:
    """The harness's 2.x station reports the status of its first connector: the exchange, answered or refused."""
    evse = arena.profile.evses[0]
    timestamp = clock.utcnow().isoformat(timespec="seconds").replace("+00:00", "Z")
    return await arena.call_sut("StatusNotification", {"timestamp": timestamp, "connectorStatus": status,
                                                        "evseId": evse.id, "connectorId": evse.connectors[0]})


async def refuses_calls(arena: OcppArena, status: str, rule: Rule) -> None:
    """The harness's station, answered ``status``, reports a connector all the same: the CSMS under test answers
    CALLERROR SecurityError (``rule``)."""
    report = await report_first_connector(arena)
    code = None if report.error is None else report.error.code
    require(code == "SecurityError", rule, f"the CSMS answered a StatusNotification of a station it answered "
            f"{status} otherwise than with SecurityError", expected="CALLERROR SecurityError",
            actual=code or "StatusNotificationResponse")
