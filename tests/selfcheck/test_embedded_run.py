"""Self-check 1 (design 'Self-checking'): `pytest suites` with no SUT passes every test in
every role, and its reports carry the labels, a wire log per test, and no secret."""

import json
import re
from pathlib import Path

import pytest
import suite_runner

from harness.settings import reference_profile

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def embedded_run(tmp_path_factory):
    """`pytest suites` as a session of its own, forked warm (suite_runner.py): a session is all it needs of a
    process. Its terminal output and temporary files stay in a directory apart from its reports."""
    out = tmp_path_factory.mktemp("embedded")
    completed = suite_runner.run(tmp_path_factory.mktemp("embedded-session"), [
        str(REPO / "suites"), "-q", f"--alluredir={out / 'allure'}", "--reports-dir", str(out / "reports"),
        f"--junitxml={out / 'junit.xml'}"], timeout=600)
    return completed, out


def test_every_suite_passes_in_every_role(embedded_run):
    completed, out = embedded_run
    assert completed.ret == 0, completed.stdout.str()[-4000:] + completed.stderr.str()[-2000:]
    summary = json.loads((out / "reports" / "conformance.json").read_text())
    assert summary["counts"]["failed"] == summary["counts"]["broken"] == summary["counts"]["skipped"] == 0
    played = {(r["role"], r["protocol"]) for r in summary["results"]}
    assert {("csms", "ocpp2.0.1"), ("cs", "ocpp2.0.1"), ("csms", "ocpp2.1"), ("cs", "ocpp2.1")} <= played
    assert summary["counts"]["passed"] == len(summary["results"]) > 100


def test_allure_results_carry_labels_and_a_wire_log_per_test(embedded_run):
    _, out = embedded_run
    results = [json.loads(p.read_text()) for p in (out / "allure").glob("*-result.json")]
    assert results, "no Allure results were written"
    directions = set()
    for result in results:
        labels = {label["name"]: label["value"] for label in result["labels"]}
        for name in ("epic", "feature", "story", "sut_role", "severity"):
            assert name in labels, f"{result['fullName']} lacks the {name} label"
        assert labels["epic"].startswith(("OCPP ", "OCPI "))
        logs = [a for a in result.get("attachments", []) if a["name"] == "wire log"]
        assert logs, f"{result['fullName']} has no wire log"
        lines = (out / "allure" / logs[0]["source"]).read_text().splitlines()
        assert lines and all(re.match(r"\d\d:\d\d:\d\d\.\d{3} \S+ [→←·] ", line) for line in lines), \
            f"{result['fullName']}: the wire log is empty or has untimestamped lines"
        directions.update(line.split()[2] for line in lines)
    assert {"→", "←", "·"} <= directions


def test_no_secret_reaches_the_reports(embedded_run):
    _, out = embedded_run
    profile = reference_profile()
    secrets = [profile.password] + [f'"{t.id}"' for t in profile.tokens.values() if t.secret]
    import base64
    secrets.append(base64.b64encode(f"{profile.identity}:{profile.password}".encode()).decode())
    texts = {p: p.read_text(errors="replace") for p in out.rglob("*") if p.is_file()}
    pin_seen_redacted = False
    for path, text in texts.items():
        for secret in secrets:
            assert secret not in text, f"a secret leaked into {path.name}"
        pin_seen_redacted |= '"idToken":"«redacted»","type":"KeyCode"' in text
    assert pin_seen_redacted, "the PIN use case ran but no redacted PIN shows in any wire log"


def test_the_clock_durations_a_first_parallel_run_orders_by_are_this_run_s(embedded_run):
    """harness/clock_durations.json (what a first parallel run against a real SUT plays longest first) is what the
    embedded run measures on its clock: a suite whose waits changed fails here until it is written again. The links
    are in memory, so a test's seconds on the clock are its waits; a clock-aligned test's also depend on where the
    wall clock stands when it starts (up to one interval; a TOTP code's window too), and a test near the threshold
    may fall either side of it: an order needs sizes, so a test of twice the threshold, listed or measured, is
    measured within half to twice its listing."""
    from harness.parallel import LONG, clock_durations, measured_on_the_clock

    _, out = embedded_run
    results = json.loads((out / "reports" / "conformance.json").read_text())["results"]
    on_the_clock = {r["nodeid"]: r.get("clock_s") or 0.0 for r in results}
    shipped = clock_durations()
    assert len(measured_on_the_clock({"results": results})) > 50
    differ = {test: (seconds, on_the_clock.get(test)) for test, seconds in shipped.items()
              if max(seconds, on_the_clock.get(test, 0.0)) >= 2 * LONG
              and not seconds / 2 <= on_the_clock.get(test, 0.0) <= seconds * 2}
    missing = {test: seconds for test, seconds in on_the_clock.items() if seconds >= 2 * LONG and test not in shipped}
    assert not differ and not missing, (
        f"harness/clock_durations.json is not this run's: (listed, measured) seconds {differ}; not listed {missing}. "
        f"pytest suites --reports-dir DIR, then python -m harness.parallel clock-durations DIR/conformance.json")
