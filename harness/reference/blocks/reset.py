"""Reset: the CSMS restarts the station.

Station 2.x (spec 001 Reset; OCPP 2.0.1 part 2 B11/B12, docs/requirements/provisioning.md): Immediate, or
OnIdle while idle, is Accepted; after the answer running transactions end (ResetCommand / ImmediateReset),
the connection closes, and the station connects again and boots with reason RemoteReset. OnIdle while a
transaction runs is Scheduled (B12.FR.01): the transaction goes on, and once the last one ended the
station restarts and boots with reason ScheduledReset. With ``evseId`` only that EVSE resets (an EVSE it
does not have: Rejected): its transaction ends the same way, the station stays connected and reports the
EVSE's connectors again. 2.1's ImmediateAndResume of the station (B13) is Accepted: each running transaction
reports the reset (TransactionEvent Updated, triggerReason ResetCommand) and is not ended; the station restarts
and boots with reason RemoteReset, then resumes each (Updated, triggerReason TxResumed, the same transactionId);
ImmediateAndResume of a single EVSE is Rejected (a legal answer). A power loss (the ``power_loss`` action, E17) drops
the connection without a word; back after ``off_for`` seconds the station boots with reason PowerUp, then resumes
each transaction that ran (2.1 E17: Updated, triggerReason TxResumed, chargingState Charging when
TxCtrlr.AllowEnergyTransferResumption is true, else SuspendedEVSE) when TxCtrlr.ResumptionTimeout is above the
outage, or ends it (Ended, triggerReason AbnormalCondition, stoppedReason PowerLoss): with a timeout of 0, one
the outage outlasted, and always in 2.0.1, which has neither variable.

Charge point 1.6 (spec 002 Core, 1.6 section 4.2): Hard and Soft are Accepted; running transactions
stop with reason HardReset / SoftReset (gracefully for either type, which a Hard reset permits), the
connection closes, and the restarted charge point reconnects and boots.

The harness resets a station under test that reconnects without booting when a test needs its boot
(``OcppArena.station_boot``). The 1.6 central system sends Reset as an actuator action.
"""

from __future__ import annotations

import asyncio
from typing import Any

from harness.ocpp.versions import OcppVersion
from harness.reference.common import V2X, V16, Block, store

# E17 (2.1): TxCtrlr.ResumptionTimeout, the seconds within which a transaction cut by a power loss is resumed (0:
# never), and TxCtrlr.AllowEnergyTransferResumption, whether energy flows again once it is; the reference resumes
RESUMPTION = {("TxCtrlr", "ResumptionTimeout"): "600", ("TxCtrlr", "AllowEnergyTransferResumption"): "true"}


class ResetStation2x(Block):
    versions = V2X
    requires = ("ProvisioningStation2x", "TransactionsStation2x")
    settle = 0.01   # seconds between looks at the link while what the station sent is still unanswered

    scheduled_reset: tuple[int | None] | None = store()   # (evseId or None): an OnIdle reset waiting

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        if self.version is OcppVersion.V21:
            self.variables.with_defaults(RESUMPTION)

    def variable_fits(self, component: str, name: str, value: str) -> bool:
        if (component, name) == ("TxCtrlr", "ResumptionTimeout"):
            return value.strip().isdigit()
        if (component, name) == ("TxCtrlr", "AllowEnergyTransferResumption"):
            return value.strip().lower() in ("true", "false")
        return super().variable_fits(component, name, value)

    def on_Reset(self, _: None, payload: dict) -> dict:
        kind, evse_id = payload["type"], payload.get("evseId")
        if kind == "ImmediateAndResume" and evse_id is None:   # 2.1 B13: the transactions outlive the restart
            self.background.spawn(self._restart(None, "RemoteReset", resume=True))
            return {"status": "Accepted"}
        if kind not in ("Immediate", "OnIdle") or (evse_id is not None and evse_id not in self.evses):
            return {"status": "Rejected"}
        targets = self._reset_targets(evse_id)
        if kind == "OnIdle" and any(state.busy for state in targets):
            self.scheduled_reset = (evse_id,)
            return {"status": "Scheduled"}
        self.background.spawn(self._restart(evse_id, "RemoteReset"))
        return {"status": "Accepted"}

    def _reset_targets(self, evse_id: int | None) -> list:
        return list(self.evses.values()) if evse_id is None else [self.evses[evse_id]]

    def transaction_ended(self, outlet: int) -> None:
        super().transaction_ended(outlet)
        if self.scheduled_reset is not None and not any(s.busy for s in self._reset_targets(self.scheduled_reset[0])):
            (evse_id,), self.scheduled_reset = self.scheduled_reset, None
            self.background.spawn(self._restart(evse_id, "ScheduledReset"))

    async def _restart(self, evse_id: int | None, reason: str, resume: bool = False) -> None:
        await asyncio.sleep(0)   # the ResetResponse (or the TransactionEvent Ended) goes out first
        resumed = [state for state in self._reset_targets(evse_id) if state.busy and resume]
        for state in self._reset_targets(evse_id):
            if state in resumed:
                await self.call("TransactionEvent", self._event(state, "Updated", "ResetCommand",
                                                                chargingState=self._reset_charging_state(state)))
            elif state.busy:
                await self.end_transaction(state, "ResetCommand", "ImmediateReset")
        await self._settled()
        if evse_id is not None:   # the EVSE restarts; the station stays connected and shows it again
            for connector in self.evses[evse_id].evse.connectors:
                await self.call("StatusNotification", self.status_payload(
                    evse_id, connector, self.shown_status(evse_id, connector)))
            return
        self.boot_reason = reason
        await self.connection.close()
        await self.connect_by_priority()
        if not await self.boot_accepted():
            return
        for state in resumed:
            if state.transaction is not None:
                await self.call("TransactionEvent", self._event(state, "Updated", "TxResumed",
                                                                chargingState=self._reset_charging_state(state)))

    @staticmethod
    def _reset_charging_state(state: Any) -> str:
        return "Charging" if state.plugged else "Idle"

    async def act_power_loss(self, off_for: float = 0) -> None:
        """The power fails for ``off_for`` seconds and comes back (E17): see the module's docstring."""
        self.background.spawn(self._power_cycle(off_for))

    async def _power_cycle(self, off_for: float) -> None:
        await asyncio.sleep(0)   # the actuator's answer goes out first
        running = [state for state in self.evses.values() if state.busy]
        timeout = int(self.variables.get(("TxCtrlr", "ResumptionTimeout"), "0") or 0)
        resume = self.version is OcppVersion.V21 and off_for < timeout
        energy = self.variables.get(("TxCtrlr", "AllowEnergyTransferResumption"), "false") == "true"
        reconnects, self.reconnects = self.reconnects, False   # unpowered: no attempt to connect meanwhile
        self.boot_reason = "PowerUp"
        if self.connection is not None:
            await self.connection.close()
        if off_for:
            await asyncio.sleep(off_for)
        self.reconnects = reconnects
        await self.connect_by_priority()
        if not await self.boot_accepted():
            return
        for state in running:
            if state.transaction is None:
                continue
            if resume:
                charging = ("Charging" if energy else "SuspendedEVSE") if state.plugged else "Idle"
                await self.call("TransactionEvent", self._event(state, "Updated", "TxResumed", chargingState=charging))
            else:
                await self.end_transaction(state, "AbnormalCondition", "PowerLoss")

    async def _settled(self) -> None:
        """What the station sent before the restart is answered (or the call timeout passed)."""
        endpoint = self.connection.endpoint
        for _ in range(int(self.call_timeout / self.settle) + 1):
            if self.connection.closed or (endpoint.in_flight is None and not endpoint.queued):
                return
            await asyncio.sleep(self.settle)


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

class ResetCsms2x(Block):
    versions = V2X

    async def act_reset(self, type: str, evse_id: int | None = None, station: str | None = None) -> None:
        self.send(station, "Reset", {"type": type} | ({} if evse_id is None else {"evseId": evse_id}))


class ResetCsms16(Block):
    versions = V16

    async def act_reset(self, type: str, station: str | None = None) -> None:
        self.send(station, "Reset", {"type": type})
