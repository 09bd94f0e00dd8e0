"""The interop ledger: per implementation x version x role, the suites' verdicts against it, and for every
failure the rule, a wire excerpt, the spec line it breaks and the judgement (interop/triage.toml).

    python interop/run.py          # plays every target, then writes interop/ledger.json and interop/LEDGER.md
    python interop/ledger.py       # judges the last run again by triage.toml: ledger.json and LEDGER.md (no run)

ledger.json is what tests/interop/test_ledger.py replays: the verdict of every test against every target. A
failure without a judgement in triage.toml is listed as untriaged, and the replay fails on it.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tomllib
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))

from targets import TARGETS  # noqa: E402

LEDGER_JSON = HERE / "ledger.json"
LEDGER_MD = HERE / "LEDGER.md"
TRIAGE = HERE / "triage.toml"
VERDICTS = ("passed", "failed", "broken", "skipped")
JUDGEMENTS = {"deviation": "deviation of the implementation", "harness": "harness wrong"}
ROLE_VERSION = re.compile(r"\[(csms|cs|cpo|emsp)-(ocpp[\d.]+|ocpi[\d.]+)")


def collect_counts() -> dict[str, int]:
    """The suites' tests per role and version ("csms ocpp1.6" → N), as pytest collects them: the share's
    denominators for the roles and versions no implementation plays."""
    listed = subprocess.run([sys.executable, "-m", "pytest", str(REPO / "suites"), "--collect-only", "-q",
                             "-p", "no:cacheprovider"], cwd=REPO, capture_output=True, text=True, timeout=300).stdout
    counts = Counter(f"{m.group(1)} {m.group(2)}" for line in listed.splitlines() if (m := ROLE_VERSION.search(line)))
    return dict(sorted(counts.items()))


def rule_of(reason: str) -> str:
    """The first rule id a failure names (``[C01.status]``), else ``-``."""
    found = re.search(r"\[([A-Za-z][\w.]*\.[\w.]+)\]", reason)
    return found.group(1) if found else "-"


def wire_of(reason: str) -> str:
    """What the SUT sent, as the failure quotes it: its ``actual:`` value, else its first line."""
    found = re.search(r"actual:\s+(.+)", reason)
    text = found.group(1) if found else (reason.strip().splitlines() or [""])[0]
    return " ".join(text.split())[:160]


def reference_of(reason: str) -> str:
    """The source the failed rule's row cites: the last parenthesis of the failure's ``rule:`` line."""
    line = next((line.strip() for line in reason.splitlines() if line.strip().startswith("rule:")), "")
    if not line.endswith(")"):
        return ""
    depth = 0
    for at in range(len(line) - 1, -1, -1):
        depth += {")": 1, "(": -1}.get(line[at], 0)
        if depth == 0:
            return line[at + 1:-1]
    return ""


def judgements() -> list[dict]:
    return tomllib.loads(TRIAGE.read_text(encoding="utf-8"))["judgement"]


def judge(implementation: str, protocol: str, test: str, rule: str, table: list[dict]) -> dict | None:
    """The triage entry for this failure: same implementation (or "*"), same rule, and its test pattern (a
    substring of the test id) and protocol when it gives them."""
    for entry in table:
        if entry["implementation"] in ("*", implementation) and entry["rule"] == rule \
                and entry.get("test", "") in test and entry.get("protocol", protocol) == protocol:
            return entry
    return None


def rejudge(entry: dict, table: list[dict]) -> None:
    """Each failure of a target's entry gets the judgement triage.toml gives it now."""
    for failure in entry["failures"]:
        found = judge(entry["implementation"], entry["protocol"], failure["test"], failure["rule"], table)
        found = found or {}
        failure.update(spec=(found.get("spec") or failure["reference"]) if found else "",
                       judgement=found.get("judgement", ""), note=found.get("note", ""))


def target_entry(target, summary: dict) -> dict:
    results = {r["nodeid"].removeprefix("suites/"): r for r in summary["results"]}
    counts = Counter(r["verdict"] for r in results.values())
    failures = []
    for test, r in sorted(results.items()):
        if r["verdict"] not in ("failed", "broken"):
            continue
        failures.append({"test": test, "verdict": r["verdict"], "rule": rule_of(r["reason"]),
                         "wire": wire_of(r["reason"]), "reference": reference_of(r["reason"])})
    return {"implementation": target.implementation, "version": target.version, "protocol": target.protocol,
            "role": target.role, "why": target.why,
            "counts": {"executed": counts["passed"] + counts["failed"], "passed": counts["passed"],
                       "failed": counts["failed"], "broken": counts["broken"], "not_applicable": counts["skipped"]},
            "verdicts": {test: r["verdict"] for test, r in sorted(results.items())},
            "failures": failures}


def share(targets: dict[str, dict], collected: dict[str, int]) -> dict[str, dict]:
    """Per role and version: the suites' tests of that role and version (as the runs against it list them, else as
    pytest collects them), and those executed (passed or failed) against at least one implementation."""
    tests: dict[str, set[str]] = {}
    executed: dict[str, set[str]] = {}
    for entry in targets.values():
        key = f"{entry['role']} {entry['protocol']}"
        tests.setdefault(key, set()).update(entry["verdicts"])
        executed.setdefault(key, set()).update(t for t, v in entry["verdicts"].items() if v in ("passed", "failed"))
    counts = {key: len(tests[key]) if key in tests else collected[key] for key in sorted(set(tests) | set(collected))}
    return {key: {"tests": count, "executed": len(executed.get(key, ())),
                  "share": round(100 * len(executed.get(key, ())) / count, 1) if count else 0.0}
            for key, count in counts.items()}


def build(results: dict[str, dict], previous: dict | None = None, collected: dict[str, int] | None = None) -> dict:
    """The ledger from the runs' conformance summaries (key → conformance.json); targets not played this time, and
    the suites' counts when not collected again, are kept from ``previous``."""
    collected = collected if collected is not None else (previous or {}).get("collected", {})
    table = judgements()
    targets = json.loads(json.dumps((previous or {}).get("targets", {})))   # a copy: rejudged below
    for target in TARGETS:
        if target.key in results:
            targets[target.key] = target_entry(target, results[target.key])
    targets = {t.key: targets[t.key] for t in TARGETS if t.key in targets}
    for entry in targets.values():
        rejudge(entry, table)
    untriaged = [f"{key}: {f['test']} [{f['rule']}]" for key, entry in targets.items()
                 for f in entry["failures"] if not f["judgement"]]
    return {"generated_by": "python interop/run.py", "targets": targets, "collected": collected,
            "share": share(targets, collected),
            "harness_defects": [e for e in table if e["judgement"] == "harness"], "untriaged": untriaged}


def render(ledger: dict) -> str:
    lines = ["# Interop ledger", "",
             "Every suite played against implementations nobody here wrote, installed from PyPI by the `[interop]`",
             "extra and from npm by `interop/npm_install.py` (pins in `interop/npm/`), and started by",
             "`interop/run.py` (which writes this file and `ledger.json`; do not edit either",
             "by hand). `tests/interop/test_ledger.py` replays `ledger.json`: a verdict that changes fails until the",
             "ledger is regenerated on purpose. Judgements live in `interop/triage.toml`.", "",
             "## Implementations", "",
             "| implementation | version | protocol | role | executed | passed | failed | broken | not applicable |",
             "|---|---|---|---|---:|---:|---:|---:|---:|"]
    for entry in ledger["targets"].values():
        c = entry["counts"]
        lines.append(f"| {entry['implementation']} | {entry['version']} | {entry['protocol']} | {entry['role']} | "
                     f"{c['executed']} | {c['passed']} | {c['failed']} | {c['broken']} | {c['not_applicable']} |")
    lines += ["", "## Share of the suites' tests executed against at least one independent implementation", "",
              "| role | version | tests | executed | share |", "|---|---|---:|---:|---:|"]
    for key, s in ledger["share"].items():
        role, protocol = key.split(" ")
        lines.append(f"| {role} | {protocol} | {s['tests']} | {s['executed']} | {s['share']} % |")
    lines += ["", "A role and version at 0 % has no independent implementation in the registries that runs here "
              "(README, Interop ledger).", ""]
    for key, entry in ledger["targets"].items():
        lines += [f"## Failures: {key}", ""]
        if not entry["failures"]:
            lines += ["None.", ""]
            continue
        lines += ["| test | rule | wire (what it sent) | spec line it breaks | judgement |", "|---|---|---|---|---|"]
        for f in entry["failures"]:
            judgement = JUDGEMENTS.get(f["judgement"], "**untriaged**")
            if f["note"]:
                judgement += f": {f['note']}"
            cell = [f["test"].replace("|", "\\|"), f"`{f['rule']}`", f"`{f['wire'].replace('|', '/')}`",
                    f["spec"].replace("|", "/"), judgement.replace("|", "/")]
            lines.append("| " + " | ".join(cell) + " |")
        lines.append("")
    lines += ["## Harness defects the ledger found", ""]
    for entry in ledger["harness_defects"]:
        lines.append(f"- {entry['implementation']}, `{entry['rule']}`: {entry['note']} (fixed in {entry['fixed_in']})")
    if not ledger["harness_defects"]:
        lines.append("None.")
    lines += ["", f"Untriaged failures: {len(ledger['untriaged'])}.", ""]
    return "\n".join(lines)


def write(results: dict[str, dict], partial: bool = False) -> dict:
    previous = json.loads(LEDGER_JSON.read_text()) if partial and LEDGER_JSON.exists() else None
    ledger = build(results, previous, collect_counts())
    LEDGER_JSON.write_text(json.dumps(ledger, indent=1, sort_keys=False) + "\n", encoding="utf-8")
    LEDGER_MD.write_text(render(ledger), encoding="utf-8")
    print(f"wrote {LEDGER_MD} and {LEDGER_JSON.name}: {len(ledger['untriaged'])} untriaged failures")
    return ledger


if __name__ == "__main__":
    current = json.loads(LEDGER_JSON.read_text())
    ledger = build({}, current, collect_counts())
    LEDGER_JSON.write_text(json.dumps(ledger, indent=1) + "\n", encoding="utf-8")
    LEDGER_MD.write_text(render(ledger), encoding="utf-8")
    print(f"wrote {LEDGER_MD} and {LEDGER_JSON.name} from the last run and triage.toml: "
          f"{len(ledger['untriaged'])} untriaged failures")
