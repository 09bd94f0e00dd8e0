"""Legal variants of the references: systems that take another reading of a freedom the texts leave, and that
every suite test they play must pass (or find not applicable), never fail nor break. Each record names the
variant class, the reading it takes with the spec line that allows it, and the tests it plays, in the order
given, in one run: a variant that keeps its state (as real hardware does) sees what the tests before left
behind. ``test_legal_variants.py`` plays them. Imported as the top-level module ``legal_variants`` (this
folder is on the path, see tests/conftest.py), played with ``--embedded-sut legal_variants:<Class>``.
"""

from __future__ import annotations

from dataclasses import dataclass

from harness.reference import ReferenceStation
from harness.transport.ws import CallErrorReply

V201, V21 = "ocpp2.0.1", "ocpp2.1"


def node(path: str, test: str, role: str, protocol: str, *params: str) -> str:
    return f"suites/{path}::{test}[{'-'.join((role, protocol, *params))}]"


C25 = "ocpp2/authorization/test_C25.py"


# ---------------------------------------------------------------------- optional features refused
class StationWithoutWebPayment(ReferenceStation):
    """A 2.1 station without web payment: NotifyWebPaymentStarted is answered NotSupported, and a driver's
    transaction starts on the EVSE as on any other."""

    def on_NotifyWebPaymentStarted(self, _: None, payload: dict) -> dict:
        raise CallErrorReply("NotSupported", "web payment is not supported by this station")


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
    LegalVariant("station-without-web-payment", StationWithoutWebPayment,
                 "NotifyWebPaymentStarted refused with CALLERROR NotSupported: the CSMS 'may' send it (spec 001 "
                 "QR-code payment rule 5), a station need not implement it",
                 (node(C25, "test_web_payment_holds_the_evse", "cs", V21),)),
)
