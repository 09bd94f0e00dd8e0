"""No use case reads what the SUT answered without the verdict on a CALLERROR (issue 32).

``Exchange.response`` is the raw CALLRESULT payload, None when a CALLERROR answered instead; a test that
indexes it crashes (broken) where the SUT may have refused an optional message legally. Every use case,
suite and arena reads ``Exchange.result`` (``harness.ocpp.answers``), which turns a CALLERROR into its
verdict. The check: in ``harness/usecases``, ``harness/arena*.py`` and ``suites`` no expression reads an
attribute named ``response`` (a call of a method so named, like a rule's ``response()``, is not a read).
"""

import ast
from pathlib import Path

import pytest

from harness.errors import HarnessError, NotApplicable
from harness.ocpp.answers import Answers, result_of
from harness.ocpp.framing import CallError
from harness.ocpp.versions import OcppVersion
from harness.verdict import CaseContext, ConformanceFailure, enter_case, leave_case

REPO = Path(__file__).resolve().parents[2]
JUDGED = sorted([*(REPO / "harness" / "usecases").glob("*.py"), *(REPO / "harness").glob("arena*.py"),
                 *(REPO / "suites").rglob("*.py")])


def raw_response_reads(source: str) -> list[int]:
    """The lines of ``source`` that read an attribute ``response`` other than to call it."""
    tree = ast.parse(source)
    called = {id(node.func) for node in ast.walk(tree) if isinstance(node, ast.Call)}
    return [node.lineno for node in ast.walk(tree)
            if isinstance(node, ast.Attribute) and node.attr == "response" and id(node) not in called]


@pytest.mark.parametrize("path", JUDGED, ids=lambda p: str(p.relative_to(REPO)))
def test_answers_are_read_through_their_verdict(path):
    lines = raw_response_reads(path.read_text(encoding="utf-8"))
    assert not lines, f"{path.relative_to(REPO)} reads .response at lines {lines}: read .result, which judges a CALLERROR"


def test_the_check_catches_a_raw_read():
    assert raw_response_reads("status = exchange.response['status']\nrows = rule.response()\n") == [1]
    assert raw_response_reads("status = exchange.result['status']\n") == []


@pytest.fixture
def station_2x():
    token = enter_case(CaseContext(usecase="K09", sut_role="cs", protocol="ocpp2.0.1"))
    yield
    leave_case(token)


def _refused(action: str, code: str = "NotSupported", *, incoming: bool = False):
    return result_of(action, OcppVersion.V201, None, CallError("1", code, "no"), incoming=incoming)


def test_a_legal_refusal_of_an_optional_message_is_not_applicable(station_2x):
    with pytest.raises(NotApplicable, match="GetChargingProfiles"):
        _refused("GetChargingProfiles")


def test_a_refusal_of_a_required_message_fails_its_row(station_2x):
    with pytest.raises(ConformanceFailure) as failure:
        _refused("RequestStartTransaction", "NotImplemented")
    assert failure.value.rule is Answers.implemented


def test_another_error_is_a_finding_and_the_test_cannot_go_on(station_2x):
    with pytest.warns(UserWarning, match=r"answer\.processed"), pytest.raises(HarnessError, match="cannot be judged"):
        _refused("GetChargingProfiles", "InternalError")


def test_the_harness_refusing_the_suts_call_is_broken(station_2x):
    with pytest.raises(HarnessError):
        _refused("TransactionEvent", "InternalError", incoming=True)


def test_a_callresult_is_its_payload():
    assert result_of("GetChargingProfiles", OcppVersion.V201, {"status": "NoProfiles"}, None,
                     incoming=False) == {"status": "NoProfiles"}
