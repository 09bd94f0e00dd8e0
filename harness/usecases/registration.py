"""A station under test answered Pending or Rejected at its boot (OCPP 2.x B02, B03): the harness's CSMS answers
the boots so, the station is restarted (Reset) to boot, and what it sends until the CSMS accepts it is read. The
requirements, in our words: docs/requirements/provisioning.md."""

from __future__ import annotations

from harness.arena.ocpp import OcppArena
from harness.arena.ocpp_sides import Restart
from harness.errors import NotApplicable
from harness.roles import CS
from harness.rules import Rule
from harness.transport.ws import Exchange
from harness.usecases.reset import reset
from harness.verdict import require

RETRY = 5   # seconds: the interval of the Pending / Rejected answer, the least wait before the next boot


async def refused_boots(arena: OcppArena, status: str, boots_again: Rule, silent: Rule) -> Exchange | None:
    """The station restarted while the CSMS answers its boots ``status`` (interval RETRY): it boots again
    after the interval (``boots_again``) and sends no other CALL meanwhile (``silent``); then the CSMS accepts it
    and its next boot is awaited. Returns the boot answered ``status`` that came again (None when none came)."""
    arena.configure(registration=status, retry_interval=RETRY)
    arena.undo("accept the station's boots again", lambda: _accepting(arena))
    connections = arena.connections()
    if (await reset(arena, "Immediate")).result["status"] != "Accepted":
        raise NotApplicable("the station did not accept the Reset that lets it boot again")
    if await arena.reconnected(connections) is None:
        arena.silent(Restart.boots, "BootNotification", arena.timeouts.connect, "after the accepted Reset")
    first = await arena.expect("BootNotification", sender=CS, after=0, rule=Restart.boots)
    after = arena.mark_after(first)
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
