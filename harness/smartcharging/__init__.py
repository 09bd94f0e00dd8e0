"""Sans-I/O smart charging for OCPP 1.6 and 2.0.1: profile validation, composite schedules,
clearing and reporting. The decision rules and where they come from are listed in ``engine``; a
payload the core cannot read breaks the row ``sc.payload`` of ``wire``."""

from harness.smartcharging.composite import composite_schedule
from harness.smartcharging.engine import (
    RULES, ClearResult, Decision, ProfileReport, ProfileStore, Rule, answer_clear_charging_profile,
    answer_get_composite_schedule, answer_set_charging_profile,
)
from harness.smartcharging.model import (
    ChargingProfile, ChargingSchedule, ClearCriteria, CompositeSchedule, Installed, Kind, LimitSource,
    Purpose, RateUnit, Recurrency, ReportCriteria, SchedulePeriod, Station, Transaction,
)
from harness.smartcharging.wire import (
    clear_criteria, composite_from_wire, composite_request, composite_to_wire, from_v16, from_v201,
    report_criteria, set_request, to_v16, to_v201,
)

__all__ = [
    "RULES", "ChargingProfile", "ChargingSchedule", "ClearCriteria", "ClearResult", "CompositeSchedule",
    "Decision", "Installed", "Kind", "LimitSource", "ProfileReport", "ProfileStore", "Purpose", "RateUnit",
    "Recurrency", "ReportCriteria", "Rule", "SchedulePeriod", "Station", "Transaction",
    "answer_clear_charging_profile", "answer_get_composite_schedule", "answer_set_charging_profile",
    "clear_criteria", "composite_from_wire", "composite_request", "composite_schedule", "composite_to_wire",
    "from_v16", "from_v201", "report_criteria", "set_request", "to_v16", "to_v201",
]
