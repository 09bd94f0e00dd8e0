"""Reports: Allure labels and the wire-log attachment per test, and the conformance summary
(``conformance.json`` and ``conformance.md``) written at the end of every run, interrupted or not."""

from __future__ import annotations

import inspect
import json
import platform
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from collections.abc import Sequence
from typing import Any

import allure

from harness import __version__
from harness.rules import Rule
from harness.wire import REDACTOR, WireLog


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


def label(usecase: str | None, block: str | None, protocol_label: str | None, role: str | None,
          certification: str | None, severity: str, rules: Sequence[Rule] = ()) -> None:
    """Allure labels: epic = protocol, feature = block, story = use case (design 'Reports'); one
    ``rule`` label per rule the test judges."""
    if protocol_label:
        allure.dynamic.epic(protocol_label)
    if block:
        allure.dynamic.feature(block)
    if usecase:
        allure.dynamic.story(usecase)
    if role:
        allure.dynamic.label("sut_role", role)
        allure.dynamic.tag(f"SUT={role}")
    if certification:
        allure.dynamic.label("certification_id", certification)
        allure.dynamic.tag(certification)
    allure.dynamic.severity(getattr(allure.severity_level, severity.upper(), allure.severity_level.NORMAL))
    for rule in rules:
        allure.dynamic.label("rule", rule.id)


def describe(docstring: str | None, rules: Sequence[Rule]) -> None:
    """The test's description in Allure: its docstring, then the rules it checks with their texts.
    (Called once the test body starts: allure-pytest sets the docstring as the description after setup.)"""
    parts = [inspect.cleandoc(docstring)] if docstring else []
    if rules:
        parts.append("Rules checked:\n\n" + "\n".join(f"- {rule.describe()}" for rule in rules))
    if parts:
        allure.dynamic.description("\n\n".join(parts))


def attach_wirelog(wirelog: WireLog) -> None:
    allure.attach(wirelog.render() or "(nothing was exchanged)", name="wire log",
                  attachment_type=allure.attachment_type.TEXT)


class Summary:
    def __init__(self, directory: Path, *, sut: dict[str, Any], profile: dict[str, Any]):
        self.directory = directory
        self.sut = sut
        self.profile = profile
        self.started = time.time()
        self.results: list[CaseResult] = []

    def add(self, result: CaseResult) -> None:
        result.reason = REDACTOR.redact(result.reason)
        result.findings = [REDACTOR.redact(f) for f in result.findings]
        self.results.append(result)

    def counts(self) -> dict[str, int]:
        counts = {"passed": 0, "failed": 0, "broken": 0, "skipped": 0}
        for result in self.results:
            counts[result.verdict] += 1
        return counts

    def write(self, *, interrupted: bool) -> tuple[Path, Path]:
        self.directory.mkdir(parents=True, exist_ok=True)
        document = {
            "harness": {"name": "evse-conformance", "version": __version__, "python": platform.python_version()},
            "sut": self.sut,
            "profile": self.profile,
            "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(self.started)),
            "duration_s": round(time.time() - self.started, 3),
            "interrupted": interrupted,
            "counts": self.counts(),
            "results": [asdict(r) for r in self.results],
        }
        json_path = self.directory / "conformance.json"
        json_path.write_text(REDACTOR.redact(json.dumps(document, indent=2)), encoding="utf-8")
        md_path = self.directory / "conformance.md"
        md_path.write_text(REDACTOR.redact(self._markdown(document)), encoding="utf-8")
        return json_path, md_path

    def _markdown(self, doc: dict[str, Any]) -> str:
        counts = doc["counts"]
        lines = [
            "# Conformance summary", "",
            f"- SUT: {doc['sut'].get('name') or 'embedded reference implementations'} "
            f"(role {doc['sut'].get('role') or 'every role'}, protocol {doc['sut'].get('protocol') or 'every version'})",
            f"- Harness: evse-conformance {doc['harness']['version']}, started {doc['started']}, "
            f"{doc['duration_s']} s" + (" — INTERRUPTED, results are partial" if doc["interrupted"] else ""),
            f"- Verdicts: {counts['passed']} passed, {counts['failed']} failed, {counts['broken']} broken, "
            f"{counts['skipped']} not applicable", "",
            "| use case | certification id | SUT role | protocol | verdict | rules checked | reason / findings | test |",
            "|---|---|---|---|---|---|---|---|",
        ]
        for r in doc["results"]:
            notes = "; ".join(filter(None, [r["reason"].splitlines()[0] if r["reason"] else "", *r["findings"]]))
            lines.append(f"| {r['usecase'] or ''} | {r['certification'] or ''} | {r['role'] or ''} | "
                         f"{r['protocol'] or ''} | {r['verdict']} | {', '.join(r['rules'])} | {notes.replace('|', '/')} | "
                         f"`{r['nodeid']}` |")
        lines += ["", "## Profile (secrets redacted)", "", "```json", json.dumps(doc["profile"], indent=2), "```", ""]
        return "\n".join(lines)
