"""The registry of blocks, and the reference of each OCPP version composed of the blocks that serve it.

Adding a block: write its module under ``harness/reference/blocks/`` (its classes declare the
versions they serve) and add its classes to ``STATION_BLOCKS`` / ``CSMS_BLOCKS`` below. Every
reference whose version a class serves then has its handlers, actions and settings. Where a block's hooks
must run before another's it says so (``precedes``), and the order here is checked against it.
"""

from __future__ import annotations

import dis
from collections.abc import Iterable

from harness.errors import HarnessError
from harness.ocpp.versions import OcppVersion
from harness.reference.base import CsmsBase, StationBase
from harness.reference.blocks import (authorization, availability, certificates, configuration, data_transfer,
                                      device_model, display_message, firmware, local_authorization, local_list, offline,
                                      payment, plug_and_charge, provisioning, remote_control, remote_trigger,
                                      reservation, reset, security, smart_charging, transactions)
from harness.reference.common import V2X, V16, Block, Store

STATION_BLOCKS: tuple[type[Block], ...] = (
    certificates.CertificatesStation,   # its boot and connect wrap the provisioning block's
    provisioning.ProvisioningStation2x, provisioning.ProvisioningStation16,
    local_list.LocalListStation2x,
    payment.PaymentStation2x,
    authorization.AuthorizationStation2x, authorization.AuthorizationStation16,
    reservation.ReservationStation2x,
    transactions.TransactionsStation2x, transactions.TransactionsStation16,
    remote_control.RemoteControlStation2x, remote_control.RemoteControlStation16,
    reset.ResetStation2x, reset.ResetStation16,
    configuration.ConfigurationStation16,
    security.SecurityStation16, security.SecurityStation2x,
    data_transfer.DataTransferStation,
    smart_charging.SmartChargingStation2x, smart_charging.SmartChargingStation16,
    device_model.DeviceModelStation2x,
    availability.AvailabilityStation2x, availability.AvailabilityStation16,
    local_authorization.LocalAuthorizationStation16,
    reservation.ReservationStation16,
    firmware.SignedFirmwareStation16, certificates.SecurityLogStation16,   # their triggers decide first
    remote_trigger.RemoteTriggerStation16, remote_trigger.RemoteTriggerStation2x,
    offline.OfflineStation2x,
    firmware.FirmwareStation16,
    plug_and_charge.PlugAndChargeStation2x,
    display_message.DisplayMessageStation2x,
    certificates.EvCertificatesStation2x,
)

CSMS_BLOCKS: tuple[type[Block], ...] = (
    payment.PaymentCsms2x,
    provisioning.ProvisioningCsms2x, provisioning.ProvisioningCsms16,
    authorization.AuthorizationCsms2x, authorization.AuthorizationCsms16,
    transactions.TransactionsCsms2x, transactions.TransactionsCsms16,
    remote_control.RemoteControlCsms2x, remote_control.RemoteControlCsms16,
    reset.ResetCsms2x, reset.ResetCsms16,
    configuration.ConfigurationCsms16,
    security.SecurityCsms16, security.SecurityCsms2x, certificates.CertificatesCsms, certificates.EvCertificatesCsms2x,
    certificates.SecurityLogCsms16,
    data_transfer.DataTransferCsms,
    smart_charging.SmartChargingCsms2x, smart_charging.SmartChargingCsms16,
    availability.AvailabilityCsms2x, availability.AvailabilityCsms16,
    local_authorization.LocalAuthorizationCsms16,
    reservation.ReservationCsms16, reservation.ReservationCsms2x,
    remote_trigger.RemoteTriggerCsms16, remote_trigger.RemoteTriggerCsms2x,
    local_list.LocalListCsms2x,
    device_model.DeviceModelCsms2x,
    firmware.FirmwareCsms16, firmware.SignedFirmwareCsms16,
    plug_and_charge.PlugAndChargeCsms2x,
    display_message.DisplayMessageCsms2x,
)


def blocks_for(registry: Iterable[type[Block]], versions: frozenset[OcppVersion]) -> tuple[type[Block], ...]:
    """The blocks of ``registry`` that serve every one of ``versions``, checked to fit together: each
    block's ``requires`` are among them, each comes before the blocks it ``precedes``, and no two answer one
    message, offer one action, undo one CALL, define one private helper or start one attribute (in ``__init__`` or
    as a ``store``)."""
    chosen = tuple(block for block in registry if block.versions and versions <= block.versions)
    names = {k.__name__ for block in chosen for k in block.__mro__}
    for block in chosen:
        missing = set(block.requires) - names
        if missing:
            raise HarnessError(f"{block.__name__} requires {', '.join(sorted(missing))}, which does not serve "
                               f"{', '.join(sorted(versions))}")
    order = [block.__name__ for block in chosen]
    for block in chosen:
        late = [name for name in block.precedes if name in order and order.index(name) < order.index(block.__name__)]
        if late:
            raise HarnessError(f"{block.__name__} must come before {', '.join(late)} in the registry")
    owner: dict[str, str] = {}
    for block in chosen:
        for name in sorted({f"on_{m}" for m in block.messages()} | {f"act_{a}" for a in block.actions()}
                           | {f"undo_{u}" for u in block.undoes()}):
            if owner.setdefault(name, block.__name__) != block.__name__:
                raise HarnessError(f"{name} is defined by both {owner[name]} and {block.__name__}")
    helpers: dict[str, type[Block]] = {}   # the block (first in the MRO) whose private helper a name is
    for block in chosen:
        for name in sorted(n for n in vars(block) if n.startswith("_") and not n.startswith("__")):
            first = helpers.setdefault(name, block)
            if first is not block and not _passes_on(vars(first)[name], name):
                raise HarnessError(f"the private {name} is defined by both {first.__name__} and {block.__name__}, and "
                                   f"{first.__name__}'s does not pass on with super(): one would call the other's "
                                   f"by mistake; rename one")
            helpers[name] = block   # the next one of this name must be passed on to by this one
    started: dict[str, str] = {}   # the block whose __init__ (or store declared on it) gives an attribute its first value
    for block in chosen:
        for name in _started_in_init(block) | {n for n, v in vars(block).items() if isinstance(v, Store)}:
            if started.setdefault(name, block.__name__) != block.__name__:
                raise HarnessError(f"self.{name} is started (in __init__, or as a store) by both {started[name]} and "
                                   f"{block.__name__}: composed into one object, the later one would overwrite the "
                                   f"other's state; rename one, or let one block own it and the other only use it")
    return chosen


def _started_in_init(block: type) -> set[str]:
    """The attributes ``block``'s own ``__init__`` assigns to ``self`` (read from its bytecode, not its source)."""
    init = vars(block).get("__init__")
    code = getattr(init, "__code__", None)
    if code is None:
        return set()
    self_name = code.co_varnames[0] if code.co_argcount else None
    names, previous = set(), None
    for instruction in dis.get_instructions(code):
        if instruction.opname == "STORE_ATTR" and previous is not None and previous.opname == "LOAD_FAST" \
                and previous.argval == self_name:
            names.add(instruction.argval)
        previous = instruction
    return names


def _passes_on(method: object, name: str) -> bool:
    """Whether ``method`` calls ``super().<name>``: an override of a hook, not a helper of the same name."""
    code = getattr(method, "__code__", None)
    return code is not None and "super" in code.co_names and name in code.co_names


class ReferenceStation(*blocks_for(STATION_BLOCKS, V2X), StationBase):
    """The reference charging station of OCPP 2.0.1 and 2.1: the harness's station when the SUT is a
    CSMS, the stand-in SUT when the harness plays the CSMS."""
    versions = V2X


class ReferenceStation16(*blocks_for(STATION_BLOCKS, V16), StationBase):
    """The reference charge point of OCPP 1.6-J: the harness's charge point when the SUT is a central
    system, the stand-in SUT when the harness plays the central system."""
    versions = V16


class ReferenceCsms(*blocks_for(CSMS_BLOCKS, V2X), CsmsBase):
    """The reference CSMS of OCPP 2.0.1 and 2.1: the harness's CSMS when the SUT is a station, the
    stand-in SUT when the harness plays the station."""
    versions = V2X


class ReferenceCsms16(*blocks_for(CSMS_BLOCKS, V16), CsmsBase):
    """The reference central system of OCPP 1.6-J: the harness's central system when the SUT is a
    charge point, the stand-in SUT when the harness plays the charge point."""
    versions = V16


def references_for(version: OcppVersion) -> tuple[type[CsmsBase], type[StationBase]]:
    """The reference (CSMS, station) classes that speak ``version``."""
    return (ReferenceCsms16, ReferenceStation16) if version is OcppVersion.V16 else (ReferenceCsms, ReferenceStation)
