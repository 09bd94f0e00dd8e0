"""RESET16 — Reset of a 1.6 charge point, Hard and Soft, with and without a transaction.

Rules (spec 002 Core: Reset CS to CP; ResetType; ResetStatus; Reason HardReset/SoftReset; 1.6
section 4.2: a charge point boots after it starts):
- X1  the central system sends Reset with the type it was asked for;
- X2  a charge point that answers Accepted restarts: it boots again (on a new connection or the same)
      and reports its connectors; Rejected is its right (the test is then not applicable); the
      central system accepts the restarted charge point's boot;
- X3  a transaction running at the reset ends with StopTransaction, reason HardReset or SoftReset,
      before or after the restart (TC_015); a Soft reset stops it gracefully, before the restart
      (a later one is a finding).
"""

import asyncio
import time

import pytest

from harness.arena import CSMS
from harness.errors import HarnessError, NotApplicable
from harness.suite import OCPP16, case, certified
from harness.usecases.core16 import connectors, start, tag16, transaction_id, unplug
from harness.verdict import check_equal, finding, require

pytestmark = case("RESET16", block="Core (1.6)", roles=("csms", "cs"), protocols=OCPP16)

KINDS = ("Hard", "Soft")


async def _reset(arena, kind: str):
    """X1/X2: the central system resets the charge point; the answer is Accepted, or the test does not apply."""
    exchange = await arena.exchange(CSMS, "Reset", {"type": kind}, trigger=("reset", {"type": kind}),
                                    rule="X1: the central system sends Reset when asked")
    check_equal("X1: the Reset type is the one asked for", "Reset.req type", kind, exchange.request["type"])
    require(exchange.error is None, "X2 / spec 002 Core: Reset is answered with Reset.conf",
            "the charge point refused Reset with a CALLERROR", expected="Reset.conf", actual=exchange.error)
    if exchange.response["status"] == "Rejected":
        raise NotApplicable(f"the charge point rejects a {kind} Reset (ResetStatus Rejected)")
    return exchange


async def _harness_restarted(arena, links_before: int):
    """The harness's charge point restarts after an accepted Reset: its next connection, where the central
    system under test answers its boot."""
    station, deadline = arena.harness, time.monotonic() + arena.timeouts.connect
    while len(station.links) <= links_before and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    if len(station.links) <= links_before:
        raise HarnessError(f"the harness's charge point did not reconnect within {arena.timeouts.connect:g} s "
                           f"after the Reset")
    arena.link = station.links[-1]
    boot = await arena.expect("BootNotification", after=0, timeout=arena.timeouts.connect,
                              rule="X2: the restarted charge point boots")
    check_equal("X2: the central system accepts the restarted charge point", "BootNotification.conf status",
                "Accepted", boot.response["status"])
    return boot


async def _restarted(arena, before: int, mark: int):
    """X2: the charge point's boot after the Reset (``before``: its connections, ``mark``: the link's
    history, at the Reset), and its connectors reported after it."""
    if arena.is_sut(CSMS):
        return await _harness_restarted(arena, before)
    boot = await arena.restarted(before, mark)
    require(boot is not None, "X2 / 1.6 section 4.2: after an accepted Reset the charge point restarts and boots",
            f"no BootNotification within {arena.timeouts.connect:g} s of the accepted Reset",
            expected="BootNotification", actual="nothing")
    await arena.expect("StatusNotification", after=arena.link.history.index(boot),
                       rule="X2 (TC_013_CS step 9): after the restart the charge point reports its connectors")
    return boot


def _connections(arena) -> int:
    """How many connections the charge point has had: the mark its restart is recognised by."""
    return len(arena.harness.links) if arena.is_sut(CSMS) else len(arena.harness.server.connections)


@pytest.mark.parametrize("kind", [pytest.param("Hard", marks=certified(pytestmark, cs="TC_013_CS")), "Soft"])
async def test_reset_restarts_the_charge_point(ocpp, kind):
    """X1/X2: an accepted Reset is followed by a BootNotification, Accepted, and the connectors' status."""
    before, mark = _connections(ocpp), ocpp.mark()
    await _reset(ocpp, kind)
    await _restarted(ocpp, before, mark)


@pytest.mark.parametrize("kind", [pytest.param("Hard", marks=certified(pytestmark, cs="TC_015_CS")), "Soft"])
async def test_reset_stops_the_running_transaction(ocpp, profile, kind):
    """X3: the transaction running at the reset ends with StopTransaction, reason HardReset or SoftReset."""
    connector = connectors(profile)[0]
    tx_id = transaction_id(await start(ocpp, tag16(profile, "Accepted"), connector))
    before, old_link, mark = _connections(ocpp), ocpp.link, ocpp.mark()
    await _reset(ocpp, kind)
    await _restarted(ocpp, before, mark)
    ours = lambda e: e.action == "StopTransaction" and e.request.get("transactionId") == tx_id
    stop = next((e for e in old_link.history[mark:] if ours(e)), None)
    if stop is None and ocpp.link is not old_link:
        stop = await ocpp.link.wait_for(ours, ocpp.timeouts.action)
        if stop is not None and kind == "Soft":
            finding("X3 / ResetType Soft", "the transaction was stopped after the restart, not gracefully before it")
    require(stop is not None, "X3 (TC_015_CS step 3): a transaction running at a Reset ends with StopTransaction",
            "no StopTransaction for the running transaction", expected=f"StopTransaction {tx_id}", actual="nothing")
    check_equal(f"X3 / Reason: a {kind} Reset stops a transaction with reason {kind}Reset",
                "StopTransaction.req reason", f"{kind}Reset", stop.request.get("reason"))
    await unplug(ocpp, connector)
