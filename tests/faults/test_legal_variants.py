"""Self-check of issue #32: every legal reading passes. Each check plays a variant of ``legal_variants.py`` (or a
fault the legal reading of another system hid) as the embedded SUT in a fresh pytest subprocess, with the reference
profile or a variant of it (as test_verdict_classes.py does), and reads the verdicts from the run's
``conformance.json``: a legal system is never failed, nor a harness-side limit blamed on it, and what a SUT is set
up for is asked.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from test_fault_catalog import PARALLEL, REPO, run_suites
from test_verdict_classes import REFERENCE_PROFILE, RPC, V201, Check, Verdict, node

K05, SP2 = "ocpp2/smartcharging/test_K05.py", "ocpp/security/test_SP2.py"
SERVER_CHECKED = "test_station_refuses_a_server_certificate_it_cannot_verify"
PROFILES = {"reference": lambda text: text,
            "profile-3-only": lambda text: text.replace("security_profiles = [2, 3]", "security_profiles = [3]")}

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
    # a station set up for profile 3 alone is asked for its check of the server, at profile 3
    Check("station-of-profile-3-alone-is-asked", None, (
        Verdict(node(SP2, SERVER_CHECKED, "cs", V201, "expired"), "passed"),
        Verdict(node(SP2, "test_station_refuses_a_server_speaking_only_old_tls", "cs", V201, "TLSv1.1"), "passed")),
          profile="profile-3-only"),
    Check("station-of-profile-3-alone-checking-no-server", "catalog:StationOfProfile3ChecksNoServer", (
        Verdict(node(SP2, SERVER_CHECKED, "cs", V201, "other_root"), "failed",
                ("[SP2.server_checked]", "the station connected to a server with a other root certificate")),),
          profile="profile-3-only"),
)


def _play(directory: Path, check: Check):
    profile = directory / f"{check.profile}.toml"
    text = REFERENCE_PROFILE.read_text(encoding="utf-8")
    profile.write_text(PROFILES[check.profile](text), encoding="utf-8")
    assert check.profile == "reference" or profile.read_text(encoding="utf-8") != text, f"{check.profile}: no change"
    options = [f"--sut-profile={profile}"] + ([f"--embedded-sut={check.variant}"] if check.variant else [])
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
