"""Legal variants of the references: systems that take another reading of a freedom the texts leave, and that
every suite test they play must pass (or find not applicable), never fail nor break. Each record names the
variant class, the reading it takes with the spec line that allows it, and the tests it plays, in the order
given, in one run: a variant that keeps its state (as real hardware does) sees what the tests before left
behind. ``test_legal_variants.py`` plays them. Imported as the top-level module ``legal_variants`` (this
folder is on the path, see tests/conftest.py), played with ``--embedded-sut legal_variants:<Class>``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from harness.reference import ReferenceStation, ReferenceStation16
from harness.transport.ws import CallErrorReply

V16, V201, V21 = "ocpp1.6", "ocpp2.0.1", "ocpp2.1"


def node(path: str, test: str, role: str, protocol: str, *params: str) -> str:
    return f"suites/{path}::{test}[{'-'.join((role, protocol, *params))}]"


C25 = "ocpp2/authorization/test_C25.py"
K06, K11 = "ocpp2/smartcharging/test_K06.py", "ocpp2/smartcharging/test_K11.py"
CACHE16 = "ocpp16/authorization/test_CACHE16.py"
FIRMWARE16 = "ocpp16/firmware/test_FIRMWARE16.py"


# ---------------------------------------------------------------------- state that outlives a test
class StationThatKeepsItsTransactions(ReferenceStation):
    """A 2.x station as real hardware is: its EVSEs, their transactions and its charging profiles stay from one
    test to the next and through an outage (a transaction runs until it is stopped), so a transaction a test
    leaves running makes the next remote start on that EVSE Rejected."""

    kept: dict[str, Any] = {}

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        kept = type(self).kept
        self.evses = kept.setdefault("evses", self.evses)
        self.profiles = kept.setdefault("profiles", self.profiles)
        self.smart = kept.setdefault("smart", self.smart)


# ---------------------------------------------------------------------- optional features refused
class StationWithoutWebPayment(ReferenceStation):
    """A 2.1 station without web payment: NotifyWebPaymentStarted is answered NotSupported, and a driver's
    transaction starts on the EVSE as on any other."""

    def on_NotifyWebPaymentStarted(self, _: None, payload: dict) -> dict:
        raise CallErrorReply("NotSupported", "web payment is not supported by this station")


class ChargePointThatKeepsItsConnectors(ReferenceStation16):
    """A 1.6 charge point as real hardware is: its connectors stay from one test to the next, and an idTag
    authorized without a cable waits at its connector for one (Preparing) until ConnectionTimeOut, which is
    longer than a test."""

    kept: dict[str, Any] = {}

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.connectors = type(self).kept.setdefault("connectors", self.connectors)


# ---------------------------------------------------------------------- messages after a reboot
class ChargePointReportsInstalledAfterItsReboot(ReferenceStation16):
    """A 1.6 charge point that reboots into the new firmware before it reports it: Installing on the old
    connection, then the reboot, and Installed once it has booted on the new one."""

    installed_after_boot = False

    async def _notify(self, action: str, status: str) -> None:
        if status == "Installed":
            self.installed_after_boot = True
            return
        await super()._notify(action, status)

    def went_online(self) -> None:
        super().went_online()
        if self.installed_after_boot:
            self.installed_after_boot = False
            self.background.spawn(super()._notify("FirmwareStatusNotification", "Installed"))


@dataclass(frozen=True)
class LegalVariant:
    name: str
    cls: type                 # a subclass of a reference, importable as legal_variants:<name>
    reading: str              # the legal reading it takes, with the spec line that allows it
    plays: tuple[str, ...]    # node ids, played in this order in one run: each must pass or be not applicable

    @property
    def embedded_sut(self) -> str:
        return f"{__name__}:{self.cls.__name__}"


VARIANTS: tuple[LegalVariant, ...] = (
    LegalVariant("station-keeps-its-transactions-through-an-outage", StationThatKeepsItsTransactions,
                 "a transaction started before an outage runs on after it until it is stopped (spec 001 Moves: "
                 "TxProfile, the station goes offline during a transaction), and a remote start on an occupied "
                 "EVSE is Rejected (RequestStartTransactionResponse status)",
                 (node(K06, "test_tx_profile_holds_through_an_outage", "cs", V201, "lasting"),
                  node(K06, "test_tx_profile_holds_through_an_outage", "cs", V201, "expiring"),
                  node(K11, "test_external_limit_changes_the_rate_of_a_transaction", "cs", V201, "evse"),
                  node(K11, "test_external_limit_changes_the_rate_of_a_transaction", "cs", V201, "station"))),
    LegalVariant("charge-point-keeps-a-pending-authorization", ChargePointThatKeepsItsConnectors,
                 "an idTag presented without a cable stays authorized at its connector until ConnectionTimeOut "
                 "(spec 002 ChargePointStatus Preparing: tag presented, no transaction yet), so a cable plugged "
                 "in there later starts a transaction on it",
                 (node(CACHE16, "test_expired_cached_identifier_is_asked_again_online", "cs", V16),
                  node(CACHE16, "test_expired_cached_identifier_is_refused_offline", "cs", V16))),
    LegalVariant("charge-point-reports-installed-after-its-reboot", ChargePointReportsInstalledAfterItsReboot,
                 "FirmwareStatusNotification Installed sent after the reboot, on the new connection (spec 002 What "
                 "the service does 4 orders the statuses, not the connection they come on)",
                 (node(FIRMWARE16, "test_firmware_is_installed_and_the_charge_point_reboots", "cs", V16),)),
    LegalVariant("station-without-web-payment", StationWithoutWebPayment,
                 "NotifyWebPaymentStarted refused with CALLERROR NotSupported: the CSMS 'may' send it (spec 001 "
                 "QR-code payment rule 5), a station need not implement it",
                 (node(C25, "test_web_payment_holds_the_evse", "cs", V21),)),
)
