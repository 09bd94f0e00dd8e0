"""Smart-charging dialogues (K01-K10), with the charging-profile engine as the oracle: what a
station must accept, report, clear and compose is computed from what the test installed, never
hard-coded. The rules of the dialogues that several use cases play are this module's.

OCPP 2.1 keeps the 2.0.1 smart-charging fields the tests send (its additions, such as the
PriorityCharging purpose or the Dynamic kind, are never sent), so the engine judges both versions
with its 2.0.1 rules (``ENGINE``)."""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from decimal import Decimal
from typing import Any

from harness import clock
from harness import smartcharging as sc
from harness.arena.ocpp import OcppArena
from harness.roles import CS, CSMS
from harness.errors import HarnessError, NotApplicable
from harness.ocpp.versions import OcppVersion
from harness.rules import Rule, RuleTable, must
from harness.smartcharging.wire import iso
from harness.transport.ws import Exchange
from harness.usecases.operations import operate
from harness.usecases.remote_control import RemoteStart, own_token_on_the_way
from harness.verdict import check_equal, check_in, dig, require, violated

ENGINE = OcppVersion.V201   # the engine's rules for 2.0.1 and 2.1 alike (see the module's docstring)


class ChargingProfiles(RuleTable, namespace="chargingprofile"):
    """Installing, reading back and starting with a profile (spec 001 SetChargingProfile rules and messages)."""
    sent = must("spec 001 Messages sent by the CSMS: SetChargingProfileRequest",
                "the CSMS sends SetChargingProfile for the EVSE and profile its operator asked for", by=CSMS)
    accepted = must("spec 001 SetChargingProfile rules 1-6; SetChargingProfileResponse",
                    "a station accepts a profile that obeys the rules", by=CS)
    report_sent = must("spec 001 Smart charging messages: GetChargingProfilesRequest",
                       "the CSMS sends GetChargingProfiles with the requestId and criteria its operator asked for",
                       by=CSMS)
    reported = must("spec 001 Smart charging messages: GetChargingProfilesRequest, ReportChargingProfilesRequest",
                    "a station reports exactly the profiles the criteria select, under the request's requestId",
                    by=CS)
    tbc = must("spec 001 Smart charging messages: ReportChargingProfilesRequest (tbc)",
               "every report but the last of a request says tbc true; the last says false or nothing", by=CS)
    transaction = must("spec 001 Events: TransactionEventRequest (Started)",
                       "a transaction the CSMS started remotely begins with TransactionEvent Started", by=CS)
    notified = must("spec 001 Smart charging messages: NotifyChargingLimitRequest; Events",
                    "a station tells the CSMS of an external limit in NotifyChargingLimit, with the limit's source "
                    "(EMS, Other or SO, never CSO) and EVSE", by=CS)
    external_held = must("spec 001 Purposes; Smart charging messages: GetChargingProfilesRequest (chargingLimitSource)",
                         "the external limit is held as a ChargingStationExternalConstraints profile, reported under "
                         "its source", by=CS)
    needs_schedule = must("spec 001 SetChargingProfile rule 13; Limits",
                          "after Processing the CSMS sends the EVSE's transaction a TxProfile of at most 3 schedules, "
                          "each of at most maxScheduleTuples periods, that the rules allow", by=CSMS)


def new_id() -> int:
    """A profile id unlikely to be installed at the station already."""
    return secrets.randbelow(10**6) + 1


def recent_start() -> datetime:
    return (clock.utcnow() - timedelta(minutes=1)).replace(microsecond=0)


def charging_profile(profile_id: int, limits: list[tuple[int, str]], *, purpose: str = "TxDefaultProfile",
                     kind: str = "Absolute", start: datetime | None = None, unit: str = "A", stack_level: int = 0,
                     duration: int | None = 86400, **fields: Any) -> dict:
    """A 2.0.1 ChargingProfileType with one schedule (id = the profile's id). ``start`` defaults to a
    minute ago (none for Relative); ``fields`` are further wire fields (validFrom, transactionId, ...)."""
    schedule: dict[str, Any] = {"id": profile_id, "chargingRateUnit": unit,
                                "chargingSchedulePeriod": [{"startPeriod": at, "limit": float(limit)}
                                                           for at, limit in limits]}
    if kind != "Relative":
        schedule["startSchedule"] = iso(start or recent_start())
    if duration is not None:
        schedule["duration"] = duration
    return {"id": profile_id, "stackLevel": stack_level, "chargingProfilePurpose": purpose,
            "chargingProfileKind": kind, **fields, "chargingSchedule": [schedule]}


def oracle_station(arena: OcppArena, transactions: dict[int, str] | None = None) -> sc.Station:
    """The engine's model of the SUT station from its profile: its EVSEs and the given running
    transactions (EVSE id: transaction id)."""
    return sc.Station(evse_ids=frozenset(e.id for e in arena.profile.evses), rate_units=arena.profile.charging_rate_units,
                      transactions={evse: sc.Transaction(tx, clock.utcnow()) for evse, tx in (transactions or {}).items()})


@dataclass
class Installed:
    """What a test installed at the station, mirrored in the engine (the oracle of every later answer)."""
    station: sc.Station
    store: sc.ProfileStore = field(default_factory=sc.ProfileStore)
    ids: set[int] = field(default_factory=set)

    def add(self, evse_id: int, wire: dict) -> sc.Decision:
        self.ids.add(wire["id"])
        return self.store.install(self.station, evse_id, sc.from_v201(wire), ENGINE)

    def decide(self, evse_id: int, wire: dict) -> sc.Decision:
        return self.store.validate(self.station, evse_id, sc.from_v201(wire), ENGINE)

    def clear(self, request: dict) -> sc.ClearResult:
        """What a ClearChargingProfileRequest removes of the profiles the test installed."""
        return self.store.clear(sc.clear_criteria(request, ENGINE))


async def set_profile(arena: OcppArena, evse_id: int, charging_profile: dict) -> Exchange:
    return await arena.exchange(
        CSMS, "SetChargingProfile", {"evseId": evse_id, "chargingProfile": charging_profile},
        trigger=("set_charging_profile", {"evse_id": evse_id, "charging_profile": charging_profile}),
        rule=ChargingProfiles.sent)


def unit_supported(arena: OcppArena, wire: dict) -> None:
    """A profile the station can take at all: one whose chargingRateUnits it supports (its profile says
    which); else the test is not applicable, for either role."""
    units = sorted({schedule["chargingRateUnit"] for schedule in wire["chargingSchedule"]})
    if not set(units) <= set(arena.profile.charging_rate_units):
        raise NotApplicable(f"the station does not support the unit {', '.join(units)} of profile {wire['id']}: "
                            f"[smart_charging] charging_rate_units = {list(arena.profile.charging_rate_units)}")


async def install(arena: OcppArena, installed: Installed, evse_id: int, wire: dict,
                  judged: Rule | None = None) -> Exchange:
    """SetChargingProfile of a profile the rules accept (checked first: else the test data is wrong);
    the station must accept it, and the engine installs it too. A CSMS under test is judged first on what
    it sent (as asked; with ``judged``, also allowed by that rule): a profile it changed would be the
    harness's station's to refuse, and the refusal no fault of the harness. Installing is K01's: what the
    SUT breaks here fails the tests of K01 and of those that declare the rule, and leaves the others not
    applicable."""
    unit_supported(arena, wire)
    decision = installed.decide(evse_id, wire)
    if not decision.accepted:
        raise HarnessError(f"test data error: the rules refuse profile {wire['id']} at EVSE {evse_id}: "
                            f"{decision.detail}")
    async with arena.prerequisite(f"installation of charging profile {wire['id']}", owner="K01"):
        exchange = await set_profile(arena, evse_id, wire)
        if arena.is_sut(CSMS):
            judge_sent_profile(exchange, evse_id, wire, installed.station, judged)
        check_equal(ChargingProfiles.accepted, f"SetChargingProfileResponse status for profile {wire['id']}",
                    "Accepted", exchange.result["status"])
    installed.add(evse_id, wire)
    return exchange


async def install_all(arena: OcppArena, installs: list[tuple[int, dict]]) -> Installed:
    """Each (EVSE, profile) installed in turn (each must be Accepted); the engine's mirror of them."""
    installed = Installed(oracle_station(arena))
    for evse_id, wire in installs:
        await install(arena, installed, evse_id, wire)
    return installed


def judge_empty_answer(rule: Rule, action: str, exchange: Exchange) -> None:
    """A CSMS answers ``action`` with an empty response (customData aside)."""
    check_equal(rule, f"{action}Response fields (customData aside)", [],
                sorted(k for k in exchange.result if k != "customData"))


def judge_sent_profile(exchange: Exchange, evse_id: int, asked: dict, station: sc.Station,
                       rule: Rule | None) -> None:
    """A CSMS under test sent what its operator asked for (the actuator body), and (with ``rule``) the
    rules accept it."""
    sent = exchange.request
    check_equal(ChargingProfiles.sent, "SetChargingProfileRequest evseId", evse_id, sent["evseId"])
    check_equal(ChargingProfiles.sent, "SetChargingProfileRequest chargingProfile (as a model)",
                sc.from_v201(asked), sc.from_v201(sent["chargingProfile"]))
    if rule is not None:
        judge_allowed(station, sent["evseId"], sent["chargingProfile"], rule)


def judge_allowed(station: sc.Station, evse_id: int, wire: dict, rule: Rule) -> None:
    """The rules allow a profile a CSMS under test sent (to a station with no profile yet)."""
    decision = sc.ProfileStore().validate(station, evse_id, sc.from_v201(wire), ENGINE)
    if not decision.accepted:
        violated(rule, f"the CSMS sent a profile the rules refuse: {decision.rule.summary} "
                 f"({decision.rule.id}; {decision.rule.source})", expected="a valid charging profile",
                 actual=decision.detail)


async def get_profiles(arena: OcppArena, request: dict) -> tuple[Exchange, list[dict]]:
    """GetChargingProfiles (``request`` on the wire) and the reports that answer it, up to the one
    without tbc; a station under test sends none after that one (a split without tbc). A CSMS under
    test must send ``request`` with a requestId of its own, and gets the harness's station's reports."""
    mark = arena.mark()
    exchange = await operate(arena, "GetChargingProfiles", request, ChargingProfiles.report_sent, own=("requestId",))
    reports: list[dict] = []
    if exchange.result.get("status") != "Accepted":
        return exchange, reports
    request_id = exchange.request["requestId"]
    while not reports or reports[-1].get("tbc", False):
        seen = list(reports)
        report = await arena.expect(
            "ReportChargingProfiles", sender=CS, after=mark,
            rule=ChargingProfiles.tbc if reports else ChargingProfiles.reported,
            where=lambda p, seen=seen: p.get("requestId") == request_id and all(p is not s for s in seen),
            why=f"for requestId {request_id}" + (" after a report with tbc true" if reports else ""))
        reports.append(report.request)
    if arena.is_sut(CS):
        await arena.expect_none("ReportChargingProfiles", after=mark, rule=ChargingProfiles.tbc,
                                where=lambda p: p.get("requestId") == request_id and all(p is not r for r in reports))
    return exchange, reports


def reported_ids(reports: list[dict]) -> dict[tuple[int, str], set[int]]:
    """{(evseId, chargingLimitSource): profile ids} over the reports."""
    out: dict[tuple[int, str], set[int]] = {}
    for r in reports:
        out.setdefault((r["evseId"], r["chargingLimitSource"]), set()).update(p["id"] for p in r["chargingProfile"])
    return out


def judge_reports(installed: Installed, exchange: Exchange, reports: list[dict],
                  rule: Rule = ChargingProfiles.reported) -> None:
    """The reports answer the GetChargingProfiles of ``exchange`` as the engine does for the profiles the
    test installed: each of them the criteria select is reported at its EVSE and source, no other of them
    is (else ``rule`` is broken); profiles the station held before the test are not judged (a station in
    the field holds its own)."""
    request = exchange.request
    expected = installed.store.report(sc.report_criteria(request))
    mine = {key: ids & installed.ids for key, ids in reported_ids(reports).items()}
    check_equal(rule, "reported profiles of this test by (evseId, chargingLimitSource)",
                reported_ids(list(expected.requests)), {k: v for k, v in mine.items() if v})
    if expected.requests:
        check_equal(ChargingProfiles.reported, "GetChargingProfilesResponse status", "Accepted",
                    exchange.result["status"])
    judge_tbc(reports)


def judge_tbc(reports: list[dict]) -> None:
    flags = [r.get("tbc", False) for r in reports]
    check_equal(ChargingProfiles.tbc, "tbc of the reports, in order", [True] * (len(flags) - 1) + [False], flags)


async def charging(arena: OcppArena, evse_id: int) -> str:
    """A transaction running on ``evse_id``, started by the CSMS: its id. The remote start is F01's: what
    the SUT breaks in it fails the tests of F01 and of those that declare the rule, and leaves the others
    not applicable."""
    async with arena.prerequisite(f"remote start of a transaction on EVSE {evse_id}", owner="F01"):
        exchange, transaction_id = await start_transaction(arena, evse_id, None, RemoteStart.request)
        require(transaction_id is not None, ChargingProfiles.transaction, "the remote start was not Accepted",
                expected="Accepted", actual=exchange.result)
    return transaction_id


async def start_transaction(arena: OcppArena, evse_id: int, charging_profile: dict | None,
                            rule: Rule) -> tuple[Exchange, str | None]:
    """A transaction on ``evse_id`` started by the CSMS (RequestStartTransaction, optionally with a
    profile): (the request's exchange, the transactionId of the Started event; None when it was not
    Accepted). A CSMS under test must send it for ``evse_id`` (``rule``). Ended by the arena when the
    test ends."""
    token = {"idToken": "APP-" + secrets.token_hex(6).upper(), "type": "Central"}
    payload: dict[str, Any] = {"idToken": token, "remoteStartId": secrets.randbelow(10**6) + 1, "evseId": evse_id}
    action, body = "request_start_transaction", {"evse_id": evse_id}
    if charging_profile is not None:
        action = "request_start_transaction_with_profile"
        payload["chargingProfile"] = body["charging_profile"] = charging_profile
    mark = arena.mark()
    exchange = await arena.exchange(CSMS, "RequestStartTransaction", payload, trigger=(action, body), rule=rule,
                                    asked=lambda p: p.get("evseId") == evse_id)
    if arena.is_sut(CSMS):
        check_equal(rule, "RequestStartTransactionRequest evseId", evse_id, exchange.request.get("evseId"))
    if exchange.result.get("status") != "Accepted":
        return exchange, None
    started = await arena.expect("TransactionEvent", sender=CS, after=mark, rule=ChargingProfiles.transaction,
                                 where=lambda p: p.get("eventType") == "Started"
                                 and dig(p, "evse.id", evse_id) == evse_id)
    await own_token_on_the_way(arena, started)
    return exchange, started.request["transactionInfo"]["transactionId"]


def composite_periods(composite: sc.CompositeSchedule) -> list[tuple[int, Any]]:
    return [(p.start_period, p.limit) for p in composite.periods]


def expected_composite(installed: Installed, reported: sc.CompositeSchedule, duration: int,
                       unit: str | None, *, station_defaults: bool = True) -> sc.CompositeSchedule:
    """The engine's composite of what the test installed, at the scheduleStart the station reported."""
    return sc.composite_schedule(installed.store, installed.station, reported.evse_id, reported.schedule_start,
                                 duration, unit, station_defaults=station_defaults)


def accepted_composites(installed: Installed, reported: sc.CompositeSchedule, unit: str | None) -> list[list]:
    """The periods every legal reading gives the reported composite. EVSE 0 has two: spec 001 (K08's
    GetCompositeSchedule, and K01's TxDefaultProfile at evseId 0 as the default of every EVSE) says what
    bounds an EVSE, never whether a TxDefaultProfile at 0 also bounds the station's own composite, so the
    composite with it and the one of the station's caps alone both pass; an EVSE above 0 has one."""
    readings = (True, False) if reported.evse_id == 0 else (True,)
    return list(dict.fromkeys(tuple(composite_periods(expected_composite(installed, reported, reported.duration,
                                                                         unit, station_defaults=defaults)))
                              for defaults in readings))


def first_evse(arena: OcppArena) -> int:
    return arena.profile.evses[0].id


def two_evses(given) -> None:
    """``needs`` condition: the station has two EVSEs."""
    if len(given.profile.evses) < 2:
        raise NotApplicable("the test needs two EVSEs: the profile's [station] evse lists one")


def require_accepted(rule: Rule, what: str, exchange: Exchange) -> None:
    require(exchange.result.get("status") == "Accepted", rule, f"{what} was not Accepted",
            expected="Accepted", actual=exchange.result)


async def external_limit(arena: OcppArena, installed: Installed, evse_id: int, source: str,
                         limit: str) -> Exchange:
    """An external system limits ``evse_id`` to ``limit`` A from now on (the station's actuator, or the
    harness's station): the NotifyChargingLimit that tells the CSMS, the limit mirrored in the engine."""
    since = clock.utcnow().replace(microsecond=0)
    exchange = await arena.exchange(
        CS, "NotifyChargingLimit", {"chargingLimit": {"chargingLimitSource": source}, "evseId": evse_id},
        trigger=("set_external_limit", {"evse_id": evse_id, "source": source, "limit": float(limit)}),
        rule=ChargingProfiles.notified)
    installed.store.install_external(installed.station, evse_id, sc.ChargingProfile(
        id=-new_id(), stack_level=0, purpose=sc.Purpose.EXTERNAL, kind=sc.Kind.ABSOLUTE, schedules=(
            sc.ChargingSchedule("A", (sc.SchedulePeriod(0, Decimal(limit)),), id=1, start_schedule=since),)), source)
    return exchange


async def held_external_limit(arena: OcppArena, evse_id: int, source: str, limit: float) -> Exchange:
    """An external system limits ``evse_id`` at whichever side plays the station (the SUT's actuator, or the
    harness's station, which then holds the limit as a ChargingStationExternalConstraints profile and reports
    it): the NotifyChargingLimit that tells the CSMS."""
    mark = arena.mark()
    await arena.act(CS, "set_external_limit", evse_id=evse_id, source=source, limit=limit)
    return await arena.expect("NotifyChargingLimit", sender=CS, after=mark, rule=ChargingProfiles.notified)


async def held_external_ids(arena: OcppArena, evse_id: int, source: str) -> list[int]:
    """The ids of the ChargingStationExternalConstraints profiles reported for ``evse_id`` under ``source``
    (GetChargingProfiles with that chargingLimitSource); a report without one breaks ``external_held``."""
    _, reports = await get_profiles(arena, {"requestId": new_id(), "evseId": evse_id,
                                            "chargingProfile": {"chargingLimitSource": [source]}})
    held = {(r["evseId"], r["chargingLimitSource"], p["chargingProfilePurpose"]) for r in reports
            for p in r["chargingProfile"]}
    check_in(ChargingProfiles.external_held, "reported (evseId, chargingLimitSource, purpose)", held,
             (evse_id, source, "ChargingStationExternalConstraints"))
    return [p["id"] for r in reports for p in r["chargingProfile"]
            if p["chargingProfilePurpose"] == "ChargingStationExternalConstraints"]


async def release_external_limit(arena: OcppArena, installed: Installed, evse_id: int, source: str,
                                 rule: Rule) -> Exchange:
    """The external system releases its limit on ``evse_id`` (the station's actuator, or the harness's
    station): the ClearedChargingLimit that tells the CSMS (its silence breaks ``rule``); the limit released
    in the engine too."""
    exchange = await arena.exchange(CS, "ClearedChargingLimit", {"chargingLimitSource": source, "evseId": evse_id},
                                    trigger=("release_external_limit", {"evse_id": evse_id, "source": source}),
                                    rule=rule)
    installed.store.release_external(evse_id, sc.LimitSource(source))
    return exchange


async def composite(arena: OcppArena, evse_id: int, duration: int, unit: str | None, rule: Rule) -> Exchange:
    """GetCompositeSchedule for ``evse_id``: sent by the harness, or asked of a CSMS under test, which must
    send it as asked (``rule``)."""
    if unit is not None and unit not in arena.profile.charging_rate_units:
        raise NotApplicable(f"the station does not support {unit}: [smart_charging] charging_rate_units = "
                            f"{list(arena.profile.charging_rate_units)}")
    payload = {"evseId": evse_id, "duration": duration} | ({"chargingRateUnit": unit} if unit else {})
    return await operate(arena, "GetCompositeSchedule", payload, rule)


def judge_composite(installed: Installed, exchange: Exchange, unit: str, status_rule: Rule, rule: Rule,
                    what: str = "composite periods") -> sc.CompositeSchedule:
    """An Accepted composite equal, period by period, to the engine's at the reported scheduleStart."""
    check_equal(status_rule, "GetCompositeScheduleResponse status", "Accepted", exchange.result["status"])
    reported = sc.composite_from_wire(exchange.result, OcppVersion.V201)
    accepted = accepted_composites(installed, reported, unit)
    what = f"{what} of EVSE {reported.evse_id} (startPeriod, limit {unit}) from {iso(reported.schedule_start)}"
    if len(accepted) == 1:
        check_equal(rule, what, list(accepted[0]), composite_periods(reported))
    else:
        check_in(rule, what + " (either legal reading)", [list(a) for a in accepted], composite_periods(reported))
    return reported


async def ev_charging_needs(arena: OcppArena, evse_id: int, needs: dict, max_schedule_tuples: int | None,
                            rule: Rule) -> Exchange:
    """The EV on ``evse_id`` states its needs over ISO 15118 (at the station under test, or the harness's,
    which then also negotiates the CSMS's TxProfile with its EV): the NotifyEVChargingNeeds that follows."""
    body: dict[str, Any] = {"evse_id": evse_id, "charging_needs": needs}
    if max_schedule_tuples is not None:
        body["max_schedule_tuples"] = max_schedule_tuples
    mark = arena.mark()
    await arena.act(CS, "ev_charging_needs", **body)
    return await arena.expect("NotifyEVChargingNeeds", sender=CS, after=mark, rule=rule)


def judge_needs_schedule(arena: OcppArena, request: dict, evse_id: int, transaction_id: str, max_schedule_tuples: int,
                         rule: Rule) -> None:
    """The CSMS's SetChargingProfile answering an EV's needs (spec 001 rule 13): a TxProfile for the
    EVSE's transaction, at most 3 schedules of at most ``max_schedule_tuples`` periods, allowed by the rules."""
    wire = request["chargingProfile"]
    check_equal(rule, "SetChargingProfileRequest (evseId, purpose, transactionId)",
                (evse_id, "TxProfile", transaction_id),
                (request["evseId"], wire["chargingProfilePurpose"], wire.get("transactionId")))
    periods = [len(s["chargingSchedulePeriod"]) for s in wire["chargingSchedule"]]
    require(len(periods) <= 3 and max(periods) <= max_schedule_tuples, rule,
            f"the TxProfile has {len(periods)} schedules of {periods} periods",
            expected=f"at most 3 schedules of at most {max_schedule_tuples} periods", actual=periods)
    judge_allowed(oracle_station(arena, {evse_id: transaction_id}), evse_id, wire, rule)


async def judge_within(arena: OcppArena, evse_id: int, bound, what: str, sent_rule: Rule, rule: Rule) -> None:
    """The composite of ``evse_id`` (0: the station's total) for the next hour never exceeds ``bound``
    (startPeriod → the highest limit allowed from then, A): how a station shares a limit among its EVSEs
    is its own choice, so only the bound is judged."""
    exchange = await composite(arena, evse_id, 3600, "A", sent_rule)
    check_equal(rule, f"GetCompositeScheduleResponse status of EVSE {evse_id}", "Accepted", exchange.result["status"])
    reported = sc.composite_from_wire(exchange.result, OcppVersion.V201)
    over = [(p.start_period, p.limit) for p in reported.periods if p.limit > bound(p.start_period)]
    require(not over, rule, f"the composite of EVSE {evse_id} exceeds {what}", expected=what, actual=over)
