"""The hostile-SUT gallery (issue #16): a slice of the suites played against each peer of
``hostile.py``, a system under test that breaks the wire rather than a rule of a use case.

Each run is a pytest session of its own (played like the fault catalog's, see suite_runner.py) on
the embedded run's virtual clock, with the hostile peer where the SUT stands. It must end by
itself within ``RUN_BOUND`` seconds, with no INTERNALERROR and no traceback on stderr (a task of
the harness that died, an exception nobody retrieved), and each test the peer affects must end
failed or broken with a reason that names what the peer did. A test the peer does not affect (a
CSMS that answers the boot correctly and breaks down later passes the boot test) may pass.

And no test passes against a SUT that does nothing: every OCPP suite is played against a CSMS and a
station that complete the WebSocket handshake and then stay silent; only the tests that judge that
handshake may pass.
"""

import inspect
import re
from dataclasses import dataclass

import hostile
import pytest
from test_fault_catalog import started

RUN_BOUND = 60   # seconds of wall time for one peer's run; each plays a few tests on virtual time
IDLE_BOUND = 240  # seconds of wall time for every OCPP suite against a silent peer (a busy machine: 90 s)

BOOT = "suites/ocpp/transport/test_CONN.py::test_boot_is_accepted"
NOT_JSON = "suites/ocpp/transport/test_RPC.py::test_text_that_is_not_json_does_not_break_the_connection"
UNKNOWN_TYPE = "suites/ocpp/transport/test_RPC.py::test_unknown_message_type_is_refused_with_a_code_of_the_version"
TOKEN = "suites/ocpp2/authorization/test_C01.py::test_presented_token_gets_its_status"
BOOT16 = "suites/ocpp16/boot/test_BOOT16.py::test_boot_is_accepted"
STATION_BOOT = "suites/ocpp/transport/test_CONN.py::test_station_boots_when_it_connects"
STATION_BOOT16 = "suites/ocpp16/boot/test_BOOT16.py::test_accepted_boot_reports_every_connector"

CSMS_20 = (f"{BOOT}[csms-ocpp2.0.1]", f"{TOKEN}[csms-ocpp2.0.1-Accepted]", f"{NOT_JSON}[csms-ocpp2.0.1]")
CSMS = CSMS_20 + (f"{BOOT16}[csms-ocpp1.6]",)
STATION = (f"{STATION_BOOT}[cs-ocpp2.0.1]", f"{NOT_JSON}[cs-ocpp2.0.1]", f"{UNKNOWN_TYPE}[cs-ocpp2.0.1]",
           f"{STATION_BOOT16}[cs-ocpp1.6]")
OCPI = ("suites/ocpi/credentials/test_OCPI_CREDENTIALS.py::test_registration[cpo-ocpi2.2.1-by_emsp]",
        "suites/ocpi/transport/test_OCPI_AUTH.py::test_missing_authorization_gets_401[cpo-ocpi2.2.1-versions]",
        "suites/ocpi/locations/test_OCPI_LOCATIONS_PULL.py::test_pages_chain_completely[cpo-ocpi2.2.1]")
CSMS_BOOT_20 = (f"{BOOT}[csms-ocpp2.0.1]",)   # a CSMS that answers the boot and breaks down later passes it


@dataclass(frozen=True)
class Hostile:
    cls: type
    selection: tuple[str, ...]
    reason: str                      # a regular expression every affected test's reason matches
    unaffected: tuple[str, ...] = ()  # tests the peer's behaviour leaves alone: they may pass

    @property
    def name(self) -> str:
        return self.cls.__name__


GALLERY = [
    # ---------------------------------------------------------------- SUT = CSMS
    Hostile(hostile.SilentCsms, CSMS, r"no answer to BootNotification within 5 s.*'silence'"),
    Hostile(hostile.BootThenCloseCsms, CSMS, r"the peer closed the connection \(1011 going away mid-dialogue\)",
            CSMS_BOOT_20),
    Hostile(hostile.AnswersTwiceCsms, CSMS, r"\[rpc\.matches\] answer to no CALL of ours"),
    Hostile(hostile.WrongIdCsms, CSMS, r"the peer sent instead an answer with message id 'x", CSMS_BOOT_20),
    Hostile(hostile.CallErrorCsms, CSMS, r"CALLERROR.*InternalError"),
    Hostile(hostile.GarbageCsms, CSMS, r"the peer sent instead 3 frames that are not OCPP-J", CSMS_BOOT_20),
    Hostile(hostile.HugeFrameCsms, CSMS, r"larger than the harness's limit of 1048576 bytes", CSMS_BOOT_20),
    Hostile(hostile.DeepJsonCsms, CSMS, r"the peer sent instead 1 frame that is not OCPP-J", CSMS_BOOT_20),
    # 1.6 words one CALL at a time as a SHOULD: there a flood is a finding, so the 2.0.1 tests judge it
    Hostile(hostile.FloodCsms, CSMS_20, r"rpc\.one_at_a_time ×\d+"),
    Hostile(hostile.PipelineCsms, CSMS_20, r"\[rpc\.one_at_a_time\] the peer sent CALL ClearCache before"),
    Hostile(hostile.NoHandshakeCsms, CSMS, r"cannot open a WebSocket to .*did not complete within 5 s \(\[timeouts\] connect"),
    # ---------------------------------------------------------------- SUT = station
    Hostile(hostile.SilentStation, STATION, r"no answer to \w+ within 5 s.*'silence'"),
    Hostile(hostile.ReconnectLoopStation, STATION,
            r"the peer closed the connection|not every connector was reported after the boot",
            (f"{STATION_BOOT}[cs-ocpp2.0.1]",)),
    Hostile(hostile.SchemaInvalidStation, STATION, r"\[rpc\.schema\] \w+ (request|response) breaks its schema"),
    Hostile(hostile.DeepJsonStation, STATION, r"\[framing\.depth\] message nested deeper than 64 levels"),
    # ---------------------------------------------------------------- SUT = OCPI platform
    Hostile(hostile.SleepyOcpi, OCPI, r"no HTTP answer \(no answer within 5 s\)"),
    Hostile(hostile.Html500Ocpi, OCPI, r"HTTP 500 where .* (is|was) due.*not valid JSON"),
    Hostile(hostile.HugeBodyOcpi, OCPI, r"the body of the HTTP 200 answer passed the harness's limit of \d+ bytes"),
    Hostile(hostile.EndlessBodyOcpi, OCPI, r"no HTTP answer \(no answer within 5 s\)"),
    Hostile(hostile.RedirectLoopOcpi, OCPI, r"HTTP 302 where .* (is|was) due"),
    Hostile(hostile.SlowDripOcpi, OCPI, r"no HTTP answer \(no answer within 5 s\)"),
]


# a silent peer, the tests it is played against (every OCPP suite of its role), and those that judge only
# the handshake it does complete
IDLE = {"SilentCsms": ("csms", {"test_csms_picks_the_offered_subprotocol", "test_unknown_identity_is_refused_with_404",
                                "test_csms_serves_no_connection_that_offered_no_subprotocol"}),
        "SilentStation": ("cs-", {"test_station_offers_its_subprotocol_and_credentials"})}
OCPP_SUITES = ("suites/ocpp", "suites/ocpp2", "suites/ocpp16")


def _run_of(item: pytest.Item) -> str:
    params = item.callspec.params
    return params["peer"].name if "peer" in params else f"idle-{params['idle']}"


@pytest.fixture(scope="module")
def runs(request, tmp_path_factory):
    jobs = {peer.name: (peer.selection, (f"--embedded-sut=hostile:{peer.name}",), RUN_BOUND) for peer in GALLERY}
    jobs |= {f"idle-{name}": (OCPP_SUITES, (f"--embedded-sut=hostile:{name}", "-k", role), IDLE_BOUND)
             for name, (role, _) in IDLE.items()}
    with started(request, tmp_path_factory, jobs, _run_of) as runs:
        yield runs


def _clean(result) -> None:
    """The run ended by itself, without an INTERNALERROR or a traceback of the harness on stderr."""
    output, errors = "\n".join(result.outlines), "\n".join(result.errlines)
    assert result.ret in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED), output[-3000:]
    assert "INTERNALERROR" not in output, output[-3000:]
    assert not re.search(r"Traceback|never retrieved|Exception ignored", errors), errors[-3000:]


def test_the_gallery_holds_every_peer_of_hostile_py():
    peers = {cls for _, cls in inspect.getmembers(hostile, inspect.isclass)
             if cls.__module__ == hostile.__name__ and not cls.__name__.startswith(("Hostile", "_"))}
    assert peers == {peer.cls for peer in GALLERY}
    assert len(GALLERY) >= 16


@pytest.mark.parametrize("peer", GALLERY, ids=lambda peer: peer.name)
def test_a_hostile_peer_ends_the_run_with_a_reason_for_each_test(peer, runs):
    result, verdicts = runs[peer.name].result()   # TimeoutExpired: the run hung past RUN_BOUND
    _clean(result)
    assert set(verdicts) == set(peer.selection), "every test of the slice ran"
    owners = 0   # the tests that fail or break on what the peer did; the others depend on them (their prerequisite)
    for nodeid in peer.selection:
        verdict = verdicts[nodeid]
        if nodeid in peer.unaffected and verdict["verdict"] == "passed":
            continue
        if verdict["verdict"] == "skipped" and re.match(r"prerequisite failed: \[[\w.]+\] ", verdict["reason"]):
            continue   # the owner names it in full
        owners += 1
        assert verdict["verdict"] in ("failed", "broken"), f"{nodeid} {verdict['verdict']}: {verdict['reason']}"
        assert re.search(peer.reason, verdict["reason"], re.S), f"{nodeid}: {verdict['reason'][:1500]}"
    assert owners, "a prerequisite's violation is reported by the test that owns it: none did"


@pytest.mark.parametrize("idle", IDLE)
def test_no_test_passes_against_a_sut_that_only_completes_the_handshake(idle, runs):
    result, verdicts = runs[f"idle-{idle}"].result()
    _clean(result)
    handshake_tests = IDLE[idle][1]
    passed = {nodeid for nodeid, v in verdicts.items() if v["verdict"] == "passed"}
    assert {nodeid.partition("::")[2].partition("[")[0] for nodeid in passed} <= handshake_tests, sorted(passed)
    assert sum(v["verdict"] in ("failed", "broken") for v in verdicts.values()) >= 50
