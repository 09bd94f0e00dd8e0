"""RESET16 — Reset of a 1.6 charge point, Hard and Soft, with and without a transaction (spec 002
Core: Reset CS to CP; ResetType; ResetStatus; Reason HardReset/SoftReset; OCPP 1.6 section 4.2: a
charge point boots after it starts).

A charge point may answer Reset Rejected (ResetStatus): the test is then not applicable. After an
accepted reset it boots again, on a new connection or the same. A transaction running at the reset
ends with StopTransaction before or after the restart (a Hard reset need not stop it gracefully); a
Soft reset stops it gracefully, before the restart, and a later stop is a finding.
"""

import pytest

from harness.arena.ocpp_sides import Registration
from harness.roles import CS, CSMS
from harness.errors import HarnessError, NotApplicable
from harness.rules import RuleTable, must, should
from harness.suite import OCPP16, TC, case, checks, needs
from harness.usecases.core16 import Core16, connectors, start, tag16, tagged, transaction_id
from harness.verdict import check_equal, require, violated


class RESET16(RuleTable):
    """The rules of RESET16."""
    type_as_asked = must("spec 002 Messages Reset; Enumerations ResetType",
                         "the central system sends Reset with the type it was asked for", by=CSMS)
    answered = must("spec 002 Messages Reset; Framing 5", "a charge point answers Reset with Reset.conf", by=CS)
    restarts = must("spec 002 Enumerations ResetStatus, ResetType; OCPP 1.6 section 4.2; TC_013_CS",
                    "a charge point that accepted a Reset restarts, boots and reports its connectors", by=CS)
    stops_transaction = must("spec 002 Enumerations ResetType; TC_015_CS",
                             "a transaction running at a Reset ends with StopTransaction", by=CS)
    reason = must("spec 002 Enumerations Reason",
                  "a transaction stopped by a Reset has reason HardReset or SoftReset, as the reset's type", by=CS)
    soft_graceful = should("spec 002 Enumerations ResetType (Soft)",
                           "a Soft reset stops a running transaction gracefully, before the restart", by=CS)


pytestmark = case("RESET16", block="Core (1.6)", roles=("csms", "cs"), protocols=OCPP16)

RESTART = (RESET16.type_as_asked, RESET16.answered, RESET16.restarts, Registration.accepted)
STOP = (*RESTART, Core16.authorize, Core16.start, RESET16.stops_transaction, RESET16.reason)


async def _reset(arena, kind: str):
    """The central system resets the charge point; the answer is Accepted, or the test does not apply."""
    exchange = await arena.exchange(CSMS, "Reset", {"type": kind}, trigger=("reset", {"type": kind}),
                                    rule=RESET16.type_as_asked)
    check_equal(RESET16.type_as_asked, "Reset.req type", kind, exchange.request["type"])
    require(exchange.error is None, RESET16.answered, "the charge point refused Reset with a CALLERROR",
            expected="Reset.conf", actual=exchange.error)
    if exchange.result["status"] == "Rejected":
        raise NotApplicable(f"the charge point rejects a {kind} Reset (ResetStatus Rejected)")
    return exchange


async def _harness_restarted(arena, before: int):
    """The harness's charge point restarts after an accepted Reset: its next connection, where the central
    system under test answers its boot (Accepted required only of a station the profile declares registered)."""
    if await arena.reconnected(before) is None:
        raise HarnessError(f"the harness's charge point did not reconnect within {arena.timeouts.connect:g} s "
                           f"after the Reset")
    boot = await arena.expect("BootNotification", sender=CS, after=0, timeout=arena.timeouts.connect,
                              rule=RESET16.restarts)
    arena.harness_station.boot_answered(boot.result["status"])   # Pending or Rejected is the CSMS's right
    return boot


async def _restarted(arena, before: int, mark: int):
    """The charge point's boot after the Reset (``before``: its connections, ``mark``: the link's
    history, at the Reset), and its connectors reported after it."""
    if arena.is_sut(CSMS):
        return await _harness_restarted(arena, before)
    boot = await arena.harness_csms.restarted(before, mark)
    require(boot is not None, RESET16.restarts,
            f"no BootNotification within {arena.timeouts.connect:g} s of the accepted Reset",
            expected="BootNotification", actual="nothing")
    await arena.expect("StatusNotification", sender=CS, after=arena.mark_after(boot),
                       rule=RESET16.restarts)
    return boot


@pytest.mark.parametrize("kind", [
    pytest.param("Hard", marks=checks(*RESTART, cs=TC("TC_013_CS"), csms=TC("TC_013_CSMS"))),
    pytest.param("Soft", marks=checks(*RESTART, cs=TC("TC_014_CS"), csms=TC("TC_014_CSMS")))])
async def test_reset_restarts_the_charge_point(ocpp, kind):
    """An accepted Reset is followed by a BootNotification, Accepted, and the connectors' status."""
    before, mark = ocpp.connections(), ocpp.mark()
    await _reset(ocpp, kind)
    await _restarted(ocpp, before, mark)


@pytest.mark.parametrize("kind", [pytest.param("Hard", marks=checks(*STOP, cs=TC("TC_015_CS"))),
                                  pytest.param("Soft", marks=checks(*STOP, RESET16.soft_graceful, cs=TC("TC_016_CS")))])
@needs(tagged("Accepted"))
async def test_reset_stops_the_running_transaction(ocpp, profile, kind):
    """The transaction running at the reset ends with StopTransaction, reason HardReset or SoftReset."""
    connector = connectors(profile)[0]
    tx_id = transaction_id(await start(ocpp, tag16(profile, "Accepted"), connector))
    before, link, mark = ocpp.connections(), ocpp.link_number(), ocpp.mark()
    await _reset(ocpp, kind)
    await _restarted(ocpp, before, mark)
    ours = lambda p: p.get("transactionId") == tx_id
    stop = next(iter(ocpp.sent("StopTransaction", sender=CS, after=mark, where=ours, on=link)), None)
    if stop is None and ocpp.link_number() != link:
        stop = await ocpp.next_call("StopTransaction", sender=CS, within=ocpp.timeouts.action, where=ours)
        if stop is not None and kind == "Soft":
            violated(RESET16.soft_graceful, "the transaction was stopped after the restart, not gracefully before it")
    require(stop is not None, RESET16.stops_transaction, "no StopTransaction for the running transaction",
            expected=f"StopTransaction {tx_id}", actual="nothing")
    check_equal(RESET16.reason, "StopTransaction.req reason", f"{kind}Reset", stop.request.get("reason"))
