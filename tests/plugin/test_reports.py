"""What the reports tell their readers: CI (JUnit), Allure, and the customer (conformance.html/.md/.json),
for serial, parallel (pytest-xdist) and stopped runs. Each test runs a small generated suite with pytester
and reads the files the run wrote."""

import json
import re
import textwrap
import xml.etree.ElementTree as ET
from html.parser import HTMLParser

import pytest
import suite_runner
from reference_variant import reference_variant

from harness import __version__
from harness.report import CaseResult, Summary

RUN_LIMIT = 300.0   # seconds for a session of its own, however it goes
PROFILE = """
[sut]
name = "Acme CSMS"
vendor = "Acme Charging"
version = "4.2.0"
[station]
identity = "ACME-1"
password = "acme-password-000001"
[tokens]
valid = { id = "A1", type = "ISO14443", status = "Accepted" }
"""

# Every verdict once per target: passed, passed with a finding, failed in the body, failed on what a
# connection saw in the background (checked after the body, outside the test's code), broken, and
# not applicable in the body; a second use case is not applicable at collection (an undeclared feature).
SUITE = '''"""{uc} — a demo use case: every verdict once."""

from types import SimpleNamespace

from harness.errors import HarnessError, NotApplicable, PeerViolation
from harness.rules import RuleTable, must, should
from harness.suite import TC, case, checks
from harness.transport.ledger import Ledger
from harness.verdict import check_equal, violated

class {uc}(RuleTable):
    status = must("spec 001 demo", "the status is the token's")
    echo = must("spec 000 echo", "the request id is echoed")
    unknown = should("spec 002 Framing 4", "an unknown action is answered NotImplemented")

pytestmark = case("{uc}", block="Demo block", roles={roles}, protocols={protocols})

@checks({uc}.status, csms=TC("TC_R_01_CSMS", "ocpp2.0.1"))
async def test_passes(target):
    """The token gets its status."""
    check_equal({uc}.status, "status", 1, 1)

@checks({uc}.unknown)
async def test_passes_with_a_finding(target):
    violated({uc}.unknown, "unknown action answered NotSupported")

@checks({uc}.status, csms=TC("TC_R_02_CSMS", "ocpp2.0.1"))
async def test_fails(target):
    check_equal({uc}.status, "idTokenInfo.status", "Blocked", "Accepted")

@checks({uc}.status)
async def test_fails_in_the_background(target, wirelog):
    violations = Ledger(1_000)
    violations.append(PeerViolation({uc}.echo, "X-Request-ID not echoed", expected="abc-1", actual=None))
    wirelog.connections.append(SimpleNamespace(harness_errors=[], violations=violations))

@checks({uc}.status)
async def test_broken(target):
    raise HarnessError("the actuator answered HTTP 500")

@checks({uc}.status)
async def test_not_applicable(target):
    raise NotApplicable("the actuator answered 501 for reserve_now")
'''

RESERVATIONS = '''
from harness.rules import RuleTable, must
from harness.suite import case, checks

class {uc2}(RuleTable):
    reserved = must("spec 001 H01", "a reservation is kept")

pytestmark = case("{uc2}", block="Reservation", roles={roles}, protocols={protocols}, requires=["payment_terminal"])

@checks({uc2}.reserved)
async def test_reservation(target):
    pass
'''



def finding(uc: str) -> str:
    return f"[{uc}.unknown] unknown action answered NotSupported"


def make_suite(pytester, uc: str, roles=("csms",), protocols=("ocpp2.0.1",)) -> str:
    """The two use cases ``uc`` and ``uc`` + "R" (reservations); one id per test: the pytester runs
    share this process's rule registry, which refuses an id defined in two files."""
    ids = {"uc": uc, "uc2": uc + "R", "roles": roles, "protocols": protocols}
    pytester.makepyfile(test_rep01=SUITE.format(**ids), test_rep02=RESERVATIONS.format(**ids))
    # the reference profile declares every feature: here one use case needs a feature it leaves out
    pytester.makefile(".toml", embedded=reference_variant(("\npayment_terminal = true", "\npayment_terminal = false")))
    pytester.makeini("[pytest]\nsut_profile = embedded.toml\n")   # a real SUT's --sut-profile overrides it
    return uc



def sut_url(port: int) -> str:
    return f"ws://127.0.0.1:{port}/ocpp"


def real_sut_args(pytester, port: int) -> list[str]:
    profile = pytester.makefile(".toml", sut=textwrap.dedent(PROFILE))
    return ["--sut", "csms", "--sut-url", sut_url(port), "--protocol", "ocpp2.0.1",
            "--sut-profile", str(profile), "--actuator", "http", "--actuator-url", "http://127.0.0.1:9"]


def summary_of(pytester, reports: str = "out") -> dict:
    return json.loads((pytester.path / reports / "conformance.json").read_text())


def verdicts(summary: dict) -> dict[str, str]:
    return {r["nodeid"]: r["verdict"] for r in summary["results"]}


# ---------------------------------------------------------------------------- JUnit
def test_junit_tells_failed_from_broken_and_carries_the_facts_of_each_test(pytester):
    uc = make_suite(pytester, "JU")
    pytester.runpytest("--junitxml", "junit.xml", "--reports-dir", "out")
    root = ET.parse(pytester.path / "junit.xml").getroot()
    cases = {case.get("name").partition("[")[0]: case for case in root.iter("testcase")}

    def only(name, tag):
        children = [child for child in cases[name] if child.tag in ("failure", "error", "skipped")]
        assert [child.tag for child in children] == [tag], f"{name}: {[c.tag for c in children]}"
        return children[0]

    def properties(name):
        return [(p.get("name"), p.get("value")) for p in cases[name].iter("property")]

    failure = only("test_fails", "failure")
    assert failure.get("message") == (f"{uc} [{uc}.status] idTokenInfo.status is wrong\n  rule: the status is the "
                                      "token's (spec 001 demo)\n  expected: 'Blocked'\n  actual:   'Accepted'")
    background = only("test_fails_in_the_background", "failure")
    assert background.get("message") == (f"[{uc}.echo] X-Request-ID not echoed\n  expected: 'abc-1'\n  actual:   None\n"
                                         "the rules this test checks held; the violations above were recorded on "
                                         "its connections")
    assert "Coroutine" not in background.text and "pytest_runtest_call" not in background.text
    broken = only("test_broken", "error")
    assert broken.get("message") == "the actuator answered HTTP 500"
    assert only("test_not_applicable", "skipped").get("message") == "the actuator answered 501 for reserve_now"
    assert "does not declare [features] payment_terminal" in only("test_reservation", "skipped").get("message")
    assert not [child for child in cases["test_passes"] if child.tag in ("failure", "error", "skipped")]

    assert properties("test_fails") == [("verdict", "failed"), ("usecase", uc),
                                        ("certification_id", "TC_R_02_CSMS"), ("rule", f"{uc}.status")]
    assert ("verdict", "broken") in properties("test_broken")
    assert ("verdict", "skipped") in properties("test_reservation")
    assert properties("test_passes_with_a_finding") == [("verdict", "passed"), ("usecase", uc),
                                                        ("rule", f"{uc}.unknown"), ("finding", finding(uc))]
    suite = root.find("testsuite")
    assert (suite.get("failures"), suite.get("errors"), suite.get("skipped")) == ("2", "1", "2")
    for message in (failure.get("message"), broken.get("message")):
        assert "harness." not in message and "Error:" not in message


SETUP_FAILS = '''
import pytest

from harness.errors import PeerViolation
from harness.rules import RuleTable, must
from harness.suite import case, checks

class {uc}(RuleTable):
    boot = must("spec 001 demo", "the boot is accepted")

pytestmark = case("{uc}", block="Demo block", roles=("csms",), protocols=("ocpp2.0.1",))

@pytest.fixture
def booted(target):
    raise PeerViolation({uc}.boot, "BootNotificationResponse status is wrong", expected="Accepted", actual="Rejected")

@checks({uc}.boot)
async def test_fails_in_its_setup(booted):
    pass
'''


def test_junit_says_failure_for_a_test_failed_in_its_setup(pytester):
    """A rule the SUT broke while a fixture set the test up is a failed verdict in conformance.json, and so a
    ``<failure>`` (not an ``<error>``) in JUnit, with the reason as its message."""
    pytester.makepyfile(test_setup_fails=SETUP_FAILS.format(uc="JUS"))
    pytester.makefile(".toml", embedded=reference_variant())
    pytester.makeini("[pytest]\nsut_profile = embedded.toml\n")
    pytester.runpytest("--junitxml", "junit.xml", "--reports-dir", "out")
    assert list(verdicts(summary_of(pytester)).values()) == ["failed"]
    suite = ET.parse(pytester.path / "junit.xml").getroot().find("testsuite")
    [case] = suite.iter("testcase")
    assert [child.tag for child in case if child.tag in ("failure", "error")] == ["failure"]
    assert case.find("failure").get("message").startswith("[JUS.boot] BootNotificationResponse status is wrong")
    assert (suite.get("failures"), suite.get("errors")) == ("1", "0")


def test_the_terminal_counts_what_the_verdicts_say(pytester):
    """pytest's last line agrees with the report: a broken test is an error (not one more failure), a rule
    broken while a fixture set the test up a failure (not an error)."""
    make_suite(pytester, "TCV")
    pytester.makepyfile(test_setup_fails=SETUP_FAILS.format(uc="TCVS"))
    result = pytester.runpytest("--reports-dir", "out", "-rfE")
    counts = summary_of(pytester)["counts"]
    assert counts == {"passed": 2, "failed": 3, "broken": 1, "skipped": 2}
    result.assert_outcomes(passed=2, failed=3, errors=1, skipped=2)
    result.stdout.fnmatch_lines(["FAILED test_setup_fails.py::test_fails_in_its_setup* - [[]TCVS.b*",
                                 "BROKEN test_rep01.py::test_broken* - the actuator answered*"], consecutive=False)


# ---------------------------------------------------------------------------- parallel and stopped runs
def test_a_parallel_run_reports_what_a_serial_run_does(pytester):
    """Under pytest-xdist every worker's results reach the one summary the controller writes. (The serial run
    in this process, the parallel one in a session of its own, forked warm, for its workers; both read no
    traceback.)"""
    make_suite(pytester, "PAR", roles=("csms", "cs"), protocols=("ocpp2.0.1", "ocpp2.1"))
    serial = pytester.runpytest("--reports-dir", "serial", "--tb=line")
    parallel = suite_runner.run(pytester.path, ["--reports-dir", "parallel", "-n", "2"], RUN_LIMIT)
    parallel.stdout.fnmatch_lines(["*2 workers*"])
    assert serial.ret == parallel.ret == pytest.ExitCode.TESTS_FAILED
    one, two = summary_of(pytester, "serial"), summary_of(pytester, "parallel")
    assert two["counts"] == one["counts"] == {"passed": 8, "failed": 8, "broken": 4, "skipped": 8}
    assert verdicts(two) == verdicts(one) and len(verdicts(one)) == 28
    assert two["usecases"] == one["usecases"]
    assert not one["interrupted"] and not two["interrupted"] and one["not_run"] == two["not_run"] == 0


@pytest.mark.parametrize("parallel", [(), ("-n", "2")], ids=["serial", "xdist"])
def test_a_run_stopped_at_the_first_failure_says_so_with_the_count_not_run(pytester, parallel):
    """The serial run in this process, the parallel one in a process of its own; neither reads a traceback."""
    make_suite(pytester, "STP", roles=("csms", "cs"), protocols=("ocpp2.0.1", "ocpp2.1"))
    args = ["-x", "--reports-dir", "out", "--tb=line", *parallel]
    result = suite_runner.run(pytester.path, args, RUN_LIMIT) if parallel else pytester.runpytest(*args)
    assert result.ret != pytest.ExitCode.OK
    summary = summary_of(pytester)
    assert summary["interrupted"] is True
    assert summary["not_run"] == 28 - len(summary["results"]) > 0
    if not parallel:   # serial order: four passes, four passes with a finding, then the first failure
        assert summary["not_run"] == 19 and summary["counts"]["failed"] == 1
    assert f"{summary['not_run']} tests not run" in (pytester.path / "out" / "conformance.md").read_text()
    assert "This run was interrupted" in (pytester.path / "out" / "conformance.html").read_text()


# ---------------------------------------------------------------------------- the terminal's last lines
@pytest.mark.parametrize("parallel", [(), ("-n", "2")], ids=["serial", "xdist"])
def test_the_terminal_s_last_lines_give_the_verdicts_why_tests_were_deselected_and_the_reports(pytester, parallel):
    """The serial run in this process, the parallel one in a session of its own (its controller collects
    nothing: the workers tell it why they deselected tests)."""
    make_suite(pytester, "TRM" + ("X" if parallel else "S"))
    args = ["--reports-dir", "out", "--junitxml", "junit.xml", "--alluredir", "allure", "-k", "not broken", *parallel]
    result = suite_runner.run(pytester.path, args, RUN_LIMIT) if parallel else pytester.runpytest(*args)
    assert result.stdout.lines[-4:] == [
        result.stdout.lines[-4],   # the rule that heads them
        "2 passed, 2 failed, 0 broken, 2 not applicable, 1 finding",
        "1 deselected: not selected by -k 'not broken'",
        f"reports: out/conformance.json, out/conformance.md, out/conformance.html, "
        f"JUnit {pytester.path / 'junit.xml'}, Allure results allure/"]
    assert "conformance" in result.stdout.lines[-4]
    assert summary_of(pytester)["deselected"] == {"not selected by -k 'not broken'": 1}


@pytest.mark.parametrize("parallel", [(), ("-n", "2")], ids=["serial", "xdist"])
def test_a_usecase_that_selects_nothing_is_refused_and_the_previous_report_does_not_stay(pytester, parallel):
    """``--usecase NOPE`` names the use cases there are; the reports now say this run judged nothing, with
    why (before, the previous run's verdicts stayed in place as if they were this run's)."""
    uc = make_suite(pytester, "NOP" + ("X" if parallel else "S"))
    pytester.runpytest("--reports-dir", "out")
    assert summary_of(pytester)["results"]
    args = ["--reports-dir", "out", "--usecase", f"{uc},NOPE*", *parallel]
    result = suite_runner.run(pytester.path, args, RUN_LIMIT) if parallel else pytester.runpytest(*args)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"ERROR: --usecase NOPE* matches no use case or certification id of the collected "
                                 f"suites; the use cases are {uc}, {uc}R (globs such as 'C0*' select several)"])
    result.stdout.fnmatch_lines(["no test ran: the run was refused*", "reports: *conformance.json*"])
    summary = summary_of(pytester)
    assert summary["results"] == [] and "NOPE* matches no use case" in summary["refused"]
    for page in ("conformance.md", "conformance.html"):
        assert "NOPE* matches no use case" in (pytester.path / "out" / page).read_text(), page


# ---------------------------------------------------------------------------- Allure
def allure_results(pytester, directory="allure") -> dict[str, dict]:
    results = [json.loads(p.read_text()) for p in (pytester.path / directory).glob("*-result.json")]
    return {r["name"].partition("[")[0]: r for r in results}


def labels_of(result: dict) -> list[tuple[str, str]]:
    return [(label["name"], label["value"]) for label in result["labels"]]


def test_allure_shows_findings_on_a_passed_test_with_its_category(pytester):
    uc = make_suite(pytester, "ALF")
    pytester.runpytest("--alluredir", "allure", "--reports-dir", "out")
    result = allure_results(pytester)["test_passes_with_a_finding"]
    assert result["status"] == "passed"
    assert result["statusDetails"] == {"message": f"Passed with 1 finding:\n{finding(uc)}"}   # no "Show more"
    assert ("finding", finding(uc)) in labels_of(result) and ("tag", "with findings") in labels_of(result)
    categories = json.loads((pytester.path / "allure" / "categories.json").read_text())
    category = next(c for c in categories if "passed" in c["matchedStatuses"])
    assert re.fullmatch(category["messageRegex"], result["statusDetails"]["message"])
    assert "statusDetails" not in allure_results(pytester)["test_passes"]
    failed = allure_results(pytester)["test_fails"]["statusDetails"]["message"]
    assert failed.startswith(f"{uc} [{uc}.status] idTokenInfo.status is wrong"), failed


def test_allure_environment_names_the_sut_the_harness_and_the_redacted_profile(pytester, sut_port):
    make_suite(pytester, "ALE")
    pytester.runpytest("--alluredir", "allure", "--reports-dir", "out", *real_sut_args(pytester, sut_port))
    text = (pytester.path / "allure" / "environment.properties").read_text(encoding="ascii")
    lines = set(text.splitlines())
    assert {r"SUT\ name=Acme CSMS", r"SUT\ vendor=Acme Charging", r"SUT\ version=4.2.0",
            r"SUT\ role=csms", r"SUT\ protocol=ocpp2.0.1", "SUT\\ url=" + sut_url(sut_port),
            f"harness=evse-conformance {__version__}", r"profile\ station.identity=ACME-1"} <= lines, text
    assert r"profile\ station.password=\u00abredacted\u00bb" in lines
    assert "acme-password-000001" not in text


def test_a_test_that_does_not_apply_keeps_its_place_in_the_allure_tree(pytester, sut_port):
    """Skipped at collection (an undeclared feature), before any fixture runs: the labels still put it under
    its protocol, block and use case."""
    uc = make_suite(pytester, "ALNF")
    pytester.runpytest("--alluredir", "allure", "--reports-dir", "out", *real_sut_args(pytester, sut_port))
    result = allure_results(pytester)["test_reservation"]
    assert result["status"] == "skipped"
    assert {("epic", "OCPP 2.0.1"), ("feature", "Reservation"), ("story", uc + "R"), ("sut_role", "csms")} <= \
        set(labels_of(result))


def test_a_real_run_plays_only_its_protocol_and_role_and_says_why_the_rest_is_left_out(pytester, sut_port):
    """A 2.0.1 CSMS's run: a use case of 1.6, and one with no side for a CSMS, are deselected with why (before,
    each was "not applicable" for a reason about the profile, labelled with the run's protocol: a 1.6 test
    under "OCPP 2.0.1"); what is played carries its own protocol, and no plumbing among its parameters."""
    make_suite(pytester, "EPC")
    pytester.makepyfile(test_other=SUITE.format(uc="EPO", roles=("csms",), protocols=("ocpp1.6",)),
                        test_station=SUITE.format(uc="EPS", roles=("cs",), protocols=("ocpp2.0.1",)))
    result = pytester.runpytest("--alluredir", "allure", "--reports-dir", "out", *real_sut_args(pytester, sut_port))
    result.stdout.fnmatch_lines(["6 deselected: their use cases are not part of ocpp2.0.1, this run's protocol",
                                 "6 deselected: their use cases have no side for a SUT playing csms"])
    results = [json.loads(p.read_text()) for p in (pytester.path / "allure").glob("*-result.json")]
    assert len(results) == 7 and {dict(labels_of(r))["story"] for r in results} == {"EPC", "EPCR"}
    assert {dict(labels_of(r))["epic"] for r in results} == {"OCPP 2.0.1"}
    assert [p for r in results for p in r.get("parameters", [])] == []   # no _asyncio_loop_factory, no Target(...)
    summary = summary_of(pytester)
    assert {r["usecase"] for r in summary["results"]} == {"EPC", "EPCR"}
    assert {r["protocol"] for r in summary["results"]} == {"ocpp2.0.1"}


def test_allure_shows_no_plumbing_fixture_or_internal_finaliser_as_a_step(pytester):
    make_suite(pytester, "ALP")
    pytester.makepyfile(test_parameters="""
        import pytest

        @pytest.fixture
        def arena(request):
            yield request.param

        @pytest.mark.parametrize("case", [1, 2])
        @pytest.mark.parametrize("arena", ["a"], indirect=True)
        def test_parametrized(case, arena):
            pass
    """)
    pytester.runpytest("--alluredir", "allure", "--reports-dir", "out")
    steps = []
    for path in (pytester.path / "allure").glob("*-container.json"):
        container = json.loads(path.read_text())
        steps += [step["name"] for step in container.get("befores", []) + container.get("afters", [])]
    assert "wirelog" not in steps and "target" not in steps and "sut_settings" not in steps
    assert "case" not in steps, "a parameter shows as a set-up step"
    assert "arena" in steps and "arena (tear-down)" in steps, "a fixture of the suite's own is hidden"
    assert not [step for step in steps if step.startswith("_") or "<lambda>" in step or "::" in step], steps


# ---------------------------------------------------------------------------- the customer's report
class VisibleText(HTMLParser):
    def __init__(self):
        super().__init__()
        self.text, self.tags = [], []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))

    def handle_data(self, data):
        self.text.append(data)


def test_the_html_report_rolls_up_per_use_case_before_the_tests_and_stands_alone(pytester, sut_port):
    uc = make_suite(pytester, "HTM")
    pytester.runpytest("--reports-dir", "out", *real_sut_args(pytester, sut_port))
    html = (pytester.path / "out" / "conformance.html").read_text()
    page = VisibleText()
    page.feed(html)
    text = "".join(page.text)
    assert text.index("Use cases") < text.index("Tests") < text.index("Profile")
    assert re.search(rf"{uc}\s*A demo use case\s*Demo block\s*failed\s*6\s*2\s*2\s*1\s*1\s*2\s*1", text), text
    assert re.search(rf"{uc}R\s*Reservation\s*not applicable\s*1\s*0\s*0\s*0\s*1\s*1\s*0", text)
    for fact in ("Acme CSMS", "Acme Charging", "4.2.0", sut_url(sut_port), "CSMS", "OCPP 2.0.1",
                 f"evse-conformance {__version__}", "expected: 'Blocked'", finding(uc), "The token gets its status.",
                 "the actuator answered 501 for reserve_now", "«redacted»"):
        assert fact in text, fact
    assert "acme-password-000001" not in html
    assert not re.search(r"\b[A-Z]\w*(Error|Exception|Failure|Violation)\b|harness\.\w+\.", text)
    assert not re.search(r"\\[nu]|&\w+;|&#", text), "escaped characters show"
    assert not [tag for tag, attrs in page.tags if tag in ("script", "link", "img", "iframe") or "src" in attrs]
    assert "url(" not in html and "@import" not in html


class Folded(HTMLParser):
    """The text a reader sees before opening anything (outside closed <details>, but for their <summary>),
    each piece with the heading (<h2>) it stands under."""
    def __init__(self):
        super().__init__()
        self.closed, self.in_summary, self.in_heading, self.section, self.seen = 0, False, False, "", []

    def handle_starttag(self, tag, attrs):
        self.closed += tag == "details" and (self.closed > 0 or "open" not in dict(attrs))
        self.in_summary |= tag == "summary"
        self.in_heading |= tag == "h2"

    def handle_endtag(self, tag):
        self.closed -= tag == "details" and self.closed > 0
        self.in_summary &= tag != "summary"
        self.in_heading &= tag != "h2"

    def handle_data(self, data):
        if self.in_heading:
            self.section = data.strip()
        elif data.strip() and (not self.closed or self.in_summary):
            self.seen.append((self.section, data.strip()))


def failing_run(directory, tests=500, usecases=40) -> Summary:
    """A run as a vendor's first one looks: 500 tests of 40 use cases, 10 failed with a reason of several lines,
    2 broken, 5 passed with a finding, 20 not applicable."""
    sut = {"name": "Acme CSMS", "vendor": None, "version": None, "role": "csms", "protocol": "ocpp2.0.1", "url": None,
           "identity": "ACME-1"}
    summary = Summary(directory, sut=sut, profile={})
    for n in range(tests):
        uc = f"UC{n % usecases:02d}"
        verdict = "failed" if n % 50 == 7 else "broken" if n in (13, 213) else "skipped" if n % 25 == 3 else "passed"
        summary.add(CaseResult(
            nodeid=f"suites/test_{uc}.py::test_{n}[csms-ocpp2.0.1]", usecase=uc, certification=None, role="csms",
            protocol="ocpp2.0.1", rules=[f"{uc}.rule"], verdict=verdict, title=f"test number {n}",
            usecase_title=f"title of {uc}", findings=[f"[{uc}.should] finding {n}"] if n % 100 == 11 else [],
            reason=f"[{uc}.rule] status is wrong\n  expected: 'Blocked'\n  actual:   'Accepted'" if verdict in (
                "failed", "broken") else "not applicable: no such feature" if verdict == "skipped" else ""))
    return summary


def test_the_html_report_s_first_screen_says_what_to_fix_and_folds_the_rest(tmp_path):
    """Before, 501 tests made a page 77,762 px tall, the failures among 501 rows sorted by id and use cases
    without titles: now the failed and broken tests come first with their reasons, then the findings, the use
    cases worst first with their titles; every test is folded under its use case."""
    summary = failing_run(tmp_path)
    summary.write(interrupted=False)
    page = Folded()
    page.feed((tmp_path / "conformance.html").read_text())
    sections = list(dict.fromkeys(section for section, _ in page.seen))
    assert sections[:5] == ["", "To fix", "Findings", "Use cases", "Profile (secrets masked)"], sections
    to_fix = [text for section, text in page.seen if section == "To fix" and text.startswith("title of")]
    by_usecase = sorted(summary.results, key=lambda r: (r.usecase, r.nodeid))
    assert to_fix == [f"{r.usecase_title}: {r.title}" for verdict in ("failed", "broken") for r in by_usecase
                      if r.verdict == verdict], "the tests to fix, failed then broken, with their use case's title"
    shown = [text for _, text in page.seen]
    assert len([text for section, text in page.seen if section == "Findings" and "] finding" in text]) == 5
    rows = [text for section, text in page.seen if section == "Use cases" and text.startswith("UC")]
    titles = [text for section, text in page.seen if section == "Use cases" and text.startswith("title of UC")]
    assert len(rows) == len(titles) == 40, "every use case once, with its title"
    assert rows[:5] == ["UC07", "UC17", "UC27", "UC37", "UC13"], "the use cases with failed, then broken tests first"
    passed = {r.title for r in summary.results if r.verdict == "passed" and not r.findings}
    assert not [text for text in shown if text.rpartition(": ")[2] in passed], "a passed test shows before anything is opened"


def test_the_markdown_and_json_summaries_carry_the_same_rollup(pytester):
    uc = make_suite(pytester, "MDJ")
    pytester.runpytest("--reports-dir", "out")
    summary = summary_of(pytester)
    rollup = {u["usecase"]: u for u in summary["usecases"]}
    assert rollup[uc] | {"findings": None} == {
        "usecase": uc, "title": "A demo use case", "block": "Demo block", "verdict": "failed", "tests": 6,
        "findings": None,
        "counts": {"passed": 2, "failed": 2, "broken": 1, "skipped": 1},
        "rules": [f"{uc}.status", f"{uc}.unknown"]}
    assert rollup[uc]["findings"] == [finding(uc)]
    markdown = (pytester.path / "out" / "conformance.md").read_text()
    assert markdown.index("## Use cases") < markdown.index("## Tests")
    assert f"| {uc} | A demo use case | Demo block | failed | 6 | 2 | 2 | 1 | 1 | 2 | 1 |" in markdown
    assert f"| {uc}R |  | Reservation | not applicable | 1 | 0 | 0 | 0 | 1 | 1 | 0 |" in markdown


def test_a_run_that_writes_no_allure_results_adds_no_allure_hook(pytester):
    """allure's hooks are process-wide: a run without --alluredir (this project's own test run, around the runs
    it makes in-process) adds none that would reshape another run's Allure results."""
    pytester.makepyfile(test_hooks="""
        import allure_commons
        from harness.report import AllureTidy

        def test_no_tidy_registered():
            assert not [p for p in allure_commons.plugin_manager.get_plugins() if isinstance(p, AllureTidy)]
    """)
    pytester.runpytest("--reports-dir", "out").assert_outcomes(passed=1)
    pytester.runpytest("--reports-dir", "out", "--alluredir", "allure").assert_outcomes(failed=1)
