"""The pytest plugin: options and their ini pairs, markers, the report header, the fixtures
that open an arena per test, and the mapping of outcomes to verdicts and reports.

Loaded through the ``pytest11`` entry point, so it works in any project, without this
repository's conftest.py.
"""

from __future__ import annotations

import asyncio
import dataclasses
import fnmatch
import importlib
import inspect
import logging
import os
import signal
import threading
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

from harness import __version__, certification, parallel, preflight, report
from harness.actuators import Actuator, ForStation
from harness.actuators import build as build_actuator
from harness.actuators.manual import PytestTerminal
from harness.arena.ocpp import ArenaOptions, OcppArena, Target
from harness.arena.ocpi_sides import HarnessCpoSide, HarnessEmspSide
from harness.arena.ocpp_sides import HarnessCsmsSide, HarnessStationSide
from harness.roles import CPO, CS, CSMS, EMSP, OCPP_ROLES
from harness.clock import VirtualClockLoop, leave_nothing_behind
from harness.errors import ConfigError, HarnessError, NoConnection, NotApplicable, PeerViolation, Refused, clip
from harness.arena.ocpi import OcpiArena, OcpiOptions
from harness.ocpp.answers import judge_error
from harness.ocpp.versions import OcppVersion
from harness.settings import OPTIONS, Settings, resolve
from harness.transport.ws import CallFailed
from harness.suite import USECASES, Given, certification_of, certifications_of, rules_of
from harness.variance import Variance
from harness.verdict import CaseContext, combine, enter_case, leave_case, record_finding
from harness.wire import REDACTOR, WireLog, redact_handler

SETTINGS = pytest.StashKey[Settings]()
CONTEXT = pytest.StashKey[CaseContext]()
WIRELOG = pytest.StashKey[WireLog]()
VERDICT = pytest.StashKey[report.CaseResult]()
VARIANCE = pytest.StashKey[Variance]()   # the test's stand-in's legal variance (--variance)
CLOCK_AT = pytest.StashKey[float]()      # the virtual clock's seconds (every loop's) when the test began
REFUSED_IN_A_ROW = pytest.StashKey[int]()   # the SUT's connections refused since one last got through
# A real SUT refused this many times in a row with no connection between: the setting to fix is in the reason, and
# every test left would break alike, each after waiting for a connection, so the run stops.
REFUSALS_BEFORE_STOP = 3
WIDE_TESTS = pytest.StashKey[frozenset]()   # the csms_wide tests this worker collected: played before the others
RUN_LOCK = pytest.StashKey[Path]()   # a parallel run against a CSMS: the workers' lock file (harness.parallel)
INTERACTIVE = pytest.StashKey[bool]()   # stdin is a terminal: an operator can perform manual actions
SUMMARY = pytest.StashKey[report.Summary]()
# Fixtures that are plumbing, not steps a reader of the Allure report needs (with every "_" fixture;
# "target" is the parametrization, which the test's name and its labels say).
PLUMBING_FIXTURES = ("sut_settings", "profile", "wirelog", "target", "pytestconfig", "event_loop_policy")

MARKERS = {
    "usecase(id, block, severity)": "the use case a test checks (set by harness.suite.case)",
    "checks(*rules, certification)": "the rules a test judges and its certification ids (harness.suite.checks)",
    "sut_roles(*roles)": "the SUT roles a test can be played in: csms, cs, cpo, emsp",
    "protocols(*versions)": "the protocol versions a test applies to",
    "requires(feature)": "the test applies only when the profile declares [features] feature = true",
    "real_clock(why)": "the test waits on another process or thread: it runs on the real clock in the embedded run too",
    "csms_wide(why)": "the test changes what the CSMS under test does for every station: in a run spread over "
                      "xdist workers it runs alone (harness.parallel)",
    "needs(*conditions, variant)": "what the test needs of the profile, checked before any connection "
                                   "(harness.suite.needs); variant: left out of an embedded run whose profile "
                                   "does not give it",
}


# ---------------------------------------------------------------------------- options
def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("evse-conformance", "EV-charging conformance harness")
    for name, (ini, _, help_text) in OPTIONS.items():
        flags = ["--" + name.replace("_", "-")] + (["--ocpp-version"] if name == "protocol" else [])
        group.addoption(*flags, dest=name, default=None, help=help_text + f" [ini: {ini}]")
        parser.addini(ini, help_text, default="")
    group.addoption("--embedded-sut", dest="embedded_sut", default=None,
                    help="for testing the harness itself: module:Class used as the embedded SUT stand-in")
    group.addoption("--plan", dest="plan", action="store_true", default=False,
                    help=PLAN_HELP + " [ini: plan]")
    parser.addini("plan", PLAN_HELP, type="bool", default=False)


PLAN_HELP = ("print the tests the SUT profile will play, per certification profile with their certification ids, "
             "and those not applicable and why; connects to nothing and runs nothing (also written to plan.json)")


def _planning(config: pytest.Config) -> bool:
    return bool(config.getoption("plan", False) or config.getini("plan"))


def pytest_cmdline_main(config: pytest.Config) -> None:
    """--plan runs nothing: it collects in this process, not in xdist workers (which would print nothing). A run
    against a real SUT over xdist workers hands each worker one test at a time unless told otherwise (see
    ``parallel.scheduling``)."""
    if _planning(config) and getattr(config.option, "dist", "no") != "no":
        config.option.dist, config.option.numprocesses = "no", 0
    parallel.scheduling(config)


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_load_initial_conftests(early_config: pytest.Config):
    """Whether stdin is a terminal, read before pytest's capture replaces it."""
    early_config.stash[INTERACTIVE] = os.isatty(0)
    return (yield)


def _operator_at_hand(config: pytest.Config) -> bool:
    """An operator can answer manual actions: stdin is a terminal, and the run is not spread over
    xdist workers (which have no terminal, and would ask at once)."""
    distributed = getattr(config.option, "numprocesses", None) or hasattr(config, "workerinput")
    return config.stash.get(INTERACTIVE, False) and not distributed


def pytest_configure(config: pytest.Config) -> None:
    for marker, text in MARKERS.items():
        config.addinivalue_line("markers", f"{marker}: {text}")
    try:
        settings = resolve(config.getoption, config.getini, interactive=_operator_at_hand(config))
        settings = _spread(config, settings)
    except ConfigError as error:
        raise pytest.UsageError(str(error)) from None
    config.stash[SETTINGS] = settings
    sut = {"name": settings.profile.get("sut.name"), "vendor": settings.profile.get("sut.vendor"),
           "version": settings.profile.get("sut.version"), "role": settings.sut, "protocol": settings.protocol,
           "url": settings.sut_url, "identity": settings.profile.identity}
    workers = parallel.workers_asked(config)
    if settings.sut == "csms" and workers > 1 and settings.profile.identities:   # the stations the workers played
        sut["identities"] = ", ".join(settings.profile.identities[:workers])
    summary = report.Summary(settings.reports_dir, sut=sut, profile=settings.profile.redacted(),
                             variance=settings.variance, variance_skip=settings.variance_skip)
    config.stash[SUMMARY] = summary
    if _planning(config):
        config.stash[report.PLAN] = []
    config.pluginmanager.register(report.RunReports(config, summary, hidden_fixtures=PLUMBING_FIXTURES),
                                  "evse-conformance-reports")


def _spread(config: pytest.Config, settings: Settings) -> Settings:
    """A run against a CSMS spread over xdist workers (-n N): each worker plays a station identity of its own from
    the profile's [station] identities (refused, with the fix, when it lists fewer than the workers), and the
    workers share a lock file that lets a csms_wide test run alone (``harness.parallel``)."""
    workers = parallel.workers_asked(config)
    if settings.sut != "csms":
        return settings
    problem = parallel.identity_problem(settings.profile, workers)
    if problem:
        raise ConfigError(problem)
    if workers > 1 and not hasattr(config, "workerinput"):
        config.stash[RUN_LOCK] = parallel.new_lock()
    elif parallel.lock_path(config) is not None:
        config.stash[RUN_LOCK] = parallel.lock_path(config)
    return dataclasses.replace(settings, profile=parallel.worker_profile(settings.profile, config))


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node: Any) -> None:
    """xdist's controller hands each worker the run's lock file."""
    lock = node.config.stash.get(RUN_LOCK, None)
    if lock is not None:
        node.workerinput[parallel.LOCK] = str(lock)


def pytest_unconfigure(config: pytest.Config) -> None:
    lock = config.stash.get(RUN_LOCK, None)
    if lock is not None and not hasattr(config, "workerinput"):
        parallel.cleaned(lock)


def pytest_plugin_registered(plugin: object, manager: pytest.PytestPluginManager) -> None:
    """Every record pytest's logging plugin writes (live to the terminal, to --log-file, into the
    captured-log sections that the terminal, JUnit and Allure show, caplog.text) passes the redactor."""
    if manager.get_name(plugin) == "logging-plugin":
        for handler in vars(plugin).values():
            if isinstance(handler, logging.Handler):
                redact_handler(handler)


def pytest_report_header(config: pytest.Config) -> list[str]:
    settings = config.stash[SETTINGS]
    if settings.embedded:
        return [f"evse-conformance {__version__}: embedded run, reference implementations in every role "
                f"(profile {settings.profile.source})"]
    actuator = settings.actuator or "none (no terminal for manual: actions are not applicable)"
    return [f"evse-conformance {__version__}: SUT {settings.profile.get('sut.name', '(unnamed)')} as {settings.sut}, "
            f"protocol {settings.protocol}, url {settings.sut_url or '-'}, actuator {actuator}",
            f"profile: {settings.profile.source}"]


@pytest.hookimpl(tryfirst=True)
def pytest_sessionstart(session: pytest.Session) -> None:
    """A real SUT that cannot be reached stops the run at once, in one line (not a broken test each,
    with its traceback). Checked once, by the process that starts the run (not by each xdist worker)."""
    config = session.config
    settings = config.stash.get(SETTINGS, None)
    if settings is None or settings.embedded or config.option.collectonly or hasattr(config, "workerinput") \
            or report.PLAN in config.stash:   # a plan connects to nothing
        return
    problem = preflight.problem(settings)
    if problem:
        raise pytest.UsageError(problem)


# ---------------------------------------------------------------------------- collection
def _marker_args(item_or_func, name: str) -> tuple:
    marker = item_or_func.get_closest_marker(name)
    return marker.args if marker else ()


# The fixtures that hand a test the harness's side of one role, and the role the SUT then plays.
SIDES = {"harness_station": CSMS, "harness_csms": CS, "harness_cpo": EMSP, "harness_emsp": CPO}


# The fixtures that open a test's sides on the event loop of the session: their tests play on that loop too
SESSION_LOOP_FIXTURES = ("ocpp", "ocpp_unlinked", "ocpi")


@pytest.hookimpl(wrapper=True, specname="pytest_generate_tests")   # (pytest finds hooks by their "pytest_" names)
def pytest_generate_tests_on_the_session_loop(metafunc: pytest.Metafunc):
    """A test that plays on an arena runs on the session's event loop, as the arena's fixtures do (one loop for
    the run: what a link kept from one test to the next needs, bench/LEAN.md); marked so before pytest-asyncio
    parametrizes its loop."""
    if inspect.iscoroutinefunction(metafunc.function) and any(f in metafunc.fixturenames for f in SESSION_LOOP_FIXTURES):
        marker = metafunc.definition.get_closest_marker("asyncio")
        scope = marker and (marker.kwargs.get("loop_scope") or marker.kwargs.get("scope"))
        if scope not in (None, "session"):
            raise pytest.UsageError(
                f"{metafunc.definition.nodeid} plays on an arena, whose fixtures run on the session's event loop, "
                f"but is marked asyncio(loop_scope={scope!r}): drop its loop_scope (or make it \"session\")")
        if scope is None:
            session_loop = pytest.mark.asyncio(loop_scope="session")
            session_loop(metafunc.function)         # the items made from the function
            metafunc.definition.add_marker(session_loop)   # pytest-asyncio's parametrization of the loop
        _own_fixtures_on_the_session_loop(metafunc)
    return (yield)


def _own_fixtures_on_the_session_loop(metafunc: pytest.Metafunc) -> None:
    """An async fixture of the test's own that plays on the arena must run on the session's loop too: on a loop of
    its own, what it awaits of the arena would never come, and the silence would be blamed on the SUT."""
    definitions = metafunc._arg2fixturedefs   # pytest's fixture definitions the test resolves (name → overrides)
    default = metafunc.config.getini("asyncio_default_fixture_loop_scope")

    def defined(name: str):   # the definition the test gets (the closest override)
        return definitions.get(name, (None,))[-1]

    def on_the_arena(name: str, seen: frozenset[str] = frozenset()) -> bool:
        fixture = defined(name)
        return name in SESSION_LOOP_FIXTURES or (fixture is not None and name not in seen and any(
            on_the_arena(argument, seen | {name}) for argument in fixture.argnames))

    for name in metafunc.fixturenames:
        fixture = defined(name)
        if fixture is None or name in SESSION_LOOP_FIXTURES or not (
                inspect.iscoroutinefunction(fixture.func) or inspect.isasyncgenfunction(fixture.func)):
            continue
        scope = getattr(fixture.func, "_loop_scope", None) or (default if default != "fixture-scope" else None) \
            or fixture.scope
        if scope != "session" and on_the_arena(name):
            raise pytest.UsageError(
                f"{metafunc.definition.nodeid}: its async fixture {name!r} plays on the arena, which runs on the "
                f"session's event loop, but would run on a loop of its own (loop_scope {scope!r}): declare it "
                f"@pytest_asyncio.fixture(loop_scope=\"session\")")


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "target" not in metafunc.fixturenames:
        return
    settings = metafunc.config.stash[SETTINGS]
    roles = _marker_args(metafunc.definition, "sut_roles")
    protocols = _marker_args(metafunc.definition, "protocols")
    if settings.embedded:
        targets = [Target(r, p) for r in roles for p in protocols]
        metafunc.parametrize("target", targets, ids=[t.id for t in targets])
        return
    target = Target(settings.sut, settings.protocol)   # a test of another role or protocol is deselected
    metafunc.parametrize("target", [target], ids=[target.id])


def _usecase(item: pytest.Item) -> tuple[str | None, dict]:
    marker = item.get_closest_marker("usecase")
    return (marker.args[0], marker.kwargs) if marker else (None, {})


def _target(item: pytest.Item) -> Target | None:
    target = getattr(item, "callspec", None) and item.callspec.params.get("target")
    return target if isinstance(target, Target) else None


def _rules(item: pytest.Item):
    """The rules ``item`` judges the SUT by, in the role it plays."""
    target = _target(item)
    return rules_of(item, target.role if target else None)


def _certification(item: pytest.Item) -> str | None:
    target = _target(item)
    return certification_of(item, target.role, target.protocol) if target else None


def _certifications(item: pytest.Item) -> tuple[str, ...]:
    target = _target(item)
    return certifications_of(item, target.role, target.protocol) if target else ()


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    settings = config.stash[SETTINGS]
    for usecase in USECASES:   # registered by the suite files' case() declarations as they were imported
        config.addinivalue_line("markers", f"{usecase}: use case {usecase}")
    undeclared = [item.nodeid for item in items if _usecase(item)[0] and not rules_of(item)]
    if undeclared:
        raise pytest.UsageError(
            "every use-case test declares the rules it judges; add @checks(<Table>.<rule>, ...) from "
            "harness.suite (or marks=checks(...) on a pytest.param) to: " + ", ".join(undeclared[:10])
            + (f" and {len(undeclared) - 10} more" if len(undeclared) > 10 else ""))
    one_sided = [f"{item.nodeid.partition('[')[0]} asks for {side}, the harness's side when the SUT is a "
                 f"{sut.upper()}, but plays the SUT roles {', '.join(roles)}: mark it "
                 f"@pytest.mark.sut_roles(\"{sut}\"), or use the arena's verbs in a test of both roles"
                 for item in items for side, sut in SIDES.items()
                 if side in getattr(item, "fixturenames", ()) and (roles := _marker_args(item, "sut_roles")) != (sut,)]
    if one_sided:
        raise pytest.UsageError(one_sided[0])
    keys = {item: {k for k in (_usecase(item)[0], *_certifications(item)) if k} for item in items}
    if _refuse_unknown_usecases(config, settings.usecases, keys):   # an xdist worker: its controller refuses
        for item in items:
            item.stash[report.DESELECTED_BECAUSE] = "the run was refused"
        config.hook.pytest_deselected(items=list(items))
        items.clear()
        return
    selected, deselected = [], []
    for item in items:
        usecase, info = _usecase(item)
        if usecase:
            item.add_marker(usecase)
            for mark in _allure_labels(item, usecase, info):
                item.add_marker(mark)
        elsewhere = not settings.embedded and _of_another_run(item, settings)
        if elsewhere:   # a test of 1.6 or OCPI in a 2.0.1 run is not this SUT's, not "not applicable" to it
            item.stash[report.DESELECTED_BECAUSE] = elsewhere
            deselected.append(item)
            continue
        if settings.usecases and not any(fnmatch.fnmatchcase(k, p) for k in keys[item] for p in settings.usecases):
            item.stash[report.DESELECTED_BECAUSE] = f"not selected by --usecase {','.join(settings.usecases)}"
            deselected.append(item)
            continue
        variant_need = settings.embedded and _not_applicable(item, settings.profile, variant_only=True)
        if variant_need:   # played by the self-check that gives the embedded run a profile variant
            item.stash[report.DESELECTED_BECAUSE] = (
                f"left out of the embedded run, whose built-in profile cannot give what they need "
                f"({variant_need}); --sut-profile with a profile that gives it plays them")
            deselected.append(item)
            continue
        missing = [m.args[0] for m in item.iter_markers("requires") if not settings.profile.feature(m.args[0])]
        for feature in missing:
            item.add_marker(pytest.mark.skip(
                reason=f"not applicable: the profile does not declare [features] {feature} = true"))
        selected.append(item)
        _planned(config, item, missing)
    if deselected:
        config.hook.pytest_deselected(items=deselected)
        items[:] = selected
    if RUN_LOCK in config.stash:   # a parallel run against a CSMS: csms_wide, then the longest last time, first
        items[:] = parallel.first(items, settings.reports_dir / "conformance.json",
                                  {"role": settings.sut, "protocol": settings.protocol})
        config.stash[WIDE_TESTS] = frozenset(i.nodeid for i in items if i.get_closest_marker(parallel.MARKER))
    if hasattr(config, "workerinput"):   # the controller collects nothing: it learns the ids from each worker
        config.workeroutput[report.PLANNED] = {k: sorted(v) for k, v in config.stash[SUMMARY].planned.items()}


def _planned(config: pytest.Config, item: pytest.Item, missing: list[str]) -> None:
    """What the run will do with ``item``, decided before any connection: played, or not applicable because the
    profile lacks a feature (``requires``) or what a test needs (``needs``). Kept for --plan and the readiness."""
    usecase, info = _usecase(item)
    target = _target(item)
    if usecase is None or target is None:
        return
    reason = (f"the profile does not declare [features] {missing[0]} = true" if missing
              else _not_applicable(item, config.stash[SETTINGS].profile))
    ids = list(_certifications(item))
    profile = certification.profile_of(usecase, info.get("block"), target.protocol)
    config.stash[SUMMARY].planned.setdefault(profile, set()).update(ids)
    if report.PLAN in config.stash:
        config.stash[report.PLAN].append({
            "nodeid": item.nodeid, "usecase": usecase, "certification_profile": profile, "role": target.role,
            "protocol": target.protocol, "certification": ids, "plays": reason is None, "reason": reason or ""})


def pytest_collection_finish(session: pytest.Session) -> None:
    config = session.config
    if report.PLAN not in config.stash or hasattr(config, "workerinput"):
        return
    plan = config.stash[report.PLAN]
    path = report.write_plan(config.stash[SETTINGS].reports_dir, plan, config.stash[SUMMARY])
    terminal = config.pluginmanager.get_plugin("terminalreporter")
    if terminal is not None:
        for line in report.plan_lines(plan, config.stash[SUMMARY]):
            terminal.write_line(line)
        terminal.write_line(f"plan written to {path}; nothing was connected to, no test ran")


@pytest.hookimpl(tryfirst=True)
def pytest_runtestloop(session: pytest.Session):
    """--plan: the plan is printed; no test runs."""
    if report.PLAN in session.config.stash:
        return True
    return None


def _of_another_run(item: pytest.Item, settings: Settings) -> str | None:
    """Why a test is not played against this SUT at all: its use case has no side for the SUT's role, or
    is not part of the run's protocol."""
    if _target(item) is None:
        return None
    if settings.sut not in _marker_args(item, "sut_roles"):
        return f"their use cases have no side for a SUT playing {settings.sut}"
    if settings.protocol not in _marker_args(item, "protocols"):
        return f"their use cases are not part of {settings.protocol}, this run's protocol"
    return None


def _refuse_unknown_usecases(config: pytest.Config, patterns: tuple[str, ...], keys: dict) -> bool:
    """A ``--usecase`` pattern that matches no collected use case or certification id is a mistake (a typo
    would otherwise run nothing, silently): the run is refused naming the use cases there are, and the
    reports say that this run judged nothing (not the previous run's verdicts left as if current)."""
    known = set().union(*keys.values()) if keys else set()
    unknown = [p for p in patterns if not any(fnmatch.fnmatchcase(k, p) for k in known)]
    if not unknown:
        return False
    usecases = sorted({_usecase(item)[0] for item in keys if _usecase(item)[0]})
    problem = (f"--usecase {','.join(unknown)} matches no use case or certification id of the collected suites; "
               + (f"the use cases are {', '.join(usecases)} (globs such as 'C0*' select several)" if usecases
                  else "no use-case test was collected: give the suites' path, or --pyargs harness.suites"))
    config.stash[SUMMARY].refused = problem
    if hasattr(config, "workerinput"):   # a worker's usage error is an xdist INTERNALERROR
        config.workeroutput[report.REFUSED] = problem
        return True
    raise pytest.UsageError(problem)


def _allure_labels(item: pytest.Item, usecase: str, info: dict) -> list[pytest.MarkDecorator]:
    target = _target(item)
    protocol_label = None
    if target is not None:
        protocol_label = (OcppVersion.parse(target.protocol).label if target.protocol.startswith("ocpp")
                          else "OCPI " + target.protocol.removeprefix("ocpi"))
    return report.label_marks(usecase=usecase, block=info.get("block"), protocol_label=protocol_label,
                              role=target.role if target else None, certification=_certification(item),
                              severity=info.get("severity", "normal"), rules=_rules(item))


# ---------------------------------------------------------------------------- the event loop
def pytest_asyncio_loop_factories(config: pytest.Config, item: pytest.Item):
    """The embedded run (no --sut: every peer in this process) runs on virtual time
    (harness.clock.VirtualClockLoop), so its waits cost no wall time; a real SUT, and a test marked
    ``real_clock`` (it waits on something outside the loop's sight), run on the real clock."""
    if config.stash[SETTINGS].embedded and item.get_closest_marker("real_clock") is None:
        return {"virtual_clock": VirtualClockLoop}
    return {"real_clock": asyncio.new_event_loop}


# ---------------------------------------------------------------------------- fixtures
@pytest.fixture(scope="session")
def sut_settings(pytestconfig: pytest.Config) -> Settings:
    return pytestconfig.stash[SETTINGS]


@pytest.fixture(scope="session")
def profile(sut_settings: Settings):
    return sut_settings.profile


@pytest.fixture
def wirelog(request: pytest.FixtureRequest) -> WireLog:
    """The test's wire log; attached to its Allure result when the test body ends."""
    return request.node.stash.setdefault(WIRELOG, WireLog())


@pytest.fixture(scope="session")
def sut_actuator(pytestconfig: pytest.Config, sut_settings: Settings) -> Actuator | None:
    """What makes the real SUT act (None in the embedded run, and for a real SUT without one)."""
    if sut_settings.embedded or sut_settings.actuator is None:
        return None
    actuator = build_actuator(sut_settings.actuator, base_url=sut_settings.actuator_url, spec=sut_settings.actuator_class,
                          terminal=PytestTerminal(pytestconfig), who=_operator_sees(sut_settings),
                          timeout=sut_settings.profile.timeouts.operator,
                          tokens={token.id: token for token in sut_settings.profile.tokens.values()})
    if sut_settings.sut == "csms" and sut_settings.profile.identities:   # a CSMS serving several of our stations
        return ForStation(actuator, sut_settings.profile.identity)
    return actuator


def _operator_sees(settings: Settings) -> str:
    """The SUT as the operator of a manual step knows it."""
    identity = settings.profile.get("station.identity")
    return {"csms": f"the CSMS under test (for station {identity})",
            "cs": f"the charging station under test {identity}"}.get(
        settings.sut, f"the {settings.sut} platform under test {settings.profile.get('sut.name', '')}".rstrip())


def _arena_options(settings: Settings, actuator: Actuator | None, node: pytest.Item) -> ArenaOptions:
    embedded_cls = None
    if settings.embedded_sut:
        module, _, name = settings.embedded_sut.partition(":")
        embedded_cls = getattr(importlib.import_module(module), name)
    variance = None
    if settings.variance is not None:
        variance = node.stash[VARIANCE] = Variance(settings.variance, node.nodeid, without=settings.variance_skip)
    shared = RUN_LOCK in node.config.stash and node.get_closest_marker(parallel.MARKER) is None
    return ArenaOptions(sut_url=settings.sut_url if settings.sut == "csms" else None, listen=settings.listen,
                        actuator=actuator, embedded_cls=embedded_cls, embedded=settings.embedded, variance=variance,
                        shared=shared)


async def _arena(request: pytest.FixtureRequest, target: Target, settings: Settings, actuator: Actuator | None,
                 wirelog: WireLog, connect: bool):
    if target.role not in OCPP_ROLES:
        raise HarnessError(f"the ocpp fixture serves OCPP roles, not {target.role}")
    arena = OcppArena(target, settings.profile, wirelog, _arena_options(settings, actuator, request.node))
    try:
        await arena.open(connect=connect)
        yield arena
    finally:
        await _closed(arena)


async def _closed(arena: OcppArena | OcpiArena) -> None:
    """The test's arena closed (its undo run, both sides stopped), then whatever the test left running on the
    session's loop cancelled."""
    try:
        await arena.close()
    finally:
        await leave_nothing_behind()


@pytest_asyncio.fixture(loop_scope="session")
async def ocpp(request: pytest.FixtureRequest, target: Target, sut_settings: Settings,
               sut_actuator: Actuator | None, wirelog: WireLog):
    """An arena whose link is up: the station is connected and its boot was accepted."""
    async for arena in _arena(request, target, sut_settings, sut_actuator, wirelog, connect=True):
        yield arena


@pytest_asyncio.fixture(loop_scope="session")
async def ocpp_unlinked(request: pytest.FixtureRequest, target: Target, sut_settings: Settings,
                        sut_actuator: Actuator | None, wirelog: WireLog):
    """An arena with both sides ready but no connection yet (for connection tests)."""
    async for arena in _arena(request, target, sut_settings, sut_actuator, wirelog, connect=False):
        yield arena


def _played_on(request: pytest.FixtureRequest, *arenas: str):
    """The arena the test plays on: the first of ``arenas`` it asks for (else the first)."""
    return request.getfixturevalue(next((a for a in arenas if a in request.fixturenames), arenas[0]))


@pytest.fixture
def harness_station(request: pytest.FixtureRequest) -> HarnessStationSide:
    """The harness's station facing the CSMS under test (``harness.arena.ocpp_sides``); for tests of a CSMS."""
    return _played_on(request, "ocpp", "ocpp_unlinked").harness_station


@pytest.fixture
def harness_csms(request: pytest.FixtureRequest) -> HarnessCsmsSide:
    """The harness's CSMS facing the station under test (``harness.arena.ocpp_sides``); for tests of a station."""
    return _played_on(request, "ocpp", "ocpp_unlinked").harness_csms


@pytest.fixture
def harness_cpo(ocpi: OcpiArena) -> HarnessCpoSide:
    """The harness's CPO facing the eMSP under test (``harness.arena.ocpi_sides``); for tests of an eMSP."""
    return ocpi.harness_cpo


@pytest.fixture
def harness_emsp(ocpi: OcpiArena) -> HarnessEmspSide:
    """The harness's eMSP facing the CPO under test (``harness.arena.ocpi_sides``); for tests of a CPO."""
    return ocpi.harness_emsp


@pytest_asyncio.fixture(loop_scope="session")
async def ocpi(request: pytest.FixtureRequest, target: Target, sut_settings: Settings,
               sut_actuator: Actuator | None, wirelog: WireLog):
    """An OCPI arena: the harness's peer serving, the SUT (or its stand-in) reachable, nothing
    registered yet. In the embedded run it is in-process; ``indirect`` param "sockets" serves
    both sides on real ports instead, "https" on real ports over TLS (the run's PKI)."""
    options = _arena_options(sut_settings, sut_actuator, request.node)
    arena = OcpiArena(target, sut_settings.profile, wirelog, OcpiOptions(
        sut_url=sut_settings.sut_url if sut_settings.sut in ("cpo", "emsp") else None, listen=options.listen,
        public_url=sut_settings.profile.get("ocpi.public_url"), actuator=options.actuator,
        embedded_cls=options.embedded_cls, variance=options.variance,
        sockets=getattr(request, "param", None) == "sockets",
        https=getattr(request, "param", None) == "https"))
    try:
        await arena.open()
        yield arena
    finally:
        await _closed(arena)


@pytest.fixture(autouse=True)
def _conformance_case(request: pytest.FixtureRequest):
    item = request.node
    usecase, _ = _usecase(item)
    target = _target(item)
    role = target.role if target else None
    context = CaseContext(usecase=usecase, sut_role=role, protocol=target.protocol if target else None)
    item.stash[CONTEXT] = context
    token = enter_case(context)
    yield context
    leave_case(token)


# ---------------------------------------------------------------------------- the time cap
class TestTimeLimit(HarnessError):
    """The test ran past --max-test-time: ended, broken, so that the run goes on."""


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None):
    """--max-test-time: a real-time alarm over the test's set-up, body and tear-down; at it, what the test was
    waiting on is interrupted with TestTimeLimit (broken), and again after as long if its tear-down hangs too."""
    lock = item.config.stash.get(RUN_LOCK, None)
    if lock is None:
        return (yield from _timed(item))
    wide = item.get_closest_marker(parallel.MARKER) is not None
    if not wide:
        parallel.after_the_wide_ones(lock, item.config.stash[WIDE_TESTS])
    try:
        with parallel.held(lock, exclusive=wide):
            return (yield from _timed(item))
    finally:
        if wide:
            parallel.played(lock, item.nodeid)


def _timed(item: pytest.Item):
    item.stash[CLOCK_AT] = VirtualClockLoop.elapsed()
    limit = item.config.stash[SETTINGS].max_test_time
    if limit is None or not hasattr(signal, "setitimer") or threading.current_thread() is not threading.main_thread():
        try:
            return (yield)
        finally:
            _release(item)

    def expired(number, frame):
        signal.setitimer(signal.ITIMER_REAL, limit)
        raise TestTimeLimit(f"the test ran past --max-test-time {limit:g} s and was ended; raise the limit if the "
                            f"SUT needs longer, else its wire log shows what the test waited for")

    previous = signal.signal(signal.SIGALRM, expired)
    signal.setitimer(signal.ITIMER_REAL, limit)
    try:
        return (yield)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        _release(item)


def _release(item: pytest.Item) -> None:
    """A finished test's wire log (its connections, their loop, every frame parsed), case context, variance and
    verdict are its reports' now: pytest keeps the item to the session's end, so they go, or the run holds every
    test's (tests/selfcheck/test_flat_memory.py)."""
    for key in (WIRELOG, CONTEXT, VARIANCE, VERDICT, CLOCK_AT):
        if key in item.stash:
            del item.stash[key]


# ---------------------------------------------------------------------------- verdicts
def _not_applicable(item: pytest.Item, profile, *, variant_only: bool = False) -> str | None:
    """Why ``item`` does not apply to ``profile`` (its ``needs``; only the variant ones when ``variant_only``)."""
    target = _target(item)
    if target is None:
        return None
    given = Given(profile, target.protocol, {k: v for k, v in item.callspec.params.items() if k != "target"})
    for marker in item.iter_markers("needs"):
        if variant_only and not marker.kwargs.get("variant"):
            continue
        for condition in marker.args:
            try:
                condition(given)
            except NotApplicable as reason:
                return str(reason)
    return None


@pytest.hookimpl(wrapper=True)
def pytest_runtest_setup(item: pytest.Item):
    """What a test needs of the profile is checked before its fixtures open anything (``suite.needs``)."""
    reason = _not_applicable(item, item.config.stash[SETTINGS].profile)
    if reason is not None:
        pytest.skip(reason)
    try:
        return (yield)
    except NotApplicable as reason:
        pytest.skip(str(reason))


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item):
    """After the test body: every violation the connections saw in the background decides too, in one
    failure with the test's own first (``verdict.combine``); a failed handler of ours makes it broken."""
    log = item.stash.get(WIRELOG, None)
    report.describe(getattr(getattr(item, "obj", None), "__doc__", None), _rules(item))
    own: BaseException | None = None
    try:
        result = yield
    except (KeyboardInterrupt, pytest.exit.Exception):
        raise
    except BaseException as error:   # the test's own outcome: failed, broken, skipped or not applicable
        own = _judged(item, error) if isinstance(error, CallFailed) else error
    finally:
        if log is not None:
            report.attach_wirelog(log)
    outcome = own if log is None else _with_background(item, log, own)
    if isinstance(outcome, NotApplicable):
        pytest.skip(str(outcome))
    if outcome is not None:
        raise outcome
    return result


def _judged(item: pytest.Item, failed: CallFailed) -> BaseException:
    """The SUT answered a CALL a verb of the harness's side needed with a CALLERROR: the verdict on it, as
    ``Exchange.result`` gives it (not applicable when the message is one the SUT may leave out)."""
    context = item.stash.get(CONTEXT, None)
    version = next((v for v in OcppVersion if context is not None and v.value == context.protocol), None)
    token = enter_case(context) if context else None
    try:
        judge_error(failed.call.action, version, failed.error, incoming=False)
    except BaseException as verdict:
        return verdict
    finally:
        if token:
            leave_case(token)


def _with_background(item: pytest.Item, log: WireLog, own: BaseException | None) -> BaseException | None:
    violations = [v for c in log.connections for v in c.violations]
    context = item.stash.get(CONTEXT, None)
    token = enter_case(context) if context else None
    try:
        for violation in violations:
            if not violation.strict:
                record_finding(violation.rule, str(violation))
    finally:
        if token:
            leave_case(token)
    outcome = combine(own, [v for v in violations if v.strict], _rules(item),
                      dropped=sum(c.violations.dropped for c in log.connections),
                      usecase=context.usecase if context else None)
    errors = [e for c in log.connections for e in c.harness_errors]
    if errors:
        seen = f"; the SUT's violations meanwhile: {outcome}" if isinstance(outcome, PeerViolation) else ""
        raise HarnessError(f"the harness's own handler failed: {errors[0]!r}{seen}") from errors[0]
    return outcome


def _verdict(report_: pytest.TestReport, call: pytest.CallInfo) -> str:
    if report_.skipped:
        return "skipped"
    if report_.passed:
        return "passed"
    error = call.excinfo.value if call.excinfo is not None else None
    if report_.when == "call" and isinstance(error, AssertionError):
        return "failed"
    if report_.when == "setup" and isinstance(error, PeerViolation):   # the SUT broke a rule the arena judges
        return "failed"
    return "broken"


def _reason(rep: pytest.TestReport, call: pytest.CallInfo) -> str:
    if rep.skipped and isinstance(rep.longrepr, tuple):
        return rep.longrepr[2].removeprefix("Skipped: ").removeprefix("not applicable: ")   # the verdict says it
    if rep.passed:
        return ""
    return clip(report.plain_reason(call.excinfo.value) if call.excinfo else str(rep.longrepr), 2000)


def _show_reason(item: pytest.Item, rep: pytest.TestReport, call: pytest.CallInfo, reason: str) -> None:
    """The reason in words is the failure's message (JUnit's message, the short summary line). A rule
    broken outside the test's own code (checked after the body, on what the connections saw) has no
    traceback worth reading, only the plugin's frame: the reason is the whole report then."""
    excinfo = call.excinfo
    if excinfo is not None and isinstance(excinfo.value, (NoConnection, TestTimeLimit)):
        rep.longrepr = reason   # what happened and the fix: the frames would be the library's or the hang's
    elif excinfo is not None and isinstance(excinfo.value, PeerViolation) and not any(
            Path(str(entry.path)) == item.path for entry in excinfo.traceback):
        rep.longrepr = reason
    elif getattr(rep.longrepr, "reprcrash", None) is not None:
        rep.longrepr.reprcrash.message = reason


def _stop_when_refused(item: pytest.Item, call: pytest.CallInfo) -> None:
    """A real SUT refused ``REFUSALS_BEFORE_STOP`` times in a row (wrong password, unknown identity) stops the
    run after this test, in one line with the fix; a set-up that got through starts the count again."""
    config = item.config
    if config.stash[SETTINGS].embedded:
        return
    refused = call.excinfo.value if call.excinfo is not None else None
    if not isinstance(refused, Refused):
        config.stash[REFUSED_IN_A_ROW] = 0
        return
    count = config.stash[REFUSED_IN_A_ROW] = config.stash.get(REFUSED_IN_A_ROW, 0) + refused.refusals
    if count >= REFUSALS_BEFORE_STOP:
        item.session.shouldstop = (f"the run stops: {count} connections refused in a row, and every test left "
                                   f"would break alike; {str(refused).removeprefix('prerequisite failed: ')}")


@pytest.hookimpl(tryfirst=True)
def pytest_report_teststatus(report: pytest.TestReport, config: pytest.Config):
    """pytest's terminal counts what the verdicts say: a broken test (the harness could not judge) is an
    error in pytest's terms, wherever it broke, and a rule the SUT broke while a fixture set the test up is
    failed, not an error."""
    verdict = getattr(report, "verdict", None)
    if not report.failed or verdict is None:
        return None
    if verdict == "broken":
        return "error", "E", "BROKEN"
    return "failed", "F", "FAILED"


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo):
    rep = yield
    reason = _reason(rep, call)
    if reason and not rep.skipped:
        _show_reason(item, rep, call, reason)
    if rep.longrepr is not None and not rep.skipped:
        text = str(rep.longrepr)
        if REDACTOR.redact(text) != text:
            rep.longrepr = REDACTOR.redact(text)
    rep.sections = [(title, REDACTOR.redact(text)) for title, text in rep.sections]   # captured stdout/stderr too
    log = item.stash.get(WIRELOG, None)
    if rep.failed and log is not None and rep.when == "call":
        rep.sections.append(("wire log (last 40 frames)", log.render(last=40, width=2000)))
    if rep.when == "setup" and not rep.skipped:
        _stop_when_refused(item, call)
    verdict = _verdict(rep, call)
    rep.verdict = verdict   # read by pytest_report_teststatus, on the xdist controller too
    previous = item.stash.get(VERDICT, None)
    if previous is None or (previous.verdict == "passed" and verdict != "passed"):
        usecase, info = _usecase(item)
        target = _target(item)
        context = item.stash.get(CONTEXT, None)
        item.stash[VERDICT] = report.CaseResult(   # plain values only: xdist sends it to the controller
            nodeid=item.nodeid, usecase=usecase, certification=_certification(item),
            role=str(target.role) if target else None, protocol=target.protocol if target else None,
            rules=[r.id for r in _rules(item)], verdict=verdict, reason=reason,
            findings=[str(f) for f in context.findings] if context else [],
            block=info.get("block"), title=report.title_of(getattr(item, "obj", None)),
            certification_profile=certification.profile_of(usecase, info.get("block"),
                                                           target.protocol if target else None) if usecase else None,
            usecase_title=report.usecase_title(getattr(getattr(item, "module", None), "__doc__", None)))
    result = item.stash[VERDICT]
    context = item.stash.get(CONTEXT, None)
    if context is not None:
        result.findings = [str(f) for f in context.findings]
    result.duration = round(result.duration + rep.duration, 3)
    variance = item.stash.get(VARIANCE, None)
    if variance is not None:
        result.freedoms = dict(sorted(variance.taken.items()))
    if rep.when == "teardown":
        if item.config.stash[SETTINGS].embedded and CLOCK_AT in item.stash:
            result.clock_s = round(VirtualClockLoop.elapsed() - item.stash[CLOCK_AT], 3)
        rep.user_properties.extend(result.junit_properties())
        report.show_findings(result.findings)
        if result.usecase is not None:
            # collected by report.RunReports, on the xdist controller too; a shallow copy (no dataclass walk):
            # every value is plain, and what reads it replaces its members rather than change them
            rep.conformance = dict(vars(result))
    return rep
