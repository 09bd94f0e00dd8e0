"""Self-check of issue #32: every legal reading passes. Each check plays a variant of ``legal_variants.py`` as the
embedded SUT in a fresh pytest subprocess (as test_verdict_classes.py does) and reads the verdicts from the run's
``conformance.json``: a legal system is never failed, nor a harness-side limit blamed on it.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from test_fault_catalog import PARALLEL, REPO, run_suites
from test_verdict_classes import RPC, V201, Check, Verdict, node

K05 = "ocpp2/smartcharging/test_K05.py"

MALFORMED = "test_malformed_call_is_refused_with_the_code_for_its_fault"

CHECKS = (
    # the malformed CALLs ride on an action every CSMS must take, not on the optional DataTransfer
    Check("csms-without-data-transfer", "legal_variants:CsmsWithoutDataTransfer", tuple(
        Verdict(node(RPC, MALFORMED, "csms", V201, fault), "passed")
        for fault in ("missing", "type", "property", "extra", "formation", "unknown"))),
    # "-1" is the framework error's id for a frame its receiver could not read
    Check("csms-answering-minus-one", "legal_variants:CsmsAnsweringEveryUnreadableFrameMinusOne", (
        Verdict(node(RPC, "test_unknown_message_type_is_refused_with_a_code_of_the_version", "csms", V201), "passed",
                findings=False),)),
    # an action's meaning never changes: an adapter from before K05 cannot start with a profile, so K05 does not apply
    Check("csms-actuator-from-before-k05", "legal_variants:CsmsWithAnActuatorFromBeforeK05", (
        Verdict(node(K05, "test_csms_starts_with_the_profile_it_was_asked_for", "csms", V201), "skipped",
                ("request_start_transaction_with_profile",)),)),
)


def _play(directory: Path, check: Check):
    options = [f"--embedded-sut={check.variant}"] if check.variant else []
    return run_suites(directory, [v.node for v in check.verdicts], *options)


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    with ThreadPoolExecutor(PARALLEL) as pool:
        yield {check.name: pool.submit(_play, tmp_path_factory.mktemp(check.name), check) for check in CHECKS}


@pytest.mark.parametrize("check", CHECKS, ids=lambda check: check.name)
def test_a_legal_variant_is_judged_right(runs, check: Check):
    result, verdicts = runs[check.name].result()
    wrong = {v.node: (verdicts.get(v.node, {}).get("verdict"), verdicts.get(v.node, {}).get("reason", "")[:600])
             for v in check.verdicts if v.node not in verdicts or not v.seen_in(verdicts[v.node])}
    assert not wrong, f"{check.name}: {wrong}\n{result.stdout.str()[-3000:]}"
