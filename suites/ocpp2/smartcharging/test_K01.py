"""K01 — SetChargingProfile: the station installs what the rules allow and refuses the rest
(spec 001 "SetChargingProfile rules" 1-6 and "Errors"); a CSMS sends the profile its operator asked
for, and only one the rules allow. The charging-profile engine (harness/smartcharging/engine.py)
decides every expected answer; its rule names the cause."""

from datetime import timedelta

import pytest

from harness import clock
from harness.roles import CS, CSMS
from harness.errors import HarnessError, NotApplicable
from harness.ocpp.rpc import Rpc
from harness.rules import RuleTable, must, should
from harness.smartcharging.wire import iso
from harness.suite import OCPP2, TC, case, checks, needs
from harness.usecases.smart_charging import (ChargingProfiles, Installed, charging, charging_profile, external_limit,
                                             get_profiles, held_external_ids, install, judge_reports,
                                             judge_sent_profile, new_id, oracle_station, set_profile, unit_supported)
from harness.verdict import check_equal, check_in


class K01(RuleTable):
    """The rules of K01 (spec 001 SetChargingProfile rules, Purposes, Errors, Limits)."""
    csms_profile = must("spec 001 SetChargingProfile rules 1-5", "the CSMS sends only profiles the rules allow",
                        by=CSMS)
    replaces = must("spec 001 SetChargingProfile rule 6",
                    "a profile with an installed id replaces it: Accepted, and only the new one is reported", by=CS)
    refused = must("spec 001 SetChargingProfile rules 1-5; Purposes; Limits; Errors",
                   "a station answers Rejected to a profile the rules refuse", by=CS)
    duplicate = must("spec 001 SetChargingProfile rule 4; Combination rules",
                     "a station refuses a second profile of the same stackLevel, purpose and EVSE valid at the same "
                     "time, and accepts one whose validity does not overlap", by=CS)
    external_id = must("spec 001 Purposes (the CSMS SHALL NOT set ChargingStationExternalConstraints); K01.FR.05",
                       "a station refuses a profile that reuses the id of its external constraints profile", by=CS)
    reason_code = should("spec 001 SetChargingProfileResponse; Errors",
                         "a refusal carries the reasonCode the specification names for its cause", by=CS)


pytestmark = case("K01", block="Smart charging", roles=("csms", "cs"), protocols=OCPP2, requires=["smart_charging"])


def _in(minutes: int) -> str:
    return iso((clock.utcnow() + timedelta(minutes=minutes)).replace(microsecond=0))


# name: (EVSE, the profile the operator asks for) — each one the rules accept
VALID = {
    "tx-default-at-station": (0, lambda: charging_profile(new_id(), [(0, "10.0"), (1800, "6.0")])),
    "tx-default-at-evse": (1, lambda: charging_profile(new_id(), [(0, "16.0")], stack_level=2)),
    "station-max": (0, lambda: charging_profile(new_id(), [(0, "32.0")], purpose="ChargingStationMaxProfile")),
    "recurring-daily": (0, lambda: charging_profile(new_id(), [(0, "8.0"), (3600, "12.5")], kind="Recurring",
                                                    recurrencyKind="Daily", duration=7200)),
    "valid-window": (1, lambda: charging_profile(new_id(), [(0, "11.0")], stack_level=3,
                                                 validFrom=_in(-1), validTo=_in(60))),
    "watts": (0, lambda: charging_profile(new_id(), [(0, "11000.0"), (900, "7400.0")], unit="W", stack_level=1)),
    "relative": (1, lambda: charging_profile(new_id(), [(0, "6.0"), (600, "13.0")], kind="Relative",
                                             stack_level=4, duration=None)),
}


@pytest.mark.sut_roles("csms")
@pytest.mark.parametrize("name", list(VALID))
@checks(ChargingProfiles.sent, K01.csms_profile,
        csms=(TC("TC_K_01_CSMS", "ocpp2.0.1", when="tx-default-at-evse"),
              TC("TC_K_10_CSMS", "ocpp2.0.1", when="tx-default-at-station"),
              TC("TC_K_03_CSMS", "ocpp2.0.1", when="station-max"),
              TC("TC_K_19_CSMS", "ocpp2.0.1", when="recurring-daily")))
async def test_valid_profile_is_sent_as_asked(ocpp, profile, name):
    """A CSMS sends exactly the profile and EVSE its operator asked for (compared as profiles: 10 and 10.0
    are one limit), and the rules allow it."""
    evse_id, make = VALID[name]
    asked = make()
    unit_supported(ocpp, asked)   # an operator's request the harness's station cannot take proves nothing
    exchange = await set_profile(ocpp, evse_id, asked)
    judge_sent_profile(exchange, evse_id, asked, oracle_station(ocpp), K01.csms_profile)


@pytest.mark.sut_roles("cs")
@pytest.mark.parametrize("name", list(VALID))
@checks(ChargingProfiles.sent, ChargingProfiles.accepted)
async def test_valid_profile_is_accepted(ocpp, profile, name):
    """A station accepts a valid profile."""
    evse_id, make = VALID[name]
    await install(ocpp, Installed(oracle_station(ocpp)), evse_id, make())


def _summary(wire: dict) -> tuple:
    schedule = wire["chargingSchedule"][0]
    return (wire["chargingProfilePurpose"], wire["stackLevel"], schedule["chargingRateUnit"],
            [(p["startPeriod"], float(p["limit"])) for p in schedule["chargingSchedulePeriod"]])


@pytest.mark.sut_roles("cs")
@checks(ChargingProfiles.accepted, K01.replaces, ChargingProfiles.reported, ChargingProfiles.tbc)
async def test_profile_with_an_installed_id_replaces_it(ocpp, profile):
    """The same id again, with another stackLevel, EVSE and schedule, replaces the first (rule 6): read back
    through GetChargingProfiles (K09), the id is reported once, at the new EVSE, with the new schedule."""
    installed = Installed(oracle_station(ocpp))
    profile_id = new_id()
    await install(ocpp, installed, 0, charging_profile(profile_id, [(0, "10.0"), (1800, "6.0")]))
    second = charging_profile(profile_id, [(0, "8.0")], stack_level=5)
    exchange = await set_profile(ocpp, profile.evses[0].id, second)
    check_equal(K01.replaces, "SetChargingProfileResponse status for an installed id", "Accepted",
                exchange.result["status"])
    _, reports = await get_profiles(ocpp, {"requestId": new_id(), "chargingProfile": {"chargingProfileId": [profile_id]}})
    found = [(r["evseId"], _summary(p)) for r in reports for p in r["chargingProfile"] if p["id"] == profile_id]
    check_equal(K01.replaces, f"profile {profile_id} as reported (evseId, purpose, stackLevel, unit, periods)",
                [(profile.evses[0].id, _summary(second))], found)


def _with(**fields):
    return lambda: charging_profile(new_id(), [(0, "10.0")]) | fields


def _schedule(**fields):
    def make():
        wire = charging_profile(new_id(), [(0, "10.0")])
        wire["chargingSchedule"][0] |= fields
        return wire
    return make


def _periods(*limits):
    return lambda: charging_profile(new_id(), list(limits))


# name: (EVSE, the profile that breaks a rule, other reasonCodes a correct station may give). Where two
# rules are broken at once (a TxProfile without transactionId where none runs) the specification does not
# order them: either code is accepted.
REFUSALS = {
    "first-period-not-0": (1, _periods((30, "10.0")), ()),
    "periods-not-increasing": (1, _periods((0, "10.0"), (600, "8.0"), (300, "6.0")), ()),
    "two-fraction-digits": (1, _periods((0, "10.25")), ()),
    "station-max-on-an-evse": (1, _with(chargingProfilePurpose="ChargingStationMaxProfile"), ()),
    "station-max-relative": (0, lambda: charging_profile(new_id(), [(0, "16.0")], kind="Relative", duration=None,
                                                         purpose="ChargingStationMaxProfile"), ()),
    "tx-profile-for-unknown-transaction": (1, _with(chargingProfilePurpose="TxProfile",
                                                    transactionId="no-such-transaction"), ()),
    "tx-profile-without-transaction-id": (1, _with(chargingProfilePurpose="TxProfile"), ("TxNotFound",)),
    "tx-profile-at-station-level": (0, _with(chargingProfilePurpose="TxProfile", transactionId="no-such-transaction"),
                                    ("TxNotFound",)),
    "transaction-id-on-tx-default": (1, _with(transactionId="no-such-transaction"), ()),
    "external-constraints-from-csms": (0, _with(chargingProfilePurpose="ChargingStationExternalConstraints"), ()),
    "unknown-evse": (99, _periods((0, "10.0")), ()),
    "absolute-without-start": (1, _schedule(startSchedule=None), ()),
    "relative-with-start": (1, _with(chargingProfileKind="Relative"), ()),
    "recurring-without-recurrency-kind": (1, _with(chargingProfileKind="Recurring"), ()),
}


def _drop_none(wire: dict) -> dict:
    for schedule in wire["chargingSchedule"]:
        for key in [k for k, v in schedule.items() if v is None]:
            del schedule[key]
    return wire


@pytest.mark.sut_roles("cs")
@pytest.mark.parametrize("name", list(REFUSALS))
@checks(K01.refused, K01.reason_code)
async def test_invalid_profile_is_rejected(ocpp, profile, name):
    """Each broken rule gets Rejected (MUST); the reasonCode the engine's rule names is expected (a
    SHOULD: another code is a finding)."""
    evse_id, make, also = REFUSALS[name]
    await _judge_refusal(ocpp, evse_id, _drop_none(make()), also)


def _unsupported_unit(given) -> str:
    """``needs`` condition: a chargingRateUnit the station does not support (its profile says which it does)."""
    units = [u for u in ("A", "W") if u not in given.profile.charging_rate_units]
    if not units:
        raise NotApplicable("the station supports every chargingRateUnit ([smart_charging] charging_rate_units)")
    return units[0]


@pytest.mark.sut_roles("cs")
@needs(_unsupported_unit, variant=True)
@checks(K01.refused, K01.reason_code)
async def test_profile_in_an_unsupported_unit_is_rejected(ocpp, profile):
    """A TxDefaultProfile in a unit the station does not support ([smart_charging] charging_rate_units) is
    Rejected; UnsupportedRateUnit is the reasonCode expected (a SHOULD). The reference station supports
    both units: the embedded run leaves this test out, and tests/selfcheck/test_profile_variants.py plays
    it with harness/profiles/one-rate-unit.toml."""
    unit = _unsupported_unit(ocpp)
    await _judge_refusal(ocpp, profile.evses[0].id, charging_profile(new_id(), [(0, "10.0")], unit=unit), ())


async def _judge_refusal(ocpp, evse_id: int, wire: dict, also: tuple[str, ...]) -> None:
    """The station answers Rejected to a profile the rules refuse, with the reasonCode of the rule (or ``also``)."""
    expected = Installed(oracle_station(ocpp)).decide(evse_id, wire)
    if expected.accepted:
        raise HarnessError(f"test data error: the rules accept profile {wire}")
    exchange = await set_profile(ocpp, evse_id, wire)
    check_equal(K01.refused, f"SetChargingProfileResponse status ({expected.rule.id}: {expected.rule.summary})",
                "Rejected", exchange.result["status"])
    check_in(K01.reason_code, f"SetChargingProfileResponse statusInfo.reasonCode ({expected.rule.id})",
             (expected.rule.reason_code, *also), (exchange.result.get("statusInfo") or {}).get("reasonCode"))


# name: (the second profile's stackLevel, the first's and the second's further fields, whether the rules
# accept the second)
DUPLICATES = {
    "same-level-overlapping": (6, lambda: ({}, {}), False),
    "same-level-disjoint-validity": (6, lambda: ({"validTo": _in(30)}, {"validFrom": _in(30)}), True),
    "other-stack-level": (7, lambda: ({}, {}), True),
}


@pytest.mark.sut_roles("cs")
@pytest.mark.parametrize("name", list(DUPLICATES))
@checks(ChargingProfiles.accepted, K01.duplicate, K01.reason_code)
async def test_overlapping_twin_is_a_duplicate(ocpp, profile, name):
    """Rule 4: a second TxDefaultProfile (another id) with the same stackLevel on the same EVSE is refused
    with DuplicateProfile while both would be valid at once; a disjoint validity or another stackLevel
    is accepted."""
    stack_level, fields, accepted = DUPLICATES[name]
    first_fields, second_fields = fields()
    evse_id = profile.evses[0].id
    installed = Installed(oracle_station(ocpp))
    await install(ocpp, installed, evse_id, charging_profile(new_id(), [(0, "10.0")], stack_level=6, **first_fields))
    second = charging_profile(new_id(), [(0, "12.0")], stack_level=stack_level, **second_fields)
    if installed.decide(evse_id, second).accepted != accepted:
        raise HarnessError(f"test data error: the rules disagree with the {name} case")
    exchange = await set_profile(ocpp, evse_id, second)
    check_equal(K01.duplicate, "SetChargingProfileResponse status of the second profile",
                "Accepted" if accepted else "Rejected", exchange.result["status"])
    if not accepted:
        check_equal(K01.reason_code, "SetChargingProfileResponse statusInfo.reasonCode", "DuplicateProfile",
                    (exchange.result.get("statusInfo") or {}).get("reasonCode"))


@pytest.mark.sut_roles("cs")
@checks(ChargingProfiles.tbc, K01.external_id, K01.reason_code)
async def test_external_profile_cannot_be_replaced_by_id(ocpp, profile):
    """An external limit is held as a ChargingStationExternalConstraints profile (K12); a TxDefaultProfile
    with its id would replace it (rule 6) and so clear it, which the CSMS may not: Rejected, DuplicateProfile.
    A station that does not hold or report the limit is K12's to fail: here the test does not apply."""
    evse_id = profile.evses[0].id
    async with ocpp.prerequisite("holding and reporting of an external limit", owner="K12"):
        await external_limit(ocpp, Installed(oracle_station(ocpp)), evse_id, "EMS", "10.0")
        ids = await held_external_ids(ocpp, evse_id, "EMS")
    exchange = await set_profile(ocpp, evse_id, charging_profile(ids[0], [(0, "16.0")]))
    check_equal(K01.external_id, "SetChargingProfileResponse status for the id of external constraints", "Rejected",
                exchange.result["status"])
    check_equal(K01.reason_code, "SetChargingProfileResponse statusInfo.reasonCode", "DuplicateProfile",
                (exchange.result.get("statusInfo") or {}).get("reasonCode"))


def _ended_transaction() -> str:
    """The id of a transaction the EVSE is not running (one that ended, as far as the CSMS knows)."""
    return f"ended-{new_id()}"


@checks(ChargingProfiles.sent, K01.csms_profile, K01.refused, K01.reason_code, csms=TC("TC_K_02_CSMS", "ocpp2.0.1"))
async def test_tx_profile_without_a_transaction_is_rejected(ocpp, profile):
    """No transaction runs on the EVSE: a TxProfile (Relative, no startSchedule) naming a transaction there is
    Rejected, TxNotFound expected (a SHOULD). The CSMS sends it as its operator asked, in a form rule 2 allows
    (with a transactionId, at an EVSE above 0: whether that transaction still runs is the station's to know,
    so the rules are judged as if it did). After the refusal the texts ask nothing more of the CSMS."""
    evse_id = profile.evses[0].id
    transaction_id = _ended_transaction()
    asked = charging_profile(new_id(), [(0, "7.0")], purpose="TxProfile", kind="Relative", duration=None,
                             stack_level=1, transactionId=transaction_id)
    unit_supported(ocpp, asked)
    exchange = await set_profile(ocpp, evse_id, asked)
    if ocpp.is_sut(CSMS):
        judge_sent_profile(exchange, evse_id, asked, oracle_station(ocpp, {evse_id: transaction_id}),
                           K01.csms_profile)
    expected = Installed(oracle_station(ocpp)).decide(evse_id, asked)
    check_equal(K01.refused, f"SetChargingProfileResponse status ({expected.rule.id})", "Rejected",
                exchange.result["status"])
    check_in(K01.reason_code, "SetChargingProfileResponse statusInfo.reasonCode", ("TxNotFound",),
             (exchange.result.get("statusInfo") or {}).get("reasonCode"))


@checks(ChargingProfiles.sent, ChargingProfiles.accepted, K01.csms_profile, K01.replaces, ChargingProfiles.reported,
        csms=TC("TC_K_04_CSMS", "ocpp2.0.1"))
async def test_profile_replaced_by_its_id(ocpp, profile):
    """A TxDefaultProfile of 8 A, then one with the same id, purpose, kind and stackLevel at 6 A: both sent as
    asked and Accepted (rule 6: the second replaces the first); read back, the id is reported once, at 6 A."""
    evse_id = profile.evses[0].id
    installed = Installed(oracle_station(ocpp))
    profile_id = new_id()
    for limit in ("8.0", "6.0"):
        asked = charging_profile(profile_id, [(0, limit)], stack_level=2)
        await install(ocpp, installed, evse_id, asked, K01.csms_profile)
    _, reports = await get_profiles(ocpp, {"requestId": new_id(), "chargingProfile": {"chargingProfileId": [profile_id]}})
    found = [(r["evseId"], _summary(p)) for r in reports for p in r["chargingProfile"] if p["id"] == profile_id]
    check_equal(K01.replaces, f"profile {profile_id} as reported (evseId, purpose, stackLevel, unit, periods)",
                [(evse_id, _summary(asked))], found)


@pytest.mark.requires("remote_start")
@checks(ChargingProfiles.transaction, ChargingProfiles.sent, ChargingProfiles.accepted, K01.csms_profile,
        ChargingProfiles.reported, ChargingProfiles.tbc, csms=TC("TC_K_70_CSMS", "ocpp2.0.1"))
async def test_several_profiles_during_a_transaction(ocpp, profile):
    """While a transaction charges, a TxDefaultProfile at the EVSE and a ChargingStationMaxProfile (another id)
    at the station: each sent as asked and Accepted, and both are reported."""
    evse_id = profile.evses[0].id
    transaction_id = await charging(ocpp, evse_id)
    installed = Installed(oracle_station(ocpp, {evse_id: transaction_id}))
    for at, asked in ((evse_id, charging_profile(new_id(), [(0, "16.0")], stack_level=3)),
                      (0, charging_profile(new_id(), [(0, "32.0")], purpose="ChargingStationMaxProfile"))):
        await install(ocpp, installed, at, asked, K01.csms_profile)
    exchange, reports = await get_profiles(ocpp, {"requestId": new_id(),
                                                  "chargingProfile": {"chargingProfileId": sorted(installed.ids)}})
    judge_reports(installed, exchange, reports)


@pytest.mark.sut_roles("csms")
@checks(ChargingProfiles.sent, K01.csms_profile, Rpc.answered, csms=TC("TC_K_15_CSMS", "ocpp2.0.1"))
async def test_profile_answered_not_supported(ocpp, profile):
    """The station takes no charging profile: the CSMS's TxDefaultProfile (Absolute, validFrom and validTo set)
    is answered with a CALLERROR NotSupported. The CSMS sent it as asked; the texts ask nothing of it after
    the refusal (spec 002 Errors: NotSupported is a legal answer) but that it goes on serving the station
    (rpc.answered: the station's next CALL, a Heartbeat, is answered)."""
    ocpp.configure(profiles_supported=False)
    evse_id = profile.evses[0].id
    asked = charging_profile(new_id(), [(0, "6.0")], duration=3600, validFrom=_in(-1), validTo=_in(120))
    exchange = await set_profile(ocpp, evse_id, asked)
    judge_sent_profile(exchange, evse_id, asked, oracle_station(ocpp), K01.csms_profile)
    await ocpp.exchange(CS, "Heartbeat", {})
