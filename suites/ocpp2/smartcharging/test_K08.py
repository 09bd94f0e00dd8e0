"""K08 — GetCompositeSchedule: the station reports the composite of its installed profiles
(spec 001 "Combination rules"): the minimum across purposes, the highest stackLevel within one,
evseId 0 as the station's view, W and A converted, validFrom/validTo and schedule durations
honoured, Recurring schedules repeated. The expected composite is computed by the charging-profile
engine from what the test installed, at the scheduleStart the station reports, and compared period
by period.

EVSE 0 (``[station-level]``) is judged on what the text forces only: spec 001 says what bounds an EVSE's
composite, and K01 makes a TxDefaultProfile at evseId 0 the default of every EVSE, but neither says whether
that profile also bounds the station's own composite. Both readings pass: the minimum of the
ChargingStationMaxProfile and the TxDefaultProfile at EVSE 0, or the ChargingStationMaxProfile (and external
limits at 0) alone (``smart_charging.accepted_composites``)."""

from datetime import timedelta

import pytest

from harness import clock
from harness.roles import CS, CSMS
from harness.rules import RuleTable, must
from harness.smartcharging.wire import iso
from harness.suite import OCPP2, TC, case, checks, needs
from harness.usecases.smart_charging import (ChargingProfiles, Installed, charging_profile, composite, install,
                                             install_all, judge_composite, new_id, oracle_station, two_evses)
from harness.verdict import check_equal, dig


class K08(RuleTable):
    """The rules of K08 (spec 001 Smart charging messages: GetCompositeSchedule; Combination rules)."""
    request = must("spec 001 Smart charging messages: GetCompositeScheduleRequest",
                   "the CSMS asks for the composite of the EVSE, duration and unit its operator asked for", by=CSMS)
    accepted = must("spec 001 Smart charging messages: GetCompositeScheduleResponse",
                    "a known EVSE and a supported unit give an Accepted answer with the schedule of that EVSE "
                    "in the unit asked for", by=CS)
    combined = must("spec 001 Combination rules; Smart charging types (Purposes, Kinds)",
                    "the composite is the minimum of the leading profile of each purpose, the highest stackLevel "
                    "leading within a purpose while valid and within its schedule", by=CS)
    unknown_evse = must("spec 001 Smart charging messages: GetCompositeScheduleResponse (Rejected); spec 002 "
                        "GetCompositeSchedule", "a composite for an EVSE the station does not have is Rejected",
                        by=CS)


pytestmark = case("K08", block="Smart charging", roles=("csms", "cs"), protocols=OCPP2, requires=["smart_charging"])


def _ago(**delta) -> str:
    return iso((clock.utcnow() - timedelta(**delta)).replace(microsecond=0))


def _ahead(**delta) -> str:
    return iso((clock.utcnow() + timedelta(**delta)).replace(microsecond=0))


def _tx_default(limits, **fields):
    return charging_profile(new_id(), limits, **fields)


# name: (what to install: [(EVSE, profile)], the composite asked for: (EVSE, duration, unit))
SCENARIOS = {
    "stack-levels": lambda e: ([(0, _tx_default([(0, "16.0")])),
                                (0, _tx_default([(0, "10.0"), (1800, "6.0")], stack_level=1))], (e, 3600, "A")),
    "minimum-across-purposes": lambda e: ([(0, charging_profile(new_id(), [(0, "13.0")],
                                                                purpose="ChargingStationMaxProfile")),
                                           (e, _tx_default([(0, "10.0"), (1200, "20.0")]))], (e, 3600, "A")),
    "station-level": lambda e: ([(0, charging_profile(new_id(), [(0, "20.0"), (900, "12.0")],
                                                      purpose="ChargingStationMaxProfile")),
                                 (0, _tx_default([(0, "16.0")]))], (0, 3600, "A")),
    "watts-asked-of-amps": lambda e: ([(e, _tx_default([(0, "10.0"), (600, "16.0")]))], (e, 1800, "W")),
    "amps-asked-of-watts": lambda e: ([(e, _tx_default([(0, "11000.0")], unit="W"))], (e, 1800, "A")),
    "valid-to": lambda e: ([(e, _tx_default([(0, "16.0")])),
                            (e, _tx_default([(0, "8.0")], stack_level=2, validTo=_ahead(minutes=10)))], (e, 3600, "A")),
    "valid-from": lambda e: ([(e, _tx_default([(0, "16.0")])),
                              (e, _tx_default([(0, "6.0")], stack_level=2, validFrom=_ahead(minutes=15)))],
                             (e, 3600, "A")),
    "schedule-duration": lambda e: ([(e, _tx_default([(0, "16.0")])),
                                     (e, _tx_default([(0, "7.0")], stack_level=3, duration=900))], (e, 3600, "A")),
    "recurring-daily": lambda e: ([(e, _tx_default([(0, "8.0"), (3600, "14.0")], kind="Recurring", duration=None,
                                                   recurrencyKind="Daily", start=clock.utcnow().replace(
                                                       microsecond=0) - timedelta(days=1, minutes=30)))],
                                  (e, 7200, "A")),
    "recurring-weekly": lambda e: ([(e, _tx_default([(0, "9.0"), (1200, "15.0")], kind="Recurring", duration=2400,
                                                    recurrencyKind="Weekly", start=clock.utcnow().replace(
                                                        microsecond=0) - timedelta(days=7, minutes=10)))],
                                   (e, 3600, "A")),
}


@pytest.mark.sut_roles("cs")
@pytest.mark.parametrize("name", list(SCENARIOS))
@checks(ChargingProfiles.accepted, K08.accepted, K08.combined)
async def test_composite_is_the_installed_profiles_combined(ocpp, profile, name):
    """The installed profiles' composite, period by period, equals the engine's at the reported scheduleStart."""
    installs, (evse_id, duration, unit) = SCENARIOS[name](profile.evses[0].id)
    installed = await install_all(ocpp, installs)
    exchange = await composite(ocpp, evse_id, duration, unit, K08.request)
    check_equal(K08.accepted, "GetCompositeScheduleResponse (status, schedule.evseId, schedule.chargingRateUnit)",
                ("Accepted", evse_id, unit), (exchange.result["status"], dig(exchange.result, "schedule.evseId"),
                                              dig(exchange.result, "schedule.chargingRateUnit")))
    judge_composite(installed, exchange, unit, K08.accepted, K08.combined)


@pytest.mark.sut_roles("cs")
@needs(two_evses)
@checks(ChargingProfiles.accepted, K08.combined)
async def test_profile_of_one_evse_leaves_the_other_alone(ocpp, profile):
    """A TxDefaultProfile installed on one EVSE does not limit another: each EVSE's composite follows its own."""
    first, second = profile.evses[0].id, profile.evses[1].id
    installed = Installed(oracle_station(ocpp))
    await install(ocpp, installed, first, _tx_default([(0, "6.0")], stack_level=1))
    await install(ocpp, installed, second, _tx_default([(0, "11.0")], stack_level=1))
    for evse_id in (first, second):
        judge_composite(installed, await composite(ocpp, evse_id, 1800, "A", K08.request), "A", K08.accepted,
                        K08.combined)


@pytest.mark.sut_roles("cs")
@checks(K08.unknown_evse)
async def test_composite_of_an_unknown_evse_is_rejected(ocpp, profile):
    """An evseId the station does not have gets Rejected (and no schedule)."""
    unknown = max(e.id for e in profile.evses) + 1
    exchange = await composite(ocpp, unknown, 3600, "A", K08.request)
    check_equal(K08.unknown_evse, f"GetCompositeScheduleResponse status for EVSE {unknown}", "Rejected",
                exchange.result["status"])


# name: the operator's request (evseId, duration, unit or None)
REQUESTS = {
    "evse-in-amps": lambda e: (e, 3600, "A"),
    "station-in-watts": lambda e: (0, 86400, "W"),
    "evse-in-the-station-unit": lambda e: (e, 600, None),
}


@pytest.mark.sut_roles("csms")
@pytest.mark.parametrize("name", list(REQUESTS))
@checks(K08.request,
        csms=(TC("TC_K_43_CSMS", "ocpp2.0.1", when="evse-in-amps"),
              TC("TC_K_44_CSMS", "ocpp2.0.1", when="station-in-watts")))
async def test_csms_asks_for_the_composite_it_was_asked_for(ocpp, profile, name):
    """The CSMS's GetCompositeScheduleRequest carries the evseId, duration and unit (none when none was
    asked for) of its operator's request."""
    evse_id, duration, unit = REQUESTS[name](profile.evses[0].id)
    await composite(ocpp, evse_id, duration, unit, K08.request)
