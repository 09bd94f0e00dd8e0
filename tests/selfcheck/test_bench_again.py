"""bench/again_real_run.py: a role's runs against ONE standalone reference process, the last one in reverse order,
give the first run's verdicts ("Leave the SUT as you found it", bench/PARALLEL.md "Running twice against one SUT")."""

import sys
from pathlib import Path
from types import SimpleNamespace

from harness.arena.ocpp_sides import HarnessCsmsSide
from harness.ocpp.versions import OcppVersion
from harness.transport.ws import HandshakeSeen

BENCH = Path(__file__).resolve().parents[2] / "bench"
if str(BENCH) not in sys.path:
    sys.path.insert(0, str(BENCH))

import again_real_run  # noqa: E402

AUTH16_ACCEPTED = "suites/ocpp16/authorization/test_AUTH16.py::test_presented_tag_gets_its_status[cs-ocpp1.6-Accepted]"


def test_a_reversed_run_loads_the_plugin_that_reverses_the_order(tmp_path):
    urls = {"actuator URL": "http://127.0.0.1:9/actuator"}
    forward, backward = (again_real_run.pytest_command("cs", "ocpp1.6", "suites/ocpp16", tmp_path / "r", urls,
                                                       "127.0.0.1:9", reverse) for reverse in (False, True))
    assert "reverse_order" not in forward and backward[-2:] == ["-p", "reverse_order"]
    assert forward[forward.index("--listen") + 1] == "127.0.0.1:9"


def test_the_reverse_order_plugin_plays_the_tests_backwards(pytester, monkeypatch):
    pytester.makepyfile("ORDER = []\n\ndef test_a():\n    ORDER.append('a')\n\ndef test_b():\n    ORDER.append('b')\n\n"
                        "def test_c():\n    assert ORDER == ['a', 'b'], ORDER\n")
    monkeypatch.setenv("PYTHONPATH", str(BENCH))
    pytester.runpytest_subprocess("-p", "no:cacheprovider").assert_outcomes(passed=3)
    result = pytester.runpytest_subprocess("-p", "reverse_order", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=2, failed=1)   # test_c ran first, before a and b


def test_a_second_run_against_the_same_station_is_admitted_after_the_key_rotation(tmp_path, capsys):
    """SECURITY16 rotates the charge point's AuthorizationKey, which a real one keeps: before the test put the key
    back, the next run's first test was refused (HTTP 401, "its Basic-auth password is not the profile's")."""
    suites = f"suites/ocpp16/security/test_SECURITY16.py {AUTH16_ACCEPTED}"
    code = again_real_run.main(["--sut", "cs", "--version", "ocpp1.6", "--runs", "forward,forward", "--suites", suites,
                                "--out", str(tmp_path)])
    printed = capsys.readouterr().out
    assert code == 0, printed
    assert "run 2 (forward) against run 1: same verdicts" in printed
    assert "'passed': 2" in printed.splitlines()[1], printed   # the rotation and the next run's first test


def test_a_charge_point_refused_for_its_key_is_told_how_a_rotation_may_have_left_it():
    arena = SimpleNamespace(timeouts=SimpleNamespace(connect=5), profile=SimpleNamespace(identity="CS001"),
                            version=OcppVersion.V16)
    seen = [HandshakeSeen("CS001", ("ocpp1.6",), "CS001", False, None)]
    why = HarnessCsmsSide(arena)._station_refused([("CS001", 401)], seen)   # type: ignore[arg-type]
    assert "not the profile's [station] authorization_key (a run stopped during SECURITY16's rotation" in why


C01 = "suites/ocpp2/authorization/test_C01.py"


def test_a_second_run_against_the_same_2x_station_is_admitted_and_asked_about_its_tokens_again(tmp_path, capsys):
    """A01 sets the station's BasicAuthPassword (refused with HTTP 401 in the next run, before the test put it back),
    and an Accepted token the harness answered stays in the station's authorization cache, which then starts the
    next test's transaction without the AuthorizeRequest it waits for (LocalPreAuthorize): the cache is emptied."""
    suites = (f"suites/ocpp2/security/test_A01.py::test_password_updated "
              f"{C01}::test_presented_token_gets_its_status[cs-ocpp2.0.1-Accepted] "
              f"{C01}::test_station_starts_only_for_an_accepted_token[cs-ocpp2.0.1-Accepted]")
    code = again_real_run.main(["--sut", "cs", "--version", "ocpp2.0.1", "--runs", "forward,forward", "--suites",
                                suites, "--out", str(tmp_path)])
    printed = capsys.readouterr().out
    assert code == 0, printed
    assert all("'passed': 3, 'failed': 0" in line for line in printed.splitlines()[:2]), printed


def test_a_pin_accepted_without_a_cable_does_not_start_the_next_test_s_transaction(tmp_path, capsys):
    """C04 presents a PIN and plugs in no cable: the station keeps the authorization waiting for one (the
    reference's TxCtrlr.EVConnectionTimeOut 0: for ever), and C08's EV, plugged in next, started a transaction on
    the PIN instead of the token C08 presents. The authorization is used up when C04 ends (a cable in and out)."""
    suites = "suites/ocpp2/authorization/test_C04.py suites/ocpp2/authorization/test_C08.py"
    code = again_real_run.main(["--sut", "cs", "--version", "ocpp2.0.1", "--runs", "forward", "--suites", suites,
                                "--out", str(tmp_path)])
    printed = capsys.readouterr().out
    assert code == 0 and "'passed': 4, 'failed': 0" in printed, printed
