"""SetChargingProfile validation, case by case, each case naming the rule (engine.RULES) it checks.

Expected answers are written out by hand from the rule text, never computed by the engine.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from typing import Callable

import pytest

from harness.errors import HarnessError
from harness.ocpp.schemas import validate as schema_validate
from harness.smartcharging import (
    RULES, ChargingProfile, ChargingSchedule, Kind, LimitSource, ProfileStore, Purpose, Recurrency, Station,
)
from sc_builders import DAY, HOUR, V16, V201, at, periods, profile, station, with_tx

MAX, TXD, TX, EXT = Purpose.STATION_MAX, Purpose.TX_DEFAULT, Purpose.TX, Purpose.EXTERNAL
REL, REC = Kind.RELATIVE, Kind.RECURRING


def raw(kind: Kind, schedule: ChargingSchedule) -> ChargingProfile:
    """A TxDefaultProfile id 1 around a hand-made schedule (for shapes the builder avoids)."""
    return ChargingProfile(1, 0, TXD, kind, (schedule,))


def alternatives(*ids: int) -> tuple[ChargingSchedule, ...]:
    return tuple(ChargingSchedule("A", periods((0, 8)), id=i, start_schedule=at(0)) for i in ids)


def nothing(store: ProfileStore, st: Station) -> None:
    pass


@dataclass
class Case:
    rule: str | None                # the rule expected to fire; None: accepted
    version: object
    evse: int
    make: Callable                  # () -> ChargingProfile
    response: dict                  # expected answer payload (2.0.1 without additionalInfo)
    setup: Callable = nothing       # installs what must already be there
    station: dict = field(default_factory=dict)
    tx: bool = True                 # a transaction "tx-1" runs on EVSE 1
    replaces: tuple = ()


def rej(code: str) -> dict:
    return {"status": "Rejected", "statusInfo": {"reasonCode": code}}


OK, REJ16 = {"status": "Accepted"}, {"status": "Rejected"}


def pre(*items):
    """Setup installing (evse, profile) pairs as 2.0.1 CSMS profiles, or externals."""
    def setup(store, st):
        for evse, p in items:
            d = (store.install_external(st, evse, p) if p.purpose is EXT else store.install(st, evse, p, V201))
            assert d.accepted, d
    return setup


def pre16(*items):
    def setup(store, st):
        for evse, p in items:
            assert store.install(st, evse, p, V16).accepted
    return setup


CASES = {
    # --- accepted baselines
    "plain TxDefault at 0": Case(None, V201, 0, lambda: profile(1, TXD), OK),
    "TxProfile of the running transaction": Case(None, V201, 1, lambda: profile(1, TX, tx="tx-1"), OK),
    # --- not-supported
    "no smart charging, 1.6": Case("not-supported", V16, 0, lambda: profile(1, TXD), {"status": "NotSupported"},
                                   station={"smart_charging": False}),
    # --- external-from-csms: the CSMS may not set ExternalConstraints
    "external from CSMS": Case("external-from-csms", V201, 0, lambda: profile(1, EXT), rej("InvalidProfile")),
    # --- unknown-evse
    "EVSE 3 on a 2-EVSE station": Case("unknown-evse", V201, 3, lambda: profile(1, TXD), rej("UnknownEVSE")),
    "connector 3, 1.6": Case("unknown-evse", V16, 3, lambda: profile(1, TXD), REJ16),
    # --- station-max-evse / station-max-relative
    "station max at EVSE 1": Case("station-max-evse", V201, 1, lambda: profile(1, MAX), rej("InvalidProfile")),
    "ChargePointMaxProfile at connector 1, 1.6": Case("station-max-evse", V16, 1, lambda: profile(1, MAX), REJ16),
    "station max Relative": Case("station-max-relative", V201, 0, lambda: profile(1, MAX, kind=REL),
                                 rej("InvalidProfile")),
    "1.6 has no rule against a Relative ChargePointMaxProfile": Case(None, V16, 0,
                                                                     lambda: profile(1, MAX, kind=REL), OK),
    # --- tx-evse / tx-id-required / tx-id-purpose
    "TxProfile at EVSE 0": Case("tx-evse", V201, 0, lambda: profile(1, TX, tx="tx-1"), rej("InvalidProfile")),
    "2.0.1 TxProfile without transactionId": Case("tx-id-required", V201, 1, lambda: profile(1, TX),
                                                  rej("InvalidProfile")),
    "1.6 TxProfile without transactionId binds to the running one": Case(None, V16, 1, lambda: profile(1, TX), OK),
    "transactionId on a TxDefaultProfile": Case("tx-id-purpose", V201, 1, lambda: profile(1, TXD, tx="tx-1"),
                                                rej("InvalidProfile")),
    # --- stack-level
    "negative stackLevel": Case("stack-level", V201, 0, lambda: profile(1, TXD, stack=-1), rej("InvalidProfile")),
    "stackLevel above ChargeProfileMaxStackLevel": Case("stack-level", V201, 0, lambda: profile(1, TXD, stack=6),
                                                        rej("InvalidProfile"), station={"max_stack_level": 5}),
    "stackLevel at the maximum": Case(None, V201, 0, lambda: profile(1, TXD, stack=5), OK,
                                      station={"max_stack_level": 5}),
    "1.6 stackLevel above maximum": Case("stack-level", V16, 0, lambda: profile(1, TXD, stack=9), REJ16,
                                         station={"max_stack_level": 8}),
    # --- schedule-count
    "four schedules": Case("schedule-count", V201, 1, lambda: profile(
        1, TX, tx="tx-1", extra_schedules=alternatives(2, 3, 4)),
                           rej("InvalidSchedule")),
    "three schedules (ISO 15118 alternatives)": Case(None, V201, 1, lambda: profile(
        1, TX, tx="tx-1", extra_schedules=alternatives(2, 3)), OK),
    "two schedules in 1.6": Case("schedule-count", V16, 0, lambda: profile(
        1, TXD, extra_schedules=(ChargingSchedule("A", periods((0, 8))),)), REJ16),
    # --- rate-unit
    "W on an A-only station": Case("rate-unit", V201, 0, lambda: profile(1, TXD, (0, 7400), unit="W"),
                                   rej("UnsupportedRateUnit"), station={"rate_units": ("A",)}),
    "W on an A-only station, 1.6": Case("rate-unit", V16, 0, lambda: profile(1, TXD, (0, 7400), unit="W"),
                                        REJ16, station={"rate_units": ("A",)}),
    # --- period-count
    "no periods": Case("period-count", V201, 0, lambda: raw(Kind.ABSOLUTE, ChargingSchedule(
        "A", (), id=1, start_schedule=at(0))), rej("InvalidSchedule")),
    "1025 periods": Case("period-count", V201, 0, lambda: profile(1, TXD, *[(i, 6) for i in range(1025)]),
                         rej("InvalidSchedule")),
    "1024 periods": Case(None, V201, 0, lambda: profile(1, TXD, *[(i, 6) for i in range(1024)]), OK),
    "3 periods, ChargingScheduleMaxPeriods 2": Case("period-count", V201, 0,
                                                    lambda: profile(1, TXD, (0, 6), (60, 7), (120, 8)),
                                                    rej("InvalidSchedule"), station={"max_periods": 2}),
    # --- first-period / period-order
    "first startPeriod 10": Case("first-period", V201, 0, lambda: profile(1, TXD, (10, 6)), rej("InvalidSchedule")),
    "first startPeriod 10, 1.6": Case("first-period", V16, 0, lambda: profile(1, TXD, (10, 6)), REJ16),
    "equal startPeriods": Case("period-order", V201, 0, lambda: profile(1, TXD, (0, 6), (100, 7), (100, 8)),
                               rej("InvalidSchedule")),
    "decreasing startPeriods": Case("period-order", V201, 0, lambda: profile(1, TXD, (0, 6), (200, 7), (100, 8)),
                                    rej("InvalidSchedule")),
    # --- one-decimal
    "limit 8.15": Case("one-decimal", V201, 0, lambda: profile(1, TXD, (0, Decimal("8.15"))),
                       rej("InvalidSchedule")),
    "minChargingRate 6.25": Case("one-decimal", V201, 0, lambda: profile(1, TXD, min_rate=Decimal("6.25")),
                                 rej("InvalidSchedule")),
    "limit 8.15, 1.6": Case("one-decimal", V16, 0, lambda: profile(1, TXD, (0, 8.15)), REJ16),
    "limit 8.10 is one decimal by value": Case(None, V201, 0, lambda: profile(1, TXD, (0, Decimal("8.10"))), OK),
    "binary float 8.1 stays 8.1": Case(None, V16, 0, lambda: profile(1, TXD, (0, 8.1), min_rate=0.3), OK),
    # --- non-negative
    "negative limit": Case("non-negative", V201, 0, lambda: profile(1, TXD, (0, -1)), rej("InvalidSchedule")),
    "negative duration": Case("non-negative", V201, 0, lambda: profile(1, TXD, duration=-5),
                              rej("InvalidSchedule")),
    "limit 0 is fine": Case(None, V201, 0, lambda: profile(1, TXD, (0, 0)), OK),
    # --- number-phases / phase-to-use
    "numberPhases 0": Case("number-phases", V201, 0, lambda: profile(1, TXD, (0, 6, 0)), rej("InvalidSchedule")),
    "numberPhases 4": Case("number-phases", V201, 0, lambda: profile(1, TXD, (0, 6, 4)), rej("InvalidSchedule")),
    "phaseToUse with numberPhases 3": Case("phase-to-use", V201, 0, lambda: profile(1, TXD, (0, 6, 3, 1)),
                                           rej("InvalidSchedule"), station={"phase_switching": True}),
    "phaseToUse with numberPhases absent (3)": Case("phase-to-use", V201, 0,
                                                    lambda: profile(1, TXD, (0, 6, None, 1)),
                                                    rej("InvalidSchedule"), station={"phase_switching": True}),
    "phaseToUse 4": Case("phase-to-use", V201, 0, lambda: profile(1, TXD, (0, 6, 1, 4)), rej("InvalidSchedule"),
                         station={"phase_switching": True}),
    "phaseToUse without phase switching": Case("phase-to-use", V201, 0, lambda: profile(1, TXD, (0, 6, 1, 2)),
                                               rej("InvalidSchedule")),
    "phaseToUse 2 with numberPhases 1 and switching": Case(None, V201, 0, lambda: profile(1, TXD, (0, 6, 1, 2)),
                                                           OK, station={"phase_switching": True}),
    # --- start-schedule / recurrency-kind
    "Absolute without startSchedule": Case("start-schedule", V201, 0, lambda: profile(1, TXD, start=None),
                                           rej("InvalidSchedule")),
    "Recurring without startSchedule": Case("start-schedule", V201, 0, lambda: profile(
        1, TXD, kind=REC, recurrency=Recurrency.DAILY, start=None), rej("InvalidSchedule")),
    "Relative with startSchedule": Case("start-schedule", V201, 0, lambda: raw(REL, ChargingSchedule(
        "A", periods((0, 6)), id=1, start_schedule=at(0))), rej("InvalidSchedule")),
    "Relative with startSchedule, 1.6": Case("start-schedule", V16, 0, lambda: raw(REL, ChargingSchedule(
        "A", periods((0, 6)), start_schedule=at(0))), REJ16),
    "Recurring without recurrencyKind": Case("recurrency-kind", V201, 0, lambda: profile(1, TXD, kind=REC),
                                             rej("InvalidProfile")),
    "Absolute with recurrencyKind": Case("recurrency-kind", V201, 0,
                                         lambda: profile(1, TXD, recurrency=Recurrency.DAILY),
                                         rej("InvalidProfile")),
    "Recurring Weekly": Case(None, V201, 0, lambda: profile(1, TXD, kind=REC, recurrency=Recurrency.WEEKLY), OK),
    # --- tx-not-found
    "TxProfile on an EVSE without transaction": Case("tx-not-found", V201, 2, lambda: profile(1, TX, tx="tx-1"),
                                                     rej("TxNotFound")),
    "TxProfile for another transaction": Case("tx-not-found", V201, 1, lambda: profile(1, TX, tx="tx-9"),
                                              rej("TxNotFound")),
    "1.6 TxProfile without any transaction": Case("tx-not-found", V16, 1, lambda: profile(1, TX), REJ16, tx=False),
    "1.6 TxProfile for another transaction": Case("tx-not-found", V16, 1, lambda: profile(1, TX, tx="9"), REJ16),
    # --- external-id: K01.FR.05
    "CSMS reuses the id of an external profile": Case(
        "external-id", V201, 1, lambda: profile(50, TXD), rej("DuplicateProfile"), setup=pre((0, profile(50, EXT)))),
    # --- duplicate: K01.FR.06
    "same stackLevel, purpose, EVSE, both unbounded": Case(
        "duplicate", V201, 1, lambda: profile(2, TXD, stack=1), rej("DuplicateProfile"),
        setup=pre((1, profile(1, TXD, stack=1)))),
    "overlapping validity windows": Case(
        "duplicate", V201, 1, lambda: profile(2, TXD, stack=1, valid_from=DAY - 1, valid_to=2 * DAY),
        rej("DuplicateProfile"), setup=pre((1, profile(1, TXD, stack=1, valid_to=DAY)))),
    "touching validity windows do not overlap": Case(
        None, V201, 1, lambda: profile(2, TXD, stack=1, valid_from=DAY), OK,
        setup=pre((1, profile(1, TXD, stack=1, valid_to=DAY)))),
    "same stackLevel on another EVSE": Case(
        None, V201, 2, lambda: profile(2, TXD, stack=1), OK, setup=pre((1, profile(1, TXD, stack=1)))),
    "same stackLevel, other purpose": Case(
        None, V201, 0, lambda: profile(2, MAX, stack=1), OK, setup=pre((0, profile(1, TXD, stack=1)))),
    "same id replaces instead of clashing": Case(
        None, V201, 1, lambda: profile(1, TXD, stack=1), OK, setup=pre((1, profile(1, TXD, stack=1))),
        replaces=(1,)),
    # --- duplicate-tx: K01.FR.39, validity does not matter
    "second TxProfile, same stackLevel and transaction": Case(
        "duplicate-tx", V201, 1, lambda: profile(2, TX, stack=1, tx="tx-1", valid_from=DAY),
        rej("DuplicateProfile"), setup=pre((1, profile(1, TX, stack=1, tx="tx-1", valid_to=HOUR)))),
    "second TxProfile, other stackLevel": Case(
        None, V201, 1, lambda: profile(2, TX, stack=2, tx="tx-1"), OK, setup=pre((1, profile(1, TX, stack=1,
                                                                                              tx="tx-1")))),
    # --- duplicate-tx-default: K01.FR.52 / K01.FR.53
    "TxDefault at 0 over one at EVSE 1, same stackLevel": Case(
        "duplicate-tx-default", V201, 0, lambda: profile(2, TXD, stack=3), rej("DuplicateProfile"),
        setup=pre((1, profile(1, TXD, stack=3)))),
    "TxDefault at EVSE 2 under one at 0, same stackLevel": Case(
        "duplicate-tx-default", V201, 2, lambda: profile(2, TXD, stack=3), rej("DuplicateProfile"),
        setup=pre((0, profile(1, TXD, stack=3)))),
    "TxDefault at 0 and at EVSE 1, different stackLevels": Case(
        None, V201, 0, lambda: profile(2, TXD, stack=4), OK, setup=pre((1, profile(1, TXD, stack=3)))),
    # --- 1.6 replace-stack instead of DuplicateProfile (doc 002 rule 11)
    "1.6: same stackLevel and purpose on a connector replaces": Case(
        None, V16, 1, lambda: profile(2, TXD, stack=1, valid_from=DAY), OK,
        setup=pre16((1, profile(1, TXD, stack=1, valid_to=HOUR))), replaces=(1,)),
    "1.6: same stackLevel on another connector stays": Case(
        None, V16, 2, lambda: profile(2, TXD, stack=1), OK, setup=pre16((1, profile(1, TXD, stack=1)))),
    "1.6: same stackLevel at connector 0 and 1 both stay": Case(
        None, V16, 0, lambda: profile(2, TXD, stack=1), OK, setup=pre16((1, profile(1, TXD, stack=1)))),
    # --- capacity
    "MaxChargingProfilesInstalled reached": Case(
        "capacity", V201, 0, lambda: profile(2, TXD, stack=2), rej("InvalidProfile"),
        setup=pre((0, profile(1, TXD, stack=1))), station={"max_profiles": 1}),
    "replacing at the limit needs no room": Case(
        None, V201, 0, lambda: profile(1, TXD, stack=2), OK, setup=pre((0, profile(1, TXD, stack=1))),
        station={"max_profiles": 1}, replaces=(1,)),
    "1.6 replacement by stackLevel at the limit": Case(
        None, V16, 0, lambda: profile(2, TXD, stack=1), OK, setup=pre16((0, profile(1, TXD, stack=1))),
        station={"max_profiles": 1}, replaces=(1,)),
}


@pytest.mark.parametrize("name", CASES)
def test_validation_case(name):
    case = CASES[name]
    st = station(**case.station)
    if case.tx:
        with_tx(st, 1, "tx-1" if case.version is V201 else "7")
    store = ProfileStore()
    case.setup(store, st)
    before = {e.profile.id for e in store.installed()}
    p = case.make()
    decision = store.install(st, case.evse, p, case.version)
    assert (decision.rule.id if decision.rule else None) == case.rule, decision.detail
    answer = decision.response()
    if case.version is V201 and "statusInfo" in answer:
        assert answer["statusInfo"]["additionalInfo"], "a refusal says why"
        answer = {**answer, "statusInfo": {"reasonCode": answer["statusInfo"]["reasonCode"]}}
    assert answer == case.response
    assert not schema_validate(case.version, "SetChargingProfile", "response", decision.response())
    after = {e.profile.id for e in store.installed()}
    if case.rule is None:
        assert decision.replaces == case.replaces
        assert after == (before - set(case.replaces)) | {p.id}
    else:
        assert after == before, "a refused profile changes nothing"


def test_every_rule_has_a_refusing_case():
    fired = {c.rule for c in CASES.values()}
    assert {rule.id for rule, _ in RULES} <= fired


def test_not_supported_in_201_is_a_callerror():
    # not-supported: 2.0.1 answers a CALLERROR NotSupported (K01.FR.29), no response payload.
    d = ProfileStore().install(station(smart_charging=False), 0, profile(1, TXD), V201)
    assert d.rule.id == "not-supported" and d.call_error == "NotSupported"
    with pytest.raises(HarnessError):
        d.response()


def test_rules_are_documented_with_a_source():
    for rule, check in RULES:
        assert rule.source and rule.summary and callable(check)


def test_1_6_txprofile_without_id_is_bound_to_the_running_transaction():
    st = with_tx(station(), 1, "7")
    store = ProfileStore()
    assert store.install(st, 1, profile(1, TX), V16).accepted
    assert store.installed()[0].transaction_id == "7"
    assert store.installed()[0].source is LimitSource.CSO


def test_end_transaction_deletes_its_txprofiles_only():
    # tx-ends: doc 001 rule 7, doc 002 TxProfile moves.
    st = with_tx(with_tx(station(), 1, "tx-1"), 2, "tx-2")
    store = ProfileStore()
    for evse, p in ((1, profile(1, TX, tx="tx-1")), (1, profile(2, TX, stack=1, tx="tx-1")),
                    (2, profile(3, TX, tx="tx-2")), (1, profile(4, TXD))):
        assert store.install(st, evse, p, V201).accepted
    gone = store.end_transaction(st, 1)
    assert sorted(p.id for p in gone) == [1, 2]
    assert sorted(e.profile.id for e in store.installed()) == [3, 4]
    assert 1 not in st.transactions and 2 in st.transactions
    with pytest.raises(HarnessError):
        store.end_transaction(st, 1)


def test_external_limits_come_from_the_station_side():
    st, store = station(), ProfileStore()
    d = store.install_external(st, 1, profile(9, EXT, (0, 10)), LimitSource.SO)
    assert d.accepted and store.installed()[0].source is LimitSource.SO
    # schedule rules still apply to them
    assert store.install_external(st, 1, profile(10, EXT, (5, 10))).rule.id == "first-period"
    # a new external limit with the same id replaces the old one (K11)
    assert store.install_external(st, 1, profile(9, EXT, (0, 6))).replaces == (9,)
    with pytest.raises(HarnessError):
        store.install_external(st, 1, profile(11, EXT), LimitSource.CSO)
    with pytest.raises(HarnessError):
        store.install_external(st, 1, profile(11, TXD))


def test_validate_does_not_install():
    st, store = station(), ProfileStore()
    assert store.validate(st, 0, profile(1, TXD), V201).accepted
    assert store.installed() == ()


def test_version_2_1_is_not_modelled():
    from harness.ocpp.versions import OcppVersion
    with pytest.raises(HarnessError):
        ProfileStore().validate(station(), 0, profile(1, TXD), OcppVersion.V21)
