"""Self-checks of the verdict classes of issue #10: the harness judges systems that are not the references
right — it leaves the SUT as it found it (2), judges ConcurrentTx where a transaction starts (3), lets
optional fields be left out (4), never fails a legal answer and skips what does not apply before it
connects (5), takes the severity from the version's text (6), and reports every violation, the test's
own first (8). Classes 1 (blame), 6 (the unknown identity) and 10 (missed deviations) are faults of the
catalogs (catalog, catalog16.py: their records name the rule the failure must show).

Each check plays a variant of ``verdict_variants.py`` (or a variant of the reference profile) as the
embedded SUT in a fresh pytest subprocess, its tests in the order given — a variant that keeps its state
sees what the tests before left behind — and reads the verdicts from the run's ``conformance.json``.
"""

from __future__ import annotations

import re
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest
from test_fault_catalog import PARALLEL, REPO, run_suites

V16, V201, OCPI = "ocpp1.6", "ocpp2.0.1", "ocpi2.2.1"
REFERENCE_PROFILE = REPO / "harness" / "profiles" / "reference.toml"


def node(path: str, test: str, role: str, protocol: str, *params: str) -> str:
    return f"suites/{path}::{test}[{'-'.join((role, protocol, *params))}]"


K01, K08 = "ocpp2/smartcharging/test_K01.py", "ocpp2/smartcharging/test_K08.py"
K15, K16 = "ocpp2/smartcharging/test_K15.py", "ocpp2/smartcharging/test_K16.py"
K17 = "ocpp2/smartcharging/test_K17.py"
C01, C05 = "ocpp2/authorization/test_C01.py", "ocpp2/authorization/test_C05.py"
TX16, OFFLINE16 = "ocpp16/transactions/test_TX16.py", "ocpp16/transactions/test_OFFLINE16.py"
RESET16, BOOT16 = "ocpp16/reset/test_RESET16.py", "ocpp16/boot/test_BOOT16.py"
AUTH16, REMOTE16 = "ocpp16/authorization/test_AUTH16.py", "ocpp16/remote/test_REMOTE16.py"
CONFIG16 = "ocpp16/configuration/test_CONFIG16.py"
RESERVE16 = "ocpp16/reservation/test_RESERVE16.py"
B06, B12 = "ocpp2/provisioning/test_B06.py", "ocpp2/provisioning/test_B12.py"
K09, F05 = "ocpp2/smartcharging/test_K09.py", "ocpp2/remotecontrol/test_F05.py"
E14 = "ocpp2/transactions/test_E14.py"
F02, H03 = "ocpp2/remotecontrol/test_F02.py", "ocpp2/reservation/test_H03.py"
J02 = "ocpp2/metervalues/test_J02.py"
CONN, RPC = "ocpp/transport/test_CONN.py", "ocpp/transport/test_RPC.py"
SP2 = "ocpp/security/test_SP2.py"
SERVER_CHECKED = "test_station_refuses_a_server_certificate_it_cannot_verify"
OCPI_AUTH = "ocpi/transport/test_OCPI_AUTH.py"
OCPI_CREDS, OCPI_PULL = "ocpi/credentials/test_OCPI_CREDENTIALS.py", "ocpi/locations/test_OCPI_LOCATIONS_PULL.py"
OCPI_FORMAT = "ocpi/transport/test_OCPI_FORMAT.py"
OCPI_SESSIONS_PUSH = "ocpi/sessions/test_OCPI_SESSIONS_PUSH.py"
OCPI_TOKENS_AUTHORIZE = "ocpi/tokens/test_OCPI_TOKENS_AUTHORIZE.py"
OCPI_TOKENS_PUSH = "ocpi/tokens/test_OCPI_TOKENS_PUSH.py"


@dataclass(frozen=True)
class Verdict:
    """What one test of a check must end with: its verdict and words of its reason, in this order."""
    node: str
    verdict: str
    shows: tuple[str, ...] = ()
    findings: bool = True   # False: the test must report no finding

    def seen_in(self, result: dict) -> bool:
        reason = result["reason"]
        positions = [reason.find(words) for words in self.shows]
        return (result["verdict"] == self.verdict and -1 not in positions and positions == sorted(positions)
                and (self.findings or not result["findings"]))


@dataclass(frozen=True)
class Check:
    name: str                      # the class of issue #10 it checks, and what it plays
    variant: str | None            # ``module:Class`` played as the embedded SUT; None: the references
    verdicts: tuple[Verdict, ...]  # its tests, played in this order in one run
    profile: str = "reference"     # a variant of the reference profile: see PROFILES


def _without(*keys: str):
    """The reference profile without the [station] ``registered`` line (when named) and the [tokens] table."""
    def variant(text: str) -> str:
        if "registered" in keys:
            text = re.sub(r"^registered = .*\n", "", text, flags=re.M)
        if "tokens" in keys:
            text = re.sub(r"^\[tokens\]\n(?:(?!\[).*\n)*", "", text, flags=re.M)
        return text
    return variant


PROFILES = {"reference": lambda text: text, "unregistered": _without("registered"),
            "unregistered-without-tokens": _without("registered", "tokens"),
            "profile-3-only": lambda text: text.replace("security_profiles = [2, 3]", "security_profiles = [3]")}

CHECKS = (
    # 2. Tests leave the SUT as they found it, whatever their verdict.
    Check("2-a-station-that-keeps-its-profiles-and-transactions", "verdict_variants:StationThatKeepsItsState", (
        Verdict(node(K01, "test_profile_with_an_installed_id_replaces_it", "cs", V201), "passed"),
        Verdict(node(K08, "test_composite_is_the_installed_profiles_combined", "cs", V201, "stack-levels"), "passed"),
        Verdict(node(C05, "test_remote_start_is_correlated_by_remote_start_id", "cs", V201), "passed"),
        Verdict(node(C05, "test_remote_stop_ends_the_transaction", "cs", V201), "passed"))),
    # An idTag presented without a cable is used up, so that the next test's cable starts nothing of it; a
    # transaction the test left is stopped remotely, so that the next test finds its connector free.
    Check("2-a-charge-point-that-keeps-its-connectors", "verdict_variants:ChargePointThatKeepsItsConnectors", (
        Verdict(node(AUTH16, "test_presented_tag_gets_its_status", "cs", V16, "Accepted"), "passed"),
        Verdict(node(REMOTE16, "test_remote_start_with_the_cable_in", "cs", V16), "passed"),
        Verdict(node(AUTH16, "test_charge_point_starts_only_for_an_accepted_tag", "cs", V16, "accepted"), "passed"))),
    Check("2-a-central-system-that-remembers-after-skipped-tests", "verdict_variants:CentralSystemThatRemembers", (
        Verdict(node(RESET16, "test_reset_stops_the_running_transaction", "csms", V16, "Hard"), "skipped",
                ("does not implement the action 'reset'",)),
        Verdict(node(TX16, "test_full_transaction_stopped_by_its_own_tag", "csms", V16), "passed"),
        Verdict(node(BOOT16, "test_pending_charge_point_is_configured_then_accepted", "csms", V16), "skipped",
                ("does not implement the action 'change_configuration'",)),
        Verdict(node(BOOT16, "test_boot_is_accepted", "csms", V16), "passed"))),
    # 3. ConcurrentTx is judged on a second TransactionEvent Started; Authorize may answer either reading.
    Check("3-authorize-of-a-charging-token-accepted", "verdict_variants:CsmsAuthorizesAChargingTokenToStop", (
        Verdict(node(C01, "test_token_in_a_transaction_is_concurrent", "csms", V201), "passed"),)),
    Check("3-authorize-of-a-charging-token-concurrent", "verdict_variants:CsmsAnswersConcurrentTxOnAuthorize", (
        Verdict(node(C01, "test_token_in_a_transaction_is_concurrent", "csms", V201), "passed"),)),
    # 4. Optional means optional.
    Check("4-stop-transaction-conf-without-id-tag-info", "verdict_variants:CentralSystemLeavesOutStopIdTagInfo", (
        Verdict(node(TX16, "test_full_transaction_stopped_by_its_own_tag", "csms", V16), "passed"),
        Verdict(node(OFFLINE16, "test_queued_stop_transaction_is_processed", "csms", V16), "passed"))),
    # 5. A legal order of reports gets no finding either: the harness's steps wait for what a driver waits for.
    Check("5-cable-reported-after-its-event-is-no-finding", "legal_variants:StationReportingTheCableAfterItsEvent", (
        Verdict(node("ocpp2/transactions/test_E03.py", "test_authorization_first_then_cable", "cs", "ocpp2.1"),
                "passed", findings=False),)),
    # 5. Legal answers are not violations, unless the profile declares what the SUT must do.
    Check("5-pending-for-a-station-the-profile-declares-registered", "verdict_variants:CsmsKeepsStationsPending", (
        Verdict(node(CONN, "test_boot_is_accepted", "csms", V201), "failed", ("[registration.accepted]", "'Pending'")),)),
    Check("5-pending-for-a-station-the-profile-does-not-declare", "verdict_variants:CsmsKeepsStationsPending", (
        Verdict(node(CONN, "test_boot_is_accepted", "csms", V201), "broken", ("'Pending'", "registered = true")),),
          profile="unregistered"),
    Check("5-not-applicable-before-any-connection", "verdict_variants:CsmsKeepsStationsPending", (
        Verdict(node(C01, "test_token_is_checked_again_in_transaction_event", "csms", V201), "skipped",
                ("no idToken that must get status Blocked",)),
        Verdict(node(C01, "test_presented_token_gets_its_status", "csms", V201, "Expired"), "skipped",
                ("no idToken that must get status Expired",))), profile="unregistered-without-tokens"),
    # 5. ... nor is a CALL of the CSMS's own of the same action, sent before the one its operator asked for.
    Check("5-a-read-of-its-own-before-the-one-asked-for-16", "verdict_variants:CentralSystemReadsBeforeItActs", (
        Verdict(node(CONFIG16, "test_writable_key_is_changed", "csms", V16), "passed"),)),
    Check("5-a-read-of-its-own-before-the-one-asked-for-2x", "verdict_variants:CsmsReadsBeforeItActs", (
        Verdict(node(B06, "test_get_two_variables", "csms", V201), "passed"),)),
    Check("5-reboot-required-to-apply-a-value", "verdict_variants:ChargePointNeedsARebootForIntervals", (
        Verdict(node(CONFIG16, "test_writable_key_is_changed", "cs", V16), "skipped", ("RebootRequired",)),)),
    Check("5-another-session-changes-meanwhile", "verdict_variants:BusyCpo", (
        Verdict(node(OCPI_SESSIONS_PUSH, "test_completed_is_final", "cpo", OCPI), "passed"),
        Verdict(node(OCPI_SESSIONS_PUSH, "test_new_session_is_put_and_held", "cpo", OCPI, "in_process"), "passed"),
        Verdict(node(OCPI_SESSIONS_PUSH, "test_pending_becomes_active_at_the_moment_of_activation", "cpo", OCPI),
                "passed"),
        Verdict(node(OCPI_TOKENS_AUTHORIZE, "test_token_needing_realtime_is_authorized_at_the_emsp", "cpo", OCPI,
                     "valid", "NEVER"), "passed"),
        Verdict(node(OCPI_TOKENS_AUTHORIZE, "test_always_token_is_let_in_without_asking", "cpo", OCPI), "passed"))),
    Check("5-another-driver-s-token-meanwhile", "verdict_variants:BusyEmsp", (
        Verdict(node(OCPI_TOKENS_PUSH, "test_new_token_is_put_and_held", "emsp", OCPI, "in_process"), "passed"),
        Verdict(node(OCPI_TOKENS_PUSH, "test_invalidated_token_is_patched_valid_false", "emsp", OCPI), "passed"),
        Verdict(node(OCPI_TOKENS_PUSH, "test_whitelist_change_is_patched", "emsp", OCPI), "passed"))),
    # 6. Severity from the version's text: 1.6 words ProtocolError for an incomplete payload.
    Check("6-protocol-error-names-a-missing-field-in-16", "verdict_variants:ChargePointSaysProtocolErrorForAMissingField", (
        Verdict(node(RPC, "test_malformed_call_is_refused_with_the_code_for_its_fault", "cs", V16, "missing"), "passed",
                findings=False),)),
    # 8. Every violation in one failure, the test's own first.
    Check("8-own-rule-then-background-ocpp", "verdict_variants:CsmsAcceptsBlockedTokensAndSendsAStrayAnswer", (
        Verdict(node(C01, "test_presented_token_gets_its_status", "csms", V201, "Blocked"), "failed",
                ("[C01.status]", "[rpc.matches]")),)),
    Check("8-own-rule-then-background-ocpi", "verdict_variants:Answers403AndForgetsTheRequestId", (
        Verdict(node(OCPI_AUTH, "test_unknown_token_gets_401", "cpo", OCPI, "credentials"), "failed",
                ("[ocpi.auth.header]", "HTTP 403", "[ocpi.headers.echo_ids]")),)),
    Check("8-own-rules-held-background-ocpi", "catalog_ocpi:ForgetsTheRequestId", (
        Verdict(node(OCPI_AUTH, "test_unknown_token_gets_401", "cpo", OCPI, "credentials"), "failed",
                ("[ocpi.headers.echo_ids]", "the rules this test checks held")),)),
    # 8. A violation in a shared prerequisite (the registration) is reported once, by the tests that own it.
    Check("8-prerequisite-violation-reported-by-its-owner", "verdict_variants:ForgetsTheRequestIdOfCredentials", (
        Verdict(node(OCPI_CREDS, "test_second_post_is_refused_with_405", "cpo", OCPI), "failed",
                ("[ocpi.headers.echo_ids]",)),
        Verdict(node(OCPI_PULL, "test_pages_chain_completely", "cpo", OCPI), "skipped",
                ("prerequisite failed: [ocpi.headers.echo_ids]", "during the registration", "OCPI_CREDENTIALS")),
        Verdict(node(OCPI_FORMAT, "test_answer_is_an_envelope_with_the_request_ids", "cpo", OCPI, "unknown_object"),
                "failed", ("[ocpi.headers.echo_ids]",)))),
    # 8. ... and in OCPP: K16's and K17's renegotiations start from K15's first negotiation, which the CSMS breaks;
    # a CSMS that stays silent there is failed by K15 alone, and K16 and K17 are not applicable (K17 was broken:
    # the harness's station waited for a schedule the CSMS never sent).
    Check("8-prerequisite-violation-reported-by-its-owner-ocpp", "verdict_variants:CsmsProcessingWithoutASchedule", (
        Verdict(node(K15, "test_charging_needs_lead_to_a_schedule", "csms", V201, "ac"), "failed",
                ("[chargingprofile.needs_schedule]", "did not send SetChargingProfile")),
        Verdict(node(K17, "test_ev_renegotiates_its_schedule", "csms", V201), "skipped",
                ("prerequisite failed: [chargingprofile.needs_schedule]", "during the first negotiation",
                 "the tests of K15")),
        Verdict(node(K16, "test_ev_schedule_beyond_the_limits_is_acknowledged", "csms", V201), "skipped",
                ("prerequisite failed: [chargingprofile.needs_schedule]", "the tests of K15")))),
    # 8. ... and where a test reaches what it judges through another use case's steps (bench/broken_sweep.py found
    # each of these broken: the harness's own side blamed for what the SUT sent): K09's profiles are K01's to
    # install, F05's and F06's remote start F01's, E14's delivered Ended event E01's, K01's external limit K12's,
    # RESERVE16's group member authorized with its parentIdTag AUTH16's.
    Check("8-prerequisite-installation-is-k01-s", "catalog.smart_charging:CsmsSendsStationMaxPerEvse", (
        Verdict(node(K09, "test_csms_asks_for_the_profiles_it_was_asked_for", "csms", V201, "station-level"),
                "skipped", ("prerequisite failed: [chargingprofile.sent]", "installation of charging profile",
                            "the tests of K01")),)),
    Check("8-prerequisite-remote-start-is-f01-s", "catalog.remote_control:CsmsStartsOnTheNextEvse", (
        Verdict(node(F05, "test_unlock_during_an_authorized_transaction", "csms", V201), "skipped",
                ("prerequisite failed: [remote_start.request]", "evseId", "the tests of F01")),)),
    Check("8-prerequisite-delivered-ended-event-is-e01-s", "catalog.transactions:CsmsRefusesTransactionEvents", (
        Verdict(node(E14, "test_status_of_an_ended_transaction", "csms", V201), "skipped",
                ("prerequisite failed: [tx.answered]", "the tests of E01")),)),
    Check("8-prerequisite-external-limit-is-k12-s", "catalog.smart_charging_limits:StationIgnoresExternalLimit", (
        Verdict(node(K01, "test_external_profile_cannot_be_replaced_by_id", "cs", V201), "skipped",
                ("prerequisite failed: [chargingprofile.external_held]", "the tests of K12")),)),
    Check("8-prerequisite-group-authorization-is-auth16-s", "catalog16:CentralSystemDropsParentIdTag", (
        Verdict(node(RESERVE16, "test_group_member_uses_the_reservation", "csms", V16), "skipped",
                ("prerequisite failed: [core16.group]", "the tests of AUTH16")),)),
    Check("8-prerequisite-own-central-token-is-c05-s", "catalog.authorization:CsmsRefusesItsOwnCentralToken", (
        Verdict(node(B12, "test_reset_on_idle_waits_for_the_transaction", "csms", V201, "evse"), "skipped",
                ("prerequisite failed: [remote_start.own_token]", "the tests of C05")),
        Verdict(node(F02, "test_no_cable_within_the_connection_timeout", "csms", V201), "skipped",
                ("prerequisite failed: [remote_start.own_token]", "the tests of C05")))),
    Check("8-prerequisite-idle-reset-is-b11-s", "catalog.provisioning:StationSchedulesIdleResets", (
        Verdict(node("ocpp2/security/test_A05.py", "test_upgrade_used_after_reboot", "cs", V201), "skipped",
                ("prerequisite failed: [reset2.idle]", "the tests of B11")),)),
    Check("8-prerequisite-group-member-is-c01-s", "catalog.authorization:CsmsDropsGroupIdToken", (
        Verdict(node(H03, "test_a_group_member_uses_the_reservation", "csms", V201), "skipped",
                ("prerequisite failed: [authorize.group]", "the tests of C01")),)),
    # 8. A transaction that never starts fails the MUST it needs, not the harness (J02 read the Started event it
    # did not get).
    Check("8-missing-start-fails-its-must", "catalog.authorization:StationHangsUpOnATokenInsteadOfAuthorizing", (
        Verdict(node(J02, "test_periodic_samples_during_a_transaction", "cs", V201), "failed", ("[tx.started]",)),)),
    # 8. A station goes on after a StatusNotification the CSMS refused (a SHOULD, G01's): the harness's station
    # stopped there and the test blamed it for the TransactionEvent it never sent.
    Check("8-refused-status-report-is-no-dead-end", "catalog.availability:CsmsRefusesOccupied", (
        Verdict(node("ocpp2/authorization/test_C02.py", "test_start_button_starts_without_authorization", "csms", V201,
                     "button_first"), "passed"),)),
    Check("8-refused-status-reports-are-no-dead-end", "catalog.provisioning:CsmsRefusesReportsAfterTheBoot", (
        Verdict(node("ocpp2/availability/test_G04.py", "test_station_made_inoperative_and_operative", "csms", V201),
                "passed"),)),
    # 8. A SHOULD row the station breaks is a finding, and the test goes on without what it did not send (B12
    # read the missing Ended event's stoppedReason and crashed).
    Check("8-should-row-silence-leaves-a-finding", "catalog.provisioning:StationAcceptsResetsAndStays", (
        Verdict(node(B12, "test_immediate_reset_ends_the_transaction", "cs", V201, "evse"), "passed"),)),
    Check("8-should-row-silence-leaves-a-finding-f04", "catalog.authorization:StationAcceptsRemoteStopButKeepsCharging",
          (Verdict(node("ocpp2/remotecontrol/test_F04.py", "test_remote_stop_of_an_iso15118_transaction", "cs", V201),
                   "passed"),)),
    Check("1-refused-triggered-meter-values-fail-answered", "catalog.meter_values:CsmsRefusesMeterValues", (
        Verdict(node("ocpp2/remotecontrol/test_F06.py", "test_triggered_meter_values_of_every_evse", "csms", V201),
                "failed", ("[F06.answered]", "CALLERROR")),)),
    Check("1-refused-offline-event-fails-the-test-s-rule", "catalog.transactions:CsmsRefusesOfflineEvents", (
        Verdict(node("ocpp2/authorization/test_C14.py", "test_listed_token_starts_offline", "csms", V201), "failed",
                ("[C14.offline_checked]", "CALLERROR")),)),
    # 1. A CALL of the harness's side the SUT never answers is the SUT's silence, not the harness's (F06 said its
    # own side sent no Heartbeat).
    Check("1-unanswered-harness-call-is-the-sut-s-silence", "catalog.transport:CsmsNeverAnswersHeartbeat", (
        Verdict(node("ocpp2/remotecontrol/test_F06.py", "test_triggered_message_follows", "csms", V201, "Heartbeat"),
                "failed", ("[rpc.answered]", "did not answer the harness's Heartbeat")),)),
    Check("8-prerequisite-ended-event-before-the-restart-is-e01-s", "catalog.transactions:CsmsRefusesTransactionEvents",
          (Verdict(node(B12, "test_immediate_reset_ends_the_transaction", "csms", V201, "station"), "skipped",
                   ("prerequisite failed: [tx.answered]", "the tests of E01")),)),
    # 1. A CALLERROR the test's own rule forbids is its failure (C05 called it "cannot be judged", broken).
    Check("1-refused-heartbeat-fails-keeps-serving", "catalog.availability:CsmsRefusesHeartbeats", (
        Verdict(node(C05, "test_csms_survives_a_rejected_remote_start", "csms", V201), "failed",
                ("[C05.keeps_serving]", "CALLERROR")),)),
    # 9. What a SUT is set up for is asked: a station set up for security profile 3 alone is asked for its check
    # of the server's certificate, at profile 3, judged by the TLS handshake's outcome.
    Check("9-station-of-profile-3-alone-is-asked", None, (
        Verdict(node(SP2, SERVER_CHECKED, "cs", V201, "expired"), "passed"),
        Verdict(node(SP2, "test_station_refuses_a_server_speaking_only_old_tls", "cs", V201, "TLSv1.1"), "passed")),
          profile="profile-3-only"),
    Check("9-station-of-profile-3-alone-checking-no-server", "catalog.security:StationOfProfile3ChecksNoServer", (
        Verdict(node(SP2, SERVER_CHECKED, "cs", V201, "other_root"), "failed",
                ("[SP2.server_checked]", "the station connected to a server with a other root certificate")),),
          profile="profile-3-only"),
)


def _play(directory: Path, check: Check):
    profile = directory / f"{check.profile}.toml"
    profile.write_text(PROFILES[check.profile](REFERENCE_PROFILE.read_text(encoding="utf-8")), encoding="utf-8")
    options = [f"--sut-profile={profile}"] + ([f"--embedded-sut={check.variant}"] if check.variant else [])
    return run_suites(directory, [v.node for v in check.verdicts], *options)


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    with ThreadPoolExecutor(PARALLEL) as pool:
        yield {check.name: pool.submit(_play, tmp_path_factory.mktemp(check.name), check) for check in CHECKS}


def test_the_checks_name_tests_that_exist():
    for check in CHECKS:
        for verdict in check.verdicts:
            assert (REPO / verdict.node.partition("::")[0]).is_file(), f"{check.name}: no suite file for {verdict.node}"


@pytest.mark.parametrize("check", CHECKS, ids=lambda check: check.name)
def test_the_verdict_class_holds(runs, check: Check):
    result, verdicts = runs[check.name].result()
    wrong = {v.node: (verdicts.get(v.node, {}).get("verdict"), verdicts.get(v.node, {}).get("reason", "")[:600],
                      verdicts.get(v.node, {}).get("findings"))
             for v in check.verdicts if v.node not in verdicts or not v.seen_in(verdicts[v.node])}
    assert not wrong, f"{check.name}: {wrong}\n{result.stdout.str()[-3000:]}"
