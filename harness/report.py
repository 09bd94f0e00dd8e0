"""Reports: what the people who read a run see.

- **Allure** (allure-pytest, ``--alluredir``): labels per test, set as markers at collection so a
  test skipped before its set-up keeps them; the wire log; findings on passed tests (status
  details, a ``finding`` label, a "passed with findings" category); the SUT, the redacted profile
  and the harness version as the report's environment; no plumbing fixtures among the steps.
- **JUnit** (pytest's ``--junitxml``): per test case the properties use case, certification id,
  rules, verdict and findings; a broken test is an ``<error>``, a failed one a ``<failure>`` (a failure in
  its setup included).
- **The conformance summary** written at the end of every run, interrupted or not:
  ``conformance.json``, ``conformance.md`` and a self-contained ``conformance.html`` to hand to a
  customer: what to fix first, then the use cases, each folding its tests.
"""

from __future__ import annotations

import functools
import inspect
import json
import os
import platform
import re
import signal
import sys
import threading
import time
import xml.etree.ElementTree as ET
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import allure
import allure_commons
import pytest
from allure_commons.model2 import Label, Status, StatusDetails

from harness import __version__, certification
from harness.errors import HarnessError, NotApplicable, PeerViolation
from harness.rules import Rule
from harness.transport.ws import CallFailed
from harness.wire import REDACTOR, WireLog

if TYPE_CHECKING:
    import jinja2

VERDICTS = ("failed", "broken", "passed", "skipped")   # worst first: a use case takes its worst test's verdict
VERDICT_WORDS = {"passed": "passed", "failed": "failed", "broken": "broken", "skipped": "not applicable"}
ROLE_WORDS = {"csms": "CSMS", "cs": "charging station", "cpo": "OCPI CPO platform", "emsp": "OCPI eMSP platform"}
FINDING_LABEL = "finding"
REFUSED = "evse_conformance_refused"   # an xdist worker's refusal of the run, in its workeroutput
DESELECTED = "evse_conformance_deselected"   # and why it deselected tests (every worker collects them all)
DESELECTED_BECAUSE = pytest.StashKey[str]()   # why the plugin deselected a test (pytest's -k, -m say nothing)
PLAN = pytest.StashKey[list]()   # --plan: what the run would do with each selected test (plugin._planned)
PLANNED = "evse_conformance_planned"   # an xdist worker's certification ids per profile, in its workeroutput


@dataclass
class CaseResult:
    nodeid: str
    usecase: str | None
    certification: str | None
    role: str | None
    protocol: str | None
    rules: list[str]                  # the rules the test judges (its checks() declaration)
    verdict: str                      # passed | failed | broken | skipped
    reason: str = ""
    findings: list[str] = field(default_factory=list)
    duration: float = 0.0
    block: str | None = None
    title: str = ""                   # what the test checks: its docstring's first sentence
    usecase_title: str = ""           # what the use case is: its suite file's docstring's first clause
    freedoms: dict[str, int] = field(default_factory=dict)   # legal variance the stand-in took (harness.variance)
    certification_profile: str | None = None   # "OCPP 2.x · Core" (harness.certification)
    # the embedded run: seconds the test took on the virtual clock, its waits against a prompt SUT (what a parallel
    # run against a real SUT orders its first run by: harness.parallel)
    clock_s: float | None = None

    def junit_properties(self) -> list[tuple[str, str]]:
        """The facts CI keeps per test case (``<property>`` elements of the JUnit XML)."""
        facts = [("verdict", self.verdict), ("usecase", self.usecase), ("certification_id", self.certification)]
        facts += [("rule", rule) for rule in self.rules] + [(FINDING_LABEL, text) for text in self.findings]
        return [(name, value) for name, value in facts if value]


@functools.lru_cache(maxsize=4096)
def title_of(function: Any) -> str:
    """A test's title for a reader: the first sentence of its docstring, else its name in words."""
    doc = inspect.getdoc(function) if function is not None else None
    if doc:   # its first sentence, which may end on the docstring's second line or go on after the first
        paragraph = " ".join(doc.split("\n\n")[0].split())
        return re.split(r"(?<=\.) (?=[A-Z])", paragraph, maxsplit=1)[0]
    return getattr(function, "__name__", "").removeprefix("test_").replace("_", " ")


@functools.lru_cache(maxsize=1024)
def usecase_title(docstring: str | None) -> str:
    """A use case's title for a reader: its suite file's docstring, after the id, to the end of its first
    clause ("C01 — EV driver authorization using RFID (and the order ...)." → "EV driver authorization using RFID")."""
    if not docstring:
        return ""
    first = " ".join(inspect.cleandoc(docstring).split("\n\n")[0].split())
    _, dash, rest = first.partition(" — ")
    title = re.split(r"[.:;] | \(|\.$", rest if dash else first, maxsplit=1)[0].strip(" ,")
    return title[:1].upper() + title[1:]


def plain_reason(error: BaseException) -> str:
    """Why a test did not pass, in words: the harness's own errors already say it (a rule with expected
    vs actual, what the harness could not do, why the test does not apply); anything else is a
    defect of the harness, whose traceback stays in the terminal and the JUnit text."""
    text = str(error).strip()
    if isinstance(error, (PeerViolation, HarnessError, NotApplicable, AssertionError, OSError)):
        return text
    if isinstance(error, CallFailed):   # the SUT's CALLERROR left the test nothing to go on with
        return f"the SUT {text}; the test cannot go on without an answer"
    if isinstance(error, TimeoutError):
        return "the harness timed out" + (f": {text}" if text else "")
    return "the harness stopped on an unexpected error" + (f": {text}" if text else "") + \
        " (the traceback is in the test log)"


# ---------------------------------------------------------------------------- Allure
def label_marks(*, usecase: str | None, block: str | None, protocol_label: str | None, role: str | None,
                certification: str | None, severity: str, rules: Sequence[Rule] = ()) -> list[pytest.MarkDecorator]:
    """Allure labels as allure-pytest's ``allure_label`` markers: epic = protocol, feature = block,
    story = use case (design 'Reports'), the SUT role, the certification id, the severity, one ``rule``
    label per rule the test judges. Markers, unlike ``allure.dynamic``, need no fixture to run, so a
    test skipped at collection or set-up keeps its place in the tree."""
    level = allure.severity_level.__members__.get(severity.upper(), allure.severity_level.NORMAL).value
    labels = [("epic", protocol_label), ("feature", block), ("story", usecase), ("sut_role", role),
              ("tag", role and f"SUT={role}"),
              *((label, tc) for tc in (certification or "").split(", ") if tc for label in ("certification_id", "tag")),
              ("severity", level), *(("rule", rule.id) for rule in rules)]
    return [pytest.mark.allure_label(value, label_type=name) for name, value in labels if value]


def describe(docstring: str | None, rules: Sequence[Rule]) -> None:
    """The test's description in Allure: its docstring, then the rules it checks with their texts.
    (Called once the test body starts: allure-pytest sets the docstring as the description after setup.)"""
    parts = [inspect.cleandoc(docstring)] if docstring else []
    if rules:
        parts.append("Rules checked:\n\n" + "\n".join(f"- {rule.describe()}" for rule in rules))
    if parts:
        allure.dynamic.description("\n\n".join(parts))


def attach_wirelog(wirelog: WireLog) -> None:
    """The wire log as the test's Allure attachment; rendered (and redacted) only when a report is
    being written (``--alluredir``): otherwise nothing listens, and rendering was ~5 % of a run's CPU."""
    if not allure_commons.plugin_manager.hook.attach_data.get_hookimpls():
        return
    allure.attach(wirelog.render() or "(nothing was exchanged)", name="wire log",
                  attachment_type=allure.attachment_type.TEXT)


def show_findings(findings: Iterable[str]) -> None:
    """One ``finding`` label per finding of the running test (``AllureTidy`` turns them into the
    status details of a passed test)."""
    for text in findings:
        allure.dynamic.label(FINDING_LABEL, text)


CATEGORIES = [   # Allure's categories.json: the first that matches a test is its category
    {"name": "Passed with findings (a SHOULD the SUT did not meet)", "matchedStatuses": ["passed"],
     "messageRegex": r"Passed with \d+ findings?:[\s\S]*"},
    {"name": "Failed: the SUT broke a MUST rule", "matchedStatuses": ["failed"]},
    {"name": "Broken: the harness could not judge", "matchedStatuses": ["broken"]},
    {"name": "Not applicable to this SUT", "matchedStatuses": ["skipped"]},
]


_CLASS_PATH = re.compile(r"^(?:[A-Za-z_]\w*\.)+[A-Za-z_]\w*: ")   # "harness.verdict.ConformanceFailure: "


def _internal_parameter(name: str) -> bool:
    """A parameter of the plumbing, not of the test: pytest-asyncio's loop factory (``_asyncio_loop_factory``,
    shown with a function's address) and the target, which the test's name, its epic and its role label say."""
    return name.startswith("_") or name == "target"


class AllureTidy:
    """allure-commons hooks that shape what allure-pytest writes, before its file logger does.

    allure-pytest shows every fixture as a set-up step (and pytest's internal finalisers, ``<lambda>``,
    as tear-down steps); a reader needs the arena's set-up, not the plugin's plumbing. A passed test
    gets no status details from allure-pytest; one with findings gets them here, from its labels."""

    def __init__(self, hidden_fixtures: Iterable[str]):
        self.hidden = set(hidden_fixtures)

    def _shown(self, fixture: str) -> bool:
        return fixture not in self.hidden and not fixture.startswith("_")

    @allure_commons.hookimpl(tryfirst=True)
    def report_container(self, container) -> None:
        container.befores = [before for before in container.befores if self._shown(before.name)]
        afters, names = [], set()
        for after in container.afters:
            fixture, named_by_allure, finaliser = after.name.partition("::")
            if named_by_allure:   # "fixture::finaliser" (not yet tidied)
                if not self._shown(fixture) or finaliser == "<lambda>":
                    continue
                after.name = f"{fixture} (tear-down)"
            if after.name not in names:
                names.add(after.name)
                afters.append(after)
        container.afters = afters

    @allure_commons.hookimpl(tryfirst=True)
    def report_result(self, result) -> None:
        if result.statusDetails and result.statusDetails.message:   # allure-pytest writes exconly(): no class path
            result.statusDetails.message = _CLASS_PATH.sub("", result.statusDetails.message)
        result.parameters = [p for p in result.parameters if not _internal_parameter(p.name)]
        findings = [label.value for label in result.labels if label.name == FINDING_LABEL]
        if findings and result.status == Status.PASSED and not result.statusDetails:
            # in the message, which Allure shows as it is (a trace waits behind "Show more")
            result.statusDetails = StatusDetails(message=f"Passed with {_count(len(findings), 'finding')}:\n"
                                                         + "\n".join(findings))
            result.labels.append(Label(name="tag", value="with findings"))


def _escape_property(text: str, *, key: bool = False) -> str:
    """A key or value of a Java properties file (ISO 8859-1: other characters as \\uXXXX escapes)."""
    text = text.replace("\\", "\\\\").replace("\n", "\\n")
    if key:
        text = text.replace("=", "\\=").replace(":", "\\:").replace(" ", "\\ ")
    return "".join(ch if 32 <= ord(ch) < 127 else f"\\u{ord(ch):04x}" for ch in text)


def write_allure_extras(directory: Path, summary: "Summary") -> None:
    """``environment.properties`` (the SUT, the harness version, the redacted profile: Allure 2 and 3
    read it) and ``categories.json`` (Allure 2; Allure 3 takes the same categories from allurerc.mjs)
    in the Allure results directory."""
    directory.mkdir(parents=True, exist_ok=True)
    environment = {f"SUT {key}": value for key, value in summary.sut.items() if value}
    environment["harness"] = f"evse-conformance {__version__}"
    environment.update({f"profile {key}": value for key, value in flatten(summary.profile)})
    lines = [f"{_escape_property(k, key=True)}={_escape_property(REDACTOR.redact(str(v)))}"
             for k, v in environment.items()]
    (directory / "environment.properties").write_text("\n".join(lines) + "\n", encoding="ascii")
    (directory / "categories.json").write_text(json.dumps(CATEGORIES, indent=2), encoding="utf-8")


def flatten(data: dict[str, Any], prefix: str = "") -> list[tuple[str, str]]:
    """A profile as ``section.key`` → readable value rows (no JSON punctuation)."""
    rows = []
    for key, value in data.items():
        if isinstance(value, dict) and not prefix:   # a section: a row per key
            rows += flatten(value, f"{key}.")
        else:
            rows.append((prefix + key, _readable(value)))
    return rows


def _readable(value: Any, nested: bool = False) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, dict):
        text = ", ".join(f"{k} {_readable(v, True)}" for k, v in value.items())
        return f"({text})" if nested else text
    if isinstance(value, list):
        return "; ".join(_readable(v, True) for v in value)
    return str(value)


# ---------------------------------------------------------------------------- JUnit
def junit_verdicts(path: Path, *, interrupted: dict[str, Any] | None = None) -> None:
    """JUnit's tags follow the verdict, which travels as the test case's property: pytest writes every exception
    in a test's body as a ``<failure>`` and one in its setup as an ``<error>``, but a broken verdict (the harness
    could not judge) is an ``<error>`` for CI and a failed one (the SUT broke a rule, in the body or while a
    fixture set the test up) a ``<failure>`` with the reason as its message. An ``interrupted`` run (the
    summary's document) says so in each suite's properties: by what, the tests that were running, how many did
    not run."""
    tree = ET.parse(path)
    for suite in tree.getroot().iter("testsuite"):
        if interrupted is not None:
            properties = suite.find("properties")
            if properties is None:
                properties = ET.Element("properties")
                suite.insert(0, properties)
            for name, value in (("interrupted", "true"), ("interrupted_by", interrupted["interrupted_by"] or ""),
                                ("running_when_interrupted", " ".join(interrupted["running_when_interrupted"])),
                                ("not_run", str(interrupted["not_run"]))):
                ET.SubElement(properties, "property", name=name, value=value)
        moved = 0   # failures made errors, less errors made failures
        for case in suite.iter("testcase"):
            verdict = next((p.get("value") for p in case.iter("property") if p.get("name") == "verdict"), None)
            for failure in case.findall("failure") if verdict == "broken" else ():
                failure.tag = "error"
                moved += 1
            for error in case.findall("error") if verdict == "broken" else ():   # the reason, as a failure's reads
                error.set("message", _without_phase(error.get("message", "")))
            setup_error = case.find("error") if verdict == "failed" and case.find("failure") is None else None
            if setup_error is not None:
                setup_error.tag = "failure"
                setup_error.set("message", _without_phase(setup_error.get("message", "")))
                moved -= 1
        if moved:
            suite.set("failures", str(int(suite.get("failures", "0")) - moved))
            suite.set("errors", str(int(suite.get("errors", "0")) + moved))
    partial = path.with_name(f".{path.name}.partial")   # whole or not at all, like the summary
    tree.write(partial, encoding="utf-8", xml_declaration=True)
    os.replace(partial, path)


def _without_phase(message: str) -> str:
    """The reason of pytest's setup-error message (``failed on setup with "<reason>"``), as a failure's reads."""
    reason = message.removeprefix('failed on setup with "')
    return reason[:-1] if reason != message and reason.endswith('"') else reason


# ---------------------------------------------------------------------------- the conformance summary
@dataclass
class UseCaseRollup:
    """One use case as a customer reads it: its worst verdict, its tests, the rules they checked."""
    usecase: str
    title: str
    block: str | None
    verdict: str
    tests: int
    counts: dict[str, int]
    rules: list[str]
    findings: list[str]


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}{'' if number == 1 else 's'}"


def _counts(results: Iterable[CaseResult]) -> dict[str, int]:
    counts = {"passed": 0, "failed": 0, "broken": 0, "skipped": 0}
    for result in results:
        counts[result.verdict] += 1
    return counts


@functools.cache
def templates() -> jinja2.Environment:
    """The reports' templates, loaded by the process that writes the reports (an xdist run's controller: its workers
    write none and import no jinja2, ~25 ms of CPU a worker)."""
    import jinja2
    loaded = jinja2.Environment(
        loader=jinja2.PackageLoader("harness", "templates"), autoescape=jinja2.select_autoescape(["html"]),
        trim_blocks=True, lstrip_blocks=True, undefined=jinja2.StrictUndefined, keep_trailing_newline=True)
    loaded.filters["role"] = lambda role: ROLE_WORDS.get(role, role)
    loaded.filters["protocol"] = lambda protocol: protocol[:4].upper() + " " + protocol[4:]   # ocpp2.0.1 → OCPP 2.0.1
    loaded.filters["verdict"] = lambda verdict: VERDICT_WORDS.get(verdict, verdict)
    loaded.filters["cell"] = lambda text: "; ".join(  # a Markdown table cell: one line, no pipes
        " ".join(line.split()) for line in str(text).splitlines() if line.strip()).replace("|", "/")
    return loaded


def _first_screen(document: dict[str, Any]) -> dict[str, Any]:
    """What the reader of a report must see first: the tests to fix (failed, then broken), the findings of
    passed tests, and the use cases worst first (a passed one with findings before a clean one)."""
    results, rank = document["results"], {verdict: n for n, verdict in enumerate(VERDICTS)}
    return {
        "to_fix": [r for verdict in ("failed", "broken") for r in results if r["verdict"] == verdict],
        "passed_with_findings": [r for r in results if r["verdict"] == "passed" and r["findings"]],
        "usecases_worst_first": sorted(document["usecases"], key=lambda u: (
            rank[u["verdict"]] + (0.5 if u["verdict"] == "passed" and not u["findings"] else 0), u["usecase"])),
        "results_by_usecase": {u["usecase"]: [r for r in results if (r["usecase"] or "(no use case)") == u["usecase"]]
                               for u in document["usecases"]},
    }


def plan_lines(plan: list[dict[str, Any]], summary: "Summary") -> list[str]:
    """The plan as the terminal shows it: per certification profile, the tests to play with their ids, then
    those not applicable with the reason; then what was left out of the run and why."""
    lines = [f"certification plan: {summary.sut.get('name') or 'embedded reference implementations'}"
             + (f" as {summary.sut['role']}, {summary.sut['protocol']}" if summary.sut.get("role") else "")]
    for profile in certification.ordered(entry["certification_profile"] for entry in plan):
        entries = [e for e in plan if e["certification_profile"] == profile]
        plays = [e for e in entries if e["plays"]]
        ids = sorted({tc for e in plays for tc in e["certification"]})
        lines.append(f"== {profile}: {len(plays)} to play, {len(entries) - len(plays)} not applicable, "
                     f"{_count(len(ids), 'certification case')}")
        lines += [f"  play  {e['nodeid']}" + (f"  [{', '.join(e['certification'])}]" if e["certification"] else "")
                  for e in plays]
        lines += [f"  n/a   {e['nodeid']}: {e['reason']}" for e in entries if not e["plays"]]
    lines += [f"{count} deselected: {why}" for why, count in summary.deselected.items()]
    return lines


def write_plan(directory: Path, plan: list[dict[str, Any]], summary: "Summary") -> Path:
    """plan.json: the SUT, the profile's source, and per test what the run would do with it."""
    directory.mkdir(parents=True, exist_ok=True)
    document = {"harness": {"name": "evse-conformance", "version": __version__}, "sut": summary.sut,
                "tests": plan, "deselected": dict(summary.deselected)}
    path = directory / "plan.json"
    path.write_text(REDACTOR.redact(json.dumps(document, indent=2, ensure_ascii=False)), encoding="utf-8")
    return path


class Summary:
    def __init__(self, directory: Path, *, sut: dict[str, Any], profile: dict[str, Any],
                 variance: int | None = None, variance_skip: frozenset[str] = frozenset()):
        self.directory = directory
        self.variance = variance
        self.variance_skip = variance_skip
        self.sut = sut
        self.profile = profile
        self.started = time.time()
        self.results: list[CaseResult] = []
        self.paths: tuple[Path, ...] = ()
        self.signal: str | None = None    # the signal that stopped the run (SIGINT, SIGTERM), if one did
        self.running: list[str] = []      # the tests that were running when it stopped
        self.deselected: Counter[str] = Counter()   # use-case tests left out of the run, by why
        self.refused: str | None = None   # why the run was refused before any test (a selection that selects nothing)
        self.planned: dict[str, set[str]] = {}   # certification profile → the ids of the tests selected for it

    def add(self, result: CaseResult) -> None:
        result.reason = REDACTOR.redact(result.reason)
        result.findings = [REDACTOR.redact(f) for f in result.findings]
        self.results.append(result)

    def counts(self) -> dict[str, int]:
        return _counts(self.results)

    def findings(self) -> int:
        return sum(len(result.findings) for result in self.results)

    def rollup(self) -> list[UseCaseRollup]:
        by_usecase: dict[str, list[CaseResult]] = {}
        for result in self.results:
            by_usecase.setdefault(result.usecase or "(no use case)", []).append(result)
        rollups = []
        for usecase, results in sorted(by_usecase.items()):
            counts = _counts(results)
            rules = sorted({rule for r in results for rule in r.rules})
            findings = sorted({f for r in results for f in r.findings})
            rollups.append(UseCaseRollup(usecase, results[0].usecase_title, results[0].block,
                                         next(v for v in VERDICTS if counts[v]), len(results), counts, rules, findings))
        return rollups

    def document(self, *, interrupted: bool, not_run: int) -> dict[str, Any]:
        return {
            "harness": {"name": "evse-conformance", "version": __version__, "python": platform.python_version()},
            "sut": self.sut,
            "profile": self.profile,
            "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(self.started)),
            "duration_s": round(time.time() - self.started, 3),
            "interrupted": interrupted,
            "interrupted_by": self.signal,
            "running_when_interrupted": self.running if interrupted else [],
            "not_run": not_run,
            "counts": self.counts(),
            "findings": self.findings(),
            "deselected": dict(self.deselected),
            "refused": self.refused,
            "readiness": self.readiness(),
            **({"variance": self.variance_taken()} if self.variance is not None else {}),
            "usecases": [asdict(r) for r in self.rollup()],
            # by use case and test, whichever order the tests (or the xdist workers) finished in
            "results": [asdict(r) for r in sorted(self.results, key=lambda r: (r.usecase or "", r.nodeid))],
        }

    def readiness(self) -> list[dict[str, Any]]:
        """Per certification profile (Core first): its tests' verdicts, and its certification cases passed
        (every test of the case that ran passed), failed (one failed or broke) or not run (none ran: not
        applicable, or selected and never reached), each with its ids."""
        by_profile: dict[str, list[CaseResult]] = {}
        for result in self.results:
            if result.certification_profile:
                by_profile.setdefault(result.certification_profile, []).append(result)
        rows = []
        for profile in certification.ordered([*by_profile, *self.planned]):
            results = by_profile.get(profile, [])
            verdicts: dict[str, set[str]] = {}
            for result in results:
                for tc in (result.certification or "").split(", "):
                    if tc:
                        verdicts.setdefault(tc, set()).add(result.verdict)
            for tc in self.planned.get(profile, ()):
                verdicts.setdefault(tc, set())
            cases = {"passed": sorted(tc for tc, v in verdicts.items() if "passed" in v and not v & {"failed", "broken"}),
                     "failed": sorted(tc for tc, v in verdicts.items() if v & {"failed", "broken"}),
                     "not_run": sorted(tc for tc, v in verdicts.items() if not v - {"skipped"})}
            source = certification.PROFILES[profile].source if profile in certification.PROFILES else ""
            rows.append({"profile": profile, "source": source, "tests": _counts(results), "cases": cases})
        return rows

    def variance_taken(self) -> dict[str, Any]:
        """The run's seed and how often the stand-ins took each freedom of ``harness.variance.FREEDOMS``."""
        taken: Counter[str] = Counter()
        for result in self.results:
            taken.update(result.freedoms)
        return {"seed": self.variance, "freedoms_taken": dict(sorted(taken.items()))}

    def write(self, *, interrupted: bool, not_run: int = 0) -> tuple[Path, ...]:
        """conformance.json, .md and .html; every text passes the redactor on its way out."""
        self.directory.mkdir(parents=True, exist_ok=True)
        document = self.document(interrupted=interrupted, not_run=not_run)
        context = {**document, "profile_rows": flatten(self.profile), **_first_screen(document)}
        outputs = {"conformance.json": json.dumps(document, indent=2, ensure_ascii=False),
                   "conformance.md": templates().get_template("conformance.md.j2").render(context),
                   "conformance.html": templates().get_template("conformance.html.j2").render(context)}
        for name, text in outputs.items():   # whole or not at all: a kill while writing leaves the old file
            partial = self.directory / f".{name}.partial"
            partial.write_text(REDACTOR.redact(text), encoding="utf-8")
            os.replace(partial, self.directory / name)
        self.paths = tuple(self.directory / name for name in outputs)
        return self.paths


class RunReports:
    """A pytest plugin object: the run's reports, written once at its end by the process that saw
    every test — the only process without xdist, the controller with it (a worker's result travels to
    the controller as the ``conformance`` attribute of the test's teardown report)."""

    LOST_AFTER = 5.0   # seconds after which a run a signal stopped and pytest has not begun to end was not stopped

    def __init__(self, config: pytest.Config, summary: Summary, *, hidden_fixtures: Iterable[str]):
        self.summary = summary
        self.config = config
        self.writer = not hasattr(config, "workerinput")
        xmlpath = config.getoption("xmlpath", None)
        self.junit = Path(os.path.abspath(os.path.expanduser(xmlpath))) if xmlpath else None
        alluredir = config.getoption("allure_report_dir", None)
        self.allure = Path(alluredir) if alluredir else None
        self.finished = 0   # tests whose teardown was reported; the rest of those collected did not run
        self.running: dict[str, None] = {}   # node ids started and not finished, in order
        self.tidy = AllureTidy(hidden_fixtures)
        if self.allure is not None:   # allure's hooks are global: a run that writes no Allure results adds none
            allure_commons.plugin_manager.register(self.tidy)
        self.writing = False   # the record is being written: a signal now is noted, not obeyed
        self.ending = False    # pytest is ending the session for an interrupt: likewise
        self._raised_at: float | None = None   # when a signal last stopped the run (monotonic)
        self._handlers = self._catch_signals() if self.writer else {}

    # ------------------------------------------------------------ interruption
    def _catch_signals(self) -> dict[int, Any]:
        """SIGTERM (what ``timeout``, CI cancellation and ``docker stop`` send) stops the run as Ctrl-C
        does, so the record is written; either signal during the writing is noted and waits for it."""
        if threading.current_thread() is not threading.main_thread():
            return {}
        previous = {}
        for number in (signal.SIGINT, signal.SIGTERM):
            previous[number] = signal.signal(number, self._on_signal)
        return previous

    def _on_signal(self, number: int, frame) -> None:
        """The first signal stops the run: a KeyboardInterrupt, on which pytest ends the session. A later one
        is noted and waits while pytest ends it (two Ctrl-C in quick succession): a second KeyboardInterrupt
        raised while pytest reports the first, tears down or writes the reports escapes pytest's handling, a
        traceback (or a SystemError, raised inside C code) and the process dying of the signal instead of
        ending as INTERRUPTED. Only when pytest has not begun to end the session ``LOST_AFTER`` seconds after
        the first (a test swallowed that KeyboardInterrupt) is a later signal obeyed again."""
        self.summary.signal = self.summary.signal or signal.Signals(number).name
        if self.writing or self.ending:
            return
        if self._raised_at is not None and time.monotonic() - self._raised_at < self.LOST_AFTER:
            return
        self._raised_at = time.monotonic()
        raise KeyboardInterrupt(f"{signal.Signals(number).name} received")

    @pytest.hookimpl(tryfirst=True)
    def pytest_keyboard_interrupt(self) -> None:
        """pytest caught the interrupt and is ending the session: from here on a signal is noted."""
        self.ending = True

    def pytest_runtest_logstart(self, nodeid: str) -> None:
        self.running[nodeid] = None

    def pytest_runtest_logfinish(self, nodeid: str) -> None:
        self.running.pop(nodeid, None)

    def pytest_collection_modifyitems(self, items: list[pytest.Item]) -> None:
        """An argument parametrized directly is a parameter of the test (Allure lists it as one), not a
        set-up step: hide its fixture."""
        for item in items:
            for mark in item.iter_markers("parametrize"):
                names = mark.args[0].split(",") if isinstance(mark.args[0], str) else mark.args[0]
                indirect = mark.kwargs.get("indirect", False)
                if indirect is not True:
                    self.tidy.hidden |= {name.strip() for name in names} - set(indirect or ())

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node, error) -> None:
        """What an xdist worker's collection found, which the controller, collecting nothing, says: a refusal
        of the run, the tests deselected and why (the same in every worker: the first one's), the certification
        ids of the tests selected per certification profile."""
        output = getattr(node, "workeroutput", {})
        self.summary.refused = self.summary.refused or output.get(REFUSED)
        if not self.summary.deselected:
            self.summary.deselected.update(output.get(DESELECTED, {}))
        for profile, ids in output.get(PLANNED, {}).items():
            self.summary.planned.setdefault(profile, set()).update(ids)

    def pytest_deselected(self, items: Sequence[pytest.Item]) -> None:
        """Why each use-case test was left out, for the terminal's last lines and the reports: the plugin's
        reason (``DESELECTED_BECAUSE``), else pytest's own selection options."""
        for item in items:
            if item.get_closest_marker("usecase") is not None:
                self.summary.deselected[item.stash.get(DESELECTED_BECAUSE, None) or self._pytest_selection] += 1
        if not self.writer:
            self.config.workeroutput[DESELECTED] = dict(self.summary.deselected)

    @property
    def _pytest_selection(self) -> str:
        given = [f"{flag} {value!r}" for flag, value in (("-k", self.config.option.keyword),
                                                         ("-m", self.config.option.markexpr)) if value]
        given += [f"--deselect {' '.join(self.config.option.deselect or ())}"] if self.config.option.deselect else []
        return "not selected by " + (", ".join(given) or "pytest's selection options")

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.when != "teardown":
            return
        self.finished += 1
        result = getattr(report, "conformance", None)
        if result is not None:
            self.summary.add(CaseResult(**result))

    @pytest.hookimpl(wrapper=True, tryfirst=True)
    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int):
        """Around every other plugin's end of session: from here on a signal waits for the record;
        ours is written after pytest's junitxml has written its file."""
        self.writing = True
        try:
            return (yield)
        finally:
            if self.writer:
                self._write_record(session, exitstatus)

    def _write_record(self, session: pytest.Session, exitstatus: int) -> None:
        not_run = max(0, session.testscollected - self.finished)
        stopped = (exitstatus == pytest.ExitCode.INTERRUPTED or session.shouldfail or session.shouldstop
                   or self.summary.signal is not None)
        interrupted = bool(stopped or not_run)
        self.summary.running = list(self.running)
        if self.junit is not None and self.junit.is_file():
            junit_verdicts(self.junit, interrupted=self.summary.document(
                interrupted=interrupted, not_run=not_run) if interrupted else None)
        if self.allure is not None:
            write_allure_extras(self.allure, self.summary)
        judged_or_selected = self.summary.results or self.summary.deselected or self.summary.refused
        planning = PLAN in self.config.stash   # --plan ran nothing: the last run's reports stay as they are
        if (judged_or_selected or interrupted) and not self.config.option.collectonly and not planning:
            # also when nothing ran: the previous run's report must not stay in place as if it were this one's
            self.summary.write(interrupted=interrupted, not_run=not_run)
            self._tell(self.config.pluginmanager.get_plugin("terminalreporter"))
        if self.summary.refused and session.exitstatus != pytest.ExitCode.USAGE_ERROR:   # refused by xdist workers
            session.exitstatus = pytest.ExitCode.USAGE_ERROR
            print(f"ERROR: {self.summary.refused}", file=sys.stderr)

    def _tell(self, terminal) -> None:
        """The terminal's last lines: the verdicts, why tests were left out, where the reports are."""
        if terminal is None:
            return
        counts, summary = self.summary.counts(), self.summary
        terminal.write_sep("=", "conformance", bold=True)
        if summary.refused:
            terminal.write_line("no test ran: the run was refused (the error below says why and what to fix)", red=True)
        worst = "red" if counts["failed"] or counts["broken"] else "green"
        terminal.write_line(f"{counts['passed']} passed, {counts['failed']} failed, {counts['broken']} broken, "
                            f"{counts['skipped']} not applicable, {_count(summary.findings(), 'finding')}",
                            **{worst: True, "bold": True})
        if summary.variance is not None and (counts["failed"] or counts["broken"]):
            first = next(r.nodeid for r in summary.results if r.verdict in ("failed", "broken"))
            skip = f" --variance-skip {','.join(sorted(summary.variance_skip))}" if summary.variance_skip else ""
            terminal.write_line(f"replay one alone, with the same freedoms: pytest '{first}' "
                                f"--variance {summary.variance}{skip}")
        for why, count in summary.deselected.items():
            terminal.write_line(f"{count} deselected: {why}")
        reports = [str(path) for path in summary.paths]
        reports += [f"JUnit {self.junit}"] if self.junit is not None else []
        reports += [f"Allure results {self.allure}/"] if self.allure is not None else []
        terminal.write_line("reports: " + ", ".join(reports))

    def pytest_unconfigure(self) -> None:
        if allure_commons.plugin_manager.is_registered(self.tidy):
            allure_commons.plugin_manager.unregister(self.tidy)
        for number, handler in self._handlers.items():
            signal.signal(number, handler)
