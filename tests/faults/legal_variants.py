"""Legal variants of the reference implementations: each takes a freedom the texts give a correct
implementation, which the suites must judge not applicable or passed, never failed or broken (issue 32).

Each variant is a small subclass of the reference for the SUT role it plays, and a ``Variant`` record:
the legal reading with its spec line, and the node ids it plays. ``test_legal_variants.py`` plays each
selection with the variant as the embedded SUT (``--embedded-sut legal_variants:<Class>``).
Importable like the catalogs (this folder is on the path of the runs that load it).
"""

from __future__ import annotations

from dataclasses import dataclass

from harness import clock
from harness import smartcharging as sc
from harness.reference import ReferenceCsms, ReferenceStation, ReferenceStation16
from harness.reference.base import CsmsBase
from harness.transport.ws import CallErrorReply

MODULE = "legal_variants"
VERSION = "ocpp2.0.1"


class StationWithoutProfileReports(ReferenceStation):
    """Sets charging profiles but does not implement GetChargingProfiles (K09): CALLERROR NotSupported."""

    def on_GetChargingProfiles(self, _: None, payload: dict) -> dict:
        raise CallErrorReply("NotSupported", "GetChargingProfiles is not supported")


class CsmsWithoutExternalLimits(ReferenceCsms):
    """Does not implement NotifyChargingLimit (K12): CALLERROR NotSupported."""

    def on_NotifyChargingLimit(self, session, payload: dict) -> dict:
        raise CallErrorReply("NotSupported", "NotifyChargingLimit is not supported")


class StationCappedOnlyByItsMax(ReferenceStation):
    """Reports EVSE 0's composite from its caps alone (ChargingStationMaxProfile, external limits at 0): its
    TxDefaultProfiles at EVSE 0 are the defaults of the EVSEs' transactions, not a limit of the station."""

    def on_GetCompositeSchedule(self, _: None, payload: dict) -> dict:
        return sc.answer_get_composite_schedule(self.profiles, self.smart, payload, self.engine_version,
                                                clock.utcnow(), station_defaults=False)


class ChargePointWithoutSmartCharging(ReferenceStation16):
    """A 1.6 charge point without the optional Smart Charging profile: its messages are CALLERROR NotSupported."""

    def _not_supported(self, _: None, payload: dict) -> dict:
        raise CallErrorReply("NotSupported", "the Smart Charging profile is not supported")

    on_SetChargingProfile = on_GetCompositeSchedule = on_ClearChargingProfile = _not_supported


@dataclass(frozen=True)
class Variant:
    """A legal variant and the suite tests it plays: each must pass or be not applicable."""
    name: str
    cls: type
    reading: str                # the freedom it takes, with the spec line that gives it
    plays: tuple[str, ...]      # node ids (relative to the repository)
    version: str = VERSION

    @property
    def embedded_sut(self) -> str:
        return f"{MODULE}:{self.cls.__name__}"

    @property
    def role(self) -> str:
        return "csms" if issubclass(self.cls, CsmsBase) else "cs"


def _node(path: str, test: str, role: str, version: str, *params: str) -> str:
    return f"suites/{path}::{test}[{'-'.join((role, version, *params))}]"


def _k(file: str, test: str, role: str, *params: str) -> str:
    return _node(f"ocpp2/smartcharging/test_{file}.py", test, role, VERSION, *params)


CRITERIA = ("every-evse", "station-level", "one-evse", "purpose", "stack-level", "ids", "source-cso",
            "purpose-at-station-level")
CLEARED = ("by-id", "station-level", "one-evse", "purpose-everywhere", "stack-level", "station-max")
SOURCES = ("EMS", "SO", "Other")
REFUSED = ("spec 002 Errors (NotSupported: recognised, not supported); OCPP 2.0.1 part 4 §4.3; smart charging is "
           "an optional profile (spec 002 What the service does 2; OCPP 2.0.1 part 0 Certification profiles)")

VARIANTS = [
    Variant("station_without_profile_reports", StationWithoutProfileReports,
            f"GetChargingProfiles refused with CALLERROR NotSupported: {REFUSED}", (
                _k("K01", "test_profile_with_an_installed_id_replaces_it", "cs"),
                _k("K01", "test_external_profile_cannot_be_replaced_by_id", "cs"),
                _k("K02", "test_tx_profile_is_deleted_when_its_transaction_ends", "cs"),
                _k("K05", "test_remote_start_applies_its_profile", "cs"),
                *(_k("K09", "test_reports_are_what_the_criteria_select", "cs", c) for c in CRITERIA),
                _k("K09", "test_nothing_selected_is_no_profiles", "cs"),
                *(_k("K10", "test_clear_removes_what_it_selects", "cs", c) for c in CLEARED),
                _k("K10", "test_clear_of_only_external_constraints_is_unknown", "cs"),
                *(_k("K12", "test_external_limit_is_reported_under_its_source", "cs", s) for s in SOURCES))),
    Variant("csms_without_external_limits", CsmsWithoutExternalLimits,
            f"NotifyChargingLimit refused with CALLERROR NotSupported: {REFUSED}", (
                *(_k("K11", "test_external_limit_changes_the_rate_of_a_transaction", "csms", s)
                  for s in ("evse", "station")),
                *(_k("K12", "test_external_limit_is_notified", "csms", s) for s in SOURCES))),
    Variant("station_capped_only_by_its_max", StationCappedOnlyByItsMax,
            "EVSE 0's composite bounded by its caps alone, not by a TxDefaultProfile at EVSE 0: spec 001 K08 "
            "(GetCompositeSchedule) and K01 (TxDefaultProfile at evseId 0, the default of every EVSE) leave it open",
            tuple(_k("K08", "test_composite_is_the_installed_profiles_combined", "cs", name) for name in (
                "station-level", "stack-levels", "minimum-across-purposes", "valid-to", "recurring-daily"))),
    Variant("charge_point_without_smart_charging", ChargePointWithoutSmartCharging,
            f"SetChargingProfile, GetCompositeSchedule, ClearChargingProfile refused with CALLERROR NotSupported: "
            f"{REFUSED}", tuple(_node("ocpp16/smartcharging/test_SC16.py", test, "cs", "ocpp1.6") for test in (
                "test_tx_default_profile_is_installed", "test_charge_point_max_profile_only_at_connector_0",
                "test_tx_profile_without_transaction_is_refused", "test_tx_profile_for_the_running_transaction",
                "test_composite_schedule_is_the_engines", "test_cleared_profile_is_gone")), version="ocpp1.6"),
]
