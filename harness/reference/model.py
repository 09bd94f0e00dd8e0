"""The reference station's equipment, as its blocks share it: where a cable is plugged, which idToken
may start, which transaction runs. 2.x counts EVSEs, 1.6 counts connectors: sibling classes.

The provisioning block of a version sets the equipment up (it reports its status); authorization,
transactions, remote control and reset read and change it.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from datetime import datetime

from harness.profile import Evse
from harness.reference.v16.meter import Register


# ---------------------------------------------------------------------------------------------- 2.x
@dataclass
class StationTransaction:
    id: str
    id_token: dict | None
    group: dict | None = None
    seq_no: int = 0
    energy_limit: int | None = None   # Wh on the register at which energy stops (MaxEnergyOnInvalidId)
    charging_priority: int = 0   # given by the CSMS in its TransactionEventResponse, for this transaction only (K03)


@dataclass
class EvseState:
    evse: Evse
    plugged: bool = False
    authorized: dict | None = None
    group: dict | None = None
    transaction: StationTransaction | None = None
    meter: Register = field(default_factory=Register)
    reservation: EvseReservation | None = None
    operative: bool = True            # ChangeAvailability of the EVSE (G03): False once Inoperative
    inoperative: set[int] = field(default_factory=set)   # its connectors made Inoperative one by one (G03)
    faulted: bool = False             # made Faulted by the fault_evse action (TC_H_20) until clear_evse_fault

    @property
    def busy(self) -> bool:
        return self.transaction is not None


@dataclass
class EvseReservation:
    """A ReserveNowRequest the station accepted, held by the EVSE it is stored on (``requested``: the evseId
    asked for; None: any EVSE, or any with a connector of the type asked)."""
    id: int
    id_token: dict
    group: dict | None
    expiry: datetime
    requested: int | None


# ---------------------------------------------------------------------------------------------- 1.6
@dataclass
class ChargeTransaction:
    connector_id: int
    id_tag: str
    parent: str | None
    start: dict                   # the StartTransaction.req payload
    id: int | None = None         # from StartTransaction.conf
    sampler: asyncio.Task | None = None
    aligned: list = field(default_factory=list)   # clock-aligned MeterValues kept for StopTxnAlignedData
    energy_limit: int | None = None   # Wh on the register at which energy stops (refused start: MaxEnergyOnInvalidId)


@dataclass
class Connector:
    id: int
    status: str = "Available"
    plugged: bool = False
    authorized: str | None = None     # the idTag allowed to start here
    parent: str | None = None
    transaction: ChargeTransaction | None = None
    meter: Register = field(default_factory=Register)
    operative: bool = True            # ChangeAvailability: False once Inoperative (Unavailable when idle)
    faulted: bool = False
    reservation: Reservation | None = None


@dataclass
class Reservation:
    """A ReserveNow the charge point accepted, held by the connector it is stored on; ``requested`` is the
    connectorId asked for (0: any connector)."""
    id: int
    requested: int
    id_tag: str
    parent: str | None
    expiry: datetime
