"""Reset: the CSMS restarts the station.

Station 2.x (spec 001 Reset): Immediate, or OnIdle while idle, is Accepted (OnIdle during a
transaction is Rejected: this station does not schedule resets); after the answer running
transactions end (ResetCommand / ImmediateReset), the connection closes, and the station connects
again and boots with reason RemoteReset.

Charge point 1.6 (spec 002 Core, 1.6 section 4.2): Hard and Soft are Accepted; running transactions
stop with reason HardReset / SoftReset (gracefully for either type, which a Hard reset permits), the
connection closes, and the restarted charge point reconnects and boots.

The harness resets a station under test that reconnects without booting when a test needs its boot
(``OcppArena.station_boot``). The 1.6 central system sends Reset as an actuator action.
"""

from __future__ import annotations

import asyncio

from harness.reference.common import V2X, V16, Block


class ResetStation2x(Block):
    versions = V2X
    requires = ("ProvisioningStation2x", "TransactionsStation2x")

    def on_Reset(self, _: None, payload: dict) -> dict:
        if payload["type"] == "OnIdle" and any(state.busy for state in self.evses.values()):
            return {"status": "Rejected"}
        self.background.spawn(self._restart(payload["type"]))
        return {"status": "Accepted"}

    async def _restart(self, kind: str) -> None:
        await asyncio.sleep(0)   # the ResetResponse goes out first
        for state in self.evses.values():
            if state.busy:
                await self.end_transaction(state, "ResetCommand", "ImmediateReset")
        self.boot_reason = "RemoteReset"
        await self.connection.close()
        await self.connect(self.csms_url)


class ResetStation16(Block):
    versions = V16
    requires = ("ProvisioningStation16", "TransactionsStation16")

    def on_Reset(self, _: None, payload: dict) -> dict:
        self.background.spawn(self._restart(payload["type"]))
        return {"status": "Accepted"}

    async def _restart(self, kind: str) -> None:
        await asyncio.sleep(0)   # the Reset.conf goes out first
        for connector in self._running(None):
            await self.stop_charging(connector, f"{kind}Reset")
        self.registration = None   # the reconnection (provisioning's supervisor) boots again
        if self.connection is not None:
            await self.connection.close()


    async def act_power_loss(self) -> None:
        """The power fails and comes back (TC_032_1): the connection drops without a word, the charge point
        boots again and reports its connectors (Finishing where a transaction ran, the cable still in), then
        each transaction the outage ended is stopped with reason PowerLoss (queued while it was down, sent once
        it is registered again)."""
        self.registration = None   # offline from here: nothing goes out before the new boot
        for connector in self._running(None):   # each stop waits in the queue until it is sent
            self.background.spawn(self.stop_charging(connector, "PowerLoss"))
        await asyncio.sleep(0)   # the stops queued (their connectors Finishing) before the link drops
        if self.connection is not None:
            await self.connection.close()


class ResetCsms16(Block):
    versions = V16

    async def act_reset(self, type: str, station: str | None = None) -> None:
        self.send(station, "Reset", {"type": type})
